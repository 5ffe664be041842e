"""BoxedExtents: every boxed tile buffer is a whole number of fractal boxes.

PTO addresses a boxed tile (Mat, Left, Right, Acc) one box at a time, so a tile whose physical
extent is not a whole number of boxes has no address at all (spec pto_codegen.md, "Boxed Tile
Extents"; PTOAS' `verifyBoxedTileLayout`). What PTOAS does not check, this does not either: the
rows of a Vec tile or of a single-row tile, sub-byte elements, and the MX-scale fractals.

The layout facts (physical 2-D extent, box shape) come from `languages.layout`; the check itself
is stated here, apart from the rule PTOCodegen reports (`passes.analysis.boxed_extents`).
"""

from __future__ import annotations

from languages.layout import ACC_FRACTAL_BYTES, FRACTAL_BYTES, box_shape, physical_2d
from languages.memory_space import MemorySpace
from languages.types import TileType
from nanopass.diagnostics import Diagnostic
from nanopass.node import Node, preorder, summary

RULE = "BoxedExtents"

# The fractals whose boxes PTOAS checks, and the narrowest element it checks them for.
_CHECKED_FRACTALS = frozenset({FRACTAL_BYTES, ACC_FRACTAL_BYTES})
_MIN_CHECKED_BITS = 8


def partial_box(tile: TileType) -> str | None:
    """What is partial about `tile`'s boxes ("row extent 24 is not a multiple of 16"), or None."""
    view, space = tile.view, tile.memory_space
    if view is None or space is None or tile.dtype.bits < _MIN_CHECKED_BITS or view.fractal not in _CHECKED_FRACTALS:
        return None
    box = box_shape(view, tile.dtype)
    if box is None:
        return None
    rows, cols = physical_2d(tile.shape)
    axes = [("column", cols, box[1])]
    if space is not MemorySpace.Vec and rows > 1:
        axes.insert(0, ("row", rows, box[0]))
    for axis, extent, multiple in axes:
        if extent % multiple:
            return f"{axis} extent {extent} is not a multiple of {multiple}"
    return None


def verify(program: Node) -> list[Diagnostic]:
    """Check every tile-typed definition (assignment target) of an Addressed or PTO program."""
    # A definition's type is some node's `type`: when none of those fails, no definition does.
    if all(partial_box(ty) is None for ty in summary(program).all_values("type") if isinstance(ty, TileType)):
        return []
    diagnostics: list[Diagnostic] = []
    for node in preorder(program):
        if node.KIND != "AssignStmt":
            continue
        target = getattr(node, "target")
        tile = getattr(target, "type", None)
        if not isinstance(tile, TileType):
            continue
        problem = partial_box(tile)
        if problem is not None:
            space = tile.memory_space.name if tile.memory_space is not None else "?"
            rows, cols = physical_2d(tile.shape)
            diagnostics.append(Diagnostic.at(
                node, RULE,
                f"{space} tile {target.name} of physical shape [{rows}, {cols}] {tile.dtype.pl_name} is not a whole "
                f"number of fractal boxes: its {problem}",
                "round the physical shape up to whole boxes and narrow the logical extent with valid_shape"))
    return diagnostics
