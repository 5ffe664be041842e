"""Implicit tile views: how each memory space boxes a tile (TARGET_FACTS.md "Memory spaces and
implicit tile views").

A tile whose `view` equals its space's implicit view is printed without one, and every pass that
places or moves a tile asks this module which view the destination buffer has, so the table
below is the one statement of those hardware layouts.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from languages.layout import (ACC_FRACTAL_BYTES, FRACTAL_BYTES, assembler_checked_box, is_one_element,
                              is_row_major_linear, padded_2d, physical_2d, shape_blayout)
from languages.memory_space import MemorySpace
from languages.types import DataType, Dims, TileType, TileView, ValidDims

_ROW, _COL, _NONE = "row_major", "col_major", "none_box"

# (blayout, slayout, fractal) of the boxed spaces.  Right's blayout is None: it follows the
# shape like the flat spaces do, while its inner boxes are column-major (the L0B "Zn" format).
_BOXED_LAYOUTS: dict[MemorySpace, tuple[str | None, str, int]] = {
    MemorySpace.Mat: (_COL, _ROW, FRACTAL_BYTES),
    MemorySpace.Left: (_COL, _ROW, FRACTAL_BYTES),
    MemorySpace.Right: (None, _COL, FRACTAL_BYTES),
    MemorySpace.Acc: (_COL, _ROW, ACC_FRACTAL_BYTES),
}

# TEXTRACT writes L0A / L0B in its own formats (Zz for Left, Zn for Right), which differ from
# the formats a TMOV into the same buffer produces.
_EXTRACT_LAYOUTS: dict[MemorySpace, tuple[str, str]] = {
    MemorySpace.Left: (_ROW, _ROW),
    MemorySpace.Right: (_ROW, _COL),
}

_FLIP = {_ROW: _COL, _COL: _ROW, _NONE: _NONE}

# Targets whose vector tmov copies between a row-major and a column-major tile of one shape
# (PTOAS: "expects A2/A3 non-mat tmov to use matching src/dst shapes", layouts included).
VEC_TMOV_ACROSS_LAYOUTS = frozenset({"a5"})


def implicit_view(space: MemorySpace, shape: Dims) -> TileView:
    """The view a tile of `shape` has in `space` when nothing says otherwise."""
    boxed = _BOXED_LAYOUTS.get(space)
    if boxed is None:
        return TileView(shape_blayout(shape), _NONE, FRACTAL_BYTES)
    blayout, slayout, fractal = boxed
    return TileView(blayout or shape_blayout(shape), slayout, fractal)


def extract_view(space: MemorySpace, shape: Dims = ()) -> TileView:
    """The view of a `tile.extract` result in `space`: the TEXTRACT-side L0 formats for Left /
    Right, the space's implicit view elsewhere (e.g. Acc -> Mat)."""
    layouts = _EXTRACT_LAYOUTS.get(space)
    if layouts is None:
        return implicit_view(space, shape)
    return TileView(layouts[0], layouts[1], FRACTAL_BYTES)


def move_view(source: TileType, space: MemorySpace) -> TileView:
    """The view of `tile.move(source, target_memory=space)` (the operator catalogue's "Result
    view of tile.move"): a boxed destination imposes its own layout, a flat one keeps the
    source's effective layout, except that an accumulator drains into the destination's own
    flat layout and the bias table holds a flat row-major row (PTOAS and pto-isa's TMATMUL_BIAS
    require it), and a one-element tile lands row-major (`languages.layout.is_one_element`: a
    column-major [1, 1] window of a column copied is a fresh [1, 1] tile, a row like every other);
    the fractal is the destination's; pad carries over."""
    src_view = effective_view(source)
    if space in _BOXED_LAYOUTS:
        layout = implicit_view(space, source.shape)
        blayout, slayout = layout.blayout, layout.slayout
        if space is MemorySpace.Right:
            # L0B wants row-major boxes even for an [N, 1] operand.
            blayout = _ROW
    elif source.memory_space is MemorySpace.Acc or space is MemorySpace.Bias:
        # FIXPIPE drains L0C into a flat ND tile (Ascend950's Acc -> Vec): the vector unit only
        # computes on row-major tiles, and PTOAS rejects the move into an NZ Vec tile.
        layout = implicit_view(space, source.shape)
        blayout, slayout = layout.blayout, layout.slayout
    elif is_one_element(source.shape) and src_view.slayout == _NONE:
        blayout, slayout = _ROW, _NONE
    else:
        blayout, slayout = src_view.blayout, src_view.slayout
    fractal = ACC_FRACTAL_BYTES if space is MemorySpace.Acc else FRACTAL_BYTES
    return TileView(blayout, slayout, fractal, pad=src_view.pad)


