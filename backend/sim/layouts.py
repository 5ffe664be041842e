"""Physical layouts of on-chip tiles: where logical element (r, c) sits in a buffer.

Implements the layout table of NUMERICS.md section 5.  A tile with static shape [Rows, Cols]
is cut into inner boxes IR x IC (the fractal); boxes are arranged column after column ("N")
or row after row ("Z"), and elements inside a box row-major ("z") or column-major ("n"):

    Nz  col_major / row_major   sc*P*IC + sr*IR*IC + ir*IC + ic      (Mat, Left, Acc)
    Zn  row_major / col_major   sr*Q*IR + sc*IR*IC + ic*IR + ir      (Right)
    Zz  row_major / row_major   sr*Q*IR + sc*IR*IC + ir*IC + ic      (Left from TEXTRACT)
    Nn  col_major / col_major   sc*P*IC + sr*IR*IC + ic*IR + ir
    ND  row_major / none_box    r*Cols + c                           (Vec)
    DN  col_major / none_box    c*Rows + r                           (Vec column vectors)

P is the column-of-boxes pitch in rows (the static Rows normally) and Q the row-of-boxes
pitch in columns (the static Cols normally).  A *compact* tile derives the pitch from its
valid extent instead, rounded up to whole boxes: that is how MAD lays out a row-narrowed
product in L0C (P = ceil(validRow/16)*16) and how a compact partial TEXTRACT packs an L0
tile, and every reader of such a tile must walk the buffer at that same pitch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from languages.types import DataType, TileView
from languages.layout import box_shape

IntArray = npt.NDArray[np.int64]

_ROW, _COL, _NONE = "row_major", "col_major", "none_box"


class LayoutError(ValueError):
    """A tile whose shape cannot be laid out under its view (e.g. a partial box)."""


@dataclass(frozen=True, slots=True)
class Layout:
    """The resolved physical layout of one tile: its box and the pitch its boxes are laid at."""

    name: str  # "Nz", "Zn", "Zz", "Nn", "ND", "DN"
    rows: int
    cols: int
    box_rows: int  # IR (1 for unboxed layouts)
    box_cols: int  # IC (1 for unboxed layouts)
    pitch: int  # P (rows) for N* layouts, Q (cols) for Z* layouts, unused for ND/DN

    @property
    def boxes_column_major(self) -> bool:
        return self.name[0] == "N"


_LAYOUT_NAMES: dict[tuple[str, str], str] = {
    (_COL, _ROW): "Nz",
    (_ROW, _COL): "Zn",
    (_ROW, _ROW): "Zz",
    (_COL, _COL): "Nn",
    (_ROW, _NONE): "ND",
    (_COL, _NONE): "DN",
}


def layout_name(view: TileView) -> str:
    try:
        return _LAYOUT_NAMES[(view.blayout, view.slayout)]
    except KeyError:
        raise LayoutError(f"no physical layout for blayout={view.blayout}, slayout={view.slayout}") from None


def _round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


def compact_pitch(view: TileView, dtype: DataType, valid_shape: tuple[int, int]) -> int:
    """The box pitch a compact tile is packed at: its valid extent on the pitch axis, rounded up
    to whole boxes (rows for column-of-boxes layouts, columns for row-of-boxes layouts)."""
    box = box_shape(view, dtype)
    if box is None:
        raise LayoutError("an unboxed (none_box) tile has no compact pitch")
    if layout_name(view)[0] == "N":
        return _round_up(valid_shape[0], box[0])
    return _round_up(valid_shape[1], box[1])


def resolve_layout(
    view: TileView,
    shape: tuple[int, int],
    dtype: DataType,
    valid_shape: tuple[int, int] | None = None,
    pitch: int | None = None,
) -> Layout:
    """The layout of a [Rows, Cols] tile.

    `pitch` forces the box pitch (MAD writes at the pitch implied by the Left operand's valid
    rows, whatever the accumulator's own flag says).  Otherwise a compact view uses the pitch
    derived from `valid_shape` (the full shape if None) and a normal view its physical extent.
    """
    rows, cols = shape
    name = layout_name(view)
    box = box_shape(view, dtype)
    if box is None:
        return Layout(name, rows, cols, 1, 1, rows if name == "DN" else cols)
    box_rows, box_cols = box
    if pitch is None:
        if view.compact:
            pitch = compact_pitch(view, dtype, valid_shape if valid_shape is not None else shape)
        else:
            pitch = rows if name[0] == "N" else cols
    _check_boxed(name, rows, cols, box_rows, box_cols, pitch)
    return Layout(name, rows, cols, box_rows, box_cols, pitch)


def _check_boxed(name: str, rows: int, cols: int, box_rows: int, box_cols: int, pitch: int) -> None:
    # A single-row tile degenerates to a contiguous row (PTOAS exempts it from the row rule);
    # otherwise a partial box has no address.
    if rows > 1 and rows % box_rows:
        raise LayoutError(f"{name} tile rows {rows} are not a multiple of the box rows {box_rows}")
    if cols % box_cols:
        raise LayoutError(f"{name} tile cols {cols} are not a multiple of the box cols {box_cols}")
    limit = rows if name[0] == "N" else cols
    if pitch > max(limit, 1):
        raise LayoutError(f"{name} pitch {pitch} exceeds the physical extent {limit}")


def offsets_of(layout: Layout, rows: npt.NDArray[Any], cols: npt.NDArray[Any]) -> IntArray:
    """Element offsets of logical positions (rows[i], cols[i]) (any broadcastable index arrays)."""
    r = np.asarray(rows, dtype=np.int64)
    c = np.asarray(cols, dtype=np.int64)
    if layout.name == "ND":
        return np.asarray(r * layout.cols + c, dtype=np.int64)
    if layout.name == "DN":
        return np.asarray(c * layout.rows + r, dtype=np.int64)
    ir_, ic_ = layout.box_rows, layout.box_cols
    sr, inner_r = r // ir_, r % ir_
    sc, inner_c = c // ic_, c % ic_
    box_size = ir_ * ic_
    if layout.boxes_column_major:
        box_start = sc * layout.pitch * ic_ + sr * box_size
    else:
        box_start = sr * layout.pitch * ir_ + sc * box_size
    inner = inner_r * ic_ + inner_c if layout.name[1] == "z" else inner_c * ir_ + inner_r
    return np.asarray(box_start + inner, dtype=np.int64)


def element_offsets(
    view: TileView,
    shape: tuple[int, int],
    dtype: DataType,
    valid_shape: tuple[int, int] | None = None,
    pitch: int | None = None,
    region: tuple[int, int] | None = None,
) -> IntArray:
    """Element offsets of every logical element of a tile, as a [rows, cols] int64 array.

    `region` limits the result to the top-left [rows, cols] window (default: the whole tile);
    see `resolve_layout` for `valid_shape` and `pitch`.
    """
    layout = resolve_layout(view, shape, dtype, valid_shape, pitch)
    rows, cols = shape if region is None else region
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    return offsets_of(layout, r, c)
