"""The mutant catalogue: deliberately broken variants of real passes (`python -m nanopass.fuzz --mutants`).

Each mutant is one small, realistic miscompile in one pass: a patched method or module
function, or a post-edit of the pass's output (what a forgotten case in the pass would have
produced). A mutant is applied with `with mutant.applied():` and undone on exit, so mutants
run one at a time in one worker process. A good fuzzer plus verifiers catch every one of them;
a missed mutant points at a missing verifier or at generator coverage.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import operator
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from languages.memory_space import MemorySpace
from languages.types import AttrValue, TileType
from nanopass.node import Node, preorder

# A node edit: a replacement node, `DELETE` (inside a statement list), or None (keep).
DELETE: tuple[()] = ()
Edit = Callable[[Node], Any]


def transform(node: Node, edit: Edit) -> Any:
    """Rebuild `node` bottom-up, applying `edit` to every node (children first); the result is
    a node, or `DELETE` when the edit deleted `node` itself."""
    changes: dict[str, Any] = {}
    for name in node.CHILD_FIELDS:
        value = getattr(node, name)
        if isinstance(value, tuple):
            items: list[Any] = []
            for item in value:
                if not isinstance(item, Node):
                    items.append(item)
                    continue
                new = transform(item, edit)
                if new is not DELETE:
                    items.append(new)
            if len(items) != len(value) or any(a is not b for a, b in zip(items, value)):
                changes[name] = tuple(items)
        elif isinstance(value, Node):
            new_child = transform(value, edit)
            if new_child is not value:
                changes[name] = new_child
    if changes:
        node = dataclasses.replace(node, **changes)  # type: ignore[type-var]
    replaced = edit(node)
    return node if replaced is None else replaced


def first_only(edit: Edit) -> Edit:
    """An edit applied to the first node it changes, then never again."""
    done = [False]

    def once(node: Node) -> Any:
        if done[0]:
            return None
        result = edit(node)
        if result is not None:
            done[0] = True
        return result

    return once


def _is_call(node: Node, op: str) -> bool:
    return node.KIND == "Call" and getattr(node, "op") == op


def _assigned_call(node: Node, op: str) -> bool:
    return node.KIND == "AssignStmt" and _is_call(getattr(node, "value"), op)


def _with_attr(attrs: tuple[tuple[str, AttrValue], ...], name: str, value: AttrValue) -> tuple[tuple[str, AttrValue], ...]:
    return tuple((k, v) for k, v in attrs if k != name) + ((name, value),)


def _forget_deductions() -> None:
    """Drop the op registry's memo of type deductions: a mutant that changes what a deducer
    computes (a view table, a packing rule) must not be masked by results memoized before it was
    applied, nor leave its own results behind for the unmutated compiler."""
    from languages.ops import REGISTRY

    memo = getattr(REGISTRY, "_deduced", None)
    if isinstance(memo, dict):
        memo.clear()


@contextlib.contextmanager
def _patched(target: str, attribute: str, make: Callable[[Any], Any]) -> Iterator[None]:
    """Replace `target.attribute` (module or "module:Class") by `make(original)` while active."""
    module_name, _, class_name = target.partition(":")
    owner: Any = importlib.import_module(module_name)
    if class_name:
        owner = getattr(owner, class_name)
    original = owner.__dict__[attribute] if isinstance(owner, type) else getattr(owner, attribute)
    setattr(owner, attribute, make(original))
    _forget_deductions()
    try:
        yield
    finally:
        setattr(owner, attribute, original)
        _forget_deductions()


@dataclass(frozen=True)
class PatchMutant:
    """A mutant that replaces one attribute of a pass module or class."""

    name: str
    pass_name: str
    description: str
    target: str
    attribute: str
    make: Callable[[Any], Any]

    def applied(self) -> contextlib.AbstractContextManager[None]:
        return _patched(self.target, self.attribute, self.make)


@dataclass(frozen=True)
class TableEntryMutant:
    """A mutant that replaces one entry of a pass's dispatch table (a dict in its module)."""

    name: str
    pass_name: str
    description: str
    module: str
    table: str
    key: object  # a dict key of the table (an op name, a MemorySpace, ...)
    make: Callable[[Any], Any]

    @contextlib.contextmanager
    def applied(self) -> Iterator[None]:
        table = getattr(importlib.import_module(self.module), self.table)
        original = table[self.key]
        table[self.key] = self.make(original)
        _forget_deductions()
        try:
            yield
        finally:
            table[self.key] = original
            _forget_deductions()


@dataclass(frozen=True)
class OutputEditMutant:
    """A mutant whose pass emits a slightly wrong program: `edit` post-processes its output."""

    name: str
    pass_name: str
    description: str
    pass_class: str  # "module:Class"
    edit: Callable[[], Edit]  # a fresh edit per run (edits may be stateful, e.g. first_only)

    def applied(self) -> contextlib.AbstractContextManager[None]:
        make_edit = self.edit

        def make(original: Any) -> Any:
            def run(pass_: Any, program: Node, ctx: Any) -> Any:
                return transform(original(pass_, program, ctx), make_edit())

            return run

        return _patched(self.pass_class, "run", make)


# -- method patches -------------------------------------------------------------------------------------


def _window_at_offset_zero(original: Any) -> Any:
    def from_the_start(data: Any) -> Any:
        window = original(data)
        if window is None:
            return None
        root = data
        while root.base is not None:
            root = root.base
        return root.reshape(-1).view("uint8")[:window.size]
    return from_the_start


def _window_values_packed(original: Any) -> Any:
    def packed_copy(data: Any) -> Any:
        window = original(data)
        return None if window is None else data.copy().reshape(-1).view("uint8")
    return packed_copy


def _result_as_it_is(original: Any) -> Any:
    def same_reader_pitch(source: Any, result: Any) -> Any:
        return result

    return same_reader_pitch


def _operand_as_it_is(original: Any) -> Any:
    def whole_if_read_past(self: Any, call: Any, opdef: Any, index: int, arg: Any, target: Any, pre: Any) -> Any:
        return arg

    return whole_if_read_past


def _direct_readers_only(original: Any) -> Any:
    def slot_readers(name: str, rest: Any) -> set[str]:
        return {name}

    return slot_readers


def _mix_barrier_on_the_vector_core_only(original: Any) -> Any:
    """ExpandMixedKernel's part of an all-core barrier goes to the vector core alone (the cube
    never arrives: a hang on the chip)."""
    def barrier_part(stmt: Any, side: str) -> Any:
        return original(stmt, side) if side == "AIV" else []

    return barrier_part


def _gm_accesses_left_unordered(original: Any) -> Any:
    """ExpandMixedKernel puts no barrier between the two cores' accesses of one GM tensor (a
    cube result stored into a tensor the vector core then loads, or the other way round)."""
    def block(self: Any, body: Any, pending: Any = frozenset()) -> Any:
        return list(body)

    return block


def _rebind_written_tiles(original: Any) -> Any:
    """ConvertTensorToTileOps rebinds the name of a *tile* an in-place op writes to the op's
    result, as it does for a tensor that became a tile: a later read of the old tile reads the
    update (value semantics say the old contents)."""
    from languages.ops import REGISTRY, WRITE, ReusesInput

    def rebind(self: Any, call: Any, result: Any) -> None:
        original(self, call, result)
        if call.op not in REGISTRY or not isinstance(result.type, TileType):
            return
        opdef = REGISTRY.get(call.op)
        rule = opdef.output_memory
        if not isinstance(rule, ReusesInput) or rule.index >= len(call.args):
            return
        written = call.args[rule.index]
        if written.KIND == "Var" and isinstance(written.type, TileType) \
                and opdef.effect_of(rule.index, call.attrs) & WRITE:
            self._require_state().env[written.name] = result

    return rebind


def _broadcast_lhs_as_it_is(original: Any) -> Any:
    def as_it_is(self: Any, call: Any, tile_op: Any, args: Any, pre: Any) -> Any:
        return args

    return as_it_is


def _spread_over_the_whole_box(original: Any) -> Any:
    def expand_onto_box(self: Any, call: Any, index: Any, value: Any, box: Any, pre: Any) -> Any:
        return self._expand_to(call, value, tuple(int(d) for d in box.shape), pre)

    return expand_onto_box


