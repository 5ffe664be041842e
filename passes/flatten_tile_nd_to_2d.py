"""FlattenTileNdTo2D (TileUnplaced → TileUnplaced): every tile of an InCore function is 2-D.

PTO tile buffers are rows x cols. A rank-1 tile [n] becomes one row [1, n]; a rank >= 3 tile
[d0, ..., dk] is row-packed into [d0 * ... * d(k-1), dk] (the row-major order of its elements is
unchanged, so a GM load / store of the same window moves the same bytes). Every tile-typed
value is retyped, shape operands of tile.create / tile.full / tile.reshape are packed the same
way, and result types are re-deduced through the registry. This pass is also the sole owner of
the instruction scratch tiles: the pto.ttrans workspace of `tile.transpose` and the tmp of the
row reductions (`tile.row_sum` / `row_max` / `row_min`, which PTOAS requires) are materialised
here as a `tile.create` of the source's shape, dtype and space, before memory planning gives them
an address.

A load from / store to an N-D tensor keeps its N-D offsets and window (they index the tensor);
only the tile it produces / consumes is packed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, ClassVar, Sequence

from typing_extensions import override

import languages.gen.tile_unplaced as U
from languages.decls import TileUnplaced
from languages.ops import REGISTRY, static_ints, type_of
from languages.types import Attrs, AttrValue, DataType, Dims, TileType, TupleType, Type
from languages.views import make_tile_type
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.langdef import Language
from nanopass.node import Node, Span
from nanopass.passes import Pass, PassContext

RULE = "FlattenTileNdTo2D"
INCORE = "InCore"


def packed_dims(shape: Dims) -> Dims:
    if len(shape) == 1:
        return (1, shape[0])
    return (math.prod(shape[:-1]), shape[-1])


def packed_valid(shape: Dims, valid: Dims) -> Dims | None:
    """The packed valid region, or None when the N-D region is not a row prefix of the packing
    (a partial middle axis would leave holes no 2-D valid shape can describe)."""
    if len(shape) == 1:
        return (1, valid[0])
    if tuple(valid[1:-1]) != tuple(shape[1:-1]):
        return None
    return (valid[0] * math.prod(shape[1:-1]), valid[-1])


def flatten_type(typ: Type, at: Node) -> Type:
    if isinstance(typ, TupleType):
        return TupleType(tuple(flatten_type(t, at) for t in typ.types))
    if not isinstance(typ, TileType) or len(typ.shape) == 2:
        return typ
    if len(typ.shape) == 0:
        raise CompileError(Diagnostic.at(at, RULE, "a rank-0 tile has no 2-D form", "use a scalar instead"))
    valid = packed_valid(typ.shape, typ.valid)
    if valid is None:
        raise CompileError(Diagnostic.at(
            at, RULE, f"tile of shape {list(typ.shape)} with valid shape {list(typ.valid)} cannot be packed into 2-D rows "
                      "(a middle axis is only partly valid)",
            "make the middle axes fully valid, or reshape to 2-D yourself"))
    shape = packed_dims(typ.shape)
    # The implicit view of the packed shape: a boxed layout is a property of the 2-D buffer.
    return make_tile_type(shape, typ.dtype, valid, typ.memory_space)


def _index_list(values: Sequence[int], span: Span) -> U.TupleExpr:
    return U.TupleExpr(tuple(U.ConstInt(v, DataType.INDEX, span=span) for v in values), span=span)


class FlattenMutator(U.Rewriter):
    def __init__(self) -> None:
        super().__init__()
        self._env: dict[str, U.Var] | None = None
        self._used: set[str] = set()

    @override
    def visit_Function(self, node: U.Function) -> U.Function:
        if node.func_type != INCORE:
            return node
        self._env = {}
        self._used = {n.name for n in _walk_vars(node)}
        try:
            return super().visit_Function(node)
        finally:
            self._env = None

    @override
    def visit_Var(self, node: U.Var) -> U.Var:
        if self._env is None:
            return node
        known = self._env.get(node.name)
        if known is not None:
            return known
        flat = flatten_type(node.type, node)
        var = node if flat == node.type else U.Var(node.name, flat, span=node.span)
        self._env[node.name] = var
        return var

    @override
    def visit_AssignStmt(self, node: U.AssignStmt) -> U.Stmt | tuple[U.Stmt, ...]:
        if self._env is None or not isinstance(node.value, U.Call):
            return super().visit_AssignStmt(node)
        pre: list[U.Stmt] = []
        value = self._flatten_call(node.value, pre)
        target = node.target
        if value.type != target.type:
            target = U.Var(target.name, value.type, span=target.span)
        self._env[node.target.name] = target
        if not pre and value is node.value and target is node.target:
            return node
        return (*pre, U.AssignStmt(target=target, value=value, span=node.span))

    @override
    def visit_EvalStmt(self, node: U.EvalStmt) -> U.Stmt | tuple[U.Stmt, ...]:
        if self._env is None or not isinstance(node.value, U.Call):
            return super().visit_EvalStmt(node)
        pre: list[U.Stmt] = []
        value = self._flatten_call(node.value, pre)
        if not pre and value is node.value:
            return node
        return (*pre, U.EvalStmt(value=value, span=node.span))

    @override
    def visit_ForStmt(self, node: U.ForStmt) -> U.Stmt | tuple[U.Stmt, ...]:
        if self._env is None:
            return super().visit_ForStmt(node)
        iter_args = []
        for iter_arg in node.iter_args:
            init = self.visit_Expr(iter_arg.init)
            init_type = type_of(init)
            var = iter_arg.var
            if init_type is not None and init_type != var.type:
                var = U.Var(var.name, init_type, span=var.span)
            self._env[iter_arg.var.name] = var
            iter_args.append(U.IterArg(var=var, init=init, span=iter_arg.span))
        body = self.visit_Stmt_block(node.body)
        results = []
        for result, iter_arg in zip(node.results, iter_args):
            var = result if result.type == iter_arg.var.type else U.Var(result.name, iter_arg.var.type, span=result.span)
            self._env[result.name] = var
            results.append(var)
        return U.ForStmt(loop_var=self.visit_Var(node.loop_var), start=self.visit_Expr(node.start),
                         stop=self.visit_Expr(node.stop), step=self.visit_Expr(node.step), iter_args=tuple(iter_args),
                         body=body, results=tuple(results), kind=node.kind, attrs=node.attrs, span=node.span)

    @override
    def visit_IfStmt(self, node: U.IfStmt) -> U.Stmt | tuple[U.Stmt, ...]:
        if self._env is None:
            return super().visit_IfStmt(node)
        cond = self.visit_Expr(node.cond)
        then_body = self.visit_Stmt_block(node.then_body)
        else_body = self.visit_Stmt_block(node.else_body)
        yielded = then_body[-1].values if then_body and isinstance(then_body[-1], U.YieldStmt) else ()
        results = []
        for result, value in zip(node.results, yielded):
            typ = type_of(value)
            var = result if typ is None or typ == result.type else U.Var(result.name, typ, span=result.span)
            self._env[result.name] = var
            results.append(var)
        return U.IfStmt(cond=cond, then_body=then_body, else_body=else_body, results=tuple(results), span=node.span)

    # -- calls -----------------------------------------------------------------------------------

    def _flatten_call(self, call: U.Call, pre: list[U.Stmt]) -> U.Call:
        args = tuple(self.visit_Expr(a) for a in call.args)
        special = CALL_FLATTENERS.get(call.op)
        if special is not None:
            return special(self, call, args, pre)
        if args == call.args and all(a is b for a, b in zip(args, call.args)):
            return call
        return self._deduced(call, call.op, args, call.attrs)

    def _deduced(self, call: U.Call, op: str, args: tuple[U.Expr, ...], attrs: Attrs) -> U.Call:
        self.bump("calls_retyped")
        return U.Call(op=op, args=args, attrs=attrs, type=REGISTRY.deduce(op, args, attrs, at=call), span=call.span)

    def _packed_shape_arg(self, call: U.Call, index: int, args: tuple[U.Expr, ...]) -> tuple[U.Expr, ...]:
        shape = static_ints(args[index])
        if shape is None or len(shape) == 2:
            return args
        return args[:index] + (_index_list(packed_dims(shape), call.span),) + args[index + 1:]

    def flatten_creation(self, call: U.Call, args: tuple[U.Expr, ...], pre: list[U.Stmt]) -> U.Call:
        """tile.create / tile.full / tile.reshape: the requested shape is packed like the tile."""
        index = 1 if call.op == "tile.reshape" else 0
        new_args = self._packed_shape_arg(call, index, args)
        if all(a is b for a, b in zip(new_args, call.args)):
            return call
        return self._deduced(call, call.op, new_args, call.attrs)

    def flatten_gm_transfer(self, call: U.Call, args: tuple[U.Expr, ...], pre: list[U.Stmt]) -> U.Call:
        """tile.load / tile.store keep their N-D window on the tensor; only the tile is packed.
        The registry needs to know: a load is marked `packed`, a store names its N-D `window`."""
        attrs = call.attrs
        if call.op == "tile.load" and isinstance(call.type, TileType) and len(call.type.shape) != 2:
            attrs = _with_attr(attrs, "packed", True)
        if call.op == "tile.store":
            tile = type_of(call.args[0])
            if isinstance(tile, TileType) and len(tile.shape) != 2:
                attrs = _with_attr(attrs, "window", tuple(tile.valid))
        if attrs == call.attrs and all(a is b for a, b in zip(args, call.args)):
            return call
        self.bump("gm_transfers_packed")
        return self._deduced(call, call.op, args, attrs)

    def flatten_rank1_window(self, call: U.Call, args: tuple[U.Expr, ...], pre: list[U.Stmt]) -> U.Call:
        """tile.slice / tile.read / tile.write on a 1-D tile address row 0 of the packed [1, n]."""
        source = type_of(call.args[0])
        if not isinstance(source, TileType) or len(source.shape) == 2:
            return call if all(a is b for a, b in zip(args, call.args)) else self._deduced(call, call.op, args, call.attrs)
        if len(source.shape) != 1:
            raise CompileError(Diagnostic.at(call, RULE, f"`{call.op}` on a rank-{len(source.shape)} tile is not supported",
                                             "reshape the tile to 2-D before indexing it"))
        widened = tuple(_prepend(a, call.span) if a.KIND == "TupleExpr" else a for a in args[1:])
        return self._deduced(call, call.op, (args[0], *widened), call.attrs)

    def materialize_transpose_scratch(self, call: U.Call, args: tuple[U.Expr, ...], pre: list[U.Stmt]) -> U.Call:
        """pto.ttrans needs a workspace of the source's shape / dtype / space."""
        if len(args) > 1:
            return call if all(a is b for a, b in zip(args, call.args)) else self._deduced(call, call.op, args, call.attrs)
        source = type_of(args[0])
        assert isinstance(source, TileType)
        if len(source.shape) != 2:
            raise CompileError(Diagnostic.at(call, RULE, f"tile.transpose of a rank-{len(source.shape)} tile is not "
                                                         "supported", "transpose 2-D tiles"))
        attrs: Attrs = (("dtype", source.dtype),)
        if source.memory_space is not None:
            attrs += (("target_memory", source.memory_space),)
        shape_arg = (_index_list(source.shape, call.span),)
        create = U.Call(op="tile.create", args=shape_arg, attrs=attrs,
                        type=REGISTRY.deduce("tile.create", shape_arg, attrs, at=call), span=call.span)
        scratch = U.Var(self._fresh("transpose_tmp"), create.type, span=call.span)
        pre.append(U.AssignStmt(target=scratch, value=create, span=call.span))
        self.bump("transpose_scratch")
        return self._deduced(call, call.op, (args[0], scratch), call.attrs)

    def materialize_row_reduction_scratch(self, call: U.Call, args: tuple[U.Expr, ...], pre: list[U.Stmt]) -> U.Call:
        """pto.trowsum / trowmax / trowmin need a scratch tile of the source's shape, dtype and
        valid extent (PTOAS checks the valid shapes match); never the source itself."""
        if len(args) > 1:
            return call if all(a is b for a, b in zip(args, call.args)) else self._deduced(call, call.op, args, call.attrs)
        source = type_of(args[0])
        assert isinstance(source, TileType) and len(source.shape) == 2
        scratch = self._scratch(call, source, "reduce_tmp", pre)
        self.bump("row_reduction_scratch")
        return self._deduced(call, call.op, (args[0], scratch), call.attrs)

    def _scratch(self, call: U.Call, source: TileType, base: str, pre: list[U.Stmt]) -> U.Var:
        """A fresh `tile.create` of `source`'s shape / dtype / space, narrowed to its valid
        extent with `tile.set_validshape` when that is partial."""
        attrs: Attrs = (("dtype", source.dtype),)
        if source.memory_space is not None:
            attrs += (("target_memory", source.memory_space),)
        shape_arg = (_index_list(source.shape, call.span),)
        create = U.Call(op="tile.create", args=shape_arg, attrs=attrs,
                        type=REGISTRY.deduce("tile.create", shape_arg, attrs, at=call), span=call.span)
        scratch = U.Var(self._fresh(base), create.type, span=call.span)
        pre.append(U.AssignStmt(target=scratch, value=create, span=call.span))
        if source.valid == source.shape:
            return scratch
        extent = tuple(U.ConstInt(v, DataType.INDEX, span=call.span) for v in source.valid)
        narrowed = U.Call(op="tile.set_validshape", args=(scratch, *extent), attrs=(),
                          type=REGISTRY.deduce("tile.set_validshape", (scratch, *extent), (), at=call), span=call.span)
        valid_scratch = U.Var(self._fresh(base), narrowed.type, span=call.span)
        pre.append(U.AssignStmt(target=valid_scratch, value=narrowed, span=call.span))
        return valid_scratch

    def _fresh(self, base: str) -> str:
        name, suffix = base, 0
        while name in self._used:
            suffix += 1
            name = f"{base}_{suffix}"
        self._used.add(name)
        return name


