"""MemoryReuse (Addressed → Addressed): buffers of one space whose lifetimes do not overlap share
one MemRef (lifetime-based coalescing, per function and per memory space).

Liveness comes from `passes.analysis.liveness` (a value live across a loop back-edge is live in
the whole loop). A buffer may take over a slot whose last use comes strictly before the
buffer's definition; it may also take it over *at* that statement only when the defining op is
in-place safe in the registry (`tile.move` and `tile.extract` are not: the hardware reads and
writes the same bytes in flight).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from typing_extensions import override

import languages.gen.addressed as A
from languages.decls import Addressed
from languages.memory_space import MemorySpace
from languages.ops import REGISTRY, Effect
from languages.types import MemRef, TileType
from nanopass.langdef import Language
from nanopass.node import Node
from nanopass.passes import Pass, PassContext
from passes.analysis.liveness import LiveRange, Liveness, analyze_function
from passes.analysis.memrefs import memrefs_of, rebind_each_function


@dataclass
class _Slot:
    head: MemRef
    end: int
    size: int
    members: list[str] = field(default_factory=list)
    # The same names as a set: the handover check asks "is this operand a member?" once per
    # operand, and a long-lived slot collects members in proportion to the program.
    member_set: set[str] = field(default_factory=set)

    def add(self, name: str) -> None:
        self.members.append(name)
        self.member_set.add(name)


def _handover_allowed(liveness: Liveness, point: int, dying: set[str]) -> bool:
    """Whether the statement at `point` may write its result over buffers `dying` it reads last.

    Only an in-place-safe op, and only over operands it merely reads: an operand it writes (a
    reduction's scratch `tmp`) is clobbered while the result is being produced.
    """
    stmt: Node | None = liveness.statement_at.get(point)
    if not isinstance(stmt, A.AssignStmt) or not isinstance(stmt.value, A.Call) or stmt.value.op not in REGISTRY:
        return False
    opdef = REGISTRY.get(stmt.value.op)
    if not opdef.in_place_safe:
        return False
    for index, arg in enumerate(stmt.value.args):
        ty = getattr(arg, "type", None)
        if isinstance(ty, TileType) and ty.memref is not None and ty.memref.name in dying \
                and opdef.effect_of(index, stmt.value.attrs) is not Effect.READ:
            return False
    return True


def _fits(slot: _Slot, live: LiveRange, liveness: Liveness) -> bool:
    if slot.end < live.start:
        return True
    return slot.end == live.start and _handover_allowed(liveness, live.start, slot.member_set)


def reuse_mapping(function: A.Function) -> tuple[dict[str, MemRef], int]:
    """MemRef name → shared MemRef for every buffer of `function` (only merged ones change)."""
    liveness = analyze_function(function)
    ranges = liveness.buffer_ranges()
    buffers: dict[str, MemRef] = {}
    for _, memref in memrefs_of(function):
        buffers.setdefault(memref.name, memref)
    slots_by_space: dict[MemorySpace, list[_Slot]] = {}
    order = sorted((name for name in buffers if name in ranges), key=lambda n: (ranges[n].start, ranges[n].end))
    reused = 0
    for name in order:
        memref, live = buffers[name], ranges[name]
        slots = slots_by_space.setdefault(memref.space, [])
        candidates = [s for s in slots if _fits(s, live, liveness)]
        if candidates:
            # Prefer the slot closest in size (a big slot stays available for a big buffer).
            slot = min(candidates, key=lambda s: (s.size < memref.size, abs(s.size - memref.size)))
            slot.end, slot.size = live.end, max(slot.size, memref.size)
            slot.add(name)
            reused += 1
        else:
            slots.append(_Slot(memref, live.end, memref.size, [name], {name}))
    mapping: dict[str, MemRef] = {}
    for slots in slots_by_space.values():
        for slot in slots:
            if len(slot.members) > 1:
                shared = MemRef(slot.head.name, slot.head.space, slot.head.offset, slot.size)
                mapping.update({member: shared for member in slot.members})
    return mapping, reused


@dataclass(frozen=True)
class MemoryReuse(Pass[A.Program, A.Program]):
    """Buffers with disjoint lifetimes in one space share a MemRef."""

    name: ClassVar[str] = "memory-reuse"
    spec_name: ClassVar[str] = "MemoryReuse"
    source: ClassVar[Language] = Addressed
    target: ClassVar[Language] = Addressed
    requires: ClassVar[frozenset[str]] = frozenset({"HasMemRefs"})
    invalidates: ClassVar[frozenset[str]] = frozenset({"MemoryCapacity", "NoCoLiveOverlap"})

    @override
    def run(self, program: A.Program, ctx: PassContext) -> A.Program:
        return rebind_each_function(program, ctx, "buffers-reused", reuse_mapping)
