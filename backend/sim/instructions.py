"""PTO instructions as functions on logical tiles (NumPy arrays in, NumPy arrays out).

The executor moves bytes between the machine's buffers and calls these for the values; unit
tests call them directly.  All arithmetic is delegated to `backend.numerics`, which the
reference interpreter shares, so the simulator can differ from the interpreter only in *where*
data is (addresses, layouts, pads, valid regions), never in how a value is computed.

Shapes: a tile argument is its valid region (2-D); a result is the valid region of the
destination.  Dtypes are project dtype names ("FP32", "BF16", "INT8", ...).
"""

from __future__ import annotations

from typing import Any, Callable, Final

import numpy as np
import numpy.typing as npt

from backend import numerics
from backend.numerics import POISON_BYTE, np_dtype

Array = npt.NDArray[Any]
Scalar = float | int | bool | np.generic


class InstructionError(ValueError):
    """An instruction applied to operands it does not accept (shape, dtype, pad)."""


# -- pads and moves -------------------------------------------------------------------------------

PAD_NAMES: Final = ("null", "zero", "max", "min")


def pad_value(dtype: str, pad: str) -> Array | None:
    """The fill value of a pad mode (None for `null`, which leaves the bytes as they were):
    0 for zero; +inf / -inf for max / min on floats (the integer max / min otherwise)."""
    if pad not in PAD_NAMES:
        raise InstructionError(f"unknown pad {pad!r}; expected one of {', '.join(PAD_NAMES)}")
    if pad == "null":
        return None
    dt = np_dtype(dtype)
    if pad == "zero":
        return np.zeros((), dtype=dt)
    if numerics.is_float(dtype):
        # FP8E4M3FN has no infinity: its max-magnitude finite value bounds every element.
        info = float(numerics.float_format(dtype).max_finite) if dtype == "FP8E4M3FN" else float("inf")
        return np.asarray(info if pad == "max" else -info).astype(dt)
    limits = np.iinfo(dt)
    return np.asarray(limits.max if pad == "max" else limits.min, dtype=dt)


def poison(shape: tuple[int, ...], dtype: str) -> Array:
    """A tile of the poison pattern (0xFF bytes): what unwritten memory reads as."""
    dt = np_dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64))
    return np.full(count * dt.itemsize, POISON_BYTE, dtype=np.uint8).view(dt).reshape(shape)


def tload(window: Array, shape: tuple[int, int], dtype: str, pad: str = "null") -> Array:
    """TLOAD: the valid region is `window` (GM data); outside it the pad value, or poison for a
    `null` pad (the executor leaves those bytes untouched).  Returns the whole [Rows, Cols] tile."""
    rows, cols = window.shape
    if rows > shape[0] or cols > shape[1]:
        raise InstructionError(f"tload window {[rows, cols]} exceeds the tile shape {list(shape)}")
    fill = pad_value(dtype, pad)
    tile = poison(shape, dtype) if fill is None else np.full(shape, fill, dtype=np_dtype(dtype))
    tile[:rows, :cols] = np.asarray(window).astype(np_dtype(dtype), copy=False)
    return tile


def tstore(tile: Array, src_dtype: str, dst_dtype: str, from_acc: bool = False) -> Array:
    """TSTORE: the valid region, converted to the tensor's dtype.  From Acc it goes through
    FIXPIPE (FP32 -> FP16/BF16 is RNE, INT32 stays INT32); elsewhere dtypes must agree."""
    if from_acc:
        return numerics.fixpipe_cast(np.asarray(tile).astype(np_dtype(src_dtype), copy=False), dst_dtype)
    if src_dtype != dst_dtype:
        raise InstructionError(f"tstore of a {src_dtype} tile into a {dst_dtype} tensor needs a tcvt first")
    return np.asarray(tile).copy()


def convert_move(values: Array, src_dtype: str, dst_dtype: str, from_acc: bool = False) -> Array:
    """The value conversion of TMOV / TEXTRACT / TINSERT: FIXPIPE out of Acc, RNE elsewhere.
    Between equal dtypes the values themselves come back (no copy: the executor's reads are
    fresh arrays already)."""
    if from_acc:
        return numerics.fixpipe_cast(np.asarray(values).astype(np_dtype(src_dtype), copy=False), dst_dtype)
    if src_dtype == dst_dtype:
        return np.asarray(values)
    return numerics.cast(values, src_dtype, dst_dtype, "rint")


def tmov(src: Array, src_dtype: str, dst_dtype: str, from_acc: bool = False) -> Array:
    """TMOV: copy the valid region into another buffer (converting as `convert_move`)."""
    return convert_move(src, src_dtype, dst_dtype, from_acc)


def textract(src: Array, row: int, col: int, shape: tuple[int, int], src_dtype: str, dst_dtype: str,
             from_acc: bool = False) -> Array:
    """TEXTRACT: the [h, w] window of `src` at (row, col), converted as `convert_move`."""
    h, w = shape
    if row < 0 or col < 0 or row + h > src.shape[0] or col + w > src.shape[1]:
        raise InstructionError(
            f"textract window {[h, w]} at {[row, col]} leaves the source region {list(src.shape)}")
    return convert_move(src[row:row + h, col:col + w], src_dtype, dst_dtype, from_acc)


# -- cube ---------------------------------------------------------------------------------------


def _acc_dtype(in_dtype: str) -> str:
    return "INT32" if in_dtype == "INT8" else "FP32"


def tmatmul(a: Array, b: Array, in_dtype: str) -> Array:
    """TMATMUL: [M, K] x [K, N] from +0 (M, K from Left's valid shape, N from Right's)."""
    start = np.zeros((a.shape[0], b.shape[1]), dtype=np_dtype(_acc_dtype(in_dtype)))
    return numerics.matmul(a, b, start, in_dtype)


