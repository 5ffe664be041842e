"""HasMemRefs: every tile is bound to a MemRef in its own memory space, big enough to hold it.

The size is checked against the tile's physical footprint (Rows·Cols·bytes at the padded extent
of languages.layout.padded_2d: an unboxed tile's rows are padded to 32 bytes, NUMERICS.md §5): a
MemRef may be larger (L0C row padding, a reused buffer) but never smaller, or the tile would
spill into its neighbour's bytes.
"""

from __future__ import annotations

from typing import Iterator

from languages.layout import padded_bytes
from languages.types import TileType, TupleType
from nanopass.diagnostics import Diagnostic
from nanopass.node import Node, preorder, summary

RULE = "HasMemRefs"


def _tiles(ty: object) -> Iterator[TileType]:
    if isinstance(ty, TileType):
        yield ty
    elif isinstance(ty, TupleType):
        for item in ty.types:
            yield from _tiles(item)


def _label(node: Node) -> str:
    return f"`{getattr(node, 'name')}`" if node.KIND == "Var" else f"the result of {getattr(node, 'op')}"


def _check(node: Node, tile: TileType) -> Diagnostic | None:
    memref = tile.memref
    if memref is None:
        return Diagnostic.at(node, RULE, f"tile {_label(node)} has no MemRef",
                             hint="run init-mem-ref before this point")
    if memref.space is not tile.memory_space:
        space = tile.memory_space.name if tile.memory_space is not None else "no space"
        return Diagnostic.at(node, RULE, f"tile {_label(node)} is in {space} but its MemRef {memref.name} "
                             f"is in {memref.space.name}", hint="a MemRef must live in its tile's memory space")
    if memref.size < padded_bytes(tile):
        return Diagnostic.at(node, RULE, f"tile {_label(node)} needs {padded_bytes(tile)} bytes but its MemRef "
                             f"{memref.name} has {memref.size}",
                             hint="a buffer shared by several tiles must be as large as the largest")
    return None


def _bound(tile: TileType) -> bool:
    """`_check` finds nothing (the tile alone decides it; the node only names it)."""
    memref = tile.memref
    return memref is not None and memref.space is tile.memory_space and memref.size >= padded_bytes(tile)


def verify(program: Node) -> list[Diagnostic]:
    found = summary(program)
    if all(_bound(tile) for kind in ("Var", "Call") for ty in found.field_values(kind, "type") for tile in _tiles(ty)):
        return []  # every tile bound: nothing to report
    diagnostics: list[Diagnostic] = []
    # Verdicts by type object: a variable's type object recurs at every use.
    bound: dict[int, bool] = {}
    for node in preorder(program):
        kind = node.KIND
        if kind != "Var" and kind != "Call":
            continue
        ty = getattr(node, "type")
        verdict = bound.get(id(ty))
        if verdict is None:
            verdict = bound[id(ty)] = all(_bound(tile) for tile in _tiles(ty))
        if verdict:
            continue
        for tile in _tiles(ty):
            problem = _check(node, tile)
            if problem is not None:
                diagnostics.append(problem)
    return diagnostics