def flat_reshape_gap(source: Dims, result: Dims, dtype: DataType) -> str:
    """Why a zero-copy reshape of a flat Vec tile of shape `source` into `result` would read
    other bytes ("" when it reads the same elements): both tiles, packed to 2-D and laid out as
    Vec lays them (rows padded to 32 bytes, `languages.layout.padded_2d`), must hold their
    elements in row-major order (`is_row_major_linear`, which the ViewLegality verifier checks).
    InferTileMemorySpace refuses such a reshape with this reason and the generator does not draw
    it."""
    shapes = [physical_2d(tuple(shape)) for shape in (source, result)]
    # A rank-2 [N, 1] column is column-major on chip while an N-D tile packs row-major: equal
    # packed shapes are the same bytes only under the same layout.
    views = [implicit_view(MemorySpace.Vec, tuple(shape)) for shape in (source, result)]
    if shapes[0] == shapes[1] and views[0].blayout == views[1].blayout:
        return ""
    scattered = [packed for packed, view in zip(shapes, views) if not is_row_major_linear(view, packed, dtype)]
    if not scattered:
        return ""
    which = " and ".join(str(list(shape)) for shape in scattered)
    return (f"a {dtype.name} Vec tile of {which} keeps its rows at a 32-byte pitch, so its elements are not "
            "contiguous in row-major order and no zero-copy reshape can re-view them")


def transposed_view(view: TileView, shape: Dims = ()) -> TileView:
    """The view of a zero-copy transpose of a tile of `shape`: reading the same bytes with rows and
    columns swapped turns row-major boxes/elements into column-major ones and back (Nz <-> Zn,
    ND <-> DN). A flat tile whose matrices are [1, 1] is its own transpose: the one element is
    where it was, so the view is the tile's own (a row-major [1, 1] stays a row)."""
    if len(shape) >= 2 and tuple(shape[-2:]) == (1, 1) and view.slayout == _NONE:
        return view
    return replace(view, blayout=_FLIP[view.blayout], slayout=_FLIP[view.slayout])


def is_vec_insert(source: TileType, target: TileType) -> bool:
    """Whether PTO writes `source` into `target` -- a window write (tile.assemble), a window's copy
    into a tile of its own (tile.move) -- with a Vec -> Vec pto.tinsert: both tiles in Vec, row-major
    ND (the layout both targets' tinsert takes for vec -> vec), whose element types the instruction
    limits (`languages.ops.assembler_element_types.vec_insert_type`)."""
    return all(t.memory_space is MemorySpace.Vec and (t.view or TileView()).blayout == _ROW
               and (t.view or TileView()).slayout == _NONE for t in (source, target))


def writes_with_vec_insert(op: str, source: TileType, result: TileType, source_is_window: bool) -> bool:
    """Whether PTO writes the call -- `result = tile.assemble(target, source, offsets)` or
    `result = tile.move(source)` -- with a Vec -> Vec pto.tinsert (passes/pto_codegen.py): a window
    write between row-major Vec tiles, or a copy between them out of a window (a `pto.subview`,
    `source_is_window`: PTOAS measures a subview by its parent buffer) or into another shape
    (A2/A3's vector tmov takes equal shapes only). The one rule of which copies are tinserts: the
    pass that makes such a copy makes it in a type tinsert takes
    (`languages.ops.assembler_element_types.vec_insert_type`), and the VecInsertTypes verifier
    checks every one."""
    if not is_vec_insert(source, result):
        return False
    if op == "tile.assemble":
        return True
    return op == "tile.move" and (source_is_window or tuple(source.shape) != tuple(result.shape))


def effective_view(tile: TileType) -> TileView:
    """The tile's view, or (for an unplaced tile) the flat layout its shape implies."""
    if tile.view is not None:
        return tile.view
    space = tile.memory_space if tile.memory_space is not None else MemorySpace.Vec
    return implicit_view(space, tile.shape)


