"""Sorting, gathers and scatters (spec tensor_and_tile_operators.md: "Flat gather", "Mask
patterns", tile.gatherb / mgather / scatter / scatter_mask; convert_tensor_to_tile_ops.md:
"Scatter Update Lowering", "Flat Gather Lowering"), tile and tensor forms.

- sort32(src, idx): every 32-column block of each row sorted into (score, index) pairs, 8 bytes
  a pair (an FP32 row doubles, an FP16 row quadruples); FP16 / FP32 scores, UINT32 indices.
- mrgsort_format1(src, block_len): one row of sorted blocks, every 4 consecutive blocks of
  block_len elements merged; mrgsort_format2(src0, src1[, src2, src3], tmp, exhausted=False):
  2 to 4 sorted rows merged into one row of their total length. `pl.tile.mrgsort` /
  `pl.tensor.mrgsort` choose the format by their operands (`SPELLINGS`).
- gather(src, indices, tmp): flat element indexing `out = src.reshape(-1)[indices]` (an index
  outside the source reads 0); gather_mask(src, mask_pattern): the marked columns compacted.
  tensor.gather(src, index, dim=None) is flat without dim, and axis indexing with dim (rank 2,
  dim -1 or 0): index physical columns must be a multiple of 16 (2-byte sources) or 8 (4-byte)
  so index and output rows are 32-byte aligned.
- gatherb(src, offsets): 32-byte blocks of the source at byte offsets (UINT32, a multiple of 8
  entries a row), each offset column expanding to 32 / sizeof(T) output elements.
- scatter(dst, src, indexes): dst.flat[indexes] = src (DPS: the result is dst's buffer).
- scatter_update(input, dim=-2, index, src): whole rows input[index.flat[k], :] = src[k, :].
- mgather(mem, idx, coalesce="row"|"elem"): rows (row coalescing) or elements of a GM tensor.
"""

from __future__ import annotations

from typing import Sequence

from languages.memory_space import MemorySpace
from languages.ops import (
    READ_WRITE,
    WRITE,
    AttrDecl,
    CompletedBy,
    DeductionError,
    IndexDomain,
    Fixed,
    OpDef,
    OperandDecl,
    ReusesInput,
    TileConversion,
    TileInput,
    describe,
    type_of,
)
from languages.ops.target_rules import (A2A3, A5, RESULT, DtypeIn, FlatRowMajor, TargetRule, Unavailable, UnpaddedRows,
                                       WholeRows)
from languages.ops.tensor_ops import Value, check_same_dtype, rebuild, scalar_at, value_at
from languages.types import Attrs, DataType, Dims, TensorType, TileType, Type, ValidDims, attr
from languages.views import flat_reshape_gap, make_tile_type
from nanopass.node import Node

VEC = MemorySpace.Vec
_T, _TILE = "tensor", "tile"
SORT_DTYPES = (DataType.FP16, DataType.FP32)
SORT_INDEX_DTYPES = (DataType.UINT32, DataType.INT32)
# TMRGSORT format 1's block length, in elements of the row (pairs included: 32 FP32 pairs are 64
# elements): a positive multiple of 64 on every target (PTOAS TMrgSortOp::verify refuses a
# constant one that is not, "expects blockLen > 0 and multiple of 64"; pto-isa's A2/A3 TMRGSORT
# asserts it, TMRGSORT_BLOCK_LEN), and the row at most 255 merge groups of 4 blocks (A2/A3
# asserts the repeat count in [1, 255]; A5 passes it as a uint8_t).
MRGSORT_BLOCK_LEN_MULTIPLE = 64
MRGSORT_MAX_GROUPS = 255
GATHER_DTYPES = (DataType.FP16, DataType.FP32, DataType.INT16, DataType.INT32)
# An axis gather's index: INT16 is widened to INT32 (exact) before the flat index is built.
AXIS_GATHER_INDEX_DTYPES = (DataType.INT32, DataType.INT16)
# MaskPattern (pl.tile.MaskPattern): value -> (name, stride).
MASK_PATTERNS: dict[int, tuple[str, int]] = {
    1: ("P0101", 2), 2: ("P1010", 2), 3: ("P0001", 4), 4: ("P0010", 4), 5: ("P0100", 4), 6: ("P1000", 4),
    7: ("P1111", 1),
}


def pair_elements(dtype: DataType) -> int:
    """Elements of `dtype` one 8-byte (score, index) pair takes."""
    return 8 // dtype.byte_width


def _tile_or_tensor_like(value: Value, shape: Dims, dtype: DataType, valid: ValidDims | None) -> Value:
    return rebuild(value, shape, dtype, valid)


def _check_row_major_2d(value: Value, operand: int) -> None:
    if len(value.shape) != 2:
        raise DeductionError(f"expected a 2-D value, got rank {len(value.shape)}", operand)


# -- sort -----------------------------------------------------------------------------------------