def _operand_unpacked(original: Any) -> Any:
    def packed(self: Any, operand: Any, pre: Any) -> Any:
        return operand

    return packed


def _never_a_gm_view(original: Any) -> Any:
    def defines_gm_view(state: Any, stmt: Any) -> bool:
        return False

    return defines_gm_view


def _gather_index_unpitched(original: Any) -> Any:
    def flat_index_over_pitch(self: Any, src: Any, index: Any, span: Any, pre: Any) -> Any:
        return index

    return flat_index_over_pitch


def _ordering_compare_as_it_is(original: Any) -> Any:
    def ordering_by_equality(self: Any, compare: Any, pre: Any) -> Any:
        return compare

    return ordering_by_equality


def _gather_source_unpacked(original: Any) -> Any:
    def packed(self: Any, src: Any, span: Any, pre: Any) -> Any:
        return src

    return packed


def _pitch_as_unplaced(original: Any) -> Any:
    from passes.convert_tensor_to_tile_ops import _pitch

    def placed_pitch(self: Any, value: Any) -> Any:
        return _pitch(value.type)

    return placed_pitch


def _narrowed_source_as_it_is(original: Any) -> Any:
    def read_whole(self: Any, call: Any, index: Any, value: Any, pre: Any) -> Any:
        return value

    return read_whole


def _on_chip_cube_operand_unboxed(original: Any) -> Any:
    def boxed_on_chip(self: Any, call: Any, value: Any, demand: Any, transposed: Any, pre: Any) -> Any:
        return value

    return boxed_on_chip


def _reinterpret_in_place(original: Any) -> Any:
    def reinterpret_packed(self: Any, node: Any, call: Any) -> Any:
        return (node,)

    return reinterpret_packed


def _window_copied_over_its_valid_region(original: Any) -> Any:
    def window_over_read(self: Any, node: Any, call: Any, window: Any, cut: Any) -> Any:
        return None

    return window_over_read


def _copied_as_it_is(original: Any) -> Any:
    def insert_type(tile: Any, arch: Any, at: Any, rule: Any) -> Any:
        return None

    return insert_type


def _no_vec_inserts(original: Any) -> Any:
    def writes_with_vec_insert(op: str, source: object, result: object, source_is_window: bool) -> bool:
        return False

    return writes_with_vec_insert


def _no_column_major_columns(original: Any) -> Any:
    def is_column_major_column(tile: object) -> bool:
        return False

    return is_column_major_column


def _no_strided_columns(original: Any) -> Any:
    def is_strided_column(tile: object) -> bool:
        return False

    return is_strided_column


def _without_col_broadcasts(original: Any) -> Any:
    return {name: match for name, match in original.items() if "colexpand" not in name}


def _read_over_own_region(original: Any) -> Any:
    return staticmethod(lambda *args: None)


def _own_valid_kept(original: Any) -> Any:
    def stated(self: Any, args: Any, wanted: Any, as_list: Any, as_index: Any) -> Any:
        if len(self.operands) == 1:
            return tuple(args)  # the view's own valid-shape operand kept as it was
        return original(self, args, wanted, as_list, as_index)

    return stated


def _view_narrowing_kept(original: Any) -> Any:
    def retaken_view_args(view: Any, source: Any, region: Any, span: Any) -> Any:
        return (source, *view.args[1:])

    return retaken_view_args


_AUTO_TILE = "passes.auto_tile_matmul_l0"


def _auto_tile_rewriter() -> str:
    module = importlib.import_module(_AUTO_TILE)
    for name, value in vars(module).items():
        if isinstance(value, type) and hasattr(value, "_seed") and hasattr(value, "_block"):
            return f"{_AUTO_TILE}:{name}"
    raise LookupError("AutoTileMatmulL0's rewriter class (with _seed and _block) not found")


def _narrowed_k_tiled(original: Any) -> Any:
    """AutoTileMatmulL0 without its refusal of a left operand narrowed on K: its L0 K blocks are
    cut valid over their whole width, past the operand's valid K."""
    def _reject_narrowed_k(self: Any, matmul: Any, k: int) -> None:
        return None

    return _reject_narrowed_k


def _drop_compact(original: Any) -> Any:
    def _seed(self: Any, out: Any, matmul: Any, tile: Any, base: str) -> Any:
        call = self._call

        def no_compact(op: str, args: Any, attrs: Any, span: Any) -> Any:
            return call(op, args, tuple(a for a in attrs if a[0] != "compact"), span)

        self._call = no_compact
        try:
            return original(self, out, matmul, tile, base)
        finally:
            del self._call

    return _seed


def _wrong_peel(original: Any) -> Any:
    def _block(self: Any, out: Any, matmul: Any, lhs: Any, tile: Any, k_offset: Any, width: int, acc: Any,
               pred: Any, result_name: str, base: str = "") -> Any:
        if base == "t":  # the peeled K tail
            width = width - 16 if width > 16 else width + 16
        return original(self, out, matmul, lhs, tile, k_offset, width, acc, pred, result_name, base)

    return _block


def _swap_extract_offsets(original: Any) -> Any:
    def _block(self: Any, *args: Any, **kwargs: Any) -> Any:
        call = self._call

        def swapped(op: str, call_args: Any, attrs: Any, span: Any) -> Any:
            if op == "tile.extract" and dict(attrs).get("target_memory") is not None \
                    and getattr(dict(attrs)["target_memory"], "name", "") == "Left":
                call_args = (call_args[0], call_args[2], call_args[1], *call_args[3:])
            return call(op, call_args, attrs, span)

        self._call = swapped
        try:
            return original(self, *args, **kwargs)
        finally:
            del self._call

    return _block


def _shift_one_address(original: Any) -> Any:
    def address_mapping(function: Any, backend: Any) -> Any:
        mapping = dict(original(function, backend))
        by_space: dict[Any, list[Any]] = {}
        for memref in mapping.values():
            by_space.setdefault(memref.space, []).append(memref)
        for space in sorted(by_space, key=lambda s: s.name):
            placed = sorted(by_space[space], key=lambda m: m.offset)
            if len(placed) >= 2:
                victim = placed[-1]
                mapping[victim.name] = dataclasses.replace(victim, offset=victim.offset - backend.alignment(space))
                break
        return mapping

    return address_mapping


def _reuse_too_early(original: Any) -> Any:
    def _fits(slot: Any, live: Any, liveness: Any) -> bool:
        return bool(slot.end <= live.start + 1)

    return _fits


def _load_ignores_valid(original: Any) -> Any:
    def _call(self: Any, op: str, args: Any, attrs: Any, span: Any, fallback: Any = None) -> Any:
        if op == "tile.load" and len(args) > 3:
            args = args[:3]
        return original(self, op, args, attrs, span, fallback)

    return _call


def _slice_keeps_full_valid(original: Any) -> Any:
    def convert_slice(self: Any, call: Any, target: Any, pre: Any) -> Any:
        if len(call.args) > 3:
            call = dataclasses.replace(call, args=call.args[:3])
        return original(self, call, target, pre)

    return convert_slice


def _grid_drops_partial_column(original: Any) -> Any:
    """The M / N output grid's column loop stops before a partial last column of sub-tiles (an
    off-by-one `range(0, N - n + 1, n)`): those output columns are never computed or stored."""
    def output_grid(dims: Any, m: int, n: int) -> Any:
        tiles = original(dims, m, n)
        kept = [tile for tile in tiles if tile.cols == n or tile.col == 0]
        return kept if kept else tiles

    return output_grid


def _reuse_ignores_back_edge(original: Any) -> Any:
    """MemoryReuse's liveness forgets the loop back-edge: a value defined before a loop and read
    inside it dies at its last textual read, so a later body statement may take its buffer."""
    def analyze_function(function: Any) -> Any:
        from passes.analysis import liveness

        analyzer_class: Any = getattr(liveness, "_Analyzer")
        use = analyzer_class.use
        analyzer_class.use = lambda self, expr, point, loops: use(self, expr, point, ())
        try:
            return original(function)
        finally:
            analyzer_class.use = use

    return analyze_function


