"""Where a popped tile lives: in a slot of its pipe's reserved region, not in a buffer of its own.

pto-isa's TPOP binds the popped tile to the consumer's local slot (`TASSIGN(tile,
CONSUMER_BUF + (index % SLOT_NUM) * SLOT_SIZE)`, npu/a2a3/TPush.hpp), and PTO codegen emits no
`alloc_tile` for it: the bytes a pop lands in are part of the `system.reserve_buffer` region of
its space. Giving the popped tile a buffer of its own as well counts it twice (the slot and the
buffer), which made mixed kernels overflow Vec / Mat that fit.

The memory planners share this module: MemoryReuse leaves a popped tile's MemRef out of lifetime
sharing (its bytes belong to the pipe, and another value placed there would be overwritten by the
next pop), and AllocateMemoryAddr places the k-th pop of a function (program order) in slot
k mod slot_num of its region. ExpandMixedKernel frees every slot before the next pop of its
direction (tpop -> users -> tfree -> next tpop), so a pop never finds its static slot occupied.
"""

from __future__ import annotations

from dataclasses import dataclass

import languages.gen.addressed as A
from languages.memory_space import MemorySpace
from languages.ops import REGISTRY
from languages.ops.pipe_ops import DEFAULT_SLOT_NUM
from languages.types import MemRef, TileType, attr
from nanopass.node import walk

POP_OPS = frozenset({"tile.tpop_from_aic", "tile.tpop_from_aiv"})
RESERVE_OP = "system.reserve_buffer"
INIT_OPS = frozenset({"system.aic_initialize_pipe", "system.aiv_initialize_pipe"})


def _defined_memrefs(function: A.Function) -> list[tuple[A.Call, MemRef]]:
    """(defining call, MemRef) of every tile-defining assignment, in program order."""
    found: list[tuple[A.Call, MemRef]] = []
    for node in walk(function):
        if isinstance(node, A.AssignStmt) and isinstance(node.value, A.Call) \
                and isinstance(node.target.type, TileType) and node.target.type.memref is not None:
            found.append((node.value, node.target.type.memref))
    return found


def popped_memrefs(function: A.Function) -> list[MemRef]:
    """The MemRefs only pops (and zero-copy views of them) define, in program order of the pops:
    the buffers that live in a pipe slot."""
    defined = _defined_memrefs(function)
    other = {m.name for call, m in defined if call.op not in POP_OPS and not REGISTRY.is_view(call.op)}
    seen: dict[str, MemRef] = {}
    for call, memref in defined:
        if call.op in POP_OPS and memref.name not in other:
            seen.setdefault(memref.name, memref)
    return list(seen.values())


@dataclass(frozen=True)
class SlotRing:
    """A reserved region seen as its pipe's ring of slots."""

    space: MemorySpace
    slot_size: int
    slot_num: int


def slot_rings(function: A.Function) -> dict[MemorySpace, SlotRing]:
    """Per consumer space, the slot ring the function's pipe keeps there (from its reserve_buffer
    and initialize_pipe)."""
    spaces = [attr(c.attrs, "location") for c in walk(function) if isinstance(c, A.Call) and c.op == RESERVE_OP]
    inits = [c for c in walk(function) if isinstance(c, A.Call) and c.op in INIT_OPS]
    if not inits:
        return {}
    slot_size, slot_num = attr(inits[0].attrs, "slot_size"), attr(inits[0].attrs, "slot_num", DEFAULT_SLOT_NUM)
    if not isinstance(slot_size, int) or not isinstance(slot_num, int):
        return {}
    return {space: SlotRing(space, slot_size, slot_num) for space in spaces if isinstance(space, MemorySpace)}
