"""PTOCodegen: Addressed -> PTO, a strict 1:1 translation (spec pto_codegen.md).

Each Addressed node maps to its PTO-ISA construct; the only work done here is name mangling and
SSA bookkeeping: constants are hoisted and deduplicated, index arithmetic is spelled as
`arith.*` ops, every tile variable gets its `pto.alloc_tile` at its MemRef's address, tensor
parameters get a `pto.make_tensor_view`, and the store result (which aliases its destination
tensor) is resolved to that tensor's view. Which PTO instruction a tile op becomes is read from
the op registry (`OpDef.pto`); nothing about an operator is restated here.

Only kernels (InCore / AIC / AIV functions, and leaf Opaque functions working on tiles, like the
spec's own `@pl.function` examples) are emitted: orchestration code is host code, not PTO. A call to another function inside a kernel has no PTO form and is rejected.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field, replace
from typing import Callable, ClassVar, cast

from typing_extensions import override

from backend.pto_text.printer import tile_buf_type
from languages.layout import padded_2d, physical_2d, unboxed_row_multiple
from languages.decls import PTO, Addressed
from languages.functions import is_kernel_function
from languages.gen import addressed as A
from languages.gen import pto as P
from languages.memory_space import MemorySpace
from languages.ops import REGISTRY, OpDef, static_ints
from languages.ops.pto_ops import (FLOAT_ADD_AS_SUBTRACTIONS, ROW_BLOCK_OPERANDS, SCALAR_OPERAND_DTYPES, PTO_TARGET_ARCH, ARITH_BINARY, ARITH_COMPARE, ARITH_UNSIGNED, ARITH_UNSIGNED_COMPARE, PTO_ATTR_VALUES, alloc_attrs, constant_name,
                                   scalar_conversion_chain)
from languages.types import (
    BOOL,
    DYNAMIC_DIM,
    DYNAMIC_EXTENT,
    INDEX,
    AttrValue,
    Attrs,
    DataType,
    Extent,
    NoneType,
    ScalarType,
    SymbolicExtent,
    TensorType,
    TileType,
    Type,
    ValidDims,
    ViewType,
    attr,
    is_symbolic,
)
from languages.views import writes_with_vec_insert
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.node import Node, Span
from nanopass.passes import Pass, PassContext
from passes.analysis.memrefs import backend_handler
from passes.analysis.boxed_extents import check_tile

RULE = "PTOCodegen"


I64 = ScalarType(DataType.INT64)


def _span_within(inner: Span, outer: Span) -> bool:
    """Whether `inner` lies inside `outer` (a call span refines its statement's only then)."""
    if not inner.known or inner.file != outer.file:
        return False
    if (inner.line, inner.col) < (outer.line, outer.col):
        return False
    if not outer.end_line or not inner.end_line:
        return True
    return (inner.end_line, inner.end_col) <= (outer.end_line, outer.end_col)


def _float_key(value: float) -> str:
    return struct.pack("<d", value).hex()


@dataclass
class _FunctionState:
    """Names and hoisted prologue of the kernel being emitted."""

    values: dict[str, P.Var] = field(default_factory=dict)
    constants: dict[tuple[DataType, object], P.Var] = field(default_factory=dict)
    constant_stmts: list[P.Stmt] = field(default_factory=list)
    views: list[P.Stmt] = field(default_factory=list)
    allocs: list[P.Stmt] = field(default_factory=list)
    # Statements an operand needed (flattened index arithmetic), emitted before its user.
    pending: list[P.Stmt] = field(default_factory=list)
    # The tile_buf handle each carried tile of a region owns (loop carry / if-phi), per region
    # statement and result position, and the handles of the region being emitted (innermost last).
    carried: dict[int, tuple[P.Var | None, ...]] = field(default_factory=dict)
    regions: list[tuple[P.Var | None, ...]] = field(default_factory=list)
    # Names of the handles that own an alloc_tile (as opposed to a view or a popped slot).
    allocated: set[str] = field(default_factory=set)
    counter: int = 0
    params: int = 0
    float_constants: int = 0
    # The split code of each popped tile (its tfree releases the slot with the same code).
    pop_splits: dict[str, AttrValue] = field(default_factory=dict)
    # The tiles bound to a pto.subview (tile.slice results): PTOAS checks a tmov against the
    # subview's parent buffer, so a copy out of one is a tinsert (`_CodegenCalls.move`).
    windows: set[str] = field(default_factory=set)


# The statements that define a tile_buf handle: an assignment, or a region carrying a tile.
_Definer = A.AssignStmt | A.ForStmt | A.IfStmt


class _Codegen(P.FromAddressed):
    """The Addressed -> PTO rewriter; per-kernel state lives in `self.fn`."""

    def __init__(self, emit_tile_addr: bool, target_arch: str) -> None:
        super().__init__()
        self.emit_tile_addr = emit_tile_addr
        self.target_arch = target_arch
        self.fn = _FunctionState()

    # -- program / function ----------------------------------------------------------------------

    @override
    def visit_Program(self, node: A.Program) -> P.Program:
        kernels = tuple(self.visit_Function(f) for f in node.functions if is_kernel_function(f))
        self.bump("kernels", len(kernels))
        return P.Program(name=node.name, functions=kernels, target_arch=self.target_arch, span=node.span)

    @override
    def visit_Function(self, node: A.Function) -> P.Function:
        self.fn = _FunctionState()
        params = tuple(self.visit_Param(p) for p in node.params)
        planned = self._plan_allocations(node.body, params)
        for param in params:
            if isinstance(param.var.type, TensorType):
                self._tensor_view(param)
        body = self.visit_Stmt_block(node.body)
        for alloc in planned:
            self._emit_alloc(alloc)
        prologue = (*self.fn.constant_stmts, *self.fn.views, *self.fn.allocs)
        if not (body and isinstance(body[-1], P.ReturnStmt)):
            # func.func needs its terminator even when the source function just ends; it has
            # no source statement, so no loc (spec: unknown spans get none).
            body = (*body, P.ReturnStmt(values=()))
        # A function's attributes say how the host launches it (languages/functions.py): they stay
        # with the value-level program that launches the kernels; PTO text has no place for them.
        return P.Function(name=node.name, func_type=node.func_type, params=params, return_types=(),
                          body=(*prologue, *body), attrs=(), span=node.span)

    @override
    def visit_Param(self, node: A.Param) -> P.Param:
        var = P.Var(name=f"arg{self.fn.params}", type=node.var.type, span=node.var.span)
        self.fn.params += 1
        self.bind(node.var, var)
        return P.Param(var=var, direction=node.direction, span=node.span)

    @override
    def visit_FuncCall(self, node: A.FuncCall) -> P.Expr:
        raise CompileError(Diagnostic.at(
            node, RULE,
            f"a kernel cannot call another function (`self.{node.callee}(...)`): PTO has no call instruction",
            "inline the callee into the kernel, or make the caller an Orchestration function"))

    # -- naming ------------------------------------------------------------------------------------

    def fresh(self, ty: Type, span: Span) -> P.Var:
        var = P.Var(name=str(self.fn.counter), type=ty, span=span)
        self.fn.counter += 1
        return var

    def bind(self, source: A.Var, var: P.Var) -> None:
        self.fn.values[source.name] = var

    def constant(self, value: int | float | bool, dtype: DataType) -> P.Var:
        key: tuple[DataType, object] = (dtype, _float_key(float(value)) if dtype.is_float else value)
        found = self.fn.constants.get(key)
        if found is not None:
            return found
        literal: P.Expr
        if dtype is DataType.BOOL:
            literal = P.ConstBool(value=bool(value))
        elif dtype.is_float:
            literal = P.ConstFloat(value=float(value), dtype=dtype)
        else:
            literal = P.ConstInt(value=int(value), dtype=dtype)
        ty = ScalarType(dtype)
        name = constant_name(value, dtype, self.fn.float_constants)
        if dtype.is_float:
            self.fn.float_constants += 1
        var = P.Var(name=name, type=ty)
        self.fn.constants[key] = var
        self.fn.constant_stmts.append(P.AssignStmt(
            target=var, value=P.Call(op="arith.constant", args=(literal,), attrs=(), type=ty)))
        return var

    def index(self, value: int) -> P.Var:
        return self.constant(value, DataType.INDEX)

    def extent(self, extent: Extent, span: Span) -> P.Var:
        """The index SSA value of a valid extent: a constant, or the variable holding it."""
        if isinstance(extent, int):
            return self.index(extent)
        value = self.fn.values.get(extent.name)
        if value is None:
            raise CompileError(Diagnostic(RULE, f"the runtime valid extent `{extent.name}` is not defined here",
                                          span, "define the extent before the tile that uses it"))
        return self._as_index(value, span)

    def set_valid(self, handle: P.Var, tile: TileType, span: Span) -> tuple[P.Stmt, ...]:
        """`pto.set_validshape` of a handle with runtime valid extents (`v_row=?, v_col=?`),
        right before the instruction that defines its value: PTOAS and the simulator read a
        dynamic handle's extents from the handle at run time."""
        if not is_symbolic(tile.valid_shape):
            return ()
        extents = tile.valid_extents
        if len(extents) != 2:
            raise CompileError(Diagnostic(RULE, f"not supported yet: a rank-{len(extents)} tile with a runtime "
                                          "valid extent (PTO tiles are 2-D)", span))
        rows, cols = (self.extent(e, span) for e in extents)
        return (_instr("pto.set_validshape", (handle, rows, cols), (), span),)

    # -- prologue ----------------------------------------------------------------------------------

    def _tensor_view(self, param: P.Param) -> None:
        """`pto.make_tensor_view`: the tensor's ND element strides (row-major, or those of the
        window of a wider tensor it is called on), except that a packed [M, 1] column vector is
        written DN with strides [1, M] (PTOAS infers DN for that pattern; ND would be ambiguous)."""
        tensor = param.var.type
        assert isinstance(tensor, TensorType)
        shape = tensor.shape
        strides: tuple[int, ...]
        if len(shape) == 2 and shape[1] == 1 and tensor.strides is None:
            strides, layout = (1, shape[0]), "dn"
        else:
            strides, layout = tensor.element_strides, "nd"
        view_type = ViewType("tensor_view", shape, tensor.dtype)
        view = self.fresh(view_type, param.span)
        call = P.Call(
            op="pto.make_tensor_view",
            args=(param.var, P.TupleExpr(elements=tuple(self.index(d) for d in shape)),
                  P.TupleExpr(elements=tuple(self.index(s) for s in strides))),
            attrs=(("layout", layout),), type=view_type, span=param.span)
        self.fn.views.append(P.AssignStmt(target=view, value=call, span=param.span))
        self.fn.values[f"%view:{param.var.name}"] = view
        self.fn.values[f"%ptr:{view.name}"] = param.var

    def _plan_allocations(self, body: tuple[A.Stmt, ...],
                          params: tuple[P.Param, ...] = ()) -> list[tuple[_Definer, str, P.Var]]:
        """Number every tile variable that owns a buffer handle, in definition order (views
        such as `pto.subview` results and popped FIFO slots are bound by their own op instead).
        A carried tile (loop carry, if-phi) owns the handle of its buffer too, planned before its
        region: a value bound by its own op (a pop inside a branch) is then moved into it, so
        the carried handle is defined on every path that reaches its uses."""
        planned: list[tuple[_Definer, str, P.Var]] = []
        handles: dict[tuple[object, ...], P.Var] = {}
        # A tile parameter is the handle of its buffer: a value planned into the same MemRef (a
        # loop carry seeded by the parameter, an in-place update of it) uses the parameter, so no
        # copy is emitted from the parameter into an allocation of the same bytes (there may be no
        # data path within its space: nothing copies Acc to Acc).
        for param in params:
            key = _handle_key(param.var.type) if isinstance(param.var.type, TileType) else None
            if key is not None:
                handles.setdefault(key, param.var)
                self.fn.allocated.add(param.var.name)

        def handle_of(tile: TileType, node: _Definer, name: str) -> P.Var:
            # Variables resolving to one MemRef identity with one buffer configuration are one
            # tile_buf handle (PyPTO's rule): a loop-carried accumulator, its init and the value
            # yielded back are then updated in place, and no tile travels through iter_args.
            key = _handle_key(tile)
            handle = handles.get(key) if key is not None else None
            if handle is None:
                handle = self.fresh(dynamic_handle_type(buffer_handle_type(tile)), node.span)
                planned.append((node, name, handle))
                self.fn.allocated.add(handle.name)
                if key is not None:
                    handles[key] = handle
            return handle

        def carried(region: A.ForStmt | A.IfStmt, values: tuple[A.Var, ...]) -> None:
            self.fn.carried[id(region)] = tuple(
                handle_of(v.type, region, v.name) if isinstance(v.type, TileType) else None for v in values)

        def walk(stmts: tuple[A.Stmt, ...]) -> None:
            for stmt in stmts:
                if isinstance(stmt, A.ForStmt):
                    carried(stmt, tuple(it.var for it in stmt.iter_args))
                    walk(stmt.body)
                elif isinstance(stmt, A.IfStmt):
                    carried(stmt, stmt.results)
                    walk(stmt.then_body)
                    walk(stmt.else_body)
                elif isinstance(stmt, A.AssignStmt):
                    tile = stmt.target.type
                    if not isinstance(tile, TileType) or not isinstance(stmt.value, A.Call):
                        continue
                    if _instruction(_opdef(stmt.value)) in _SELF_BINDING:
                        continue
                    self.bind(stmt.target, handle_of(tile, stmt, stmt.target.name))

        walk(body)
        return planned

    def _emit_alloc(self, planned: tuple[_Definer, str, P.Var]) -> None:
        stmt, name, handle = planned
        tile = handle.type
        assert isinstance(tile, TileType)
        problem = check_tile(tile, stmt)
        if problem is not None:
            raise CompileError(problem)
        if tile.memref is None or tile.memory_space is None or tile.view is None:
            raise CompileError(Diagnostic.at(
                stmt, RULE, f"tile `{name}` has no memory space, view or MemRef",
                "run the memory-planning passes (init-mem-ref ... allocate-memory-addr) before pto-codegen"))
        args: tuple[P.Expr, ...] = ()
        if self.emit_tile_addr:
            args = (self.constant(tile.memref.offset, DataType.INT64),)
        if is_symbolic(tile.valid_shape):
            # PTOAS wants a `?` handle's initial extents: the whole tile, until the
            # `pto.set_validshape` before each definition narrows it.
            rows, cols = tile.shape if len(tile.shape) == 2 else (1, tile.shape[-1])
            args += (self.index(rows), self.index(cols))
        call = P.Call(op="pto.alloc_tile", args=args, attrs=alloc_attrs(tile), type=tile, span=stmt.span)
        self.fn.allocs.append(P.AssignStmt(target=handle, value=call, span=stmt.span))
        self.bump("alloc_tile")

    # -- operands ----------------------------------------------------------------------------------

    @override
    def visit_Var(self, node: A.Var) -> P.Var:
        found = self.fn.values.get(node.name)
        if found is None:
            raise CompileError(Diagnostic.at(node, RULE, f"`{node.name}` is used but never defined",
                                             "the program is not in SSA form; run --verify-all"))
        return found

    def operand(self, expr: A.Expr, span: Span) -> P.Var:
        """The SSA value of a scalar / tile operand; index arithmetic becomes arith ops."""
        if isinstance(expr, A.Var):
            return self.visit_Var(expr)
        if isinstance(expr, A.ConstInt):
            return self.constant(expr.value, expr.dtype)
        if isinstance(expr, A.ConstFloat):
            return self.constant(expr.value, expr.dtype)
        if isinstance(expr, A.ConstBool):
            return self.constant(expr.value, DataType.BOOL)
        if isinstance(expr, A.BinOp):
            return self._binop(expr, span)
        if isinstance(expr, A.UnaryOp):
            return self._unary(expr, span)
        if isinstance(expr, A.FuncCall):
            self.visit_FuncCall(expr)
        raise CompileError(Diagnostic.at(expr, RULE, f"a {expr.KIND} cannot be a PTO operand",
                                         "operands must be variables, constants or index arithmetic"))

    def operands(self, expr: A.Expr, span: Span) -> P.TupleExpr:
        items = expr.elements if isinstance(expr, A.TupleExpr) else (expr,)
        return P.TupleExpr(elements=tuple(self.operand(e, span) for e in items), span=expr.span)

    def _arith(self, op: str, args: tuple[P.Var, ...], ty: Type, span: Span, attrs: Attrs = ()) -> P.Var:
        result = self.fresh(ty, span)
        self.fn.pending.append(P.AssignStmt(
            target=result, value=P.Call(op=op, args=args, attrs=attrs, type=ty, span=span), span=span))
        self.bump("arith")
        return result

    def _binop(self, expr: A.BinOp, span: Span) -> P.Var:
        lhs, rhs = self._binop_operand(expr.lhs, expr.rhs, span), self._binop_operand(expr.rhs, expr.lhs, span)
        operand_type = lhs.type
        is_float = isinstance(operand_type, ScalarType) and operand_type.dtype.is_float
        unsigned = isinstance(operand_type, ScalarType) and operand_type.dtype.is_int \
            and not operand_type.dtype.is_signed and operand_type.dtype is not DataType.BOOL
        if expr.op in ARITH_COMPARE:
            int_pred, float_pred = ARITH_COMPARE[expr.op]
            if unsigned:
                int_pred = ARITH_UNSIGNED_COMPARE.get(expr.op, int_pred)
            op = "arith.cmpf" if is_float else "arith.cmpi"
            return self._arith(op, (lhs, rhs), BOOL, span, (("predicate", float_pred if is_float else int_pred),))
        if expr.op not in ARITH_BINARY:
            raise CompileError(Diagnostic.at(expr, RULE, f"scalar operator `{expr.op}` has no arith form"))
        if is_float and expr.op in ("//", "%"):
            # The DSL's `//` and `%` are FloorDiv / FloorMod (JIT_FRONTEND.md); arith's divf / remf
            # are true division and a truncated remainder.
            raise CompileError(Diagnostic.at(
                expr, RULE, f"not supported yet: `{expr.op}` on float scalars (floor "
                            f"{'division' if expr.op == '//' else 'modulo'}) has no exact arith form",
                "compute it in integers, or restructure the scalar arithmetic without it"))
        int_op, float_op = ARITH_BINARY[expr.op]
        if unsigned and expr.op in ARITH_UNSIGNED:
            return self._arith(ARITH_UNSIGNED[expr.op], (lhs, rhs), expr.type, span)
        if expr.op == "%" and not is_float:
            # FloorMod from the truncated remainder: remsi(remsi(a, b) + b, b) takes b's sign.
            first = self._arith(int_op, (lhs, rhs), expr.type, span)
            shifted = self._arith(ARITH_BINARY["+"][0], (first, rhs), expr.type, span)
            return self._arith(int_op, (shifted, rhs), expr.type, span)
        if is_float and expr.op == "+" and FLOAT_ADD_AS_SUBTRACTIONS:
            dtype = cast(ScalarType, expr.type).dtype
            negated = self._arith(ARITH_BINARY["-"][1], (self.constant(-0.0, dtype), rhs), expr.type, span)
            return self._arith(ARITH_BINARY["-"][1], (lhs, negated), expr.type, span)
        return self._arith(float_op if is_float else int_op, (lhs, rhs), expr.type, span)

    def _binop_operand(self, expr: A.Expr, other: A.Expr, span: Span) -> P.Var:
        """An arith operand: a bare literal paired with a typed scalar is spelled in that scalar's
        type (arith ops take one operand type; `n > 0` on an i32 compares with an i32 0)."""
        other_type = _expr_type(other)
        if isinstance(expr, A.ConstInt) and expr.dtype is DataType.INDEX and isinstance(other_type, ScalarType) \
                and other_type.dtype.is_int and other_type.dtype is not DataType.INDEX:
            return self.constant(expr.value, other_type.dtype)
        return self.operand(expr, span)

    def _unary(self, expr: A.UnaryOp, span: Span) -> P.Var:
        value = self.operand(expr.operand, span)
        ty = value.type
        if expr.op == "not":
            return self._arith("arith.xori", (value, self.constant(True, DataType.BOOL)), BOOL, span)
        assert isinstance(ty, ScalarType)
        if expr.op == "cast":
            target = cast(ScalarType, expr.type).dtype
            for op, dtype in scalar_conversion_chain(ty.dtype, target):
                value = self._arith(op, (value,), ScalarType(dtype), span, (("dtype", dtype),))
            return value
        if ty.dtype.is_float:
            return self._arith("arith.negf", (value,), ty, span)
        return self._arith("arith.subi", (self.constant(0, ty.dtype), value), ty, span)

    def take_pending(self) -> tuple[P.Stmt, ...]:
        pending = tuple(self.fn.pending)
        self.fn.pending.clear()
        return pending

    # -- statements --------------------------------------------------------------------------------

    @override
    def visit_AssignStmt(self, node: A.AssignStmt) -> P.Stmt | tuple[P.Stmt, ...]:
        value = node.value
        if isinstance(value, A.Call):
            return self._call(value, node, node.target)
        if isinstance(value, A.FuncCall):
            self.visit_FuncCall(value)
        # A scalar definition: the target names the value its expression computes (another name
        # of a window is that window: a copy out of it is a tinsert, `writes_with_vec_insert`).
        if isinstance(value, A.Var) and value.name in self.fn.windows:
            self.fn.windows.add(node.target.name)
        result = self.operand(value, node.span)
        self.bind(node.target, result)
        return self.take_pending()

    @override
    def visit_EvalStmt(self, node: A.EvalStmt) -> P.Stmt | tuple[P.Stmt, ...]:
        if isinstance(node.value, A.Call):
            return self._call(node.value, node, None)
        if isinstance(node.value, A.FuncCall):
            self.visit_FuncCall(node.value)
        return ()

    @override
    def visit_ReturnStmt(self, node: A.ReturnStmt) -> P.Stmt | tuple[P.Stmt, ...]:
        # Kernels return through their Out / InOut tensors: the returned values are the stores'
        # results, which alias those parameters.
        return P.ReturnStmt(values=(), span=node.span)

    @override
    def visit_YieldStmt(self, node: A.YieldStmt) -> P.Stmt | tuple[P.Stmt, ...]:
        carried = self.fn.regions[-1] if self.fn.regions else ()
        moves = tuple(move for position, value in enumerate(node.values) if position < len(carried)
                      for move in self._into_carried(value, carried[position], node.span))
        values = tuple(self.operand(v, node.span) for v in node.values
                       if not isinstance(_expr_type(v), (TensorType, TileType)))
        if not values:
            return (*moves, *self.take_pending())  # a region that carries nothing ends implicitly
        return (*moves, *self.take_pending(), P.YieldStmt(values=values, span=node.span))

    def _into_carried(self, value: A.Expr, carried: P.Var | None, span: Span) -> tuple[P.Stmt, ...]:
        """The `tmov` that lands a tile in the buffer its region carries, when it is not already
        there: a value bound by its own op (a popped FIFO slot, a subview) has a handle of its
        own; a handle allocated on the carried buffer's bytes is updated in place (no move)."""
        if carried is None or not isinstance(_expr_type(value), TileType):
            return ()
        source = self.operand(value, span)
        if source.name == carried.name:
            return ()
        if source.name in self.fn.allocated and _same_bytes(source.type, carried.type):
            return ()
        self.bump("carry-tmov")
        return (_instr("pto.tmov", (source, carried), (), span),)

    @override
    def visit_ForStmt(self, node: A.ForStmt) -> P.Stmt | tuple[P.Stmt, ...]:
        # scf.for bounds are `index`: a data-dependent bound read as i32 is cast.
        start, stop, step = (self._as_index(self.operand(bound, node.span), node.span)
                             for bound in (node.start, node.stop, node.step))
        loop_var = self.fresh(INDEX, node.loop_var.span)
        self.bind(node.loop_var, loop_var)
        iter_args: list[P.IterArg] = []
        yielded = _yield_values(node.body)
        carried = self.fn.carried.get(id(node), ())
        for position, it in enumerate(node.iter_args):
            init = self.operand(it.init, node.span)
            if isinstance(it.var.type, (TensorType, TileType)):
                # A GM tensor carried through stores is its one view; a carried tile is its
                # one buffer, updated in place (PTOAS takes no tile_buf through iter_args).
                handle = carried[position] if position < len(carried) else None
                if isinstance(it.var.type, TileType):
                    self._check_one_buffer(it, (it.init, *yielded[position:position + 1]))
                    self.fn.pending.extend(self._into_carried(it.init, handle, node.span))
                self.bind(it.var, handle if handle is not None else init)
                continue
            var = self.fresh(it.var.type, it.var.span)
            self.bind(it.var, var)
            iter_args.append(P.IterArg(var=var, init=init, span=it.span))
        before = self.take_pending()
        self.fn.regions.append(carried)
        body = self.visit_Stmt_block(node.body)
        self.fn.regions.pop()
        results = self._results(node.results, [it.init for it in node.iter_args], carried)
        self.bump("scf.for")
        loop = P.ForStmt(loop_var=loop_var, start=start, stop=stop, step=step, iter_args=tuple(iter_args),
                         body=body, results=results, kind=node.kind, attrs=node.attrs, span=node.span)
        return (*before, loop)

    @override
    def visit_IfStmt(self, node: A.IfStmt) -> P.Stmt | tuple[P.Stmt, ...]:
        cond = self.operand(node.cond, node.span)
        before = self.take_pending()
        carried = self.fn.carried.get(id(node), ())
        self.fn.regions.append(carried)
        then_body = self.visit_Stmt_block(node.then_body)
        else_body = self.visit_Stmt_block(node.else_body)
        self.fn.regions.pop()
        yielded = list(_yield_values(node.then_body))
        else_yielded = _yield_values(node.else_body)
        for position, result in enumerate(node.results):
            if isinstance(result.type, TileType):
                self._check_one_buffer(result, tuple(v[position] for v in (yielded, else_yielded) if position < len(v)))
        results = self._results(node.results, yielded, carried)
        self.bump("scf.if")
        return (*before, P.IfStmt(cond=cond, then_body=then_body, else_body=else_body, results=results,
                                  span=node.span))

    def _check_one_buffer(self, carried: Node, values: tuple[A.Expr, ...]) -> None:
        """A tile carried out of a region (loop carry, if-phi) must be one buffer: the memory
        planner gives the init, the yielded values and the result one MemRef."""
        names = {t.memref.name for t in (_expr_type(v) for v in values) if isinstance(t, TileType) and t.memref}
        if len(names) > 1:
            raise CompileError(Diagnostic.at(
                carried, RULE, f"the carried tile lives in {len(names)} buffers ({', '.join(sorted(names))}); "
                "PTO carries tiles in place, never through iter_args",
                "run materialize-semantic-aliases before pto-codegen"))

    def _results(self, results: tuple[A.Var, ...], tensor_sources: list[A.Expr],
                 carried: tuple[P.Var | None, ...]) -> tuple[P.Var, ...]:
        """Name the region results: one `N`, or `N#0, N#1, ...` for several (MLIR's `%N:2`).
        A GM tensor result is the view its tensor operand already has; a tile result is the
        handle its region carries (the yields moved their values there)."""
        kept = [r for r in results if not isinstance(r.type, (TensorType, TileType))]
        base = str(self.fn.counter)
        if kept:
            self.fn.counter += 1
        out: list[P.Var] = []
        for position, result in enumerate(results):
            if isinstance(result.type, (TensorType, TileType)):
                handle = carried[position] if position < len(carried) else None
                if handle is not None:
                    self.bind(result, handle)
                elif position < len(tensor_sources):
                    self.bind(result, self.operand(tensor_sources[position], result.span))
                continue
            name = base if len(kept) == 1 else f"{base}#{len(out)}"
            var = P.Var(name=name, type=result.type, span=result.span)
            self.bind(result, var)
            out.append(var)
        return tuple(out)

    # -- calls -------------------------------------------------------------------------------------

    def _call(self, call: A.Call, stmt: A.AssignStmt | A.EvalStmt, target: A.Var | None) -> tuple[P.Stmt, ...]:
        opdef = _opdef(call, stmt)
        instruction = _instruction(opdef)
        span = call.span if _span_within(call.span, stmt.span) else stmt.span
        emitter = _EMITTERS.get(instruction, _CodegenCalls.dps)
        emitted = emitter(self, call, opdef, instruction, target, span)
        self.bump(instruction or "alloc-only")
        narrowed: tuple[P.Stmt, ...] = ()
        if target is not None and isinstance(target.type, TileType) and instruction not in _SELF_BINDING:
            narrowed = self.set_valid(self.visit_Var(target), target.type, span)
        return (*self.take_pending(), *narrowed, *emitted)

    def row_block(self, operand: P.Var, span: Span) -> P.Var:
        """A row-major per-row operand valid one column wide as its rows' 32-byte blocks
        (ROW_BLOCK_OPERANDS): a subview of the padded buffer, valid [M, 32/sizeof(dtype)]; a
        column-major one as it is."""
        tile = operand.type
        if not (isinstance(tile, TileType) and tile.view is not None and tile.view.blayout == "row_major"
                and len(tile.shape) == 2 and tile.valid_extents[1] == 1 and isinstance(tile.valid_extents[0], int)):
            return operand
        block = unboxed_row_multiple(tile.dtype)
        if tile.shape[1] < block:
            return operand  # not a padded buffer's handle (a narrower view): left to PTOAS
        sizes = (tile.valid_extents[0], block)
        return self.origin_window(operand, sizes, span, valid=sizes)

    def origin_window(self, operand: P.Var, sizes: tuple[int, int], span: Span,
                      valid: tuple[int, int] | None = None) -> P.Var:
        """`operand`'s buffer seen as its [sizes] window at [0, 0] (a pto.subview, pending before
        the instruction), valid over `valid` (None: as `operand` is)."""
        tile = operand.type
        assert isinstance(tile, TileType)
        region = valid if valid is not None else (int(tile.valid[0]), int(tile.valid[1]))
        window_type = replace(tile, shape=sizes, valid_shape=None if region == sizes else region)
        window = self.fresh(window_type, span)
        offsets = self.operands(A.TupleExpr(elements=(A.ConstInt(value=0, dtype=DataType.INDEX, span=span),) * 2,
                                            span=span), span)
        if region != sizes:
            for extent in region:
                self.index(extent)  # PTOAS takes the valid extents as index SSA values
        attrs: Attrs = (("sizes", sizes),) + ((("valid", region),) if region != sizes else ())
        self.fn.pending.append(P.AssignStmt(target=window, value=P.Call(
            op="pto.subview", args=(operand, offsets), attrs=attrs, type=window_type, span=span), span=span))
        return window

    def converted_scalar(self, operand: P.Var, dtype: DataType, span: Span) -> P.Var:
        """A scalar operand converted to the `dtype` its instruction types it as
        (SCALAR_OPERAND_DTYPES); other operands as they are."""
        ty = operand.type
        if not isinstance(ty, ScalarType) or ty.dtype is dtype:
            return operand
        value = operand
        for op, step in scalar_conversion_chain(ty.dtype, dtype):
            value = self._arith(op, (value,), ScalarType(step), span, (("dtype", step),))
        return value

    def tensor_view_of(self, tensor: A.Expr, span: Span) -> P.Var:
        """The tensor view of a GM tensor operand (a parameter, or a store result aliasing one)."""
        base = self.operand(tensor, span)
        if isinstance(base.type, ViewType):
            return base
        view = self.fn.values.get(f"%view:{base.name}")
        if view is None:
            raise CompileError(Diagnostic.at(tensor, RULE, "a kernel can only address its tensor parameters",
                                             "pass the tensor as a parameter of the kernel"))
        return view

    def partition(self, tensor: A.Expr, offsets: A.Expr, window: ValidDims,
                  span: Span) -> tuple[P.Stmt, ...]:
        """`pto.partition_view` of `window` at `offsets` of a GM tensor; a runtime extent of the
        window (a runtime valid extent of the tile) is a `?` size given by its SSA value."""
        view = self.tensor_view_of(tensor, span)
        assert isinstance(view.type, ViewType)
        offset_vars = self.operands(offsets, span)
        sizes = tuple(self.extent(size, span) for size in window)
        static = tuple(DYNAMIC_DIM if isinstance(size, SymbolicExtent) else size for size in window)
        part_type = ViewType("partition_tensor_view", static, view.type.dtype)
        part = self.fresh(part_type, span)
        args: tuple[P.Expr, ...] = (view, offset_vars)
        if DYNAMIC_DIM in static:
            args += (P.TupleExpr(elements=sizes, span=span),)
        call = P.Call(op="pto.partition_view", args=args, attrs=(("sizes", static),),
                      type=part_type, span=span)
        return (*self.take_pending(), P.AssignStmt(target=part, value=call, span=span))

    def pointer_of(self, tensor: A.Expr, span: Span) -> P.Var:
        """The GM pointer (kernel parameter) a tensor operand addresses."""
        view = self.tensor_view_of(tensor, span)
        pointer = self.fn.values.get(f"%ptr:{view.name}")
        if pointer is None:
            raise CompileError(Diagnostic.at(tensor, RULE, "a scalar GM access needs a tensor parameter",
                                             "pass the tensor as a parameter of the kernel"))
        return pointer

    def flat_offset(self, indices: A.Expr, strides: tuple[int, ...], span: Span) -> P.Var:
        """sum(index_k * stride_k) as index arithmetic; constant indices fold into one constant
        term (this is name bookkeeping of the offset, not an optimisation of the program)."""
        items = indices.elements if isinstance(indices, A.TupleExpr) else (indices,)
        constant = 0
        total: P.Var | None = None
        for item, stride in zip(items, strides):
            if isinstance(item, A.ConstInt):
                constant += item.value * stride
                continue
            value = self._as_index(self.operand(item, span), span)
            term = value if stride == 1 else self._arith("arith.muli", (value, self.index(stride)), INDEX, span)
            total = term if total is None else self._arith("arith.addi", (total, term), INDEX, span)
        if total is None:
            return self.index(constant)
        return total if constant == 0 else self._arith("arith.addi", (total, self.index(constant)), INDEX, span)

    def _as_index(self, value: P.Var, span: Span) -> P.Var:
        ty = value.type
        if isinstance(ty, ScalarType) and ty.dtype is not DataType.INDEX:
            return self._arith("arith.index_cast", (value,), INDEX, span, (("dtype", DataType.INDEX),))
        return value

    def handle(self, target: A.Var | None, call: A.Call) -> P.Var:
        if target is None or not isinstance(target.type, TileType):
            raise CompileError(Diagnostic.at(call, RULE, f"{call.op} must define a tile variable"))
        return self.visit_Var(target)


class _CodegenCalls:
    """One emitter per instruction whose operand layout differs from plain DPS."""

    @staticmethod
    def dps(cg: _Codegen, call: A.Call, opdef: OpDef, instruction: str, target: A.Var | None,
            span: Span) -> tuple[P.Stmt, ...]:
        """`pto.tX ins(tiles and scalars...) outs(result buffer)`: the registry's `pto_ins`
        names the operands (default: every argument but list literals, which only feed type
        deduction) and `pto_attrs` the attributes the instruction carries."""
        if not instruction:
            return ()  # the allocation is the whole operation (tile.create, zero-copy views)
        chosen = (tuple(call.args[i] for i in opdef.pto_ins if i < len(call.args)) if opdef.pto_ins is not None
                  else tuple(a for a in call.args if not isinstance(a, A.TupleExpr)))
        ins = tuple(cg.operand(a, span) for a in chosen)
        block_operand = ROW_BLOCK_OPERANDS.get(instruction)
        if block_operand is not None and block_operand < len(ins):
            ins = (*ins[:block_operand], cg.row_block(ins[block_operand], span), *ins[block_operand + 1:])
        scalar_dtype = SCALAR_OPERAND_DTYPES.get(instruction)
        if scalar_dtype is not None:
            ins = tuple(cg.converted_scalar(a, scalar_dtype, span) for a in ins)
        out = cg.handle(target, call)
        full = opdef.with_defaults(call.attrs)
        attrs = tuple((new, PTO_ATTR_VALUES.get(new, _same)(attr(full, old)))
                      for old, new in opdef.pto_attrs if attr(full, old) is not None)
        attrs += tuple((name, PTO_ATTR_VALUES.get(name, _same)(value)) for index, name, value in opdef.pto_operand_attrs
                       if index < len(call.args) and call.args[index] is not None)
        # A value the PTO spelling leaves unwritten (a default precision or phase) is no attribute.
        attrs = tuple((name, value) for name, value in attrs if value is not None)
        return (_instr(instruction, (*ins, out), attrs, span),)

    @staticmethod
    def load(cg: _Codegen, call: A.Call, opdef: OpDef, instruction: str, target: A.Var | None,
             span: Span) -> tuple[P.Stmt, ...]:
        """`tile.load(tensor, offsets, shapes[, valid_shape])` -> partition_view + tload; the
        window copied is the valid extent (the tile's padding is not in GM)."""
        tensor, offsets = call.args[0], call.args[1]
        # The copied window is the tile's valid extent (a runtime one included).
        window: ValidDims | None = target.type.valid_extents if target is not None and isinstance(
            target.type, TileType) and not attr(call.attrs, "packed", False) else None
        if window is None:
            window = static_ints(call.args[3]) if len(call.args) > 3 else None
        if window is None:
            window = static_ints(call.args[2])
        if window is None:
            raise CompileError(Diagnostic.at(call, RULE, "tile.load shapes must be constant"))
        part = cg.partition(tensor, offsets, window, span)
        return (*part, _instr("pto.tload", (_target(part), cg.handle(target, call)), (), span))

    @staticmethod
    def store(cg: _Codegen, call: A.Call, opdef: OpDef, instruction: str, target: A.Var | None,
              span: Span) -> tuple[P.Stmt, ...]:
        """`tile.store(tile, offsets, tensor)` -> partition_view + tstore of the valid region;
        the result (the updated tensor) is the destination's view."""
        tile_expr, offsets, tensor = call.args[0], call.args[1], call.args[2]
        tile = cg.operand(tile_expr, span)
        assert isinstance(tile.type, TileType)
        dest_type = _expr_type(tensor)
        rank = len(dest_type.shape) if isinstance(dest_type, TensorType) else 2
        valid = tile_expr.type.valid_extents if isinstance(tile_expr, A.Var) and isinstance(
            tile_expr.type, TileType) else tile.type.valid
        packed_window = attr(call.attrs, "window")
        # A row-packed tile fills the N-D window FlattenTileNdTo2D recorded on the store.
        window = (tuple(packed_window) if isinstance(packed_window, tuple)
                  else (1,) * (rank - len(valid)) + tuple(valid))
        part = cg.partition(tensor, offsets, window, span)
        if target is not None:
            cg.bind(target, cg.tensor_view_of(tensor, span))
        atomic = attr(call.attrs, "atomic")
        attrs: Attrs = (("atomicType", PTO_ATTR_VALUES["atomicType"](atomic)),) if atomic == "add" else ()
        return (*part, _instr("pto.tstore", (tile, _target(part)), attrs, span))

    @staticmethod
    def subview(cg: _Codegen, call: A.Call, opdef: OpDef, instruction: str, target: A.Var | None,
                span: Span) -> tuple[P.Stmt, ...]:
        """`tile.slice(src, shape, offsets[, valid_shape])` -> `pto.subview` (no copy, no alloc);
        the `valid [...]` clause only when a valid shape was given."""
        if target is None or not isinstance(target.type, TileType):
            raise CompileError(Diagnostic.at(call, RULE, "tile.slice must define a tile variable"))
        cg.fn.windows.add(target.name)
        source = cg.operand(call.args[0], span)
        sizes = static_ints(call.args[1])
        if sizes is None:
            raise CompileError(Diagnostic.at(call, RULE, "tile.slice shape must be constant"))
        valid_arg: AttrValue = attr(call.attrs, "valid_shape")
        runtime: tuple[P.Expr, ...] = ()
        if len(call.args) > 3 and is_symbolic(target.type.valid_shape):
            # Runtime extents: `valid [%rows, %c16_index]` operands, `?` in the result type.
            extents = target.type.valid_extents
            runtime = (P.TupleExpr(elements=tuple(cg.extent(e, span) for e in extents), span=span),)
            valid_arg = tuple(DYNAMIC_DIM if isinstance(e, SymbolicExtent) else e for e in extents)
        elif len(call.args) > 3:
            valid_arg = static_ints(call.args[3])
        offsets = cg.operands(call.args[2], span)
        for size in sizes:
            cg.index(size)
        if isinstance(valid_arg, tuple) and not runtime:
            for extent in valid_arg:
                cg.index(int(extent))  # PTOAS takes the valid extents as index SSA values
        attrs: Attrs = (("sizes", sizes),) + ((("valid", valid_arg),) if valid_arg is not None else ())
        handle_type = (replace(target.type, valid_shape=tuple(
            DYNAMIC_EXTENT if isinstance(e, SymbolicExtent) else e for e in target.type.valid_extents))
            if runtime else target.type)
        result = cg.fresh(handle_type, span)
        cg.bind(target, result)
        view = P.Call(op="pto.subview", args=(source, offsets, *runtime), attrs=attrs, type=handle_type, span=span)
        return (P.AssignStmt(target=result, value=view, span=span),)

    @staticmethod
    def matmul_acc(cg: _Codegen, call: A.Call, opdef: OpDef, instruction: str, target: A.Var | None,
                   span: Span) -> tuple[P.Stmt, ...]:
        """`tile.matmul_acc(acc, lhs, rhs[, init_cond])`: TMATMUL.ACC, or with an init_cond
        `scf.if cond { tmatmul } else { tmatmul.acc }` (a compile-time flag picks one)."""
        acc, lhs, rhs = (cg.operand(a, span) for a in call.args[:3])
        out = cg.handle(target, call)
        fresh = _instr("pto.tmatmul", (lhs, rhs, out), (), span)
        accumulate = _instr("pto.tmatmul.acc", (acc, lhs, rhs, out), (), span)
        if len(call.args) < 4:
            return (accumulate,)
        cond = call.args[3]
        if isinstance(cond, A.ConstBool):
            return (fresh if cond.value else accumulate,)
        flag = cg.operand(cond, span)
        return (P.IfStmt(cond=flag, then_body=(fresh,), else_body=(accumulate,), results=(), span=span),)

    @staticmethod
    def move(cg: _Codegen, call: A.Call, opdef: OpDef, instruction: str, target: A.Var | None,
             span: Span) -> tuple[P.Stmt, ...]:
        """`pto.tmov ins(src) outs(dst)`; a row-major Vec window (a `pto.subview`, typed by its
        sizes) copied into a tile of its own is `pto.tinsert` at [0, 0] instead, since A2/A3's
        vector tmov takes only equal tile shapes and PTOAS measures a subview by its parent
        buffer ("expects A2/A3 non-mat tmov to use matching src/dst shapes" for an [8, 16] window
        of a [16, 32] tile copied to an [8, 16] tile)."""
        emitted = _CodegenCalls.dps(cg, call, opdef, instruction, target, span)
        if len(emitted) != 1 or not isinstance(emitted[0], P.EvalStmt) or not isinstance(emitted[0].value, P.Call):
            return emitted
        source, dst = emitted[0].value.args[0], emitted[0].value.args[-1]
        if not (isinstance(source, P.Var) and isinstance(dst, P.Var)
                and isinstance(source.type, TileType) and isinstance(dst.type, TileType)
                and writes_with_vec_insert(call.op, source.type, dst.type,
                                           getattr(call.args[0], "name", None) in cg.fn.windows)):
            return emitted
        zeros = cg.operands(A.TupleExpr(elements=(A.ConstInt(value=0, dtype=DataType.INDEX, span=span),) * 2,
                                        span=span), span)
        return (*cg.take_pending(), _instr("pto.tinsert", (source, *zeros.elements, dst), (), span))

    @staticmethod
    def assemble(cg: _Codegen, call: A.Call, opdef: OpDef, instruction: str, target: A.Var | None,
                 span: Span) -> tuple[P.Stmt, ...]:
        """`tile.assemble(target, source, offsets)`: `pto.tmov target -> dst` when the planner
        did not put both in one buffer, then `pto.subview dst[offsets] sizes [source shape]` and
        `pto.tmov source -> that window`."""
        whole, source = cg.operand(call.args[0], span), cg.operand(call.args[1], span)
        dst = cg.handle(target, call)
        assert isinstance(source.type, TileType) and isinstance(dst.type, TileType)
        stmts: list[P.Stmt] = []
        if not isinstance(whole.type, TileType) or whole.type.memref != dst.type.memref:
            stmts.append(_instr("pto.tmov", (whole, dst), (), span))
        offsets = cg.operands(call.args[2], span)
        if writes_with_vec_insert(call.op, source.type, dst.type, False):
            # A subview of a row-major Vec tile keeps its parent's row pitch, and A2/A3's tmov
            # demands equal source and destination shapes: the window write is pto.tinsert.
            return (*stmts, *cg.take_pending(), _instr("pto.tinsert", (source, *offsets.elements, dst), (), span))
        sizes = source.type.shape
        for size in sizes:
            cg.index(size)
        # The window holds exactly the source's valid region: a source padded past its valid
        # rows (a column-major INT8 [16, 1] is 32 rows) must not move its padding into the target.
        if is_symbolic(source.type.valid_shape):
            raise CompileError(Diagnostic.at(call, RULE, "tile.assemble of a source with a runtime valid "
                                             "shape is not supported yet", "assemble a source with a static valid shape"))
        window_valid = source.type.valid if source.type.valid != tuple(sizes) else None
        attrs: Attrs = (("sizes", sizes),)
        if window_valid is not None:
            for extent in window_valid:
                cg.index(extent)
            attrs += (("valid", window_valid),)
        window_type = TileType(sizes, dst.type.dtype, window_valid, dst.type.memory_space, dst.type.view, dst.type.memref)
        window = cg.fresh(window_type, span)
        view = P.Call(op="pto.subview", args=(dst, offsets), attrs=attrs, type=window_type, span=span)
        stmts += [*cg.take_pending(), P.AssignStmt(target=window, value=view, span=span),
                  _instr("pto.tmov", (source, window), (), span)]
        return tuple(stmts)

    @staticmethod
    def tpush(cg: _Codegen, call: A.Call, opdef: OpDef, instruction: str, target: A.Var | None,
              span: Span) -> tuple[P.Stmt, ...]:
        """`tile.tpush_to_aiv / _aic(tile, split=N[, id=I])` -> `pto.tpush_to_* ins(%tile : T)
        {[id = I, ]split = N}`."""
        tile = cg.operand(call.args[0], span)
        return (_instr(instruction, (tile,), _fifo_attrs(call), span),)

    @staticmethod
    def tpop(cg: _Codegen, call: A.Call, opdef: OpDef, instruction: str, target: A.Var | None,
             span: Span) -> tuple[P.Stmt, ...]:
        """`x = tile.tpop_from_*(shape, ..., split=N)` -> `%x = pto.tpop_from_* {split = N} -> T`:
        the pop binds the consumer's buffer itself (no alloc_tile); the shape operands only feed
        type deduction."""
        if target is None or not isinstance(target.type, TileType):
            raise CompileError(Diagnostic.at(call, RULE, f"{call.op} must define a tile variable"))
        result = cg.fresh(target.type, span)
        cg.bind(target, result)
        cg.fn.pop_splits[target.name] = attr(call.attrs, "split", 0)
        pop = P.Call(op=instruction, args=(), attrs=_fifo_attrs(call), type=target.type, span=span)
        return (P.AssignStmt(target=result, value=pop, span=span),)

    @staticmethod
    def tfree(cg: _Codegen, call: A.Call, opdef: OpDef, instruction: str, target: A.Var | None,
              span: Span) -> tuple[P.Stmt, ...]:
        """`system.tfree_to_aic(popped)` -> `pto.tfree_from_aic {[id = I, ]split = N}`: the
        split is the one the tile was popped with (the instruction takes no tile operand)."""
        tile = call.args[0]
        split = cg.fn.pop_splits.get(getattr(tile, "name", ""))
        if split is None:
            raise CompileError(Diagnostic.at(call, RULE, f"{call.op} must free a tile produced by a tpop",
                                             "free exactly the value the tpop defined"))
        pipe = attr(call.attrs, "id")
        attrs: Attrs = ((("id", pipe),) if pipe is not None else ()) + (("split", split),)
        return (_instr(instruction, (), attrs, span),)

    @staticmethod
    def pipe_buffer(cg: _Codegen, call: A.Call, opdef: OpDef, instruction: str, target: A.Var | None,
                    span: Span) -> tuple[P.Stmt, ...]:
        """`system.reserve_buffer` -> `%r = pto.reserve_buffer {name, size, location, auto, base}
        -> i32` (`auto = true` and no base while the planner left the base AUTO: PTOAS places it);
        `system.import_peer_buffer` -> `%r = pto.import_reserved_buffer {name, peer_func}`."""
        if target is None:
            raise CompileError(Diagnostic.at(call, RULE, f"{call.op} must define its address"))
        full = opdef.with_defaults(call.attrs)
        attrs: Attrs
        if instruction == "pto.reserve_buffer":
            base = attr(full, "base")
            auto = not isinstance(base, int) or base < 0
            attrs = (("name", attr(full, "name")), ("size", attr(full, "size")), ("location", attr(full, "location")),
                     ("auto", auto)) + (() if auto else (("base", base),))
        else:
            attrs = (("name", attr(full, "name")), ("peer_func", attr(full, "peer_func")))
        result = P.Var(name=target.name, type=target.type, span=target.span)
        cg.bind(target, result)
        return (P.AssignStmt(target=result, value=P.Call(op=instruction, args=(), attrs=attrs, type=target.type,
                                                         span=span), span=span),)

    @staticmethod
    def initialize_pipe(cg: _Codegen, call: A.Call, opdef: OpDef, instruction: str, target: A.Var | None,
                        span: Span) -> tuple[P.Stmt, ...]:
        """`system.aic_initialize_pipe(c2v, v2c[, gm])` -> `pto.aic_initialize_pipe {dir_mask,
        slot_size, slot_num} ([gm_slot_buffer = %gm, ]c2v_consumer_buf = %a, v2c_consumer_buf = %b)`."""
        operands = tuple(cg.pointer_of(a, span) if isinstance(_expr_type(a), TensorType) else cg.operand(a, span)
                         for a in call.args)
        full = opdef.with_defaults(call.attrs)
        names = ("id", "dir_mask", "slot_size", "slot_num")
        attrs = tuple((name, attr(full, name)) for name in names if attr(full, name) is not None)
        return (_instr(instruction, operands, attrs, span),)




    # -- scalar access and SPMD identity --------------------------------------------------------

    @staticmethod
    def load_scalar(cg: _Codegen, call: A.Call, opdef: OpDef, instruction: str, target: A.Var | None,
                    span: Span) -> tuple[P.Stmt, ...]:
        """`tensor.read(x, [i, j])` -> `pto.load_scalar %ptr[%off]`, the offset from the tensor's
        element strides (row-major, or those of the window it is)."""
        tensor = _expr_type(call.args[0])
        assert isinstance(tensor, TensorType)
        pointer = cg.pointer_of(call.args[0], span)
        offset = cg.flat_offset(call.args[1], tensor.element_strides, span)
        result = cg.fresh(ScalarType(tensor.dtype), span)
        if target is not None:
            cg.bind(target, result)
        load = P.Call(op=instruction, args=(pointer, offset), attrs=(("dtype", tensor.dtype),),
                      type=result.type, span=span)
        return (P.AssignStmt(target=result, value=load, span=span),)

    @staticmethod
    def store_scalar(cg: _Codegen, call: A.Call, opdef: OpDef, instruction: str, target: A.Var | None,
                     span: Span) -> tuple[P.Stmt, ...]:
        """`tensor.write(x, [i, j], v)` -> `pto.store_scalar %v, %ptr[%off]`; the result is x."""
        tensor = _expr_type(call.args[0])
        assert isinstance(tensor, TensorType)
        pointer = cg.pointer_of(call.args[0], span)
        offset = cg.flat_offset(call.args[1], tensor.element_strides, span)
        value = cg.operand(call.args[2], span)
        if target is not None:
            cg.bind(target, cg.operand(call.args[0], span))
        return (_instr(instruction, (value, pointer, offset), (), span),)

    @staticmethod
    def tgetval(cg: _Codegen, call: A.Call, opdef: OpDef, instruction: str, target: A.Var | None,
                span: Span) -> tuple[P.Stmt, ...]:
        """`tile.read(t, [r, c])` -> `pto.tgetval ins(%t, %off)`: off = r * cols + c."""
        tile = cg.operand(call.args[0], span)
        assert isinstance(tile.type, TileType)
        offset = cg.flat_offset(call.args[1], _row_major_strides(tile.type.shape), span)
        result = cg.fresh(ScalarType(tile.type.dtype), span)
        if target is not None:
            cg.bind(target, result)
        get = P.Call(op=instruction, args=(tile, offset), attrs=(("dtype", tile.type.dtype),), type=result.type,
                     span=span)
        return (P.AssignStmt(target=result, value=get, span=span),)

    @staticmethod
    def tsetval(cg: _Codegen, call: A.Call, opdef: OpDef, instruction: str, target: A.Var | None,
                span: Span) -> tuple[P.Stmt, ...]:
        """`tile.write(t, [r, c], v)` -> `pto.tsetval ins(%off, %v) outs(%t)` on t's buffer."""
        source = cg.operand(call.args[0], span)
        assert isinstance(source.type, TileType)
        offset = cg.flat_offset(call.args[1], _row_major_strides(source.type.shape), span)
        value = cg.operand(call.args[2], span)
        out = cg.handle(target, call) if target is not None else source
        stmts: list[P.Stmt] = []
        if isinstance(out.type, TileType) and out.type.memref != source.type.memref:
            stmts.append(_instr("pto.tmov", (source, out), (), span))  # the planner kept them apart
        stmts.append(_instr(instruction, (offset, value, out), (), span))
        return tuple(stmts)

    @staticmethod
    def view_dim(cg: _Codegen, call: A.Call, opdef: OpDef, instruction: str, target: A.Var | None,
                 span: Span) -> tuple[P.Stmt, ...]:
        """`tensor.dim(x, axis)` -> `pto.get_tensor_view_dim %view, %axis`."""
        view = cg.tensor_view_of(call.args[0], span)
        axis = attr(call.attrs, "axis")
        assert isinstance(axis, int)
        rank = len(view.type.shape) if isinstance(view.type, ViewType) else 1
        result = cg.fresh(INDEX, span)
        if target is not None:
            cg.bind(target, result)
        dim = P.Call(op=instruction, args=(view, cg.index(axis % rank)), attrs=(), type=INDEX, span=span)
        return (P.AssignStmt(target=result, value=dim, span=span),)

    @staticmethod
    def spmd_identity(cg: _Codegen, call: A.Call, opdef: OpDef, instruction: str, target: A.Var | None,
                      span: Span) -> tuple[P.Stmt, ...]:
        """`tile.get_block_idx()` -> `%r = pto.get_block_idx` (an i64) and its index_cast."""
        raw = cg.fresh(ScalarType(DataType.INT64), span)
        read = P.Call(op=instruction, args=(), attrs=(), type=raw.type, span=span)
        result = cg.fresh(INDEX, span)
        if target is not None:
            cg.bind(target, result)
        cast = P.Call(op="arith.index_cast", args=(raw,), attrs=(("dtype", DataType.INDEX),), type=INDEX, span=span)
        return (P.AssignStmt(target=raw, value=read, span=span), P.AssignStmt(target=result, value=cast, span=span))

    @staticmethod
    def barrier(cg: _Codegen, call: A.Call, opdef: OpDef, instruction: str, target: A.Var | None,
                span: Span) -> tuple[P.Stmt, ...]:
        """`system.syncall(gm, used, tiles...)` -> `pto.syncall(%gm_view, %tiles..., [%used])
        mode = .., core_type = ..` (PTOAS's operand order; a used_cores of constant 0, the
        launch's count, is omitted as pto_codegen.md says); `system.bar_v()` & co. ->
        `pto.barrier <PIPE_V>`."""
        args = list(call.args)
        if instruction == "pto.syncall" and len(args) > 1:
            used = args.pop(1)
            if not (isinstance(used, A.ConstInt) and used.value == 0):
                args.append(used)
        pre: list[P.Stmt] = []
        operands: list[P.Expr] = []
        for arg in args:
            ty = _expr_type(arg)
            if isinstance(ty, TensorType):  # the GM workspace, whole, as PTOAS's partition view
                zeros = A.TupleExpr(elements=tuple(A.ConstInt(value=0, dtype=DataType.INDEX, span=span)
                                                   for _ in ty.shape), span=span)
                pre.extend(cg.partition(arg, zeros, ty.shape, span))
                assigned = pre[-1]
                assert isinstance(assigned, P.AssignStmt)
                operands.append(assigned.target)
            else:
                operands.append(cg.operand(arg, span))
        full = opdef.with_defaults(call.attrs)
        names = ("pipe",) if instruction == "pto.barrier" else ("mode", "core_type")
        attrs = tuple((name, attr(full, name)) for name in names)
        return (*pre, _instr(instruction, tuple(operands), attrs, span))

    @staticmethod
    def sync_event(cg: _Codegen, call: A.Call, opdef: OpDef, instruction: str, target: A.Var | None,
                   span: Span) -> tuple[P.Stmt, ...]:
        """`system.sync_set(e, pipe=P[, ffts_mode=M])` -> `pto.sync.set <P>, e {ffts_mode = M}`: a
        constant event id is the instruction's attribute, a computed one its index operand."""
        event = call.args[0]
        full = opdef.with_defaults(call.attrs)
        attrs: list[tuple[str, AttrValue]] = [("pipe", attr(full, "pipe"))]
        operands: tuple[P.Expr, ...] = ()
        if isinstance(event, A.ConstInt):
            attrs.append(("event_id", event.value))
        else:
            operands = (cg.operand(event, span),)
        if attr(full, "ffts_mode") is not None:
            attrs.append(("ffts_mode", attr(full, "ffts_mode")))
        return (_instr(instruction, operands, tuple(attrs), span),)

    # -- sorting, gathers and scatters ------------------------------------------------------------

    @staticmethod
    def mrgsort(cg: _Codegen, call: A.Call, opdef: OpDef, instruction: str, target: A.Var | None,
                span: Span) -> tuple[P.Stmt, ...]:
        """Format 1: `pto.tmrgsort ins(%src, %block_len) outs(%dst)`; format 2 also writes the
        executed counts (a `vector<4xi16>` PTOAS reads back as outs; a zero splat constant)."""
        ins = tuple(cg.operand(a, span) for a in call.args)
        out = cg.handle(target, call)
        if opdef.name.endswith("format1"):
            return (_instr(instruction, (*ins, out), (), span),)
        counts_type = ViewType("vector", (4,), DataType.INT16)
        counts = cg.fresh(counts_type, span)
        zero = P.Call(op="arith.constant", args=(P.ConstInt(value=0, dtype=DataType.INT16),), attrs=(),
                      type=counts_type, span=span)
        exhausted = attr(opdef.with_defaults(call.attrs), "exhausted")
        return (P.AssignStmt(target=counts, value=zero, span=span),
                _instr(instruction, (*ins, out, counts), (("exhausted", bool(exhausted)),), span))

    @staticmethod
    def mgather(cg: _Codegen, call: A.Call, opdef: OpDef, instruction: str, target: A.Var | None,
                span: Span) -> tuple[P.Stmt, ...]:
        """`pto.partition_view` of the whole GM tensor, then `pto.mgather ins(%part, %idx) outs(%dst)`."""
        tensor = _expr_type(call.args[0])
        assert isinstance(tensor, TensorType)
        zeros = A.TupleExpr(elements=tuple(A.ConstInt(value=0, dtype=DataType.INDEX) for _ in tensor.shape))
        part = cg.partition(call.args[0], zeros, tensor.shape, span)
        idx = cg.operand(call.args[1], span)
        full = opdef.with_defaults(call.attrs)
        if attr(full, "coalesce") == "elem":
            # PTOAS's element form needs a same-dtype GM scratch tensor (the spec) that the op does
            # not carry yet; emitting the row form instead would gather whole rows.
            raise CompileError(Diagnostic.at(
                call, RULE, "not supported yet: tile.mgather with coalesce=\"elem\" (PTOAS's element gather needs a "
                            "GM scratch tensor the op does not take yet)",
                hint="gather whole rows (coalesce=\"row\"), or gather from a loaded tile with pl.gather"))
        oob = attr(full, "gather_oob")
        attrs: Attrs = (("gatherOob", oob),) if oob not in (None, "undefined") else ()
        return (*part, _instr(instruction, (_target(part), idx, cg.handle(target, call)), attrs, span))

    @staticmethod
    def scatter(cg: _Codegen, call: A.Call, opdef: OpDef, instruction: str, target: A.Var | None,
                span: Span) -> tuple[P.Stmt, ...]:
        """`tile.scatter(dst, src, indexes)` -> `pto.tscatter ins(%src, %indexes) outs(%dst)` into
        dst's buffer (a `tmov` first when the planner gave the result a buffer of its own)."""
        dst = cg.operand(call.args[0], span)
        src, indexes = cg.operand(call.args[1], span), cg.operand(call.args[2], span)
        out = cg.handle(target, call) if target is not None else dst
        stmts: list[P.Stmt] = []
        if isinstance(dst.type, TileType) and isinstance(out.type, TileType) and out.type.memref != dst.type.memref:
            stmts.append(_instr("pto.tmov", (dst, out), (), span))
        stmts.append(_instr(instruction, (src, indexes, out), (), span))
        return tuple(stmts)


def _row_major_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(math.prod(shape[i + 1:]) for i in range(len(shape)))


def _same(value: AttrValue) -> AttrValue:
    return value


def _target(stmts: tuple[P.Stmt, ...]) -> P.Var:
    last = stmts[-1]
    assert isinstance(last, P.AssignStmt)
    return last.target


def _instr(op: str, args: tuple[P.Expr, ...], attrs: Attrs, span: Span) -> P.EvalStmt:
    return P.EvalStmt(value=P.Call(op=op, args=args, attrs=attrs, type=NoneType(), span=span), span=span)


_Emitter = Callable[[_Codegen, A.Call, OpDef, str, "A.Var | None", Span], tuple[P.Stmt, ...]]

_EMITTERS: dict[str, _Emitter] = {
    "pto.tload": _CodegenCalls.load,
    "pto.tstore": _CodegenCalls.store,
    "pto.subview": _CodegenCalls.subview,
    "pto.tmatmul.acc": _CodegenCalls.matmul_acc,
    "tile.assemble": _CodegenCalls.assemble,
    "pto.tmov": _CodegenCalls.move,
    "pto.tpush_to_aiv": _CodegenCalls.tpush,
    "pto.tpush_to_aic": _CodegenCalls.tpush,
    "pto.tpop_from_aic": _CodegenCalls.tpop,
    "pto.tpop_from_aiv": _CodegenCalls.tpop,
    "pto.load_scalar": _CodegenCalls.load_scalar,
    "pto.store_scalar": _CodegenCalls.store_scalar,
    "pto.tgetval": _CodegenCalls.tgetval,
    "pto.tsetval": _CodegenCalls.tsetval,
    "pto.get_tensor_view_dim": _CodegenCalls.view_dim,
    "pto.get_block_idx": _CodegenCalls.spmd_identity,
    "pto.get_block_num": _CodegenCalls.spmd_identity,
    "pto.get_subblock_idx": _CodegenCalls.spmd_identity,
    "pto.syncall": _CodegenCalls.barrier,
    "pto.barrier": _CodegenCalls.barrier,
    "pto.sync.set": _CodegenCalls.sync_event,
    "pto.sync.wait": _CodegenCalls.sync_event,
    "pto.tmrgsort": _CodegenCalls.mrgsort,
    "pto.mgather": _CodegenCalls.mgather,
    "pto.tscatter": _CodegenCalls.scatter,
    "pto.tfree_from_aic": _CodegenCalls.tfree,
    "pto.tfree_from_aiv": _CodegenCalls.tfree,
    "pto.reserve_buffer": _CodegenCalls.pipe_buffer,
    "pto.import_reserved_buffer": _CodegenCalls.pipe_buffer,
    "pto.aic_initialize_pipe": _CodegenCalls.initialize_pipe,
    "pto.aiv_initialize_pipe": _CodegenCalls.initialize_pipe,
}

# Instructions that bind their result themselves instead of writing an allocated buffer: a view
# of another buffer, or a cross-core pop (the popped tile is the consumer's FIFO slot).
_SELF_BINDING = frozenset({"pto.subview", "pto.tpop_from_aic", "pto.tpop_from_aiv"})


def _fifo_attrs(call: A.Call) -> Attrs:
    """The spec's `{[id = I, ]split = N}` of a cross-core endpoint."""
    pipe = attr(call.attrs, "id")
    return ((("id", pipe),) if pipe is not None else ()) + (("split", attr(call.attrs, "split", 0)),)

# Registry entries that name a helper instead of the instruction itself: the partition view of a
# load / store, and the allocation, same-address view (treshape) or valid-extent change
# (set_validshape) that the per-variable `pto.alloc_tile` at the shared MemRef address already
# expresses. A constant set_validshape result is a handle of the narrowed type on the same bytes;
# a runtime one is a `v_row=?, v_col=?` handle, and `_Codegen.set_valid` emits the
# `pto.set_validshape` before every definition of such a handle (the op itself included).
_HELPER_INSTRUCTIONS = frozenset({"pto.partition_view", "pto.alloc_tile", "pto.treshape", "pto.set_validshape"})
# Spellings of the accumulating matmul (PTO-ISA TMATMUL_ACC prints as `pto.tmatmul.acc`).
_MATMUL_ACC = ("pto.tmatmul.acc", "pto.tmatmul_acc")


def _opdef(call: A.Call, at: Node | None = None) -> OpDef:
    try:
        return REGISTRY.get(call.op)
    except KeyError as err:
        raise CompileError(Diagnostic.at(at or call, RULE, str(err.args[0]))) from None


def _instruction(opdef: OpDef) -> str:
    """The instruction a tile op emits ("" when its allocation is all there is)."""
    names = [p for p in opdef.pto if p not in _HELPER_INSTRUCTIONS]
    if any(name in _MATMUL_ACC for name in names):
        return "pto.tmatmul.acc"
    if opdef.name == "tile.assemble":
        return "tile.assemble"
    return names[-1] if names else ""


def buffer_handle_type(tile: TileType) -> TileType:
    """The type of the handle that owns a tile's buffer (its `pto.alloc_tile`): PTO's tile_buf
    declares the physical extent, so an unboxed tile's row (column, when column-major) is padded
    to 32 bytes (languages.layout.padded_2d) while its valid extent stays the logical one. Views
    (`pto.subview`) keep the logical window: PTOAS types a subview by its sizes."""
    padded = padded_2d(tile)
    if padded == physical_2d(tile.shape) or len(tile.shape) > 2:  # tiles are 2-D here (TileOps2D)
        return tile
    extents = tile.valid_extents
    valid: ValidDims = tuple(extents) if len(extents) == 2 else (1, extents[0])
    return replace(tile, shape=padded, valid_shape=valid)


def dynamic_handle_type(tile: TileType) -> TileType:
    """The type of a tile's handle: runtime valid extents become PTO's `v_row=?, v_col=?`
    (both, as `pto.set_validshape` requires), the handle carrying the values."""
    if not is_symbolic(tile.valid_shape):
        return tile
    return replace(tile, valid_shape=tuple(DYNAMIC_EXTENT for _ in tile.shape))


def _handle_key(tile: TileType) -> tuple[object, ...] | None:
    """The identity of a tile_buf handle: MemRef identity (name, space, offset) and the printed
    buffer configuration; None for a tile without a MemRef (reported at its allocation)."""
    if tile.memref is None:
        return None
    # Runtime valid extents print as `?`: the extents themselves tell such handles apart.
    runtime = tile.valid_shape if is_symbolic(tile.valid_shape) else None
    return (tile.memref.name, tile.memref.space, tile.memref.offset, tile_buf_type(tile), runtime)


def _same_bytes(a: Type, b: Type) -> bool:
    """Whether two tile handles address one buffer (MemRef name, space and address)."""
    if not (isinstance(a, TileType) and isinstance(b, TileType)) or a.memref is None or b.memref is None:
        return False
    return (a.memref.name, a.memref.space, a.memref.offset) == (b.memref.name, b.memref.space, b.memref.offset)


def _yield_values(body: tuple[A.Stmt, ...]) -> tuple[A.Expr, ...]:
    last = body[-1] if body else None
    return tuple(last.values) if isinstance(last, A.YieldStmt) else ()


def _expr_type(expr: A.Expr) -> Type | None:
    return getattr(expr, "type", None)


def _assignments(body: tuple[A.Stmt, ...]) -> list[A.AssignStmt]:
    """Every assignment of a block, nested regions included, in program order."""
    out: list[A.AssignStmt] = []
    for stmt in body:
        if isinstance(stmt, A.AssignStmt):
            out.append(stmt)
        elif isinstance(stmt, A.ForStmt):
            out.extend(_assignments(stmt.body))
        elif isinstance(stmt, A.IfStmt):
            out.extend(_assignments(stmt.then_body))
            out.extend(_assignments(stmt.else_body))
    return out


@dataclass(frozen=True)
class PTOCodegen(Pass[A.Program, P.Program]):
    """Translate Addressed kernels 1:1 into the PTO language (PTO-ISA MLIR)."""

    name: ClassVar[str] = "pto-codegen"
    spec_name: ClassVar[str] = "PTOCodegen"
    source = Addressed
    target = PTO
    requires: ClassVar[frozenset[str]] = frozenset({"HasMemRefs", "MemoryCapacity", "NoCoLiveOverlap", "InPlaceSafety",
                                                    "SemanticAliases", "NormalizedStmtStructure", "PipeSlotPlacement"})
    produces: ClassVar[frozenset[str]] = frozenset({"BoxedExtents", "PTOOperandKinds", "SubviewWindows", "UnboxedRowsAligned"})

    # Off for ptoas' own memory planner (PTOAS mode): alloc_tile without `addr`.
    emit_tile_addr: bool = True

    @override
    def run(self, program: A.Program, ctx: PassContext) -> P.Program:
        arch = PTO_TARGET_ARCH.get(backend_handler(ctx).arch, "")
        return ctx.rewrite(_Codegen(self.emit_tile_addr, arch), program)
