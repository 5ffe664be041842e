"""ConsumerSpaceCollector: the memory space (and cube boxing) each value's consumers demand.

A tensor op's conversion (`OpDef.to_tile`) lists the operands it needs as tiles; the space such
an operand must be loaded into is derived from the consuming tile op's own `input_memory`
declaration (`REGISTRY.demanded_space`, i.e. BridgeSpaceOf staged through
StagingSpaceForLoad). This module collects that demand for every variable of an InCore
function so the *producer* (a `tensor.slice` that loads, a parameter's entry load, the
`tensor.create` seeding an accumulator) can land the value where it is consumed instead of in
Vec followed by a move. Demand flows backwards through zero-copy metadata ops that inherit
their input's space (set_validshape, reshape, view, ...) and from a loop's iter-arg to its seed.

Cube boxing rides on the demand: the axis carrying a matmul's M (or N) is rounded up to the lcm
of the box granularities of every tile it runs through, read from the implicit views of those
spaces (`languages.views`), never written here.
"""

from __future__ import annotations

from dataclasses import dataclass

from languages.cube_boxing import BoxRequest, cube_box
from languages.memory_space import MemorySpace
from languages.ops import REGISTRY, InheritInput, OpDef, ReusesInput, TileInput, staging_space_for_load
from languages.types import DataType, Dims, TensorType
from languages.layout import is_row_major_linear
from languages.views import implicit_view
from nanopass.node import Node

# Vec is the default placement of any unconstrained load; InferTileMemorySpace derives it
# anyway, so a Vec requirement is not recorded as a demand (the load stays unplaced).
DEFAULT_SPACE = MemorySpace.Vec


@dataclass(frozen=True)
class SpaceDemand:
    space: MemorySpace
    box: BoxRequest | None = None


def operand_demand(call: Node, tile_input: TileInput) -> SpaceDemand | None:
    """What the consuming call itself asks of operand `tile_input.arg` (None: no demand)."""
    space = REGISTRY.demanded_space(tile_input)
    if space is None or space is DEFAULT_SPACE:
        return None
    return SpaceDemand(space, cube_box(getattr(call, "args"), getattr(call, "attrs"), tile_input))


def accumulator_demands(call: Node) -> dict[int, SpaceDemand]:
    """Operands the converted tile op reads from a space nothing can load (an accumulator):
    they are allocated where they are consumed, boxed like the operand that decides M
    (m_align_from_arg: the left operand, whose box already includes the product's)."""
    opdef = REGISTRY.get(getattr(call, "op"))
    conversion = opdef.to_tile
    if conversion is None:
        return {}
    tile_op = REGISTRY.get(conversion.tile_op)
    m_decider = next((t for t in conversion.tile_inputs if t.cube_m_axis), None)
    bridged = {t.arg for t in conversion.tile_inputs}
    demands: dict[int, SpaceDemand] = {}
    for index, arg in enumerate(getattr(call, "args")):
        if index in bridged or index >= len(tile_op.operands):
            continue
        space = tile_op.operands[index].input_memory
        if space is None or space in (DEFAULT_SPACE, MemorySpace.Mat) or not isinstance(getattr(arg, "type", None), TensorType):
            continue
        try:
            staging_space_for_load(space)
            continue  # loadable: bridged like any operand
        except ValueError:
            pass
        box = cube_box(getattr(call, "args"), getattr(call, "attrs"), m_decider) if m_decider is not None else None
        # The accumulator is [M, N]: its M is on rows whichever axis carried it in the operand.
        demands[index] = SpaceDemand(space, BoxRequest(0, box.align) if box is not None else None)
    return demands


def propagates_demand(opdef: OpDef) -> bool:
    """A zero-copy metadata op (set_validshape, reshape, ...) bridges its operand without a
    space of its own and its tile form lives where its input does: the demand on its result is
    the demand on its input. Self-loading ops (slice, ...) answer the demand with their own load;
    ops whose operand has its own requirement (transpose, element-wise) stop the chain."""
    conversion = opdef.to_tile
    if conversion is None or conversion.self_loading:
        return False
    first = next((t for t in conversion.tile_inputs if t.arg == 0), None)
    if first is None or first.space_of:
        return False
    return isinstance(REGISTRY.get(conversion.tile_op).output_memory, (InheritInput, ReusesInput))


class ConsumerDemand:
    """Variable name → the demand of all its consumers (absent: none or conflicting)."""

    def __init__(self) -> None:
        self._demands: dict[str, SpaceDemand] = {}
        self._conflicted: set[str] = set()

    def get(self, name: str) -> SpaceDemand | None:
        return self._demands.get(name)

    def add(self, name: str, demand: SpaceDemand) -> bool:
        """Merge one consumer's demand; return True if the recorded demand changed."""
        if name in self._conflicted:
            return False
        old = self._demands.get(name)
        if old is None:
            self._demands[name] = demand
            return True
        if old.space is not demand.space:
            # Consumers in different buffers: no single load answers both; leave it unset.
            del self._demands[name]
            self._conflicted.add(name)
            return True
        # Rows are boxed only if every consumer asks for the same box.
        merged = SpaceDemand(old.space, old.box if old.box == demand.box else None)
        self._demands[name] = merged
        return merged != old

    def items(self) -> list[tuple[str, SpaceDemand]]:
        return sorted(self._demands.items())


