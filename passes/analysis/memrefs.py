"""MemRef helpers shared by the memory-planning passes (InitMemRef ... AllocateMemoryAddr).

The planners bind buffers by rewriting the `memref` of every TileType in the program; this module
holds that rewrite and the physical-size rule, so all four passes agree on both.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Iterator, Mapping

from typing_extensions import override

import languages.gen.addressed as A
from backend.targets.handlers import BackendHandler
from languages.layout import l0_footprint_bytes
from languages.types import MemRef, TileType, TupleType, Type
from nanopass.node import Node, walk
from nanopass.passes import PassContext

UNASSIGNED_OFFSET = -1


def align_up(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment


def physical_bytes(tile: TileType, backend: BackendHandler) -> int:
    """Bytes a tile occupies in its space: Rows·Cols·bytes (NUMERICS.md §5), an Acc tile at the
    L0C row footprint. One helper for the chooser's admission, L0TiledFit and allocation (the
    spec's "one physical-size contract"), so a tile is allocated at the size it was admitted at."""
    return l0_footprint_bytes(tile, backend)


def tile_memref(ty: Type) -> MemRef | None:
    return ty.memref if isinstance(ty, TileType) else None


def retype(ty: Type, mapping: Mapping[str, MemRef]) -> Type:
    """`ty` with every MemRef named in `mapping` replaced (same object when nothing changes)."""
    if isinstance(ty, TileType) and ty.memref is not None:
        new = mapping.get(ty.memref.name)
        if new is None or new == ty.memref:
            return ty
        return replace(ty, memref=new)
    if isinstance(ty, TupleType):
        items = tuple(retype(t, mapping) for t in ty.types)
        if all(a is b for a, b in zip(items, ty.types)):
            return ty
        return TupleType(items)
    return ty


class MemRefRetyper(A.Rewriter):
    """Copy-on-write rewrite of the MemRefs of an Addressed program by name."""

    def __init__(self, mapping: Mapping[str, MemRef]) -> None:
        super().__init__()
        self.mapping = mapping
        self._vars: dict[int, A.Var] = {}

    @override
    def visit_Var(self, node: A.Var) -> A.Var:
        cached = self._vars.get(id(node))
        if cached is not None:
            return cached
        ty = retype(node.type, self.mapping)
        new = node if ty is node.type else A.Var(name=node.name, type=ty, span=node.span)
        self._vars[id(node)] = new
        return new

    @override
    def visit_Call(self, node: A.Call) -> A.Expr:
        base = super().visit_Call(node)
        assert isinstance(base, A.Call)
        ty = retype(base.type, self.mapping)
        if ty is base.type:
            return base
        return A.Call(op=base.op, args=base.args, attrs=base.attrs, type=ty, span=base.span)


def rebind_memrefs(program: A.Program, mapping: Mapping[str, MemRef]) -> A.Program:
    """Replace MemRefs by name; untouched functions stay the same objects."""
    if not mapping:
        return program
    return MemRefRetyper(mapping).visit_Program(program)


def memrefs_of(function: Node) -> Iterator[tuple[Node, MemRef]]:
    """Every (node, MemRef) pair of Vars and Calls in a function, in program order."""
    for node in walk(function):
        ty = getattr(node, "type", None)
        if node.KIND in ("Var", "Call") and isinstance(ty, TileType) and ty.memref is not None:
            yield node, ty.memref


def backend_handler(ctx: object) -> BackendHandler:
    """The handler a pass reads its hardware numbers from: `ctx.backend` when the plugin made one,
    else the handler named by `ctx.backend_name` (default: the default backend)."""
    from backend.targets.handlers import DEFAULT_BACKEND, get_backend

    handler = getattr(ctx, "backend", None)
    if isinstance(handler, BackendHandler):
        return handler
    return get_backend(getattr(ctx, "backend_name", "") or DEFAULT_BACKEND)


def rebind_per_function(program: A.Program, mappings: Mapping[str, Mapping[str, MemRef]]) -> A.Program:
    """Replace MemRefs by name inside each function (MemRef names are scoped to a function):
    `mappings` is function name → (MemRef name → new MemRef)."""
    functions = tuple(
        MemRefRetyper(mappings[f.name]).visit_Function(f) if mappings.get(f.name) else f
        for f in program.functions
    )
    if all(a is b for a, b in zip(functions, program.functions)):
        return program
    return A.Program(name=program.name, functions=functions, span=program.span)


def rebind_each_function(program: A.Program, ctx: PassContext, counter: str,
                         mapping_of: Callable[[A.Function], tuple[dict[str, MemRef], int]]) -> A.Program:
    """Run a per-function MemRef mapping (`mapping_of` returns the mapping and how many buffers
    it merged, counted under `counter`) and rebind every function with it."""
    mappings: dict[str, dict[str, MemRef]] = {}
    for function in program.functions:
        mappings[function.name], merged = mapping_of(function)
        ctx.bump(counter, merged)
    return rebind_per_function(program, mappings)