def normalize_valid(shape: Dims, valid_shape: ValidDims | None) -> ValidDims | None:
    """A valid shape equal to the physical shape says nothing: store it as None."""
    if valid_shape is None or tuple(valid_shape) == tuple(shape):
        return None
    return tuple(valid_shape)


def make_tile_type(
    shape: Dims,
    dtype: DataType,
    valid_shape: ValidDims | None = None,
    space: MemorySpace | None = None,
    view: TileView | None = None,
) -> TileType:
    """A TileType with the implicit view filled in when a space is given (the invariant: view is
    None iff memory_space is None) and a full valid shape normalised to None."""
    shape = tuple(shape)
    if space is None:
        if view is not None:
            raise ValueError("a tile view needs a memory space (view is None iff memory_space is None)")
    elif view is None:
        view = implicit_view(space, shape)
    return TileType(shape, dtype, normalize_valid(shape, valid_shape), space, view)


def assemble_window_gap(target: TileType, source: TileType, offsets: Sequence[int] | None, arch: str) -> str:
    """Why `tile.assemble(target, source, offsets)` between unboxed Vec tiles has no PTO form
    ("" when it has). Two row-major tiles write the window with pto.tinsert, which walks each
    tile at its own pitch. Otherwise the write is `pto.tmov source -> pto.subview target[offsets]
    sizes [source's buffer]`: the window spans the source's whole padded buffer (a column-major
    INT8 [16, 1] is 32 rows), so it must lie inside the target's buffer, which a dynamic offset
    cannot show unless the source has no padding; and A2/A3's vector tmov takes only equal tile
    shapes, layout included, so there a column-major column cannot be written into a row-major
    tile or a row into a column. `offsets` None: not all constant. LegalizeVecLayouts refuses
    such an assemble with this reason -- except one element written into an [N, 1] column of its
    own at [r, 0], which it writes into the column's row view instead (a row-major tinsert) --
    and the generator does not draw it."""
    views = [effective_view(tile) for tile in (target, source)]
    if any(view.slayout != _NONE for view in views) or all(view.blayout == _ROW for view in views):
        return ""
    if views[0].blayout != views[1].blayout and arch not in VEC_TMOV_ACROSS_LAYOUTS:
        kinds = {_ROW: "row-major", _COL: "column-major"}
        return (f"this target's vector tmov copies only between tiles of one layout, and the source is "
                f"{kinds[views[1].blayout]} while the target is {kinds[views[0].blayout]}")
    placed = [replace(tile, memory_space=MemorySpace.Vec, view=view) for tile, view in zip((target, source), views)]
    target_rows, target_cols = padded_2d(placed[0])
    window = padded_2d(placed[1])
    if offsets is None:
        if window == physical_2d(source.shape):
            return ""
        return (f"the source's buffer is padded to {list(window)} and the offsets are not constant, so its window "
                "is not known to fit the target")
    if len(offsets) > 2:
        return ""  # an N-D tile is row-major (`shape_blayout`): written by tinsert above
    row, col = (0, offsets[0]) if len(offsets) == 1 else (offsets[0], offsets[1])
    if row + window[0] <= target_rows and col + window[1] <= target_cols:
        return ""
    return (f"the source's buffer is padded to {list(window)} (32-byte columns), and that window at "
            f"{[row, col]} leaves the target's [{target_rows}, {target_cols}] buffer")


def reshape_into_boxes_gap(space: MemorySpace, shape: Dims, dtype: DataType) -> tuple[str, int, int] | None:
    """Why a reshaped (flat) value cannot move into boxed `space` as it is: (axis, extent, box
    unit) of the first axis that is not a whole number of boxes, or None. The cube-boxing of M /
    N happens where an operand is loaded; a reshape's demand stops at the flat data it reshapes
    (InferTileMemorySpace refuses it, and the generator does not draw it)."""
    box = assembler_checked_box(implicit_view(space, shape), dtype)
    if box is None or len(shape) != 2:
        return None
    rows, cols = shape
    if rows % box[0]:
        return ("rows", rows, box[0])
    if cols % box[1]:
        return ("columns", cols, box[1])
    return None

