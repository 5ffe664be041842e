"""ConvertTensorToTileOps (Tensor → TileUnplaced): InCore kernels compute on tiles.

Phase 1 of the spec's pass (`convert_tensor_to_tile_ops.md`), for every InCore function:

- consumer demand (`passes.analysis.consumer_space`): where each value's consumers need it, so
  a `tensor.slice` or a parameter feeding `tensor.matmul` is loaded straight into Mat (with a
  zero-copy `tile.transpose_view` for a_trans / b_trans) and cube M / N extents are boxed;
- GM access (`passes.analysis.param_access`): a read-only parameter shares one entry
  `tile.load`; a parameter written in the function (through any alias) is loaded at each use,
  so a read after a GM write sees the new value;
- op conversion through the registry's `to_tile` declarations: bridged operands become tiles,
  scalar-rhs / row-broadcast dispatch, attributes the tile op declares are forwarded; the
  self-loading ops (slice, assemble, create, full) build their own loads / stores / seeds; an
  accumulator demanded in Acc is allocated there, boxed and compact;
- exit stores: each returned tile is stored into a new `Out` parameter `ret<i>_out`.

Orchestration call sites are updated by `update-orchestration-call-sites` and parameter
directions by `upgrade-param-directions`, the next passes of the sequence. Converted values are
renamed `<name>_tile`; entry loads are `<param>_tile`.
"""

from __future__ import annotations

import itertools

from dataclasses import dataclass, field, replace
from typing import Callable, ClassVar, Iterator, Mapping, Sequence, cast

from typing_extensions import override

import languages.gen.tensor as T
import languages.gen.tile_unplaced as U
from languages.decls import Tensor, TileUnplaced
from languages.memory_space import MemorySpace
from languages.ops import PER_COLUMN_OPERAND, PER_ROW_OPERAND, READS_OVER_RESULT_REGION, REGISTRY, SAME_BYTES_VIEWS, WRITE, Effect, OpDef, ReusesInput, TileConversion, TileInput, never_loaded, static_ints, type_of
from languages.ops.assembler_element_types import tile_element_unreadable
from languages.ops.data_extents import extents, read_extent, reads_past
from languages.ops.index_ops import GATHER_UNPADDED_ROWS, MASK_PATTERNS, mask_phase, scatter_update_flat_gap
from languages.ops.system_ops import (SYNCALL_COUNTER_DTYPE, SYNCALL_TILE_WORKSPACE_SHAPE, missing_syncall_workspaces,
                                      syncall_tile_workspaces)
from languages.ops.vector_ops import CMP_MODES, ORDERING_BY_EQUALITY, cmp_mode, reinterpret_on_chip_gap
from languages.types import INDEX, Attrs, DataType, ScalarType, SymbolicExtent, TensorType, TileType, Type, attr
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.langdef import Language
from nanopass.node import Node, Span, walk
from nanopass.passes import Pass, PassContext
from languages.cube_boxing import (BoxRequest, declines_boxed_column, reads_operands_unboxed, unaligned_k, unaligned_n,
                                   unboxed_batched_axis)
from languages.layout import box_shape, padded_2d, shape_blayout, unboxed_row_multiple
from languages.views import flat_reshape_gap, implicit_view, make_tile_type
from passes.analysis.consumer_space import (
    ConsumerDemand,
    SpaceDemand,
    collect_consumer_demand,
    demand_through_view,
    operand_demand,
    propagates_demand,
)
from passes.analysis.param_access import AccessReport, analyze_param_access
from passes.analysis.scope_vars import unused_name

RULE = "ConvertTensorToTileOps"
INCORE = "InCore"
OPAQUE = "Opaque"
ACCUMULATOR_SPACE = MemorySpace.Acc

# GM scalar accesses keep their tensor form on a GM operand (pto.load_scalar / store_scalar
# through the D-cache) and become their tile form on an on-chip one.
SCALAR_ACCESS_TILE_FORM = {"tensor.read": "tile.read", "tensor.write": "tile.write"}
GM_ONLY_OPS = frozenset({"tensor.dim"})
# Ops that write into their operand 0 at the indices / offsets of the given operand: through a view
# of a GM parameter they write the parameter.
GM_VIEW_WRITES = {"tensor.write": 1, "tensor.assemble": 2}


# The semantics of the column broadcasts, whose second operand holds one value per column in its
# first row (col_expand_*, col_expdif and the value-level col_broadcast): all read it alike.
_COLUMN_BROADCASTS = (("col_expand",), ("col_broadcast",), ("col_expdif",))


def _tile_by_semantics(semantics: tuple[str, ...]) -> str | None:
    """The tile op with these registry semantics (e.g. ("binary", "sub") -> tile.sub), or None."""
    return next((op.name for op in REGISTRY if op.prefix == "tile" and tuple(op.semantics) == semantics), None)


def _written_in_place_chain(body: Sequence[T.Stmt], carry: str, yielded: T.Expr) -> bool:
    """`yielded` is `carry` written in place by a chain of the body's own statements (aliases
    and GM_VIEW_WRITES results, each writing the previous one)."""
    definitions = {s.target.name: s.value for s in body if isinstance(s, T.AssignStmt)}
    current = yielded
    for _ in range(len(body) + 1):
        if not isinstance(current, T.Var):
            return False
        if current.name == carry:
            return True
        value = definitions.get(current.name)
        if isinstance(value, T.Call) and value.op in GM_VIEW_WRITES and value.args:
            current = value.args[0]
        elif isinstance(value, T.Var):
            current = value
        else:
            return False
    return False


def _view_operand(value: T.Expr) -> T.Var | None:
    """The value a tensor view call re-views (a SAME_BYTES_VIEWS kind: its result is that
    operand's bytes), or None for any other expression."""
    if not isinstance(value, T.Call) or not value.op.startswith("tensor.") or value.op not in REGISTRY \
            or not value.args or not isinstance(value.args[0], T.Var):
        return None
    semantics = REGISTRY.get(value.op).semantics
    return value.args[0] if semantics[:1] and semantics[0] in SAME_BYTES_VIEWS else None


def _defines_param_view(state: _FunctionState, stmt: T.Stmt) -> bool:
    """`stmt` names a view (or an alias) of a GM parameter, or of such a view."""
    if not isinstance(stmt, T.AssignStmt) or not isinstance(stmt.target.type, TensorType):
        return False
    source = stmt.value if isinstance(stmt.value, T.Var) else _view_operand(stmt.value)
    return source is not None and (source.name in state.params or source.name in state.param_views)


def _defines_gm_view(state: _FunctionState, stmt: T.Stmt) -> bool:
    """`stmt` names a view (or an alias) of a GM parameter loaded at each use."""
    if not isinstance(stmt, T.AssignStmt) or not isinstance(stmt.target.type, TensorType):
        return False
    if isinstance(stmt.value, T.Var):
        return stmt.value.name in state.gm_views
    source = _view_operand(stmt.value)
    return source is not None and state.names_mutable_gm(source)


def _own_reads(stmt: T.Stmt) -> frozenset[str]:
    """The names `stmt` reads itself: a loop's or an if's header, not its bodies (their own
    statements are visited one by one)."""
    if isinstance(stmt, T.ForStmt):
        roots: tuple[Node, ...] = (stmt.start, stmt.stop, stmt.step, *(a.init for a in stmt.iter_args))
    elif isinstance(stmt, T.IfStmt):
        roots = (stmt.cond,)
    elif isinstance(stmt, T.WhileStmt):
        roots = tuple(a.init for a in stmt.iter_args)
    elif isinstance(stmt, T.AssignStmt):
        roots = (stmt.value,)
    else:
        roots = (stmt,)
    return frozenset(n.name for root in roots for n in walk(root) if isinstance(n, T.Var))