def deduce_sort32(args: Sequence[Node], attrs: Attrs) -> Type:
    src, idx = value_at(args, 0), value_at(args, 1)
    _check_row_major_2d(src, 0)
    if src.dtype not in SORT_DTYPES:
        raise DeductionError(f"expected FP16 or FP32 scores, got {src.dtype.name}", 0)
    if idx.dtype not in SORT_INDEX_DTYPES or idx.shape != src.shape:
        raise DeductionError(f"expected UINT32 indices of shape {list(src.shape)}, got {describe(args[1])}", 1)
    if idx.valid != src.valid:
        raise DeductionError(f"expected indices valid in {list(src.valid)} (the scores'), got {list(idx.valid)}", 1)
    pair = pair_elements(src.dtype)
    rows, cols = src.shape
    return _tile_or_tensor_like(src, (rows, cols * pair), src.dtype, (src.valid[0], src.valid[1] * pair))


def _sorted_row(value: Value, operand: int) -> None:
    _check_row_major_2d(value, operand)
    if value.shape[0] != 1:
        raise DeductionError(f"expected one row of sorted pairs, got shape {list(value.shape)}", operand,
                             hint="TMRGSORT merges within a single row")
    if value.dtype not in SORT_DTYPES:
        raise DeductionError(f"expected FP16 or FP32 pairs, got {value.dtype.name}", operand)
    pair = pair_elements(value.dtype)
    if value.shape[1] % pair:
        # A row of (score, index) pairs: TMRGSORT reads whole 8-byte pairs.
        raise DeductionError(f"expected a row of whole (score, index) pairs ({pair} {value.dtype.name} elements "
                             f"each), got {value.shape[1]} columns", operand)


def deduce_mrgsort1(args: Sequence[Node], attrs: Attrs) -> Type:
    src = value_at(args, 0)
    _sorted_row(src, 0)
    block_len = scalar_at(args, 1)
    if not (block_len.dtype.is_int or block_len.dtype is DataType.INDEX):
        raise DeductionError(f"expected an integer block_len, got {describe(args[1])}", 1)
    constant = getattr(args[1], "value", None) if args[1].KIND == "ConstInt" else None
    multiple = MRGSORT_BLOCK_LEN_MULTIPLE
    if isinstance(constant, int) and (constant <= 0 or constant % multiple):
        # A block of whole (score, index) pairs is not enough: TMRGSORT's blocks are multiples of
        # 64 elements (a multiple of the 2 FP32 / 4 FP16 elements of one pair).
        raise DeductionError(f"expected block_len a positive multiple of {multiple} elements (TMRGSORT merges "
                             f"blocks of 64 {src.dtype.name} elements and multiples of them), got {constant}", 1,
                             hint=f"use block_len {multiple} (or a multiple of it) on a row of a multiple of "
                                  f"{4 * multiple} elements (4 blocks a merge group)")
    cols = src.valid[-1] if src.valid else src.shape[-1]
    if isinstance(constant, int) and isinstance(cols, int) and cols % (4 * constant):
        # TMRGSORT merges whole groups of four blocks and leaves the columns after the last
        # whole group unwritten: a row ending in a partial group would read as garbage there.
        raise DeductionError(f"expected the row's {cols} valid columns to be whole merge groups of 4 blocks of "
                             f"block_len ({4 * constant} elements): TMRGSORT leaves a partial group unwritten", 1,
                             hint=f"choose a block_len that divides {cols} into groups of four blocks, or pad the row")
    if isinstance(constant, int) and isinstance(cols, int) and cols // (4 * constant) > MRGSORT_MAX_GROUPS:
        raise DeductionError(f"expected at most {MRGSORT_MAX_GROUPS} merge groups of 4 blocks in the row, got "
                             f"{cols // (4 * constant)} ({cols} columns, block_len {constant}): TMRGSORT counts "
                             "them in 8 bits", 1, hint="use a longer block_len, or merge the row in parts")
    return _tile_or_tensor_like(src, src.shape, src.dtype, src.valid_shape)


def _merge_sources(args: Sequence[Node], with_tmp: bool) -> list[Value]:
    sources = [value_at(args, i) for i in range(len(args) - (1 if with_tmp else 0))]
    if not 2 <= len(sources) <= 4:
        raise DeductionError(f"expected 2 to 4 sorted rows to merge, got {len(sources)}")
    for index, source in enumerate(sources):
        _sorted_row(source, index)
        check_same_dtype(sources[0], source, index)
    return sources


def deduce_mrgsort2(args: Sequence[Node], attrs: Attrs) -> Type:
    sources = _merge_sources(args, with_tmp=True)
    tmp = value_at(args, len(args) - 1)
    total = sum(s.shape[1] for s in sources)
    if tmp.dtype != sources[0].dtype or tmp.shape[-1] < total:
        raise DeductionError(f"expected a {sources[0].dtype.name} scratch row of at least {total} elements, got "
                             f"{describe(args[-1])}", len(args) - 1)
    return _tile_or_tensor_like(sources[0], (1, total), sources[0].dtype, None)


def deduce_tensor_mrgsort2(args: Sequence[Node], attrs: Attrs) -> Type:
    sources = _merge_sources(args, with_tmp=False)
    return TensorType((1, sum(s.shape[1] for s in sources)), sources[0].dtype)


# -- gathers --------------------------------------------------------------------------------------