def _with_attr(attrs: Attrs, name: str, value: AttrValue) -> Attrs:
    return tuple((k, v) for k, v in attrs if k != name) + ((name, value),)


def _prepend(index_list: U.Expr, span: Span) -> U.Expr:
    assert isinstance(index_list, U.TupleExpr)
    return U.TupleExpr((U.ConstInt(0, DataType.INDEX, span=span), *index_list.elements), span=span)


def _walk_vars(node: Node) -> list[U.Var]:
    from nanopass.node import walk

    return [n for n in walk(node) if isinstance(n, U.Var)]


CallFlattener = Callable[[FlattenMutator, U.Call, tuple[U.Expr, ...], list[U.Stmt]], U.Call]

CALL_FLATTENERS: dict[str, CallFlattener] = {
    "tile.create": FlattenMutator.flatten_creation,
    "tile.full": FlattenMutator.flatten_creation,
    "tile.reshape": FlattenMutator.flatten_creation,
    "tile.load": FlattenMutator.flatten_gm_transfer,
    "tile.store": FlattenMutator.flatten_gm_transfer,
    "tile.slice": FlattenMutator.flatten_rank1_window,
    "tile.read": FlattenMutator.flatten_rank1_window,
    "tile.write": FlattenMutator.flatten_rank1_window,
    "tile.transpose": FlattenMutator.materialize_transpose_scratch,
    **{f"tile.row_{kind}": FlattenMutator.materialize_row_reduction_scratch for kind in ("sum", "max", "min")},
}


@dataclass(frozen=True)
class FlattenTileNdTo2D(Pass[U.Program, U.Program]):
    """Pack every InCore tile into 2-D rows; materialise the tile.transpose scratch."""

    name: ClassVar[str] = "flatten-tile-nd-to-2d"
    spec_name: ClassVar[str] = "FlattenTileNdTo2D"
    source: ClassVar[Language] = TileUnplaced
    target: ClassVar[Language] = TileUnplaced
    requires: ClassVar[frozenset[str]] = frozenset({"IncoreTileOps"})
    produces: ClassVar[frozenset[str]] = frozenset({"TileOps2D"})

    @override
    def run(self, program: U.Program, ctx: PassContext) -> U.Program:
        return ctx.rewrite(FlattenMutator(), program)
