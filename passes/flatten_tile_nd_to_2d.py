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

import numpy as np
from typing import Callable, ClassVar, Sequence

from typing_extensions import override

import languages.gen.tile_unplaced as U
from languages.decls import TileUnplaced
from languages.layout import physical_2d
from languages.ops import REGISTRY, static_int, static_ints, type_of
from languages.memory_space import MemorySpace
from languages.types import INDEX, Attrs, AttrValue, DataType, Dims, TileType, TupleType, Type
from languages.types import attr as attr_of
from languages.views import make_tile_type
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.langdef import Language
from nanopass.node import Node, Span
from nanopass.passes import Pass, PassContext

RULE = "FlattenTileNdTo2D"
INCORE = "InCore"


def packed_dims(shape: Dims) -> Dims:
    """The 2-D form of an N-D tile: leading axes fold into rows (the layout fact every stage
    shares, `languages.layout.physical_2d`)."""
    return physical_2d(shape)


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
        # Batched matmul results unrolled into one 2-D tile per batch (flat batch order), and
        # the values only per-batch consumers use (stores, batch_matmul_acc accumulators), which
        # are never packed back into one tile.
        self._split: dict[str, list[U.Var]] = {}
        self._per_batch: frozenset[str] = frozenset()

    @override
    def visit_Function(self, node: U.Function) -> U.Function:
        if node.func_type != INCORE:
            return node
        self._env = {}
        self._used = {n.name for n in _walk_vars(node)}
        self._split = {}
        self._per_batch = _per_batch_values(node)
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
        if (node.value.op in BATCHED_MATMULS and _batch_count(node.target.type) > 1) or \
                (node.value.op == "tile.create" and node.target.name in self._per_batch):
            return self._unroll_batched(node)
        pre: list[U.Stmt] = []
        value = self._flatten_call(node.value, pre)
        if value.op == "tile.reshape" and isinstance(value.args[0], U.Var) and value.args[0].type == value.type:
            # An N-D reshape that packing made the identity ([1, 1, 32] -> [1, 32]) is dropped:
            # its uses read the source itself.
            self._env[node.target.name] = value.args[0]
            self.bump("identity_reshapes_dropped")
            return tuple(pre)
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
        if any(isinstance(a.init, U.Var) and a.init.name in self._split for a in node.iter_args):
            return self._split_carries(node)
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
        if call.op == "tile.reshape" and len(new_args) > 2 and new_args[2] is not None:
            new_args = new_args[:2] + (self._packed_valid_arg(call, new_args[2]),) + new_args[3:]
        if all(a is b for a, b in zip(new_args, call.args)):
            return call
        return self._deduced(call, call.op, new_args, call.attrs)

    def _packed_valid_arg(self, call: U.Call, valid: U.Expr) -> U.Expr:
        """tile.reshape's explicit valid_shape names the N-D result's region: it is packed like the
        result's valid shape (`packed_valid`), so the registry checks it against the packed region.
        A runtime extent passes through where packing does not scale it (rank 1, or a leading axis
        over middle axes of one element)."""
        shape = call.type.shape if isinstance(call.type, TileType) else ()
        if len(shape) in (0, 2):
            return valid
        elements = valid.elements if isinstance(valid, U.TupleExpr) else (valid,)
        if len(elements) != len(shape):
            return valid  # the registry reports the rank mismatch
        span = valid.span
        if len(shape) == 1:
            return U.TupleExpr((U.ConstInt(1, DataType.INDEX, span=span), elements[0]), span=span)
        middle = [static_int(e) for e in elements[1:-1]]
        if middle != list(shape[1:-1]):
            written = ", ".join(_extent_text(e) for e in elements)
            raise CompileError(Diagnostic.at(
                call, RULE, f"reshape to {list(shape)} with valid shape [{written}] cannot be packed into 2-D "
                            "rows (a middle axis is only partly valid)",
                "make the middle axes fully valid, or reshape to 2-D yourself"))
        rows_per_lead = math.prod(shape[1:-1])
        lead = static_int(elements[0])
        if lead is not None:
            rows: U.Expr = U.ConstInt(lead * rows_per_lead, DataType.INDEX, span=span)
        elif rows_per_lead == 1:
            rows = elements[0]
        else:
            raise CompileError(Diagnostic.at(
                call, RULE, f"not supported yet: the runtime valid extent `{_extent_text(elements[0])}` of a rank-"
                            f"{len(shape)} reshape scales by {rows_per_lead} rows when packed into 2-D",
                "give the leading valid extent as a constant, or reshape to 2-D yourself"))
        return U.TupleExpr((rows, elements[-1]), span=span)

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

    def flatten_shape_attr(self, call: U.Call, args: tuple[U.Expr, ...], pre: list[U.Stmt]) -> U.Call:
        """tile.reinterpret_view's explicit `shape` attribute names an N-D result: it is packed
        like every other tile (a rank-1 [n] view of a packed [1, m] row is [1, n])."""
        shape = attr_of(call.attrs, "shape")
        attrs = call.attrs
        if isinstance(shape, tuple) and len(shape) != 2 and shape:
            attrs = _with_attr(attrs, "shape", packed_dims(tuple(int(d) for d in shape)))
        if attrs is call.attrs and all(a is b for a, b in zip(args, call.args)):
            return call
        return self._deduced(call, call.op, args, attrs)

    def flatten_rank1_window(self, call: U.Call, args: tuple[U.Expr, ...], pre: list[U.Stmt]) -> U.Call:
        """tile.slice / tile.assemble / tile.read / tile.write on a 1-D tile address row 0 of the
        packed [1, n]: the op's window (the registry's `Window` fact) says which list operands are
        its offsets (row 0 prepended) and which its extents (one row prepended)."""
        source = type_of(call.args[0])
        if not isinstance(source, TileType) or len(source.shape) == 2:
            return call if all(a is b for a, b in zip(args, call.args)) else self._deduced(call, call.op, args, call.attrs)
        if len(source.shape) != 1:
            raise CompileError(Diagnostic.at(call, RULE, f"`{call.op}` on a rank-{len(source.shape)} tile is not supported",
                                             "reshape the tile to 2-D before indexing it"))
        window = REGISTRY.get(call.op).window
        assert window is not None and isinstance(window.offsets, int), call.op
        extents = {e[1] for e in window.extent if e[0] == "list"}
        widened = tuple(_prepend(a, 1 if i in extents else 0, call.span)
                        if a.KIND == "TupleExpr" and (i in extents or i == window.offsets) else a
                        for i, a in enumerate(args) if i > 0)
        return self._deduced(call, call.op, (args[0], *widened), call.attrs)

    def materialize_transpose_scratch(self, call: U.Call, args: tuple[U.Expr, ...], pre: list[U.Stmt]) -> U.Call:
        """pto.ttrans needs a workspace of the source's shape / dtype / space."""
        if len(args) > 1:
            return call if all(a is b for a, b in zip(args, call.args)) else self._deduced(call, call.op, args, call.attrs)
        # The rank is the call's own operand's: `args` are already packed to 2-D, and a packed
        # rank-3 tile read as one 2-D transpose would scramble its pages.
        original = type_of(call.args[0])
        assert isinstance(original, TileType)
        if len(original.shape) > 2:
            return self._paged_transpose(call, args[0], original, pre)
        source = type_of(args[0])
        assert isinstance(source, TileType)
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

    def flatten_assemble(self, call: U.Call, args: tuple[U.Expr, ...], pre: list[U.Stmt]) -> U.Call:
        """An N-D tile.assemble of one page ([1, .., 1, r, c] at offsets (o.., i, j)) writes
        rows ravel(o.., i) .. of the packed target: its offsets are packed the same way."""
        target, source = type_of(call.args[0]), type_of(call.args[1])
        offsets = static_ints(call.args[2])
        if not isinstance(target, TileType) or len(target.shape) == 2:
            return self._retyped(call, args)
        assert isinstance(source, TileType)
        if len(target.shape) == 1:
            packed: tuple[int, ...] | None = (0, offsets[0]) if offsets is not None else None
        elif offsets is not None and all(extent == 1 for extent in source.shape[:-2]):
            row = int(np.ravel_multi_index(tuple(offsets[:-1]), tuple(target.shape[:-1])))
            packed = (row, offsets[-1])
        else:
            packed = None
        if packed is None:
            raise CompileError(Diagnostic.at(
                call, RULE, f"tile.assemble of a [{', '.join(map(str, source.shape))}] window into a rank-"
                            f"{len(target.shape)} tile is not supported yet (only one page at constant offsets)",
                "assemble one page ([1, .., r, c]) at a time, at constant offsets"))
        self.bump("assembles_packed")
        return self._deduced(call, call.op, (args[0], args[1], _index_list(packed, call.span)), call.attrs)

    def flatten_slice(self, call: U.Call, args: tuple[U.Expr, ...], pre: list[U.Stmt]) -> U.Call:
        """A slice of one page ([1, .., 1, r, c] at constant offsets (o.., i, j)) of a rank > 2
        tile is the [r, c] window at rows ravel(o.., i) of the packed source; other windows keep
        the rank-1 rule."""
        source = type_of(call.args[0])
        shape, offsets = static_ints(call.args[1]), static_ints(call.args[2])
        if (not isinstance(source, TileType) or len(source.shape) <= 2 or len(call.args) > 3 or shape is None
                or offsets is None or any(extent != 1 for extent in shape[:-2])):
            return self.flatten_rank1_window(call, args, pre)
        row = int(np.ravel_multi_index(tuple(offsets[:-1]), tuple(source.shape[:-1])))
        self.bump("page_slices_packed")
        return self._deduced(call, call.op, (args[0], _index_list(shape[-2:], call.span),
                                             _index_list((row, offsets[-1]), call.span)), call.attrs)

    def _retyped(self, call: U.Call, args: tuple[U.Expr, ...]) -> U.Call:
        if all(a is b for a, b in zip(args, call.args)):
            return call
        return self._deduced(call, call.op, args, call.attrs)

    def _paged_transpose(self, call: U.Call, packed: U.Expr, original: TileType, pre: list[U.Stmt]) -> U.Call:
        """A transpose of the last two axes of an N-D tile, page by page: page p of the packed
        source (rows p*R ..) is transposed (with its scratch) into rows p*C .. of the packed
        [P*C, R] result. A transpose that moves a batch axis has no per-page form."""
        rank = len(original.shape)
        axes = sorted(int(attr_value) % rank for attr_value in (_int_attr(call, "axis1"), _int_attr(call, "axis2")))
        if axes != [rank - 2, rank - 1]:
            raise CompileError(Diagnostic.at(
                call, RULE, f"tile.transpose of axes {axes} of a rank-{rank} tile moves a batch axis, which is not "
                            "supported yet (only the last two axes transpose, page by page)",
                "transpose the last two axes, or reshape to 2-D and transpose that"))
        if tuple(original.valid) != tuple(original.shape):
            raise CompileError(Diagnostic.at(
                call, RULE, f"tile.transpose of a rank-{rank} tile with a partial valid shape {list(original.valid)} "
                            "is not supported yet", "transpose a fully valid tile, or a 2-D one"))
        pages, (rows, cols) = math.prod(original.shape[:-2]), original.shape[-2:]
        space: Attrs = (("target_memory", original.memory_space),) if original.memory_space is not None else ()
        result = self._assembly_base("transposed", (pages * cols, rows), original.dtype, call, pre)
        last: U.Call | None = None
        for page in range(pages):
            window = self._emit(f"page{page}", call, "tile.slice", (packed, _index_list((rows, cols), call.span),
                                                                     _index_list((page * rows, 0), call.span)), (), pre)
            scratch = self._emit("transpose_tmp", call, "tile.create", (_index_list((rows, cols), call.span),),
                                 (("dtype", original.dtype), *space), pre)
            flipped = self._emit(f"page{page}_t", call, "tile.transpose", (window, scratch),
                                 (("axis1", 0), ("axis2", 1)), pre)
            args = (result, flipped, _index_list((page * cols, 0), call.span))
            last = self._deduced(call, "tile.assemble", args, ())
            if page < pages - 1:
                result = U.Var(self._fresh("transposed"), last.type, span=call.span)
                pre.append(U.AssignStmt(target=result, value=last, span=call.span))
        self.bump("paged_transposes")
        assert last is not None
        return last

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

    # -- batched matmuls -------------------------------------------------------------------------

    def _unroll_batched(self, node: U.AssignStmt) -> tuple[U.Stmt, ...]:
        """tile.batch_matmul / batch_matmul_acc become one 2-D matmul (matmul_acc) per batch on
        row windows of the packed operands (a batch of M rows of [B*M, K] is rows b*M..); an
        accumulator seed (tile.create) becomes one seed per batch. Consumers that only read a
        batch at a time (stores, the next batch_matmul_acc) take the per-batch tiles; any other
        reads one packed [B*M, N] tile the results are moved and assembled into."""
        call = node.value
        assert isinstance(call, U.Call) and self._env is not None
        result = node.target.type
        assert isinstance(result, TileType)
        batch, (m, n) = tuple(result.shape[:-2]), tuple(result.shape[-2:])
        pre: list[U.Stmt] = []
        tiles: list[U.Var] = []
        for flat, index in enumerate(np.ndindex(*batch)):
            base = f"{node.target.name}_b{flat}"
            if call.op == "tile.create":
                args: tuple[U.Expr, ...] = (_index_list((m, n), call.span),)
                tiles.append(self._emit(base, call, "tile.create", args, call.attrs, pre))
                continue
            operands = call.args[1:] if call.op == "tile.batch_matmul_acc" else call.args
            lhs, rhs = (self._batch_window(operand, side, index, batch, call, pre)
                        for operand, side in zip(operands, (MemorySpace.Left, MemorySpace.Right)))
            if call.op == "tile.batch_matmul_acc":
                acc = self._accumulator(call, flat)
                tiles.append(self._emit(base, call, "tile.matmul_acc", (acc, lhs, rhs), (), pre))
            else:
                tiles.append(self._emit(base, call, "tile.matmul", (lhs, rhs), (), pre))
        self._split[node.target.name] = tiles
        self.bump("batched_matmuls_unrolled" if call.op != "tile.create" else "batched_seeds_unrolled")
        if node.target.name in self._per_batch:
            self._env[node.target.name] = tiles[-1]
            return tuple(pre)
        return (*pre, *self._packed(node, tiles, (m, n), call))

    def _split_carries(self, node: U.ForStmt) -> U.ForStmt:
        """A loop carrying batched accumulators carries one per batch, side by side: the
        iter-arg, the yielded value and the result each become one per batch."""
        assert self._env is not None
        iter_args: list[U.IterArg] = []
        widths: list[int] = []
        for iter_arg in node.iter_args:
            tiles = self._split.get(iter_arg.init.name) if isinstance(iter_arg.init, U.Var) else None
            if tiles is None:
                init = self.visit_Expr(iter_arg.init)
                init_type = type_of(init)
                var = iter_arg.var
                if init_type is not None and init_type != var.type:
                    var = U.Var(var.name, init_type, span=var.span)
                self._env[iter_arg.var.name] = var
                iter_args.append(U.IterArg(var=var, init=init, span=iter_arg.span))
                widths.append(1)
                continue
            if iter_arg.var.name not in self._per_batch:
                raise CompileError(Diagnostic.at(
                    iter_arg, RULE, f"the batched accumulator `{iter_arg.var.name}` is read whole inside the loop, "
                                    "which is not supported yet (a carried batched accumulator is one 2-D tile per batch)",
                    "use the loop result after the loop, or unroll the batch into 2-D matmul_acc calls"))
            per_batch = [U.Var(self._fresh(f"{iter_arg.var.name}_b{b}"), tile.type, span=iter_arg.span)
                         for b, tile in enumerate(tiles)]
            iter_args += [U.IterArg(var=v, init=t, span=iter_arg.span) for v, t in zip(per_batch, tiles)]
            self._split[iter_arg.var.name] = per_batch
            self._env[iter_arg.var.name] = per_batch[-1]
            widths.append(len(per_batch))
        original_yield = node.body[-1] if node.body else None
        body = list(self.visit_Stmt_block(node.body))
        if isinstance(original_yield, U.YieldStmt) and body and isinstance(body[-1], U.YieldStmt):
            values: list[U.Expr] = []
            for width, original, value in zip(widths, original_yield.values, body[-1].values):
                if width == 1:
                    values.append(value)
                    continue
                tiles = self._split.get(original.name) if isinstance(original, U.Var) else None
                if tiles is None or len(tiles) != width:
                    raise CompileError(Diagnostic.at(
                        original_yield, RULE, "the loop yields a batched accumulator that is not one batch_matmul(_acc) "
                                              "chain, which is not supported yet", "yield the batch_matmul_acc result"))
                values += tiles
            body[-1] = U.YieldStmt(values=tuple(values), span=original_yield.span)
        results: list[U.Var] = []
        position = 0
        for width, result in zip(widths, node.results):
            carried = iter_args[position:position + width]
            position += width
            if width == 1:
                var = result if result.type == carried[0].var.type else U.Var(result.name, carried[0].var.type,
                                                                                 span=result.span)
                self._env[result.name] = var
                results.append(var)
                continue
            per_batch = [U.Var(self._fresh(f"{result.name}_b{b}"), a.var.type, span=result.span)
                         for b, a in enumerate(carried)]
            self._split[result.name] = per_batch
            self._env[result.name] = per_batch[-1]
            results += per_batch
        self.bump("batched_carries_split")
        return U.ForStmt(loop_var=self.visit_Var(node.loop_var), start=self.visit_Expr(node.start),
                         stop=self.visit_Expr(node.stop), step=self.visit_Expr(node.step), iter_args=tuple(iter_args),
                         body=tuple(body), results=tuple(results), kind=node.kind, attrs=node.attrs, span=node.span)

    def _accumulator(self, call: U.Call, flat: int) -> U.Var:
        acc = call.args[0]
        tiles = self._split.get(acc.name) if isinstance(acc, U.Var) else None
        if tiles is None:
            raise CompileError(Diagnostic.at(
                call, RULE, "tile.batch_matmul_acc on an accumulator carried into a loop or branch is not "
                            "supported yet", "seed the accumulator with tile.batch_matmul or tile.create in the "
                                             "same block, or unroll the batch into 2-D matmul_acc calls"))
        return tiles[flat]

    def _batch_window(self, operand: U.Expr, side: MemorySpace, index: tuple[int, ...], batch: tuple[int, ...],
                      call: U.Call, pre: list[U.Stmt]) -> U.Expr:
        """Batch `index`'s matrix of an N-D operand: rows b*R .. of its packed 2-D tile (a
        broadcast batch axis of extent 1 always reads its one matrix; a rank-2 operand is shared).
        A Mat operand's window is a tile.extract into the cube buffer the matmul reads (`side`):
        PTOAS types a subview of a fractal Mat tile as the whole parent, which a Mat->L0 tmov
        rejects, while textract takes the row offset itself."""
        original = type_of(operand)
        packed = self.visit_Expr(operand)
        if not isinstance(original, TileType) or len(original.shape) <= 2:
            return packed
        own = original.shape[:-2]
        own_index = tuple(0 if extent == 1 else i for i, extent in zip(index[len(batch) - len(own):], own))
        flat = int(np.ravel_multi_index(own_index, own)) if own else 0
        rows, cols = original.shape[-2:]
        # A transposed view of a packed [B*K, M] tile is [M, B*K]: its batches are column windows.
        packed_type = type_of(packed)
        by_columns = isinstance(packed_type, TileType) and math.prod(own) > 1 and packed_type.shape[0] == rows
        row, col = (0, flat * cols) if by_columns else (flat * rows, 0)
        if original.memory_space is MemorySpace.Mat:
            args: tuple[U.Expr, ...] = (packed, U.ConstInt(row, DataType.INDEX, span=call.span),
                                        U.ConstInt(col, DataType.INDEX, span=call.span),
                                        _index_list((rows, cols), call.span))
            return self._emit(f"{_name_of(operand)}_b{flat}", call, "tile.extract", args,
                              (("target_memory", side),), pre)
        args = (packed, _index_list((rows, cols), call.span), _index_list((row, col), call.span))
        return self._emit(f"{_name_of(operand)}_b{flat}", call, "tile.slice", args, (), pre)

    def _packed(self, node: U.AssignStmt, tiles: list[U.Var], matrix: tuple[int, int], call: U.Call) -> list[U.Stmt]:
        """The per-batch results moved into one packed Vec tile [B*M, N]."""
        assert self._env is not None
        m, n = matrix
        pre: list[U.Stmt] = []
        dtype = tiles[0].type.dtype if isinstance(tiles[0].type, TileType) else DataType.FP32
        packed = self._assembly_base(f"{node.target.name}_packed", (m * len(tiles), n), dtype, call, pre)
        for flat, tile in enumerate(tiles):
            moved = self._emit(f"{tile.name}_vec", call, "tile.move", (tile,), (("target_memory", MemorySpace.Vec),), pre)
            packed = self._emit(f"{node.target.name}_packed", call, "tile.assemble",
                                (packed, moved, _index_list((flat * m, 0), call.span)), (), pre)
        self._env[node.target.name] = packed
        self.bump("batched_results_packed")
        return pre

    def _assembly_base(self, base: str, shape: tuple[int, int], dtype: DataType, at: U.Call,
                       pre: list[U.Stmt]) -> U.Var:
        """The Vec tile the pieces are tile.assemble'd into: a zero tile.full, not a tile.create,
        because an assemble the memory planner does not place over its target copies the whole
        target first, and a copy of never-written rows reads uninitialised memory."""
        zero = U.ConstFloat(0.0, dtype, span=at.span) if dtype.is_float else U.ConstInt(0, dtype, span=at.span)
        return self._emit(base, at, "tile.full", (_index_list(shape, at.span), zero), (("dtype", dtype),), pre)

    def _emit(self, base: str, at: U.Call, op: str, args: tuple[U.Expr, ...], attrs: Attrs,
              pre: list[U.Stmt]) -> U.Var:
        call = U.Call(op=op, args=args, attrs=attrs, type=REGISTRY.deduce(op, args, attrs, at=at), span=at.span)
        var = U.Var(self._fresh(base), call.type, span=at.span)
        pre.append(U.AssignStmt(target=var, value=call, span=at.span))
        return var

    def flatten_batched_store(self, call: U.Call, args: tuple[U.Expr, ...], pre: list[U.Stmt]) -> U.Call:
        """A store of a batched matmul result: one store per batch, at the batch's coordinates
        of the tensor window (each a 2-D tile filling a [1, .., M, N] window)."""
        source = call.args[0]
        tiles = self._split.get(source.name) if isinstance(source, U.Var) else None
        if tiles is None:
            return self.flatten_gm_transfer(call, args, pre)
        original = type_of(source)
        offsets = call.args[1]
        assert isinstance(original, TileType) and isinstance(offsets, U.TupleExpr)
        batch = original.shape[:-2]
        last: U.Call | None = None
        tensor = args[2]
        for tile, index in zip(tiles, np.ndindex(*batch)):
            assert isinstance(tile.type, TileType)
            shifted = tuple(_add_index(o, i, call.span) for o, i in zip(offsets.elements, index)) \
                + offsets.elements[len(batch):]
            window = (1,) * len(batch) + tuple(tile.type.valid)
            store_args = (tile, U.TupleExpr(shifted, span=offsets.span), tensor)
            attrs = _with_attr(call.attrs, "window", window)
            last = U.Call(op="tile.store", args=store_args, attrs=attrs,
                          type=REGISTRY.deduce("tile.store", store_args, attrs, at=call), span=call.span)
            if tile is not tiles[-1]:
                stored = U.Var(self._fresh("batch_store"), last.type, span=call.span)
                pre.append(U.AssignStmt(target=stored, value=last, span=call.span))
                tensor = stored
        self.bump("batched_stores")
        assert last is not None
        return last

    def flatten_single_batch(self, call: U.Call, args: tuple[U.Expr, ...], pre: list[U.Stmt]) -> U.Call:
        """A batched matmul of one batch is the 2-D matmul of its packed operands (each [1.., R, C]
        packs to [R, C]); its accumulator may be a loop carry like any 2-D one."""
        self.bump("single_batch_matmuls")
        return self._deduced(call, FLAT_MATMUL[call.op], args, call.attrs)

    def _fresh(self, base: str) -> str:
        name, suffix = base, 0
        while name in self._used:
            suffix += 1
            name = f"{base}_{suffix}"
        self._used.add(name)
        return name


