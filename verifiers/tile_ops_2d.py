"""TileOps2D: every tile in an InCore function is two-dimensional.

PTO tile buffers are 2-D (rows x cols, boxed in fractals along both axes); FlattenTileNdTo2D
rewrites 1-D and N-D tiles so that every later pass and the codegen see only that shape.
"""

from __future__ import annotations

from nanopass.diagnostics import Diagnostic
from nanopass.node import Node, preorder, summary
from languages.types import TileType, TupleType, Type

RULE = "TileOps2D"
INCORE = "InCore"
_TYPED_KINDS = ("Var", "Call", "TupleGetItem")


def tile_types_in(typ: Type) -> list[TileType]:
    if isinstance(typ, TileType):
        return [typ]
    if isinstance(typ, TupleType):
        return [t for member in typ.types for t in tile_types_in(member)]
    return []


def _first_non_2d(typ: object) -> TileType | None:
    if not isinstance(typ, (TileType, TupleType)):
        return None
    for tile in tile_types_in(typ):
        if len(tile.shape) != 2:
            return tile
    return None


def verify(program: Node) -> list[Diagnostic]:
    diagnostics: list[Diagnostic] = []
    for function in getattr(program, "functions", ()):
        if function.func_type != INCORE:
            continue
        found = summary(function)
        if all(_first_non_2d(ty) is None for kind in _TYPED_KINDS for ty in found.field_values(kind, "type")):
            continue  # no offending type anywhere: nothing to report
        reported_vars: set[str] = set()  # a Var appears at its definition and at every use
        all_2d: set[int] = set()  # ids of type objects already found 2-D (they recur at every use)
        for node in preorder(function):
            kind = node.KIND
            if kind != "Var" and kind != "Call" and kind != "TupleGetItem":
                continue
            ty = getattr(node, "type")
            if id(ty) in all_2d:
                continue
            bad = _first_non_2d(ty)
            if bad is None:
                all_2d.add(id(ty))
                continue
            if node.KIND == "Var":
                if getattr(node, "name") in reported_vars:
                    continue
                reported_vars.add(getattr(node, "name"))
            what = f"`{getattr(node, 'name')}`" if node.KIND == "Var" else f"result of `{getattr(node, 'op', node.KIND)}`"
            diagnostics.append(
                Diagnostic.at(
                    node,
                    RULE,
                    f"tile {what} in InCore function `{function.name}` has rank {len(bad.shape)} "
                    f"(shape {list(bad.shape)}); tile buffers are 2-D",
                    hint="run flatten-tile-nd-to-2d before this point",
                )
            )
    return diagnostics
