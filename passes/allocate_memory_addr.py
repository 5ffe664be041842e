"""AllocateMemoryAddr (Addressed → Addressed): give every MemRef its byte offset in its space.

Per function and per space, buffers are laid out in program order, each start aligned to the
space's address alignment from the backend handler (the DMA engines and the cube address
buffers in aligned units). Distinct MemRef names never overlap: lifetime-based sharing has
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
from languages.types import MemRef
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.langdef import Language
from nanopass.node import Node
from nanopass.passes import Pass, PassContext
from passes.analysis.memrefs import align_up, backend_handler, memrefs_of, rebind_per_function


def _definition_site(function: A.Function, name: str) -> Node:
    """The first Var bound to MemRef `name` with a known source span (else the function)."""
    for node, memref in memrefs_of(function):
        if memref.name == name and node.node_span.known:
            return node
    return function


def _over_capacity(function: A.Function, space: MemorySpace, used: int, backend: BackendHandler,
                   buffers: list[MemRef]) -> CompileError:
    largest = max(buffers, key=lambda m: m.size)
    site = _definition_site(function, largest.name)
    label = f"`{getattr(site, 'name')}`" if site.KIND == "Var" else f"buffer {largest.name}"
    return CompileError(Diagnostic.at(
        site, "AllocateMemoryAddr",
        f"{space.name} usage of kernel `{function.name}` is {used} bytes, over the {backend.name} "
        f"{space.name} capacity of {backend.capacity(space)} bytes ({len(buffers)} buffers live at once; "
        f"the largest is {label}, {largest.size} bytes, defined here)",
        hint=f"use smaller tiles (loop over blocks so each tile holds less than {backend.capacity(space)} "
             f"bytes of {space.name}), or split the kernel into several InCore functions that each keep "
             f"fewer tiles alive"))


def address_mapping(function: A.Function, backend: BackendHandler) -> dict[str, MemRef]:
    """MemRef name → the same MemRef with its offset assigned."""
    cursors: dict[MemorySpace, int] = {}
    placed: dict[MemorySpace, list[MemRef]] = {}
    mapping: dict[str, MemRef] = {}
    for _, memref in memrefs_of(function):
        if memref.name in mapping:
            continue
        offset = align_up(cursors.get(memref.space, 0), backend.alignment(memref.space))
        cursors[memref.space] = offset + memref.size
        mapping[memref.name] = replace(memref, offset=offset)
        placed.setdefault(memref.space, []).append(memref)
    for space, used in cursors.items():
        if used > backend.capacity(space):
            raise _over_capacity(function, space, used, backend, placed[space])
    return mapping


@dataclass(frozen=True)
class AllocateMemoryAddr(Pass[A.Program, A.Program]):
    """Assign aligned per-space byte offsets; reject a space over its capacity."""

    name: ClassVar[str] = "allocate-memory-addr"
    spec_name: ClassVar[str] = "AllocateMemoryAddr"
    source: ClassVar[Language] = Addressed
    target: ClassVar[Language] = Addressed
    requires: ClassVar[frozenset[str]] = frozenset({"HasMemRefs"})
    produces: ClassVar[frozenset[str]] = frozenset({"MemoryCapacity"})

    @override
    def run(self, program: A.Program, ctx: PassContext) -> A.Program:
        backend = backend_handler(ctx)
        mappings = {f.name: address_mapping(f, backend) for f in program.functions}
        ctx.bump("buffers-placed", sum(len(m) for m in mappings.values()))
        return rebind_per_function(program, mappings)
