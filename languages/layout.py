"""Physical layout facts of on-chip tiles: the 2-D extent PTO sees, fractal boxes, L0 footprints.

Both the passes that lay tiles out and the verifiers that check them read these facts; neither
shares the other's code (TARGET_FACTS.md "Memory spaces and implicit tile views", NUMERICS.md
section 5). Target numbers (capacities, the L0C row alignment) stay with the target handlers and
arrive through the small protocols below.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence

from languages.memory_space import MemorySpace
from languages.types import DataType, TileType, TileView

# Cube buffers are addressed in 512-byte fractals (16 rows x 32 bytes); L0C boxes 16 x 16
# elements of the 32-bit accumulator, i.e. 1024 bytes.
FRACTAL_BYTES = 512
ACC_FRACTAL_BYTES = 1024
BOX_ROWS = 16

_ROW, _NONE = "row_major", "none_box"


def physical_2d(shape: Sequence[int]) -> tuple[int, int]:
    """Rows and cols as PTO sees a tile of `shape`: a 1-D tile is one row, leading dims fold
    into rows."""
    if len(shape) == 1:
        return (1, shape[0])
    rows = 1
    for dim in shape[:-1]:
        rows *= dim
    return (rows, shape[-1] if shape else 1)


# PTOAS (0.44 on) and pto-isa want every unboxed (none_box) tile's row -- its column, for a
# column-major (DN) tile -- to span a whole number of 32-byte blocks (`'pto.alloc_tile' op
# expects result row-major none_box tile row byte size (cols * sizeof(dtype)) to be 32-byte
# aligned`). As in PyPTO, a tile keeps its logical shape and valid shape; its buffer is laid out
# at the padded pitch, and the padding is never valid data (NUMERICS.md section 5).
UNBOXED_ROW_ALIGN_BYTES = 32


def _align(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


def unboxed_row_multiple(dtype: DataType) -> int:
    """Elements per 32-byte block of `dtype` (the pitch granularity of an unboxed tile)."""
    return max(1, UNBOXED_ROW_ALIGN_BYTES * 8 // dtype.bits)


def is_one_element(shape: Sequence[int]) -> bool:
    """A tile of one element ([1, 1], or ones in every axis): a row as much as a column. Its one
    element sits at its buffer's first byte in either layout, so a fresh tile of it (a copy, a
    re-view from its first byte) is row-major, as the vector unit computes on it."""
    return all(extent == 1 for extent in shape)


def shape_blayout(shape: Sequence[int]) -> str:
    """The box layout a flat buffer gives a shape: a static [rows, 1] column vector (rows > 1) is
    stored column-major (DN), so its elements stay contiguous; anything else is row-major."""
    if len(shape) == 2 and shape[1] == 1 and shape[0] > 1:
        return "col_major"
    return _ROW


def padded_2d(tile: TileType) -> tuple[int, int]:
    """The physical [rows, cols] of a tile's buffer: its PTO extent (`physical_2d`), and for an
    unboxed tile the row (row-major) or column (column-major) padded to 32 bytes. This is the
    extent PTO's `alloc_tile` declares, memory planning sizes and the simulator walks."""
    rows, cols = physical_2d(tile.shape)
    view = tile.view
    if view is None and tile.memory_space not in (None, MemorySpace.Vec):
        return (rows, cols)  # the implicit view of a cube space is boxed
    if view is not None and view.slayout != _NONE:
        return (rows, cols)
    multiple = unboxed_row_multiple(tile.dtype)
    # Without a view, a flat buffer's layout follows the shape (an [N, 1] column is column-major).
    if (view.blayout if view is not None else shape_blayout(tuple(tile.shape))) == _ROW:
        return (rows, _align(cols, multiple))
    return (_align(rows, multiple), cols)


def flat_index_pitch(shape: Sequence[int], dtype: DataType) -> int:
    """Elements from one row to the next of a flat (none_box) Vec tile of `shape`, as the index
    form of TGATHER / TSCATTER counts them: pto-isa reads index k at buffer row k // Cols, column
    k % Cols, with Cols the padded extent (a [16, 4] FP32 tile's rows are 8 apart; an [N, 1]
    column is column-major, one element per row either way)."""
    return padded_2d(TileType(tuple(shape), dtype))[1]


def padded_bytes(tile: TileType) -> int:
    """Bytes of a tile's buffer at its padded extent (`padded_2d`)."""
    rows, cols = padded_2d(tile)
    return rows * cols * tile.dtype.bits // 8


