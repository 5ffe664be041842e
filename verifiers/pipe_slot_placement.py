"""PipeSlotPlacement: a popped tile sits in a slot of its pipe's reserved region, and no other
buffer overlaps that region.

pto-isa's TPOP binds the popped tile to a slot of the consumer's reserved region (`TASSIGN(tile,
CONSUMER_BUF + (index % SLOT_NUM) * SLOT_SIZE)`); PTO codegen gives the pop no `alloc_tile`.
An address plan that puts the popped tile anywhere else models bytes the hardware never writes
(and double-counts the pipe in the space's capacity); a buffer over the region is overwritten by
the next pop. Checked once addresses are assigned (a region's base and a buffer's offset >= 0).
"""

from __future__ import annotations

from languages.memory_space import MemorySpace
from languages.types import MemRef, TileType, attr
from nanopass.diagnostics import Diagnostic
from nanopass.node import Node, preorder

RULE = "PipeSlotPlacement"
_POPS = frozenset({"tile.tpop_from_aic", "tile.tpop_from_aiv"})
_RESERVE = "system.reserve_buffer"
_INITS = frozenset({"system.aic_initialize_pipe", "system.aiv_initialize_pipe"})


def _calls(function: Node, ops: frozenset[str]) -> list[Node]:
    return [n for n in preorder(function) if n.KIND == "Call" and str(getattr(n, "op")) in ops]


def _regions(function: Node) -> dict[MemorySpace, tuple[int, int, Node]]:
    """Per space, the reserved region's (base, size, call), once its base is assigned."""
    out: dict[MemorySpace, tuple[int, int, Node]] = {}
    for call in _calls(function, frozenset({_RESERVE})):
        attrs = getattr(call, "attrs")
        space, base, size = attr(attrs, "location"), attr(attrs, "base"), attr(attrs, "size")
        if isinstance(space, MemorySpace) and isinstance(base, int) and base >= 0 and isinstance(size, int):
            out[space] = (base, size, call)
    return out


def _popped(function: Node) -> dict[str, tuple[MemRef, Node]]:
    """MemRef name -> (MemRef, pop statement) of every popped tile."""
    out: dict[str, tuple[MemRef, Node]] = {}
    for node in preorder(function):
        if node.KIND != "AssignStmt":
            continue
        value, target = getattr(node, "value"), getattr(node, "target")
        ty = getattr(target, "type", None)
        if value.KIND == "Call" and str(getattr(value, "op")) in _POPS and isinstance(ty, TileType) \
                and ty.memref is not None:
            out.setdefault(ty.memref.name, (ty.memref, node))
    return out


def _check_function(function: Node) -> list[Diagnostic]:
    regions = _regions(function)
    inits = _calls(function, _INITS)
    if not regions or not inits:
        return []
    slot_size = attr(getattr(inits[0], "attrs"), "slot_size")
    if not isinstance(slot_size, int) or slot_size <= 0:
        return []
    out: list[Diagnostic] = []
    popped = _popped(function)
    for memref, pop in popped.values():
        region = regions.get(memref.space)
        if region is None or memref.offset < 0:
            continue
        base, size, _ = region
        start = memref.offset - base
        if start < 0 or start % slot_size or memref.size > slot_size or memref.offset + memref.size > base + size:
            out.append(Diagnostic.at(
                pop, RULE,
                f"the popped tile's buffer {memref.name} is at bytes [{memref.offset}, {memref.offset + memref.size}) "
                f"of {memref.space.name}, not in a {slot_size}-byte slot of the pipe's region "
                f"[{base}, {base + size}), where TPOP binds it",
                hint="allocate-memory-addr places each popped tile in its pipe's slot region"))
    seen: set[str] = set()
    for node in preorder(function):
        ty = getattr(node, "type", None) if node.KIND in ("Var", "Call") else None
        if not isinstance(ty, TileType) or ty.memref is None or ty.memref.name in seen:
            continue
        memref = ty.memref
        seen.add(memref.name)
        region = regions.get(memref.space)
        if memref.name in popped or region is None or memref.offset < 0:
            continue
        base, size, call = region
        if memref.offset < base + size and base < memref.offset + memref.size:
            out.append(Diagnostic.at(
                node, RULE,
                f"buffer {memref.name} at bytes [{memref.offset}, {memref.offset + memref.size}) of "
                f"{memref.space.name} overlaps the pipe's slot region [{base}, {base + size}), which the next "
                f"pop overwrites", hint="allocate-memory-addr places buffers above the reserved regions"))
    return out


def verify(program: Node) -> list[Diagnostic]:
    diagnostics: list[Diagnostic] = []
    for function in getattr(program, "functions"):
        diagnostics.extend(_check_function(function))
    return diagnostics