# PTOAS's index-form tgather runs over whole rows: it wants its dst's valid columns equal to the
# dst buffer's columns (and the indices' to theirs), and a Vec tile's row-major row is padded to
# whole 32-byte blocks, so a gather whose rows are not whole blocks has padding PTOAS refuses (a
# column-major [N, 1] column pads its rows instead, and is taken). The index's columns are the
# result's, so one rule on the result states it for both; the flat gather's contract
# (check_flat_gather_index) reads its number, and asks it of every index, a column's too.
GATHER_UNPADDED_ROWS = UnpaddedRows(
    A2A3 | A5,
    "PTOAS's index-form tgather wants its dst's and its indices' valid columns equal to their buffers' columns, "
    "and a Vec row is padded to whole 32-byte blocks",
    "pad the index's columns to whole 32-byte rows of the source's element type (a multiple of 8 for FP32 / "
    "INT32, 16 for FP16 / INT16) and narrow it with pl.tile.set_validshape: the result keeps the index's valid "
    "shape",
    operand=RESULT, row_bytes=32)


def check_flat_gather_index(index: Value, src_dtype: DataType, operand: int) -> None:
    """The flat-gather contract: a 2-D INT32 index whose physical columns are a positive
    multiple of 16 for 2-byte sources and 8 for 4-byte ones (32-byte index and output rows,
    GATHER_UNPADDED_ROWS), checked even for a single row; pl.set_validshape narrows the valid
    columns."""
    if index.dtype is not DataType.INT32 or len(index.shape) != 2:
        raise DeductionError(f"expected a 2-D INT32 index, got {describe_value(index)}", operand)
    align = GATHER_UNPADDED_ROWS.row_multiple(src_dtype)
    cols = index.shape[1]
    if cols <= 0 or cols % align:
        raise DeductionError(f"index columns {cols} must be a positive multiple of {align} for a {src_dtype.name} "
                             "source (index and output rows are 32-byte aligned)", operand,
                             hint=f"pad the index to [{index.shape[0]}, {-(-cols // align) * align}] and narrow it "
                                  "with pl.set_validshape")


def describe_value(value: Value) -> str:
    return f"{'Tensor' if isinstance(value, TensorType) else 'Tile'}[{list(value.shape)}, {value.dtype.name}]"


def deduce_tile_gather(args: Sequence[Node], attrs: Attrs) -> Type:
    """gather(src, indices, tmp): the indices' shape and valid shape, the source's dtype."""
    src, index = value_at(args, 0), value_at(args, 1)
    if src.dtype not in GATHER_DTYPES:
        raise DeductionError(f"expected an FP16/FP32/INT16/INT32 source, got {src.dtype.name}", 0)
    if index.dtype not in (DataType.INT32, DataType.UINT32) or len(index.shape) != 2:
        raise DeductionError(f"expected a 2-D INT32 index, got {describe(args[1])}", 1)
    if len(args) > 2:
        tmp = value_at(args, 2)
        if tmp.shape != index.shape or tmp.dtype.byte_width != 4:
            raise DeductionError(f"expected a 4-byte scratch of the index's shape {list(index.shape)}, got "
                                 f"{describe(args[2])}", 2)
    return make_tile_type(index.shape, src.dtype, index.valid_shape)


def gather_dim(attrs: Attrs, rank: int) -> int | None:
    dim = attr(attrs, "dim")
    if dim is None:
        return None
    if not isinstance(dim, int) or not -rank <= dim < rank:
        raise DeductionError(f"attribute 'dim' expected an axis within rank {rank}, got {dim!r}")
    return dim % rank


def deduce_tensor_gather(args: Sequence[Node], attrs: Attrs) -> Type:
    """Flat (no dim): out = src.reshape(-1)[index], the index's shape; with dim: axis indexing
    of a rank-2 source, out[i, j] = src[index[i, j], j] (dim 0) / src[i, index[i, j]] (dim 1)."""
    src, index = value_at(args, 0), value_at(args, 1)
    if src.dtype not in GATHER_DTYPES:
        raise DeductionError(f"expected an FP16/FP32/INT16/INT32 source, got {src.dtype.name}", 0)
    dim = gather_dim(attrs, len(src.shape))
    if dim is None:
        check_flat_gather_index(index, src.dtype, 1)
        return TensorType(index.shape, src.dtype, index.valid_shape)
    if len(src.shape) != 2 or len(index.shape) != 2:
        raise DeductionError("axis gather (dim) is supported on rank-2 sources and indices", 0,
                             hint="reshape to 2-D, or gather flat (without dim)")
    if index.dtype not in AXIS_GATHER_INDEX_DTYPES:
        raise DeductionError(f"expected an INT32 or INT16 index, got {index.dtype.name}", 1)
    other = 1 - dim
    if index.shape[other] != src.shape[other]:
        raise DeductionError(f"expected the index to have the source's extent {src.shape[other]} on axis {other}, got "
                             f"{list(index.shape)}", 1)
    return TensorType(index.shape, src.dtype, index.valid_shape)


def mask_pattern(attrs: Attrs) -> tuple[str, int]:
    value = attr(attrs, "mask_pattern")
    if not isinstance(value, int) or value not in MASK_PATTERNS:
        raise DeductionError(f"attribute 'mask_pattern' expected a pl.tile.MaskPattern (1..7), got {value!r}")
    return MASK_PATTERNS[value]


