"""UnboxedRowsAligned: every unboxed tile buffer PTO allocates has 32-byte rows, and its MemRef
holds them.

PTOAS (0.44 on) refuses a `pto.alloc_tile` whose none_box tile_buf has a row (row-major) or a
column (column-major) that is not a whole number of 32-byte blocks, and pto-isa's vector
instructions walk such a tile at that pitch. So each allocation's declared extent must be
aligned, its valid extent must lie inside it, and the buffer planned for it must be as large as
the declared extent (a planner that sized the logical tile would hand the padding to a
neighbour). The pitch granularity is languages.layout's fact (UNBOXED_ROW_ALIGN_BYTES); the check
is stated here, apart from the padding PTOCodegen and memory planning apply
(languages.layout.padded_2d).
"""

from __future__ import annotations

from languages.layout import UNBOXED_ROW_ALIGN_BYTES
from languages.types import TileType, is_symbolic
from nanopass.diagnostics import Diagnostic
from nanopass.node import Node, preorder

RULE = "UnboxedRowsAligned"


def misalignment(tile: TileType) -> str | None:
    """What is wrong with an allocated tile_buf of type `tile`, or None."""
    view = tile.view
    if view is None or view.slayout != "none_box" or len(tile.shape) != 2 or tile.dtype.bits < 8:
        return None
    rows, cols = tile.shape
    row_major = view.blayout == "row_major"
    axis, extent = ("row", cols) if row_major else ("column", rows)
    nbytes = extent * tile.dtype.bits // 8
    if nbytes % UNBOXED_ROW_ALIGN_BYTES:
        return (f"its {axis} is {extent} elements = {nbytes} bytes, not a multiple of {UNBOXED_ROW_ALIGN_BYTES} "
                f"(PTOAS: `'pto.alloc_tile' op expects ... to be 32-byte aligned`)")
    if not is_symbolic(tile.valid_shape):
        v_rows, v_cols = tile.valid if len(tile.valid) == 2 else (1, tile.valid[-1])
        if v_rows > rows or v_cols > cols:
            return f"its valid extent [{v_rows}, {v_cols}] exceeds its declared extent [{rows}, {cols}]"
    need = rows * cols * tile.dtype.bits // 8
    if tile.memref is not None and tile.memref.size < need:
        return (f"its declared extent [{rows}, {cols}] needs {need} bytes but its buffer {tile.memref.name} has "
                f"{tile.memref.size}: the planner sized it without the row padding")
    return None


def verify(program: Node) -> list[Diagnostic]:
    """Check the tile_buf type of every `pto.alloc_tile` of a PTO program."""
    diagnostics: list[Diagnostic] = []
    for node in preorder(program):
        if node.KIND != "AssignStmt":
            continue
        value = getattr(node, "value")
        if getattr(value, "op", None) != "pto.alloc_tile":
            continue
        target = getattr(node, "target")
        tile = getattr(target, "type", None)
        if not isinstance(tile, TileType):
            continue
        problem = misalignment(tile)
        if problem is not None:
            space = tile.memory_space.name if tile.memory_space is not None else "?"
            diagnostics.append(Diagnostic.at(
                node, RULE, f"unboxed {space} tile {target.name} ({tile.dtype.pl_name}) is allocated unaligned: {problem}",
                "allocate the tile at its padded extent (languages.layout.padded_2d) and keep the logical extent "
                "as its valid shape"))
    return diagnostics
