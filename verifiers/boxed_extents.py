"""BoxedExtents: every boxed tile buffer is a whole number of fractal boxes.

PTO addresses a boxed tile (Mat, Left, Right, Acc) one box at a time, so a tile whose physical
extent is not a whole number of boxes has no address at all. The rule mirrors PTOAS'
`verifyBoxedTileLayout` (spec pto_codegen.md, "Boxed Tile Extents"), including its exemptions:
the row rule is skipped for Vec and for a single-row tile (the NZ map degenerates there), the
column rule always applies, and the MX-scale fractal and sub-byte carriers are left to PTOAS.

PTOCodegen runs `check_tile` on every `pto.alloc_tile` it emits (the single choke point), and
this verifier checks the same rule on whole Addressed / PTO programs.
"""

from __future__ import annotations

from nanopass.diagnostics import Diagnostic
from nanopass.node import Node, preorder, summary
from languages.memory_space import MemorySpace
from languages.types import TileType, TileView

RULE = "BoxedExtents"

# The fractal of an L0C (Acc) box; its box is 16 x 16 whatever the dtype.
_ACC_FRACTAL = 1024
_ACC_BOX = (16, 16)
# A 512-byte fractal is 16 rows of 32 bytes (TARGET_FACTS.md "Memory spaces and implicit views").
_FRACTAL_512 = 512
_BOX_ROWS = 16
_BOX_ROW_BYTES = 32


def box_of(view: TileView, dtype_bits: int) -> tuple[int, int] | None:
    """Inner box (rows, cols) PTOAS checks a tile against, or None when it checks nothing
    (none_box, an MX-scale fractal, a sub-byte element)."""
    if view.slayout == "none_box" or dtype_bits < 8:
        return None
    if view.fractal == _ACC_FRACTAL:
        return _ACC_BOX
    if view.fractal != _FRACTAL_512:
        return None
    per_row = _BOX_ROW_BYTES // (dtype_bits // 8)
    if view.slayout == "row_major":
        return (_BOX_ROWS, per_row)
    return (per_row, _BOX_ROWS)


def physical_2d(tile: TileType) -> tuple[int, int]:
    """Rows and cols as PTO sees them: a 1-D tile is one row."""
    if len(tile.shape) == 1:
        return (1, tile.shape[0])
    rows = 1
    for dim in tile.shape[:-1]:
        rows *= dim
    return (rows, tile.shape[-1])


def boxed_extent_message(tile: TileType) -> str | None:
    """The spec's message for a tile whose physical extent is not a whole number of boxes,
    or None when the tile passes."""
    if tile.view is None or tile.memory_space is None:
        return None
    box = box_of(tile.view, tile.dtype.bits)
    if box is None:
        return None
    rows, cols = physical_2d(tile)
    box_rows, box_cols = box
    check_rows = tile.memory_space is not MemorySpace.Vec and rows != 1
    if check_rows and rows % box_rows:
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


_HINT = "round the physical shape up to whole boxes and narrow the logical extent with valid_shape"


def check_tile(tile: TileType, node: Node) -> Diagnostic | None:
    """The diagnostic for one tile buffer defined at `node`, or None."""
    message = boxed_extent_message(tile)
    if message is None:
        return None
    return Diagnostic.at(node, RULE, message, _HINT)


def verify(program: Node) -> list[Diagnostic]:
    """Check every tile-typed definition (assignment target) of an Addressed or PTO program."""
    # A definition's type is some node's `type`: when none of those fails, no definition does.
    if all(boxed_extent_message(ty) is None for ty in summary(program).all_values("type")
           if isinstance(ty, TileType)):
        return []
    diagnostics: list[Diagnostic] = []
    for node in preorder(program):
        if node.KIND != "AssignStmt":
            continue
        target = getattr(node, "target")
        tile = getattr(target, "type", None)
        if isinstance(tile, TileType):
            found = check_tile(tile, node)
            if found is not None:
                diagnostics.append(found)
    return diagnostics