_INDEX_FOLDS: dict[str, Callable[[int, int], int]] = {
    "+": lambda a, b: a + b, "*": lambda a, b: a * b, "//": lambda a, b: a // b, "%": lambda a, b: a % b}


def _index_arith(op: str, lhs: T.Expr, rhs: T.Expr) -> T.Expr:
    """`lhs op rhs` on indices, folded when both are constants."""
    if isinstance(lhs, T.ConstInt) and isinstance(rhs, T.ConstInt):
        return T.ConstInt(_INDEX_FOLDS[op](lhs.value, rhs.value), DataType.INDEX, span=rhs.span)
    return T.BinOp(op, lhs, rhs, INDEX, span=rhs.span)


def _index_sum(offset: T.Expr, index: T.Expr) -> T.Expr:
    if isinstance(offset, T.ConstInt) and offset.value == 0:
        return index
    return _index_arith("+", offset, index)


def _static_shape(expr: T.Expr) -> tuple[int, ...] | None:
    typ = type_of(expr)
    if not isinstance(typ, TensorType) or not all(isinstance(d, int) for d in typ.shape):
        return None
    return tuple(int(d) for d in typ.shape)


def _reshaped_indices(indices: T.TupleExpr, view_shape: Sequence[int], source_shape: Sequence[int]) -> T.TupleExpr:
    """The source's indices of element `indices` of a row-major reshape of it."""
    span = indices.span
    flat: T.Expr = T.ConstInt(0, DataType.INDEX, span=span)
    for index, extent in zip(indices.elements, view_shape):
        flat = _index_arith("+", _index_arith("*", flat, T.ConstInt(extent, DataType.INDEX, span=span)), index)
    out: list[T.Expr] = []
    stride = 1
    for extent in reversed(source_shape):
        out.append(_index_arith("%", _index_arith("//", flat, T.ConstInt(stride, DataType.INDEX, span=span)),
                                T.ConstInt(extent, DataType.INDEX, span=span)))
        stride *= extent
    return T.TupleExpr(tuple(reversed(out)), span=span)


def _error(node: Node, message: str, hint: str = "") -> CompileError:
    return CompileError(Diagnostic.at(node, RULE, message, hint))


def _compare_rows_refusal(call: T.Call, written: int, rows: int) -> CompileError:
    """A tensor compare whose operand holds data in fewer rows than its mask is valid over
    (`languages.ops.vector_ops.compares_fewer_rows`, or a product of a row-narrowed operand)."""
    operand = call.args[0]
    name = f"`{operand.name}`" if isinstance(operand, T.Var) else "its operand"
    return _error(call, f"not supported yet: `{call.op}` of {name}, which holds data in {written} of its rows, "
                        f"into a mask typed over {rows} rows: TCMP / TCMPS write mask rows only for their "
                        "source's valid rows, and nothing writes the mask's other rows",
                  f"compare the value before narrowing its valid rows, or compare a pl.slice of its {written} "
                  "valid rows")


def index_list(values: Sequence[int], span: Span) -> U.TupleExpr:
    return U.TupleExpr(tuple(U.ConstInt(v, DataType.INDEX, span=span) for v in values), span=span)


def _index(value: int, span: Span) -> U.ConstInt:
    return U.ConstInt(value, DataType.INDEX, span=span)


def _extent(value: int | SymbolicExtent, span: Span) -> U.Expr:
    """A valid extent as an index operand: a constant, or the INDEX variable a runtime one names."""
    if isinstance(value, SymbolicExtent):
        return U.Var(value.name, INDEX, span=span)
    return _index(int(value), span)


# The scatter-update lowering's written-mask element type, by the data's byte width.
_MASK_DTYPES = {4: DataType.INT32, 2: DataType.FP16}


def _is_row_broadcast(lhs: Type | None, rhs: Type | None) -> bool:
    """rhs is one value per row of lhs ([.., 1] against [.., n > 1])."""
    if not isinstance(lhs, TensorType) or not isinstance(rhs, TensorType) or len(lhs.shape) < 2:
        return False
    return rhs.shape == lhs.shape[:-1] + (1,) and lhs.shape[-1] != 1


def _is_boxed_column(ty: Type | None) -> bool:
    """A 2-D tile a fractal of columns wide holding one valid column (a matmul result with N = 1)."""
    return isinstance(ty, TileType) and len(ty.shape) == 2 and ty.shape[1] != 1 and ty.valid[1] == 1


def _has_logical_shape(arg: T.Expr, shape: Sequence[object]) -> bool:
    """The user's operand already has `shape`: nothing to broadcast, whatever its tile's physical
    shape (a cube-boxed product is [ceil(m / 16) * 16, n] and may be narrowed by set_validshape
    below m rows, so neither its shape nor its valid region tells its logical one; finding
    b3fe3e1a0b)."""
    ty = type_of(arg)
    return isinstance(ty, TensorType) and tuple(ty.shape) == tuple(shape)


def _pitch(tile: TileType) -> int:
    """Elements from one row of a 2-D Vec tile to the next: its columns padded to 32 bytes
    (`languages.layout.padded_2d`). TGATHER / TSCATTER read a flat index over the whole buffer,
    so a row offset r * cols is r times this pitch, not the logical column count."""
    return padded_2d(tile)[1]


def _is_col_broadcast(lhs: Type | None, rhs: Type | None) -> bool:
    """rhs is one value per column of a 2-D lhs ([1, n] against [m > 1, n])."""
    if not isinstance(lhs, TensorType) or not isinstance(rhs, TensorType) or len(lhs.shape) != 2:
        return False
    return rhs.shape == (1, lhs.shape[1]) and lhs.shape[0] != 1


# The broadcast ops' semantics kinds: their result is valid where their lhs is.
_BROADCAST_FAMILIES = frozenset({("row_expand",), ("row_expdif",), ("col_expand",), ("col_expdif",)})


def _broadcast_kind(operand: tuple[int, ...], result: tuple[int, ...]) -> tuple[str, ...] | None:
    """How a 2-D operand expands to `result`: across the columns ([m, 1]), down the rows
    ([1, n]), or both ([1, 1]: first to [1, n], then down); None if it is not such a broadcast."""
    if len(operand) != 2 or len(result) != 2:
        return None
    rows, cols = operand
    if (rows, cols) == (result[0], 1):
        return ("cols",)
    if (rows, cols) == (1, result[1]):
        return ("rows",)
    if (rows, cols) == (1, 1):
        return ("cols", "rows")
    return None


@dataclass
class _FunctionState:
    """Everything the conversion of one InCore function accumulates."""

    function: T.Function
    demand: ConsumerDemand
    access: AccessReport
    params: frozenset[str]
    used_names: set[str]
    env: dict[str, U.Var] = field(default_factory=dict)
    entry_loads: list[U.Stmt] = field(default_factory=list)
    entry_cache: dict[tuple[str, SpaceDemand | None], U.Var] = field(default_factory=dict)
    out_params: dict[int, U.Var] = field(default_factory=dict)
    # Accumulator tiles of a matmul whose out_dtype narrows them: the FP32/INT32 tile, keyed by
    # its name, and the dtype the user's tensor has. A store narrows on FIXPIPE by itself; any
    # other consumer reads the value through an explicit RNE cast (FIXPIPE's rounding).
    narrowed: dict[str, DataType] = field(default_factory=dict)
    # Tiles that are views of another tile's buffer (tile.slice, tile.reshape, ...), by name: the
    # user's call that made each one, for the message rejecting set_validshape on a view.
    views: dict[str, Node] = field(default_factory=dict)
    # The tile call defining each of those views, by the tile's name: a consumer reading one past
    # its valid region re-takes it over the region read (no set_validshape widens a view).
    view_calls: dict[str, U.Call] = field(default_factory=dict)
    # The placed type of each copy `_packed` made of a view (the layout InferTileMemorySpace gives
    # it, which its unplaced type does not state), by the copy's name.
    placed_copies: dict[str, TileType] = field(default_factory=dict)
    # Views (slice, set_validshape, reshape, ...) of a GM parameter that is loaded at each use, by
    # name: a view names the parameter's bytes as they are when it is read (spec "GM Identity and
    # Read/Write Ordering"), so it is converted right before each statement that reads it, not
    # where it is defined, and a scalar write through it goes to the parameter.
    gm_views: dict[str, T.AssignStmt] = field(default_factory=dict)
    # Every view of a GM parameter (deferred or not), by name: a scalar read of one reads the
    # parameter at mapped indices.
    param_views: dict[str, T.AssignStmt] = field(default_factory=dict)
    # Reshapes narrowing their valid region (tensor.reshape's valid_shape), by the user's name:
    # the tile they view and the shape, for a consumer reading one past its valid region.
    narrowing_reshapes: dict[str, tuple[U.Expr, U.Expr]] = field(default_factory=dict)
    # set_validshape results of a tile that is not a view, by the user's name: the tile they narrow,
    # for a consumer reading one past its valid region.
    revalidations: dict[str, U.Var] = field(default_factory=dict)

    def fresh(self, base: str) -> str:
        return unused_name(base, self.used_names)

    def shares_entry_load(self, var: U.Var) -> bool:
        """Read-only parameters share one load at function entry; anything written (or touched
        by a call with unknown effects) is reloaded where it is used."""
        return var.name in self.params and not self.access.has_opaque_calls and not self.access.is_written(var.name)

    def names_mutable_gm(self, expr: T.Expr) -> bool:
        """`expr` names a GM parameter loaded at each use, or a view of one."""
        if not isinstance(expr, T.Var) or not isinstance(expr.type, TensorType):
            return False
        if expr.name in self.gm_views:
            return True
        return expr.name in self.params and (self.access.has_opaque_calls or self.access.is_written(expr.name))


class TensorToTileMutator(U.FromTensor):
    """Tensor → TileUnplaced: converts InCore bodies, copies every other function."""

    def __init__(self) -> None:
        super().__init__()
        self._state: _FunctionState | None = None
        # Host code: the windows of GM tensors (orchestration pl.slice results) by name, typed
        # with the strides they keep.
        self._host_windows: dict[str, U.Var] = {}

    # -- functions ------------------------------------------------------------------------------

    @override
    def visit_Function(self, node: T.Function) -> U.Function:
        if node.func_type != INCORE and not _is_leaf_tensor_kernel(node):
            _reject_host_compute(node)
            self._host_windows = {}
            return super().visit_Function(node)
        self._state = _FunctionState(
            function=node,
            demand=collect_consumer_demand(node),
            access=analyze_param_access(node),
            params=frozenset(p.var.name for p in node.params),
            used_names={n.name for n in walk(node) if isinstance(n, T.Var)},
        )
        try:
            params = [self.visit_Param(p) for p in node.params]
            for param in params:
                self._state.env[param.var.name] = param.var
            body = self.visit_Stmt_block(node.body)
            state = self._state
            params += [U.Param(var, "Out", span=node.span) for _, var in sorted(state.out_params.items())]
            self.bump("functions_converted")
            return U.Function(name=node.name, func_type=node.func_type, params=tuple(params),
                              return_types=node.return_types, body=tuple(state.entry_loads) + body, attrs=node.attrs,
                              span=node.span)
        finally:
            self._state = None

    @override
    def visit_Var(self, node: T.Var) -> U.Var:
        if self._state is not None and node.name in self._state.env:
            return self._state.env[node.name]
        if self._state is None and node.name in self._host_windows:
            return self._host_windows[node.name]
        return super().visit_Var(node)

    def _host_window(self, node: T.AssignStmt, call: T.Call) -> U.AssignStmt:
        """An orchestration `pl.slice` of a GM tensor: a window of it (tensor.window), which a
        kernel called on it reads and writes in place, at the tensor's strides."""
        args = tuple(self.visit_Expr(a) for a in call.args[:3])
        value = U.Call(op="tensor.window", args=args, attrs=(),
                       type=REGISTRY.deduce("tensor.window", args, (), at=call), span=call.span)
        target = U.Var(node.target.name, value.type, span=node.target.span)
        self._host_windows[target.name] = target
        self.bump("host_windows")
        return U.AssignStmt(target=target, value=value, span=node.span)

    # -- views of mutable GM parameters ---------------------------------------------------------

    @override
    def visit_Stmt_block(self, block: tuple[T.Stmt, ...]) -> tuple[U.Stmt, ...]:
        state = self._state
        if state is None:
            return super().visit_Stmt_block(block)
        out: list[U.Stmt] = []
        for stmt in block:
            if _defines_gm_view(state, stmt):
                assert isinstance(stmt, T.AssignStmt)
                state.gm_views[stmt.target.name] = stmt
                state.param_views[stmt.target.name] = stmt
                self.bump("gm_views_deferred")
                continue
            stmt = self._write_through_gm_view(state, self._uncarry_gm_views(state, stmt))
            stmt = self._read_through_param_view(state, stmt)
            if _defines_param_view(state, stmt):
                assert isinstance(stmt, T.AssignStmt)
                state.param_views[stmt.target.name] = stmt
            materialized: dict[str, U.Var] = {}
            for name in _own_reads(stmt):
                self._materialize_gm_view(name, out, materialized)
            new = self.visit_Stmt(stmt)
            out.extend(new) if isinstance(new, tuple) else out.append(new)
            for name, var in materialized.items():
                # The next statement reading the view converts it again: a GM write may lie between.
                if state.env.get(name) is var:
                    del state.env[name]
        return tuple(out)

    def _materialize_gm_view(self, name: str, out: list[U.Stmt], materialized: dict[str, U.Var]) -> None:
        """Convert the deferred view `name` (and the views it is taken of) into `out`, here."""
        state = self._require_state()
        view = state.gm_views.get(name)
        if view is None or name in materialized:
            return
        for read in _own_reads(view):
            self._materialize_gm_view(read, out, materialized)
        new = self.visit_Stmt(view)
        out.extend(new) if isinstance(new, tuple) else out.append(new)
        materialized[name] = state.env[name]
        self.bump("gm_views_materialized")

    @staticmethod
    def _uncarry_gm_views(state: _FunctionState, stmt: T.Stmt) -> T.Stmt:
        """A loop carrying a view of a mutable GM parameter that each iteration writes into
        (`acc = pl.assemble(acc, t, ...)`, yielded) carries the view's bytes, not a value: the
        carry is dropped and its variable and the loop's result name the view, so the writes go
        to the parameter (a tile carry would keep them on chip)."""
        if not isinstance(stmt, T.ForStmt) or not stmt.iter_args:
            return stmt
        closing = stmt.body[-1] if stmt.body and isinstance(stmt.body[-1], T.YieldStmt) else None
        dropped: list[int] = []
        for index, carry in enumerate(stmt.iter_args):
            if not isinstance(carry.init, T.Var) or carry.init.name not in state.gm_views:
                continue
            if closing is not None and _written_in_place_chain(stmt.body, carry.var.name, closing.values[index]):
                dropped.append(index)
            elif any(isinstance(n, T.Call) and n.op in GM_VIEW_WRITES and n.args and isinstance(n.args[0], T.Var)
                     and n.args[0].name == carry.var.name for n in walk(stmt)):
                raise _error(carry, f"not supported yet: a loop carry `{carry.var.name}` that starts as "
                                    f"`{carry.init.name}`, a view of a GM parameter, and is written other than by "
                                    "one chain of assembles yielded back",
                             "assemble into the view itself in the loop (pl.assemble(view, tile, offsets)) "
                             "without carrying it")
        if not dropped:
            return stmt
        for index in dropped:
            carry, result = stmt.iter_args[index], stmt.results[index]
            state.gm_views[carry.var.name] = T.AssignStmt(target=carry.var, value=carry.init, span=carry.span)
            state.gm_views[result.name] = T.AssignStmt(target=result, value=carry.init, span=result.span)
        assert closing is not None
        kept = [i for i in range(len(stmt.iter_args)) if i not in dropped]
        values = tuple(closing.values[i] for i in kept)
        body = stmt.body[:-1] + ((T.YieldStmt(values=values, span=closing.span),) if kept else ())
        return T.ForStmt(loop_var=stmt.loop_var, start=stmt.start, stop=stmt.stop, step=stmt.step,
                         iter_args=tuple(stmt.iter_args[i] for i in kept), body=body,
                         results=tuple(stmt.results[i] for i in kept), kind=stmt.kind, attrs=stmt.attrs,
                         span=stmt.span)

    def _write_through_gm_view(self, state: _FunctionState, stmt: T.Stmt) -> T.Stmt:
        """A scalar write (`pl.tensor.write`) or an assemble into a view of a mutable GM parameter
        writes the parameter: the indices / offsets are mapped through the view chain to the
        parameter's own. An assemble's result names the view again (a deferred alias of it)."""
        call = stmt.value if isinstance(stmt, (T.EvalStmt, T.AssignStmt)) else None
        if not isinstance(call, T.Call) or call.op not in GM_VIEW_WRITES or not call.args \
                or not isinstance(call.args[0], T.Var) or call.args[0].name not in state.gm_views:
            return stmt
        position = GM_VIEW_WRITES[call.op]
        root, indices = self._through_gm_views(state.gm_views, stmt, call.args[0], call.args[position], call.op)
        args = list(call.args)
        args[0], args[position] = root, indices
        written = T.Call(op=call.op, args=tuple(args), attrs=call.attrs, type=type_of(root) or call.type,
                         span=call.span)
        if isinstance(stmt, T.EvalStmt):
            return T.EvalStmt(value=written, span=stmt.span)
        assert isinstance(stmt, T.AssignStmt)
        state.gm_views[stmt.target.name] = T.AssignStmt(target=stmt.target, value=call.args[0], span=stmt.span)
        stored = T.Var(state.fresh(f"{stmt.target.name}_stored"), written.type, span=stmt.target.span)
        return T.AssignStmt(target=stored, value=written, span=stmt.span)

    def _read_through_param_view(self, state: _FunctionState, stmt: T.Stmt) -> T.Stmt:
        """`pl.tensor.read(view, idx)` of a view (slice, set_validshape, row-major reshape) of a GM
        parameter reads the parameter, at the indices mapped through the view chain: a GM read
        (pto.load_scalar), as the view names the parameter's bytes, whatever the element type
        (an on-chip read, pto.tgetval, takes no unsigned tile)."""
        if not isinstance(stmt, T.AssignStmt) or not isinstance(stmt.value, T.Call) or stmt.value.op != "tensor.read":
            return stmt
        call = stmt.value
        source = call.args[0]
        if not isinstance(source, T.Var) or source.name not in state.param_views or len(call.args) < 2:
            return stmt
        try:
            root, indices = self._through_gm_views(state.param_views, stmt, source, call.args[1], call.op)
        except CompileError:
            return stmt  # a view the mapping does not cover is read on chip, as before
        self.bump("reads_through_param_views")
        return T.AssignStmt(target=stmt.target, value=T.Call(op=call.op, args=(root, indices, *call.args[2:]),
                                                             attrs=call.attrs, type=call.type, span=call.span),
                            span=stmt.span)

    @staticmethod
    def _through_gm_views(views: dict[str, T.AssignStmt], stmt: T.Stmt, target: T.Var, indices: T.Expr,
                          op: str) -> tuple[T.Expr, T.Expr]:
        """The GM parameter a view chain starts at, and `indices` of the view as its own."""
        current: T.Expr = target
        while isinstance(current, T.Var) and current.name in views:
            view = views[current.name]
            if isinstance(view.value, T.Var):
                current = view.value
                continue
            assert isinstance(view.value, T.Call)
            kind = REGISTRY.get(view.value.op).semantics[:1]
            if kind == ("set_validshape",):
                current = view.value.args[0]
            elif kind == ("slice",) and isinstance(indices, T.TupleExpr) \
                    and isinstance(view.value.args[2], T.TupleExpr):
                offsets = view.value.args[2].elements
                indices = T.TupleExpr(tuple(_index_sum(off, idx) for off, idx in zip(offsets, indices.elements)),
                                      span=indices.span)
                current = view.value.args[0]
            elif kind == ("reshape",) and op in ("tensor.write", "tensor.read") and isinstance(indices, T.TupleExpr) \
                    and _static_shape(view.value.args[0]) is not None and _static_shape(view.target) is not None:
                indices = _reshaped_indices(indices, _static_shape(view.target) or (),
                                            _static_shape(view.value.args[0]) or ())
                current = view.value.args[0]
            else:
                raise _error(stmt, f"not supported yet: {op} through `{view.target.name}`, a {view.value.op} view of "
                                   "a GM parameter that the function writes",
                             "write into the parameter itself, at its own indices")
        return current, indices

    # -- statements -----------------------------------------------------------------------------

    @override
    def visit_AssignStmt(self, node: T.AssignStmt) -> U.Stmt | tuple[U.Stmt, ...]:
        if self._state is None and isinstance(node.value, T.Call) and node.value.op == "tensor.slice":
            return self._host_window(node, node.value)
        if self._state is not None and isinstance(node.value, T.Var):
            return self._convert_alias(node, node.value)
        if self._state is None or not isinstance(node.value, T.Call):
            return super().visit_AssignStmt(node)
        extent = self._on_chip_extent(node.value)
        if extent is not None:
            return U.AssignStmt(target=self._bind(node.target, None), value=extent, span=node.span)
        pre: list[U.Stmt] = []
        value = self._convert_call(node.value, node.target, pre)
        self._check_handle_operands(node.value, value, pre)
        target = self._bind(node.target, value.type)
        self._rebind_written_local(node.value, target)
        if REGISTRY.makes_view_handle(value.op):
            self._require_state().views[target.name] = node.value
            self._require_state().view_calls[target.name] = value
        if _narrows_accumulator(node.target.type, value.type):
            assert isinstance(node.target.type, TensorType)
            self._require_state().narrowed[target.name] = node.target.type.dtype
        return (*pre, U.AssignStmt(target=target, value=value, span=node.span))

    def _on_chip_extent(self, call: T.Call) -> U.ConstInt | None:
        """`tensor.dim` of a value the kernel computed (a tile now, no GM tensor to ask) is its
        static extent; None for any other call (a GM tensor's dim stays a runtime query)."""
        if call.op != "tensor.dim" or not call.args or not isinstance(call.args[0], T.Var):
            return None
        source = self.visit_Var(call.args[0])
        if not isinstance(source.type, TileType):
            return None
        tensor = call.args[0].type
        assert isinstance(tensor, TensorType)
        axis = int(cast(int, attr(call.attrs, "axis", 0)))
        extent = tensor.shape[axis]
        if not isinstance(extent, int):
            raise _error(call, f"not supported yet: tensor.dim of `{call.args[0].name}`, a value the kernel computed "
                               f"with the dynamic extent {extent} on axis {axis}",
                         "take the extent from the kernel parameter the value was computed from")
        self.bump("on_chip_dims")
        return U.ConstInt(extent, DataType.INDEX, span=call.span)

    def _convert_alias(self, node: T.AssignStmt, source: T.Var) -> U.Stmt:
        """`b = a` names the same value: when `a` became a tile, so does `b` (keeping the name
        PyPTO's converter keeps), and what is known about `a`'s tile holds for `b`'s."""
        value = self.visit_Var(source)
        state = self._require_state()
        if isinstance(value.type, TileType) and not isinstance(node.target.type, TileType):
            target = U.Var(node.target.name, value.type, span=node.target.span)
            state.env[node.target.name] = target
            if value.name in state.narrowed:
                state.narrowed[target.name] = state.narrowed[value.name]
            # `b = a` is `a`: what is known of `a`'s tile holds for `b`'s (a view's making, the
            # tile a narrowed value narrows), so `b` read past its valid region is `a` re-taken.
            if value.name in state.views:
                state.views[target.name] = state.views[value.name]
            if value.name in state.view_calls:
                state.view_calls[target.name] = state.view_calls[value.name]
            if source.name in state.narrowing_reshapes:
                state.narrowing_reshapes[node.target.name] = state.narrowing_reshapes[source.name]
            if source.name in state.revalidations:
                state.revalidations[node.target.name] = state.revalidations[source.name]
        else:
            target = self._bind(node.target, None)
        return U.AssignStmt(target=target, value=value, span=node.span)

    @override
    def visit_EvalStmt(self, node: T.EvalStmt) -> U.Stmt | tuple[U.Stmt, ...]:
        if self._state is None or not isinstance(node.value, T.Call):
            return super().visit_EvalStmt(node)
        pre: list[U.Stmt] = []
        value = self._convert_call(node.value, None, pre)
        updated = _tile_updated_in_place(node.value, value)
        if updated is not None:
            # `pl.tensor.write(t, ...)` on a tensor that became a tile updates the tile itself: its
            # result gets a name and `t` reads it from here on (InPlaceUpdatesBound).
            state = self._require_state()
            var = U.Var(state.fresh(f"{updated}_updated"), value.type, span=node.span)
            state.env[updated] = var
            return (*pre, U.AssignStmt(target=var, value=value, span=node.span))
        return (*pre, U.EvalStmt(value=value, span=node.span))

    @override
    def visit_WhileStmt(self, node: T.WhileStmt) -> U.Stmt | tuple[U.Stmt, ...]:
        raise _error(node, "not supported yet: a while loop below the Tensor language (the reference interpreter "
                           "runs it, but ConvertTensorToTileOps does not lower it to tiles and PTO's scf.while yet)",
                     "write a pl.range loop over a bound of the iteration count, with an if in its body")

    @override
    def visit_ForStmt(self, node: T.ForStmt) -> U.Stmt | tuple[U.Stmt, ...]:
        if self._state is None:
            return super().visit_ForStmt(node)
        iter_args = []
        pre: list[U.Stmt] = []
        for iter_arg in node.iter_args:
            # A matmul result narrowed by out_dtype is carried as the user's dtype (no matmul_acc
            # takes a narrowed accumulator): a carry of the FP32 tile would live in Acc.
            init = self._narrowed_read(self.visit_Expr(iter_arg.init), iter_arg.span, pre)
            var = self._bind(iter_arg.var, _expr_type(init))
            iter_args.append(U.IterArg(var=var, init=init, span=iter_arg.span))
        outer = self._scope()
        body = self.visit_Stmt_block(node.body)
        self._restore(outer)
        reseeded = self._load_gm_seeds(node, iter_args, body, pre)
        if reseeded:
            # The carries seeded by a GM tensor are tiles now: the body reads them as such.
            iter_args = reseeded
            outer = self._scope()
            body = self.visit_Stmt_block(node.body)
            self._restore(outer)
        self._check_carries(node, [a.var for a in iter_args], body)
        results = tuple(self._bind(r, a.var.type) for r, a in zip(node.results, iter_args))
        return (*pre, U.ForStmt(loop_var=self.visit_Var(node.loop_var), start=self.visit_Expr(node.start),
                                stop=self.visit_Expr(node.stop), step=self.visit_Expr(node.step),
                                iter_args=tuple(iter_args), body=body, results=results, kind=node.kind,
                                attrs=node.attrs, span=node.span))

    @override
    def visit_YieldStmt(self, node: T.YieldStmt) -> U.Stmt | tuple[U.Stmt, ...]:
        """A yielded matmul result narrowed by out_dtype is the user's dtype, as every other
        reader sees it (a loop carry or an if result of the FP32 tile would live in Acc, and
        the other branch's value is the narrow one)."""
        if self._state is None:
            return super().visit_YieldStmt(node)
        pre: list[U.Stmt] = []
        values = tuple(self._narrowed_read(self.visit_Expr(v), node.span, pre) for v in node.values)
        return (*pre, U.YieldStmt(values=values, span=node.span))

    @override
    def visit_IfStmt(self, node: T.IfStmt) -> U.Stmt | tuple[U.Stmt, ...]:
        if self._state is None:
            return super().visit_IfStmt(node)
        cond = self.visit_Expr(node.cond)
        outer = self._scope()
        then_body = self.visit_Stmt_block(node.then_body)
        self._restore(outer)
        else_body = self.visit_Stmt_block(node.else_body)
        self._restore(outer)
        then_types = [_expr_type(v) for v in _yielded(then_body)]
        else_types = [_expr_type(v) for v in _yielded(else_body)]
        for result, t_type, e_type in zip(node.results, then_types, else_types):
            if isinstance(t_type, TileType) != isinstance(e_type, TileType):
                raise _error(node, f"if-result `{result.name}` is an on-chip tile in one branch and a GM tensor "
                                   "in the other", "compute the value the same way in both branches")
        results = tuple(self._bind(r, t) for r, t in zip(node.results, then_types))
        return U.IfStmt(cond=cond, then_body=then_body, else_body=else_body, results=results, span=node.span)

    @override
    def visit_ReturnStmt(self, node: T.ReturnStmt) -> U.Stmt | tuple[U.Stmt, ...]:
        state = self._state
        if state is None:
            return super().visit_ReturnStmt(node)
        pre: list[U.Stmt] = []
        values: list[U.Expr] = []
        for index, value in enumerate(node.values):
            converted = self.visit_Expr(value)
            if isinstance(_expr_type(converted), TileType) and isinstance(converted, U.Var):
                converted = self._exit_store(index, converted, node.span, pre)
            values.append(converted)
        return (*pre, U.ReturnStmt(values=tuple(values), span=node.span))

    def _exit_store(self, index: int, tile: U.Var, span: Span, pre: list[U.Stmt]) -> U.Var:
        """Store a returned tile into a new Out parameter; the function returns the stored tensor."""
        state = self._require_state()
        ret_type = state.function.return_types[index]
        if not isinstance(ret_type, TensorType):
            raise _error(state.function, f"return value {index} of `{state.function.name}` is a tile but the "
                                         f"function is declared to return {ret_type}",
                         "declare the return type as a pl.Tensor")
        out = state.out_params.get(index)
        if out is None:
            out = U.Var(state.fresh(f"ret{index}_out"), ret_type, span=state.function.span)
            state.out_params[index] = out
        zeros = index_list([0] * len(ret_type.shape), span)
        store = self._call("tile.store", (tile, zeros, out), (), span)
        stored = U.Var(state.fresh(f"ret{index}_store"), store.type, span=span)
        pre.append(U.AssignStmt(target=stored, value=store, span=span))
        self.bump("exit_stores")
        return stored

    # -- calls ----------------------------------------------------------------------------------

    def _convert_call(self, call: T.Call, target: T.Var | None, pre: list[U.Stmt]) -> U.Call:
        tile_expansion = TILE_EXPANSIONS.get(call.op)
        if tile_expansion is not None:
            return tile_expansion(self, call, target, pre)
        if call.op in ("tile.load", "tile.store"):
            on_chip = self._on_chip_transfer(call)
            if on_chip is not None:
                return on_chip
        if not call.op.startswith("tensor."):
            # Hand-written tile code (or system ops) passes through; its operands may be renamed.
            args = tuple(self.visit_Expr(a) for a in call.args)
            self._check_gm_operands(call, args)
            if call.op == "system.syncall":
                args = self._syncall_workspaces(call, args, pre)
            if call.op == "tile.gather" and len(args) in (2, 3) \
                    and all(isinstance(_expr_type(a), TileType) for a in args):
                # The index form's scratch is the compiler's (the operator catalogue: "compiler-
                # managed scratch"; PTOAS: "index-form tgather expects both indices and tmp"):
                # a tile of the indices' shape and element type, as tensor.gather's lowering
                # allocates; an index narrowed by set_validshape is gathered over its whole rows.
                return self._gather_whole_rows(args[0], args[1], args[2] if len(args) == 3 else None, call.span, pre)
            converted = self._call(call.op, args, call.attrs, call.span, fallback=call.type)
            return self._gather_mask_whole_rows(converted, pre) if call.op == "tile.gather_mask" else converted
        if call.op not in REGISTRY:
            raise self._unsupported(call)
        opdef = REGISTRY.get(call.op)
        if call.op in SCALAR_ACCESS_TILE_FORM or call.op in GM_ONLY_OPS:
            return self._convert_scalar_access(call)
        if call.op in HOST_ONLY_OPS:
            raise _error(call, HOST_ONLY_OPS[call.op][0], HOST_ONLY_OPS[call.op][1])
        conversion = opdef.to_tile
        if conversion is None:
            raise self._unsupported(call)
        if conversion.self_loading:
            converter = SELF_LOADING_CONVERTERS.get(call.op)
            if converter is None:
                raise self._unsupported(call)
            return converter(self, call, target, pre)
        converted = self._convert_default(call, opdef, conversion, target, pre)
        if converted.op in ("tile.cmp", "tile.cmps"):
            return self._ordering_by_equality(converted, pre)
        return self._gather_mask_whole_rows(converted, pre) if converted.op == "tile.gather_mask" else converted

    def _ordering_by_equality(self, compare: U.Call, pre: list[U.Stmt]) -> U.Call:
        """An INT32 ordering compare (lt / le / gt / ge) as the min / max of its operands compared
        for (in)equality with the right one (`ORDERING_BY_EQUALITY`: x < y is min(x, y) != y):
        A2/A3's TCMP / TCMPS compare INT32 for equality whatever the mode (tile.cmp's target
        rules refuse the direct form there). Exact for every INT32, so one lowering for both
        targets."""
        lhs, rhs = compare.args[0], compare.args[1]
        ty = _expr_type(lhs)
        mode = cmp_mode(compare.attrs)
        if not isinstance(ty, TileType) or ty.dtype is not DataType.INT32 or mode not in ORDERING_BY_EQUALITY:
            return compare
        extreme, equality = ORDERING_BY_EQUALITY[mode]
        op = f"tile.{extreme}s" if compare.op == "tile.cmps" else f"tile.{extreme}"
        bound = self._temp(f"cmp_{extreme}", self._call(op, (lhs, rhs), (), compare.span), pre)
        attrs = tuple((k, v) for k, v in compare.attrs if k != "cmp_type") + (("cmp_type", CMP_MODES.index(equality)),)
        self.bump("ordering_compares_by_equality")
        return self._call(compare.op, (bound, rhs), attrs, compare.span)

    def _on_chip_transfer(self, call: T.Call) -> U.Call | None:
        """A hand-written tile.load from, or tile.store into, an InCore-local tensor that this
        pass has turned into a tile: the data is already on chip, so the load is a window of
        that tile (tile.slice) and the store writes a window of it (tile.assemble). None when
        the tensor is still a GM tensor (the ordinary load / store)."""
        args = tuple(self.visit_Expr(a) for a in call.args)
        if call.op == "tile.load":
            source = args[0]
            if not isinstance(_expr_type(source), TileType):
                return None
            if any(k == "packed" and v for k, v in call.attrs):
                raise _error(call, "a packed N-D load of an InCore-local tensor is not supported yet",
                             "load from a kernel parameter, or compute the 2-D value directly")
            self.bump("on_chip_loads")
            return self._call("tile.slice", (source, args[2], args[1], *args[3:4]), (), call.span)
        target = args[2]
        if not isinstance(_expr_type(target), TileType):
            return None
        if any(k in ("window", "atomic") and v not in (None, "none") for k, v in call.attrs):
            raise _error(call, "an N-D or atomic store into an InCore-local tensor is not supported yet",
                         "store into a kernel parameter, or assemble the 2-D tile without window= / atomic=")
        self.bump("on_chip_stores")
        return self._call("tile.assemble", (target, args[0], args[1]), (), call.span)

    @staticmethod
    def _check_gm_operands(call: T.Call, args: Sequence[U.Expr]) -> None:
        """A tile or system op's `tensor` operand (a GM workspace, a gather's source) names a GM
        tensor: a tensor value the kernel computed lives on chip (it converts to a tile), so
        passing it is the user's error, said at the call rather than by a later verifier."""
        if call.op not in REGISTRY:
            return
        opdef = REGISTRY.get(call.op)
        for index, (arg, converted) in enumerate(zip(call.args, args)):
            if index >= len(opdef.operands) and not (opdef.operands and opdef.operands[-1].variadic):
                break
            decl = opdef.operand_decl(index)
            if decl.kind != "tensor" or not isinstance(type_of(converted), TileType):
                continue
            raise _error(call, f"`{call.op}` operand `{decl.name}` must be a GM tensor (a kernel parameter), but "
                               f"`{getattr(arg, 'name', arg)}` is a tensor the kernel computed, which lives on chip",
                         "pass a tensor parameter of the kernel (write the value into one first with pl.store / "
                         "pl.assemble if it must be in GM)")

    def _unsupported(self, call: T.Call) -> CompileError:
        supported = sorted(op.name for op in REGISTRY if op.prefix == "tensor" and
                           (op.to_tile is not None or op.name in SCALAR_ACCESS_TILE_FORM or op.name in GM_ONLY_OPS))
        return _error(call, f"`{call.op}` has no tile lowering in an InCore function",
                      f"rewrite it with supported tensor ops ({', '.join(supported)}) or hand-written tile.* ops")

    def _convert_default(self, call: T.Call, opdef: OpDef, conversion: TileConversion, target: T.Var | None,
                         pre: list[U.Stmt]) -> U.Call:
        tile_op = self._dispatch(call, conversion)
        bridged = {t.arg: t for t in conversion.tile_inputs}
        self._check_cube_alignment(call, conversion)
        args: list[U.Expr] = []
        for index, arg in enumerate(call.args):
            tile_input = bridged.get(index)
            if tile_input is not None and isinstance(type_of(arg), TensorType):
                args.append(self._bridge(call, tile_input, arg, target, pre))
            else:
                args.append(self._operand(call, index, arg, pre))
        for position, converted_arg in enumerate(args[:len(call.args)]):
            if declines_boxed_column(opdef, position) and _is_boxed_column(_expr_type(converted_arg)):
                raise self._boxed_column_refusal(call, call.args[position], converted_arg)
        if tile_op == conversion.col_broadcast_op and args and _is_boxed_column(_expr_type(args[0])):
            # An [m, 1] column by a [1, 1] value, the column a cube result boxed a fractal wide:
            # a column broadcast would want one value per physical column, so the value is
            # expanded over the column and the op runs element-wise (as `_onto_boxed_column` does).
            tile_op = conversion.tile_op
            self.bump("boxed_column_broadcasts")
        tile_op, args = self._one_column_by_one_value(call, tile_op, args, pre)
        args = self._per_column_operand_over_box(call, tile_op, args, pre)
        if tile_op == conversion.tile_op and conversion.row_broadcast_op is not None:
            args = self._broadcast_operands(call, args, pre)
        tile_op, args = self._boxed_row_operand(call, tile_op, args, pre)
        args = self._boxed_per_column_operand(call, tile_op, args, pre)
        if REGISTRY.is_reshape(tile_op) and args:
            same = self._same_shape_reshape(call, args)
            if same is not None:
                args = same
            else:
                args[0] = self._logical_window(call, args[0], pre)
                if len(args) == 3 and target is not None:
                    self._require_state().narrowing_reshapes[target.name] = (
                        self._unnarrowed_source(call.args[0], args[0]), args[1])
        if tile_op == "tile.set_validshape" and target is not None and isinstance(args[0], U.Var) \
                and isinstance(args[0].type, TileType) and args[0].name not in self._require_state().views:
            self._require_state().revalidations[target.name] = args[0]
        args = self._reshapes_read_past_their_valid_region(call, tile_op, args, pre)
        args = self._broadcast_lhs_over_result(call, tile_op, args, pre)
        # After the lhs is widened over the result: the row is narrowed to the columns the
        # instruction computes, the lhs's as it is handed over (finding a6cedd34c5).
        args = self._per_column_operand_over_lhs_columns(call, tile_op, args, pre)
        args = self._revalidations_read_past_their_valid_region(call, tile_op, args, pre)
        args = self._views_read_past_their_valid_region(call, tile_op, args, pre)
        self._check_reinterpret(call, tile_op)
        wants_scratch = conversion.scratch_when is None or bool(dict(opdef.with_defaults(call.attrs))[conversion.scratch_when])
        if conversion.scratch_like is not None and wants_scratch:
            args.append(self._scratch_like(args[conversion.scratch_like], call, pre))
        tile_def = REGISTRY.get(tile_op)
        attrs = tuple((k, v) for k, v in call.attrs if tile_def.attr_decl(k) is not None)
        self.bump("ops_converted")
        try:
            converted = self._call(tile_op, tuple(args), attrs, call.span)
        except CompileError as err:
            local: list[U.Stmt] = []
            try:
                dense = self._onto_cube_result(call, tile_def, args, local)
                if dense is None:
                    raise err
                converted = self._call(tile_op, tuple(dense), attrs, call.span)
            except CompileError:
                raise self._accumulator_refusal(call, tile_def, args, err) from None
            pre.extend(local)
            self.bump("boxed_operands_met")
        return self._logical_valid(call, converted, pre)

    def _onto_cube_result(self, call: T.Call, tile_def: OpDef, args: list[U.Expr],
                          pre: list[U.Stmt]) -> list[U.Expr] | None:
        """The operands of a vector op whose deduction refused them as they are, made to agree
        with the cube results among them: each such result is read through the window of its
        logical extent (`_logical_windows`), and a dense [m, 1] column meeting a boxed N = 1
        column is spread over it (`_onto_boxed_column`); None when no operand is a cube result."""
        windows = self._logical_windows(call, tile_def, args)
        operands = [a for a, _ in windows] if windows is not None else list(args)
        pre.extend(stmt for _, stmt in windows or () if stmt is not None)
        target = next((_expr_type(a) for a in operands if _is_boxed_column(_expr_type(a))), None)
        read = [i for i in range(len(operands)) if _reads_on_vec(tile_def, i) and isinstance(target, TileType)
                and getattr(_expr_type(operands[i]), "dtype", None) == target.dtype]
        spread = self._onto_boxed_column(call, [operands[i] for i in read], pre)
        changed = windows is not None
        for i, value in zip(read, spread):
            changed = changed or value is not operands[i]
            operands[i] = value
        return operands if changed else None

    def _boxed_column_refusal(self, call: T.Call, arg: T.Expr, value: U.Expr) -> CompileError:
        ty, logical = _expr_type(value), type_of(arg)
        shape = list(logical.shape) if isinstance(logical, TensorType) else "?"
        boxed = list(ty.shape) if isinstance(ty, TileType) else "?"
        opdef = REGISTRY.get(call.op)
        what = ("a scatter reads a dense operand" if reads_operands_unboxed(opdef) else
                "its first operand must be valid in all its physical columns" if opdef.semantics == ("concat",) else
                "it sorts its source's physical rows against an index of the same shape")
        return _error(call, f"not supported yet: `{call.op}` of `{getattr(arg, 'name', _base_name(value))}`, a cube "
                            f"result of shape {shape} that lives boxed as {boxed} (its N = 1 is rounded up to a "
                            f"whole fractal box): {what}, and no vector op copies a boxed column into a column vector",
                      "store the matmul result and use it in the next kernel, or give the matmul an N that is a "
                      "multiple of 16")

    def _logical_windows(self, call: T.Call, tile_def: OpDef,
                         args: list[U.Expr]) -> list[tuple[U.Expr, U.Stmt | None]] | None:
        """The operands with each cube result whose M or N is rounded up to a fractal box
        (physical [32, 32] valid [20, 20] for the user's [20, 20]) replaced by the zero-copy
        window of its logical extent, for a vector op that needs its operands' physical shapes
        to agree (an element-wise op or a concat meeting a dense value). A window is a view: it
        reads the boxed tile's elements in place at that tile's row pitch. A boxed N = 1 column
        keeps its physical columns (a one-column window would be a column vector of another
        layout; the row-expand paths read the boxed column as it is). Each entry pairs the operand with the
        statement defining its window (None when it is unchanged); None when no operand is such
        a cube result."""
        state = self._require_state()
        windows: list[tuple[U.Expr, U.Stmt | None]] = []
        span = call.span
        for index, arg in enumerate(args):
            ty = _expr_type(arg)
            logical = type_of(call.args[index]) if index < len(call.args) else None
            if not _reads_on_vec(tile_def, index) or not isinstance(ty, TileType) \
                    or not isinstance(logical, TensorType) \
                    or len(ty.shape) != 2 or len(logical.shape) != 2 \
                    or not all(isinstance(v, int) for v in ty.valid_extents):
                windows.append((arg, None))
                continue
            rows = min(int(logical.shape[0]), int(ty.shape[0]))
            cols = int(ty.shape[1]) if logical.shape[1] == 1 else min(int(logical.shape[1]), int(ty.shape[1]))
            if (rows, cols) == tuple(ty.shape):
                windows.append((arg, None))
                continue
            valid = (min(int(ty.valid[0]), rows), min(int(ty.valid[1]), cols))
            window = self._call("tile.slice", (arg, index_list((rows, cols), span), index_list((0, 0), span),
                                               index_list(valid, span)), (), span)
            var = U.Var(state.fresh(f"{_base_name(arg)}_window"), window.type, span=span)
            windows.append((var, U.AssignStmt(target=var, value=window, span=span)))
        if all(stmt is None for _, stmt in windows):
            return None
        return windows

    @staticmethod
    def _accumulator_refusal(call: T.Call, tile_def: OpDef, args: list[U.Expr], err: CompileError) -> CompileError:
        """A matmul_acc whose accumulator is not a cube result (a vector op's value, in its dense
        shape where the product is boxed a fractal taller): an accumulator lives in Acc, which
        only the cube writes, so it is the user's program that cannot be placed; any other
        deduction error is returned as it is."""
        names = tile_def.operand_names
        if "acc" not in names or "operand 'acc'" not in str(err):
            return err
        acc = call.args[names.index("acc")]
        name = acc.name if isinstance(acc, T.Var) else "its accumulator"
        return _error(call, f"`{call.op}` accumulates onto `{name}`, which is not a matmul result: an accumulator "
                            "lives in Acc, which only the cube unit writes, and no target moves a vector value "
                            "there", f"seed the accumulation with pl.matmul (or a +0.0 pl.full, which becomes an "
                                    f"empty seed) and add `{name}` to the result with pl.add")

    def _logical_valid(self, call: T.Call, result: U.Call, pre: list[U.Stmt]) -> U.Call:
        """The tile result with the tensor result's valid region, wherever the tile op's
        deduction makes more of it valid than the tensor op's. A boxed tile (a matmul result
        whose M / N is rounded up to a fractal box) holds the user's value in its valid region
        only; an op that makes its whole tile valid (fillpad) would otherwise let the box's
        extra rows / columns into what its consumers read (a reduction sums them, a row
        broadcast finds more rows than its other operand), so the result is narrowed back to
        the logical extent. The shapes need not differ: tensor.matmul_acc's result is its
        accumulator (so a re-validated accumulator keeps its narrow valid region), while
        tile.matmul_acc's valid region is the product's."""
        logical, ty = call.type, result.type
        if not isinstance(logical, TensorType) or not isinstance(ty, TileType) or len(ty.shape) != 2 \
                or len(logical.shape) != 2 or REGISTRY.is_view(result.op) \
                or not all(isinstance(v, int) for v in (*ty.valid_extents, *logical.valid_extents)):
            return result
        wanted = tuple(int(v) for v in logical.valid)
        if REGISTRY.get(result.op).semantics[:1] == ("compare",) and int(ty.valid[0]) < wanted[0]:
            raise _compare_rows_refusal(call, int(ty.valid[0]), wanted[0])
        if tuple(ty.valid) == wanted or any(int(v) < w for v, w in zip(ty.valid, wanted)):
            return result
        boxed = tuple(ty.shape) != tuple(logical.shape)
        full = self._temp(f"{call.op.rsplit('.', 1)[-1]}_{'boxed' if boxed else 'full'}", result, pre)
        self.bump("boxed_results_narrowed" if boxed else "results_narrowed")
        return self._call("tile.set_validshape", (full, _index(wanted[0], call.span), _index(wanted[1], call.span)),
                          (), call.span)

    def _broadcast_lhs_over_result(self, call: T.Call, tile_op: str, args: list[U.Expr],
                                   pre: list[U.Stmt]) -> list[U.Expr]:
        """A broadcast op (row_expand_* / col_expand_*) computes over its lhs's valid region, while
        the tensor op it lowers computes over the tensor result's (full-shape when the operands'
        valid regions differ: `tensor.add(x_valid_1x1, y[1, 1])` is valid [1, 16]). An lhs valid
        over less than the result is widened to the result's region first (set_validshape: its
        padding is data there, which DefinedReads proved on the tensor program)."""
        logical = call.type
        lhs = _expr_type(args[0]) if args else None
        # The user's lhs of the result's shape, whatever its tile's physical one (a cube-boxed
        # product is [112, 32] for the user's [100, 32]: finding c2d27eb707).
        if REGISTRY.get(tile_op).semantics[:1] not in _BROADCAST_FAMILIES or not isinstance(logical, TensorType) \
                or not isinstance(lhs, TileType) or len(lhs.shape) != 2 \
                or not _has_logical_shape(call.args[0], logical.shape) \
                or not all(isinstance(v, int) for v in (*lhs.valid_extents, *logical.valid_extents)):
            return args
        wanted = tuple(int(v) for v in logical.valid)
        if all(int(v) >= w for v, w in zip(lhs.valid, wanted)):
            return args
        span = call.span
        state = self._require_state()
        if isinstance(args[0], U.Var) and args[0].name in state.views:
            # A view carries its valid extent in its own type (ViewLegality): it is re-taken over
            # the result's region, a window of the same source at the same offset.
            wider = self._view_over(call, args[0], wanted, pre)
            self.bump("broadcast_lhs_widened")
            return [wider, *args[1:]]
        widened = self._temp(f"{_base_name(args[0])}_over_result", self._call(
            "tile.set_validshape", (args[0], _index(wanted[0], span), _index(wanted[1], span)), (), span), pre)
        self.bump("broadcast_lhs_widened")
        return [widened, *args[1:]]

    def _view_over(self, call: T.Call, view: U.Var, wanted: tuple[int, ...], pre: list[U.Stmt]) -> U.Expr:
        """The view `view` taken again valid over `wanted` (`_retaken`); a view that cannot be is
        declined at the user's line."""
        wider = self._retaken(call, view, wanted, pre)
        if wider is not None:
            return wider
        made = self._require_state().view_calls.get(view.name)
        what = made.op if made is not None else "a"
        raise _error(call, f"not supported yet: `{call.op}` broadcasting `{_base_name(view)}` ({what} view valid "
                           f"over {list(cast(TileType, view.type).valid)}) over its result's valid region "
                           f"{list(wanted)}: a view carries its valid extent in its own type, and this one cannot "
                           "be taken again over that region",
                     "give the view the valid_shape the result needs, or compute on a copy of it")

    def _retaken(self, call: T.Call, value: U.Expr, wanted: tuple[int, ...], pre: list[U.Stmt]) -> U.Expr | None:
        """`value` as a tile valid over `wanted`, read past its valid region where DefinedReads
        proved the bytes under it hold data (None when it cannot be made so). No set_validshape
        widens a view handle (ViewLegality; PTOAS), so a view is taken again over `wanted` by its
        registry fact (`ViewValid`): its source first made valid over the region the view needs
        of it (recursively: a view of a view, a set_validshape-narrowed tile re-validated, any
        other tile set_validshape'd), then the view with its valid operands stating `wanted`, or,
        for a view whose valid region follows its source's (a reinterpretation, a transpose
        view), the view of the wider source. The user's `reinterpret_view(reshape(x, s, v))` read
        over its whole shape is `reinterpret_view(reshape(x, s, whole))` (finding 9f903e5108)."""
        ty = _expr_type(value)
        if not isinstance(ty, TileType) or len(wanted) != len(ty.shape) \
                or any(not isinstance(v, int) for v in ty.valid_extents) \
                or any(w > int(d) for w, d in zip(wanted, ty.shape)):
            return None
        if tuple(int(v) for v in ty.valid) == tuple(wanted):
            return value
        state, span = self._require_state(), call.span
        name = value.name if isinstance(value, U.Var) else ""
        made = state.view_calls.get(name)
        # The narrowed values are known by the user's name, the views by their tile's.
        user = next((n for n, v in state.env.items() if v is value), "")
        if made is None:
            if user in state.revalidations:
                under = state.revalidations[user]
                if tuple(cast(TileType, under.type).shape) == tuple(ty.shape):
                    self.bump("revalidations_read_whole")
                    return self._temp(f"{_base_name(value)}_read", self._call(
                        "tile.set_validshape", (under, *(_index(e, span) for e in wanted)), (), span), pre)
            if user in state.narrowing_reshapes:
                base, shape = state.narrowing_reshapes[user]
                self.bump("narrowing_reshapes_read_whole")
                return self._temp(f"{_base_name(value)}_read", self._call(
                    "tile.reshape", (base, shape, index_list(wanted, span)), (), span), pre)
            if name in state.views or not isinstance(value, U.Var):
                return None  # a view whose making is not known here
            return self._temp(f"{_base_name(value)}_read", self._call(
                "tile.set_validshape", (value, *(_index(e, span) for e in wanted)), (), span), pre)
        fact = REGISTRY.get(made.op).view_valid
        source = made.args[0] if made.args else None
        source_type = _expr_type(source) if source is not None else None
        if fact is None or source is None or not isinstance(source_type, TileType) \
                or any(not isinstance(v, int) for v in source_type.valid_extents):
            return None
        region = fact.source_region(source_type, ty, made.args, made.attrs, tuple(wanted))
        if region is None:
            return None
        if not fact.source_fits(source_type.valid, region):
            wider = self._retaken(call, source, region, pre)
            if wider is None:
                return None
            source = wider
        args = fact.stated((source, *made.args[1:]), wanted, lambda region: index_list(tuple(region), span),
                           lambda extent: _index(extent, span))
        if args is None:
            return None
        try:
            again = self._call(made.op, tuple(args), made.attrs, span)
        except CompileError:
            return None
        again_type = again.type
        if not isinstance(again_type, TileType) or tuple(again_type.valid) != tuple(wanted):
            return None
        self.bump("views_taken_again")
        var = self._temp(f"{_base_name(value)}_over", again, pre)
        if REGISTRY.makes_view_handle(again.op):
            state.views[var.name] = state.views.get(name, call)
            state.view_calls[var.name] = again
        return var

    def _boxed_row_operand(self, call: T.Call, tile_op: str, args: list[U.Expr],
                           pre: list[U.Stmt]) -> tuple[str, list[U.Expr]]:
        """A row-expand op whose per-row operand lives boxed (a matmul result with N = 1 is a
        tile a fractal of columns wide whose valid region is one column): the vector unit's
        row-expand binary ops read that operand as a dense [m, 1] column (or as 32-byte rows of
        copies), which a boxed column is not. Its valid region is what the user computed, so it is
        first broadcast over the other operand's shape by tile.row_expand (which reads element 0
        of every row at the tile's row pitch) and the op runs as its element-wise twin."""
        semantics = REGISTRY.get(tile_op).semantics
        row = _expr_type(args[1]) if len(args) > 1 else None
        if semantics[:1] not in (("row_expand",), ("row_expdif",)) or not isinstance(row, TileType) \
                or not _is_boxed_column(row):
            return tile_op, args
        twin = next((op.name for op in REGISTRY if op.prefix == "tile" and op.semantics == ("binary", semantics[-1])),
                    None)
        if twin is None and semantics[:1] == ("row_expdif",):
            # exp(x - row) has no element-wise instruction; it is the element-wise difference then
            # exp, which is the op's meaning (NUMERICS: the difference rounds first), bit for bit.
            sub = _tile_by_semantics(("binary", "sub"))
            exp = _tile_by_semantics(("unary", "exp"))
            if sub is not None and exp is not None:
                expanded = self._temp(f"{_base_name(args[1])}_rows",
                                      self._call("tile.row_expand", (args[0], args[1]), (), call.span), pre)
                diff = self._temp(f"{_base_name(args[0])}_dif",
                                  self._call(sub, (args[0], expanded), (), call.span), pre)
                self.bump("boxed_row_operands")
                return exp, [diff]
        if twin is None:
            raise _error(call, f"not supported yet: `{call.op}` with a per-row operand that is a cube result "
                               f"boxed as {list(row.shape)} (its N = 1 is rounded up to a whole fractal box)",
                         "store the matmul result and read it back in the next kernel")
        expanded = self._temp(f"{_base_name(args[1])}_rows",
                              self._call("tile.row_expand", (args[0], args[1]), (), call.span), pre)
        self.bump("boxed_row_operands")
        return twin, [args[0], expanded]

    def _one_column_by_one_value(self, call: T.Call, tile_op: str, args: list[U.Expr],
                                 pre: list[U.Stmt]) -> tuple[str, list[U.Expr]]:
        """A column-expand op (col_expand, col_expand_<op>, col_expand_expdif) of a single
        column by its one per-column value ([m, 1] by [1, 1]) whose column is a cube result with
        N = 1, boxed a fractal of columns wide: the instruction wants one value per physical
        column, which a [1, 1] value is not. On one column the op is its row twin (row_expand,
        row_expand_<op>, row_expand_expdif) with the value spread down the column (one value per
        row), which reads the boxed column's valid region as `_boxed_row_operand`'s do."""
        semantics = REGISTRY.get(tile_op).semantics
        if len(args) < 2 or semantics[:1] not in _COLUMN_BROADCASTS:
            return tile_op, args
        lhs, value = _expr_type(args[0]), _expr_type(args[1])
        logical, logical_value = type_of(call.args[0]), type_of(call.args[1])
        if not _is_boxed_column(lhs) or not isinstance(value, TileType) or not isinstance(logical, TensorType) \
                or not isinstance(logical_value, TensorType) or tuple(logical_value.shape) != (1, 1):
            return tile_op, args
        assert isinstance(lhs, TileType)
        if len(value.shape) == 2 and value.shape[1] == lhs.shape[1] and value.valid[0] == 1:
            # A one-value row that spans the physical columns already (an M = 1 cube result,
            # read through its first row by `_boxed_per_column_operand`).
            return tile_op, args
        row_semantics = ("row" + semantics[0][len("col"):], *semantics[1:])
        twin = next((op.name for op in REGISTRY if op.prefix == "tile" and op.semantics == row_semantics), None)
        if twin is None:
            return tile_op, args
        # One value per physical row: a cube result is boxed in M as well (a [20, 1] result is
        # a [32, 16] tile valid over [20, 1]).
        column = self._expand_to(call, args[1], (int(lhs.shape[0]), 1), pre)
        if isinstance(lhs.valid[0], int) and int(lhs.valid[0]) != int(lhs.shape[0]):
            # ... valid over the column's valid rows (PTOAS: src1's valid rows are dst's).
            span = call.span
            column = self._temp(f"{_base_name(args[1])}_rows", self._call(
                "tile.set_validshape", (column, _index(int(lhs.valid[0]), span), _index(1, span)), (), span), pre)
        self.bump("boxed_column_broadcasts")
        return twin, [args[0], column, *args[2:]]

    def _per_column_operand_over_box(self, call: T.Call, tile_op: str, args: list[U.Expr],
                                     pre: list[U.Stmt]) -> list[U.Expr]:
        """A column-expand op whose lhs is a cube result with N rounded up to a fractal box
        (physical [32, 32] valid [20, 20] for the user's [20, 20]) and whose per-column operand
        is dense ([1, 20], one value per logical column): the instruction reads one value per
        physical column (PTOAS wants its source and destination of one shape, so the lhs stays
        boxed), so the row is widened to the box by tile.fillpad_expand and keeps its valid
        columns; its padding meets only the lhs's padding columns, outside the valid region."""
        semantics = REGISTRY.get(tile_op).semantics
        if len(args) < 2 or semantics[:1] not in _COLUMN_BROADCASTS:
            return args
        lhs, row, logical = _expr_type(args[0]), _expr_type(args[1]), type_of(call.args[0])
        if not isinstance(lhs, TileType) or not isinstance(row, TileType) or not isinstance(logical, TensorType) \
                or len(lhs.shape) != 2 or len(row.shape) != 2 or len(logical.shape) != 2 or row.shape[0] != 1 \
                or row.shape[1] == 1 or row.shape[1] != logical.shape[1] or lhs.shape[1] <= logical.shape[1] \
                or not all(isinstance(v, int) for v in row.valid_extents):
            return args
        span = call.span
        filled = self._temp(f"{_base_name(args[1])}_wide", self._call(
            "tile.fillpad_expand", (args[1], index_list((1, lhs.shape[1]), span)), (("pad_value", "zero"),), span),
            pre)
        # The instruction pairs the row's valid columns with the result's (PTOAS checks both).
        widened = self._temp(f"{_base_name(args[1])}_boxed", self._call(
            "tile.set_validshape", (filled, _index(1, span), _index(int(row.valid[1]), span)), (), span), pre)
        self.bump("boxed_row_operands")
        return [args[0], widened, *args[2:]]

    def _boxed_per_column_operand(self, call: T.Call, tile_op: str, args: list[U.Expr],
                                  pre: list[U.Stmt]) -> list[U.Expr]:
        """A column broadcast whose per-column operand ([1, n], one value per column) is a cube
        result with M = 1, boxed a fractal tall (a [16, n] tile valid in its first row): the op
        reads it as a [1, n] row, which is that tile's first row, a zero-copy window of it. The
        window is as wide as the lhs's physical columns: a cube result is boxed in N as well (an
        [16, 1] result is a [16, 16] tile), and the op reads one value per lhs column."""
        semantics = REGISTRY.get(tile_op).semantics
        row = _expr_type(args[1]) if len(args) > 1 else None
        lhs = _expr_type(args[0]) if args else None
        if semantics[:1] not in _COLUMN_BROADCASTS or not isinstance(row, TileType) \
                or len(row.shape) != 2 or row.shape[0] == 1 or row.valid[0] != 1:
            return args
        width = min(row.shape[1], lhs.shape[1]) if isinstance(lhs, TileType) and len(lhs.shape) == 2 \
            else row.shape[1]
        span = call.span
        window = self._temp(f"{_base_name(args[1])}_row0", self._call(
            "tile.slice", (args[1], index_list((1, width), span), index_list((0, 0), span),
                           index_list((1, min(int(row.valid[1]), width)), span)), (), span), pre)
        self.bump("boxed_row_operands")
        return [args[0], window, *args[2:]]

    def _per_column_operand_over_lhs_columns(self, call: T.Call, tile_op: str, args: list[U.Expr],
                                             pre: list[U.Stmt]) -> list[U.Expr]:
        """A column broadcast's [1, n] row valid over more columns than its lhs (a target narrowed
        by set_validshape to 13 of 32 columns): the instruction reads one value per valid lhs
        column, and PTOAS wants the row and the result valid over the same columns, so the row is
        handed over as its window valid over the lhs's valid columns (zero-copy)."""
        if REGISTRY.get(tile_op).semantics[:1] not in _COLUMN_BROADCASTS or len(args) < 2:
            return args
        lhs, row = _expr_type(args[0]), _expr_type(args[1])
        if not isinstance(lhs, TileType) or not isinstance(row, TileType) or len(lhs.shape) != 2 \
                or len(row.shape) != 2 or row.shape[0] != 1:
            return args
        lhs_cols, row_cols = lhs.valid_extents[1], row.valid_extents[1]
        if not isinstance(lhs_cols, int) or not isinstance(row_cols, int) or lhs_cols >= row_cols:
            return args
        span = call.span
        window = self._temp(f"{_base_name(args[1])}_over_lhs", self._call(
            "tile.slice", (args[1], index_list(tuple(int(d) for d in row.shape), span), index_list((0, 0), span),
                           index_list((1, lhs_cols), span)), (), span), pre)
        self.bump("row_operands_narrowed")
        return [args[0], window, *args[2:]]

    @staticmethod
    def _check_cube_alignment(call: T.Call, conversion: TileConversion) -> None:
        batched = unboxed_batched_axis(call.args, call.attrs, conversion)
        if batched is not None:
            index, axis, box = batched
            operand = type_of(call.args[index])
            assert isinstance(operand, TensorType)
            extent = operand.shape[len(operand.shape) - 2 + box.axis]
            side = "left" if index == min(t.arg for t in conversion.tile_inputs) else "right"
            fix = (f"pad K to {-(-extent // box.align) * box.align} with zeros in both operands (the sum is unchanged)"
                   if axis == "K" else
                   f"pad {axis} to {-(-extent // box.align) * box.align} (and ignore the extra result "
                   f"{'rows' if axis == 'M' else 'columns'}), or run one 2-D pl.matmul per batch, which boxes {axis} "
                   "itself")
            raise _error(call, f"not supported yet: a batched `{call.op}` whose {axis} (= {extent}) is not a multiple "
                               f"of {box.align} for {operand.dtype.pl_name}: the batches' matrices are packed one "
                               f"after another, so no batch's {axis} is rounded up to the {side} operand's fractal "
                               "boxes", fix)
        k_gap = unaligned_k(call.args, call.attrs, conversion)
        if k_gap is not None:
            index, box = k_gap
            operand = type_of(call.args[index])
            assert isinstance(operand, TensorType)
            k = operand.shape[box.axis]
            side = "left" if index == min(t.arg for t in conversion.tile_inputs) else "right"
            raise _error(call, f"`{call.op}` needs K (= {k}) to be a multiple of {box.align} for "
                               f"{operand.dtype.pl_name}: no conversion pads the reduction axis (its padding would "
                               f"feed uninitialised memory into the sum), and the {side} operand's cube tiles are "
                               f"boxed {box.align} deep on K",
                         f"pad K to {-(-k // box.align) * box.align} with zeros in both operands (the sum is unchanged)")
        gap = unaligned_n(call.args, call.attrs, conversion)
        if gap is None:
            return
        index, box = gap
        operand = type_of(call.args[index])
        assert isinstance(operand, TensorType)
        n = operand.shape[box.axis]
        raise _error(call, f"`{call.op}` needs N (= {n}) to be a multiple of {box.align} for "
                           f"{operand.dtype.pl_name}: its right operand is not boxed on N, because the "
                           "accumulator must agree with the product on physical N and no boxing reaches "
                           "the tile that allocates it",
                     f"pad N to {-(-n // box.align) * box.align} with zero columns in the right operand and "
                     "the accumulator, and ignore the extra result columns")

    @staticmethod
    def _dispatch(call: T.Call, conversion: TileConversion) -> str:
        if conversion.batched_op is not None and isinstance(call.type, TensorType) and len(call.type.shape) > 2:
            return conversion.batched_op
        if len(call.args) > 1:
            lhs, rhs = type_of(call.args[0]), type_of(call.args[1])
            if conversion.scalar_rhs_op is not None and isinstance(rhs, ScalarType):
                return conversion.scalar_rhs_op
            if conversion.row_broadcast_op is not None and _is_row_broadcast(lhs, rhs):
                return conversion.row_broadcast_op
            if conversion.col_broadcast_op is not None and _is_col_broadcast(lhs, rhs):
                return conversion.col_broadcast_op
        return conversion.tile_op

    def _broadcast_operands(self, call: T.Call, args: list[U.Expr], pre: list[U.Stmt]) -> list[U.Expr]:
        """Operands of a same-shape tile op that the tensor op broadcasts (an lhs [m, 1] / [1, n],
        or both sides) are first expanded to the result shape: the vector unit's expand
        instructions only take the broadcast operand on the right."""
        result = call.type
        if not isinstance(result, TensorType):
            return args
        shapes = {tuple(ty.shape) for ty in (_expr_type(a) for a in args) if isinstance(ty, TileType)}
        if len(shapes) == 1 and all(isinstance(_expr_type(a), TileType) for a in args):
            return args  # one physical shape (e.g. the same cube-boxed accumulator): nothing to broadcast
        box = self._boxed_result_operand(call, args)
        return self._onto_boxed_column(call, [
            arg if _has_logical_shape(call.args[index], result.shape)
            else self._expand_to(call, arg, result.shape, pre) if box is None
            else self._expand_onto_box(call, index, arg, box, pre)
            for index, arg in enumerate(args)], pre)

    def _boxed_result_operand(self, call: T.Call, args: list[U.Expr]) -> TileType | None:
        """The tile of an operand that has the result's logical shape but lives in a larger box (a
        cube result whose M / N is rounded up to a fractal box: [16, 16] for the user's [4, 16]
        or [16, 1]), if any: the op computes on that box, so the operands it broadcasts are spread
        over the box, not over the logical shape (finding 366fe57fed's class: `tensor.add` of a
        narrowed [4, 16] product and a [1, 1] value met a [16, 16] and a [4, 16] tile)."""
        result = call.type
        assert isinstance(result, TensorType)
        for index, arg in enumerate(args):
            ty = _expr_type(arg)
            if isinstance(ty, TileType) and len(ty.shape) == 2 and len(result.shape) == 2 \
                    and _has_logical_shape(call.args[index], result.shape) and tuple(ty.shape) != tuple(result.shape):
                return ty
        return None

    def _expand_onto_box(self, call: T.Call, index: int, value: U.Expr, box: TileType, pre: list[U.Stmt]) -> U.Expr:
        """Operand `index` (`value`), which the tensor op broadcasts, spread over the physical
        `box` of the boxed operand and valid over the tensor result's region, which is what the
        op computes (the box's other elements are no part of the user's value). An operand
        that does not broadcast onto the box (a [1, n] row of a product whose N is boxed wider
        than n) is declined at the user's line."""
        result = call.type
        assert isinstance(result, TensorType)
        ty = _expr_type(value)
        shape = tuple(int(d) for d in box.shape)
        if not isinstance(ty, TileType) or len(ty.shape) > 2 \
                or any(d not in (1, b) for d, b in zip(((1,) * (2 - len(ty.shape)) + tuple(ty.shape)), shape)) \
                or not all(isinstance(v, int) for v in result.valid):
            logical = type_of(call.args[index])
            raise _error(call, f"not supported yet: `{call.op}` broadcasting its operand {index} of shape "
                               f"{list(logical.shape) if isinstance(logical, TensorType) else '?'} "
                               f"over a cube result of shape {list(result.shape)} that lives boxed as {list(shape)} "
                               "(its M / N rounded up to a whole fractal box): the operand does not spread over the box",
                         "store the matmul result and compute on it in the next kernel, or give the matmul an N "
                         "that is a multiple of 16")
        expanded = self._expand_to(call, value, shape, pre)
        wanted = tuple(int(v) for v in result.valid)
        spread = _expr_type(expanded)
        if isinstance(spread, TileType) and tuple(spread.valid) != wanted:
            expanded = self._temp(f"{_base_name(value)}_over_result", self._call(
                "tile.set_validshape", (expanded, *(_index(e, call.span) for e in wanted)), (), call.span), pre)
        self.bump("broadcasts_onto_boxes")
        return expanded

    def _onto_boxed_column(self, call: T.Call, args: list[U.Expr], pre: list[U.Stmt]) -> list[U.Expr]:
        """Operands of one logical [m, 1] column of which one lives boxed (a matmul result with
        N = 1: a tile a fractal of columns wide, valid in its first column) and another dense: the
        dense ones are spread over the boxed one's shape by tile.row_expand (its valid column is
        what they fill), so the element-wise op meets one physical shape."""
        boxed = next((a for a in args if _is_boxed_column(_expr_type(a))), None)
        if boxed is None:
            return args
        target = _expr_type(boxed)
        assert isinstance(target, TileType)
        spread: list[U.Expr] = []
        for arg in args:
            ty = _expr_type(arg)
            if isinstance(ty, TileType) and len(ty.shape) == 2 and ty.shape != target.shape \
                    and tuple(ty.valid) == tuple(target.valid):
                arg = self._temp(f"{_base_name(arg)}_rows", self._call("tile.row_expand", (boxed, arg), (), call.span),
                                 pre)
                self.bump("boxed_row_operands")
            spread.append(arg)
        return spread

    def _expand_to(self, call: T.Call, value: U.Expr, shape: tuple[int, ...], pre: list[U.Stmt]) -> U.Expr:
        ty = _expr_type(value)
        # A cube-boxed operand (a matmul result whose M was rounded up to a box: physical
        # [16, n], valid [m, n]) already has the result's logical shape: nothing to broadcast.
        if not isinstance(ty, TileType) or ty.shape == shape or tuple(ty.valid) == tuple(shape):
            return value
        if len(shape) > 2:
            return self._expand_nd(call, value, ty, shape, pre)
        if len(shape) < 2 and len(ty.shape) < 2:
            # A 1-D result ([n], an [1] operand spread along it, e.g. a 1-D reduction's value):
            # broadcast as the [1, n] row a 1-D tile packs as, and view the row as [n] again
            # (both reshapes move no data).
            row = self._expand_to(call, self._reshaped(call, value, (1,) * (2 - len(ty.shape)) + tuple(ty.shape), pre),
                                  (1,) * (2 - len(shape)) + tuple(shape), pre)
            self.bump("rank_one_broadcasts")
            return self._reshaped(call, row, tuple(shape), pre)
        if len(ty.shape) < len(shape):
            # NumPy broadcasting aligns the trailing axes: an [n] operand of a 2-D op is its
            # [1, n] row (a reshape of a 1-D tile, which packs as one row, moves no data).
            value = self._reshaped(call, value, (1,) * (len(shape) - len(ty.shape)) + tuple(ty.shape), pre)
            ty = _expr_type(value)
            assert isinstance(ty, TileType)
            if ty.shape == shape:
                return value
        if _is_boxed_column(ty) and len(shape) == 2 and ty.valid[0] == shape[0]:
            # A boxed column (see _boxed_row_operand): tile.row_expand reads its valid column.
            zero: U.Expr = (U.ConstFloat(0.0, ty.dtype, span=call.span) if ty.dtype.is_float
                            else U.ConstInt(0, ty.dtype, span=call.span))
            donor = self._temp(f"{_base_name(value)}_shape", self._call(
                "tile.full", (index_list(shape, call.span), zero), (("dtype", ty.dtype),), call.span), pre)
            self.bump("broadcast_expansions")
            return self._temp(f"{_base_name(value)}_bcast", self._call("tile.row_expand", (donor, value), (), call.span),
                              pre)
        rows_cols = _broadcast_kind(ty.shape, shape)
        if rows_cols is None:
            raise _error(call, f"`{call.op}` broadcasts an operand of shape {list(ty.shape)} to {list(shape)}; "
                               "only 2-D [m, 1] / [1, n] / [1, 1] operands broadcast on chip",
                         "reshape the operands to 2-D, or expand explicitly with tensor.row_expand_* / col_expand_*")
        span = call.span
        for axis in rows_cols:
            current = _expr_type(value)
            assert isinstance(current, TileType)
            target = (current.shape[0], shape[1]) if axis == "cols" else shape
            # Multiplying a tile of ones by the broadcast operand is exact (x * 1 == x bit for bit),
            # so the expansion needs no separate broadcast instruction.
            one: U.Expr = (U.ConstFloat(1.0, ty.dtype, span=span) if ty.dtype.is_float
                           else U.ConstInt(1, ty.dtype, span=span))
            ones = self._temp(f"{_base_name(value)}_ones", self._call(
                "tile.full", (index_list(target, span), one), (("dtype", ty.dtype),), span), pre)
            op = "tile.col_expand_mul" if axis == "rows" else "tile.row_expand_mul"
            value = self._temp(f"{_base_name(value)}_bcast", self._call(op, (ones, value), (), span), pre)
            self.bump("broadcast_expansions")
        return value

    def _expand_nd(self, call: T.Call, value: U.Expr, ty: TileType, shape: tuple[int, ...],
                   pre: list[U.Stmt]) -> U.Expr:
        """N-D broadcasting (NumPy rules), one page at a time: result page `index` is the
        operand's page at `index` (0 on the operand's broadcast batch axes), expanded on its last
        two axes like a 2-D operand and assembled into the result. Pages that repeat (a matrix
        shared across batch axes) are sliced and expanded once."""
        span = call.span
        batch_rank = len(shape) - 2
        padded = (1,) * (len(shape) - len(ty.shape)) + tuple(ty.shape)
        operand = self._reshaped(call, value, padded, pre)
        unit_page = (1,) * batch_rank
        zero: U.Expr = (U.ConstFloat(0.0, ty.dtype, span=span) if ty.dtype.is_float
                        else U.ConstInt(0, ty.dtype, span=span))
        # A zero base, not tile.create: an assemble not placed over its target copies all of it.
        result = self._temp(f"{_base_name(value)}_bcast", self._call(
            "tile.full", (index_list(shape, span), zero), (("dtype", ty.dtype),), span), pre)
        pages: dict[tuple[int, ...], U.Expr] = {}
        for index in itertools.product(*(range(extent) for extent in shape[:-2])):
            source_index = tuple(0 if extent == 1 else i for i, extent in zip(index, padded[:-2]))
            page = pages.get(source_index)
            if page is None:
                page = operand
                if padded[:-2] != unit_page:
                    page = self._temp(f"{_base_name(value)}_page", self._call(
                        "tile.slice", (operand, index_list((*unit_page, *padded[-2:]), span),
                                       index_list((*source_index, 0, 0), span)), (), span), pre)
                if padded[-2:] != tuple(shape[-2:]):
                    matrix = self._expand_to(call, self._reshaped(call, page, padded[-2:], pre), tuple(shape[-2:]), pre)
                    page = self._reshaped(call, matrix, (*unit_page, *shape[-2:]), pre)
                pages[source_index] = page
            result = self._temp(f"{_base_name(value)}_bcast", self._call(
                "tile.assemble", (result, page, index_list((*index, 0, 0), span)), (), span), pre)
        self.bump("nd_broadcast_expansions")
        return result

    def _reshaped(self, call: T.Call, value: U.Expr, shape: tuple[int, ...], pre: list[U.Stmt]) -> U.Expr:
        ty = _expr_type(value)
        if isinstance(ty, TileType) and tuple(ty.shape) == tuple(shape):
            return value
        return self._temp(f"{_base_name(value)}_view", self._call(
            "tile.reshape", (value, index_list(shape, call.span)), (), call.span), pre)

    @staticmethod
    def _check_reinterpret(call: T.Call, tile_op: str) -> None:
        """A tensor reinterpret_view whose tile form would view other bytes (an [N, 1] column is
        column-major on chip) is declined at the user's line (`reinterpret_on_chip_gap`)."""
        source = type_of(call.args[0]) if call.args else None
        if REGISTRY.get(tile_op).semantics[:1] != ("reinterpret",) or not isinstance(source, TensorType):
            return
        attrs = dict(call.attrs)
        dtype, shape = attrs.get("dtype"), attrs.get("shape")
        if not isinstance(dtype, DataType):
            return
        gap = reinterpret_on_chip_gap(source, dtype, tuple(shape) if isinstance(shape, tuple) else None)
        if gap:
            raise _error(call, gap, "reshape the column to a row ([1, N]) and reinterpret that: its bytes read "
                                    "in row-major order, as the tensor view's do")

    def _same_shape_reshape(self, call: T.Call, args: list[U.Expr]) -> list[U.Expr] | None:
        """A reshape to its operand's own shape moves nothing: of a cube-boxed tile it reshapes
        the physical box to itself (the valid region stays), instead of needing a buffer holding
        exactly the logical shape (finding 63b875b796)."""
        ty, logical, result = _expr_type(args[0]), type_of(call.args[0]), call.type
        if len(args) != 2 or not isinstance(ty, TileType) or not isinstance(logical, TensorType) \
                or not isinstance(result, TensorType) or tuple(result.shape) != tuple(logical.shape) \
                or tuple(ty.shape) == tuple(logical.shape) or result.valid_shape is not None:
            return None
        self.bump("same_shape_reshapes")
        return [args[0], index_list(tuple(ty.shape), call.span)]

    def _unnarrowed_source(self, arg: T.Expr, value: U.Expr) -> U.Expr:
        """The tile under `value`, the converted operand `arg` of a reshape or view, when `arg`
        names a narrowed value (a narrowing reshape, or a set_validshape of a tile that is not a
        view) still converted to `value`: the reshape's own source, or the tile the
        set_validshape narrows; `value` itself otherwise. A reshape of the narrowed value and
        of the tile under it are views of the same elements, so a consumer reading a
        reshape-of-a-reshape past its valid region reads the base tile re-viewed, not a view
        re-validated (a set_validshape of a view breaks ViewLegality)."""
        state = self._require_state()
        if not isinstance(arg, T.Var) or value is not state.env.get(arg.name):
            return value
        narrowing = state.narrowing_reshapes.get(arg.name)
        if narrowing is not None:
            return narrowing[0]
        return state.revalidations.get(arg.name, value)

    def _operands_read_past(self, call: T.Call, tile_op: str, args: list[U.Expr], known: Mapping[str, object]
                            ) -> Iterator[tuple[int, str, TileType, tuple[int, ...]]]:
        """(index, user's name, tile type, region read) of each operand of an element-wise call
        (one that reads its operands over the result's region) that is still the converted value
        of a name in `known` and is read past its valid region."""
        tile_def, result = REGISTRY.get(tile_op), call.type
        if not tile_def.semantics or tile_def.semantics[0] not in READS_OVER_RESULT_REGION \
                or not isinstance(result, TensorType):
            return
        env = self._require_state().env
        for index, (arg, value) in enumerate(zip(call.args, args)):
            ty = _expr_type(value)
            if not isinstance(arg, T.Var) or arg.name not in known or not isinstance(ty, TileType) \
                    or value is not env.get(arg.name):
                continue
            # Over the user's operand: a cube-boxed tile's physical shape is no broadcast of the
            # result's, its logical one is (finding b3fe3e1a0b).
            logical = type_of(arg)
            read = read_extent(tile_def, index, logical if isinstance(logical, TensorType) else ty, result, call.attrs)
            if read is None or any(e is None for e in read) or not reads_past(read, extents(ty.valid_extents)):
                continue
            yield index, arg.name, ty, tuple(int(e or 0) for e in read)

    def _reshapes_read_past_their_valid_region(self, call: T.Call, tile_op: str, args: list[U.Expr],
                                               pre: list[U.Stmt]) -> list[U.Expr]:
        """An element-wise op reading a narrowing reshape (tensor.reshape(x, s, valid_shape=v))
        past its valid region reads the elements the reshape keeps from its source (finding
        081a3461c9); PTOAS wants the operands of one valid shape (pto.tadd: "expects src0 and src1
        to have the same valid_shape"), and a treshape takes no set_validshape, so the operand is
        the source re-viewed over the region the op reads."""
        narrowing = self._require_state().narrowing_reshapes
        out = list(args)
        for index, name, ty, read in self._operands_read_past(call, tile_op, args, narrowing):
            if tuple(ty.shape) != tuple(cast(TensorType, call.type).shape):
                continue
            out[index] = self._reshape_source_over(args[index], narrowing[name], read, call.span, pre)
        return out

    def _reshape_source_over(self, value: U.Expr, narrowing: tuple[U.Expr, U.Expr], read: tuple[int, ...],
                             span: Span, pre: list[U.Stmt]) -> U.Expr:
        """The narrowing reshape `value` of `narrowing`'s source, re-taken over the region `read`;
        `value` itself when the source holds no more (the read past is the user's: DefinedReads)."""
        source, shape = narrowing
        wide = self._call("tile.reshape", (source, shape), (), span)
        wide_type = wide.type
        assert isinstance(wide_type, TileType)
        if reads_past(read, extents(wide_type.valid_extents)):
            return value
        if extents(wide_type.valid_extents) != read:
            wide = self._call("tile.reshape", (source, shape, index_list(read, span)), (), span)
        self.bump("narrowing_reshapes_read_whole")
        return self._temp(f"{_base_name(value)}_read", wide, pre)

    def _revalidations_read_past_their_valid_region(self, call: T.Call, tile_op: str, args: list[U.Expr],
                                                    pre: list[U.Stmt]) -> list[U.Expr]:
        """An element-wise op reading a set_validshape-narrowed tile past its valid region reads its
        source's bytes there (DefinedReads holds they are written); PTOAS wants the operands of
        one valid shape ("'pto.tadd' op expects src0 and src1 to have the same valid_shape"), so
        the operand is the source, re-validated over the region the op reads when it differs. (A
        row / column broadcast's lhs is widened by `_broadcast_lhs_over_result`.)"""
        semantics = REGISTRY.get(tile_op).semantics
        if semantics and semantics[0] in PER_ROW_OPERAND | PER_COLUMN_OPERAND:
            return args
        revalidations = self._require_state().revalidations
        out = list(args)
        for index, name, ty, read in self._operands_read_past(call, tile_op, args, revalidations):
            out[index] = self._revalidated_over(args[index], ty, revalidations[name], read, call.span, pre)
        return out

    def _views_read_past_their_valid_region(self, call: T.Call, tile_op: str, args: list[U.Expr],
                                            pre: list[U.Stmt]) -> list[U.Expr]:
        """An element-wise op reading a view (a window, a reshape, a reinterpretation, a view of a
        view) past its valid region reads its source's bytes there (DefinedReads holds they are
        data); PTOAS wants the operands of one valid shape, and no set_validshape widens a view, so
        the operand is the view taken again over the region read (`_retaken`). A view that cannot
        be is left as it is: RevalidateReadOperands declines it at the user's line. (A row /
        column broadcast's lhs is widened by `_broadcast_lhs_over_result`.)"""
        semantics = REGISTRY.get(tile_op).semantics
        if semantics and semantics[0] in PER_ROW_OPERAND | PER_COLUMN_OPERAND:
            return args
        state = self._require_state()
        views = {name for name, value in state.env.items() if value.name in state.view_calls}
        out = list(args)
        for index, _name, ty, read in self._operands_read_past(call, tile_op, args, dict.fromkeys(views)):
            if len(read) != len(ty.shape) or any(r > int(d) for r, d in zip(read, ty.shape)):
                continue
            wider = self._retaken(call, args[index], read, pre)
            if wider is not None:
                out[index] = wider
        return out

    def _revalidated_over(self, value: U.Expr, ty: TileType, source: U.Var, read: tuple[int, ...], span: Span,
                          pre: list[U.Stmt]) -> U.Expr:
        """The set_validshape-narrowed `value` (of type `ty`) as the tile `source` it narrows,
        re-validated over the region `read`; `value` itself when the source holds no more (the
        read past is the user's: DefinedReads says so)."""
        source_type = source.type
        assert isinstance(source_type, TileType)
        if tuple(source_type.shape) != tuple(ty.shape) or len(read) != 2 \
                or reads_past(read, extents(source_type.valid_extents)):
            return value
        self.bump("revalidations_read_whole")
        if extents(source_type.valid_extents) == read:
            return source
        wide = self._call("tile.set_validshape", (source, *(_index(e, span) for e in read)), (), span)
        return self._temp(f"{_base_name(value)}_read", wide, pre)

    def _read_whole(self, call: T.Call, index: int, value: U.Expr, pre: list[U.Stmt]) -> U.Expr:
        """`value`, the converted operand `index` of `call`, as a tile valid over the region the
        op reads of it (its registry read extent) when the operand names a narrowed value (a
        narrowing reshape, a set_validshape) read past its valid region and the tile under it
        holds more: tensor.expand_clone reads its source over the target's region (NumPy's
        broadcast_to of the data) as the element-wise ops do (finding b3fe3e1a0b), not only the
        valid region a store of the narrowed tile writes."""
        state = self._require_state()
        arg, span = call.args[index], call.span
        ty, logical = _expr_type(value), type_of(arg)
        if not isinstance(arg, T.Var) or value is not state.env.get(arg.name) or not isinstance(ty, TileType) \
                or not isinstance(logical, TensorType):
            return value
        region = read_extent(REGISTRY.get(call.op), index, logical, call.type, call.attrs)
        if region is None or any(not isinstance(e, int) for e in region) \
                or not reads_past(region, extents(ty.valid_extents)):
            return value
        read = tuple(int(cast(int, e)) for e in region)
        if arg.name in state.narrowing_reshapes:
            return self._reshape_source_over(value, state.narrowing_reshapes[arg.name], read, span, pre)
        if arg.name in state.revalidations:
            return self._revalidated_over(value, ty, state.revalidations[arg.name], read, span, pre)
        if isinstance(value, U.Var) and value.name in state.view_calls and len(read) == len(ty.shape) \
                and all(r <= int(d) for r, d in zip(read, ty.shape)):
            return self._retaken(call, value, read, pre) or value
        return value

    def _logical_window(self, call: T.Call, value: U.Expr, pre: list[U.Stmt]) -> U.Expr:
        """A reshape reads its operand's logical shape; a cube-boxed tile (a matmul result whose M
        was rounded up to a box: physical [16, n], valid [m, n]) has no buffer holding just that
        shape, so reshaping one is declined at the user's line."""
        ty, logical = _expr_type(value), type_of(call.args[0])
        if not isinstance(ty, TileType) or not isinstance(logical, TensorType) or ty.shape == logical.shape:
            return value
        raise _error(call, f"not supported yet: `{call.op}` of `{_base_name(value)}`, a cube result of shape "
                           f"{list(logical.shape)} that lives boxed as {list(ty.shape)} (its M is rounded up to a "
                           f"whole fractal box); a reshape needs a buffer holding exactly {list(logical.shape)}",
                     "store the matmul result and reshape it in the next kernel, or give the matmul an M that "
                     "is a multiple of 16")

    def _scratch_like(self, like: U.Expr, call: T.Call, pre: list[U.Stmt]) -> U.Var:
        """A scratch tile the tile op needs and the tensor op hides (pto.txor's tmp): a fresh
        Vec tile of the operand's shape and dtype."""
        ty = _expr_type(like)
        assert isinstance(ty, TileType)
        create = self._call("tile.create", (index_list(ty.shape, call.span),),
                            (("dtype", ty.dtype), ("target_memory", MemorySpace.Vec)), call.span)
        self.bump("scratch_tiles")
        return self._temp(f"{_base_name(like)}_tmp", create, pre)

    def _syncall_workspaces(self, call: T.Call, args: tuple[U.Expr, ...], pre: list[U.Stmt]) -> tuple[U.Expr, ...]:
        """A soft syncall's on-chip workspaces (SOFT_SYNCALL_TILE_WORKSPACES), which the
        Tensor-level call leaves implicit: one INT32 tile per space, after the GM workspace and
        used_cores (0, the launch's core count, when the call gives none)."""
        if not missing_syncall_workspaces(args, call.attrs):
            return args
        spaces = syncall_tile_workspaces(call.attrs)
        used = args[1] if len(args) > 1 else U.ConstInt(value=0, dtype=DataType.INT32, span=call.span)
        tiles = []
        for space in spaces:
            create = self._call("tile.create", (index_list(SYNCALL_TILE_WORKSPACE_SHAPE, call.span),),
                                (("dtype", SYNCALL_COUNTER_DTYPE), ("target_memory", space)), call.span)
            tiles.append(self._temp(f"syncall_{space.name.lower()}_ws", create, pre))
            self.bump("scratch_tiles")
        return (args[0], used, *tiles)

    def _temp(self, base: str, value: U.Call, pre: list[U.Stmt]) -> U.Var:
        var = U.Var(self._require_state().fresh(base), value.type, span=value.span)
        pre.append(U.AssignStmt(target=var, value=value, span=value.span))
        return var

    def _operand(self, call: T.Call, index: int, arg: T.Expr, pre: list[U.Stmt]) -> U.Expr:
        """A non-bridged operand: index lists and scalars as they are, tensors by their value."""
        value = self._narrowed_read(self.visit_Expr(arg), call.span, pre)
        if isinstance(_expr_type(value), TensorType):
            gap = never_loaded(REGISTRY.get(call.op), index) or "the operator reads it on chip"
            raise _error(call, f"operand {index} of `{call.op}` is a GM tensor, but {gap}",
                         "seed it in the kernel (pl.create_tensor, or the result of a matmul) instead of "
                         "passing a GM tensor")
        return value

    def _bridge(self, call: T.Call, tile_input: TileInput, arg: T.Expr, target: T.Var | None,
                pre: list[U.Stmt]) -> U.Expr:
        """BridgeInputSpaces: the operand as a tile, loaded where its consumer reads it."""
        value = self._narrowed_read(self.visit_Expr(arg), call.span, pre)
        if isinstance(value, U.Var) and isinstance(value.type, TensorType):
            demand = operand_demand(call, tile_input) if tile_input.space_of else self._result_demand(call, target)
            value = self._load_gm(value, demand, call.span, pre)
        elif isinstance(value, U.Var) and isinstance(value.type, TileType) and tile_input.space_of:
            b_trans = tile_input.transpose_attr is not None and bool(attr(call.attrs, tile_input.transpose_attr, False))
            value = self._boxed_on_chip(call, value, operand_demand(call, tile_input), b_trans, pre)
        if tile_input.transpose_attr is not None and attr(call.attrs, tile_input.transpose_attr, False):
            view = self._call("tile.transpose_view", (value,), (), call.span)
            name = self._require_state().fresh(f"{_base_name(value)}_t")
            transposed = U.Var(name, view.type, span=call.span)
            pre.append(U.AssignStmt(target=transposed, value=view, span=call.span))
            self.bump("transpose_views")
            value = transposed
        return value

    def _boxed_on_chip(self, call: T.Call, value: U.Var, demand: SpaceDemand | None, transposed: bool,
                       pre: list[U.Stmt]) -> U.Var:
        """A cube operand computed on chip, boxed as its load would be (`_load_call`): the Vec
        value is written into a zero tile of the boxed extent (a [20, 16] FP32 left operand into
        [32, 16]) whose valid region is the value's, so the move into Mat carries whole boxes
        (mad reads the box's rows past M as zeros, whose products land in accumulator rows no
        one reads). A value already in a cube space, or already boxed, is left as it is.

        A transposed operand (b_trans) is transposed on chip and moves into Mat as the
        transpose, in Mat's own box: its shape there must be whole boxes too (an INT8 [1, 32]
        right operand is boxed [32, 32], not [16, 32], since its transpose's columns are N). Its
        K becomes the transpose's rows, which no zero padding may lengthen (the left operand's K
        stays): a K short of Mat's box rows (8 FP32 columns against 16-row boxes) is declined at
        the user's line."""
        span = call.span
        ty = value.type
        assert isinstance(ty, TileType)
        if demand is None or demand.box is None or len(ty.shape) != 2 \
                or ty.memory_space not in (None, MemorySpace.Vec) or ty.view is not None and ty.view.slayout != "none_box":
            return value
        shape = tuple(int(d) for d in ty.shape)
        physical = demand.box.physical_shape(shape)
        if transposed:
            mat_box = box_shape(implicit_view(demand.space, (physical[1], physical[0])), ty.dtype)
            if mat_box is not None:
                if physical[1] % mat_box[0]:
                    raise _error(call, f"not supported yet: a `{call.op}` operand computed on chip and transposed "
                                       f"(b_trans) whose K (= {physical[1]}) is not a multiple of {mat_box[0]} for "
                                       f"{ty.dtype.pl_name}: its transpose moves into Mat, whose boxes are "
                                       f"{mat_box[0]} rows tall, and K takes no padding",
                                 "compute the operand already transposed and pass b_trans=False, or load it from GM "
                                 f"(a GM operand is transposed in Mat), or pad K to {-(-physical[1] // mat_box[0]) * mat_box[0]} "
                                 "with zeros in both operands")
                physical = (-(-physical[0] // mat_box[1]) * mat_box[1], physical[1])
        valid = ty.valid_extents
        if physical == shape or not all(isinstance(e, int) for e in valid):
            return value
        box = self._zero_tile(f"{value.name}_box", physical, ty.dtype, span, pre)
        filled = self._temp(f"{value.name}_boxed", self._call("tile.assemble", (box, value, index_list((0, 0), span)),
                                                               (), span), pre)
        self.bump("boxed_on_chip_operands")
        return self._temp(f"{value.name}_boxed_valid", self._call(
            "tile.set_validshape", (filled, *(_index(cast(int, e), span) for e in valid)), (), span), pre)

    def _zero_tile(self, base: str, shape: tuple[int, ...], dtype: DataType, span: Span, pre: list[U.Stmt]) -> U.Var:
        """A Vec tile of zeros. One-byte elements are filled as INT16 pairs and re-viewed (A2/A3's
        texpands takes no 8-bit type; a zero is zero bits either way)."""
        fill = DataType.INT16 if dtype.byte_width == 1 and shape[-1] % 2 == 0 else dtype
        fill_shape = (*shape[:-1], shape[-1] // 2) if fill is not dtype else shape
        zero: U.Expr = U.ConstFloat(0.0, fill, span=span) if fill.is_float else U.ConstInt(0, fill, span=span)
        tile = self._temp(base, self._call("tile.full", (index_list(fill_shape, span), zero), (("dtype", fill),), span),
                          pre)
        if fill is dtype:
            return tile
        return self._temp(f"{base}_bytes", self._call("tile.reinterpret_view", (tile,), (("dtype", dtype),), span), pre)

    def _narrowed_read(self, value: U.Expr, span: Span, pre: list[U.Stmt]) -> U.Expr:
        """A matmul result narrowed by out_dtype, as its consumer sees it: the accumulator cast
        with FIXPIPE's round-to-nearest-even (the tile itself stays at accumulator precision)."""
        if not isinstance(value, U.Var):
            return value
        dtype = self._require_state().narrowed.get(value.name)
        if dtype is None:
            return value
        cast = self._call("tile.cast", (value,), (("target_type", dtype), ("mode", "rint")), span)
        self.bump("out_dtype_casts")
        return self._temp(f"{value.name}_{dtype.name.lower()}", cast, pre)

    def _result_demand(self, call: T.Call, target: T.Var | None) -> SpaceDemand | None:
        """A metadata op (set_validshape, reshape) loads its operand where its result is wanted."""
        if target is None or not propagates_demand(REGISTRY.get(call.op)):
            return None
        wanted = self._require_state().demand.get(target.name)
        result_shape = target.type.shape if isinstance(target.type, TensorType) else None
        source = type_of(call.args[0])
        return demand_through_view(wanted, getattr(source, "shape", None), result_shape,
                                   getattr(source, "dtype", DataType.INT8))

    def _load_gm(self, tensor: U.Var, demand: SpaceDemand | None, span: Span, pre: list[U.Stmt]) -> U.Var:
        state = self._require_state()
        shared = state.shares_entry_load(tensor)
        key = (tensor.name, demand)
        if shared and key in state.entry_cache:
            return state.entry_cache[key]
        assert isinstance(tensor.type, TensorType)
        rank = len(tensor.type.shape)
        load = self._load_call(tensor, index_list([0] * rank, span), tensor.type.shape, tensor.type.valid,
                               demand, span)
        tile = U.Var(state.fresh(f"{tensor.name}_tile"), load.type, span=span)
        stmt = U.AssignStmt(target=tile, value=load, span=span)
        if shared:
            state.entry_cache[key] = tile
            state.entry_loads.append(stmt)
            self.bump("entry_loads")
        else:
            pre.append(stmt)
            self.bump("per_use_loads")
        return tile

    def _load_call(self, tensor: U.Expr, offsets: U.Expr, shape: tuple[int, ...], valid: tuple[int, ...] | None,
                   demand: SpaceDemand | None, span: Span) -> U.Call:
        """tile.load of a window: physical extent boxed as demanded, the true one as valid_shape."""
        physical = shape
        if demand is not None and demand.box is not None and len(shape) == 2:
            physical = demand.box.physical_shape(shape)
            if physical != shape:
                self.bump("boxed_loads")
                valid = valid if valid is not None else shape
        args: tuple[U.Expr, ...] = (tensor, offsets, index_list(physical, span))
        if valid is not None and tuple(valid) != tuple(physical):
            args += (index_list(valid, span),)
        attrs: Attrs = (("target_memory", demand.space),) if demand is not None else ()
        return self._call("tile.load", args, attrs, span)

    def _convert_scalar_access(self, call: T.Call) -> U.Call:
        """tensor.read / write / dim: GM accesses keep their tensor form (the D-cache path); on a
        converted (on-chip) value they become the tile form."""
        args = tuple(self.visit_Expr(a) for a in call.args)
        op = call.op
        if args and isinstance(_expr_type(args[0]), TileType):
            tile_form = SCALAR_ACCESS_TILE_FORM.get(op)
            if tile_form is None:
                raise self._unsupported(call)
            tile = _expr_type(args[0])
            assert isinstance(tile, TileType)
            if tile_form == "tile.read" and tile_element_unreadable(tile.dtype):
                raise _error(call, f"not supported yet: reading an element of `{getattr(call.args[0], 'name', '?')}`, "
                                   f"a {tile.dtype.pl_name} value the kernel computed (it lives in a tile, and "
                                   "PTOAS's tgetval reads no unsigned tile: its scalar must be signless and equal the "
                                   "element type)",
                             "read it as the signed type of its width (pl.cast the value, or store it and read the "
                             "GM tensor)")
            op = tile_form
        return self._call(op, args, call.attrs, call.span)

    # -- self-loading converters ------------------------------------------------------------------

    def convert_slice(self, call: T.Call, target: T.Var | None, pre: list[U.Stmt]) -> U.Call:
        # A window of a matmul result narrowed by out_dtype is a window of the narrowed value:
        # the accumulator tile itself stays FP32 (`_narrowed_read`).
        source = self._narrowed_read(self.visit_Expr(call.args[0]), call.span, pre)
        rest = tuple(self.visit_Expr(a) for a in call.args[1:])
        if isinstance(_expr_type(source), TileType):
            return self._call("tile.slice", (source, *rest), (), call.span)
        shape = static_ints(call.args[1])
        if shape is None:
            raise _error(call, "tensor.slice needs a constant shape", "write the shape as a list of integers")
        valid = static_ints(call.args[3]) if len(call.args) > 3 else None
        demand = self._require_state().demand.get(target.name) if target is not None else None
        self.bump("slice_loads")
        if valid is None and len(call.args) > 3:
            # A runtime valid extent: the load takes the same extents (a static read of them would
            # drop the narrowing and copy the whole window).
            if demand is not None and demand.box is not None and demand.box.physical_shape(shape) != shape:
                raise _error(call, "not supported yet: a runtime valid extent on a slice the matmul needs boxed "
                                   "(no compile-time box to round a runtime extent to)",
                             "slice a whole number of boxes, or narrow with a constant valid_shape")
            attrs: Attrs = (("target_memory", demand.space),) if demand is not None else ()
            return self._call("tile.load", (source, rest[1], index_list(shape, call.span), rest[2]), attrs,
                              call.span)
        return self._load_call(source, rest[1], shape, valid, demand, call.span)

    def convert_assemble(self, call: T.Call, target: T.Var | None, pre: list[U.Stmt]) -> U.Call:
        destination = self._narrowed_read(self.visit_Expr(call.args[0]), call.span, pre)
        source = self.visit_Expr(call.args[1])
        offsets = self.visit_Expr(call.args[2])
        if isinstance(source, U.Var) and isinstance(source.type, TensorType):
            source = self._load_gm(source, None, call.span, pre)
        if isinstance(_expr_type(destination), TileType):
            source = self._narrowed_read(source, call.span, pre)  # the destination holds the narrowed dtype
            if attr(call.attrs, "atomic", "none") != "none":
                # tile.assemble has no accumulating form: dropping the attribute would overwrite.
                raise _error(call, "not supported yet: an atomic tensor.assemble into an on-chip value "
                                   f"(`{_base_name(destination)}`); atomic='add' accumulates into a GM tensor",
                             "assemble into a kernel parameter (GM), or add the window explicitly (pl.add)")
            return self._call("tile.assemble", (destination, source, offsets), (), call.span)
        self.bump("assemble_stores")
        atomic: Attrs = (("atomic", "add"),) if attr(call.attrs, "atomic", "none") == "add" else ()
        return self._call("tile.store", (source, offsets, destination), atomic, call.span)

    def convert_expand_clone(self, call: T.Call, target: T.Var | None, pre: list[U.Stmt]) -> U.Call:
        """The source loaded, broadcast on chip to the target's shape (the tensor ops' broadcast
        expansion) and stored over the whole target."""
        destination = self._narrowed_read(self.visit_Expr(call.args[1]), call.span, pre)
        source = self._narrowed_read(self.visit_Expr(call.args[0]), call.span, pre)
        if isinstance(source, U.Var) and isinstance(source.type, TensorType):
            source = self._load_gm(source, None, call.span, pre)
        source = self._read_whole(call, 0, source, pre)
        shape = _expr_type(destination)
        assert isinstance(shape, (TensorType, TileType))
        expanded = (source if _has_logical_shape(call.args[0], tuple(shape.shape))
                    else self._expand_to(call, source, tuple(shape.shape), pre))
        zeros = index_list((0,) * len(shape.shape), call.span)
        if isinstance(shape, TileType):
            return self._call("tile.assemble", (destination, expanded, zeros), (), call.span)
        self.bump("expand_clone_stores")
        return self._call("tile.store", (expanded, zeros, destination), (), call.span)

    def convert_create(self, call: T.Call, target: T.Var | None, pre: list[U.Stmt]) -> U.Call:
        shape = static_ints(call.args[0])
        demand = self._require_state().demand.get(target.name) if target is not None else None
        if demand is None or shape is None:
            return self._call("tile.create", (self.visit_Expr(call.args[0]),), call.attrs, call.span)
        if demand.space is ACCUMULATOR_SPACE:
            return self._boxed_accumulator(call, shape, demand.box, target, pre)
        return self._call("tile.create", (index_list(shape, call.span),),
                          (*call.attrs, ("target_memory", demand.space)), call.span)

    def _boxed_accumulator(self, call: T.Call, shape: tuple[int, ...], box: BoxRequest | None,
                           target: T.Var | None, pre: list[U.Stmt]) -> U.Call:
        """HandleBoxedAccCreate: the accumulator is allocated in Acc at the left operand's boxed M.
        mad lays the product out at pitch ceil(validRow/16)*16, so a padded accumulator is
        declared compact (readers recompute that pitch); its true extent rides on a
        tile.set_validshape because tile.create takes none."""
        physical = box.physical_shape(shape) if box is not None and len(shape) == 2 else shape
        padded = physical != shape
        attrs: Attrs = (*call.attrs, ("target_memory", ACCUMULATOR_SPACE), ("compact", padded))
        create = self._call("tile.create", (index_list(physical, call.span),), attrs, call.span)
        self.bump("accumulators_created")
        if not padded:
            return create
        state = self._require_state()
        base = target.name if target is not None else "acc"
        storage = U.Var(state.fresh(f"{base}_storage"), create.type, span=call.span)
        pre.append(U.AssignStmt(target=storage, value=create, span=call.span))
        self.bump("boxed_accumulators")
        return self._call("tile.set_validshape", (storage, _index(shape[0], call.span), _index(shape[1], call.span)),
                          (), call.span)

    def convert_full(self, call: T.Call, target: T.Var | None, pre: list[U.Stmt]) -> U.Call:
        return self._call("tile.full", tuple(self.visit_Expr(a) for a in call.args), call.attrs, call.span)

    def convert_expands(self, call: T.Call, target: T.Var | None, pre: list[U.Stmt]) -> U.Call:
        """expands(target, scalar): only the target's shape and dtype matter, so a GM target is
        never loaded (tile.full of its shape); an on-chip one takes tile.expands."""
        dest = self._narrowed_read(self.visit_Expr(call.args[0]), call.span, pre)
        scalar = self.visit_Expr(call.args[1])
        ty = _expr_type(dest)
        logical = type_of(call.args[0])
        if isinstance(ty, TileType) and isinstance(logical, TensorType) \
                and (tuple(ty.shape) != tuple(logical.shape) or ty.dtype != logical.dtype):
            # A cube result (boxed taller than its tensor, or held at accumulator precision):
            # its tile is not the value the tensor names, so fill a tile of the tensor's own type.
            full = self._call("tile.full", (index_list(logical.shape, call.span), scalar), (("dtype", logical.dtype),),
                              call.span)
            if logical.valid_shape is None:
                return full
            valid = [e for e in logical.valid_extents if isinstance(e, int)]
            if len(valid) == len(logical.shape) == 2:
                filled = self._temp("expands_full", full, pre)
                return self._call("tile.set_validshape", (filled, *(_index(e, call.span) for e in valid)), (),
                                  call.span)
            # (a runtime or N-D valid region keeps the tile's own expands)
        if isinstance(ty, TileType):
            return self._call("tile.expands", (dest, scalar), (), call.span)
        assert isinstance(ty, TensorType)
        return self._call("tile.full", (index_list(ty.shape, call.span), scalar), (("dtype", ty.dtype),), call.span)

    def convert_ci(self, call: T.Call, target: T.Var | None, pre: list[U.Stmt]) -> U.Call:
        return self._call("tile.ci", tuple(self.visit_Expr(a) for a in call.args), call.attrs, call.span)

    def convert_random(self, call: T.Call, target: T.Var | None, pre: list[U.Stmt]) -> U.Call:
        return self._call("tile.random", tuple(self.visit_Expr(a) for a in call.args), call.attrs, call.span)

    # -- sorting, gathers and scatters ----------------------------------------------------------

    def _on_chip(self, call: T.Call, arg: T.Expr, pre: list[U.Stmt]) -> U.Var:
        """An operand as a Vec tile: a GM tensor is loaded (a computed tile is used as it is)."""
        value = self._narrowed_read(self.visit_Expr(arg), call.span, pre)
        if isinstance(value, U.Var) and isinstance(value.type, TensorType):
            value = self._load_gm(value, SpaceDemand(MemorySpace.Vec), call.span, pre)
        if not isinstance(value, U.Var) or not isinstance(value.type, TileType):
            raise _error(call, f"`{call.op}` needs its operands as tensors or tiles")
        return value

    def _vec_create(self, base: str, shape: tuple[int, ...], dtype: DataType, span: Span, pre: list[U.Stmt]) -> U.Var:
        create = self._call("tile.create", (index_list(shape, span),),
                            (("dtype", dtype), ("target_memory", MemorySpace.Vec)), span)
        return self._temp(base, create, pre)

    def _i32(self, value: int, span: Span) -> U.ConstInt:
        return U.ConstInt(value, DataType.INT32, span=span)

    def _row_offsets(self, shape: tuple[int, ...], stride: int, span: Span, pre: list[U.Stmt]) -> U.Var | None:
        """An INT32 tile of `shape` [R, K] holding r * stride at (r, c) (None for one row),
        built from one linear arange (PyPTO's lowering): ci(0, [1, R*W]) viewed as [R, W],
        // W, * stride, where W is K rounded up to whole 32-byte blocks: a Vec row is padded to
        that pitch, so only a [R, W] view of the arange reads it in row-major order (a [R, K]
        one would not be a zero-copy view); a K narrower than W is the [R, K] window of it."""
        rows, width = shape
        if rows == 1:
            return None
        block = unboxed_row_multiple(DataType.INT32)
        pitch = width if not flat_reshape_gap((1, rows * width), (rows, width), DataType.INT32) \
            else -(-width // block) * block  # an [R, 1] column is contiguous (column-major) as it is
        line = self._temp("lin", self._call("tile.ci", (self._i32(0, span), index_list((1, rows * pitch), span)),
                                            (("dtype", DataType.INT32),), span), pre)
        grid = self._temp("lin2d", self._call("tile.reshape", (line, index_list((rows, pitch), span)), (), span), pre)
        row_ids = self._temp("row_ids", self._call("tile.divs", (grid, self._i32(pitch, span)), (), span), pre)
        base = self._temp("row_base", self._call("tile.muls", (row_ids, self._i32(stride, span)), (), span), pre)
        if pitch == width:
            return base
        window = self._call("tile.slice", (base, index_list((rows, width), span), index_list((0, 0), span)), (), span)
        return self._temp("row_base_window", window, pre)

    def _packed(self, src: U.Var, span: Span, pre: list[U.Stmt]) -> U.Var:
        """An on-chip gather source (or scatter destination) in storage of its own (spec "Flat Gather Lowering": strided
        on-chip windows are packed first): a view of another tile (a column window's rows lie
        its parent's pitch apart, and TGATHER counts the window's own columns) is copied into a
        Vec tile; fresh results, plain aliases and set_validshape keep their storage."""
        made_by = self._require_state().views.get(src.name)
        if made_by is None or str(getattr(made_by, "op", "")).endswith(".set_validshape"):
            return src
        self.bump("gather_source_copies")
        attrs: Attrs = (("target_memory", MemorySpace.Vec),)
        packed = self._temp(f"{src.name}_packed", self._call("tile.move", (src,), attrs, span), pre)
        # The copy keeps the window's placed layout (`languages.views.move_view`), which is its
        # source's, not the one its own shape implies (a one-column window of a row-major tile is
        # row-major, its rows 32 bytes apart): the flat index counts the copy as it is placed.
        placed = REGISTRY.deduce("tile.move", (U.Var(src.name, self._placed_type(src), span=span),), attrs,
                                 placed=True)
        assert isinstance(placed, TileType)
        self._require_state().placed_copies[packed.name] = placed
        return packed

    def _placed_type(self, value: U.Var) -> TileType:
        """`value`'s tile type as InferTileMemorySpace places it, for the facts that depend on its
        layout (a flat index's row pitch: `_pitch`): a view (tile.slice, tile.transpose_view, ...)
        keeps what its source's placed layout makes of it (its view deduced over the source's
        placed type), a copy `_packed` made the layout it keeps, any other tile the implicit view
        of its space (Vec when not placed yet)."""
        state = self._require_state()
        ty = value.type
        assert isinstance(ty, TileType)
        if value.name in state.placed_copies:
            return state.placed_copies[value.name]
        made = state.view_calls.get(value.name)
        if made is not None and made.args and isinstance(made.args[0], U.Var) \
                and isinstance(made.args[0].type, TileType):
            source = made.args[0]
            placed_source = U.Var(source.name, self._placed_type(source), span=source.span)
            deduced = REGISTRY.deduce(made.op, (placed_source, *made.args[1:]), made.attrs, placed=True)
            if isinstance(deduced, TileType) and deduced.view is not None:
                return deduced
        if ty.view is not None:
            return ty
        return make_tile_type(ty.shape, ty.dtype, ty.valid_shape, ty.memory_space or MemorySpace.Vec)

    def _placed_pitch(self, value: U.Var) -> int:
        """The row pitch (`_pitch`) of `value` as it is placed (`_placed_type`)."""
        return _pitch(self._placed_type(value))

    def _flat_index_over_pitch(self, src: TileType, index: U.Var, span: Span, pre: list[U.Stmt]) -> U.Var:
        """A flat index into src.reshape(-1) as TGATHER reads it, flat over the padded buffer:
        index + (index // cols) * (pitch - cols) when src's rows are padded (a [16, 4] FP32
        source has a pitch of 8), the index itself for one row or unpadded rows."""
        rows, cols = src.shape
        gap = _pitch(src) - cols
        if rows == 1 or gap == 0:
            return index
        row = self._temp("gather_src_row", self._call("tile.divs", (index, self._i32(cols, span)), (), span), pre)
        skip = self._temp("gather_row_gap", self._call("tile.muls", (row, self._i32(gap, span)), (), span), pre)
        return self._temp("gather_padded_idx", self._call("tile.add", (index, skip), (), span), pre)

    def _gather_whole_rows(self, src: U.Expr, index: U.Expr, tmp: U.Expr | None, span: Span,
                           pre: list[U.Stmt]) -> U.Call:
        """tile.gather as PTOAS's index-form tgather takes it: index and result valid over their
        buffers' whole columns (PTOAS: "expects dst valid_shape[1] to equal dst cols", the same
        of the indices), and on A2/A3 a scratch of the indices' element type and valid shape. A
        row-major Vec row is padded to 32 bytes (GATHER_UNPADDED_ROWS), so an index whose rows are
        not whole blocks of the source's element type (an axis gather's flat index of the user's
        [16, 4] for an FP32 source), or whose valid columns are narrower (set_validshape), is
        copied by tile.fillpad_expand into [R, W], W its columns rounded up to whole rows, its
        padding zero (index 0, an element the source holds), so every index the instruction
        reads holds data; the result is gathered over [R, W] and narrowed back to the index's
        shape and valid region (`_gathered_as`: the result keeps the index's valid shape). A
        column-major [R, 1] column pads its rows, not its
        column: it is gathered as it is."""
        ty, src_ty = _expr_type(index), _expr_type(src)
        assert isinstance(ty, TileType) and isinstance(src_ty, TileType) and len(ty.shape) == 2
        rows, cols = int(ty.shape[0]), int(ty.shape[1])
        if GATHER_UNPADDED_ROWS.gap((rows, cols), src_ty.dtype) is None and ty.valid_extents[1] == cols:
            tmp_ty = _expr_type(tmp) if tmp is not None else None
            if tmp is None or not isinstance(tmp_ty, TileType) or tmp_ty.dtype is not ty.dtype \
                    or tmp_ty.valid_shape != ty.valid_shape:
                # (A2/A3's TGATHER: "expects tmp and indices to have the same element type", and
                # of one valid shape; the scratch is the compiler's, so a user's that is not is
                # replaced rather than refused.)
                tmp = self._vec_create("gather_tmp", ty.shape, ty.dtype, span, pre)
                if ty.valid_shape is not None:
                    tmp = self._temp("gather_tmp_valid", self._call(
                        "tile.set_validshape", (tmp, *(_extent(e, span) for e in ty.valid_extents)), (), span), pre)
            return self._call("tile.gather", (src, index, tmp), (), span)
        multiple = GATHER_UNPADDED_ROWS.row_multiple(src_ty.dtype)
        width = max(multiple, -(-cols // multiple) * multiple)
        wide = self._temp("gather_idx_rows", self._call(
            "tile.fillpad_expand", (index, index_list((rows, width), span)), (("pad_value", "zero"),), span), pre)
        scratch = self._vec_create("gather_tmp", (rows, width), ty.dtype, span, pre)
        gathered = self._temp("gathered_rows", self._call("tile.gather", (src, wide, scratch), (), span), pre)
        self.bump("gathers_over_whole_rows")
        return self._gathered_as(gathered, (rows, cols), ty.valid_extents, span, pre)

    def _gathered_as(self, gathered: U.Var, shape: tuple[int, int], valid: Sequence[int | SymbolicExtent],
                     span: Span, pre: list[U.Stmt]) -> U.Call:
        """A gather made over whole rows ([R, W]) as the value the user's call names: its shape
        [R, C] and valid region. Narrower columns are a window of it copied into a tile of its
        own (tile.move: the same bytes as a fresh [R, C] tile, whose rows pad to W, but no view,
        which a later gather would index at the window's columns and set_validshape could not
        narrow); the same columns narrow by set_validshape."""
        extents = tuple(_extent(e, span) for e in valid)
        if int(shape[1]) == int(cast(TileType, gathered.type).shape[1]):
            return self._call("tile.set_validshape", (gathered, *extents), (), span)
        window = self._temp("gathered_window", self._call(
            "tile.slice", (gathered, index_list(shape, span), index_list((0, 0), span), U.TupleExpr(extents, span=span)),
            (), span), pre)
        return self._call("tile.move", (window,), (("target_memory", MemorySpace.Vec),), span)

    def _gather_mask_whole_rows(self, gather: U.Call, pre: list[U.Stmt]) -> U.Call:
        """tile.gather_mask as PTOAS's mask-form tgather takes it: its result valid over whole
        buffer rows (PTOAS: "expects dst valid_shape[1] to equal dst cols"; pto-isa's TGATHER
        writes the compacted rows as one continuous stream, "expect continuous memory for
        dst", so a padded dst row would shift every row after the first). A source whose
        compacted rows are not whole 32-byte blocks (a [1, 16] INT32 source under P0001 gives
        [1, 4]), or whose valid region is narrower than its shape, is copied by
        tile.fillpad_expand into [R, W * stride], W the compacted columns rounded up to whole
        rows (zero padding: the extra columns gathered are zeros), gathered whole and narrowed
        back to the result's shape and valid region. A column-major [R, 1] column (its rows
        pad, not its column) or a runtime valid extent is left as it is."""
        src, result = _expr_type(gather.args[0]), gather.type
        if not isinstance(src, TileType) or not isinstance(result, TileType) or len(src.shape) != 2 \
                or len(result.shape) != 2 or not all(isinstance(e, int) for e in result.valid_extents):
            return gather
        rows, cols = int(src.shape[0]), int(src.shape[1])
        _, stride = MASK_PATTERNS[int(cast(int, attr(gather.attrs, "mask_pattern")))]
        out_cols = int(result.shape[1])
        if GATHER_UNPADDED_ROWS.gap((rows, out_cols), result.dtype) is None and src.valid_extents[1] == cols:
            return gather
        multiple = GATHER_UNPADDED_ROWS.row_multiple(result.dtype)
        width = max(multiple, -(-out_cols // multiple) * multiple)
        span = gather.span
        wide = self._temp("gather_mask_src_rows", self._call(
            "tile.fillpad_expand", (gather.args[0], index_list((rows, width * stride), span)), (("pad_value", "zero"),),
            span), pre)
        gathered = self._temp("gathered_rows", self._call("tile.gather_mask", (wide,), gather.attrs, span), pre)
        self.bump("gather_masks_over_whole_rows")
        return self._gathered_as(gathered, (rows, out_cols), result.valid_extents, span, pre)

    def convert_gather(self, call: T.Call, target: T.Var | None, pre: list[U.Stmt]) -> U.Call:
        """Flat gather (no dim): tile.gather over the packed source with an INT32 scratch of the
        index's shape; with dim, the flat index is built first: index + r * cols (dim -1,
        PyPTO's row-base lowering) or index * cols + c (dim 0), in INT32. The gather runs over
        whole 32-byte rows (`_gather_whole_rows`): the result has the index's shape and valid
        region whatever its rows' bytes."""
        src = self._packed(self._on_chip(call, call.args[0], pre), call.span, pre)
        index = self._on_chip(call, call.args[1], pre)
        assert isinstance(src.type, TileType) and isinstance(index.type, TileType)
        dim = attr(call.attrs, "dim")
        span = call.span
        self.bump("gathers")
        if dim is None:
            index = self._flat_index_over_pitch(self._placed_type(src), index, span, pre)
            return self._gather_whole_rows(src, index, None, span, pre)
        user = index.type
        assert isinstance(user, TileType)
        cols = int(user.shape[1])
        if user.dtype is not DataType.INT32:
            index = self._index_as_i32(index, span, pre)
        assert isinstance(index.type, TileType)
        shape = index.type.shape
        if int(cast(int, dim)) % 2 == 1:
            base = self._row_offsets(shape, self._placed_pitch(src), span, pre)
            if base is not None:
                index = self._temp("gather_flat_idx", self._call("tile.add", (index, base), (), span), pre)
        else:
            scaled = self._temp("gather_row_off", self._call(
                "tile.muls", (index, self._i32(self._placed_pitch(src), span)), (), span), pre)
            arange = self._temp("col_arange", self._call(
                "tile.ci", (self._i32(0, span), index_list((1, cols), span)), (("dtype", DataType.INT32),), span),
                pre) if cols > 1 else None
            index = scaled if arange is None else self._temp(
                "gather_flat_idx", self._call("tile.col_expand_add", (scaled, arange), (), span), pre)
        assert isinstance(index.type, TileType)
        return self._gather_whole_rows(src, index, None, span, pre)

    def _index_as_i32(self, index: U.Var, span: Span, pre: list[U.Stmt]) -> U.Var:
        """An axis gather's INT16 index widened to INT32 for the flat-index arithmetic. TCVT
        wants its source and destination of one shape (PTOAS: "expects src and dst to have
        compatible shapes"), and a Vec row pads to 32 bytes per element width (an INT16 [R, 4]
        is [R, 16], an INT32 one [R, 8]): unless both pad alike, the index is copied into whole
        INT16 rows first (fillpad_expand, zero padding), cast there, and viewed at its own
        shape and valid region. (A column-major [R, 1] column pads its rows per width, which a
        row copy does not mend: it is cast as it is, CAST_PITCH's open class when R INT16
        elements are not whole 32-byte blocks.)"""
        ty = index.type
        assert isinstance(ty, TileType)
        rows, cols = int(ty.shape[0]), int(ty.shape[1])
        multiple = GATHER_UNPADDED_ROWS.row_multiple(ty.dtype)
        width = -(-cols // multiple) * multiple
        wide = replace(ty, dtype=DataType.INT32)
        if padded_2d(ty) == padded_2d(wide) or shape_blayout(ty.shape) != "row_major":
            return self._temp("gather_idx_i32", self._call(
                "tile.cast", (index,), (("target_type", DataType.INT32), ("mode", "rint")), span), pre)
        rows16 = self._temp("gather_idx_rows", self._call(
            "tile.fillpad_expand", (index, index_list((rows, width), span)), (("pad_value", "zero"),), span), pre)
        rows32 = self._temp("gather_idx_i32_rows", self._call(
            "tile.cast", (rows16,), (("target_type", DataType.INT32), ("mode", "rint")), span), pre)
        valid = U.TupleExpr(tuple(_extent(e, span) for e in ty.valid_extents), span=span)
        return self._temp("gather_idx_i32", self._call(
            "tile.slice", (rows32, index_list((rows, cols), span), index_list((0, 0), span), valid), (), span), pre)

    def convert_scatter(self, call: T.Call, target: T.Var | None, pre: list[U.Stmt]) -> U.Call:
        """tensor.scatter (rank 2, dim -1): the flat index index + r * cols, narrowed to INT16
        for 2- and 1-byte data, then tile.scatter into the loaded input."""
        dst = self._packed(self._on_chip_dense(call, call.args[0], pre), call.span, pre)
        index = self._on_chip_dense(call, call.args[1], pre)
        src = self._on_chip_dense(call, call.args[2], pre)
        assert isinstance(dst.type, TileType) and isinstance(index.type, TileType)
        span = call.span
        base = self._row_offsets(index.type.shape, self._placed_pitch(dst), span, pre)
        flat = index if base is None else self._temp(
            "scatter_flat_idx", self._call("tile.add", (index, base), (), span), pre)
        flat = self._narrow_index(flat, dst.type.dtype, span, pre)
        self.bump("scatters")
        return self._call("tile.scatter", (dst, src, flat), (), span)

    def _on_chip_dense(self, call: T.Call, arg: T.Expr, pre: list[U.Stmt]) -> U.Var:
        """A scatter's operand on chip (`_on_chip`) at its logical extent: a cube result whose M
        or N is rounded up to a fractal box (physical [16, 16] valid [1, 16] for the user's
        [1, 16]) is copied out of its box into a dense Vec tile, because the scatter's flat index
        names positions of the logical rows at the logical row pitch (and its result reuses the
        destination's buffer, which the cube result's other readers still read). A boxed N = 1
        column has no such copy (a one-column window of the box is not a column vector's
        layout): it is declined at the user's line (`languages.cube_boxing`)."""
        value = self._on_chip(call, arg, pre)
        ty, logical = value.type, type_of(arg)
        if not reads_operands_unboxed(REGISTRY.get(call.op)) or not isinstance(ty, TileType) \
                or not isinstance(logical, TensorType) or len(ty.shape) != 2 \
                or len(logical.shape) != 2 or tuple(ty.shape) == tuple(logical.shape) \
                or not all(isinstance(v, int) for v in ty.valid_extents) \
                or tuple(ty.valid) != tuple(logical.valid):
            return value
        if _is_boxed_column(ty):
            raise self._boxed_column_refusal(call, arg, value)
        span = call.span
        window = self._temp(f"{value.name}_window", self._call(
            "tile.slice", (value, index_list(logical.shape, span), index_list((0, 0), span),
                           index_list(logical.valid, span)), (), span), pre)
        self.bump("boxed_scatter_copies")
        return self._temp(f"{value.name}_dense", self._call(
            "tile.move", (window,), (("target_memory", MemorySpace.Vec),), span), pre)

    def convert_scatter_mask(self, call: T.Call, target: T.Var | None, pre: list[U.Stmt]) -> U.Call:
        """tile.scatter_mask / tensor.scatter_mask (no pto-isa instruction: PTOAS has no
        tscatter mask form): an indexed tile.scatter whose flat index is r * dst_cols +
        c * stride + phase, built in INT32 from two aranges (narrowed once for 2-byte data)."""
        dst = self._packed(self._on_chip_dense(call, call.args[0], pre), call.span, pre)
        src = self._on_chip_dense(call, call.args[1], pre)
        assert isinstance(dst.type, TileType) and isinstance(src.type, TileType)
        span = call.span
        name, stride = MASK_PATTERNS[int(cast(int, attr(call.attrs, "mask_pattern")))]
        rows, width = src.type.shape
        arange = self._column_arange("mask_cols", width, span, pre)
        if stride != 1:
            arange = self._temp("mask_cols", self._call("tile.muls", (arange, self._i32(stride, span)), (), span), pre)
        phase = mask_phase(name)
        if phase:
            arange = self._temp("mask_cols", self._call("tile.adds", (arange, self._i32(phase, span)), (), span), pre)
        base = self._row_offsets((rows, width), self._placed_pitch(dst), span, pre)
        flat = arange if base is None else self._temp(
            "scatter_flat_idx", self._call("tile.col_expand_add", (base, arange), (), span), pre)
        flat = self._narrow_index(flat, dst.type.dtype, span, pre)
        self.bump("scatter_masks")
        return self._call("tile.scatter", (dst, src, flat), (), span)

    def _column_arange(self, base: str, width: int, span: Span, pre: list[U.Stmt]) -> U.Var:
        """[0, 1, .., width - 1] as a [1, width] INT32 tile: tile.ci for two or more columns (a
        sequence has at least two elements), a zero fill for one."""
        if width == 1:
            return self._temp(base, self._call("tile.full", (index_list((1, 1), span), self._i32(0, span)),
                                               (("dtype", DataType.INT32),), span), pre)
        return self._temp(base, self._call("tile.ci", (self._i32(0, span), index_list((1, width), span)),
                                           (("dtype", DataType.INT32),), span), pre)

    def _narrow_index(self, index: U.Var, dtype: DataType, span: Span, pre: list[U.Stmt]) -> U.Var:
        if dtype.byte_width == 4:
            return index
        cast_call = self._call("tile.cast", (index,), (("target_type", DataType.INT16), ("mode", "rint")), span)
        return self._temp(f"{index.name}_i16", cast_call, pre)

    def convert_scatter_update(self, call: T.Call, target: T.Var | None, pre: list[U.Stmt]) -> U.Call:
        """Scatter Update Lowering (spec): flat_idx[k, c] = index.flat[k] * d + c built in INT32
        (narrowed once for 2-byte data); src scattered into a zeroed base, ones scattered into a
        zeroed mask, and sel(mask != 0, scattered, input) keeps the input's unwritten rows."""
        span = call.span
        input_type, index_type = type_of(call.args[0]), type_of(call.args[1])
        assert isinstance(input_type, TensorType) and isinstance(index_type, TensorType)
        width = input_type.shape[-1]
        rows = 1
        for extent in input_type.shape[:-1]:
            rows *= extent
        count = 1
        for extent in index_type.shape:
            count *= extent
        gap = scatter_update_flat_gap(input_type, index_type, type_of(call.args[2]))
        if gap:
            # The flattened rows are zero-copy re-views only where padded Vec rows keep the
            # elements in row-major order (the fact InferTileMemorySpace and ViewLegality use).
            raise _error(call, f"not supported yet: `{call.op}` flattens its operands into rows on chip, and {gap}",
                         "give the index and source rows of whole 32-byte blocks (e.g. an index of 8 INT32 "
                         "columns, or one row)")
        data = self._flat_rows(self._on_chip_dense(call, call.args[0], pre), (rows, width), call, pre)
        src = self._flat_rows(self._on_chip_dense(call, call.args[2], pre), (count, width), call, pre)
        index = self._flat_rows(self._on_chip_dense(call, call.args[1], pre), (count, 1), call, pre)
        dtype = input_type.dtype
        # The flat index addresses the [rows, width] base's buffer, whose rows are padded.
        pitch = _pitch(make_tile_type((rows, width), dtype, None, MemorySpace.Vec))
        flat = self._narrow_index(self._row_flat_index(index, count, width, pitch, span, pre), dtype, span, pre)
        zero = self._literal(0, dtype, span)
        base = self._temp("scatter_base", self._call("tile.full", (index_list((rows, width), span), zero),
                                                     (("dtype", dtype),), span), pre)
        scattered = self._temp("scattered", self._call("tile.scatter", (base, src, flat), (), span), pre)
        # The written-mask has the data's width (the scatter takes the same flat index) and a type
        # every target's tcmps compares by value: INT32, or FP16 for 2-byte data (A2/A3's TCMPS
        # reads INT16 as FP16 bit patterns, which tile.cmps's target rules refuse).
        marker = _MASK_DTYPES.get(dtype.byte_width, dtype)
        mask_zero = self._literal(0, marker, span)
        mask_base = self._temp("mask_base", self._call("tile.full", (index_list((rows, width), span), mask_zero),
                                                       (("dtype", marker),), span), pre)
        ones = self._temp("ones", self._call("tile.full", (index_list((count, width), span), self._literal(1, marker, span)),
                                             (("dtype", marker),), span), pre)
        mask = self._temp("written", self._call("tile.scatter", (mask_base, ones, flat), (), span), pre)
        pred = self._temp("pred", self._call("tile.cmps", (mask, mask_zero), (("cmp_type", 1),), span), pre)
        tmp = self._vec_create("sel_tmp", (rows, width), dtype, span, pre)
        blended = self._temp("updated", self._call("tile.sel", (pred, scattered, data, tmp), (), span), pre)
        self.bump("scatter_updates")
        if tuple(input_type.shape) != (rows, width):
            return self._call("tile.reshape", (blended, index_list(input_type.shape, span)), (), span)
        return self._call("tile.move", (blended,), (("target_memory", MemorySpace.Vec),), span)

    def _row_flat_index(self, index: U.Var, count: int, width: int, pitch: int, span: Span,
                        pre: list[U.Stmt]) -> U.Var:
        """flat_idx[k, c] = index[k] * pitch + c ([count, width], INT32), `pitch` the padded row
        of the buffer it indexes. One column is index * pitch: tile.ci makes sequences of at
        least two elements."""
        if width == 1:
            if pitch == 1:
                return index
            return self._temp("row_base", self._call("tile.muls", (index, self._i32(pitch, span)), (), span), pre)
        columns = self._column_arange("col_arange", width, span, pre)
        zeros = self._temp("zero_idx", self._call("tile.full", (index_list((count, width), span), self._i32(0, span)),
                                                  (("dtype", DataType.INT32),), span), pre)
        col_nd = self._temp("col_nd", self._call("tile.col_expand", (zeros, columns), (), span), pre)
        row_base = self._temp("row_base", self._call("tile.muls", (index, self._i32(pitch, span)), (), span), pre)
        return self._temp("flat_idx", self._call("tile.row_expand_add", (col_nd, row_base), (), span), pre)

    def _flat_rows(self, value: U.Var, shape: tuple[int, int], call: T.Call, pre: list[U.Stmt]) -> U.Var:
        span = call.span
        assert isinstance(value.type, TileType)
        if tuple(value.type.shape) == shape:
            return value
        if len(value.type.shape) == 2 and tuple(value.type.valid_extents) == shape:
            # A cube result boxed taller / wider than its logical shape (M or N rounded up to a
            # fractal box): its logical rows are the valid window at the origin, not a reshape,
            # read on the vector core (the whole tile crosses Acc -> Vec, then the window is cut).
            flat = self._temp(f"{value.name}_vec", self._call(
                "tile.move", (value,), (("target_memory", MemorySpace.Vec),), span), pre)
            return self._temp(f"{value.name}_rows", self._call(
                "tile.slice", (flat, index_list(shape, span), index_list((0, 0), span)), (), span), pre)
        return self._temp(f"{value.name}_rows", self._call("tile.reshape", (value, index_list(shape, span)), (), span), pre)

    @staticmethod
    def _literal(value: int, dtype: DataType, span: Span) -> U.Expr:
        if dtype.is_float:
            return U.ConstFloat(float(value), dtype, span=span)
        return U.ConstInt(value, dtype, span=span)

    def convert_mrgsort2(self, call: T.Call, target: T.Var | None, pre: list[U.Stmt]) -> U.Call:
        """tensor.mrgsort_format2: the sources on chip, plus a scratch row of the result's length."""
        sources = [self._on_chip(call, a, pre) for a in call.args]
        assert isinstance(call.type, TensorType)
        tmp = self._vec_create("mrgsort2_tmp", call.type.shape, call.type.dtype, call.span, pre)
        return self._call("tile.mrgsort_format2", (*sources, tmp), call.attrs, call.span)

    def convert_view(self, call: T.Call, target: T.Var | None, pre: list[U.Stmt]) -> U.Call:
        """tensor.view is a TensorOp passthrough on a GM tensor (codegen makes it a
        pto.make_tensor_view over the same base pointer); on an on-chip value it is the
        zero-copy tile.reshape of the same elements."""
        source = self._narrowed_read(self.visit_Expr(call.args[0]), call.span, pre)
        if isinstance(_expr_type(source), TileType):
            source = self._logical_window(call, source, pre)
            shape = attr(call.attrs, "shape")
            assert isinstance(call.type, TensorType)
            args: tuple[U.Expr, ...] = (source, index_list(call.type.shape if not isinstance(shape, tuple) else shape,
                                                           call.span))
            base = self._unnarrowed_source(call.args[0], source)
            if base is not source and target is not None:
                # A view of a narrowed value (a narrowing reshape, a set_validshape) is narrowed
                # the same way: a consumer reading it past its valid region reads the view of
                # the wider tile under it (finding 406905d9c9), since no set_validshape widens
                # a view.
                self._require_state().narrowing_reshapes[target.name] = (base, args[1])
            return self._call("tile.reshape", args, (), call.span)
        # A GM view would be a pto.make_tensor_view over the same base pointer, which the code
        # generator does not build yet (it used to reach it as an undefined value).
        raise _error(call, "not supported yet: `tensor.view` of a GM tensor inside an InCore function (a second "
                           "tensor view over the same base pointer)",
                     "load the tensor first and view the tile (pl.reshape of the loaded value), or pass the "
                     "tensor in the viewed shape from the orchestration function")

    # -- helpers ------------------------------------------------------------------------------------

    def _require_state(self) -> _FunctionState:
        assert self._state is not None, "only InCore functions are converted"
        return self._state

    def _rebind_written_local(self, call: T.Call, result: U.Var) -> None:
        """A local tensor an op writes in place (tensor.assemble's target) became an on-chip tile,
        and the op's result *is* its storage: later reads of the old name read the result. That
        is the reference semantics (a tensor is a buffer; every later read sees the write), where
        keeping the old tile would read the contents from before the write. GM tensors stay
        tensors and are re-read from GM, which gives the same."""
        if call.op not in REGISTRY or not isinstance(result.type, TileType):
            return
        opdef = REGISTRY.get(call.op)
        rule = opdef.output_memory
        if not isinstance(rule, ReusesInput) or rule.index >= len(call.args):
            return
        written = call.args[rule.index]
        if not isinstance(written, T.Var) or not opdef.effect_of(rule.index, call.attrs) & Effect.WRITE:
            return
        if isinstance(written.type, TileType):
            # A tile the user wrote is a value: `t1 = pl.tile.write(t, ...)` leaves `t` naming the
            # old contents (the reference semantics), and MaterializeSemanticAliases copies `t`
            # when it is still read after the update.
            return
        state = self._require_state()
        current = state.env.get(written.name)
        if current is not None and isinstance(current.type, TileType):
            state.env[written.name] = result
            self.bump("in-place-writes-rebound")

    def _scope(self) -> dict[str, U.Var]:
        return dict(self._require_state().env)

    def _restore(self, outer: dict[str, U.Var]) -> None:
        """Leave a loop body or a branch: a name rebound to a value defined inside it (an in-place
        write's result) is bound as before again outside it."""
        env = self._require_state().env
        for name, var in outer.items():
            env[name] = var

    def _bind(self, source: T.Var, new_type: Type | None) -> U.Var:
        """The converted definition of `source`: a value that became a tile is renamed `<name>_tile`."""
        state = self._require_state()
        typ = new_type if new_type is not None else source.type
        name = source.name
        if isinstance(typ, TileType) and not isinstance(source.type, TileType):
            name = state.fresh(f"{source.name}_tile")
        var = U.Var(name, typ, span=source.span)
        state.env[source.name] = var
        return var

    def _check_handle_operands(self, user_call: T.Call, call: U.Call, pre: list[U.Stmt]) -> None:
        """Reject a metadata op that rewrites its operand's handle (tile.set_validshape) when the
        operand converted to a view: PTOAS rejects pto.set_validshape on a subview / treshape
        (../spec/pto_codegen.md), and the view's valid extent lives in its own type."""
        if call.op not in REGISTRY:
            return
        views = self._require_state().views
        for stmt in pre:
            if isinstance(stmt, U.AssignStmt) and isinstance(stmt.value, U.Call) \
                    and REGISTRY.makes_view_handle(stmt.value.op):
                views[stmt.target.name] = user_call
                self._require_state().view_calls.setdefault(stmt.target.name, stmt.value)
        opdef = REGISTRY.get(call.op)
        for index, arg in enumerate(call.args):
            if index >= len(opdef.operands) or not opdef.operand_decl(index).handle_only:
                continue
            if not isinstance(arg, U.Var) or arg.name not in views:
                continue
            view = views[arg.name]
            maker = getattr(view, "op", "a view")
            where = f" at {view.node_span}" if view.node_span.known else ""
            raise _error(user_call, f"`{user_call.op}` cannot narrow a view: its operand is the {maker}{where}, "
                                    "which lowers to a zero-copy view carrying its valid extent in its own type "
                                    "(PTOAS rejects pto.set_validshape on it)",
                         "pass valid_shape= to the slice instead (pl.slice(x, shape, offsets, valid_shape)), or call "
                         "set_validshape on the source before taking the view")

    def _call(self, op: str, args: tuple[U.Expr, ...], attrs: Attrs, span: Span, fallback: Type | None = None) -> U.Call:
        anchor = U.Var("<call>", INDEX, span=span)
        try:
            typ = REGISTRY.deduce(op, args, attrs, at=anchor)
        except CompileError:
            if fallback is None:
                raise
            typ = fallback
        return U.Call(op=op, args=args, attrs=attrs, type=typ, span=span)

    def _load_gm_seeds(self, node: T.ForStmt, iter_args: list[U.IterArg], body: tuple[U.Stmt, ...],
                       pre: list[U.Stmt]) -> list[U.IterArg] | None:
        """A carry seeded by a GM tensor (`init_values=(b, ...)` with `b` a parameter) whose body
        yields a tile: the seed is loaded before the loop and the carry is that tile (the body's
        first iteration reads `b`'s elements, later ones the tile it computed). None when no
        carry is such."""
        changed = False
        out: list[U.IterArg] = []
        for source, arg, value in zip(node.iter_args, iter_args, _yielded(body)):
            if isinstance(arg.var.type, TensorType) and isinstance(arg.init, U.Var) \
                    and isinstance(arg.init.type, TensorType) and isinstance(_expr_type(value), TileType):
                init = self._load_gm(arg.init, None, arg.span, pre)
                out.append(U.IterArg(var=self._bind(source.var, init.type), init=init, span=arg.span))
                changed = True
            else:
                out.append(arg)
        return out if changed else None

    def _check_carries(self, node: T.ForStmt, iter_vars: Sequence[U.Var], body: tuple[U.Stmt, ...]) -> None:
        for var, value in zip(iter_vars, _yielded(body)):
            if isinstance(var.type, TileType) != isinstance(_expr_type(value), TileType):
                where = "a GM tensor" if isinstance(var.type, TensorType) else "an on-chip tile"
                raise _error(node, f"loop-carried `{var.name}` is seeded by {where} but the loop body yields "
                                   f"{'a tile' if isinstance(_expr_type(value), TileType) else 'a GM tensor'}",
                             "seed a computed carry with pl.create_tensor / pl.full, or carry the GM tensor unchanged")


def _reads_on_vec(opdef: OpDef, index: int) -> bool:
    """Whether operand `index` of the tile op is a value it only reads, in Vec (not a scratch it
    writes, nor a handle it rewrites)."""
    try:
        decl = opdef.operand_decl(index)
    except IndexError:
        return False
    return decl.input_memory is MemorySpace.Vec and decl.effect is Effect.READ and not decl.handle_only


def _expr_type(expr: U.Expr) -> Type | None:
    return type_of(expr)


def _yielded(body: Sequence[U.Stmt]) -> tuple[U.Expr, ...]:
    if body and isinstance(body[-1], U.YieldStmt):
        return body[-1].values
    return ()


def _narrows_accumulator(declared: Type, converted: Type | None) -> bool:
    """The user's tensor is narrower than the tile computed for it (matmul out_dtype)."""
    return (isinstance(declared, TensorType) and isinstance(converted, TileType)
            and declared.dtype != converted.dtype)


def _base_name(value: U.Expr) -> str:
    return value.name if isinstance(value, U.Var) else "operand"


SelfLoadingConverter = Callable[[TensorToTileMutator, T.Call, "T.Var | None", list[U.Stmt]], U.Call]

# Ops whose lowering owns its loads / stores / allocation (the registry marks them self_loading).
SELF_LOADING_CONVERTERS: dict[str, SelfLoadingConverter] = {
    "tensor.slice": TensorToTileMutator.convert_slice,
    "tensor.assemble": TensorToTileMutator.convert_assemble,
    "tensor.expand_clone": TensorToTileMutator.convert_expand_clone,
    "tensor.create": TensorToTileMutator.convert_create,
    "tensor.full": TensorToTileMutator.convert_full,
    "tensor.expands": TensorToTileMutator.convert_expands,
    "tensor.ci": TensorToTileMutator.convert_ci,
    "tensor.random": TensorToTileMutator.convert_random,
    "tensor.view": TensorToTileMutator.convert_view,
    "tensor.gather": TensorToTileMutator.convert_gather,
    "tensor.scatter": TensorToTileMutator.convert_scatter,
    "tensor.scatter_mask": TensorToTileMutator.convert_scatter_mask,
    "tensor.scatter_update": TensorToTileMutator.convert_scatter_update,
    "tensor.mrgsort_format2": TensorToTileMutator.convert_mrgsort2,
}

# Tensor ops that mean something to the host runtime only: (why not in a kernel, how to fix).
HOST_ONLY_OPS: dict[str, tuple[str, str]] = {
    "tensor.dump_tag": ("`pl.dump_tag` tags a tensor for the dispatches that consume it: it is valid only in "
                        "Orchestration or Inline functions, not inside a kernel",
                        "move the pl.dump_tag(...) call to the Orchestration function, before the kernel call"),
}

# Tile ops with no PTO instruction of their own, expanded into ones that have one here.
TILE_EXPANSIONS: dict[str, SelfLoadingConverter] = {
    "tile.scatter_mask": TensorToTileMutator.convert_scatter_mask,
}


def _tile_updated_in_place(source: T.Call, converted: U.Expr) -> str | None:
    """The name of the source variable whose tile `converted` (a statement call) updates in place
    (its result reuses that operand and writes it), or None."""
    if not isinstance(converted, U.Call) or converted.op not in REGISTRY:
        return None
    opdef = REGISTRY.get(converted.op)
    reused = opdef.output_memory
    if not isinstance(reused, ReusesInput) or reused.index >= len(converted.args) \
            or reused.index >= len(source.args) or not opdef.effect_of(reused.index, converted.attrs) & WRITE:
        return None
    operand, written = source.args[reused.index], converted.args[reused.index]
    if isinstance(operand, T.Var) and isinstance(written, U.Var) and isinstance(written.type, TileType):
        return operand.name
    return None


def _is_leaf_tensor_kernel(function: T.Function) -> bool:
    """A bare @pl.function that calls no other function but computes on tensors is a kernel (as
    a leaf Opaque function on tiles is: languages/functions.py), lowered like an InCore one."""
    if function.func_type != OPAQUE:
        return False
    nodes = list(walk(function))
    return not any(isinstance(n, T.FuncCall) for n in nodes) and any(
        isinstance(n, T.Call) and not TileUnplaced.admits_op(n.op) for n in nodes)


def _is_host_window(call: T.Call) -> bool:
    """An orchestration `pl.slice` of a GM tensor without a valid_shape: a window of it."""
    return call.op == "tensor.slice" and len(call.args) == 3 and isinstance(type_of(call.args[0]), TensorType)


def _reject_host_compute(function: T.Function) -> None:
    """Tensor compute runs on the cores: only InCore functions are lowered to tiles. A compute op
    left in an Orchestration / Opaque function would reach TileUnplaced unconverted, so it is the
    user's error, reported at the op."""
    for node in walk(function):
        if isinstance(node, T.Call) and not TileUnplaced.admits_op(node.op):
            kind = function.func_type if function.func_type != "Opaque" else "Opaque (bare @pl.function)"
            if _is_host_window(node) or node.op == "tensor.assemble":
                # A window of a GM tensor is a kernel's argument (tensor.window); a kernel result
                # assembled into one is the kernel writing it (update-orchestration-call-sites).
                continue
            if REGISTRY.is_view(node.op):
                # A view (or a window write) is not compute: PyPTO's orchestration takes them.
                raise CompileError(Diagnostic.at(
                    node, RULE,
                    f"not supported yet: `{node.op}` of a tensor in {kind} function `{function.name}` (a "
                    "kernel called on a view or window of a GM tensor)",
                    hint="pass the whole tensor to the InCore function and take the window there (pl.slice / "
                         "pl.assemble at a loop offset inside the kernel)"))
            raise CompileError(Diagnostic.at(
                node, RULE,
                f"`{node.op}` in {kind} function `{function.name}`: tensor compute is lowered only in "
                "InCore functions",
                hint="declare the kernel with @pl.function(type=pl.FunctionType.InCore) and call it from an "
                     "Orchestration function, or move the computation into an InCore function"))


@dataclass(frozen=True)
class ConvertTensorToTileOps(Pass[T.Program, U.Program]):
    """Lower InCore tensor ops to tile ops: demand-driven loads, cube boxing, exit stores + Out params."""

    name: ClassVar[str] = "convert-tensor-to-tile-ops"
    spec_name: ClassVar[str] = "ConvertTensorToTileOps"
    source: ClassVar[Language] = Tensor
    target: ClassVar[Language] = TileUnplaced
    requires: ClassVar[frozenset[str]] = frozenset({"SSAForm", "NormalizedStmtStructure"})
    produces: ClassVar[frozenset[str]] = frozenset({"IncoreTileOps"})
    # Out params are appended here; the orchestration call sites catch up in the next pass.
    invalidates: ClassVar[frozenset[str]] = frozenset({"CallSitesComplete", "TypeChecked"})

    @override
    def run(self, program: T.Program, ctx: PassContext) -> U.Program:
        return ctx.rewrite(TensorToTileMutator(), program)
