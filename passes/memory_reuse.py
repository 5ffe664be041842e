"""MemoryReuse (Addressed → Addressed): buffers of one space whose lifetimes do not overlap share
one MemRef (lifetime-based coalescing, per function and per memory space).

Liveness comes from `passes.analysis.liveness` (a value live across a loop back-edge is live in
the whole loop). A buffer may take over a slot whose last use comes strictly before the
buffer's definition; it may also take it over *at* that statement only when the defining op is
in-place safe in the registry for that operand (`OpDef.may_write_over`: never `tile.move`,
`tile.extract`, a transpose or a width-changing cast, whose units overwrite elements they have
not read yet). A popped tile's bytes are a pipe slot (passes/analysis/pipe_slots.py): it takes
part in no sharing. A merged MemRef's offset is unassigned (AllocateMemoryAddr lays every buffer
out afresh): on an input already addressed, the first member's offset with the slot's grown
size would overlap the buffers placed after it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from typing_extensions import override

import languages.gen.addressed as A
from languages.decls import Addressed
from languages.memory_space import MemorySpace
from languages.ops import REGISTRY
from languages.types import MemRef, TileType
from nanopass.langdef import Language
from nanopass.node import Node
from nanopass.passes import Pass, PassContext
from passes.analysis.liveness import LiveRange, Liveness, analyze_function
from passes.analysis.memrefs import UNASSIGNED_OFFSET, memrefs_of, rebind_each_function
from passes.analysis.pipe_slots import popped_memrefs


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

    The registry decides (`OpDef.may_write_over`): only an in-place-safe op, only over operands
    it merely reads (a reduction's scratch `tmp` is clobbered while the result is produced), and
    only when result and operand lay the same elements out at the same bytes (a width-changing
    cast would overwrite elements it has not read yet).
    """
    stmt: Node | None = liveness.statement_at.get(point)
    if not isinstance(stmt, A.AssignStmt) or not isinstance(stmt.value, A.Call) or stmt.value.op not in REGISTRY:
        return False
    result = stmt.target.type
    if not isinstance(result, TileType):
        return False
    opdef = REGISTRY.get(stmt.value.op)
    for index, arg in enumerate(stmt.value.args):
        ty = getattr(arg, "type", None)
        if not isinstance(ty, TileType) or ty.memref is None or ty.memref.name not in dying:
            continue
        if not opdef.may_write_over(index, result, ty, stmt.value.attrs) or _reads_a_window(liveness, arg):
            return False
    return True


def _reads_a_window(liveness: Liveness, value: Node) -> bool:
    """Whether `value` is (a view of) a window of a larger tile: its elements sit at an offset
    and at the source's row pitch, so a result written at the buffer's start would not land on
    the elements it replaces."""
    while value.KIND == "Var":
        name = str(getattr(value, "name"))
        stmt = liveness.statement_at.get(liveness.def_point.get(name, -1))
        if not isinstance(stmt, A.AssignStmt) or stmt.target.name != name or not isinstance(stmt.value, A.Call):
            return False
        if not REGISTRY.is_view(stmt.value.op) or not stmt.value.args:
            return False
        if REGISTRY.is_window_view(stmt.value.op):
            return True
        value = stmt.value.args[0]
    return False


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
    in_pipe = {m.name for m in popped_memrefs(function)}
    order = sorted((name for name in buffers if name in ranges and name not in in_pipe),
                   key=lambda n: (ranges[n].start, ranges[n].end))
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
                # A merged buffer has no address until AllocateMemoryAddr places it: its head's
                # offset, kept with the grown size (an input already addressed: a dump resumed at
                # Addressed), would reach into the bytes of buffers laid out after the head.
                shared = MemRef(slot.head.name, slot.head.space, UNASSIGNED_OFFSET, slot.size)
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
    # Sharing a buffer between values whose lifetimes do not overlap keeps NoCoLiveOverlap.
    invalidates: ClassVar[frozenset[str]] = frozenset({"MemoryCapacity"})

    @override
    def run(self, program: A.Program, ctx: PassContext) -> A.Program:
        return rebind_each_function(program, ctx, "buffers-reused", reuse_mapping)