def deduce_gather_mask(args: Sequence[Node], attrs: Attrs) -> Type:
    src = value_at(args, 0)
    _check_row_major_2d(src, 0)
    _, stride = mask_pattern(attrs)
    rows, cols = src.shape
    if cols % stride:
        raise DeductionError(f"the last dim {cols} must be divisible by the pattern's stride {stride}", 0)
    out = attr(attrs, "output_dtype")
    dtype = out if isinstance(out, DataType) else src.dtype
    if dtype.bits != src.dtype.bits:
        raise DeductionError(f"attribute 'output_dtype' must have the source's bit width ({src.dtype.bits}), got "
                             f"{dtype.name}", hint="gather_mask reinterprets bits; it does not convert values")
    valid = (src.valid[0], src.valid[1] // stride)
    return rebuild(src, (rows, cols // stride), dtype, valid)


# TGATHERB's unit: each byte offset names one 32-byte block of the source.
_GATHERB_BLOCK_BYTES = 32


def deduce_gatherb(args: Sequence[Node], attrs: Attrs) -> Type:
    src, offsets = value_at(args, 0), value_at(args, 1)
    if offsets.dtype is not DataType.UINT32 or len(offsets.shape) != 2:
        raise DeductionError(f"expected 2-D UINT32 byte offsets, got {describe(args[1])}", 1)
    if offsets.shape[1] % 8:
        raise DeductionError(f"offset rows need a positive multiple of 8 entries, got {offsets.shape[1]}", 1)
    if len(src.shape) == 2 and src.shape[0] > 1 and (src.shape[1] * src.dtype.bits // 8) % _GATHERB_BLOCK_BYTES:
        raise DeductionError(
            f"not supported yet: gatherb from a source whose rows are not whole {_GATHERB_BLOCK_BYTES}-byte blocks "
            f"({src.shape[1]} {src.dtype.pl_name} = {src.shape[1] * src.dtype.bits // 8} bytes a row): its byte "
            f"offsets address the tile's buffer, whose rows are padded to 32 bytes, so a block can straddle a row's "
            f"end and its padding", 0)
    out = attr(attrs, "output_dtype")
    dtype = out if isinstance(out, DataType) else src.dtype
    per_block = 32 // dtype.byte_width
    rows, cols = offsets.shape
    return make_tile_type((rows, cols * per_block), dtype, (offsets.valid[0], offsets.valid[1] * per_block))


def deduce_mgather(args: Sequence[Node], attrs: Attrs) -> Type:
    """mgather(mem, idx, coalesce): "row" gathers whole rows of the 2-D GM tensor (one INT32
    index per output row, a [1, R] or [R, 1] index); "elem" flat-indexes elements (the index's shape)."""
    mem = type_of(args[0])
    if not isinstance(mem, TensorType) or len(mem.shape) != 2:
        raise DeductionError(f"expected a 2-D GM tensor, got {describe(args[0])}", 0)
    idx = value_at(args, 1)
    if idx.dtype is not DataType.INT32:
        raise DeductionError(f"expected an INT32 index tile, got {idx.dtype.name}", 1)
    coalesce = attr(attrs, "coalesce", "row")
    if coalesce == "elem":
        return make_tile_type(idx.shape, mem.dtype, idx.valid_shape)
    if len(idx.shape) != 2 or 1 not in idx.shape:
        raise DeductionError(f"expected a [1, R] or [R, 1] row index, got {list(idx.shape)}", 1)
    rows = max(idx.shape)
    return make_tile_type((rows, mem.shape[1]), mem.dtype)


# -- scatters -------------------------------------------------------------------------------------


def _check_full_valid(op: str, operands: Sequence[tuple[int, TensorType | TileType]]) -> None:
    """A scatter's index names positions of whole operands: a partially valid one (whose rows
    past the valid extent are not the user's data) is not supported yet."""
    for index, operand in operands:
        if tuple(operand.valid) != tuple(operand.shape):
            raise DeductionError(f"not supported yet: {op} over a partially valid operand (valid "
                                 f"{list(operand.valid)} of {list(operand.shape)}): its index names positions of "
                                 "whole operands", index, "scatter a fully valid tensor (slice without valid_shape)")


def deduce_tile_scatter(args: Sequence[Node], attrs: Attrs) -> Type:
    """scatter(dst, src, indexes): dst.flat[indexes] = src; the result is dst. Index dtype
    matches the element size: 4-byte data INT32, 2- and 1-byte data INT16."""
    dst, src, index = value_at(args, 0), value_at(args, 1), value_at(args, 2)
    _check_full_valid("scatter", ((0, dst), (1, src), (2, index)))
    check_same_dtype(dst, src, 1)
    if index.shape != src.shape:
        raise DeductionError(f"expected indexes of the source's shape {list(src.shape)}, got {list(index.shape)}", 2)
    wanted = DataType.INT32 if dst.dtype.byte_width == 4 else DataType.INT16
    if index.dtype is not wanted:
        raise DeductionError(f"expected {wanted.name} indexes for {dst.dtype.name} data, got {index.dtype.name}", 2)
    return dst


def mask_phase(name: str) -> int:
    """The first column a MaskPattern marks: its names read right to left, column 0 rightmost."""
    return name[1:][::-1].index("1")


def deduce_scatter_mask(args: Sequence[Node], attrs: Attrs) -> Type:
    """scatter_mask(dst, src, mask_pattern): each src row written into the marked columns of
    the same dst row (dst_cols = src_cols * stride); the result is dst, unmarked columns kept."""
    dst, src = value_at(args, 0), value_at(args, 1)
    _check_row_major_2d(dst, 0)
    _check_row_major_2d(src, 1)
    check_same_dtype(dst, src, 1)
    _, stride = mask_pattern(attrs)
    if dst.shape[0] != src.shape[0] or dst.shape[1] != src.shape[1] * stride:
        raise DeductionError(f"expected a destination of [{src.shape[0]}, {src.shape[1] * stride}] (the source's "
                             f"rows, its columns times the pattern's stride {stride}), got {list(dst.shape)}", 0)
    if dst.valid != dst.shape or src.valid != src.shape:
        raise DeductionError("scatter_mask needs full valid regions (its index covers every source element)", 1)
    return dst


def deduce_tensor_scatter(args: Sequence[Node], attrs: Attrs) -> Type:
    """scatter(input, index, src, dim=-1): out[b, index[b, k]] = src[b, k] (rank 2, dim -1);
    the index (and src) may cover the first rows of the input only, the others are kept."""
    dst, index, src = value_at(args, 0), value_at(args, 1), value_at(args, 2)
    _check_full_valid("scatter", ((0, dst), (1, index), (2, src)))
    check_same_dtype(dst, src, 2)
    if len(dst.shape) != 2 or gather_dim(attrs, 2) != 1:
        raise DeductionError("tensor.scatter supports rank-2 inputs with dim=-1", 0)
    if index.shape != src.shape or index.dtype is not DataType.INT32:
        raise DeductionError(f"expected an INT32 index of the source's shape {list(src.shape)}, got "
                             f"{describe(args[1])}", 1)
    if index.shape[0] > dst.shape[0]:
        raise DeductionError(f"expected at most {dst.shape[0]} index rows (the input's), got {index.shape[0]}", 1)
    return TensorType(dst.shape, dst.dtype)


def deduce_scatter_update(args: Sequence[Node], attrs: Attrs) -> Type:
    """scatter_update(input, index, src, dim=-2): input[index.flat[k], :] = src[k, :] (rows of
    the input seen as [m, d] with d its last dim); the result is the updated input."""
    dst, index, src = value_at(args, 0), value_at(args, 1), value_at(args, 2)
    _check_full_valid("scatter_update", ((0, dst), (1, index), (2, src)))
    check_same_dtype(dst, src, 2)
    dim = attr(attrs, "dim", -2)
    if dim != -2:
        raise DeductionError(f"scatter_update supports dim=-2 (whole rows), got {dim!r}")
    if index.dtype is not DataType.INT32:
        raise DeductionError(f"expected an INT32 index, got {index.dtype.name}", 1)
    count = 1
    for extent in index.shape:
        count *= extent
    rows = 1
    for extent in src.shape[:-1]:
        rows *= extent
    if src.shape[-1] != dst.shape[-1] or rows != count:
        raise DeductionError(f"expected {count} source rows of {dst.shape[-1]} (one per index), got "
                             f"{list(src.shape)}", 2)
    if dst.dtype.byte_width == 2:
        total = 1
        for extent in dst.shape:
            total *= extent
        if total > 32767:
            raise DeductionError(f"a 2-byte input of {total} elements needs flat indexes beyond INT16's 32767", 0,
                                 hint="TSCATTER indexes 2-byte data with INT16; split the input")
    return dst


def scatter_update_rows(dst: Dims, index: Dims, src: Dims) -> tuple[tuple[Dims, tuple[int, int]], ...]:
    """The [rows, width] a scatter_update's lowering flattens its input, source and index to (the
    input's rows of its last dim, one source row per index, the index as one column)."""
    width = int(dst[-1])
    rows = count = 1
    for extent in dst[:-1]:
        rows *= int(extent)
    for extent in index:
        count *= int(extent)
    return ((dst, (rows, width)), (src, (count, width)), (index, (count, 1)))


def scatter_update_flat_gap(dst: object, index: object, src: object) -> str:
    """Why a scatter_update's operands have no zero-copy flat rows on chip ("" when they have):
    a flattening whose padded Vec rows keep the elements out of row-major order
    (`languages.views.flat_reshape_gap`). ConvertTensorToTileOps refuses such a call; the program
    generator does not draw it."""
    if not all(isinstance(t, (TensorType, TileType)) for t in (dst, index, src)):
        return ""
    assert isinstance(dst, (TensorType, TileType)) and isinstance(index, (TensorType, TileType)) \
        and isinstance(src, (TensorType, TileType))
    dtypes = (dst.dtype, src.dtype, index.dtype)
    for (shape, rows), dtype in zip(scatter_update_rows(dst.shape, index.shape, src.shape), dtypes):
        if tuple(shape) != rows and len(shape) >= 1:
            gap = flat_reshape_gap(tuple(int(d) for d in shape), rows, dtype)
            if gap:
                return gap
    return ""


# -- tables -----------------------------------------------------------------------------------------


def _vec(name: str, index_domain: tuple[IndexDomain, ...] = ()) -> OperandDecl:
    return OperandDecl(name, _TILE, input_memory=VEC, index_domain=index_domain)


def _ten(name: str) -> OperandDecl:
    return OperandDecl(name, _T)


_VEC_OUT = Fixed(VEC)
# PTOAS: "pto.mgather is only supported on A5 targets" (A2/A3 have no MGATHER instruction).
_MGATHER_RULES: tuple[TargetRule, ...] = (
    Unavailable(A2A3, "A2/A3 has no MGATHER instruction (PTOAS: pto.mgather is only supported on A5 targets)",
                "compile for Ascend950 (--backend Ascend950), or load the source into Vec and gather on chip "
                "(pl.gather of a tile lowers to tile.gather)"),
)
_MASK = AttrDecl("mask_pattern", "int", None, tuple(MASK_PATTERNS))
# The mask-pattern TGATHER's element types (its source's; the result has the source's width):
# PTOAS's TGatherOp::verify wants 2- or 4-byte elements on A2/A3 ("expects A2/A3 mask-pattern
# gather element size to be 2 or 4 bytes"; pto-isa's A2/A3 TGATHER: "expect b16/b32") and
# isSupportedGatherElemTypeA5's i8/i16/i32, f16/bf16/f32 and the 8-bit floats on A5.
_GATHER_MASK_A2A3 = frozenset({DataType.INT16, DataType.UINT16, DataType.FP16, DataType.BF16, DataType.INT32,
                               DataType.UINT32, DataType.FP32})
_GATHER_MASK_A5 = _GATHER_MASK_A2A3 | {DataType.INT8, DataType.UINT8, DataType.FP8E4M3FN, DataType.FP8E5M2,
                                       DataType.FP8E8M0, DataType.HF8}
_GATHER_MASK_RULES: tuple[TargetRule, ...] = (
    DtypeIn(A2A3, "PTOAS's mask-pattern tgather takes 2- or 4-byte elements on A2/A3",
            "cast the bytes to INT16 or FP16 first (pl.cast), or compile for Ascend950 (--backend Ascend950)",
            operand=0, dtypes=_GATHER_MASK_A2A3),
    DtypeIn(A5, "PTOAS's mask-pattern tgather takes i8 / i16 / i32, f16 / bf16 / f32 and 8-bit float elements on "
            "Ascend950", "cast to one of those types first", operand=0, dtypes=_GATHER_MASK_A5),
)


def _conversion(tile_op: str, count: int) -> TileConversion:
    return TileConversion(tile_op, tuple(TileInput(i, (tile_op,)) for i in range(count)))


def _sort_ops() -> list[OpDef]:
    return [
        OpDef("tile.sort32", (_vec("src"), _vec("idx"), OperandDecl("tmp", _TILE, input_memory=VEC, effect=WRITE,
                                                                     optional=True)),
              deduce_sort32, ("sort32",), "sort", output_memory=_VEC_OUT, in_place_safe=False, pto=("pto.tsort32",),
              doc="Each 32-column block sorted descending into (score, index) pairs."),
        OpDef("tensor.sort32", (_ten("src"), _ten("idx")), deduce_sort32, ("sort32",), "sort",
              to_tile=_conversion("tile.sort32", 2)),
        OpDef("tile.mrgsort_format1", (_vec("src"), OperandDecl("block_len", "scalar", literal_dtype=DataType.INT32)),
              deduce_mrgsort1, ("mrgsort1",), "sort", output_memory=_VEC_OUT, in_place_safe=False,
              pto=("pto.tmrgsort",), doc="Every 4 consecutive sorted blocks of block_len elements merged."),
        OpDef("tensor.mrgsort_format1", (_ten("src"), OperandDecl("block_len", "scalar", literal_dtype=DataType.INT32)),
              deduce_mrgsort1, ("mrgsort1",), "sort", to_tile=TileConversion("tile.mrgsort_format1", (
                  TileInput(0, ("tile.mrgsort_format1",)),))),
        OpDef("tile.mrgsort_format2", (_vec("src0"), _vec("src1"), OperandDecl("srcs", _TILE, input_memory=VEC,
                                                                              variadic=True)),
              deduce_mrgsort2, ("mrgsort2",), "sort", attrs=(AttrDecl("exhausted", "bool", False),),
              output_memory=_VEC_OUT, in_place_safe=False, pto=("pto.tmrgsort",), pto_attrs=(("exhausted", "exhausted"),),
              doc="2 to 4 sorted rows merged; the last operand is the scratch row."),
        OpDef("tensor.mrgsort_format2", (_ten("src0"), _ten("src1"), OperandDecl("srcs", _T, variadic=True)),
              deduce_tensor_mrgsort2, ("mrgsort2",), "sort", attrs=(AttrDecl("exhausted", "bool", False),),
              to_tile=TileConversion("tile.mrgsort_format2", self_loading=True),
              doc="The converter supplies the scratch row."),
    ]


# The spec's gather contract: "indices must refer to valid source elements; negative indexing
# and bounds checking are not provided". Along `dim` (rank 2 or 3, either sign), or flat over the
# source's elements without it. An index outside is undefined: the lowering gathers flat over the
# source's buffer, whose padding rows hold no data (random inputs and the generator keep inside).
_GATHER_INDEX_DOMAIN: tuple[IndexDomain, ...] = (
    *(IndexDomain(0, axis=dim, when=(("dim", dim),)) for dim in (-3, -2, -1, 0, 1, 2)),
    IndexDomain(0, when=(("dim", None),)),
)


def _index_form_whole_rows(operand: int, verb: str) -> tuple[TargetRule, ...]:
    """TGATHER / TSCATTER index a flat position by the operand's declared columns, while a
    column window's rows lie its buffer's pitch apart: the index would name other elements."""
    return (WholeRows(A2A3 | A5, f"the index form {verb} its flat positions by the window's own columns, but the "
                      "window's rows lie the whole tile's row apart",
                      "copy the window into a tile of its own first (pl.tile.move(window, target_memory=pl.Mem.Vec)), "
                      "or index the whole tile", operand=operand),)


def _flat_row_major(*operands: int) -> tuple[TargetRule, ...]:
    """TGATHER / TSCATTER (index forms) and TGATHERB walk these operands' buffers flat, element
    after element (byte after byte), which is their logical row-major order only for a row-major
    tile (`FlatRowMajor`): a column-major view (a transpose_view's result) names other elements."""
    return tuple(FlatRowMajor(A2A3 | A5, "the instruction walks the operand's buffer flat, which is its row-major order "
                              "only when it is laid out row-major",
                              "gather from (scatter into) a row-major tile: pl.tile.transpose the tile the view "
                              "was taken of instead of viewing it transposed", operand=operand)
                 for operand in operands)


def _gather_ops() -> list[OpDef]:
    out_dtype = AttrDecl("output_dtype", "dtype")
    return [
        OpDef("tile.gather", (_vec("src"), _vec("indices", (IndexDomain(0, pitched=True),)),
                              OperandDecl("tmp", _TILE, input_memory=VEC, effect=WRITE, optional=True)),
              deduce_tile_gather, ("gather",), "gather", output_memory=_VEC_OUT, in_place_safe=False,
              pto=("pto.tgather",), target_rules=(*_index_form_whole_rows(0, "reads"), *_flat_row_major(0, 1),
                                                      GATHER_UNPADDED_ROWS),
              doc="out[r, c] = src's buffer flat at indices[r, c], rows padded to 32 bytes (a [16, 4] FP32 "
                  "source's rows are 8 apart); indices must name source elements (pto-isa reads 0 past the end)."),
        OpDef("tensor.gather", (_ten("src"), OperandDecl("index", "tensor_or_tile", index_domain=_GATHER_INDEX_DOMAIN)),
              deduce_tensor_gather, ("tensor_gather",), "gather", attrs=(AttrDecl("dim", "int"),),
              to_tile=TileConversion("tile.gather", self_loading=True),
              doc="Flat without dim (the flat-gather contract), axis indexing with dim."),
        OpDef("tile.gather_mask", (_vec("src"),), deduce_gather_mask, ("gather_mask",), "gather",
              attrs=(_MASK, out_dtype), output_memory=_VEC_OUT, in_place_safe=False, pto=("pto.tgather",),
              pto_attrs=(("mask_pattern", "maskPattern"),), target_rules=_flat_row_major(0) + _GATHER_MASK_RULES,
              doc="The marked columns, compacted (TGATHER mask form)."),
        OpDef("tensor.gather_mask", (_ten("src"),), deduce_gather_mask, ("gather_mask",), "gather",
              attrs=(_MASK, out_dtype), to_tile=_conversion("tile.gather_mask", 1), target_rules=_GATHER_MASK_RULES),
        OpDef("tile.gatherb", (_vec("src"), _vec("offsets", (IndexDomain(0, block_bytes=_GATHERB_BLOCK_BYTES),))),
              deduce_gatherb,
              ("gatherb",), "gather", attrs=(out_dtype,), output_memory=_VEC_OUT, in_place_safe=False, pto=("pto.tgatherb",),
              target_rules=_flat_row_major(0, 1),
              doc="32-byte blocks of src at the UINT32 byte offsets."),
        OpDef("tile.mgather", (OperandDecl("mem", _T), OperandDecl("idx", _TILE, input_memory=VEC, index_domain=(
                  IndexDomain(0, axis=0, when=(("coalesce", "row"), ("gather_oob", "undefined"))),
                  IndexDomain(0, when=(("coalesce", "elem"), ("gather_oob", "undefined")))))), deduce_mgather, ("mgather",), "gather",
              attrs=(AttrDecl("coalesce", "str", "row", ("row", "elem")),
                     AttrDecl("gather_oob", "str", "undefined", ("undefined", "clamp", "wrap", "zero")),
                     AttrDecl("target_memory", "memory_space", VEC, (VEC,))),
              output_memory=_VEC_OUT, pto=("pto.partition_view", "pto.mgather"), target_rules=_MGATHER_RULES,
              doc="Rows (coalesce='row') or elements ('elem') of a GM tensor into Vec (PTOAS: Ascend950)."),
    ]


# tile.scatter_mask has no instruction (PTOAS has no tscatter mask form): ConvertTensorToTileOps
# expands every call (TILE_EXPANSIONS), so a kernel entering the pipeline after it cannot hold one.
_SCATTER_MASK_EXPANSION = CompletedBy(
    "ConvertTensorToTileOps", "TileUnplaced", lambda args, attrs: "it has no instruction of its own",
    "write the kernel for the pipeline to take up at Tensor (`# nanopass.language: Tensor`, or "
    "pl.tensor.scatter_mask on tensors), where ConvertTensorToTileOps expands it into the flat index and "
    "pl.tile.scatter, or write that flat index and pl.tile.scatter yourself")


def _scatter_ops() -> list[OpDef]:
    return [
        OpDef("tile.scatter", (OperandDecl("dst", _TILE, input_memory=VEC, effect=READ_WRITE), _vec("src"),
                               OperandDecl("indexes", _TILE, input_memory=VEC,
                                           index_domain=(IndexDomain(0, distinct=True, pitched=True),))),
              deduce_tile_scatter, ("scatter",), "scatter", output_memory=ReusesInput(0), pto=("pto.tscatter",),
              target_rules=(*_index_form_whole_rows(0, "writes"), *_flat_row_major(0, 1, 2)), pto_ins=(1, 2), doc="dst's buffer flat at indexes = src, rows padded to 32 bytes (as tile.gather); the "
                                      "result is dst's buffer."),
        OpDef("tile.scatter_mask", (OperandDecl("dst", _TILE, input_memory=VEC, effect=READ_WRITE), _vec("src")),
              deduce_scatter_mask, ("scatter_mask",), "scatter", attrs=(_MASK,), output_memory=ReusesInput(0),
              pto=("pto.tscatter",), completed_by=_SCATTER_MASK_EXPANSION,
              doc="Each src row into the mask-marked columns of dst (dst_cols = src_cols * stride), unmarked "
                  "columns kept. No pto-isa instruction: ConvertTensorToTileOps expands it into the flat index "
                  "r * dst_cols + c * stride + phase (tile.ci arithmetic) and an indexed tile.scatter."),
        OpDef("tensor.scatter_mask", (_ten("dst"), OperandDecl("src", _T)),
              deduce_scatter_mask, ("scatter_mask",), "scatter", attrs=(_MASK,),
              to_tile=TileConversion("tile.scatter_mask", self_loading=True),
              doc="Tensor form of tile.scatter_mask: the compact src expanded into the marked columns of dst."),
        OpDef("tensor.scatter", (_ten("input"), OperandDecl("index", _T, index_domain=(
                  IndexDomain(0, axis=-1, distinct=True),)), OperandDecl("src", _T)),
              deduce_tensor_scatter, ("tensor_scatter",), "scatter", attrs=(AttrDecl("dim", "int", -1),),
              to_tile=TileConversion("tile.scatter", self_loading=True),
              doc="out[b, index[b, k]] = src[b, k] (rank 2, dim=-1); the rest of input kept."),
        OpDef("tensor.scatter_update", (_ten("input"), OperandDecl("index", _T, index_domain=(
                  IndexDomain(0, axis=-2, distinct=True),)), OperandDecl("src", _T)),
              deduce_scatter_update, ("scatter_update",), "scatter", attrs=(AttrDecl("dim", "int", -2),),
              signature=("input", "dim", "index", "src"),
              to_tile=TileConversion("tile.scatter", self_loading=True, lowered_with=("tile.sel",)),
              doc="Whole rows: input[index.flat[k], :] = src[k, :] (scatter + sel preserve-blend lowering)."),
    ]


OPS: tuple[OpDef, ...] = tuple(_sort_ops() + _gather_ops() + _scatter_ops())

# PyPTO's dispatching DSL spellings: name -> how the operands choose the registered op.
SPELLINGS: dict[str, tuple[str, str]] = {
    "tile.mrgsort": ("tile.mrgsort_format1", "tile.mrgsort_format2"),
    "tensor.mrgsort": ("tensor.mrgsort_format1", "tensor.mrgsort_format2"),
}


# Dispatching spellings that name another registered op by a keyword (PyPTO's tensor.scatter
# with mask_pattern= is the mask-pattern row scatter), with the order their positional
# arguments bind in: `pl.tensor.scatter(compact, mask_pattern=1, dst=dst)`.
KEYWORD_SPELLINGS: dict[tuple[str, str], tuple[str, tuple[str, ...]]] = {
    ("tensor.scatter", "mask_pattern"): ("tensor.scatter_mask", ("src", "dst")),
}


def keyword_spelling(name: str, keywords: Sequence[str]) -> tuple[str, tuple[str, ...]] | None:
    """(op, positional order) when a keyword makes `name` spell another op."""
    for keyword in keywords:
        if (name, keyword) in KEYWORD_SPELLINGS:
            return KEYWORD_SPELLINGS[(name, keyword)]
    return None


def resolve_spelling(name: str, positional: int, keywords: Sequence[str]) -> str:
    """The registered op a dispatching spelling means: mrgsort with one source (and a
    block_len) is format 1, with several it is format 2; `arange` is ci; tensor.scatter with
    mask_pattern= is tensor.scatter_mask."""
    spelled = keyword_spelling(name, keywords)
    if spelled is not None:
        return spelled[0]
    if name in SPELLINGS:
        one, many = SPELLINGS[name]
        return one if positional <= 1 or "block_len" in keywords else many
    if name in ("tensor.arange", "tile.arange"):
        return name.replace("arange", "ci")
    return name


__all__ = ["KEYWORD_SPELLINGS", "MASK_PATTERNS", "MRGSORT_BLOCK_LEN_MULTIPLE", "MRGSORT_MAX_GROUPS", "OPS", "SPELLINGS", "keyword_spelling", "pair_elements",
           "resolve_spelling"]

