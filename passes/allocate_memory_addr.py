"""AllocateMemoryAddr (Addressed → Addressed): give every MemRef its byte offset in its space.

Per function and per space, buffers are laid out in program order, each start aligned to the
space's address alignment from the backend handler (the DMA engines and the cube address
buffers in aligned units). A mixed kernel's pipe slot regions (`system.reserve_buffer`) are
placed first, at the bottom of their space, and their AUTO base is resolved (PYPTO / DSA_RP); a
popped tile is placed in a slot of its region, where TPOP binds it (passes/analysis/pipe_slots.py),
not in a buffer of its own.
Distinct MemRef names never overlap: lifetime-based sharing has
already happened in MemoryReuse by merging names. A space that overflows its capacity is a
CompileError naming the space, the bytes used and the limit, at the user's line of the largest
buffer, with two ways to fix it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from typing_extensions import override

import languages.gen.addressed as A
from backend.targets.handlers import BackendHandler
from languages.decls import Addressed
from languages.memory_space import MemorySpace
from languages.types import MemRef, TileType, attr
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.langdef import Language
from nanopass.node import Node, walk
from nanopass.passes import Pass, PassContext
from passes.analysis.memrefs import align_up, backend_handler, memrefs_of, rebind_per_function
from passes.analysis.pipe_slots import RESERVE_OP, popped_memrefs, slot_rings


def _definition_site(function: A.Function, name: str) -> Node:
    """The first Var bound to MemRef `name` with a known source span (else the function)."""
    for node, memref in memrefs_of(function):
        if memref.name == name and node.node_span.known:
            return node
    return function


def _over_capacity(function: A.Function, space: MemorySpace, used: int, backend: BackendHandler,
                   buffers: list[MemRef], reserved: int) -> CompileError:
    pipe = f"the cross-core pipe's slot region takes {reserved} bytes; " if reserved else ""
    if not buffers:
        site: Node = next((c for c in _reserve_calls(function) if attr(c.attrs, "location") is space), function)
        what = "no buffer besides it"
    else:
        largest = max(buffers, key=lambda m: m.size)
        site = _definition_site(function, largest.name)
        label = f"`{getattr(site, 'name')}`" if site.KIND == "Var" else f"buffer {largest.name}"
        what = f"{len(buffers)} buffers live at once; the largest is {label}, {largest.size} bytes, defined here"
    hint = (f"use smaller tiles (loop over blocks so each tile holds less than {backend.capacity(space)} "
            f"bytes of {space.name}), or split the kernel into several InCore functions that each keep "
            f"fewer tiles alive")
    crossing = _largest_push_to_cube(function, space)
    if crossing is not None:
        name, size = crossing
        what += f"; `{name}` ({size} bytes) crosses from this Vec to the cube core through the pipe"
        hint = ("a cube operand computed on the vector core crosses to the cube core through the pipe: compute "
                "it in a separate InCore function and pass it to this one as a GM tensor (a GM operand is loaded "
                "straight into Mat, through no pipe), or compute fewer of its rows per kernel; " + hint)
    return CompileError(Diagnostic.at(
        site, "AllocateMemoryAddr",
        f"{space.name} usage of kernel `{function.name}` is {used} bytes, over the {backend.name} "
        f"{space.name} capacity of {backend.capacity(space)} bytes ({pipe}{what})", hint=hint))


def _largest_push_to_cube(function: A.Function, space: MemorySpace) -> tuple[str, int] | None:
    """The largest tile of `space` this (vector) kernel pushes to the cube core, with its bytes."""
    pushed = [(arg.name, arg.type.memref.size) for call in walk(function)
              if isinstance(call, A.Call) and call.op == PUSH_TO_CUBE
              for arg in call.args[:1] if isinstance(arg, A.Var) and isinstance(arg.type, TileType)
              and arg.type.memref is not None and arg.type.memref.space is space]
    return max(pushed, key=lambda item: item[1], default=None)


PUSH_TO_CUBE = "tile.tpush_to_aic"


def _reserve_calls(function: A.Function) -> list[A.Call]:
    return [n for n in walk(function) if isinstance(n, A.Call) and n.op == RESERVE_OP]


def reserved_regions(function: A.Function, backend: BackendHandler) -> tuple[list[int], dict[MemorySpace, int]]:
    """The base of each `system.reserve_buffer` of `function` (in program order) and the first
    free byte of each space after them: a pipe's slot region sits at the bottom of its space,
    before every buffer, so nothing else is ever placed over the slots a pop lands in."""
    bases: list[int] = []
    cursors: dict[MemorySpace, int] = {}
    for call in _reserve_calls(function):
        space, size = attr(call.attrs, "location"), attr(call.attrs, "size")
        if not isinstance(space, MemorySpace) or not isinstance(size, int):
            raise CompileError(Diagnostic.at(call, "AllocateMemoryAddr", "reserve_buffer needs a location and a size"))
        base = align_up(cursors.get(space, 0), backend.alignment(space))
        bases.append(base)
        cursors[space] = base + size
    return bases, cursors


class _ResolveReserves(A.Rewriter):
    """reserve_buffer(base=AUTO) -> the resolved base."""

    def __init__(self, bases: list[int]) -> None:
        super().__init__()
        self.bases = iter(bases)

    @override
    def visit_Call(self, node: A.Call) -> A.Expr:
        if node.op != RESERVE_OP:
            return super().visit_Call(node)
        attrs = tuple((k, v) for k, v in node.attrs if k != "base") + (("base", next(self.bases)),)
        self.bump("reserved-buffers-placed")
        return A.Call(op=node.op, args=node.args, attrs=attrs, type=node.type, span=node.span)


def slot_mapping(function: A.Function, backend: BackendHandler) -> dict[str, MemRef]:
    """Each popped tile's MemRef → placed in its pipe's region: the k-th pop of a space (program
    order) in slot k mod slot_num."""
    bases, _ = reserved_regions(function, backend)
    region_base = {attr(call.attrs, "location"): base for call, base in zip(_reserve_calls(function), bases)}
    rings = slot_rings(function)
    mapping: dict[str, MemRef] = {}
    count: dict[MemorySpace, int] = {}
    for memref in popped_memrefs(function):
        ring, base = rings.get(memref.space), region_base.get(memref.space)
        if ring is None or not isinstance(base, int):
            continue  # no pipe region of its space: an ordinary buffer
        if memref.size > ring.slot_size:
            raise CompileError(Diagnostic.at(
                _definition_site(function, memref.name), "AllocateMemoryAddr",
                f"a popped tile of {memref.size} bytes does not fit the pipe's {ring.slot_size}-byte slots",
                hint="the pipe's slot_size must cover the largest tile it carries (expand-mixed-kernel sets it)"))
        slot = count.get(memref.space, 0)
        count[memref.space] = slot + 1
        mapping[memref.name] = replace(memref, offset=base + (slot % ring.slot_num) * ring.slot_size)
    return mapping


def address_mapping(function: A.Function, backend: BackendHandler) -> dict[str, MemRef]:
    """MemRef name → the same MemRef with its offset assigned (above the reserved regions; a
    popped tile inside its pipe's region)."""
    _, cursors = reserved_regions(function, backend)
    placed: dict[MemorySpace, list[MemRef]] = {}
    mapping: dict[str, MemRef] = slot_mapping(function, backend)
    for memref in mapping.values():
        placed.setdefault(memref.space, []).append(memref)
    reserved = dict(cursors)
    for _, memref in memrefs_of(function):
        if memref.name in mapping:
            continue
        offset = align_up(cursors.get(memref.space, 0), backend.alignment(memref.space))
        cursors[memref.space] = offset + memref.size
        mapping[memref.name] = replace(memref, offset=offset)
        placed.setdefault(memref.space, []).append(memref)
    for space, used in cursors.items():
        if used > backend.capacity(space):
            raise _over_capacity(function, space, used, backend, placed.get(space, []), reserved.get(space, 0))
    return mapping


@dataclass(frozen=True)
class AllocateMemoryAddr(Pass[A.Program, A.Program]):
    """Assign aligned per-space byte offsets; reject a space over its capacity."""

    name: ClassVar[str] = "allocate-memory-addr"
    spec_name: ClassVar[str] = "AllocateMemoryAddr"
    source: ClassVar[Language] = Addressed
    target: ClassVar[Language] = Addressed
    requires: ClassVar[frozenset[str]] = frozenset({"HasMemRefs"})
    produces: ClassVar[frozenset[str]] = frozenset({"MemoryCapacity", "PipeSlotPlacement"})

    @override
    def run(self, program: A.Program, ctx: PassContext) -> A.Program:
        backend = backend_handler(ctx)
        mappings = {f.name: address_mapping(f, backend) for f in program.functions}
        ctx.bump("buffers-placed", sum(len(m) for m in mappings.values()))
        placed = rebind_per_function(program, mappings)
        functions: list[A.Function] = []
        for function in placed.functions:
            if _reserve_calls(function):
                resolver = _ResolveReserves(reserved_regions(function, backend)[0])
                function = resolver.visit_Function(function)
                ctx.record_rewriter(resolver)
            functions.append(function)
        if all(a is b for a, b in zip(functions, placed.functions)):
            return placed
        return A.Program(name=placed.name, functions=tuple(functions), span=placed.span)
