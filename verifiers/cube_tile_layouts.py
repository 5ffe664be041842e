"""CubeTileLayouts: every tile in a cube buffer (Mat, Left, Right, Acc) is in a data format the
cube hardware can read or write there.

The cube's data movers are fixed-function: MTE2 writes L1 (Mat) as NZ boxes of 512 bytes (ZN
for a zero-copy transposed view of one), TMOV / TEXTRACT write L0A (Left) as NZ / Zz and L0B
(Right) as Zn, and MAD writes L0C (Acc) as NZ boxes of 16 x 16 accumulator elements (1024
bytes). A tile typed with any other (blayout, slayout, fractal) in one of these spaces describes
bytes no instruction produces, so every reader of it would walk the buffer in the wrong order.

The bit-exact simulator lays data out by whatever view the program states, so it cannot see a
wrong-but-consistent view (say Mat typed row-major by the placement pass and read row-major by
the extract): this verifier states the hardware's formats independently of `languages.views`
(TARGET_FACTS.md, "Memory spaces and implicit tile views"), which is what catches such a slip.
"""

from __future__ import annotations

from languages.memory_space import MemorySpace
from languages.types import TileType, TupleType, Type
from nanopass.diagnostics import Diagnostic
from nanopass.node import Node, preorder, summary

RULE = "CubeTileLayouts"

_ROW, _COL = "row_major", "col_major"
_NZ, _ZN, _ZZ = (_COL, _ROW), (_ROW, _COL), (_ROW, _ROW)

# (blayout, slayout) pairs the hardware produces per cube space, and the fractal it boxes in.
_FORMATS: dict[MemorySpace, tuple[frozenset[tuple[str, str]], int, str]] = {
    MemorySpace.Mat: (frozenset({_NZ, _ZN}), 512, "NZ (col_major boxes, row_major inside), or ZN for a transposed view"),
    MemorySpace.Left: (frozenset({_NZ, _ZZ}), 512, "NZ (a TMOV from Mat) or Zz (a TEXTRACT)"),
    MemorySpace.Right: (frozenset({_ZN}), 512, "Zn (row_major boxes, col_major inside)"),
    MemorySpace.Acc: (frozenset({_NZ}), 1024, "NZ with 16 x 16 accumulator boxes"),
}


def _tiles(ty: Type | None) -> list[TileType]:
    if isinstance(ty, TileType):
        return [ty]
    if isinstance(ty, TupleType):
        return [tile for item in ty.types for tile in _tiles(item)]
    return []


def format_problem(tile: TileType) -> str | None:
    """Why `tile`'s view is not a format its cube space holds (None when it is, or not cube)."""
    if tile.memory_space is None or tile.view is None or tile.memory_space not in _FORMATS:
        return None
    layouts, fractal, described = _FORMATS[tile.memory_space]
    view = tile.view
    if (view.blayout, view.slayout) in layouts and view.fractal == fractal:
        return None
    return (f"a {list(tile.shape)} {tile.dtype.pl_name} tile in {tile.memory_space.name} has view "
            f"(blayout={view.blayout}, slayout={view.slayout}, fractal={view.fractal}); the hardware keeps "
            f"{tile.memory_space.name} as {described}, fractal {fractal}")


def verify(program: Node) -> list[Diagnostic]:
    found = summary(program)
    if not any(isinstance(ty, (TileType, TupleType)) and any(format_problem(t) for t in _tiles(ty))
               for ty in found.all_values("type")):
        return []
    out: list[Diagnostic] = []
    reported: set[str] = set()
    for node in preorder(program):
        if node.KIND not in ("Var", "Call"):
            continue
        for tile in _tiles(getattr(node, "type", None)):
            problem = format_problem(tile)
            if problem is None:
                continue
            what = f"`{getattr(node, 'name')}`" if node.KIND == "Var" else f"the result of {getattr(node, 'op')}"
            if what in reported:
                continue
            reported.add(what)
            out.append(Diagnostic.at(node, RULE, f"{what}: {problem}",
                                     hint="the view must come from languages.views (implicit_view / move_view / "
                                          "extract_view), which states these formats"))
    return out