def _with_attr(attrs: Attrs, name: str, value: AttrValue) -> Attrs:
    return tuple((k, v) for k, v in attrs if k != name) + ((name, value),)


def _prepend(index_list: U.Expr, first: int, span: Span) -> U.Expr:
    assert isinstance(index_list, U.TupleExpr)
    return U.TupleExpr((U.ConstInt(first, DataType.INDEX, span=span), *index_list.elements), span=span)


def _walk_vars(node: Node) -> list[U.Var]:
    from nanopass.node import walk

    return [n for n in walk(node) if isinstance(n, U.Var)]


FLAT_MATMUL = {"tile.batch_matmul": "tile.matmul", "tile.batch_matmul_acc": "tile.matmul_acc"}
BATCHED_MATMULS = frozenset(FLAT_MATMUL)


def _batch_count(typ: Type) -> int:
    return math.prod(typ.shape[:-2]) if isinstance(typ, TileType) else 1


def _per_batch_values(function: U.Function) -> frozenset[str]:
    """Values of a batched matmul chain every use of which reads one batch at a time: the tile
    of a store, the accumulator of a batch_matmul_acc, and a loop carry (its init, iter-arg,
    yielded value and result are one accumulator per batch, carried side by side) -- each such
    carry joins the chain. Seeds and results of these chains are included."""
    from nanopass.node import walk

    batched: set[str] = set()
    uses: dict[str, set[str]] = {}
    carries: list[tuple[str, ...]] = []
    for node in walk(function):
        if isinstance(node, U.AssignStmt) and isinstance(node.value, U.Call) and node.value.op in BATCHED_MATMULS \
                and _batch_count(node.target.type) > 1:
            batched.add(node.target.name)
            if node.value.op == "tile.batch_matmul_acc" and isinstance(node.value.args[0], U.Var):
                batched.add(node.value.args[0].name)
        if isinstance(node, U.ForStmt):
            last = node.body[-1] if node.body else None
            yielded = last.values if isinstance(last, U.YieldStmt) else ()
            for iter_arg, result, value in zip(node.iter_args, node.results, yielded):
                group = (iter_arg.var.name, result.name, *(e.name for e in (iter_arg.init, value) if isinstance(e, U.Var)))
                carries.append(group)
        if isinstance(node, U.Call):
            for position, arg in enumerate(node.args):
                if isinstance(arg, U.Var):
                    per_batch = (node.op == "tile.store" and position == 0) or \
                        (node.op == "tile.batch_matmul_acc" and position == 0)
                    uses.setdefault(arg.name, set()).add("batch" if per_batch else "whole")
        elif isinstance(node, (U.YieldStmt, U.ReturnStmt)) or node.KIND == "IterArg":
            for child in node.children():
                if isinstance(child, U.Var):
                    uses.setdefault(child.name, set()).add("carry" if node.KIND != "ReturnStmt" else "whole")
    changed = True
    while changed:  # a carry of a batched value is batched (nested loops: to a fixpoint)
        changed = False
        for group in carries:
            if batched.intersection(group) and not batched.issuperset(group):
                batched.update(group)
                changed = True
    carried = {name for group in carries if batched.issuperset(group) for name in group}
    allowed = {"batch", "carry"}
    return frozenset(name for name in batched
                     if uses.get(name, set()) <= (allowed if name in carried else {"batch"}))