class _HalvedAlignment:
    """A backend handler whose address alignment is half the real one."""

    def __init__(self, backend: Any) -> None:
        self._backend = backend

    def alignment(self, space: Any) -> int:
        return max(1, int(self._backend.alignment(space)) // 2)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._backend, name)


def _halve_alignment(original: Any) -> Any:
    def address_mapping(function: Any, backend: Any) -> Any:
        return original(function, _HalvedAlignment(backend))

    return address_mapping


def _mat_row_major(original: Any) -> Any:
    """Mat's (blayout, slayout, fractal) entry with row-major boxes: ND-boxed L1 instead of NZ."""
    return ("row_major", *tuple(original)[1:])


def _written_param_shares_load(original: Any) -> Any:
    """Every parameter shares the entry load, even one the kernel writes (and then reads)."""
    def shares_entry_load(self: Any, var: Any) -> bool:
        return bool(var.name in self.params and not self.access.has_opaque_calls)

    return shares_entry_load


def _seed_predicate_vs_stop(original: Any) -> Any:
    """The zero-seed's first-step predicate compares the loop variable with the loop's stop
    bound instead of its start: the first accumulation adds onto an uninitialised L0C buffer."""
    def first_step_predicate(rewrite: Any) -> Any:
        loops = tuple(dataclasses.replace(loop, start=loop.stop) for loop in rewrite.first_steps)
        return original(dataclasses.replace(rewrite, first_steps=loops))

    return first_step_predicate


def _seed_drops_init_cond(original: Any) -> Any:
    """SeedZeroAccumulators replaces the zero fill by a tensor.create but forgets the init_cond
    on the first accumulation: the sum starts from the created buffer's garbage."""
    def predicated(rewrite: Any) -> Any:
        call = rewrite.accumulate
        return dataclasses.replace(call, args=call.args[:3])

    return predicated


def _acc_logical_rows(original: Any) -> Any:
    """InitMemRef sizes an Acc buffer at its logical rows, forgetting the L0C row alignment."""
    def physical_bytes(tile: Any, backend: Any) -> int:
        return int(tile.nbytes)

    return physical_bytes


def _packed_valid_first_axis(original: Any) -> Any:
    """FlattenTileNdTo2D packs a rank-3 valid region as [valid0, last] instead of
    [valid0 * middle, last]: only the first slab of rows is loaded / stored."""
    def packed_valid_2d(shape: Any, valid: Any) -> Any:
        packed = original(shape, valid)
        if packed is None or len(shape) <= 2:
            return packed
        return (valid[0], valid[-1])

    return packed_valid_2d


# -- output edits ---------------------------------------------------------------------------------------


def _mat_stage_collapsed() -> Edit:
    """A Vec tile staged through Mat into Left / Right (`m = move(v, Mat)`, `l = move(m, Left)`)
    is moved straight from Vec (`l = move(v, Left)`): a path pto.tmov does not have."""
    def edit(node: Node) -> Any:
        if node.KIND != "Function":
            return None
        staged: dict[str, Node] = {}
        for inner in preorder(node):
            if inner.KIND == "AssignStmt" and _is_call(getattr(inner, "value"), "tile.move"):
                args = getattr(getattr(inner, "value"), "args")
                source = getattr(args[0], "type", None) if args else None
                result = getattr(getattr(inner, "target"), "type", None)
                if getattr(source, "memory_space", None) is MemorySpace.Vec \
                        and getattr(result, "memory_space", None) is MemorySpace.Mat:
                    staged[getattr(getattr(inner, "target"), "name")] = args[0]

        def collapse(call: Node) -> Any:
            if not _is_call(call, "tile.move") or not getattr(call, "args"):
                return None
            arg = getattr(call, "args")[0]
            space = getattr(getattr(call, "type", None), "memory_space", None)
            if arg.KIND == "Var" and getattr(arg, "name") in staged and space in (MemorySpace.Left, MemorySpace.Right):
                return dataclasses.replace(call, args=(staged[getattr(arg, "name")],))  # type: ignore[type-var]
            return None

        return transform(node, first_only(collapse)) if staged else None

    return edit


def _swap_sub_operands() -> Edit:
    """tile.sub / tile.div lowered with their operands swapped (a - b becomes b - a)."""
    def edit(node: Node) -> Any:
        if (_is_call(node, "tile.sub") or _is_call(node, "tile.div")) and len(getattr(node, "args")) == 2:
            lhs, rhs = getattr(node, "args")
            return dataclasses.replace(node, args=(rhs, lhs))  # type: ignore[type-var]
        return None

    return edit


def _row_sum_as_row_max() -> Edit:
    """A row reduction lowered to the wrong reduction kind."""
    def edit(node: Node) -> Any:
        if _is_call(node, "tile.row_sum"):
            return dataclasses.replace(node, op="tile.row_max")  # type: ignore[type-var]
        return None

    return edit


def _drop_first_tstore() -> Edit:
    """Codegen forgets one store: the first pto.tstore of the program is not emitted."""
    def edit(node: Node) -> Any:
        if node.KIND == "EvalStmt" and _is_call(getattr(node, "value"), "pto.tstore"):
            return DELETE
        return None

    return first_only(edit)


def _grid_store_offsets_swapped() -> Edit:
    """One sub-tile of the M / N output grid is stored at (col, row) instead of (row, col)."""
    def edit(node: Node) -> Any:
        if not _is_call(node, "tile.store"):
            return None
        source, offsets = getattr(node, "args")[:2]
        space = getattr(getattr(source, "type", None), "memory_space", None)
        elements: tuple[Any, ...] = tuple(getattr(offsets, "elements", ()))
        if getattr(space, "name", "") != "Acc" or len(elements) != 2 or elements[0] == elements[1]:
            return None
        swapped = dataclasses.replace(offsets, elements=(elements[1], elements[0]))
        return dataclasses.replace(node, args=(source, swapped, *getattr(node, "args")[2:]))  # type: ignore[type-var]

    return first_only(edit)


def _user_loop_one_trip_short() -> Edit:
    """A user `pl.range` loop is lowered with its stop bound one too small."""
    def edit(node: Node) -> Any:
        if node.KIND == "ForStmt" and getattr(node, "kind") == "range":
            stop = getattr(node, "stop")
            if stop.KIND == "ConstInt" and stop.value > 0:
                return dataclasses.replace(node, stop=dataclasses.replace(stop, value=stop.value - 1))  # type: ignore[type-var]
        return None

    return edit


def _omit_tile_move() -> Edit:
    """Drop the first tile.move; its users read the unmoved source (in the wrong space)."""
    state: dict[str, Node] = {}

    def edit(node: Node) -> Any:
        if node.KIND == "Program" or node.KIND == "Function":
            return None
        if not state and _assigned_call(node, "tile.move"):
            state[getattr(getattr(node, "target"), "name")] = getattr(node, "value").args[0]
            return DELETE
        if node.KIND == "Var" and getattr(node, "name") in state:
            return state[getattr(node, "name")]
        return None

    return _two_pass(edit)


def _two_pass(edit: Edit) -> Edit:
    """Uses may precede a definition in bottom-up order (loops); apply the edit twice."""
    def at_program(node: Node) -> Any:
        if node.KIND != "Program":
            return None
        once = transform(node, edit)
        return transform(once, edit)

    return at_program


def _cast_mode_rne() -> Edit:
    def edit(node: Node) -> Any:
        if _is_call(node, "tile.cast"):
            return dataclasses.replace(node, attrs=_with_attr(getattr(node, "attrs"), "mode", "rint"))  # type: ignore[type-var]
        return None

    return edit


def _row_expand_sub_as_add() -> Edit:
    def edit(node: Node) -> Any:
        if _is_call(node, "tile.row_expand_sub"):
            return dataclasses.replace(node, op="tile.row_expand_add")  # type: ignore[type-var]
        return None

    return edit


def _init_every_block() -> Edit:
    """The K loop's first-block predicate `ko == 0` becomes `ko >= 0`: every block restarts."""
    def edit(node: Node) -> Any:
        if node.KIND == "BinOp" and getattr(node, "op") == "==" and getattr(node, "lhs").KIND == "Var" \
                and getattr(getattr(node, "lhs"), "name").startswith("ko"):
            return dataclasses.replace(node, op=">=")  # type: ignore[type-var]
        return None

    return edit


def _k_loop_short() -> Edit:
    """The pipelined K loop stops one block early."""
    def edit(node: Node) -> Any:
        if node.KIND == "ForStmt" and getattr(node, "kind") == "pipeline":
            stop, step = getattr(node, "stop"), getattr(node, "step")
            if stop.KIND == "ConstInt" and step.KIND == "ConstInt" and stop.value > step.value:
                return dataclasses.replace(node, stop=dataclasses.replace(stop, value=stop.value - step.value))  # type: ignore[type-var]
        return None

    return edit


def _out_param_as_in() -> Edit:
    def edit(node: Node) -> Any:
        if node.KIND == "Param" and getattr(node, "direction") == "Out":
            return dataclasses.replace(node, direction="In")  # type: ignore[type-var]
        return None

    return first_only(edit)


def _tcvt_drops_rmode() -> Edit:
    def edit(node: Node) -> Any:
        if _is_call(node, "pto.tcvt") and any(k == "rmode" for k, _ in getattr(node, "attrs")):
            return dataclasses.replace(node, attrs=tuple(a for a in getattr(node, "attrs") if a[0] != "rmode"))  # type: ignore[type-var]
        return None

    return edit


def _vec_tile_row_major() -> Edit:
    """A column-vector Vec tile ([rows, 1]) keeps the row-major view (its DN rule forgotten)."""
    def edit(node: Node) -> Any:
        if node.KIND != "Var":
            return None
        ty = getattr(node, "type")
        if isinstance(ty, TileType) and ty.view is not None and ty.memory_space is not None \
                and ty.memory_space.name == "Vec" and len(ty.shape) == 2 and ty.shape[1] == 1 and ty.shape[0] > 1 \
                and ty.view.blayout == "col_major":
            return dataclasses.replace(node, type=dataclasses.replace(ty, view=dataclasses.replace(ty.view, blayout="row_major")))  # type: ignore[type-var]
        return None

    return edit



# -- edits of the second catalogue: constructs the registry-derived generator reaches ------------------


def _rename_op(old: str, new: str, once: bool = False) -> Callable[[], Edit]:
    """An edit factory: calls of `old` become calls of `new` (the wrong op of a family)."""
    def make() -> Edit:
        def edit(node: Node) -> Any:
            if _is_call(node, old):
                return dataclasses.replace(node, op=new)  # type: ignore[type-var]
            return None

        return first_only(edit) if once else edit

    return make


def _swap_first_two_args(op: str) -> Callable[[], Edit]:
    def make() -> Edit:
        def edit(node: Node) -> Any:
            if _is_call(node, op) and len(getattr(node, "args")) >= 2:
                args = getattr(node, "args")
                return dataclasses.replace(node, args=(args[1], args[0], *args[2:]))  # type: ignore[type-var]
            return None

        return first_only(edit)

    return make


def _tensor_view_strides_reversed() -> Edit:
    """A 2-D pto.make_tensor_view declares its strides in the wrong order (the simulator
    addresses GM through them, so a wrong stride changes which elements a kernel sees)."""
    def edit(node: Node) -> Any:
        if _is_call(node, "pto.make_tensor_view") and len(getattr(node, "args")) >= 3:
            shape, strides = getattr(node, "args")[1], getattr(node, "args")[2]
            elements: Any = getattr(strides, "elements", ())
            dims: Any = getattr(shape, "elements", ())
            if len(elements) == 2 and len(dims) == 2 and getattr(elements[0], "name", None) != getattr(elements[1], "name", None):
                flipped = dataclasses.replace(strides, elements=(elements[1], elements[0]))
                return dataclasses.replace(node, args=(getattr(node, "args")[0], shape, flipped, *getattr(node, "args")[3:]))  # type: ignore[type-var]
        return None

    return first_only(edit)


def _partition_offsets_swapped() -> Edit:
    """A pto.partition_view whose two offsets differ gets them in (col, row) order."""
    def edit(node: Node) -> Any:
        if _is_call(node, "pto.partition_view") and len(getattr(node, "args")) >= 2:
            offsets = getattr(node, "args")[1]
            elements: Any = getattr(offsets, "elements", ())
            if len(elements) == 2 and getattr(elements[0], "name", 0) != getattr(elements[1], "name", 0):
                flipped = dataclasses.replace(offsets, elements=(elements[1], elements[0]))
                return dataclasses.replace(node, args=(getattr(node, "args")[0], flipped, *getattr(node, "args")[2:]))  # type: ignore[type-var]
        return None

    return first_only(edit)


def _if_branches_swapped() -> Edit:
    """The first scf.if runs its else branch when the condition holds (and vice versa)."""
    def edit(node: Node) -> Any:
        if node.KIND == "IfStmt" and getattr(node, "else_body"):
            return dataclasses.replace(node, then_body=getattr(node, "else_body"), else_body=getattr(node, "then_body"))  # type: ignore[type-var]
        return None

    return first_only(edit)


def _drop_first_tmov() -> Edit:
    """The first pto.tmov (a copy: a carried value's own buffer, a placement hop) is not emitted."""
    def edit(node: Node) -> Any:
        if node.KIND == "EvalStmt" and _is_call(getattr(node, "value"), "pto.tmov"):
            return DELETE
        return None

    return first_only(edit)


def _subview_offsets_swapped() -> Edit:
    """The first pto.subview with two different offsets is emitted with them swapped (row and
    column confused): the window lands elsewhere in its source, or outside it."""
    def edit(node: Node) -> Any:
        if node.KIND != "AssignStmt" or not _is_call(getattr(node, "value"), "pto.subview"):
            return None
        call = getattr(node, "value")
        offsets = getattr(call, "args")[1]
        elements: tuple[Node, ...] = getattr(offsets, "elements", ())
        if len(elements) != 2 or elements[0] == elements[1]:
            return None
        swapped = dataclasses.replace(offsets, elements=(elements[1], elements[0]))
        args = (getattr(call, "args")[0], swapped, *getattr(call, "args")[2:])
        return dataclasses.replace(node, value=dataclasses.replace(call, args=args))  # type: ignore[type-var]

    return first_only(edit)


def _copy_in_source_buffer(original: Any) -> Any:
    """MaterializeSemanticAliases allocates a copy in the very buffer it copies from: the value
    it protects shares bytes with a co-live value again (a loop carry, an if-phi)."""
    def copy_of(self: Any, value: Any, at: Any, why: str) -> Any:
        stmt, target = original(self, value, at, why)
        shared = dataclasses.replace(target.type, memref=value.type.memref)
        target = dataclasses.replace(target, type=shared)
        return dataclasses.replace(stmt, target=target, value=dataclasses.replace(stmt.value, type=shared)), target

    return copy_of


def _muls_scalar_as_one() -> Edit:
    """A tile-scalar multiply loses its scalar (multiplies by 1)."""
    def edit(node: Node) -> Any:
        if _is_call(node, "tile.muls") and len(getattr(node, "args")) == 2 and getattr(node, "args")[1].KIND == "ConstFloat" \
                and getattr(getattr(node, "args")[1], "value") not in (1.0, 0.0):
            scalar = getattr(node, "args")[1]
            return dataclasses.replace(node, args=(getattr(node, "args")[0], dataclasses.replace(scalar, value=1.0)))  # type: ignore[type-var]
        return None

    return first_only(edit)


def _dce_drops_an_if_with_stores() -> Edit:
    """Dead-code elimination deletes an if whose phis are unused, although a branch stores."""
    def edit(node: Node) -> Any:
        if node.KIND == "IfStmt" and not getattr(node, "results"):
            return DELETE
        return None

    return first_only(edit)


def _call_site_args_swapped() -> Edit:
    """A kernel call passes two same-typed tensors in swapped order."""
    def edit(node: Node) -> Any:
        if node.KIND != "FuncCall":
            return None
        args = list(getattr(node, "args"))
        for i in range(len(args)):
            for j in range(i + 1, len(args)):
                a, b = args[i], args[j]
                if a.KIND == "Var" and b.KIND == "Var" and a.type == b.type and a.name != b.name \
                        and a.type.__class__.__name__ == "TensorType":
                    args[i], args[j] = b, a
                    return dataclasses.replace(node, args=tuple(args))  # type: ignore[type-var]
        return None

    return first_only(edit)


def _window_strides_dropped() -> Edit:
    """A kernel parameter called on a window of a wider tensor is declared at packed strides."""
    def edit(node: Node) -> Any:
        var = getattr(node, "var", None) if node.KIND == "Param" else None
        if var is None or getattr(var.type, "strides", None) is None:
            return None
        return dataclasses.replace(  # type: ignore[type-var]
            node, var=dataclasses.replace(var, type=dataclasses.replace(var.type, strides=None)))

    return first_only(edit)


def _inout_param_as_out() -> Edit:
    def edit(node: Node) -> Any:
        if node.KIND == "Param" and getattr(node, "direction") == "InOut":
            return dataclasses.replace(node, direction="Out")  # type: ignore[type-var]
        return None

    return first_only(edit)


def _seed_predicate_negated() -> Edit:
    """The zero-seed's first-step test `k == start` becomes `k != start`."""
    def edit(node: Node) -> Any:
        if node.KIND == "BinOp" and getattr(node, "op") == "==" and getattr(node, "lhs").KIND == "Var":
            return dataclasses.replace(node, op="!=")  # type: ignore[type-var]
        return None

    return first_only(edit)


def _rank1_window_offset_dropped() -> Edit:
    """A packed rank-1 window ([1, n] row) loses its column offset."""
    def edit(node: Node) -> Any:
        if _is_call(node, "tile.slice") and len(getattr(node, "args")) >= 3:
            source = getattr(getattr(node, "args")[0], "type", None)
            offsets = getattr(node, "args")[2]
            elements: Any = getattr(offsets, "elements", ())
            if isinstance(source, TileType) and source.shape[0] == 1 and len(elements) == 2 \
                    and elements[1].KIND == "ConstInt" and getattr(elements[1], "value") != 0:
                zero = dataclasses.replace(elements[1], value=0)
                return dataclasses.replace(node, args=(getattr(node, "args")[0], getattr(node, "args")[1],  # type: ignore[type-var]
                                                       dataclasses.replace(offsets, elements=(elements[0], zero)),
                                                       *getattr(node, "args")[3:]))
        return None

    return first_only(edit)


def _index_fold_plus_as_minus(original: Any) -> Any:
    """SimplifyIndexArith folds `a + b` of constants as `a - b`."""
    table = dict(original)
    table["+"] = table["-"]
    return table


def _last_buffer_overlaps(original: Any) -> Any:
    """The last buffer of a space is placed half a buffer into the one before it."""
    def mapping(function: Any, backend: Any) -> Any:
        result = original(function, backend)
        by_space: dict[Any, list[Any]] = {}
        for memref in result.values():
            by_space.setdefault(memref.space, []).append(memref)
        for memrefs in by_space.values():
            if len(memrefs) >= 2:
                ordered = sorted(memrefs, key=lambda m: m.offset)
                previous, last = ordered[-2], ordered[-1]
                unit = backend.alignment(last.space)
                moved = max(previous.offset, previous.offset + (previous.size // 2) // unit * unit)
                result[last.name] = dataclasses.replace(last, offset=moved)
                break
        return result

    return mapping


def _ties_away_for_rint(original: Any) -> Any:
    """backend.numerics rounds ties away from zero where RNE (rint) is asked: both the
    simulator and the interpreter use it, so only the numerics self-check can see it."""
    def rounding(scaled: Any, negative: Any, mode: str) -> Any:
        return original(scaled, negative, "round" if mode in ("rint", "none") else mode)

    return rounding


def _saturating_int_add(original: Any) -> Any:
    """backend.numerics saturates integer addition instead of wrapping."""
    import numpy as np

    def binary(op: str, a: Any, b: Any) -> Any:
        if op == "add":
            info = np.iinfo(a.dtype)
            return np.clip(a.astype(np.int64) + b.astype(np.int64), info.min, info.max).astype(a.dtype)
        return original(op, a, b)

    return binary


def _sim_remsi_floor(original: Any) -> Any:
    """The simulator's arith.remsi takes the floor remainder (Python %) instead of C's."""
    return lambda a, b: a % b


def _sim_slt_as_sle(original: Any) -> Any:
    return lambda a, b: a <= b


def _placed_upgrade_declared(upgrade: str, declared: str) -> Callable[[Any], Any]:
    """The TilePlaced upgrade of a parameter the kernel declared In, where it upgrades it to
    `upgrade`, declares it `declared` instead."""

    def make(original: Any) -> Any:
        def upgraded(function: Any, bump: object) -> Any:
            result = original(function, bump)
            if result is function:
                return result
            before = {p.var.name: p.direction for p in getattr(function, "params")}
            params = tuple(dataclasses.replace(p, direction=declared)
                           if p.direction == upgrade and before.get(p.var.name) == "In" else p
                           for p in getattr(result, "params"))
            return dataclasses.replace(result, params=params)

        return upgraded

    return make


# A written In parameter the kernel reads too declared Out: its input is not bound.
_placed_inout_as_out = _placed_upgrade_declared("InOut", "Out")
# One the kernel only writes left In (the InOut upgrade kept): the host treats it as read-only
# and the kernel's store is lost.
_placed_out_kept_in = _placed_upgrade_declared("Out", "In")


def _narrowing_truncates(original: Any) -> Any:
    """LegalizeVecDtypes brings a BF16 op's FP32 result back truncating, not rounding to
    nearest-even (the CONVERTED route's last tcvt; the BITS routes' casts are exact either way)."""
    return "trunc"


def _in_place_operands_dropped(original: Any) -> Any:
    """MaterializeSemanticAliases forgets that an in-place op's result (ReusesInput: tile.write,
    matmul_acc, scatter) must share its operand's buffer: the result gets a buffer of its own,
    which the op writes only in part (one element, the accumulated product)."""

    def candidates(body: Any, out: list[Any]) -> None:
        found: list[Any] = []
        original(body, found)
        out.extend(c for c in found if c.where != "operand")

    return candidates


def _sim_divsi_floors(original: Any) -> Any:
    return lambda a, b: a // b


def _sim_maxf_as_min(original: Any) -> Any:
    import numpy as np

    return np.minimum


def _mask_partial_byte_dropped(original: Any) -> Any:
    """The packed words of a compare stop at the last whole word: the bits of the columns past
    it (cols % 8 of a UINT8 mask) are never written, so a select over those columns reads the
    poison the compare's granule leaves (the simulator's PoisonRead)."""
    def packed_mask_words(bits: Any, mask_dtype: str) -> Any:
        words = original(bits, mask_dtype)
        width = 8 * words.dtype.itemsize
        return words[:, :bits.shape[1] // width]

    return packed_mask_words


def _catalogue() -> list[Any]:
    rewriter = _auto_tile_rewriter()
    convert = "passes.convert_tensor_to_tile_ops:TensorToTileMutator"
    convert_pass = "passes.convert_tensor_to_tile_ops:ConvertTensorToTileOps"
    _CODEGEN = "passes.pto_codegen:PTOCodegen"
    return [
        PatchMutant("drop-compact-acc-seed", "auto-tile-matmul-l0",
                    "a row-narrowed Acc seed is created without the compact flag", rewriter, "_seed", _drop_compact),
        PatchMutant("narrowed-k-tiled-whole", "auto-tile-matmul-l0",
                    "a left operand valid over fewer K columns than it has is K-tiled in blocks valid over their whole "
                    "width (the columns past its valid K are summed)", rewriter, "_reject_narrowed_k", _narrowed_k_tiled),
        PatchMutant("slot-freed-before-view-read", "expand-mixed-kernel",
                    "a popped slot is released after the popped tile's last direct use, before a view of it is read",
                    "passes.expand_mixed_kernel", "_slot_readers", _direct_readers_only),
        PatchMutant("mix-barrier-on-vector-core-only", "expand-mixed-kernel",
                    "a mixed kernel's core_type=\"mix\" syncall is taken by its AIV kernel only",
                    "passes.expand_mixed_kernel", "_barrier_part", _mix_barrier_on_the_vector_core_only),
        PatchMutant("cross-core-gm-accesses-unordered", "expand-mixed-kernel",
                    "a GM tensor one core of a mixed kernel writes and the other accesses gets no barrier between them",
                    "passes.expand_mixed_kernel:_GmOrder", "block", _gm_accesses_left_unordered),
        PatchMutant("in-place-write-rebinds-tile", "convert-tensor-to-tile-ops",
                    "a tile written in place (tile.write, tile.scatter_mask) names the updated tile afterwards",
                    convert, "_rebind_written_local", _rebind_written_tiles),
        PatchMutant("broadcast-lhs-keeps-valid", "convert-tensor-to-tile-ops",
                    "a broadcast op's narrower lhs is not widened to the tensor result's valid region",
                    convert, "_broadcast_lhs_over_result", _broadcast_lhs_as_it_is),
        PatchMutant("broadcast-onto-box-over-whole-box", "convert-tensor-to-tile-ops",
                    "an operand a tensor op spreads over a boxed cube result is valid over the whole box, so the "
                    "op computes (and reads the product) past the user's value (finding 366fe57fed's class)",
                    convert, "_expand_onto_box", _spread_over_the_whole_box),
        PatchMutant("shift-one-address", "allocate-memory-addr",
                    "one allocated address moves down by one alignment unit", "passes.allocate_memory_addr",
                    "address_mapping", _shift_one_address),
        PatchMutant("wrong-k-peel", "auto-tile-matmul-l0", "the peeled K tail is 16 columns too narrow (or wide)",
                    rewriter, "_block", _wrong_peel),
        OutputEditMutant("omit-tile-move", "auto-tile-matmul-l0",
                         "the first tile.move hop (Mat -> Left / Right) is dropped; the matmul reads Mat",
                         f"{_AUTO_TILE}:AutoTileMatmulL0", _omit_tile_move),
        TableEntryMutant("slice-keeps-full-valid", "convert-tensor-to-tile-ops",
                         "a slice keeps its full valid_shape (the narrowing argument is dropped)",
                         "passes.convert_tensor_to_tile_ops", "SELF_LOADING_CONVERTERS", "tensor.slice",
                         _slice_keeps_full_valid),
        PatchMutant("swap-extract-offsets", "auto-tile-matmul-l0", "a Left tile.extract swaps its row and column offsets",
                    rewriter, "_block", _swap_extract_offsets),
        PatchMutant("reuse-one-statement-early", "memory-reuse",
                    "a buffer takes over a slot one statement before its last use", "passes.memory_reuse", "_fits",
                    _reuse_too_early),
        OutputEditMutant("cast-mode-rne", "convert-tensor-to-tile-ops",
                         "tile.cast rounds to nearest-even instead of the requested mode",
                         "passes.convert_tensor_to_tile_ops:ConvertTensorToTileOps", _cast_mode_rne),
        OutputEditMutant("row-expand-sub-as-add", "convert-tensor-to-tile-ops",
                         "row_expand_sub is lowered to tile.row_expand_add",
                         "passes.convert_tensor_to_tile_ops:ConvertTensorToTileOps", _row_expand_sub_as_add),
        PatchMutant("load-ignores-valid-extent", "convert-tensor-to-tile-ops",
                    "a boxed / windowed tile.load drops its valid_shape: it reads its whole box from GM", convert, "_call",
                    _load_ignores_valid),
        OutputEditMutant("k-loop-init-every-block", "auto-tile-matmul-l0",
                         "the K loop's first-block predicate is true on every block",
                         f"{_AUTO_TILE}:AutoTileMatmulL0", _init_every_block),
        OutputEditMutant("k-loop-one-block-short", "auto-tile-matmul-l0", "the pipelined K loop stops one block early",
                         f"{_AUTO_TILE}:AutoTileMatmulL0", _k_loop_short),
        OutputEditMutant("out-param-as-in", "upgrade-param-directions",
                         "a kernel's Out parameter is declared In",
                         "passes.upgrade_param_directions:UpgradeParamDirections", _out_param_as_in),
        OutputEditMutant("tcvt-drops-rmode", "pto-codegen", "pto.tcvt is emitted without its rounding mode",
                         "passes.pto_codegen:PTOCodegen", _tcvt_drops_rmode),
        OutputEditMutant("column-vector-row-major", "infer-tile-memory-space",
                         "a [rows, 1] Vec tile keeps the row-major view instead of col_major (DN)",
                         "passes.infer_tile_memory_space:InferTileMemorySpace", _vec_tile_row_major),
        OutputEditMutant("swap-sub-div-operands", "convert-tensor-to-tile-ops",
                         "tile.sub / tile.div get their operands swapped", convert_pass, _swap_sub_operands),
        OutputEditMutant("row-sum-as-row-max", "convert-tensor-to-tile-ops",
                         "row_sum is lowered to tile.row_max (the wrong reduction)", convert_pass, _row_sum_as_row_max),
        OutputEditMutant("user-loop-one-trip-short", "convert-tensor-to-tile-ops",
                         "a user pl.range loop loses its last iteration (stop - 1)", convert_pass,
                         _user_loop_one_trip_short),
        # (Replaced "boundary-subtile-full-valid": the grid's valid extents only narrow the zero
        # seed of a fresh accumulator, which is never read, so no program could tell.)
        PatchMutant("grid-drops-partial-column", "auto-tile-matmul-l0",
                    "the M / N output grid stops before a partial last column of sub-tiles", _AUTO_TILE,
                    "output_grid", _grid_drops_partial_column),
        OutputEditMutant("grid-store-offsets-swapped", "auto-tile-matmul-l0",
                         "one output-grid sub-tile is stored at (col, row) instead of (row, col)",
                         f"{_AUTO_TILE}:AutoTileMatmulL0", _grid_store_offsets_swapped),
        PatchMutant("reuse-ignores-loop-back-edge", "memory-reuse",
                    "liveness ignores the loop back-edge: a value read in a loop dies at its last textual read",
                    "passes.memory_reuse", "analyze_function", _reuse_ignores_back_edge),
        PatchMutant("alignment-halved", "allocate-memory-addr",
                    "addresses are aligned to half the space's alignment", "passes.allocate_memory_addr",
                    "address_mapping", _halve_alignment),
        OutputEditMutant("codegen-drops-a-tstore", "pto-codegen", "the first pto.tstore is not emitted",
                         "passes.pto_codegen:PTOCodegen", _drop_first_tstore),
        # Found by red-teaming with mutants outside this catalogue (each needed a new check).
        TableEntryMutant("mat-view-row-major", "infer-tile-memory-space",
                         "Mat tiles get row-major boxes instead of NZ (consistently, so only a layout check sees it)",
                         "languages.views", "_BOXED_LAYOUTS", MemorySpace.Mat, _mat_row_major),
        PatchMutant("written-param-shares-entry-load", "convert-tensor-to-tile-ops",
                    "a parameter the kernel writes (assemble) still shares the entry load; later reads are stale",
                    "passes.convert_tensor_to_tile_ops:_FunctionState", "shares_entry_load",
                    _written_param_shares_load),
        PatchMutant("acc-buffer-logical-rows", "init-mem-ref",
                    "an Acc buffer is sized at its logical rows, not the L0C row footprint (32-row INT32 groups)",
                    "passes.init_mem_ref", "physical_bytes", _acc_logical_rows),
        PatchMutant("packed-valid-ignores-middle-axes", "flatten-tile-nd-to-2d",
                    "a rank-3 tile's packed valid rows are valid[0] instead of valid[0] * middle extents",
                    "languages.ops.tile_ops", "packed_valid_2d", _packed_valid_first_axis),
        OutputEditMutant("mat-stage-collapsed", "auto-tile-matmul-l0",
                         "a Vec tile staged through Mat into Left / Right is moved straight from Vec (no data path)",
                         f"{_AUTO_TILE}:AutoTileMatmulL0", _mat_stage_collapsed),
        PatchMutant("zero-seed-predicate-vs-stop", "seed-zero-accumulators",
                    "a zero seed's first-step predicate tests `k == stop` instead of `k == start`",
                    "passes.seed_zero_accumulators", "first_step_predicate", _seed_predicate_vs_stop),
        PatchMutant("zero-seed-drops-init-cond", "seed-zero-accumulators",
                    "a zero seed becomes a tensor.create, but its first accumulation gets no init_cond",
                    "passes.seed_zero_accumulators", "predicated", _seed_drops_init_cond),
        # The second catalogue: if-branches, nested loops, carried reductions, column tiles,
        # strides, scalar access, the shared numerics and the simulator itself.
        OutputEditMutant("codegen-tsub-operands-swapped", "pto-codegen", "the first pto.tsub gets its operands swapped",
                         _CODEGEN, _swap_first_two_args("pto.tsub")),
        OutputEditMutant("codegen-tdiv-operands-swapped", "pto-codegen", "the first pto.tdiv gets its operands swapped",
                         _CODEGEN, _swap_first_two_args("pto.tdiv")),
        OutputEditMutant("codegen-tensor-view-strides-reversed", "pto-codegen",
                         "a 2-D pto.make_tensor_view declares its strides in reverse order", _CODEGEN,
                         _tensor_view_strides_reversed),
        OutputEditMutant("codegen-partition-offsets-swapped", "pto-codegen",
                         "a pto.partition_view takes its (row, col) offsets as (col, row)", _CODEGEN,
                         _partition_offsets_swapped),
        OutputEditMutant("codegen-if-branches-swapped", "pto-codegen", "the first scf.if has its branches swapped",
                         _CODEGEN, _if_branches_swapped),
        OutputEditMutant("codegen-tmax-as-tmin", "pto-codegen", "pto.tmax is emitted as pto.tmin", _CODEGEN,
                         _rename_op("pto.tmax", "pto.tmin")),
        OutputEditMutant("codegen-drops-a-tmov", "pto-codegen", "the first pto.tmov copy is not emitted", _CODEGEN,
                         _drop_first_tmov),
        OutputEditMutant("codegen-subview-offsets-swapped", "pto-codegen",
                         "a pto.subview's row and column offsets are emitted swapped", _CODEGEN,
                         _subview_offsets_swapped),
        OutputEditMutant("codegen-tcolsum-as-tcolmax", "pto-codegen", "pto.tcolsum is emitted as pto.tcolmax",
                         _CODEGEN, _rename_op("pto.tcolsum", "pto.tcolmax")),
        OutputEditMutant("maximum-as-minimum", "convert-tensor-to-tile-ops",
                         "tensor.maximum is lowered to tile.minimum (a carried running maximum goes wrong)",
                         convert_pass, _rename_op("tile.maximum", "tile.minimum")),
        OutputEditMutant("row-max-as-row-min", "convert-tensor-to-tile-ops", "row_max is lowered to tile.row_min",
                         convert_pass, _rename_op("tile.row_max", "tile.row_min")),
        OutputEditMutant("exp-as-sqrt", "convert-tensor-to-tile-ops", "the first tensor.exp is lowered to tile.sqrt",
                         convert_pass, _rename_op("tile.exp", "tile.sqrt", once=True)),
        OutputEditMutant("adds-as-subs", "convert-tensor-to-tile-ops", "tensor.adds is lowered to tile.subs",
                         convert_pass, _rename_op("tile.adds", "tile.subs")),
        OutputEditMutant("muls-scalar-as-one", "convert-tensor-to-tile-ops",
                         "a tile-scalar multiply loses its scalar (multiplies by 1)", convert_pass, _muls_scalar_as_one),
        OutputEditMutant("column-sum-as-column-max", "legalize-vec-layouts",
                         "a row_sum on an [N, 1] column becomes col_max on its row view (the wrong twin)",
                         "passes.legalize_vec_layouts:LegalizeVecLayouts", _rename_op("tile.col_sum", "tile.col_max")),
        PatchMutant("bits-route-window-unpacked", "legalize-vec-dtypes",
                    "a BF16 window (tile.slice) a BITS route re-views as INT16 is not copied out first: the view "
                    "starts at its source buffer's first byte", "passes.legalize_vec_dtypes:_Widener", "_packed",
                    _operand_unpacked),
        PatchMutant("window-re-viewed-unpacked", "legalize-vec-layouts",
                    "a reinterpret_view of a Vec window re-views it in place, from its source buffer's first byte",
                    "passes.legalize_vec_layouts:_Legalizer", "_reinterpret_packed", _reinterpret_in_place),
        PatchMutant("re-viewed-window-copied-over-its-valid-region", "legalize-vec-layouts",
                    "a reinterpret_view of a Vec window narrowed by its valid_shape and read past it copies the "
                    "window over its valid region only, not over what the re-view's consumers read (finding "
                    "tile_reinterpret_of_a_narrowed_window_read_whole)",
                    "passes.legalize_vec_layouts:_Legalizer", "_window_over_read",
                    _window_copied_over_its_valid_region),
        PatchMutant("vec-insert-in-its-own-type", "legalize-vec-layouts",
                    "a Vec window copy or window write (a pto.tinsert) is made in its own element type even where "
                    "tinsert takes no such type (INT16, INT32 on A2/A3), not as the bits of one it takes (by "
                    "every pass that makes such a copy: they share passes/analysis/vec_insert_bits.py)",
                    "passes.analysis.vec_insert_bits", "insert_type", _copied_as_it_is),
        PatchMutant("alias-window-copy-in-its-own-type", "materialize-semantic-aliases",
                    "MaterializeSemanticAliases copies a window (a yielded tile.slice, a pto.tinsert) in its own "
                    "element type, UINT16 say, not as the bits of one tinsert takes (finding 6b09f0c436)",
                    "passes.materialize_semantic_aliases", "writes_with_vec_insert", _no_vec_inserts),
        PatchMutant("strided-column-left-as-is", "legalize-vec-layouts",
                    "a row-major [N, 1] window of a 2-D tile beside a column-major column is left [N, 1] where the "
                    "op runs on [1, N] rows, not gathered into a row (finding 3d96c19acc)",
                    "passes.legalize_vec_layouts", "_is_strided_column", _no_strided_columns),
        PatchMutant("col-broadcast-of-a-window-uncopied", "legalize-vec-layouts",
                    "a column broadcast (pto.tcolexpand*) reads a window as its pto.subview, which PTOAS measures as "
                    "its parent's buffer once lowered", "passes.legalize_vec_layouts", "SHAPE_MATCHED_INSTRUCTIONS",
                    _without_col_broadcasts),
        PatchMutant("read-past-operand-not-revalidated", "revalidate-read-operands",
                    "an element-wise op's operand read past its valid region keeps its narrower valid shape",
                    "passes.revalidate_read_operands:_Revalidator", "_region_read", _read_over_own_region),
        PatchMutant("bf16-column-widened-column-major", "legalize-vec-dtypes",
                    "a BF16 row broadcast's [N, 1] per-row column is widened (tcvt, tshls) as it stands, "
                    "column-major, not on its [1, N] row view (agent-k's finding 3a911717c9)",
                    "passes.legalize_vec_dtypes", "_is_column_major_column", _no_column_major_columns),
        PatchMutant("re-view-revalidated-keeps-narrowing", "legalize-vec-layouts",
                    "a reshape view read past its valid region is taken again of its re-validated source with its "
                    "own valid_shape argument kept, so it stays narrower (finding 66a183e452; the helper "
                    "LegalizeVecLayouts and LegalizeVecDtypes share)",
                    "passes.analysis.view_retake", "retaken_view_args", _view_narrowing_kept),
        PatchMutant("view-retaken-keeps-own-valid", "revalidate-read-operands",
                    "a view stating its own valid region (a window's or a reshape's valid_shape) taken again over "
                    "the region read keeps the region it stated, so it stays narrower (finding 66a183e452 in "
                    "RevalidateReadOperands; ConvertTensorToTileOps takes views again by the same registry fact)",
                    "languages.ops:ViewValid", "stated", _own_valid_kept),
        PatchMutant("bf16-widening-drops-padding", "legalize-vec-dtypes",
                    "a BF16 operand an FP32 op reads past its valid region is widened over its valid region only",
                    "passes.legalize_vec_dtypes:_Widener", "_whole_if_read_past", _operand_as_it_is),
        PatchMutant("gather-index-at-logical-pitch", "convert-tensor-to-tile-ops",
                    "a flat tensor.gather hands TGATHER the user's index unchanged, though a source whose rows are "
                    "padded has them a pitch apart (index 4 of a [16, 4] FP32 source reads padding)",
                    "passes.convert_tensor_to_tile_ops:TensorToTileMutator", "_flat_index_over_pitch",
                    _gather_index_unpitched),
        PatchMutant("int32-ordering-compare-direct", "convert-tensor-to-tile-ops",
                    "an INT32 tensor.cmp lt / le / gt / ge lowers to a tile.cmp of that mode, which A2/A3's TCMP "
                    "computes as eq (the lowering compares the min / max of the operands for (in)equality instead)",
                    "passes.convert_tensor_to_tile_ops:TensorToTileMutator", "_ordering_by_equality",
                    _ordering_compare_as_it_is),
        PatchMutant("gather-window-not-packed", "convert-tensor-to-tile-ops",
                    "a column window of an on-chip tensor is gathered from (scattered into) in place: TGATHER counts "
                    "its own columns while its rows lie the parent's pitch apart",
                    "passes.convert_tensor_to_tile_ops:TensorToTileMutator", "_packed", _gather_source_unpacked),
        PatchMutant("gather-index-unplaced-pitch", "convert-tensor-to-tile-ops",
                    "the flat index of a gather from (scatter into) a packed window counts the copy at the pitch "
                    "its unplaced shape implies (a one-column window as a column, one element a row), not the "
                    "row-major one its placement keeps (rows 32 bytes apart)",
                    "passes.convert_tensor_to_tile_ops:TensorToTileMutator", "_placed_pitch", _pitch_as_unplaced),
        PatchMutant("expand-clone-copies-valid-region", "convert-tensor-to-tile-ops",
                    "tensor.expand_clone of a source narrowed by set_validshape (or a narrowing reshape) stores "
                    "only its valid region: the rest of the target keeps its old values",
                    "passes.convert_tensor_to_tile_ops:TensorToTileMutator", "_read_whole",
                    _narrowed_source_as_it_is),
        PatchMutant("cube-operand-computed-on-chip-unboxed", "convert-tensor-to-tile-ops",
                    "a matmul operand computed in Vec crosses into Mat at its own shape, not boxed as its load would "
                    "be (M = 20 or M = 1 left operands, N = 20 right operands)",
                    "passes.convert_tensor_to_tile_ops:TensorToTileMutator", "_boxed_on_chip",
                    _on_chip_cube_operand_unboxed),
        PatchMutant("gm-view-loaded-where-defined", "convert-tensor-to-tile-ops",
                    "a view of a GM parameter the kernel writes is loaded where it is defined: a read after a later "
                    "write sees the old bytes, and a write through the view stays on chip",
                    "passes.convert_tensor_to_tile_ops", "_defines_gm_view", _never_a_gm_view),
        PatchMutant("compact-acc-revalidated-compact", "infer-tile-memory-space",
                    "set_validshape of a compact accumulator keeps it compact whatever its new valid rows (its "
                    "row pitch follows them, so the box columns past the first are read from other bytes)",
                    "languages.ops.tensor_ops", "_same_reader_pitch", _result_as_it_is),
        PatchMutant("alias-copy-in-source-buffer", "materialize-semantic-aliases",
                    "a copy MaterializeSemanticAliases inserts is allocated in the buffer it copies from",
                    "passes.materialize_semantic_aliases:_Copies", "copy_of", _copy_in_source_buffer),
        PatchMutant("last-buffer-overlaps-previous", "allocate-memory-addr",
                    "the last buffer of a space is placed half a buffer into the one before it",
                    "passes.allocate_memory_addr", "address_mapping", _last_buffer_overlaps),
        TableEntryMutant("index-fold-plus-as-minus", "simplify-index-arith", "constant index `a + b` is folded as `a - b`",
                         "passes.simplify_index_arith", "_INT_OPS", "+", lambda original: operator.sub),
        OutputEditMutant("dce-drops-an-if-with-stores", "dead-code-elimination",
                         "an if without phis is deleted as dead although a branch stores",
                         "passes.dead_code_elimination:DeadCodeElimination", _dce_drops_an_if_with_stores),
        OutputEditMutant("call-site-args-swapped", "update-orchestration-call-sites",
                         "a kernel call passes two same-typed tensors in swapped order",
                         "passes.update_orchestration_call_sites:UpdateOrchestrationCallSites", _call_site_args_swapped),
        OutputEditMutant("call-site-window-strides-dropped", "update-orchestration-call-sites",
                         "a kernel called on a window of a wider tensor keeps packed parameter strides",
                         "passes.update_orchestration_call_sites:UpdateOrchestrationCallSites",
                         _window_strides_dropped),
        OutputEditMutant("inout-param-as-out", "upgrade-param-directions",
                         "a kernel's InOut parameter is declared Out (its input is not bound)",
                         "passes.upgrade_param_directions:UpgradeParamDirections", _inout_param_as_out),
        OutputEditMutant("zero-seed-predicate-negated", "seed-zero-accumulators",
                         "a zero seed's first-step predicate `==` becomes `!=`",
                         "passes.seed_zero_accumulators:SeedZeroAccumulators", _seed_predicate_negated),
        OutputEditMutant("rank1-window-offset-dropped", "flatten-tile-nd-to-2d",
                         "a packed rank-1 window ([1, n]) loses its column offset",
                         "passes.flatten_tile_nd_to_2d:FlattenTileNdTo2D", _rank1_window_offset_dropped),
        PatchMutant("numerics-rint-ties-away", "backend.numerics",
                    "the shared numerics round ties away from zero where RNE is asked",
                    "backend.numerics", "_round_magnitude_to_integer", _ties_away_for_rint),
        PatchMutant("numerics-int-add-saturates", "backend.numerics",
                    "the shared numerics saturate integer addition instead of wrapping",
                    "backend.numerics", "_int_binary", _saturating_int_add),
        PatchMutant("numerics-mask-partial-byte-dropped", "backend.numerics",
                    "a compare's packed mask stops at its last whole byte: the bits of the columns past it are "
                    "never written (a select over 20 compared columns reads a poisoned third byte)",
                    "backend.numerics", "packed_mask_words", _mask_partial_byte_dropped),
        PatchMutant("sim-window-offset-ignored", "simulator",
                    "the orchestration runner hands a kernel a window of a GM tensor from the tensor's first "
                    "element, ignoring the window's offset", "nanopass_pto.run", "gm_window", _window_at_offset_zero),
        PatchMutant("sim-window-strides-ignored", "simulator",
                    "the orchestration runner hands a kernel a window of a GM tensor as a packed copy of its "
                    "values, ignoring its strides (and the caller's memory)", "nanopass_pto.run", "gm_window",
                    _window_values_packed),
        TableEntryMutant("sim-remsi-floor-remainder", "simulator", "the simulator's arith.remsi is Python's floor %",
                         "backend.sim.executor", "_INT_ARITH", "remsi", _sim_remsi_floor),
        TableEntryMutant("sim-slt-as-sle", "simulator", "the simulator's cmpi slt is <=",
                         "backend.sim.executor", "_PREDICATES", "slt", _sim_slt_as_sle),
        TableEntryMutant("sim-maxf-as-min", "simulator", "the simulator's scalar arith.maxf is a minimum",
                         "backend.sim.executor", "_FLOAT_ARITH", "maxf", _sim_maxf_as_min),
        PatchMutant("placed-inout-as-out", "upgrade-param-directions-placed",
                    "a hand-placed kernel's written In parameter it also reads is declared Out (its input is not bound)",
                    "passes.upgrade_param_directions_placed", "upgraded_function", _placed_inout_as_out),
        PatchMutant("placed-out-kept-in", "upgrade-param-directions-placed",
                    "a hand-placed kernel's parameter it only writes stays declared In (its store is lost)",
                    "passes.upgrade_param_directions_placed", "upgraded_function", _placed_out_kept_in),
        PatchMutant("bf16-narrowing-truncates", "legalize-vec-dtypes",
                    "a BF16 op computed in FP32 is narrowed back truncating instead of rounding to nearest-even",
                    "passes.legalize_vec_dtypes", "_NARROW_MODE", _narrowing_truncates),
        PatchMutant("in-place-result-own-buffer", "materialize-semantic-aliases",
                    "an in-place op's result (tile.write, matmul_acc, scatter) is not merged with its operand's buffer",
                    "passes.materialize_semantic_aliases", "_candidates", _in_place_operands_dropped),
        TableEntryMutant("sim-divsi-floors", "simulator", "the simulator's arith.divsi is Python's floor //",
                         "backend.sim.executor", "_INT_ARITH", "divsi", _sim_divsi_floors),
    ]


class _Catalogue:
    """Built on first use: the patch targets import the passes."""

    def __init__(self) -> None:
        self._items: list[Any] | None = None

    def _load(self) -> list[Any]:
        if self._items is None:
            self._items = _catalogue()
        return self._items

    def __iter__(self) -> Iterator[Any]:
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())


MUTANTS = _Catalogue()

__all__ = ["MUTANTS", "OutputEditMutant", "PatchMutant", "TableEntryMutant", "transform"]
