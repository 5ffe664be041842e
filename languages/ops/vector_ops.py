"""The vector catalog beyond plain arithmetic, tile and tensor forms side by side (spec
tensor_and_tile_operators.md, JIT_FRONTEND.md section 4): bitwise and shift ops (with the
trailing-underscore Python spellings `and_` / `or_` / `not_`), fmod / rem, compares producing
packed predicate masks, select, PReLU / LReLU, the fused carry ops, partial ops, expands,
direction-specific products, pure row / column broadcasts and exp-difference broadcasts,
integer sequences (`ci` / `arange`), triangles (`tri`), fill-pad, concat and the zero-copy
reinterpretations (`reinterpret_view`, `tensor.view`).

Rules stated here (the catalog's):

- bitwise and / or / xor take matching integer dtypes of 8, 16 or 32 bits and the same shape
  (there is no row_expand_and, so a broadcast is rejected at deduction); `not` is INT16 /
  UINT16 only; shifts keep the lhs element type and take an integer count; the scalar forms take
  an integer of the same width.  `xor` / `xors` need a scratch tile at tile level; the tensor
  forms get one synthesized by ConvertTensorToTileOps (`TileConversion.scratch`).
- a compare is a packed predicate mask: UINT8, one row per value row, bit c % 8 of byte c // 8
  for column c, the row padded to a whole number of 32-byte words (`mask_cols`).
- the tensor-scalar and exact-region tensor-tensor results keep the operand's valid shape
  (`same_valid`), as the arithmetic ops do; compares, xor and part_* do not.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Sequence

from languages.layout import is_one_element, is_row_major_linear, physical_2d, reinterpret_keeps_order, shape_blayout
from languages.memory_space import MemorySpace
from languages.ops import (
    WRITE,
    AttrDecl,
    DeductionError,
    Fixed,
    InheritInput,
    OpDef,
    OperandDecl,
    TileConversion,
    TileInput,
    ViewValid,
    describe,
    static_int,
    type_of,
)
from languages.ops.target_rules import (A2A3, A5, RESULT, Disjoint, DtypeIn, MaskScratch, TargetRule, Unavailable,
                                       dtype_not_in)
from languages.ops.tensor_ops import (
    Value,
    check_same_dtype,
    deduce_col_expand,
    deduce_reduce_col,
    deduce_reduce_row,
    deduce_row_expand,
    reshape_valid,
    check_valid_within,
    dims_at,
    dtype_attr,
    rebuild,
    same_valid,
    scalar_at,
    value_at,
)
from languages.types import Attrs, DataType, Dims, ScalarType, TensorType, TileType, TileView, Type, ValidDims, attr
from languages.views import effective_view, flat_reshape_gap, implicit_view, make_tile_type, normalize_valid
from nanopass.node import Node

VEC = MemorySpace.Vec
_T, _TILE = "tensor", "tile"

BITWISE_WIDTHS = (8, 16, 32)
NOT_DTYPES = (DataType.INT16, DataType.UINT16)
# cmp_type codes of `pl.cmp(lhs, rhs, cmp_type=...)` and the PTO compare modes they select.
CMP_MODES = ("eq", "ne", "lt", "le", "gt", "ge")
MASK_DTYPE = DataType.UINT8
MASK_ROW_BYTES = 32  # a mask row is a whole number of 32-byte words (Vec rows are 32-byte aligned)
CI_DTYPES = (DataType.INT16, DataType.INT32)
RANDOM_DTYPES = (DataType.UINT32, DataType.INT32)
# tensor.random / tile.random: the Philox key words, then the 128-bit counter's words.
RANDOM_WORDS = ("key0", "key1", "c0", "c1", "c2", "c3")
# The union over targets (PTOAS's ttri verifier: A5 adds bf16 / i8 / u8); the per-target
# subsets are tile.tri's target rules.
TRI_DTYPES = (DataType.INT32, DataType.INT16, DataType.UINT32, DataType.UINT16, DataType.FP16,
              DataType.BF16, DataType.FP32, DataType.INT8, DataType.UINT8)
# Byte-identical pairs reinterpret_view admits beyond the general integer / float set (MX).
_GENERAL_REINTERPRET = frozenset({
    DataType.INT8, DataType.UINT8, DataType.INT16, DataType.UINT16, DataType.INT32, DataType.UINT32,
    DataType.INT64, DataType.UINT64, DataType.FP16, DataType.BF16, DataType.FP32,
})
_MX_REINTERPRET = frozenset({(DataType.INT8, DataType.FP8E4M3FN), (DataType.FP8E4M3FN, DataType.INT8),
                             (DataType.UINT8, DataType.FP8E8M0), (DataType.FP8E8M0, DataType.UINT8)})


def mask_cols(cols: int) -> int:
    """Bytes of one mask row for `cols` compared values: ceil(cols / 8) rounded up to 32."""
    packed = -(-cols // 8)
    return max(MASK_ROW_BYTES, -(-packed // MASK_ROW_BYTES) * MASK_ROW_BYTES)


# -- deducers ----------------------------------------------------------------------------------


def _integer(value: Value | ScalarType, operand: int, widths: Sequence[int] = BITWISE_WIDTHS) -> None:
    if not value.dtype.is_int or value.dtype.bits not in widths:
        names = "/".join(f"{w}-bit" for w in widths)
        raise DeductionError(f"expected a {names} integer dtype, got {value.dtype.name}", operand,
                             hint="bitwise and shift ops are integer-only; cast first (pl.cast)")


def _same_shape(lhs: Value, rhs: Value) -> None:
    if lhs.shape != rhs.shape:
        raise DeductionError(f"expected the same shape as {list(lhs.shape)}, got {list(rhs.shape)}", 1,
                             hint="bitwise ops do not broadcast (there is no row_expand form of them)")


def _check_tmp(args: Sequence[Node], index: int) -> None:
    """A scratch operand: any tile (its bytes are the instruction's workspace)."""
    if index < len(args):
        ty = type_of(args[index])
        if not isinstance(ty, (TileType, TensorType)):
            raise DeductionError(f"expected a scratch tile, got {describe(args[index])}", index)


def deduce_bitwise(args: Sequence[Node], attrs: Attrs) -> Type:
    lhs, rhs = value_at(args, 0), value_at(args, 1)
    _integer(lhs, 0)
    check_same_dtype(lhs, rhs, 1)
    _same_shape(lhs, rhs)
    _check_tmp(args, 2)
    return rebuild(lhs, lhs.shape, lhs.dtype, same_valid(lhs, rhs))


def deduce_shift(args: Sequence[Node], attrs: Attrs) -> Type:
    lhs, rhs = value_at(args, 0), value_at(args, 1)
    _integer(lhs, 0, (8, 16, 32, 64))
    check_same_dtype(lhs, rhs, 1)
    _same_shape(lhs, rhs)
    return rebuild(lhs, lhs.shape, lhs.dtype, same_valid(lhs, rhs))


def _same_width_scalar(value: Value, args: Sequence[Node], index: int) -> None:
    """The scalar of a bitwise / shift scalar form: an integer constant, or an integer of the
    value's width (it is encoded as a same-width signless iN)."""
    scalar = scalar_at(args, index)
    if static_int(args[index]) is not None and (scalar.dtype is DataType.INDEX or scalar.dtype.is_int):
        return
    if not scalar.dtype.is_int or scalar.dtype.bits != value.dtype.bits:
        raise DeductionError(f"expected an integer scalar of {value.dtype.bits} bits (the value's width), got "
                             f"{describe(args[index])}", index, hint="convert it with pl.cast")


def deduce_bitwise_scalar(args: Sequence[Node], attrs: Attrs) -> Type:
    value = value_at(args, 0)
    _integer(value, 0)
    _same_width_scalar(value, args, 1)
    _check_tmp(args, 2)
    return rebuild(value, value.shape, value.dtype, value.valid_shape)


def deduce_shift_scalar(args: Sequence[Node], attrs: Attrs) -> Type:
    value = value_at(args, 0)
    _integer(value, 0, (8, 16, 32, 64))
    scalar = scalar_at(args, 1)
    if not (scalar.dtype.is_int or scalar.dtype is DataType.INDEX):
        raise DeductionError(f"expected an integer shift count, got {describe(args[1])}", 1)
    return rebuild(value, value.shape, value.dtype, value.valid_shape)


def deduce_not(args: Sequence[Node], attrs: Attrs) -> Type:
    value = value_at(args, 0)
    if value.dtype not in NOT_DTYPES:
        raise DeductionError(f"expected INT16 or UINT16 (TNOT's dtypes), got {value.dtype.name}", 0)
    return rebuild(value, value.shape, value.dtype, value.valid_shape)


def deduce_arith_same_shape(args: Sequence[Node], attrs: Attrs) -> Type:
    """fmod / rem and friends: same dtype, same shape; the exact-region valid rule."""
    lhs, rhs = value_at(args, 0), value_at(args, 1)
    check_same_dtype(lhs, rhs, 1)
    if lhs.shape != rhs.shape:
        raise DeductionError(f"expected the same shape as {list(lhs.shape)}, got {list(rhs.shape)}", 1)
    _check_tmp(args, 2)
    return rebuild(lhs, lhs.shape, lhs.dtype, same_valid(lhs, rhs))


def deduce_arith_scalar(args: Sequence[Node], attrs: Attrs) -> Type:
    value = value_at(args, 0)
    scalar_at(args, 1)
    _check_tmp(args, 2)
    return rebuild(value, value.shape, value.dtype, value.valid_shape)


def cmp_mode(attrs: Attrs) -> str:
    code = attr(attrs, "cmp_type", 0)
    if not isinstance(code, int) or not 0 <= code < len(CMP_MODES):
        raise DeductionError(f"attribute 'cmp_type' expected 0..5 ({', '.join(CMP_MODES)}), got {code!r}")
    return CMP_MODES[code]


def _mask_of(value: Value) -> Type:
    if len(value.shape) != 2:
        raise DeductionError(f"expected a 2-D value, got rank {len(value.shape)}", 0,
                             hint="a predicate mask packs the bits of one row; reshape to 2-D first")
    shape = (value.shape[0], mask_cols(value.shape[1]))
    if isinstance(value, TensorType):
        return TensorType(shape, MASK_DTYPE)
    # TCMP / TCMPS write one mask row per valid source row (pto-isa TCMP_IMPL / TCMPS_IMPL assert
    # src and dst valid rows equal; PTOAS: "expects src and dst to have the same valid_shape[0]"):
    # a source valid over fewer rows than it has (a cube result boxed a fractal tall) gives a mask
    # valid over those rows, every packed word of each.
    return make_tile_type(shape, MASK_DTYPE, (value.valid_extents[0], shape[1]))


def compares_fewer_rows(value: Type) -> bool:
    """Whether a tensor compare of `value` (a 2-D tensor valid over fewer rows than it has, by
    static extents) has no lowering yet: its mask is typed whole (rows past the valid ones hold
    zero bits) while TCMP / TCMPS write mask rows only for their source's valid rows (PTOAS wants
    the two valid row counts equal), so the mask's remaining rows would be written by nothing.
    ConvertTensorToTileOps declines such a call at the user's line; the program generator does
    not draw one."""
    if not isinstance(value, (TensorType, TileType)) or len(value.shape) != 2:
        return False
    rows = value.valid_extents[0]
    return isinstance(rows, int) and rows < value.shape[0]


def deduce_cmp(args: Sequence[Node], attrs: Attrs) -> Type:
    lhs = value_at(args, 0)
    cmp_mode(attrs)
    if isinstance(type_of(args[1]), ScalarType):
        scalar_at(args, 1)
        return _mask_of(lhs)
    rhs = value_at(args, 1)
    check_same_dtype(lhs, rhs, 1)
    if lhs.shape != rhs.shape or lhs.valid != rhs.valid:
        raise DeductionError(f"expected the shape and valid shape of the first operand {list(lhs.shape)} "
                             f"valid {list(lhs.valid)}, got {list(rhs.shape)} valid {list(rhs.valid)}", 1)
    return _mask_of(lhs)


def deduce_cmps(args: Sequence[Node], attrs: Attrs) -> Type:
    lhs = value_at(args, 0)
    scalar_at(args, 1)
    cmp_mode(attrs)
    return _mask_of(lhs)


def _check_mask(args: Sequence[Node], value: Value) -> None:
    mask = value_at(args, 0)
    if not mask.dtype.is_int:
        raise DeductionError(f"expected an integer predicate mask, got {mask.dtype.name}", 0)
    width = mask.dtype.bits
    words = -(-value.shape[-1] // width) if value.shape else 0
    if len(mask.shape) != 2 or mask.shape[0] < value.shape[0] or mask.shape[1] < words:
        raise DeductionError(f"expected a mask of at least [{value.shape[0]}, {words}] ({width}-bit words, one "
                             f"bit per column), got {list(mask.shape)}", 0)


def deduce_sel(args: Sequence[Node], attrs: Attrs) -> Type:
    lhs, rhs = value_at(args, 1), value_at(args, 2)
    check_same_dtype(lhs, rhs, 2)
    if lhs.shape != rhs.shape:
        raise DeductionError(f"expected the same shape as {list(lhs.shape)}, got {list(rhs.shape)}", 2)
    _check_mask(args, lhs)
    _check_tmp(args, 3)
    return rebuild(lhs, lhs.shape, lhs.dtype, same_valid(lhs, rhs))


def deduce_sels(args: Sequence[Node], attrs: Attrs) -> Type:
    src = value_at(args, 1)
    _check_mask(args, src)
    _check_tmp(args, 2)
    scalar_at(args, 3)
    return rebuild(src, src.shape, src.dtype, src.valid_shape)


def deduce_prelu(args: Sequence[Node], attrs: Attrs) -> Type:
    x, slope = value_at(args, 0), value_at(args, 1)
    if not x.dtype.is_float:
        raise DeductionError(f"expected a float dtype, got {x.dtype.name}", 0)
    check_same_dtype(x, slope, 1)
    if x.shape != slope.shape:
        raise DeductionError(f"expected the same shape as {list(x.shape)}, got {list(slope.shape)}", 1)
    _check_tmp(args, 2)
    return rebuild(x, x.shape, x.dtype, same_valid(x, slope))


def deduce_lrelu(args: Sequence[Node], attrs: Attrs) -> Type:
    x = value_at(args, 0)
    if not x.dtype.is_float:
        raise DeductionError(f"expected a float dtype, got {x.dtype.name}", 0)
    scalar_at(args, 1)
    return rebuild(x, x.shape, x.dtype, x.valid_shape)


def deduce_fused(args: Sequence[Node], attrs: Attrs) -> Type:
    """addc / subc (src0, src1, carry): three same-shape operands of one dtype."""
    src0 = value_at(args, 0)
    for index in (1, 2):
        other = value_at(args, index)
        check_same_dtype(src0, other, index)
        if other.shape != src0.shape:
            raise DeductionError(f"expected the same shape as {list(src0.shape)}, got {list(other.shape)}", index)
    return rebuild(src0, src0.shape, src0.dtype, None)


def deduce_fused_scalar(args: Sequence[Node], attrs: Attrs) -> Type:
    """addsc / subsc (src0, scalar, carry)."""
    src0 = value_at(args, 0)
    scalar_at(args, 1)
    carry = value_at(args, 2)
    check_same_dtype(src0, carry, 2)
    if carry.shape != src0.shape:
        raise DeductionError(f"expected the same shape as {list(src0.shape)}, got {list(carry.shape)}", 2)
    return rebuild(src0, src0.shape, src0.dtype, None)


def deduce_partial(args: Sequence[Node], attrs: Attrs) -> Type:
    """part_*: same physical shape; the result is valid over the union's bounding box."""
    lhs, rhs = value_at(args, 0), value_at(args, 1)
    check_same_dtype(lhs, rhs, 1)
    if lhs.shape != rhs.shape:
        raise DeductionError(f"expected the same shape as {list(lhs.shape)}, got {list(rhs.shape)}", 1)
    valid = tuple(max(a, b) for a, b in zip(lhs.valid, rhs.valid))
    return rebuild(lhs, lhs.shape, lhs.dtype, valid)


def deduce_expands(args: Sequence[Node], attrs: Attrs) -> Type:
    """expands(target, scalar): a fresh value of the target's shape, dtype and valid shape."""
    target = value_at(args, 0)
    scalar_at(args, 1)
    return rebuild(target, target.shape, target.dtype, target.valid_shape)


def deduce_row_broadcast(args: Sequence[Node], attrs: Attrs) -> Type:
    """row_expand(lhs, rhs): rhs [.., 1] broadcast across lhs's columns (lhs gives the shape)."""
    lhs, rhs = value_at(args, 0), value_at(args, 1)
    check_same_dtype(lhs, rhs, 1)
    expected = lhs.shape[:-1] + (1,)
    # A boxed column (a matmul result with N = 1 lives in a whole fractal of columns) holds its
    # value for row i at element 0 of row i, which is where TROWEXPAND reads it (at the source's
    # row pitch; pto-isa asserts the valid rows agree): its valid region is what is one column.
    boxed_column = len(rhs.shape) == 2 and len(lhs.shape) == 2 and tuple(rhs.valid) == (lhs.valid[0], 1)
    if rhs.shape != expected and not boxed_column:
        raise DeductionError(f"expected shape {list(expected)} (one value per row), got {list(rhs.shape)}", 1)
    return rebuild(lhs, lhs.shape, lhs.dtype, lhs.valid_shape)


def deduce_col_broadcast(args: Sequence[Node], attrs: Attrs) -> Type:
    """col_expand(lhs, rhs): rhs [1, n] broadcast down lhs's rows."""
    lhs, rhs = value_at(args, 0), value_at(args, 1)
    check_same_dtype(lhs, rhs, 1)
    if len(lhs.shape) != 2:
        raise DeductionError(f"expected a 2-D value, got rank {len(lhs.shape)}", 0)
    if rhs.shape != (1, lhs.shape[1]):
        raise DeductionError(f"expected shape [1, {lhs.shape[1]}] (one value per column), got {list(rhs.shape)}", 1)
    return rebuild(lhs, lhs.shape, lhs.dtype, lhs.valid_shape)


def deduce_ci(args: Sequence[Node], attrs: Attrs) -> Type:
    """ci / arange(start, shape, dtype, descending): start + k along the last axis (leading
    dims 1, innermost dim != 1)."""
    start = scalar_at(args, 0)
    shape = dims_at(args, 1, "shape")
    dtype = dtype_attr(attrs, "dtype")
    if dtype not in CI_DTYPES:
        raise DeductionError(f"attribute 'dtype' expected INT16 or INT32, got {dtype.name}")
    if not (start.dtype.is_int or start.dtype is DataType.INDEX):
        raise DeductionError(f"expected an integer start, got {describe(args[0])}", 0)
    if not shape or shape[-1] == 1 or any(d != 1 for d in shape[:-1]):
        raise DeductionError(f"expected a shape [1, ..., n] with n > 1 (leading dims 1), got {list(shape)}", 1)
    return make_tile_type(shape, dtype)


def deduce_tensor_ci(args: Sequence[Node], attrs: Attrs) -> Type:
    result = deduce_ci(args, attrs)
    assert isinstance(result, TileType)
    return TensorType(result.shape, result.dtype)


def deduce_random(args: Sequence[Node], attrs: Attrs) -> Type:
    """random(key0, key1, c0, c1, c2, c3, shape, dtype=UINT32, rounds=10): a 2-D tile of
    Philox-4x32 words (backend.numerics.trandom), counter-based and so reproducible."""
    for index, word in enumerate(RANDOM_WORDS):
        if not (scalar_at(args, index).dtype.is_int or scalar_at(args, index).dtype is DataType.INDEX):
            raise DeductionError(f"expected an integer {word}, got {describe(args[index])}", index)
    shape = dims_at(args, len(RANDOM_WORDS), "shape")
    if len(shape) != 2:
        raise DeductionError(f"expected a 2-D shape, got {list(shape)}", len(RANDOM_WORDS))
    dtype = dtype_attr(attrs, "dtype")
    if dtype not in RANDOM_DTYPES:
        raise DeductionError(f"attribute 'dtype' expected UINT32 or INT32, got {dtype.name}")
    return make_tile_type(shape, dtype)


def deduce_tensor_random(args: Sequence[Node], attrs: Attrs) -> Type:
    result = deduce_random(args, attrs)
    assert isinstance(result, TileType)
    return TensorType(result.shape, result.dtype)


def deduce_tri(args: Sequence[Node], attrs: Attrs) -> Type:
    """tri(diagonal, shape, valid_shape=None, dtype=INT32, upper=False): a 0/1 triangle mask."""
    diagonal = scalar_at(args, 0)
    if not (diagonal.dtype.is_int or diagonal.dtype is DataType.INDEX):
        raise DeductionError(f"expected an integer diagonal offset, got {describe(args[0])}", 0)
    shape = dims_at(args, 1, "shape")
    if len(shape) != 2:
        raise DeductionError(f"expected a 2-D shape, got {list(shape)}", 1)
    valid = dims_at(args, 2, "valid_shape") if len(args) > 2 else None
    if valid is not None:
        check_valid_within(valid, shape, 2)
    dtype = dtype_attr(attrs, "dtype")
    if dtype not in TRI_DTYPES:
        raise DeductionError(f"attribute 'dtype' expected one of {', '.join(d.name for d in TRI_DTYPES)}, "
                             f"got {dtype.name}")
    return make_tile_type(shape, dtype, valid)


def deduce_fillpad(args: Sequence[Node], attrs: Attrs) -> Type:
    """fillpad(x, pad_value): the same shape, fully valid: outside x's valid region the pad."""
    value = value_at(args, 0)
    if isinstance(value, TensorType):
        return TensorType(value.shape, value.dtype)
    return make_tile_type(value.shape, value.dtype, None, value.memory_space,
                          _padded_view(value, attrs))


def deduce_fillpad_expand(args: Sequence[Node], attrs: Attrs) -> Type:
    """fillpad_expand(x, shape, pad_value): a larger tile (the shape is type deduction only)."""
    value = value_at(args, 0)
    shape = dims_at(args, 1, "shape")
    if len(shape) != len(value.shape) or any(s < v for s, v in zip(shape, value.shape)):
        raise DeductionError(f"expected a shape at least {list(value.shape)} in every dimension, got {list(shape)}", 1)
    if isinstance(value, TensorType):
        return TensorType(shape, value.dtype)
    return make_tile_type(shape, value.dtype, None, value.memory_space, _padded_view(value, attrs, shape))


def _padded_view(value: TileType, attrs: Attrs, shape: Dims | None = None) -> TileView | None:
    """The result's view: the space's implicit layout with the fill's pad (the pad records what
    the padding holds, so a later reader of a wider window sees the fill value)."""
    if value.memory_space is None:
        return None
    return replace(implicit_view(value.memory_space, tuple(shape or value.shape)),
                   pad=str(attr(attrs, "pad_value", "zero")))


def deduce_concat(args: Sequence[Node], attrs: Attrs) -> Type:
    """concat(a, b): along the columns; the rows and dtype agree."""
    a, b = value_at(args, 0), value_at(args, 1)
    check_same_dtype(a, b, 1)
    if len(a.shape) != 2 or len(b.shape) != 2:
        raise DeductionError("expected 2-D operands (concat joins columns)", 0 if len(a.shape) != 2 else 1)
    if a.shape[0] != b.shape[0] or a.valid[0] != b.valid[0]:
        raise DeductionError(f"expected {a.shape[0]} rows valid {a.valid[0]} (the first operand's), got "
                             f"{b.shape[0]} rows valid {b.valid[0]}", 1)
    shape = (a.shape[0], a.shape[1] + b.shape[1])
    full = a.valid[1] == a.shape[1]
    if not full:
        raise DeductionError(f"expected the first operand fully valid in its columns, got valid {list(a.valid)}", 0,
                             hint="the second operand's columns start right after the first's physical columns")
    return rebuild(a, shape, a.dtype, (a.valid[0], a.shape[1] + b.valid[1]))


def reinterpreted_shape(value: Value, dtype: DataType) -> Dims:
    """reinterpret_view's automatic shape: the physically contiguous axis (the last for ND /
    row-major, the penultimate for DN / col-major) scaled by the byte-width ratio. A tile's
    layout is its view's, or for an unplaced tile the flat layout its shape implies (an [N, 1]
    column is column-major, `languages.views.shape_blayout`): the one placement gives it, so the
    shape deduced before placement is the one deduced after it."""
    src, dst = value.dtype.bits, dtype.bits
    # A one-element tile is a row (`languages.layout.is_one_element`): a column-major [1, 1]
    # window is re-viewed from its own copy, a row-major tile (and unplaced, it is one already).
    col_major = isinstance(value, TileType) and effective_view(value).blayout == "col_major" \
        and not is_one_element(value.shape)
    axis = len(value.shape) - (2 if col_major and len(value.shape) >= 2 else 1)
    extent = value.shape[axis] * src
    if extent % dst:
        raise DeductionError(f"axis {axis} of {list(value.shape)} holds {extent} bits, not a whole number of "
                             f"{dtype.name} elements", 0)
    shape = list(value.shape)
    shape[axis] = extent // dst
    return tuple(shape)


def _byte_rows(shape: tuple[int, ...], dtype: DataType) -> tuple[int, int]:
    """A 2-D tile's bytes as rows of bytes in storage order: a column is stored column-major
    (`languages.layout.shape_blayout`), its elements contiguous, so it is one row of bytes."""
    if shape_blayout(shape) == "col_major":
        return (1, shape[0] * dtype.bits // 8)
    return (shape[0], shape[1] * dtype.bits // 8)


def _explicit_shape_gap(value: TensorType, dtype: DataType, shape: tuple[int, ...]) -> str:
    """A reinterpretation into an explicit 2-D `shape` is a zero-copy view on chip only where both
    tiles' padded Vec rows keep the bytes in row-major order: the same fact as a reshape
    (`languages.views.flat_reshape_gap`), stated over bytes (a [16, 16] INT16 tile's 32-byte
    rows are not [32, 8] FP16's 16-byte rows, padded to 32)."""
    if len(value.shape) != 2 or len(shape) != 2:
        return ""
    if int(value.shape[1]) == 1 and int(value.shape[0]) > 1 and shape[0] > 1 and shape[1] > 1:
        # An [N, 1] column's tile is column-major (`languages.views.shape_blayout`): a view of its
        # bytes as rows and columns is column-major too, and the vector unit computes on
        # row-major tiles only (LegalizeVecLayouts gives nothing but an [N, 1] column a row view).
        return (f"not supported yet: reinterpreting the column {list(value.shape)} of {value.dtype.name} as "
                f"{list(shape)} {dtype.name} on chip: the column's tile is column-major, so the view would be a "
                f"column-major {list(shape)} tile, which the vector unit does not compute on")
    source = _byte_rows((int(value.shape[0]), int(value.shape[1])), value.dtype)
    result = _byte_rows(shape, dtype)
    gap = flat_reshape_gap(source, result, DataType.INT8) if source != result else ""
    if not gap:
        return ""
    return (f"not supported yet: reinterpreting {list(value.shape)} {value.dtype.name} as {list(shape)} "
            f"{dtype.name} on chip: the two tiles' rows ({source[1]} and {result[1]} bytes) are padded to "
            f"32-byte blocks differently, so no zero-copy view of the same bytes has both shapes")


def reinterpret_on_chip_gap(value: TensorType, dtype: DataType, shape: Dims | None = None) -> str:
    """Why `tensor.reinterpret_view(value, dtype)` has no zero-copy tile form ("" when it has):
    the tensor view reads ND (its last axis scales), but an [N, 1] column's tile is column-major
    (`languages.views.shape_blayout`), its N elements contiguous, so the view of the same bytes
    there scales the rows ([8, 1] FP32 is [32, 1] INT8, not the tensor's [8, 4], whose 32-byte
    padded rows are other bytes). ConvertTensorToTileOps refuses such a call with this reason and
    the generator does not draw it."""
    # An N-D tile is computed on as its packed 2-D form (FlattenTileNdTo2D: leading axes fold into
    # rows, `languages.layout.physical_2d`), so the question is asked of that form: a [2, 1, 1]
    # FP32 tile is the [2, 1] column, whose FP16 bytes are [4, 1], not the packed [2, 1, 2].
    packed = value if len(value.shape) == 2 else TensorType(physical_2d(value.shape), value.dtype)
    shown = list(value.shape) if packed is value else f"{list(value.shape)} (packed on chip as {list(packed.shape)})"
    if shape is not None:
        explicit = tuple(int(d) for d in shape)
        return _explicit_shape_gap(packed, dtype, explicit if packed is value else physical_2d(explicit))
    if value.dtype.bits == dtype.bits:
        return ""
    try:
        tensor_shape = physical_2d(reinterpreted_shape(value, dtype))
        tile_shape = reinterpreted_shape(make_tile_type(packed.shape, value.dtype), dtype)
    except DeductionError:
        return ""  # the deduction reports it
    if tensor_shape == tile_shape:
        return ""
    return (f"not supported yet: reinterpreting the column {shown} of {value.dtype.name} as "
            f"{dtype.name} on chip: its tile is column-major (the column's elements are contiguous), so the same "
            f"bytes form a {list(tile_shape)} tile, not the {list(tensor_shape)} the tensor view reads")


def reinterpreted_source_region(source: Type, view: Type, args: Sequence[Node], attrs: Attrs,
                                wanted: tuple[int, ...]) -> tuple[int, ...] | None:
    """A reinterpretation valid over `wanted` (deduce_reinterpret_view: the source's valid region,
    its extent on the scaled axis in the view's elements): the source valid over `wanted`, the
    scaled axis counted back in the source's elements; None when that splits a source element,
    or the view has a shape of its own (only a fully valid source takes one)."""
    if not isinstance(source, (TensorType, TileType)) or not isinstance(view, (TensorType, TileType)) \
            or len(source.shape) != len(view.shape) or len(wanted) != len(view.shape):
        return None
    scaled = [axis for axis, (a, b) in enumerate(zip(source.shape, view.shape)) if a != b]
    if not scaled:
        return wanted
    if len(scaled) != 1:
        return tuple(int(d) for d in source.shape) if tuple(wanted) == tuple(view.shape) else None
    axis = scaled[0]
    bits = wanted[axis] * view.dtype.bits
    if bits % source.dtype.bits:
        return None
    return tuple(bits // source.dtype.bits if i == axis else w for i, w in enumerate(wanted))


REINTERPRET_VALID = ViewValid((), reinterpreted_source_region)


def deduce_reinterpret_view(args: Sequence[Node], attrs: Attrs) -> Type:
    value = value_at(args, 0)
    dtype = dtype_attr(attrs, "dtype")
    pair = (value.dtype, dtype)
    if not ({value.dtype, dtype} <= _GENERAL_REINTERPRET or pair in _MX_REINTERPRET):
        raise DeductionError(f"cannot reinterpret {value.dtype.name} as {dtype.name}",
                             hint="8-64-bit integers, FP16, BF16 and FP32 reinterpret among themselves; "
                                  "MX adds only INT8<->FP8E4M3FN and UINT8<->FP8E8M0")
    if isinstance(value, TileType) and value.view is not None and value.view.slayout != "none_box":
        raise DeductionError("expected a packed flat (none_box) tile", 0,
                             hint="a boxed tile's bytes are not in row order; move it to a flat tile first")
    auto = reinterpreted_shape(value, dtype)
    requested = attr(attrs, "shape")
    shape = tuple(requested) if isinstance(requested, tuple) else auto
    total_bits = value.dtype.bits
    for extent in value.shape:
        total_bits *= extent
    bits = dtype.bits
    for extent in shape:
        bits *= extent
    if bits != total_bits:
        raise DeductionError(f"shape {list(shape)} of {dtype.name} is {bits // 8} bytes, the view covers "
                             f"{total_bits // 8}", hint="an explicit shape must be byte-equivalent")
    valid: ValidDims | None = None
    if value.valid_shape is not None:
        if shape != auto:
            raise DeductionError(f"a partially valid source (valid {list(value.valid)}) only takes the "
                                 f"automatic shape {list(auto)}", 0)
        ratio_axis = next(i for i, (a, b) in enumerate(zip(value.shape, auto)) if a != b) if auto != value.shape else -1
        # A same-width reinterpret moves no element: a runtime valid extent carries over as it is.
        valid = tuple(value.valid_shape) if ratio_axis < 0 else tuple(value.valid)
        if ratio_axis >= 0:
            bits_valid = value.valid[ratio_axis] * value.dtype.bits
            if bits_valid % dtype.bits:
                raise DeductionError(f"valid extent {value.valid[ratio_axis]} is not a whole number of "
                                     f"{dtype.name} elements", 0)
            valid = tuple(bits_valid // dtype.bits if i == ratio_axis else v for i, v in enumerate(value.valid))
    if isinstance(value, TensorType):
        return TensorType(shape, dtype, normalize_valid(shape, valid))
    view = value.view
    if view is not None and value.memory_space is not None and shape != auto:
        # An explicit shape re-views bytes that are contiguous in both shapes ([12, 1] column-major
        # as [1, 12]): the result has its own shape's implicit layout, not the source's.
        implicit = implicit_view(value.memory_space, shape)
        if is_row_major_linear(view, value.shape, value.dtype) and is_row_major_linear(implicit, shape, dtype):
            view = replace(implicit, pad=view.pad)
    if view is not None and view.slayout == "none_box" and is_one_element(value.shape):
        view = replace(view, blayout="row_major")  # one element re-viewed: a row (reinterpreted_shape)
    if view is not None and view.pad in ("max", "min"):
        view = replace(view, pad="null")  # a dtype-dependent pad means nothing in the new dtype
    result = TileType(shape, dtype, normalize_valid(shape, valid), value.memory_space, view)
    if not reinterpret_keeps_order(value, result):
        layout = effective_view(result).blayout
        raise DeductionError(
            f"not supported yet: reinterpreting the {list(value.shape)} {value.dtype.name} tile "
            f"({effective_view(value).blayout}) as {list(shape)} {dtype.name}: the {layout} {list(shape)} tile "
            f"over the same bytes holds them in another order than the row-major one the view reads", 0,
            hint="reinterpret into a shape whose rows are the source's (the automatic shape), or into one row "
                 "([1, n]) or one column ([n, 1])")
    return result


def deduce_tensor_view(args: Sequence[Node], attrs: Attrs) -> Type:
    """tensor.view(t, shape=None, valid_shape=None): a zero-copy shape reinterpretation of the
    same elements (rank >= 1); a partially valid source takes an explicit valid_shape."""
    value = value_at(args, 0)
    layout = attr(attrs, "layout")
    if layout is not None and str(layout).upper() != "ND":
        raise DeductionError(f"not supported yet: a {layout} layout for tensor.view (views are row-major ND; "
                             "the layout would otherwise be ignored)", hint="drop layout=, or write layout=\"ND\"")
    requested = attr(attrs, "shape")
    shape = tuple(requested) if isinstance(requested, tuple) else value.shape
    if not shape:
        raise DeductionError("expected a shape of rank at least 1")
    count = 1
    for extent in value.shape:
        count *= extent
    new_count = 1
    for extent in shape:
        new_count *= extent
    if count != new_count:
        raise DeductionError(f"expected a shape of {count} elements (as {list(value.shape)}), got {list(shape)}")
    explicit = attr(attrs, "valid_shape")
    if value.valid_shape is not None and shape != value.shape and not isinstance(explicit, tuple):
        raise DeductionError(f"a partially valid source (valid {list(value.valid)}) needs an explicit valid_shape", 0)
    derived = reshape_valid(value.shape, value.valid, shape)
    if derived is None:
        raise DeductionError(f"the valid region {list(value.valid)} of {list(value.shape)} is not a box of "
                             f"{list(shape)}", 0)
    valid = derived
    if isinstance(explicit, tuple):
        check_valid_within(explicit, derived, 0, "valid_shape (within the derived valid region)")
        valid = explicit
    return TensorType(shape, value.dtype, normalize_valid(shape, valid))


# -- the op tables --------------------------------------------------------------------------------


_D = DataType
# PTOAS: "trandom is only supported for A5 targets" (pto-isa has no A2/A3 TRANDOM).
_RANDOM_RULES: tuple[TargetRule, ...] = (
    Unavailable(A2A3, "A2/A3 has no TRANDOM instruction (PTOAS: trandom is only supported for A5 targets)",
                "compile for Ascend950 (--backend Ascend950), or pass the random words in as an input tensor"),
)
# PTOAS's ttri verifiers: dst element types per target.
_TRI_RULES: tuple[TargetRule, ...] = (
    DtypeIn(A2A3, "A2/A3's TTRI writes f16 / f32 / i16 / i32 / u16 / u32 elements",
            "make the mask INT32 / INT16 / FP16 / FP32 (cast it afterwards if needed), or compile for "
            "Ascend950, whose TTRI also writes BF16 / INT8 / UINT8", operand=RESULT,
            dtypes=frozenset({_D.FP16, _D.FP32, _D.INT16, _D.INT32, _D.UINT16, _D.UINT32})),
)
# PTOAS's tsels verifiers: src / dst element types per target (no BF16 on either).
_SELS_RULES: tuple[TargetRule, ...] = (
    DtypeIn(A2A3, "A2/A3's TSELS selects 16- or 32-bit elements only", "select on an INT16 / INT32 / FP16 / FP32 "
            "tile (cast the operands first), or compile for Ascend950, whose TSELS also takes 8-bit elements",
            operand=1, dtypes=frozenset({_D.INT16, _D.UINT16, _D.INT32, _D.UINT32, _D.FP16, _D.FP32})),
    DtypeIn(A5, "Ascend950's TSELS selects 8-, 16- or 32-bit integer and FP16 / FP32 elements",
            "cast the operands to a supported type first", operand=1,
            dtypes=frozenset({_D.INT8, _D.UINT8, _D.INT16, _D.UINT16, _D.INT32, _D.UINT32, _D.FP16, _D.FP32})),
    # pto-isa's A2/A3 TSELS stores the scalar into tmp's first element and loads the compare
    # mask register from there while it reads mask and src and writes dst (A5 ignores tmp).
    Disjoint(A2A3, "A2/A3's TSELS writes the scalar into tmp while it still reads mask and src and writes dst",
             "give tmp a buffer of its own (pl.tile.create([1, 32], dtype=...)); on Ascend950 tmp is unused",
             operand=2, others=(0, 1, RESULT)),
)
# pto-isa's A2/A3 TPRELU: dst = src0 * src1 first, then a compare of src0 into tmp (a packed
# mask), then a select reading src0, tmp and one more 32-byte row of tmp. A5 does not use tmp.
_PRELU_RULES: tuple[TargetRule, ...] = (
    DtypeIn(A2A3, "A2/A3's TPRELU writes an unsigned byte mask into tmp",
            "declare tmp as a UINT8 tile (a signed scratch is accepted on Ascend950 only)",
            operand=2, dtypes=frozenset({_D.UINT8})),
    MaskScratch(A2A3, "A2/A3's TPRELU compares every valid row into tmp and uses one more row after them",
                "make tmp at least one row taller than the result and one 32-byte mask row wide, e.g. "
                "pl.tile.create([rows + 1, 32], dtype=pl.UINT8)", operand=2, extra_rows=1),
    Disjoint(A2A3, "A2/A3's TPRELU writes dst and tmp while it still reads x and slope (PTOAS: src0, src1, tmp "
             "and dst use different storage)",
             "give x, slope, tmp and the result buffers of their own (no shared value, no overlapping slices)",
             operand=0, others=(1, 2, RESULT)),
    Disjoint(A2A3, "A2/A3's TPRELU writes dst and tmp while it still reads x and slope (PTOAS: src0, src1, tmp "
             "and dst use different storage)",
             "give x, slope, tmp and the result buffers of their own (no shared value, no overlapping slices)",
             operand=1, others=(2, RESULT)),
    Disjoint(A2A3, "A2/A3's TPRELU writes its mask into tmp and the result into dst",
             "give tmp and the result buffers of their own", operand=2, others=(RESULT,)),
)


def _vec(name: str) -> OperandDecl:
    return OperandDecl(name, _TILE, input_memory=VEC)


def _tmp(optional: bool = False) -> OperandDecl:
    return OperandDecl("tmp", _TILE, input_memory=VEC, effect=WRITE, optional=optional)


def _ten(name: str) -> OperandDecl:
    return OperandDecl(name, _T)


_VEC_OUT = Fixed(VEC)
_SCALAR = OperandDecl("scalar", "scalar", literal_dtype=0)

# (name, semantics op, deducer kind, tile needs tmp, tensor form exists)
_BITWISE = (
    ("and", "and", "bitwise", False), ("or", "or", "bitwise", False), ("xor", "xor", "bitwise", True),
    ("shl", "shl", "shift", False), ("shr", "shr", "shift", False),
)
_BITWISE_SCALAR = (
    ("ands", "and", "bitwise", False), ("ors", "or", "bitwise", False), ("xors", "xor", "bitwise", True),
    ("shls", "shl", "shift", False), ("shrs", "shr", "shift", False),
)
_DEDUCERS = {"bitwise": deduce_bitwise, "shift": deduce_shift}
_SCALAR_DEDUCERS = {"bitwise": deduce_bitwise_scalar, "shift": deduce_shift_scalar}


def _float_only(deduce: Callable[[Sequence[Node], Attrs], Type], function: str) -> Callable[[Sequence[Node], Attrs], Type]:
    """`deduce`, rejecting integer operands: `function` is defined on floats only."""

    def checked(args: Sequence[Node], attrs: Attrs) -> Type:
        result = deduce(args, attrs)
        dtype = getattr(result, "dtype", None)
        if isinstance(dtype, DataType) and not dtype.is_float:
            raise DeductionError(f"expected a float dtype for {function}, got {dtype.name}", 0)
        return result

    return checked


def _tile_conversion(tile_op: str, inputs: int, scratch: bool = False) -> TileConversion:
    return TileConversion(tile_op, tuple(TileInput(i, (tile_op,)) for i in range(inputs)),
                          scratch_like=0 if scratch else None)


def _bitwise_ops() -> list[OpDef]:
    ops: list[OpDef] = []
    for name, meaning, kind, needs_tmp in _BITWISE:
        operands = (_vec("lhs"), _vec("rhs")) + ((_tmp(),) if needs_tmp else ())
        ops.append(OpDef(f"tile.{name}", operands, _DEDUCERS[kind], ("binary", meaning), "elementwise_binary",
                         output_memory=_VEC_OUT, pto=(f"pto.t{name}",),
                         doc="The Python spelling of `and` / `or` is `and_` / `or_`." if name in ("and", "or") else ""))
        ops.append(OpDef(f"tensor.{name}", (_ten("lhs"), _ten("rhs")), _DEDUCERS[kind], ("binary", meaning),
                         "elementwise_binary", to_tile=_tile_conversion(f"tile.{name}", 2, needs_tmp),
                         doc="ConvertTensorToTileOps synthesizes the pto.txor scratch." if needs_tmp else ""))
    for name, meaning, kind, needs_tmp in _BITWISE_SCALAR:
        operands = (_vec("lhs"), _SCALAR) + ((_tmp(),) if needs_tmp else ())
        # PTOAS requires TANDS / TORS / TXORS to write a buffer other than their source.
        ops.append(OpDef(f"tile.{name}", operands, _SCALAR_DEDUCERS[kind], ("scalar_binary", meaning),
                         "elementwise_scalar", output_memory=_VEC_OUT, pto=(f"pto.t{name}",),
                         in_place_safe=False if meaning in ("and", "or", "xor") else None))
        ops.append(OpDef(f"tensor.{name}", (_ten("lhs"), _SCALAR), _SCALAR_DEDUCERS[kind],
                         ("scalar_binary", meaning), "elementwise_scalar",
                         to_tile=_tile_conversion(f"tile.{name}", 1, needs_tmp)))
    ops.append(OpDef("tile.not", (_vec("x"),), deduce_not, ("unary", "not"), "unary", output_memory=_VEC_OUT,
                     pto=("pto.tnot",), doc="INT16 / UINT16 only (TNOT); the Python spelling is `not_`."))
    ops.append(OpDef("tensor.not", (_ten("x"),), deduce_not, ("unary", "not"), "unary",
                     to_tile=_tile_conversion("tile.not", 1)))
    return ops


def _arith_ops() -> list[OpDef]:
    ops = [
        OpDef("tile.fmod", (_vec("lhs"), _vec("rhs")), deduce_arith_same_shape, ("binary", "fmod"),
              "elementwise_binary", output_memory=_VEC_OUT, pto=("pto.tfmod",),
              doc="C fmod: the remainder takes the dividend's sign (torch.fmod)."),
        OpDef("tile.fmods", (_vec("lhs"), _SCALAR), deduce_arith_scalar, ("scalar_binary", "fmod"),
              "elementwise_scalar", output_memory=_VEC_OUT, pto=("pto.tfmods",)),
        OpDef("tile.rem", (_vec("lhs"), _vec("rhs"), _tmp()), deduce_arith_same_shape, ("binary", "rem"),
              "elementwise_binary", output_memory=_VEC_OUT, pto=("pto.trem",),
              doc="The remainder takes the divisor's sign (pto-isa TREM)."),
        OpDef("tile.rems", (_vec("lhs"), _SCALAR, _tmp()), deduce_arith_scalar, ("scalar_binary", "rem"),
              "elementwise_scalar", output_memory=_VEC_OUT, pto=("pto.trems",)),
        OpDef("tensor.fmods", (_ten("lhs"), _SCALAR), deduce_arith_scalar, ("scalar_binary", "fmod"),
              "elementwise_scalar", to_tile=_tile_conversion("tile.fmods", 1)),
        OpDef("tensor.fmod", (_ten("lhs"), _ten("rhs")), deduce_arith_same_shape, ("binary", "fmod"),
              "elementwise_binary", to_tile=_tile_conversion("tile.fmod", 2),
              doc="C fmod (torch.fmod); operands of one shape (no broadcast lowering)."),
    ]
    for name, meaning in (("addc", "addc"), ("subc", "subc")):
        ops.append(OpDef(f"tile.{name}", (_vec("src0"), _vec("src1"), _vec("carry")), deduce_fused,
                         ("fused", meaning), "elementwise_binary", output_memory=_VEC_OUT, pto=(f"pto.t{name}",),
                         doc="Every intermediate in FP32, one rounding at the end (NUMERICS.md section 2)."))
    for name, meaning in (("addsc", "addsc"), ("subsc", "subsc")):
        ops.append(OpDef(f"tile.{name}", (_vec("src0"), _SCALAR, _vec("carry")), deduce_fused_scalar,
                         ("fused", meaning), "elementwise_scalar", output_memory=_VEC_OUT, pto=(f"pto.t{name}",)))
    for name in ("add", "mul", "max", "min"):
        ops.append(OpDef(f"tile.part_{name}", (_vec("lhs"), _vec("rhs")), deduce_partial, ("partial", name),
                         "elementwise_binary", output_memory=_VEC_OUT, in_place_safe=False,
                         pto=(f"pto.tpart{name}",),
                         doc="Where only one operand is valid its value passes; where neither is, 0."))
        ops.append(OpDef(f"tensor.part_{name}", (_ten("lhs"), _ten("rhs")), deduce_partial, ("partial", name),
                         "elementwise_binary", to_tile=_tile_conversion(f"tile.part_{name}", 2)))
    ops.append(OpDef("tile.prelu", (_vec("x"), _vec("slope"), OperandDecl("tmp", _TILE, input_memory=VEC, effect=WRITE)),
                     deduce_prelu, ("prelu",), "elementwise_binary", output_memory=_VEC_OUT, pto=("pto.tprelu",),
                     in_place_safe=False,  # PTOAS (a3): src0, src1, tmp and dst all distinct
                     target_rules=_PRELU_RULES,
                     doc="x where x > 0, else x * slope; tmp is TPRELU's byte workspace."))
    ops.append(OpDef("tile.lrelu", (_vec("x"), OperandDecl("slope", "scalar", literal_dtype=0)), deduce_lrelu, ("prelu",),
                     "elementwise_scalar", output_memory=_VEC_OUT, pto=("pto.tlrelu",)))
    ops.append(OpDef("tile.expands", (OperandDecl("target", _TILE), _SCALAR), deduce_expands, ("expands",),
                     "create", output_memory=_VEC_OUT, pto=("pto.texpands",), pto_ins=(1,),
                     doc="A fresh tile of the target's shape and dtype filled with the scalar."))
    ops.append(OpDef("tensor.expands", (_ten("target"), _SCALAR), deduce_expands, ("expands",), "create",
                     to_tile=TileConversion("tile.full", self_loading=True),
                     doc="Only the target's shape and dtype matter: lowers to tile.full (tile.expands on a tile)."))
    return ops


# An ordering compare of x with y as a min / max of them compared for (in)equality with y, exact
# for every integer: mode -> (the min / max, the equality mode). x < y: min(x, y) != y; x <= y:
# max(x, y) == y; x > y: max(x, y) != y; x >= y: min(x, y) == y. ConvertTensorToTileOps lowers an
# INT32 tensor.cmp of these modes so (A2/A3's INT32 compares are equality compares, below).
ORDERING_BY_EQUALITY: dict[str, tuple[str, str]] = {
    "lt": ("minimum", "ne"), "le": ("maximum", "eq"), "gt": ("maximum", "ne"), "ge": ("minimum", "eq")}


def _a2a3_compare_rules(scalar: bool) -> tuple[TargetRule, ...]:
    """What A2/A3's TCMP / TCMPS compute wrong (pto-isa 3186c38, include/pto/npu/a2a3/TCmp.hpp and
    TCmps.hpp): an int32_t source is compared with vcmpv_eq / vcmpvs_eq whatever the mode (NE then
    inverts the mask), so an INT32 lt / le / gt / ge compare computes eq; and TCMPS reinterprets an
    int16_t / uint16_t source and its scalar as half bit patterns, in every mode. The simulator and
    the interpreter compare by the mode, as the program means: such calls are refused."""
    name, header, calls, spelled = ("TCMPS", "TCmps", "vcmpvs_eq", "pl.tile.{op}s(x, s) compared {eq} with s") \
        if scalar else ("TCMP", "TCmp", "vcmpv_eq", "pl.tile.{op}(x, y) compared {eq} with y")
    rules: list[TargetRule] = [
        dtype_not_in(A2A3, f"A2/A3's {name} compares INT32 sources for equality whatever the mode (pto-isa's a2a3 "
                           f"{header}.hpp calls {calls} for "
                           f"int32_t), so this `{mode}` compare would compute `eq`",
                     f"write it as {spelled.format(op=ORDERING_BY_EQUALITY[mode][0], eq=ORDERING_BY_EQUALITY[mode][1])} "
                     "(exact for every INT32; pl.tensor.cmp is lowered so), compare FP16 / FP32 values, or compile "
                     "for Ascend950 (--backend Ascend950)",
                     operand=0, refused=frozenset({DataType.INT32}), when=(("cmp_type", CMP_MODES.index(mode)),))
        for mode in ORDERING_BY_EQUALITY]
    if scalar:
        rules.append(dtype_not_in(
            A2A3, "A2/A3's TCMPS compares INT16 / UINT16 sources as FP16 bit patterns (pto-isa's a2a3 TCmps.hpp "
                  "reinterprets the source and the scalar as half): 0xFFFF (-1) reads as a NaN, 0 and 0x8000 as +0 "
                  "and -0, and negative values order backwards, whatever the mode",
            "cast the source to INT32 (exact) and compare there (eq / ne, or the min / max form of an ordering), "
            "or compile for Ascend950 (--backend Ascend950)",
            operand=0, refused=frozenset({DataType.INT16, DataType.UINT16})))
    return tuple(rules)


def _compare_ops() -> list[OpDef]:
    cmp_type = AttrDecl("cmp_type", "int", 0, tuple(range(len(CMP_MODES))))
    return [
        OpDef("tile.cmp", (_vec("lhs"), _vec("rhs")), deduce_cmp, ("compare",), "compare", attrs=(cmp_type,),
              output_memory=_VEC_OUT, in_place_safe=False, pto=("pto.tcmp",), pto_attrs=(("cmp_type", "cmpMode"),),
              target_rules=_a2a3_compare_rules(scalar=False),
              doc="A packed predicate mask (UINT8, one bit per column, rows of 32-byte words)."),
        OpDef("tile.cmps", (_vec("lhs"), _SCALAR), deduce_cmps, ("compare",), "compare", attrs=(cmp_type,),
              output_memory=_VEC_OUT, in_place_safe=False, pto=("pto.tcmps",), pto_attrs=(("cmp_type", "cmpMode"),),
              target_rules=_a2a3_compare_rules(scalar=True)),
        OpDef("tensor.cmp", (_ten("lhs"), OperandDecl("rhs", "tensor_or_scalar", literal_dtype=0)), deduce_cmp, ("compare",),
              "compare", attrs=(cmp_type,),
              to_tile=TileConversion("tile.cmp", (TileInput(0, ("tile.cmp",)), TileInput(1, ("tile.cmp",))),
                                     scalar_rhs_op="tile.cmps")),
        OpDef("tile.sel", (OperandDecl("mask", _TILE, input_memory=VEC), _vec("lhs"), _vec("rhs"), _tmp()),
              deduce_sel, ("select",), "select", output_memory=_VEC_OUT, pto=("pto.tsel",),
              doc="lhs where the mask bit of the element is set, else rhs."),
        OpDef("tile.sels", (OperandDecl("mask", _TILE, input_memory=VEC), _vec("src"), _tmp(),
                            OperandDecl("scalar", "scalar", literal_dtype=1)),
              deduce_sels, ("select",), "select", output_memory=_VEC_OUT, pto=("pto.tsels",), target_rules=_SELS_RULES,
              doc="src where the mask bit is set, else the scalar."),
    ]


def _reduction_ops() -> list[OpDef]:
    ops = [
        OpDef("tile.row_prod", (_vec("x"), _tmp(optional=True)), deduce_reduce_row, ("reduce_row", "prod"),
              "reduce_row", output_memory=_VEC_OUT, pto=("pto.trowprod",)),
        OpDef("tile.col_prod", (_vec("x"), _tmp(optional=True)), deduce_reduce_col, ("reduce_col", "prod"),
              "reduce_col", output_memory=_VEC_OUT, pto=("pto.tcolprod",),
              pto_ins=(0,)),  # PTOAS's tcolprod has no tmp operand
        OpDef("tensor.row_prod", (_ten("x"),), deduce_reduce_row, ("reduce_row", "prod"), "reduce_row",
              to_tile=_tile_conversion("tile.row_prod", 1)),
        OpDef("tensor.col_prod", (_ten("x"),), deduce_reduce_col, ("reduce_col", "prod"), "reduce_col",
              to_tile=_tile_conversion("tile.col_prod", 1)),
    ]
    for direction, deduce in (("row", deduce_row_broadcast), ("col", deduce_col_broadcast)):
        ops.append(OpDef(f"tile.{direction}_expand", (_vec("lhs"), _vec("rhs")), deduce, (f"{direction}_broadcast",),
                         f"{direction}_expand", output_memory=_VEC_OUT, pto=(f"pto.t{direction}expand",),
                         pto_ins=(1,), doc="lhs gives the shape; rhs is broadcast over it."))
        ops.append(OpDef(f"tensor.{direction}_expand", (_ten("lhs"), _ten("rhs")), deduce, (f"{direction}_broadcast",),
                         f"{direction}_expand", to_tile=_tile_conversion(f"tile.{direction}_expand", 2)))
        expand = "row_expand" if direction == "row" else "col_expand"
        deducer = _float_only(deduce_row_expand if direction == "row" else deduce_col_expand, "exp")
        ops.append(OpDef(f"tile.{expand}_expdif", (_vec("x"), _vec(direction)), deducer, (f"{direction}_expdif",),
                         expand, output_memory=_VEC_OUT, pto=(f"pto.t{direction}expandexpdif",),
                         doc=f"exp(x - {direction}) with the difference rounded first."))
        ops.append(OpDef(f"tensor.{expand}_expdif", (_ten("x"), _ten(direction)), deducer, (f"{direction}_expdif",),
                         expand, to_tile=_tile_conversion(f"tile.{expand}_expdif", 2)))
    return ops


def _generation_ops() -> list[OpDef]:
    ci_attrs = (AttrDecl("dtype", "dtype", DataType.INT32), AttrDecl("descending", "bool", False))
    # INT32 literals: PTOAS's trandom takes signless i32 words (the bits are what counts).
    words = tuple(OperandDecl(word, "scalar", literal_dtype=DataType.INT32) for word in RANDOM_WORDS)
    random_operands = (*words, OperandDecl("shape", "int_list"))
    random_attrs = (AttrDecl("dtype", "dtype", DataType.UINT32), AttrDecl("rounds", "int", 10, (7, 10)))
    return [
        OpDef("tile.random", random_operands, deduce_random, ("random",), "create", attrs=random_attrs,
              output_memory=_VEC_OUT, pto=("pto.trandom",), pto_ins=tuple(range(len(RANDOM_WORDS))),
              pto_attrs=(("rounds", "rounds"),), target_rules=_RANDOM_RULES,
              doc="Philox-4x32 words of counter + lane (7 or 10 rounds); Ascend950 only (TRANDOM)."),
        OpDef("tensor.random", random_operands, deduce_tensor_random, ("random",), "create", attrs=random_attrs,
              to_tile=TileConversion("tile.random", self_loading=True), target_rules=_RANDOM_RULES,
              doc="The tensor-level spelling of tile.random (pl.tensor.random)."),
        OpDef("tile.ci", (OperandDecl("start", "scalar", literal_dtype="dtype"), OperandDecl("shape", "int_list")), deduce_ci, ("ci",),
              "create", attrs=ci_attrs, output_memory=_VEC_OUT, pto=("pto.tci",),
              pto_attrs=(("descending", "descending"),),
              doc="start + k (start - k when descending) along the last axis; INT16 / INT32."),
        OpDef("tensor.ci", (OperandDecl("start", "scalar", literal_dtype="dtype"), OperandDecl("shape", "int_list")), deduce_tensor_ci,
              ("ci",), "create", attrs=ci_attrs, to_tile=TileConversion("tile.ci", self_loading=True),
              doc="Also spelled pl.arange / tensor.arange."),
        OpDef("tile.tri", (OperandDecl("diagonal", "scalar", literal_dtype=DataType.INT32), OperandDecl("shape", "int_list"),
                           OperandDecl("valid_shape", "int_list", optional=True)),
              deduce_tri, ("tri",), "create",
              attrs=(AttrDecl("dtype", "dtype", DataType.INT32), AttrDecl("upper", "bool", False)),
              output_memory=_VEC_OUT, pto=("pto.ttri",), pto_ins=(0,), pto_attrs=(("upper", "upperOrLower"),),
              target_rules=_TRI_RULES,
              doc="1 where c <= r + diagonal (lower) / c >= r + diagonal (upper), else 0."),
    ]


_PADS = ("zero", "max", "min")


def _shape_ops() -> list[OpDef]:
    pad = AttrDecl("pad_value", "str", "zero", _PADS)
    return [
        OpDef("tile.fillpad", (_vec("x"),), deduce_fillpad, ("fillpad",), "memory", attrs=(pad,),
              output_memory=InheritInput(0), in_place_safe=False, pto=("pto.tfillpad",),
              doc="The tile made fully valid: outside x's valid region, the pad value."),
        OpDef("tile.fillpad_expand", (_vec("x"), OperandDecl("shape", "int_list")), deduce_fillpad_expand,
              ("fillpad",), "memory", attrs=(pad,), output_memory=InheritInput(0), in_place_safe=False,
              pto=("pto.tfillpad_expand",)),
        OpDef("tensor.fillpad", (_ten("x"),), deduce_fillpad, ("fillpad",), "memory", attrs=(pad,),
              to_tile=_tile_conversion("tile.fillpad", 1)),
        OpDef("tile.concat", (_vec("a"), _vec("b")), deduce_concat, ("concat",), "memory", output_memory=_VEC_OUT,
              in_place_safe=False, pto=("pto.tconcat",), doc="Along the columns: [a | b]."),
        OpDef("tensor.concat", (_ten("a"), _ten("b")), deduce_concat, ("concat",), "memory",
              to_tile=_tile_conversion("tile.concat", 2)),
        OpDef("tile.reinterpret_view", (_vec("x"),), deduce_reinterpret_view, ("reinterpret",), "view",
              attrs=(AttrDecl("dtype", "dtype", positional=True), AttrDecl("shape", "int_list")),
              output_memory=InheritInput(0), pto=("pto.treshape",), view_valid=REINTERPRET_VALID,
              doc="The same bytes seen as another dtype (packed flat tiles)."),
        OpDef("tensor.reinterpret_view", (_ten("x"),), deduce_reinterpret_view, ("reinterpret",), "view",
              output_memory=InheritInput(0),
              attrs=(AttrDecl("dtype", "dtype", positional=True), AttrDecl("shape", "int_list")),
              to_tile=TileConversion("tile.reinterpret_view", (TileInput(0),))),
        OpDef("tensor.view", (_ten("x"),), deduce_tensor_view, ("view",), "view",
              output_memory=InheritInput(0),
              attrs=(AttrDecl("shape", "int_list"), AttrDecl("valid_shape", "int_list"), AttrDecl("layout", "str")),
              to_tile=TileConversion("tile.reshape", self_loading=True),
              doc="Metadata-only: the same GM elements under another shape (a passthrough in "
                  "ConvertTensorToTileOps; a make_tensor_view over the same base pointer)."),
    ]


OPS: tuple[OpDef, ...] = tuple(
    _bitwise_ops() + _arith_ops() + _compare_ops() + _reduction_ops() + _generation_ops() + _shape_ops()
)

__all__ = ["CMP_MODES", "MASK_DTYPE", "ORDERING_BY_EQUALITY", "OPS", "cmp_mode", "mask_cols", "reinterpret_on_chip_gap", "reinterpreted_shape"]