def tmatmul_acc(acc: Array, a: Array, b: Array, in_dtype: str) -> Array:
    """TMATMUL_ACC: continue the sequential MAD chain from the accumulator's current values."""
    return numerics.matmul(a, b, np.asarray(acc).astype(np_dtype(_acc_dtype(in_dtype)), copy=False), in_dtype)


def tmatmul_bias(a: Array, b: Array, bias: Array, in_dtype: str) -> Array:
    """TMATMUL_BIAS: the bias row initialises L0C (broadcast over the M rows)."""
    row = np.asarray(bias).reshape(-1)[: b.shape[1]].astype(np_dtype(_acc_dtype(in_dtype)))
    start = np.broadcast_to(row, (a.shape[0], b.shape[1])).copy()
    return numerics.matmul(a, b, start, in_dtype)


# -- vector ---------------------------------------------------------------------------------------


def tbinary(op: str, a: Array, b: Array, dtype: str) -> Array:
    """Element-wise add sub mul div max min rem fmod and or xor shl shr."""
    if a.shape != b.shape:
        raise InstructionError(f"t{op}: operand regions differ: {list(a.shape)} vs {list(b.shape)}")
    return numerics.binary(op, a, b, dtype)


def tscalar(op: str, a: Array, scalar: Scalar, dtype: str, scalar_first: bool = False) -> Array:
    """Tile-scalar forms (adds, subs, muls, divs, maxs, mins, ...): the scalar converted to T."""
    return numerics.scalar_binary(op, a, scalar, dtype, scalar_first)


def tunary(op: str, x: Array, dtype: str) -> Array:
    """Element-wise exp log sqrt rsqrt abs neg rec relu not."""
    return numerics.unary(op, x, dtype)


def tfused(op: str, a: Array, b: Array | float | int, carry: Array, dtype: str) -> Array:
    """addc / subc / addsc / subsc: FP32 intermediates, one rounding to T."""
    return numerics.fused(op, a, b, carry, dtype)


def texpands(scalar: Scalar, shape: tuple[int, int], dtype: str) -> Array:
    """TEXPANDS: a tile filled with the scalar converted to T."""
    return np.full(shape, numerics.convert_scalar(scalar, dtype), dtype=np_dtype(dtype))


_ROW_REDUCTIONS: Final[dict[str, Callable[[Array, str], Array]]] = {
    "sum": numerics.row_sum, "max": numerics.row_max, "min": numerics.row_min, "prod": numerics.row_prod,
}
_COL_REDUCTIONS: Final[dict[str, Callable[[Array, str], Array]]] = {
    "sum": numerics.col_sum, "max": numerics.col_max, "min": numerics.col_min, "prod": numerics.col_prod,
}


def trow_reduce(kind: str, x: Array, out_dtype: str) -> Array:
    """TROWSUM / TROWMAX / TROWMIN / TROWPROD over the valid columns: an [R, 1] result."""
    if kind not in _ROW_REDUCTIONS:
        raise InstructionError(f"unknown row reduction {kind!r}")
    return _ROW_REDUCTIONS[kind](x, out_dtype).reshape(-1, 1)


def tcol_reduce(kind: str, x: Array, out_dtype: str) -> Array:
    """TCOLSUM / TCOLMAX / TCOLMIN / TCOLPROD over the valid rows: a [1, C] result."""
    if kind not in _COL_REDUCTIONS:
        raise InstructionError(f"unknown column reduction {kind!r}")
    return _COL_REDUCTIONS[kind](x, out_dtype).reshape(1, -1)


def trow_expand(x: Array, column: Array) -> Array:
    """TROWEXPAND: broadcast an [R, 1] column across the columns of `x`'s shape."""
    col = np.asarray(column).reshape(-1, 1)
    return np.broadcast_to(col[: x.shape[0]], x.shape).copy()


def trow_expand_op(op: str, x: Array, column: Array, dtype: str) -> Array:
    """TROWEXPAND{ADD,SUB,MUL,DIV,MAX,MIN}: out[i, j] = op(x[i, j], column[i, 0])."""
    return numerics.binary(op, x, trow_expand(x, column), dtype)


def tcol_expand(x: Array, row: Array) -> Array:
    """TCOLEXPAND: broadcast a [1, C] row down the rows of `x`'s shape."""
    r = np.asarray(row).reshape(1, -1)
    return np.broadcast_to(r[:, : x.shape[1]], x.shape).copy()


def tcol_expand_op(op: str, x: Array, row: Array, dtype: str) -> Array:
    """TCOLEXPAND{ADD,...}: out[i, j] = op(x[i, j], row[0, j])."""
    return numerics.binary(op, x, tcol_expand(x, row), dtype)


def tcvt(x: Array, src_dtype: str, dst_dtype: str, mode: str = "round") -> Array:
    """TCVT under a rounding mode (the vector path honours every mode)."""
    return numerics.cast(x, src_dtype, dst_dtype, mode)


def ttrans(x: Array) -> Array:
    """TTRANS: the transpose (a copy)."""
    return np.ascontiguousarray(np.asarray(x).T)


__all__ = [
    "InstructionError",
    "PAD_NAMES",
    "convert_move",
    "pad_value",
    "poison",
    "tbinary",
    "tcol_expand",
    "tcol_expand_op",
    "tcol_reduce",
    "tcvt",
    "texpands",
    "textract",
    "tfused",
    "tload",
    "tmatmul",
    "tmatmul_acc",
    "tmatmul_bias",
    "tmov",
    "trow_expand",
    "trow_expand_op",
    "trow_reduce",
    "tscalar",
    "tstore",
    "ttrans",
    "tunary",
]
