"""MemoryCapacity: per kernel and per on-chip space, the buffers fit the target's capacity and
every assigned offset is aligned to the space's address alignment.

Capacities are backend numbers and verifiers sit below `backend/` in the layering, so they
arrive as any object with the `SpaceLimits` shape (a `backend.targets.handlers.BackendHandler` is one):
explicitly (`verify_with(program, limits)`) or as the compilation target the framework hands to
the property's `verify(program, target)` entry point.
Without limits only offset sanity (non-negative once assigned) is checked.
"""

from __future__ import annotations

from typing import Protocol, cast

from languages.memory_space import MemorySpace
from languages.types import MemRef, TileType
from nanopass.diagnostics import Diagnostic
from nanopass.node import Node, preorder

RULE = "MemoryCapacity"


class SpaceLimits(Protocol):
    @property
    def name(self) -> str: ...

    def capacity(self, space: MemorySpace) -> int: ...

    def alignment(self, space: MemorySpace) -> int: ...


def _buffers(function: Node) -> dict[str, tuple[MemRef, Node]]:
    """MemRef name → (largest MemRef seen under that name, first node bound to it)."""
    found: dict[str, tuple[MemRef, Node]] = {}
    for node in preorder(function):
        ty = getattr(node, "type", None) if node.KIND in ("Var", "Call") else None
        if not isinstance(ty, TileType) or ty.memref is None:
            continue
        memref = ty.memref
        seen = found.get(memref.name)
        if seen is None:
            found[memref.name] = (memref, node)
        elif memref.size > seen[0].size:
            found[memref.name] = (memref, seen[1])
    return found


def _footprint(buffers: list[MemRef], limits: SpaceLimits, space: MemorySpace) -> int:
    """Bytes the space needs: the highest end of an assigned buffer, or (before addresses are
    assigned) every buffer back to back at the space's alignment."""
    if all(m.offset >= 0 for m in buffers):
        return max((m.offset + m.size for m in buffers), default=0)
    align, used = limits.alignment(space), 0
    for memref in buffers:
        used = -(-used // align) * align + memref.size
    return used


def _check_function(function: Node, limits: SpaceLimits | None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    by_space: dict[MemorySpace, list[tuple[MemRef, Node]]] = {}
    for memref, node in _buffers(function).values():
        by_space.setdefault(memref.space, []).append((memref, node))
        if memref.offset < -1:
            out.append(Diagnostic.at(node, RULE, f"MemRef {memref.name} has a negative offset {memref.offset}"))
        elif limits is not None and memref.offset >= 0 and memref.offset % limits.alignment(memref.space):
            out.append(Diagnostic.at(
                node, RULE, f"MemRef {memref.name} starts at byte {memref.offset} of {memref.space.name}, not a "
                f"multiple of the {limits.alignment(memref.space)}-byte alignment on {limits.name}",
                hint="offsets come from allocate-memory-addr; do not hand-edit them"))
    if limits is None:
        return out
    for space, entries in by_space.items():
        used = _footprint([m for m, _ in entries], limits, space)
        capacity = limits.capacity(space)
        if used > capacity:
            largest, node = max(entries, key=lambda e: e[0].size)
            out.append(Diagnostic.at(
                node, RULE,
                f"{space.name} usage of `{getattr(function, 'name')}` is {used} bytes, over the {limits.name} "
                f"capacity of {capacity} bytes (largest buffer {largest.name}: {largest.size} bytes)",
                hint="use smaller tiles, or split the kernel into several InCore functions"))
    return out


def verify_with(program: Node, limits: SpaceLimits | None) -> list[Diagnostic]:
    diagnostics: list[Diagnostic] = []
    for function in getattr(program, "functions"):
        diagnostics.extend(_check_function(function, limits))
    return diagnostics


def verify(program: Node, target: object = None) -> list[Diagnostic]:
    return verify_with(program, cast(SpaceLimits | None, target))