def collect_consumer_demand(function: Node) -> ConsumerDemand:
    demand = ConsumerDemand()
    body: tuple[Node, ...] = getattr(function, "body")
    while _collect_block(body, demand):
        pass
    return demand


def _collect_block(body: tuple[Node, ...], demand: ConsumerDemand) -> bool:
    changed = False
    for stmt in reversed(body):
        changed |= _collect_stmt(stmt, demand)
    return changed


def _collect_stmt(stmt: Node, demand: ConsumerDemand) -> bool:
    kind = stmt.KIND
    if kind == "ForStmt":
        changed = _collect_block(getattr(stmt, "body"), demand)
        for iter_arg in getattr(stmt, "iter_args"):
            changed |= _propagate(getattr(iter_arg, "var"), getattr(iter_arg, "init"), demand, keep_box=True)
        return changed
    if kind == "IfStmt":
        return _collect_block(getattr(stmt, "then_body"), demand) | _collect_block(getattr(stmt, "else_body"), demand)
    if kind not in ("AssignStmt", "EvalStmt"):
        return False
    value = getattr(stmt, "value")
    target = getattr(stmt, "target") if kind == "AssignStmt" else None
    if target is not None and value.KIND == "Var":
        # A plain alias `b = a`: b's consumers are a's (the alias is the same value).
        return _propagate(target, value, demand, keep_box=True)
    if value.KIND != "Call" or getattr(value, "op") not in REGISTRY:
        return False
    return _collect_call(value, target, demand)


def _collect_call(call: Node, target: Node | None, demand: ConsumerDemand) -> bool:
    opdef = REGISTRY.get(getattr(call, "op"))
    conversion = opdef.to_tile
    args: tuple[Node, ...] = getattr(call, "args")
    changed = False
    if conversion is not None:
        for tile_input in conversion.tile_inputs:
            arg = args[tile_input.arg] if tile_input.arg < len(args) else None
            wanted = operand_demand(call, tile_input)
            if arg is not None and arg.KIND == "Var" and wanted is not None:
                changed |= demand.add(getattr(arg, "name"), wanted)
        for index, wanted in accumulator_demands(call).items():
            if args[index].KIND == "Var":
                changed |= demand.add(getattr(args[index], "name"), wanted)
    if target is not None and propagates_demand(opdef) and args and args[0].KIND == "Var":
        source_shape = getattr(getattr(args[0], "type", None), "shape", None)
        result_shape = getattr(getattr(target, "type", None), "shape", None)
        dtype = getattr(getattr(args[0], "type", None), "dtype", DataType.INT8)
        changed |= _propagate_through(target, args[0], demand, source_shape, result_shape, dtype)
    return changed


def demand_through_view(wanted: SpaceDemand | None, source_shape: Dims | None,
                        result_shape: Dims | None, dtype: DataType) -> SpaceDemand | None:
    """The demand a zero-copy metadata op (see `propagates_demand`) passes to its operand when
    its result is wanted as `wanted`: the same demand for a same-shape op; the space alone (the
    box belongs to the result's shape) for a reshape that stays a re-view there; nothing for a
    reshape into a boxed space (Mat's NZ, ...), where reading the source's bytes under the new
    shape would pair each element with another element's bytes: the source is then loaded flat
    (Vec), reshaped there, and moved into the demanded space by InferTileMemorySpace."""
    if wanted is None:
        return None
    if source_shape is not None and tuple(source_shape) == tuple(result_shape or ()):
        return wanted
    if source_shape is None or result_shape is None:
        return SpaceDemand(wanted.space)
    space = wanted.space
    if is_row_major_linear(implicit_view(space, source_shape), source_shape, dtype) and \
            is_row_major_linear(implicit_view(space, result_shape), result_shape, dtype):
        return SpaceDemand(space)
    return None


def _propagate_through(consumer: Node, producer: Node, demand: ConsumerDemand, source_shape: Dims | None,
                       result_shape: Dims | None, dtype: DataType) -> bool:
    if producer.KIND != "Var":
        return False
    passed = demand_through_view(demand.get(getattr(consumer, "name")), source_shape, result_shape, dtype)
    return demand.add(getattr(producer, "name"), passed) if passed is not None else False


def _propagate(consumer: Node, producer: Node, demand: ConsumerDemand, keep_box: bool) -> bool:
    if producer.KIND != "Var":
        return False
    wanted = demand.get(getattr(consumer, "name"))
    if wanted is None:
        return False
    return demand.add(getattr(producer, "name"), wanted if keep_box else SpaceDemand(wanted.space))
