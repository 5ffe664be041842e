"""TileOps2D: every tile in an InCore function is two-dimensional.

PTO tile buffers are 2-D (rows x cols, boxed in fractals along both axes); FlattenTileNdTo2D
rewrites 1-D and N-D tiles so that every later pass and the codegen see only that shape.
"""

from __future__ import annotations

from nanopass.diagnostics import Diagnostic
from nanopass.node import Node, walk
from languages.types import TileType, TupleType, Type

RULE = "TileOps2D"
INCORE = "InCore"


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
        reported_vars: set[str] = set()  # a Var appears at its definition and at every use
        for node in walk(function):
            if node.KIND not in ("Var", "Call", "TupleGetItem"):
                continue
            bad = _first_non_2d(getattr(node, "type"))
            if bad is None:
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