def box_shape(view: TileView, dtype: DataType) -> tuple[int, int] | None:
    """Inner box (rows, cols) in elements, or None for an unboxed (none_box) view.

    A 512-byte fractal is 16 rows of 32 bytes (transposed for column-major inner layout); the
    1024-byte accumulator fractal is 16 x 16 elements for every accumulator dtype.
    """
    if view.slayout == _NONE:
        return None
    if view.fractal == ACC_FRACTAL_BYTES:
        return (BOX_ROWS, BOX_ROWS)
    row_elems = view.fractal * 8 // (BOX_ROWS * dtype.bits)
    if view.slayout == _ROW:
        return (BOX_ROWS, row_elems)
    return (row_elems, BOX_ROWS)


def assembler_checked_box(view: TileView, dtype: DataType) -> tuple[int, int] | None:
    """The box PTOAS' `verifyBoxedTileLayout` checks a tile's extent against, or None where it
    checks nothing: an unboxed view, a sub-byte element, an MX-scale (non-512 / 1024) fractal."""
    if dtype.bits < 8 or view.fractal not in (FRACTAL_BYTES, ACC_FRACTAL_BYTES):
        return None
    return box_shape(view, dtype)


# -- L0 buffers ------------------------------------------------------------------------------------


def reader_row_pitch(tile: TileType) -> int | None:
    """The row pitch at which readers (store, extract, move, tpush) walk a boxed L0 tile: its
    valid rows rounded up to whole boxes when it is compact (MAD's layout), else its physical
    rows; None for an unboxed tile or runtime valid rows. A re-view (set_validshape) must keep
    it, or every box column past the first is read from another one's bytes."""
    view = tile.view
    if view is None or len(tile.shape) != 2:
        return None
    box = box_shape(view, tile.dtype)
    if box is None:
        return None
    if not view.compact:
        return tile.shape[0]
    valid_rows = tile.valid_extents[0]
    if not isinstance(valid_rows, int):
        return None
    return -(-valid_rows // box[0]) * box[0]


class L0CRowAlignment(Protocol):
    """What an L0 footprint needs from the target: L0C allocates accumulator rows in groups."""

    def l0c_m_alignment(self, acc_dtype: str) -> int: ...


def l0_footprint_bytes(tile: TileType, target: L0CRowAlignment) -> int:
    """Physical bytes of an on-chip tile: its padded PTO rows x cols (`padded_2d`), except that L0C
    charges an Acc tile its rows rounded up to the target's M-row granularity (32 for INT32 on
    Ascend910B)."""
    rows, cols = padded_2d(tile)
    if tile.memory_space is MemorySpace.Acc:
        align = target.l0c_m_alignment(tile.dtype.name)
        rows = -(-rows // align) * align
    return rows * cols * tile.dtype.byte_width


_L0_BUFFER_NAMES = {MemorySpace.Left: "L0A", MemorySpace.Right: "L0B", MemorySpace.Acc: "L0C"}


def buffer_name(space: MemorySpace) -> str:
    """The hardware buffer behind a space, as the cost model and messages name it (L0A, ...)."""
    return _L0_BUFFER_NAMES.get(space, space.name)


# -- re-views ----------------------------------------------------------------------------------------


def is_row_major_linear(view: TileView, shape: Sequence[int], dtype: DataType) -> bool:
    """Whether element (r, c) of a tile with this view sits at element offset r * cols + c, i.e.
    its bytes hold the elements in row-major order with no padding or boxes in between. A flat
    row-major (ND) view does when it has one row or its rows need no padding (`padded_2d`); a
    flat column-major (DN) view only with one column (or one row that needs no padding); a
    boxed (fractal) view never."""
    rows, cols = physical_2d(shape)
    if view.slayout != _NONE:
        return False
    padded_rows, padded_cols = padded_2d(TileType(tuple(shape), dtype, view=view))
    if view.blayout == _ROW:
        return rows == 1 or padded_cols == cols
    return cols == 1 or padded_rows == 1


def reshape_is_reinterpretation(source: TileType, result: TileType) -> bool:
    """Whether `result` may read `source`'s bytes unchanged as its reshape (a zero-copy re-view):
    the shapes agree, or both tiles keep their elements in row-major order (NUMERICS.md section 5:
    a reshape of a boxed NZ / Zn tile would pair each element with another one's bytes)."""
    if tuple(source.shape) == tuple(result.shape) and source.view == result.view:
        return True
    if source.view is None or result.view is None:
        return source.view is None and result.view is None
    if source.dtype != result.dtype:
        return False
    return (is_row_major_linear(source.view, source.shape, source.dtype)
            and is_row_major_linear(result.view, result.shape, result.dtype))


def _byte_runs(tile: TileType) -> tuple[int, int] | None:
    """How a flat (none_box) tile lays out its elements' bytes taken in row-major order: runs of
    `run` bits, one every `pitch` bits of its buffer ((total, total) when they are contiguous);
    None for a layout that is no such run pattern (a boxed tile, a column-major one of more
    than one row and column, whose row-major neighbours are a column apart)."""
    view = tile.view
    if view is None and tile.memory_space not in (None, MemorySpace.Vec):
        return None
    if view is not None and view.slayout != _NONE:
        return None
    rows, cols = physical_2d(tile.shape)
    bits = tile.dtype.bits
    padded_rows, padded_cols = padded_2d(tile)
    total = rows * cols * bits
    blayout = view.blayout if view is not None else shape_blayout(tuple(tile.shape))
    if blayout == _ROW:
        run, pitch = cols * bits, padded_cols * bits
        return (total, total) if rows == 1 or run == pitch else (run, pitch)
    if cols == 1:
        return (total, total)
    if rows == 1:
        return (bits, padded_rows * bits) if padded_rows != 1 else (total, total)
    return None


def reinterpret_keeps_order(source: TileType, result: TileType) -> bool:
    """Whether `result` re-reading `source`'s bytes (tile.reinterpret_view, a pto.treshape) sees
    them in the order the op means: the bytes of both in row-major element order, re-read as the
    new dtype and shape (NUMERICS.md section 5). It does where both tiles place those bytes
    alike: the same shape and view, or the same runs at the same pitch ([4, 8] INT8 and [4, 2]
    FP32 both put 8-byte rows 32 bytes apart). A column-major [16, 1] column re-viewed as a
    column-major [8, 2] tile does not: its element (r, c) is the column's byte run c * 8 + r,
    not the row-major 2 * r + c. An N-D tile has no layout yet (FlattenTileNdTo2D gives it one,
    and the call is deduced again there): it is not refused here."""
    if len(source.shape) > 2 or len(result.shape) > 2:
        return True
    if tuple(source.shape) == tuple(result.shape) and source.view == result.view \
            and source.dtype.bits == result.dtype.bits:
        return True
    runs = _byte_runs(source), _byte_runs(result)
    return runs[0] is not None and runs[0] == runs[1]


# -- what the vector unit computes on ----------------------------------------------------------------

# PTOAS verifies that the vector instructions below read and write row-major Vec tiles
# (`expects src0, src1, and dst to use row-major layout`, PTO_DIALECT.md row 6). Per op family
# of the registry: the operands (by position: the ops of one family name their operands
# differently, `x` / `lhs` / `src0`) that must be row-major, RESULT standing for the result. A
# row reduction may write its [M, 1] result column-major (DN), and a row broadcast reads its
# [M, 1] operand column-major, so those two are not listed.
RESULT = ""
ROW_MAJOR_VEC_TILES: dict[str, tuple[int | str, ...]] = {
    # Position 2: the carry of addc / subc / addsc / subsc and the tmp of xor / xors, tiles of
    # the data's shape read or written beside it (a scalar operand is no tile: never re-viewed).
    "elementwise_binary": (0, 1, 2, RESULT),
    "elementwise_scalar": (0, 2, RESULT),
    "unary": (0, RESULT),
    "cast": (0, RESULT),
    "reduce_row": (0,),
    "row_expand": (0, RESULT),
    "col_expand": (0, RESULT),  # `'pto.tcolexpandadd' op expects src0 to use row-major layout`
}

# Families whose tiles above (operands and result) all have the result's shape: the element-wise
# ones. LegalizeVecLayouts runs such an op on [1, N] rows as a whole or not at all, so a column
# seen as its row never meets an [N, 1] operand (the RowMajorVecTiles verifier checks both facts).
ONE_SHAPE_FAMILIES = frozenset({"elementwise_binary", "elementwise_scalar", "unary", "cast"})

# Families whose [N, 1] column has a row form only in one case: a column broadcast of a column
# by its one value (a [1, 1] tile, or a taller column valid over [1, 1], the only operands the
# deduction admits) is the row broadcast of its row by that value (LegalizeVecLayouts); an op
# without such a twin is declined ("not supported yet").
WITHOUT_ROW_FORM = frozenset({"col_expand"})

# The same fact for single instructions of otherwise layout-free families: on Ascend910B PTOAS
# wants a fill's destination row-major (`'pto.texpands' op expects vec dst to use row-major
# layout on A2/A3`), so an [N, 1] `pl.full` carry seed is filled as its [1, N] row.
ROW_MAJOR_VEC_INSTRUCTIONS: dict[str, tuple[int | str, ...]] = {
    "pto.texpands": (0, RESULT),
}


# PTOAS compares these instructions' tiles by their declared shapes (`'pto.tpartmax' op expects
# src0/src1/dst to have the same shape`, tcvt's "compatible shapes", tcmp's on A5,
# `'pto.tcolexpandsub' op expects src0/dst to have same shape`), and it measures a window (a
# pto.subview) twice: by its sizes when it parses the program, and by the shape of the buffer it
# cuts once PTOMaterializeTileHandles has re-made the subview as a handle of its parent's shape
# (PTOAS 4d2f456e: a tcvt into a [4, 8] subview of an FP16 [4, 16] tile is verified as one into
# [4, 16]). A fresh tile is declared at its padded extent (a [1, 1] FP32 tile is [1, 8]). Per
# instruction: the PTO operand positions compared (ins..., then the dst last). LegalizeVecLayouts
# hands them a window operand as a copy of its own; TargetOpRules checks the fact on the PTO
# program (`SameDeclaredShape`). (tadd and the other element-wise instructions compare valid shapes
# only.) PTOAS's tprelu compares its tmp's shape too, which pto-isa's TPRELU wants a row taller than
# the result (MaskScratch): that conflict is open, so the tmp is not listed.
@dataclass(frozen=True)
class ShapeMatch:
    operands: tuple[int, ...]
    archs: frozenset[str] = frozenset({"a2a3", "a5"})
    # Why the comparison is not a TargetOpRules rule yet ("": it is one): the compiler cannot meet
    # it in every case, so the class stays a known PTOAS rejection (nanopass_pto.ptoas.KNOWN_OPEN).
    open_because: str = ""


_COL_BROADCAST_MATCH = ShapeMatch((0, 2))  # ins(src0, row) outs(dst)
SHAPE_MATCHED_INSTRUCTIONS: dict[str, ShapeMatch] = {
    "pto.tpartmax": ShapeMatch((0, 1, 2)), "pto.tpartmin": ShapeMatch((0, 1, 2)),
    "pto.tcvt": ShapeMatch((0, 1), open_because=(
        "a cast between element widths pads its two tiles' rows differently ([4, 4] FP32 is [4, 8], FP16 "
        "[4, 16]); the fix is a row pitch the cast's two tiles share")),
    "pto.tcmp": ShapeMatch((0, 1, 2), archs=frozenset({"a5"}), open_because=(
        "A5's tcmp wants its mask declared of its sources' shape (PTOAS's own tests: an i8 [32, 32] mask of "
        "f16 [32, 32] sources), while a mask here is [rows, ceil(cols / 8) bytes rounded to 32]")),
    "pto.taddc": ShapeMatch((0, 1, 2, 3)), "pto.taddsc": ShapeMatch((0, 2, 3)),
    "pto.taxpy": ShapeMatch((0, 2)), "pto.tprelu": ShapeMatch((0, 1, 3)),
    **{f"pto.tcolexpand{m}": _COL_BROADCAST_MATCH for m in ("add", "sub", "mul", "div", "max", "min", "expdif")},
}


# PTOAS wants these element-wise instructions' sources and dst valid over one region
# (verifyMatchingRowMajorBinaryTileOpCommon and the shift / remainder verifiers: `'pto.tsub' op
# expects src0 and src1 to have the same valid_shape`), by PTO operand position (ins..., the dst
# last; txor's and trem's tmp is not compared). An element-wise op reads a narrower operand over
# the result's region (the data is there: DefinedReads), so RevalidateReadOperands re-validates
# such an operand over the region the op reads; TargetOpRules checks the fact on the PTO program
# (`SameValidShape`).
VALID_SHAPE_MATCHED_INSTRUCTIONS: dict[str, tuple[int, ...]] = {
    **{f"pto.t{name}": (0, 1, 2) for name in ("add", "sub", "mul", "div", "max", "min", "and", "or", "fmod",
                                              "shl", "shr")},
    "pto.txor": (0, 1, 3), "pto.trem": (0, 1, 3),
}


def row_major_vec_tiles(family: str, instructions: tuple[str, ...],
                        operand_names: Sequence[str]) -> tuple[str, ...] | None:
    """The operands (by name; RESULT: the result) an op of `family` lowering to `instructions`,
    whose operands are `operand_names`, must read / write as row-major Vec tiles, or None."""
    required = ROW_MAJOR_VEC_TILES.get(family)
    if required is None:
        required = next((ROW_MAJOR_VEC_INSTRUCTIONS[i] for i in instructions if i in ROW_MAJOR_VEC_INSTRUCTIONS), None)
    if required is None:
        return None
    return tuple(RESULT if entry == RESULT else operand_names[int(entry)]
                 for entry in required if entry == RESULT or int(entry) < len(operand_names))


def is_row_major(view: TileView) -> bool:
    return view.blayout == _ROW