def _int_attr(call: U.Call, name: str) -> int:
    value = dict(call.attrs).get(name)
    assert isinstance(value, int), (call.op, name)
    return value


def _add_index(offset: U.Expr, delta: int, span: Span) -> U.Expr:
    if delta == 0:
        return offset
    if isinstance(offset, U.ConstInt):
        return U.ConstInt(offset.value + delta, offset.dtype, span=span)
    return U.BinOp("+", offset, U.ConstInt(delta, DataType.INDEX, span=span), INDEX, span=span)


def _extent_text(expr: U.Expr) -> str:
    value = static_int(expr)
    return str(value) if value is not None else _name_of(expr)


def _name_of(expr: U.Expr) -> str:
    return expr.name if isinstance(expr, U.Var) else "operand"


CallFlattener = Callable[[FlattenMutator, U.Call, tuple[U.Expr, ...], list[U.Stmt]], U.Call]

CALL_FLATTENERS: dict[str, CallFlattener] = {
    "tile.create": FlattenMutator.flatten_creation,
    "tile.full": FlattenMutator.flatten_creation,
    "tile.reshape": FlattenMutator.flatten_creation,
    "tile.load": FlattenMutator.flatten_gm_transfer,
    "tile.store": FlattenMutator.flatten_batched_store,
    "tile.assemble": FlattenMutator.flatten_assemble,
    **{op: FlattenMutator.flatten_single_batch for op in FLAT_MATMUL},
    "tile.slice": FlattenMutator.flatten_slice,
    "tile.reinterpret_view": FlattenMutator.flatten_shape_attr,
    "tile.read": FlattenMutator.flatten_rank1_window,
    "tile.write": FlattenMutator.flatten_rank1_window,
    "tile.transpose": FlattenMutator.materialize_transpose_scratch,
    **{f"tile.row_{kind}": FlattenMutator.materialize_row_reduction_scratch for kind in ("sum", "max", "min", "prod")},
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
