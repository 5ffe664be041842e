"""The boxed-extent rule as PTOCodegen and AutoTileMatmulL0 report it to users.

PTO addresses a boxed tile (Mat, Left, Right, Acc) one box at a time, so a tile whose physical
extent is not a whole number of boxes has no address at all. The rule mirrors PTOAS'
`verifyBoxedTileLayout` (spec pto_codegen.md, "Boxed Tile Extents"), including its exemptions:
the row rule is skipped for Vec and for a single-row tile (the NZ map degenerates there), the
column rule always applies, and the MX-scale fractal and sub-byte carriers are left to PTOAS.
PTOCodegen runs `check_tile` on every `pto.alloc_tile` it emits (the single choke point); the
BoxedExtents verifier states the same property on its own.
"""

from __future__ import annotations

from languages.layout import assembler_checked_box, physical_2d
from languages.memory_space import MemorySpace
from languages.types import TileType
from nanopass.diagnostics import Diagnostic
from nanopass.node import Node

RULE = "BoxedExtents"

_HINT = "round the physical shape up to whole boxes and narrow the logical extent with valid_shape"


def has_partial_row_box(tile: TileType) -> bool:
    """Whether a boxed cube tile's physical rows are not a whole number of boxes (the row rule,
    with its Vec and single-row exemptions)."""
    if tile.view is None or tile.memory_space in (None, MemorySpace.Vec):
        return False
    box = assembler_checked_box(tile.view, tile.dtype)
    rows, _ = physical_2d(tile.shape)
    return box is not None and rows != 1 and rows % box[0] != 0


def boxed_extent_message(tile: TileType) -> str | None:
    """The spec's message for a tile whose physical extent is not a whole number of boxes,
    or None when the tile passes."""
    if tile.view is None or tile.memory_space is None:
        return None
    box = assembler_checked_box(tile.view, tile.dtype)
    if box is None:
        return None
    rows, cols = physical_2d(tile.shape)
    box_rows, box_cols = box
    if has_partial_row_box(tile):
        return _message(tile, rows, cols, box, "row", rows, box_rows)
    if cols % box_cols:
        return _message(tile, rows, cols, box, "column", cols, box_cols)
    return None


def _message(tile: TileType, rows: int, cols: int, box: tuple[int, int], axis: str,
             extent: int, multiple: int) -> str:
    space = tile.memory_space.name if tile.memory_space is not None else "?"
    rounded = -(-extent // multiple) * multiple
    return (
        f"a {space} tile of physical shape [{rows}, {cols}] and dtype {tile.dtype.name.lower()} "
        f"must be a whole number of {box[0]}x{box[1]} fractal boxes, but its {axis} extent "
        f"{extent} is not a multiple of {multiple}. PTO addresses a boxed tile one box at a "
        f"time, so a partial box has no address. The *logical* extent is free -- allocate "
        f"{rounded} on that axis and declare {extent} as the tile's valid_shape (`valid_shape=` "
        f"on pl.load / pl.tile.create + pl.set_validshape), which moves and computes only the "
        f"real data. A tensor-level pl.matmul / pl.matmul_acc does this for its M axis "
        f"automatically."
    )


def check_tile(tile: TileType, node: Node) -> Diagnostic | None:
    """The diagnostic for one tile buffer defined at `node`, or None."""
    message = boxed_extent_message(tile)
    if message is None:
        return None
    return Diagnostic.at(node, RULE, message, _HINT)
