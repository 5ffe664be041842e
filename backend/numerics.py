"""Bit-exact arithmetic shared by the reference interpreter and the simulator.

This module implements sections 1-4 of ``design/NUMERICS.md``: the cube MAD chain, the
vector element-wise rules, the sequential reductions and the conversions (``TCVT``), all
vectorised over NumPy arrays.  Only the reduction axis is ever a Python loop, because the
hardware accumulates it sequentially and the order is observable in the last bit.

Float conventions used throughout:

* Every value of every supported float format (FP32, FP16, BF16, FP8) is exactly
  representable in float64, so float64 is the "exact carrier": a value is widened to
  float64 once and rounded to its target format once, by :func:`round_float64`.
* NaN results are quiet NaNs that keep the sign and the top payload bits of the NaN they
  came from (what x86 ``cvtss2sd`` / ``cvtsd2ss`` / F16C do, and what pto-isa's CPU
  simulator therefore produces); FP8E4M3FN has a single NaN encoding per sign.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable, Final

import ml_dtypes
import numpy as np
import numpy.typing as npt

Array = npt.NDArray[Any]

POISON_BYTE: Final = 0xFF

DTYPES: Final[dict[str, np.dtype[Any]]] = {
    "FP32": np.dtype(np.float32),
    "FP16": np.dtype(np.float16),
    "BF16": np.dtype(ml_dtypes.bfloat16),
    "FP8E4M3FN": np.dtype(ml_dtypes.float8_e4m3fn),
    "FP8E5M2": np.dtype(ml_dtypes.float8_e5m2),
    "INT8": np.dtype(np.int8),
    "INT16": np.dtype(np.int16),
    "INT32": np.dtype(np.int32),
    "INT64": np.dtype(np.int64),
    "UINT8": np.dtype(np.uint8),
    "UINT16": np.dtype(np.uint16),
    "UINT32": np.dtype(np.uint32),
    "UINT64": np.dtype(np.uint64),
    "BOOL": np.dtype(np.bool_),
    "INDEX": np.dtype(np.int64),
}

ROUNDING_MODES: Final = ("rint", "round", "floor", "ceil", "trunc", "odd", "none")


class NumericsError(ValueError):
    """An operation was asked for something the numeric rules do not define."""


class ArithmeticFault(NumericsError):
    """A run-time arithmetic error the hardware would trap on (e.g. integer division by 0)."""

    def __init__(self, op: str, flat_index: int, detail: str) -> None:
        self.op = op
        self.flat_index = flat_index
        super().__init__(f"{op}: {detail} at element {flat_index} (flat, row-major index)")


# ---------------------------------------------------------------------------------------
# dtype table helpers
# ---------------------------------------------------------------------------------------


def np_dtype(name: str) -> np.dtype[Any]:
    try:
        return DTYPES[name]
    except KeyError:
        known = ", ".join(DTYPES)
        raise NumericsError(f"unknown dtype {name!r}; expected one of {known}") from None


def byte_width(name: str) -> int:
    return np_dtype(name).itemsize


def is_float(name: str) -> bool:
    return name in _FLOAT_FORMATS


def is_signed_int(name: str) -> bool:
    return np_dtype(name).kind == "i"


def is_unsigned_int(name: str) -> bool:
    return np_dtype(name).kind == "u"


def is_int(name: str) -> bool:
    return np_dtype(name).kind in "iu"


def dtype_name_of(array: Array) -> str:
    """The project dtype name of a NumPy array (INT64 for int64; INDEX shares its arithmetic)."""
    for name, dtype in DTYPES.items():
        if array.dtype == dtype:
            return name
    raise NumericsError(f"NumPy dtype {array.dtype} has no project dtype name")


def _unsigned_dtype(width: int) -> np.dtype[Any]:
    return np.dtype(f"u{width}")


def to_bits(array: Array | np.generic) -> Array:
    """The raw bit patterns of ``array`` as unsigned integers of the same width."""
    arr = np.asarray(array)
    return arr.view(_unsigned_dtype(arr.dtype.itemsize))


def from_bits(bits: Array | int | list[int], dtype_name: str) -> Array:
    """Reinterpret unsigned bit patterns as values of ``dtype_name``."""
    dtype = np_dtype(dtype_name)
    raw = np.asarray(bits).astype(_unsigned_dtype(dtype.itemsize))
    return raw.view(dtype)


def hex_bits(value: Array | np.generic | float | int, dtype_name: str) -> str:
    """One scalar's bit pattern, zero-padded to the format width, e.g. ``"0x3c00"``."""
    arr = np.asarray(value)
    if arr.size != 1:
        raise NumericsError(f"hex_bits expects one element, got shape {arr.shape}")
    if arr.dtype != np_dtype(dtype_name):
        arr = arr.astype(np_dtype(dtype_name))
    width = np_dtype(dtype_name).itemsize
    return f"0x{int(to_bits(arr).reshape(())):0{2 * width}x}"


def hex_list(array: Array, dtype_name: str) -> list[str]:
    """Bit patterns of every element, row-major (handy for pinning tests)."""
    flat = np.asarray(array).astype(np_dtype(dtype_name)).reshape(-1)
    return [hex_bits(element, dtype_name) for element in flat]


# ---------------------------------------------------------------------------------------
# Float formats and exact rounding of float64 values
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FloatFormat:
    """The parameters of a binary float format that rounding needs."""

    name: str
    precision: int  # significand bits including the implicit one
    min_normal_exponent: int
    max_finite: float
    has_inf: bool

    @property
    def mantissa_bits(self) -> int:
        return self.precision - 1

    @property
    def width_bits(self) -> int:
        return 8 * byte_width(self.name)

    @property
    def exponent_bits(self) -> int:
        return self.width_bits - 1 - self.mantissa_bits


_FLOAT_FORMATS: Final[dict[str, FloatFormat]] = {
    "FP32": FloatFormat("FP32", 24, -126, float(np.finfo(np.float32).max), True),
    "FP16": FloatFormat("FP16", 11, -14, 65504.0, True),
    "BF16": FloatFormat("BF16", 8, -126, (2.0 - 2.0**-7) * 2.0**127, True),
    "FP8E4M3FN": FloatFormat("FP8E4M3FN", 4, -6, 448.0, False),
    "FP8E5M2": FloatFormat("FP8E5M2", 3, -14, 57344.0, True),
}

_F64_MANTISSA_BITS: Final = 52


def float_format(name: str) -> FloatFormat:
    try:
        return _FLOAT_FORMATS[name]
    except KeyError:
        raise NumericsError(f"{name} is not a float format") from None


def _check_mode(mode: str) -> None:
    if mode not in ROUNDING_MODES:
        raise NumericsError(f"unknown rounding mode {mode!r}; expected one of {ROUNDING_MODES}")


def _round_magnitude_to_integer(scaled: Array, negative: Array, mode: str) -> Array:
    """Round non-negative float64 values to integers (exactly) under ``mode``.

    ``negative`` tells the sign of the original value, which the directed modes need.
    ``scaled`` is below 2**53 so ``trunc`` and the fractional part are exact.
    """
    truncated = np.trunc(scaled)
    fraction = scaled - truncated
    inexact = fraction > 0
    if mode in ("rint", "none"):
        return np.rint(scaled)
    if mode == "round":
        return truncated + (fraction >= 0.5)
    if mode == "trunc":
        return truncated
    if mode == "floor":
        return truncated + (inexact & negative)
    if mode == "ceil":
        return truncated + (inexact & ~negative)
    # odd: truncate, and if anything was dropped make the last significand bit 1.
    is_even = np.fmod(truncated, 2.0) == 0
    return np.asarray(truncated + (inexact & is_even))


def _rounds_away_on_overflow(mode: str, negative: Array) -> Array:
    """True where IEEE rounding in ``mode`` sends an overflow to infinity (not max-finite)."""
    table: dict[str, Callable[[Array], Array]] = {
        "rint": lambda neg: np.ones_like(neg),
        "none": lambda neg: np.ones_like(neg),
        "round": lambda neg: np.ones_like(neg),
        "trunc": lambda neg: np.zeros_like(neg),
        "odd": lambda neg: np.zeros_like(neg),
        "floor": lambda neg: neg,
        "ceil": lambda neg: ~neg,
    }
    return table[mode](negative)


def _nan_bits_from_float64(x64: Array, fmt: FloatFormat) -> Array:
    """Quiet NaN bits of ``fmt`` keeping the sign and top payload bits of float64 NaNs."""
    bits = x64.view(np.uint64)
    width = fmt.width_bits
    sign = (bits >> np.uint64(63)) << np.uint64(width - 1)
    if not fmt.has_inf:
        # E4M3FN has one NaN encoding per sign: all exponent and mantissa bits set.
        return sign | np.uint64((1 << (width - 1)) - 1)
    payload = (bits & np.uint64((1 << _F64_MANTISSA_BITS) - 1)) >> np.uint64(
        _F64_MANTISSA_BITS - fmt.mantissa_bits
    )
    exponent_all_ones = np.uint64(((1 << fmt.exponent_bits) - 1) << fmt.mantissa_bits)
    quiet_bit = np.uint64(1 << (fmt.mantissa_bits - 1))
    return sign | exponent_all_ones | payload | quiet_bit


def _inf_bits(negative: Array, fmt: FloatFormat) -> Array:
    width = fmt.width_bits
    sign = negative.astype(np.uint64) << np.uint64(width - 1)
    if not fmt.has_inf:
        # No infinity: the overflow encoding is NaN, as ml_dtypes produces under RNE.
        return sign | np.uint64((1 << (width - 1)) - 1)
    return sign | np.uint64(((1 << fmt.exponent_bits) - 1) << fmt.mantissa_bits)


def round_float64(x64: Array, dst: str, mode: str = "rint") -> Array:
    """Round float64 values to the float format ``dst`` exactly once, under ``mode``.

    Works on the grid of the target: the quantum (ulp) of ``|x|`` in ``dst``, with the
    exponent clamped at the minimum normal one so that subnormals come out right.
    ``|x| / quantum`` is exact (a power-of-two scale) and below ``2**precision``, so the
    integer rounding of it is exact, and multiplying back is exact too.
    Overflow: +-inf for the nearest modes and for directed modes that round away from zero
    in that direction; +-max-finite for those that round toward zero (and for ``odd``).
    A format without infinity (FP8E4M3FN) returns NaN wherever IEEE would give infinity.
    """
    if dst == "FP32" and mode == "rint":
        # The hardware float64 -> float32 conversion is this rounding: IEEE RNE with gradual
        # underflow, overflow to +-inf, and a NaN keeping its sign and top 23 payload bits with
        # the quiet bit set (`_nan_bits_from_float64`). `round_float64_general` is the rule.
        with np.errstate(over="ignore", invalid="ignore"):
            fast: Array = np.asarray(x64, dtype=np.float64).astype(np.float32)
        return fast
    return round_float64_general(x64, dst, mode)


def round_float64_general(x64: Array, dst: str, mode: str = "rint") -> Array:
    """:func:`round_float64` on the target's grid for every format and mode (the reference
    the FP32 / RNE conversion shortcut is tested against)."""
    _check_mode(mode)
    fmt = float_format(dst)
    x64 = np.asarray(x64, dtype=np.float64)
    magnitude = np.abs(x64)
    negative = np.signbit(x64)
    finite = np.isfinite(x64)
    safe = np.where(finite, magnitude, 0.0)
    _, exponent = np.frexp(safe)  # safe = m * 2**exponent with m in [0.5, 1)
    unbiased = np.maximum(exponent - 1, fmt.min_normal_exponent)
    quantum_exponent = unbiased - fmt.mantissa_bits
    scaled = np.ldexp(safe, -quantum_exponent)
    rounded = np.ldexp(_round_magnitude_to_integer(scaled, negative, mode), quantum_exponent)
    overflow = rounded > fmt.max_finite
    to_infinity = overflow & _rounds_away_on_overflow(mode, negative)
    rounded = np.where(overflow, fmt.max_finite, rounded)
    result = np.copysign(rounded, np.where(negative, -1.0, 1.0)).astype(np_dtype(dst))
    bits = to_bits(result).astype(np.uint64)
    bits = np.where(to_infinity | np.isinf(x64), _inf_bits(negative, fmt), bits)
    bits = np.where(np.isnan(x64), _nan_bits_from_float64(x64, fmt), bits)
    return from_bits(bits, dst)


def widen_to_float64(x: Array, src: str) -> Array:
    """Exactly widen a float format to float64, with a deterministic NaN payload rule."""
    fmt = float_format(src)
    arr = np.asarray(x).astype(np_dtype(src), copy=False)
    with np.errstate(invalid="ignore"):  # widening a signalling NaN raises 'invalid'
        wide = arr.astype(np.float64)
    # (min is NaN exactly when one element is; FP32's own min reads half the bytes)
    if wide.size == 0 or not np.isnan((arr if arr.dtype == np.float32 else wide).min()):
        return wide
    nan = np.isnan(wide)
    bits = to_bits(arr).astype(np.uint64)
    sign = (bits >> np.uint64(fmt.width_bits - 1)) << np.uint64(63)
    payload = (bits & np.uint64((1 << fmt.mantissa_bits) - 1)) << np.uint64(
        _F64_MANTISSA_BITS - fmt.mantissa_bits
    )
    nan_bits = sign | np.uint64(0x7FF8_0000_0000_0000) | payload
    return np.where(nan, nan_bits, wide.view(np.uint64)).view(np.float64)


# ---------------------------------------------------------------------------------------
# Fused multiply-add in FP32 and the cube MAD chain (section 1)
# ---------------------------------------------------------------------------------------


def _two_sum(a: Array, b: Array) -> tuple[Array, Array]:
    """s = fl(a + b) and the exact error e with a + b = s + e (Knuth, no branch on |a|>|b|)."""
    s = a + b
    b_virtual = s - a
    a_virtual = s - b_virtual
    return s, (a - a_virtual) + (b - b_virtual)


def _round_to_odd_float64(total: Array, error: Array) -> Array:
    """Round-to-odd of the exact value total + error at float64 precision.

    ``total`` is the RNE sum; if the sum was inexact and ``total`` has an even last bit, the
    odd neighbour toward the exact value is the round-to-odd result.  Rounding that once more
    to a format with at most 51 significand bits equals rounding the exact value once.
    """
    bits = total.view(np.int64)
    inexact = (error != 0) & np.isfinite(total)
    even = (bits & 1) == 0
    away_from_zero = np.signbit(total) == np.signbit(error)
    step = np.where(away_from_zero, 1, -1)
    adjusted = np.where(inexact & even, bits + step, bits)
    return adjusted.view(np.float64)


def fma_f32(a: Array, b: Array, c: Array) -> Array:
    """RNE32(a*b + c) with a single rounding, for float32 arrays (broadcast together).

    The float64 product of two float32 values is exact: 24+24 significand bits fit in 53,
    and the exponent range 2**-298 .. 2**256 is inside float64's normal range.  TwoSum gives
    the float64 sum and its exact error; round-to-odd keeps the sticky information so the
    final float64 -> float32 RNE cast rounds the exact value once.  Inf/NaN operands take the
    plain float64 path, which has the IEEE special-value results.
    """
    odd = _fma_round_to_odd(a, b, c)
    if np.isfinite(odd).all():
        # Round-to-odd at 53 bits followed by one RNE rounding to 24 bits (or fewer, for a
        # subnormal) rounds the exact value once, and the hardware float64 -> float32
        # conversion *is* IEEE RNE (overflow to infinity included): no need for the
        # any-format path, which exists for NaN payloads and the other rounding modes.
        with np.errstate(over="ignore"):
            fast: Array = odd.astype(np.float32)
        return fast
    return round_float64(odd, "FP32", "rint")


def _fma_round_to_odd(a: Array, b: Array, c: Array) -> Array:
    """a*b + c rounded to odd at float64 precision (exact product, TwoSum, sticky bit)."""
    with np.errstate(invalid="ignore", over="ignore"):  # widening a signalling NaN raises 'invalid'
        a64 = np.asarray(a, dtype=np.float32).astype(np.float64)
        b64 = np.asarray(b, dtype=np.float32).astype(np.float64)
        c64 = np.asarray(c, dtype=np.float32).astype(np.float64)
        product = a64 * b64
        total, error = _two_sum(product, c64)
        odd = _round_to_odd_float64(total, np.where(np.isfinite(total), error, 0.0))
    nan = np.isnan(odd)
    if nan.any():
        odd = np.where(nan, _fma_nan(a64, b64, c64), odd)
    return odd


# x86's default NaN (what an invalid operation such as inf * 0 produces): negative, quiet.
_DEFAULT_NAN_BITS: Final = np.uint64(0xFFF8_0000_0000_0000)
_QUIET_BIT_F64: Final = np.uint64(1 << 51)


def _fma_nan(a64: Array, b64: Array, c64: Array) -> Array:
    """The NaN of a NaN fma result, by rule rather than by NumPy's loop choice (a broadcast
    product may run as b * a, and which operand's payload survives depends on that): the
    first NaN operand in the order a, b, c, quieted; the default NaN if no operand is NaN."""
    def bits(x: Array) -> Array:
        return np.broadcast_to(x, np.broadcast_shapes(a64.shape, b64.shape, c64.shape)).view(np.uint64)

    chosen = np.where(np.isnan(c64), bits(c64), _DEFAULT_NAN_BITS)
    chosen = np.where(np.isnan(b64), bits(b64), chosen)
    chosen = np.where(np.isnan(a64), bits(a64), chosen)
    return np.asarray(chosen | _QUIET_BIT_F64, dtype=np.uint64).view(np.float64)


_MATMUL_ACCUMULATOR: Final = {"FP16": "FP32", "BF16": "FP32", "FP32": "FP32", "INT8": "INT32"}


def matmul(a: Array, b: Array, acc_start: Array, in_dtype: str) -> Array:
    """Cube MAD: for each (i, j), acc = start; for k ascending: acc = RNE32(acc + a[i,k]*b[k,j]).

    Runs the fast exact kernel (:func:`matmul_fast`); :func:`matmul_reference` is the rule
    written out step by step, which tests compare it with bit for bit.
    """
    return matmul_fast(a, b, acc_start, in_dtype)


def _matmul_operands(a: Array, b: Array, acc_start: Array, in_dtype: str) -> tuple[Array, Array, Array]:
    if in_dtype not in _MATMUL_ACCUMULATOR:
        raise NumericsError(
            f"matmul operand dtype {in_dtype} unsupported; expected one of "
            f"{', '.join(_MATMUL_ACCUMULATOR)}"
        )
    a_arr, b_arr, start = np.asarray(a), np.asarray(b), np.asarray(acc_start)
    _check_matmul_shapes(a_arr, b_arr, start)
    return a_arr, b_arr, start


def matmul_reference(a: Array, b: Array, acc_start: Array, in_dtype: str) -> Array:
    """The MAD rule step by step: one :func:`fma_f32` per k over the whole [M, N] block
    (FP16/BF16/FP32; a bf16 product may leave FP32's range, so a float32 product would round
    twice).  INT8 accumulates in INT32 with two's-complement wrap; since wrapping addition is
    associative, the int64 matrix product wrapped once equals the sequential wrapped chain."""
    a_arr, b_arr, start = _matmul_operands(a, b, acc_start, in_dtype)
    if in_dtype == "INT8":
        exact = start.astype(np.int64) + a_arr.astype(np.int64) @ b_arr.astype(np.int64)
        return exact.astype(np.int32)
    left = a_arr.astype(np_dtype(in_dtype), copy=False).astype(np.float32)
    right = b_arr.astype(np_dtype(in_dtype), copy=False).astype(np.float32)
    acc = start.astype(np.float32)
    for k in range(left.shape[1]):
        acc = fma_f32(left[:, k : k + 1], right[k : k + 1, :], acc)
    return acc


def _load_mad_kernel() -> ModuleType | None:
    """The compiled kernel (setup.py builds it at install time; optional), or None."""
    try:
        return importlib.import_module("backend._mad")
    except ImportError:  # an install without a C compiler
        return None


_mad_kernel = _load_mad_kernel()

# INT8 products are at most 2**14 in magnitude, so every partial sum of K <= 1024 of them is an
# integer below 2**24: exact in float32 in any summation order, hence BLAS may compute it.
_INT8_EXACT_FLOAT32_K: Final = 1024
# How the compiled kernel reads float operands: float32 itself, or FP16 / BF16 bit patterns.
_MAD_KIND: Final = {"FP32": 0, "FP16": 1, "BF16": 2}


def matmul_fast(a: Array, b: Array, acc_start: Array, in_dtype: str) -> Array:
    """The MAD chain at machine speed, bit-identical to :func:`matmul_reference`.

    Floats: the compiled kernel (`backend/_mad.c`) runs, per output element, fmaf over k in
    ascending order: an IEEE fma *is* one exact multiply-add rounded once, and FP16/BF16 widen
    to FP32 exactly, so blocking and vectorizing over M x N changes no bit.  The one thing an
    fma instruction decides by operand position is a NaN's payload: outputs that came out NaN
    are recomputed with the reference chain (NaN stays NaN along a chain, so exactly those).
    Without the compiled kernel, FP16 runs a NumPy K-loop of float32 multiply and add (the
    product of two FP16 values is exact in FP32) and the others the reference chain.
    INT8: float32 BLAS when K <= 1024 (exact, see above), else the compiled kernel (wrap)."""
    a_arr, b_arr, start = _matmul_operands(a, b, acc_start, in_dtype)
    m, k = a_arr.shape
    n = b_arr.shape[1]
    if in_dtype == "INT8":
        return _matmul_int8(a_arr, b_arr, start, m, k, n)
    if _mad_kernel is None:
        if in_dtype == "FP16":
            return _matmul_fp16_numpy(a_arr, b_arr, start)
        return matmul_reference(a_arr, b_arr, start, in_dtype)
    kind = _MAD_KIND[in_dtype]
    left = np.ascontiguousarray(a_arr.astype(np_dtype(in_dtype), copy=False))
    right = np.ascontiguousarray(b_arr.astype(np_dtype(in_dtype), copy=False))
    acc = np.array(start, dtype=np.float32, order="C", copy=True)
    if kind:  # FP16 / BF16 widen to FP32 inside the kernel: it takes their bit patterns
        nans = _mad_kernel.mad_f32(left.view(np.uint16), right.view(np.uint16), acc, m, k, n, kind)
    else:
        nans = _mad_kernel.mad_f32(left, right, acc, m, k, n)
    if nans:
        left = left.astype(np.float32)
        right = right.astype(np.float32)
        rows, cols = np.nonzero(np.isnan(acc))
        # Each NaN output's own chain, all of them at once: [count, 1] x [1, count] steps.
        chain = start.astype(np.float32)[rows, cols]
        for step in range(k):
            chain = fma_f32(left[rows, step], right[step, cols], chain)
        acc[rows, cols] = chain
    return acc


def _matmul_fp16_numpy(a: Array, b: Array, start: Array) -> Array:
    left = a.astype(np.float16, copy=False).astype(np.float32)
    right = b.astype(np.float16, copy=False).astype(np.float32)
    acc = start.astype(np.float32)
    with np.errstate(all="ignore"):
        for k in range(left.shape[1]):
            acc = acc + left[:, k : k + 1] * right[k : k + 1, :]  # exact product, one rounding
    # NaN payloads follow the reference chain (this path's operand order may differ).
    nan = np.isnan(acc)
    if nan.any():
        acc[nan] = matmul_reference(a, b, start, "FP16")[nan]
    return acc


def _matmul_int8(a: Array, b: Array, start: Array, m: int, k: int, n: int) -> Array:
    if k <= _INT8_EXACT_FLOAT32_K:
        product = a.astype(np.float32) @ b.astype(np.float32)
        return (start.astype(np.int64) + product.astype(np.int64)).astype(np.int32)
    if _mad_kernel is not None:
        acc = np.array(start, dtype=np.int32, order="C", copy=True)
        _mad_kernel.mad_int8(np.ascontiguousarray(a, dtype=np.int8), np.ascontiguousarray(b, dtype=np.int8), acc,
                             m, k, n)
        return acc
    return matmul_reference(a, b, start, "INT8")


def _check_matmul_shapes(a: Array, b: Array, start: Array) -> None:
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
        raise NumericsError(f"matmul needs [M,K] x [K,N]; got {a.shape} x {b.shape}")
    expected = (a.shape[0], b.shape[1])
    if start.shape != expected:
        raise NumericsError(f"matmul acc_start must be {list(expected)}, got {list(start.shape)}")


# ---------------------------------------------------------------------------------------
# Conversions (section 4)
# ---------------------------------------------------------------------------------------


def _int_to_float64_odd(x: Array) -> Array:
    """Integers (up to 64 bits) as float64, rounded to odd so one later rounding is exact."""
    if x.dtype.itemsize < 8:
        return x.astype(np.float64)
    shift = np.uint64(32) if x.dtype.kind == "u" else np.int64(32)
    high = (x >> shift).astype(np.float64) * 2.0**32
    low = (x & x.dtype.type(0xFFFF_FFFF)).astype(np.float64)
    total, error = _two_sum(high, low)
    return _round_to_odd_float64(total, error)


def _round_float64_to_integer(x64: Array, mode: str) -> Array:
    effective = "trunc" if mode == "none" else mode
    magnitude = np.abs(x64)
    negative = np.signbit(x64)
    # Values >= 2**53 are already integers; clamp so the fraction arithmetic stays exact.
    big = magnitude >= 2.0**53
    rounded = _round_magnitude_to_integer(np.where(big, 0.0, magnitude), negative, effective)
    rounded = np.where(big, magnitude, rounded)
    # Integer round-to-odd means the odd neighbour (sign-magnitude), e.g. -2.5 -> -3.
    return np.where(negative, -rounded, rounded)


def _saturate_float64_to_int(x64: Array, dst: str) -> Array:
    info = np.iinfo(np_dtype(dst))
    upper_exclusive = float(int(info.max) + 1)  # a power of two: exact in float64
    lower = float(int(info.min))
    nan = np.isnan(x64)
    too_big = ~nan & (x64 >= upper_exclusive)
    too_small = ~nan & (x64 < lower)
    in_range = np.where(nan | too_big | too_small, 0.0, x64)
    result = in_range.astype(np_dtype(dst))
    result = np.where(too_big, np_dtype(dst).type(info.max), result)
    return np.where(too_small, np_dtype(dst).type(info.min), result).astype(np_dtype(dst))


def cast(x: Array, src: str, dst: str, mode: str = "round") -> Array:
    """``tile.cast`` / TCVT: convert ``x`` from ``src`` to ``dst`` under rounding ``mode``.

    float->float honours the mode; float->int rounds per mode (``none`` = trunc), saturates,
    NaN -> 0; int->float is one RNE rounding whatever the mode; int->int wraps.
    BOOL targets get ``x != 0`` (NaN -> False, like NaN -> 0); BOOL sources are 0/1.
    """
    _check_mode(mode)
    arr = np.asarray(x).astype(np_dtype(src), copy=False)
    if src == dst or {src, dst} == {"INT64", "INDEX"}:
        return arr.copy()  # no conversion: bits pass through (signalling NaNs included)
    if dst == "BOOL":
        return np.where(np.isnan(arr), False, arr != 0) if is_float(src) else arr != 0
    if src == "BOOL":
        arr = arr.astype(np.uint8)
        src = "UINT8"
    if is_float(src) and is_float(dst):
        return round_float64(widen_to_float64(arr, src), dst, mode)
    if is_float(src):
        # NaN and out-of-range values are handled explicitly (NaN -> 0, saturation): NumPy's
        # "invalid value in cast" warning on the way says nothing here.
        with np.errstate(invalid="ignore"):
            return _saturate_float64_to_int(_round_float64_to_integer(arr.astype(np.float64), mode), dst)
    if is_float(dst):
        return round_float64(_int_to_float64_odd(arr), dst, "rint")
    return arr.astype(np_dtype(dst))


def scalar_cast(value: float | int, src: str, dst: str) -> float | int:
    """A scalar conversion (the DSL's scalar `pl.cast`, MLIR arith's sitofp / uitofp / fptosi /
    fptoui / extf / truncf / extsi / extui / trunci / bitcast / index_cast): to a float it rounds
    to nearest even, a float to an integer truncates toward zero (saturating, NaN -> 0), an
    integer to an integer wraps. INDEX is a 64-bit signed integer. The result is exact as a
    Python int / float: an unsigned one is in [0, 2**width).

    An integer `value` is first taken modulo 2**width of `src` (a signless register's bits read
    as `src`), so an unsigned source may be given with either sign. Integer -> unsigned is
    modulo 2**width (NUMERICS.md section 4, "Integer -> integer: wrap"). Float -> unsigned:
    NUMERICS.md section 4 states one rule for every integer target, "round per mode, then
    saturate to the target range; NaN -> 0" (the same rule as fptosi, with the unsigned range
    [0, 2**width - 1]): a scalar cast truncates toward zero, so -0.75 -> 0, -1.0 -> 0 (below
    the range: saturates to 0), 2**32 -> 2**32 - 1 for UINT32, +inf -> max, -inf -> 0, NaN -> 0."""
    source = "INT64" if src == "INDEX" else src
    target = "INT64" if dst == "INDEX" else dst
    if is_float(source):
        # `value` is a `source` number (or NaN): rounding it to `source` is exact, and keeps a
        # NaN's payload, which NumPy / ml_dtypes' float64 -> BF16 cast would make 0x7fc0.
        array = round_float64(np.asarray(value, dtype=np.float64), source, "rint")
    else:
        bits = 8 * byte_width(source)
        wrapped = int(value) % (1 << bits)
        array = np.asarray(wrapped, dtype=_unsigned_dtype(bits // 8)).view(np_dtype(source))
    converted = cast(array, source, target, "trunc" if not is_float(target) else "rint")
    if is_float(target):
        return float(widen_to_float64(np.asarray(converted), target))
    return int(np.asarray(converted).item())


def fixpipe_cast(x: Array, dst: str) -> Array:
    """FIXPIPE store / assemble from the accumulator: FP32 -> float is RNE, INT32 stays."""
    arr = np.asarray(x)
    if arr.dtype == np.int32:
        if dst != "INT32":
            raise NumericsError(f"FIXPIPE cannot convert an INT32 accumulator to {dst}")
        return arr
    if not is_float(dst):
        raise NumericsError(f"FIXPIPE converts an FP32 accumulator to a float type, not {dst}")
    return cast(arr, "FP32", dst, "rint")


def convert_scalar(scalar: float | int | bool | np.generic, dtype: str) -> Array:
    """A scalar operand of a tile-scalar instruction, converted to the tile's type T.

    Floats round RNE to T; integer T takes an integral value modulo 2**width.
    """
    if is_float(dtype):
        return round_float64(np.array(float(scalar), dtype=np.float64), dtype, "rint")
    if dtype == "BOOL":
        return np.array(bool(scalar))
    value = float(scalar) if isinstance(scalar, (float, np.floating)) else int(scalar)
    if isinstance(value, float):
        if not value.is_integer():
            raise NumericsError(f"scalar {scalar} is not an integer for a {dtype} operation")
        value = int(value)
    width = 8 * byte_width(dtype)
    wrapped = value % (1 << width)
    return np.array(wrapped, dtype=_unsigned_dtype(width // 8)).view(np_dtype(dtype))


# ---------------------------------------------------------------------------------------
# Element-wise vector operations (section 2)
# ---------------------------------------------------------------------------------------


def _max_rule(a: Array, b: Array) -> Array:
    # max(a, b) = b if b > a else a: a NaN in a propagates, a NaN in b does not. The result is
    # one operand's bits, in every format (a signalling NaN stays signalling, as in relu, the
    # column / row max and pto-isa's std::max).
    with np.errstate(invalid="ignore"):  # comparing a signalling NaN raises 'invalid'
        return np.where(b > a, b, a)


def _min_rule(a: Array, b: Array) -> Array:
    with np.errstate(invalid="ignore"):
        return np.where(b < a, b, a)


# The binary ops whose result is one operand's bits: computed on the operands as they are, in
# every format (widening a BF16 or FP16 operand to float64 and rounding back would quiet a
# signalling NaN the FP32 form keeps).
_SELECTING_BINARY: Final = frozenset({"max", "min"})


_FLOAT_BINARY: Final[dict[str, Callable[[Array, Array], Array]]] = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.divide,
    "fmod": np.fmod,
    "max": _max_rule,
    "min": _min_rule,
}

_BITWISE: Final[dict[str, Callable[[Array, Array], Array]]] = {
    "and": np.bitwise_and,
    "or": np.bitwise_or,
    "xor": np.bitwise_xor,
}

_SCALAR_OP_ALIASES: Final = {
    "adds": "add", "subs": "sub", "muls": "mul", "divs": "div", "fmods": "fmod",
    "maxs": "max", "mins": "min", "ands": "and", "ors": "or", "xors": "xor",
    "shls": "shl", "shrs": "shr", "rems": "rem",
}  # fmt: skip


def _as_dtype(x: Array | np.generic, dtype: str) -> Array:
    return np.asarray(x).astype(np_dtype(dtype), copy=False)


def _float_elementwise(op: Callable[..., Array], operands: list[Array], dtype: str) -> Array:
    """RNE_T(op(operands)) for float T.

    FP32 uses IEEE float32 arithmetic (each op exactly rounded).  Narrower formats compute
    in float64 and round once: float64 has p = 53 >= 2p+2 for every format here, which makes
    the double rounding innocuous for + - * / sqrt (Figueroa), and its exponent range holds
    every bf16 product and quotient without underflow.  (FP32 has 24 >= 2p+2 for FP16 and
    BF16 too, so the hardware's FP32 datapath gives the same bits; float64 just makes the
    argument independent of FP32's subnormal range, which BF16 shares.)
    """
    with np.errstate(all="ignore"):
        if dtype == "FP32":
            narrow = [_as_dtype(x, "FP32") for x in operands]
            result32 = np.asarray(op(*narrow)).astype(np.float32)
            if not np.isnan(result32).any():
                return result32
            wide = [widen_to_float64(x, "FP32") for x in narrow]
            return round_float64(propagate_nan(result32.astype(np.float64), wide), "FP32", "rint")
        wide = [widen_to_float64(_as_dtype(x, dtype), dtype) for x in operands]
        return round_float64(propagate_nan(np.asarray(op(*wide)), wide), dtype, "rint")


def propagate_nan(result64: Array, wide: list[Array]) -> Array:
    """Which NaN a NaN result carries, by rule rather than by NumPy's loop choice: the first NaN
    operand in operand order, quieted, with its sign and payload (what x86 returns for the
    operation written in that order; `widen_to_float64` has quieted it already); an operation
    without a NaN operand keeps the NaN it made (the default NaN). NumPy does not fix this: a
    float64 `a + s` over a contiguous array returns the scalar's NaN, over a one-element array
    a's, and a float32 one a's -- so a BF16 tile-scalar add (computed in float64) and the same
    add done in FP32 (LegalizeVecDtypes) disagreed on two NaN operands."""
    nan = np.isnan(result64)
    if not nan.any():
        return result64
    shape = np.broadcast_shapes(result64.shape, *(np.shape(x) for x in wide))
    chosen = np.broadcast_to(result64, shape).view(np.uint64)
    for operand in reversed(wide):
        operand = np.broadcast_to(np.asarray(operand, dtype=np.float64), shape)
        chosen = np.where(np.isnan(operand), operand.view(np.uint64) | _QUIET_BIT_F64, chosen)
    return np.where(nan, np.asarray(chosen, dtype=np.uint64).view(np.float64), result64)


def _bitwise_on_patterns(op: Callable[[Array, Array], Array], a: Array, b: Array) -> Array:
    return op(to_bits(a), to_bits(b)).view(a.dtype)


def _first_index(mask: Array) -> int:
    return int(np.flatnonzero(mask.reshape(-1))[0])


def _int_divide_checked(op: str, a: Array, b: Array) -> tuple[Array, Array]:
    """C-style truncating quotient and remainder with wrap; division by zero faults."""
    a, b = np.broadcast_arrays(a, b)
    zero = b == 0
    if np.any(zero):
        raise ArithmeticFault(op, _first_index(zero), "integer division by zero")
    with np.errstate(all="ignore"):
        if a.dtype.kind == "u":
            return a // b, a % b
        # C truncates toward zero; work in int64 (wrapping the INT64_MIN / -1 case).
        wide_a, wide_b = a.astype(np.int64), b.astype(np.int64)
        floor_q = wide_a // wide_b
        adjust = ((wide_a % wide_b) != 0) & ((wide_a < 0) != (wide_b < 0))
        quotient = floor_q + adjust
        remainder = wide_a - quotient * wide_b
        return quotient.astype(a.dtype), remainder.astype(a.dtype)


def _shift(op: str, a: Array, b: Array) -> Array:
    width = 8 * a.dtype.itemsize
    count = np.broadcast_to(np.asarray(b).astype(np.int64), np.broadcast_shapes(a.shape, np.shape(b)))
    bad = (count < 0) | (count >= width)
    if np.any(bad):
        raise ArithmeticFault(op, _first_index(bad), f"shift count outside [0, {width})")
    shift_count = count.astype(a.dtype)
    if op == "shl":
        return np.asarray(np.left_shift(a, shift_count)).astype(a.dtype)
    # NumPy's right_shift is arithmetic on signed and logical on unsigned dtypes.
    return np.asarray(np.right_shift(a, shift_count)).astype(a.dtype)


def _floor_remainder(a: Array, truncated: Array, b: Array) -> Array:
    """TREM: the truncated remainder moved into the divisor's sign (pto-isa adds the divisor
    when the operands' signs differ, tested as `>= 0`, and the remainder is non-zero)."""
    with np.errstate(all="ignore"):
        b = np.broadcast_to(b, truncated.shape)
        adjust = ((np.asarray(a) >= 0) != (b >= 0)) & (truncated != 0)
        return np.where(adjust, truncated + b, truncated).astype(truncated.dtype)


def _float_rem(a: Array, b: Array, dtype: str) -> Array:
    """TREM on floats: fmod (exact), then RNE_T(r + b) where the signs differ and r != 0."""
    truncated = _float_elementwise(np.fmod, [a, b], dtype)
    a_b, t_b, b_b = np.broadcast_arrays(a, truncated, b)
    adjust = ((a_b >= 0) != (b_b >= 0)) & (t_b != 0)
    moved = _float_elementwise(np.add, [t_b, b_b], dtype)
    return np.where(adjust, moved, t_b).astype(np_dtype(dtype))


def _int_binary(op: str, a: Array, b: Array) -> Array:
    if op in _BITWISE:
        return _BITWISE[op](a, b)
    if op in ("shl", "shr"):
        return _shift(op, a, b)
    if op == "div":
        return _int_divide_checked(op, a, b)[0]
    if op == "fmod":
        return _int_divide_checked(op, a, b)[1]
    if op == "rem":
        truncated = _int_divide_checked(op, a, b)[1]
        return _floor_remainder(np.broadcast_to(a, truncated.shape), truncated, b)
    wrapping: dict[str, Callable[[Array, Array], Array]] = {
        "add": np.add, "sub": np.subtract, "mul": np.multiply,
        "max": _max_rule, "min": _min_rule,
    }  # fmt: skip
    if op not in wrapping:
        raise NumericsError(f"binary op {op!r} is not defined on integers")
    with np.errstate(all="ignore"):
        return np.asarray(wrapping[op](a, b)).astype(a.dtype)


def binary(op: str, a: Array, b: Array, dtype: str) -> Array:
    """Element-wise ``op(a, b)`` in type ``dtype`` (both operands already of that type).

    Floats: add sub mul div fmod (exactly rounded), max min (one operand's bits), and/or/xor on bit
    patterns.
    Floats also: rem (fmod moved into the divisor's sign, pto-isa TREM).
    Integers: add sub mul (wrap), div / fmod (C truncation; zero divisor -> ArithmeticFault),
    rem (floor remainder: the divisor's sign),
    max min, and or xor, shl, shr (arithmetic for signed, logical for unsigned).
    """
    op = _SCALAR_OP_ALIASES.get(op, op)
    a_arr, b_arr = _as_dtype(a, dtype), _as_dtype(b, dtype)
    if dtype == "BOOL":
        if op not in _BITWISE:
            raise NumericsError(f"binary op {op!r} is not defined on BOOL")
        return _BITWISE[op](a_arr, b_arr)
    if is_float(dtype):
        if op in _BITWISE:
            return _bitwise_on_patterns(_BITWISE[op], *np.broadcast_arrays(a_arr, b_arr))
        if op == "rem":
            return _float_rem(a_arr, b_arr, dtype)
        if op not in _FLOAT_BINARY:
            raise NumericsError(f"binary op {op!r} is not defined on float type {dtype}")
        if op in _SELECTING_BINARY:
            return np.asarray(_FLOAT_BINARY[op](a_arr, b_arr)).astype(np_dtype(dtype), copy=False)
        return _float_elementwise(_FLOAT_BINARY[op], [a_arr, b_arr], dtype)
    return _int_binary(op, a_arr, b_arr)


# (op, dtype) pairs whose rule is NumPy's ufunc applied to arrays of that dtype, as they are:
# IEEE float32 arithmetic is exactly rounded (what `_float_elementwise` computes for FP32), and
# integer add / sub / mul wrap in their own width (`_int_binary`); bitwise ops act on the bits.
_EXACT_UFUNCS: Final[dict[tuple[str, str], np.ufunc]] = {
    **{(op, "FP32"): ufunc for op, ufunc in (("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
                                             ("div", np.divide))},
    **{(op, dtype): ufunc
       for dtype in ("INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64")
       for op, ufunc in (("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("and", np.bitwise_and),
                         ("or", np.bitwise_or), ("xor", np.bitwise_xor))},
}


def exact_ufunc(op: str, dtype: str) -> np.ufunc | None:
    """The NumPy ufunc whose direct application (operands and output of `dtype`, errors
    ignored) is `binary(op, a, b, dtype)` bit for bit, or None: a simulator computes such an
    instruction straight into the destination tile."""
    return _EXACT_UFUNCS.get((_SCALAR_OP_ALIASES.get(op, op), dtype))


def scalar_binary(
    op: str, a: Array, scalar: float | int | bool | np.generic, dtype: str, scalar_first: bool = False
) -> Array:
    """Tile-scalar forms (adds, subs, muls, divs, maxs, mins, ...): scalar converted to T first."""
    converted = convert_scalar(scalar, dtype)
    tile = _as_dtype(a, dtype)
    if scalar_first:
        return binary(op, np.broadcast_to(converted, tile.shape), tile, dtype)
    return binary(op, tile, converted, dtype)


def _rsqrt(x: Array) -> Array:
    return 1.0 / np.sqrt(x)


def _reciprocal(x: Array) -> Array:
    return 1.0 / x


_FLOAT_UNARY_VALUE: Final[dict[str, Callable[[Array], Array]]] = {
    "sqrt": np.sqrt,
    "exp": np.exp,
    "log": np.log,
    "sin": np.sin,
    "cos": np.cos,
    "tanh": np.tanh,
    # rsqrt: float64 1/sqrt (two float64 roundings) then one rounding to T; the float64 error
    # is far below T's half-ulp, so this is exact except on ~2**-28-probability near-ties.
    "rsqrt": _rsqrt,
    # rec: float64 1/x is exactly rounded and 53 >= 2p+2, so the result is RNE_T(1/x).
    "rec": _reciprocal,
}

# Functions evaluated in float64 even for FP32 (the transcendental rule: RNE_T(f(float64(x)))).
_FLOAT64_EVEN_FOR_FP32: Final = frozenset({"exp", "log", "sin", "cos", "tanh", "rsqrt"})


def _float_sign_op(op: str, x: Array, dtype: str) -> Array:
    """neg / abs act on the sign bit only, so NaNs and zeros behave as on hardware."""
    bits = to_bits(x)
    sign = bits.dtype.type(1 << (8 * bits.dtype.itemsize - 1))
    new_bits = np.asarray(bits ^ sign if op == "neg" else bits & ~sign)
    return new_bits.view(np_dtype(dtype))


def _float_unary(op: str, x: Array, dtype: str) -> Array:
    if op in ("neg", "abs"):
        return _float_sign_op(op, x, dtype)
    if op == "relu":
        # relu(x) = max(x, 0) under the max rule: NaN and -0.0 pass through unchanged.
        return _max_rule(x, np.zeros_like(x))
    if op == "not":
        return (~to_bits(x)).view(np_dtype(dtype))
    if op not in _FLOAT_UNARY_VALUE:
        raise NumericsError(f"unary op {op!r} is not defined on float type {dtype}")
    function = _FLOAT_UNARY_VALUE[op]
    if dtype == "FP32" and op not in _FLOAT64_EVEN_FOR_FP32:
        return _float_elementwise(function, [x], dtype)
    with np.errstate(all="ignore"):
        return round_float64(np.asarray(function(widen_to_float64(x, dtype))), dtype, "rint")


def _int_unary(op: str, x: Array, dtype: str) -> Array:
    table: dict[str, Callable[[Array], Array]] = {
        "neg": np.negative,
        "abs": np.abs,  # wraps: abs(INT_MIN) = INT_MIN, as two's complement hardware does
        "not": np.invert,
        "relu": lambda v: _max_rule(v, np.zeros_like(v)),
    }
    if op not in table:
        raise NumericsError(f"unary op {op!r} is not defined on integer type {dtype}")
    with np.errstate(all="ignore"):
        return np.asarray(table[op](x)).astype(np_dtype(dtype))


def unary(op: str, x: Array, dtype: str) -> Array:
    """Element-wise ``op(x)``: neg abs sqrt rsqrt exp log sin cos tanh relu rec not."""
    arr = _as_dtype(x, dtype)
    if dtype == "BOOL":
        if op != "not":
            raise NumericsError(f"unary op {op!r} is not defined on BOOL")
        return ~arr
    if is_float(dtype):
        return _float_unary(op, arr, dtype)
    return _int_unary(op, arr, dtype)


def unary_into(op: str, x: Array, dtype: str, out: Array) -> bool:
    """`out[...] = unary(op, x, dtype)` computed straight into `out` (of `dtype` and x's shape)
    where the rule allows it without temporaries beyond the float64 operand: FP32's
    transcendental ufuncs, RNE_FP32(f(float64(x))), evaluated in place on the widened copy and
    converted into `out` by the same float64 -> float32 cast `round_float64` uses. False,
    having written nothing, elsewhere (the caller stores `unary`'s result)."""
    function = _FLOAT_UNARY_VALUE.get(op)
    if (dtype != "FP32" or op not in _FLOAT64_EVEN_FOR_FP32 or not isinstance(function, np.ufunc)
            or x.dtype != np.float32 or out.dtype != np.float32 or x.shape != out.shape):
        return False
    wide = widen_to_float64(x, dtype)  # a new array (x may be `out` itself)
    with np.errstate(all="ignore"):
        function(wide, out=wide)
        np.copyto(out, wide, casting="unsafe")
    return True


def fused(op: str, a: Array, b: Array | float | int, carry: Array, dtype: str) -> Array:
    """addc / subc (a +- b + carry) and addsc / subsc (a +- scalar + carry).

    Every intermediate is FP32 (each step RNE32), then one rounding to T.  For the scalar
    forms ``b`` is a scalar, converted to T first.  Integers wrap.
    """
    if op not in ("addc", "subc", "addsc", "subsc"):
        raise NumericsError(f"unknown fused op {op!r}; expected addc, subc, addsc, subsc")
    if op in ("addsc", "subsc"):
        if not isinstance(b, (float, int, np.generic)):
            raise NumericsError(f"{op} takes a scalar second operand")
        b_arr = convert_scalar(b, dtype)
    else:
        b_arr = _as_dtype(np.asarray(b), dtype)
    first = "add" if op in ("addc", "addsc") else "sub"
    if not is_float(dtype):
        partial = binary(first, _as_dtype(a, dtype), b_arr, dtype)
        return binary("add", partial, _as_dtype(carry, dtype), dtype)
    a32 = cast(_as_dtype(a, dtype), dtype, "FP32", "rint")
    b32 = cast(b_arr, dtype, "FP32", "rint")
    c32 = cast(_as_dtype(carry, dtype), dtype, "FP32", "rint")
    partial = binary(first, a32, b32, "FP32")
    return cast(binary("add", partial, c32, "FP32"), "FP32", dtype, "rint")


# ---------------------------------------------------------------------------------------
# Reductions (section 3)
# ---------------------------------------------------------------------------------------


def _sum_accumulator(src: str, dst: str) -> str:
    return "FP32" if src in ("FP16", "BF16", "FP32") else dst


def _convert(x: Array, src: str, dst: str) -> Array:
    return x if src == dst else cast(x, src, dst, "rint")


def _require_2d(x: Array, what: str) -> Array:
    arr = np.asarray(x)
    if arr.ndim != 2:
        raise NumericsError(f"{what} expects a 2-D tile, got shape {list(arr.shape)}")
    return arr


def _sequential_sum(columns: Array, src: str, dst: str, accumulator: str) -> Array:
    """columns: [steps, lanes]; acc = +0; acc = RNE_acc(acc + x) per step; one final rounding."""
    acc = np.zeros(columns.shape[1], dtype=np_dtype(accumulator))
    for step in columns:
        acc = binary("add", acc, _convert(step, src, accumulator), accumulator)
    return _convert(acc, accumulator, dst)


def _sequential_prod(columns: Array, src: str, dst: str) -> Array:
    values = _convert(columns, src, dst)
    acc: Array = np.asarray(values[0])
    for step in values[1:]:
        acc = binary("mul", acc, step, dst)
    return acc


def _sequential_extreme(columns: Array, src: str, dst: str, rule: Callable[[Array, Array], Array]) -> Array:
    acc = columns[0]
    for step in columns[1:]:
        acc = rule(acc, step)
    return _convert(acc, src, dst)


def _reduce(x: Array, out_dtype: str, kind: str, along_rows: bool) -> Array:
    arr = _require_2d(x, f"{'row' if along_rows else 'col'}_{kind}")
    src = dtype_name_of(arr)
    steps = arr.T if along_rows else arr  # iterate over the reduced axis
    if kind != "sum" and steps.shape[0] == 0:
        raise NumericsError(f"{kind} reduction over an empty axis has no value")
    if kind == "sum":
        accumulator = _sum_accumulator(src, out_dtype) if along_rows else out_dtype
        return _sequential_sum(steps, src, out_dtype, accumulator)
    if kind == "prod":
        return _sequential_prod(steps, src, out_dtype)
    return _sequential_extreme(steps, src, out_dtype, _max_rule if kind == "max" else _min_rule)


def row_sum(x: Array, out_dtype: str) -> Array:
    """Per row: FP32 accumulator for float data (else ``out_dtype``), then one rounding. [R]."""
    return _reduce(x, out_dtype, "sum", along_rows=True)


def row_max(x: Array, out_dtype: str) -> Array:
    return _reduce(x, out_dtype, "max", along_rows=True)


def row_min(x: Array, out_dtype: str) -> Array:
    return _reduce(x, out_dtype, "min", along_rows=True)


def row_prod(x: Array, out_dtype: str) -> Array:
    return _reduce(x, out_dtype, "prod", along_rows=True)


def col_sum(x: Array, out_dtype: str) -> Array:
    """Per column: accumulate in ``out_dtype`` sequentially over rows (pto-isa rule). [C]."""
    return _reduce(x, out_dtype, "sum", along_rows=False)


def col_max(x: Array, out_dtype: str) -> Array:
    return _reduce(x, out_dtype, "max", along_rows=False)


def col_min(x: Array, out_dtype: str) -> Array:
    return _reduce(x, out_dtype, "min", along_rows=False)


def col_prod(x: Array, out_dtype: str) -> Array:
    return _reduce(x, out_dtype, "prod", along_rows=False)


# ---------------------------------------------------------------------------------------
# Catalog families: compares as masks, select, PReLU, expdif, partial ops, sequences,
# triangles, sorting, gathers and scatters (the rules tests/test_op_families.py pins).
# ---------------------------------------------------------------------------------------

COMPARE_MODES: Final = ("eq", "ne", "lt", "le", "gt", "ge")

_COMPARES: Final[dict[str, Callable[[Array, Array], Array]]] = {
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
    "gt": np.greater, "ge": np.greater_equal,
}  # fmt: skip


def compare(mode: str, a: Array, b: Array | float | int, dtype: str) -> Array:
    """Element-wise comparison of values of ``dtype`` (a scalar ``b`` is converted to it first):
    IEEE on floats (a NaN is unordered: only ``ne`` holds; -0.0 == +0.0), value order on ints."""
    if mode not in _COMPARES:
        raise NumericsError(f"unknown compare mode {mode!r}; expected one of {', '.join(COMPARE_MODES)}")
    rhs = convert_scalar(b, dtype) if isinstance(b, (float, int, np.generic)) else _as_dtype(b, dtype)
    with np.errstate(all="ignore"):
        return np.asarray(_COMPARES[mode](_as_dtype(a, dtype), rhs))


def mask_bits_per_word(mask_dtype: str) -> int:
    if not is_int(mask_dtype):
        raise NumericsError(f"a predicate mask is an integer tile, not {mask_dtype}")
    return 8 * byte_width(mask_dtype)


def packed_mask_words(bits: Array, mask_dtype: str) -> Array:
    """The words of TCMP's packed predicate that hold compared bits: [rows, ceil(cols / w)]
    words of the mask's width w, row r holding row r's bits, LSB first. The bits past `cols`
    in the last word are undefined on chip (a2a3 compares whole 256-byte repeats of the
    source, its padding or next row included; a5 stores whole predicate registers): they hold
    the poison pattern (ones) here, and no reader may depend on them (DefinedReads counts a
    mask's data extent in bits, `languages.ops.data_extents`)."""
    width = mask_bits_per_word(mask_dtype)
    rows, cols = bits.shape
    words = -(-cols // width)
    padded = np.ones((rows, words * width), dtype=np.uint64)
    padded[:, :cols] = bits
    weights = np.left_shift(np.uint64(1), np.arange(width, dtype=np.uint64))
    packed = (padded.reshape(rows, words, width) * weights).sum(axis=2, dtype=np.uint64)
    words_out: Array = packed.astype(_unsigned_dtype(width // 8)).view(np_dtype(mask_dtype))
    return words_out


def pack_mask(bits: Array, mask_shape: tuple[int, int], mask_dtype: str) -> Array:
    """A mask buffer of `mask_shape` after TCMP / TCMPS: `packed_mask_words` at its top left,
    every other byte the 0xFF poison pattern. The instruction writes only its source's valid
    rows, in whole store granules (`BackendHandler.compare_mask_row_bytes`); nothing zeroes
    the rest (pto-isa's CPU model zeroes its dst first, the a2a3 / a5 kernels do not)."""
    words = packed_mask_words(bits, mask_dtype)
    if words.shape[0] > mask_shape[0] or words.shape[1] > mask_shape[1]:
        raise NumericsError(f"a mask of shape {list(mask_shape)} cannot hold the bits of a "
                            f"{list(bits.shape)} compare")
    poison = np.full((mask_shape[0], mask_shape[1] * words.dtype.itemsize), POISON_BYTE, dtype=np.uint8)
    out = poison.view(words.dtype)
    out[:words.shape[0], :words.shape[1]] = words
    return out


def unpack_mask(mask: Array, rows: int, cols: int) -> Array:
    """The predicate bits of a [rows, cols] selection: bit c % w of word c // w of mask row r
    (the layout `packed_mask_words` writes and TSEL / TSELS read: only the bits of the
    selected columns decide anything)."""
    width = 8 * mask.dtype.itemsize
    words = -(-cols // width)
    if mask.shape[0] < rows or mask.shape[1] < words:
        raise NumericsError(f"a mask of shape {list(mask.shape)} holds too few bits for [{rows}, {cols}] values")
    raw = to_bits(np.ascontiguousarray(mask[:rows, :words])).astype(np.uint64)
    shifts = np.arange(width, dtype=np.uint64)
    bits = (raw[:, :, None] >> shifts) & np.uint64(1)
    return bits.reshape(rows, words * width)[:, :cols].astype(bool)


def select(bits: Array, a: Array, b: Array | float | int, dtype: str) -> Array:
    """TSEL / TSELS: a where the predicate bit is set, else b (a scalar b converted to T)."""
    other = convert_scalar(b, dtype) if isinstance(b, (float, int, np.generic)) else _as_dtype(b, dtype)
    return np.where(bits, _as_dtype(a, dtype), other).astype(np_dtype(dtype))


def prelu(x: Array, slope: Array | float | int, dtype: str) -> Array:
    """TPRELU / TLRELU: x where x > 0, else RNE_T(x * slope) (NaN and -0.0 take the product)."""
    arr = _as_dtype(x, dtype)
    if isinstance(slope, (float, int, np.generic)):
        product = scalar_binary("mul", arr, slope, dtype)
    else:
        product = binary("mul", arr, _as_dtype(slope, dtype), dtype)
    with np.errstate(all="ignore"):
        return np.where(arr > 0, arr, product).astype(np_dtype(dtype))


def expdif(x: Array, y: Array, dtype: str) -> Array:
    """TROWEXPANDEXPDIF / TCOLEXPANDEXPDIF: RNE_T(exp(RNE_T(x - y))) (the difference rounds first)."""
    return unary("exp", binary("sub", x, y, dtype), dtype)


def partial(op: str, a: Array, b: Array, out_valid: tuple[int, int], dtype: str) -> Array:
    """TPART*: over the result's valid box, op(a, b) where both operands are valid, the valid
    one's value where only one is, and 0 where neither is (a, b: their valid regions)."""
    rows, cols = out_valid
    out = np.zeros((rows, cols), dtype=np_dtype(dtype))
    ar, ac = min(a.shape[0], rows), min(a.shape[1], cols)
    br, bc = min(b.shape[0], rows), min(b.shape[1], cols)
    out[:br, :bc] = _as_dtype(b[:br, :bc], dtype)
    out[:ar, :ac] = _as_dtype(a[:ar, :ac], dtype)
    both_r, both_c = min(ar, br), min(ac, bc)
    out[:both_r, :both_c] = binary(op, a[:both_r, :both_c], b[:both_r, :both_c], dtype)
    return out


def sequence(start: int, count: int, descending: bool, dtype: str) -> Array:
    """TCI: start + k (or start - k) for k in [0, count), wrapped to the integer dtype."""
    steps = np.arange(count, dtype=np.int64)
    values = start - steps if descending else start + steps
    width = 8 * byte_width(dtype)
    wrapped = np.mod(values, 1 << width).astype(_unsigned_dtype(width // 8))
    return wrapped.view(np_dtype(dtype))


def triangle(rows: int, cols: int, diagonal: int, upper: bool, dtype: str) -> Array:
    """TTRI: 1 on and below (lower) / on and above (upper) the diagonal offset by `diagonal`,
    0 elsewhere: lower marks c <= r + diagonal, upper marks c >= r + diagonal."""
    r = np.arange(rows)[:, None]
    c = np.arange(cols)[None, :]
    marked = c >= r + diagonal if upper else c <= r + diagonal
    return marked.astype(np_dtype(dtype))


# -- counter-based random numbers (TRANDOM) -------------------------------------------------------

# Philox-4x32 constants (pto-isa TRandom.hpp): the round multipliers and the key increments.
PHILOX_MULTIPLIERS: Final = (0xD2511F53, 0xCD9E8D57)
PHILOX_KEY_STEPS: Final = (0x9E3779B9, 0xBB67AE85)
RANDOM_LANES: Final = 64  # 32-bit lanes of one 256-byte vector register
RANDOM_WORDS: Final = 4   # each lane's counter yields four words per pass
RANDOM_ROUNDS: Final = (7, 10)
_WORD: Final = 0xFFFFFFFF


def philox_rounds(counters: Array, key: tuple[int, int], rounds: int) -> Array:
    """Philox-4x32 over `counters` ([n, 4] words, uint64 holding 32-bit values): per round
    (hi0, lo0) = c0 * M0, (hi1, lo1) = c2 * M1; c = (hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0);
    then the key steps by the Weyl constants (all arithmetic mod 2**32)."""
    c = counters.astype(np.uint64)
    k0, k1 = np.uint64(key[0] & _WORD), np.uint64(key[1] & _WORD)
    mask, m0, m1 = np.uint64(_WORD), np.uint64(PHILOX_MULTIPLIERS[0]), np.uint64(PHILOX_MULTIPLIERS[1])
    for _ in range(rounds):
        p0, p1 = c[:, 0] * m0, c[:, 2] * m1  # < 2**64: exact in uint64
        hi0, lo0, hi1, lo1 = p0 >> np.uint64(32), p0 & mask, p1 >> np.uint64(32), p1 & mask
        c = np.stack([hi1 ^ c[:, 1] ^ k0, lo1, hi0 ^ c[:, 3] ^ k1, lo0], axis=1)
        k0 = (k0 + np.uint64(PHILOX_KEY_STEPS[0])) & mask
        k1 = (k1 + np.uint64(PHILOX_KEY_STEPS[1])) & mask
    return c


def _counter_words(value: int) -> Array:
    return np.array([(value >> (32 * w)) & _WORD for w in range(RANDOM_WORDS)], dtype=np.uint64)


def trandom(rows: int, cols: int, key: tuple[int, int], counter: tuple[int, int, int, int], rounds: int,
            dtype: str) -> Array:
    """TRANDOM as the Ascend950 vector unit computes it (pto-isa npu/a5/TRandom.hpp), over the
    valid [rows, cols] region of a 32-bit tile.

    The counter is one 128-bit integer (counter[0] its lowest word). Row by row, each pass
    covers 256 columns: lane k (0..63) runs Philox on counter + k and its four words land
    interleaved, word w of lane k at column 256 * pass + 4 * k + w (columns past `cols` are
    not written). After a pass the counter advances by 64, after a row's last pass by
    ((cols - 1) % 64) + 1 only, and the next row continues from there.
    [departure] pto-isa's CPU simulator places word w of lane k at column 64 * w + k and
    advances by RowStride / 4; the hardware's interleaving store (vintlv) is what we model."""
    if rounds not in RANDOM_ROUNDS:
        raise ValueError(f"TRANDOM runs 7 or 10 rounds, not {rounds}")
    base = sum((int(word) & _WORD) << (32 * w) for w, word in enumerate(counter))
    out = np.zeros((rows, cols), dtype=np.uint64)
    span = RANDOM_LANES * RANDOM_WORDS
    passes = -(-cols // span)
    lanes = np.arange(RANDOM_LANES)
    for row in range(rows):
        for index in range(passes):
            counters = np.stack([_counter_words((base + int(k)) % (1 << 128)) for k in lanes])
            words = philox_rounds(counters, key, rounds).reshape(-1)  # lane-major: 4 * k + w
            start = index * span
            take = min(span, cols - start)
            out[row, start:start + take] = words[:take]
            base += RANDOM_LANES if index != passes - 1 else ((cols - 1) % RANDOM_LANES) + 1
    return out.astype(np.uint32).view(np_dtype(dtype))


# -- sorting ------------------------------------------------------------------------------------

SORT_BLOCK: Final = 32
SORT_PAIR_BYTES: Final = 8


def sort_pair_elements(dtype: str) -> int:
    """Elements of `dtype` one (score, index) pair occupies: pairs are 8 bytes (score, then the
    uint32 index; an FP16 score is followed by 2 zero bytes)."""
    if dtype not in ("FP16", "FP32"):
        raise NumericsError(f"sort32 / mrgsort sort FP16 or FP32 scores, not {dtype}")
    return SORT_PAIR_BYTES // byte_width(dtype)


def _pack_pairs(scores: Array, indices: Array, dtype: str) -> Array:
    """[R, n] scores and uint32 indices -> [R, n * pair_elements] interleaved pair elements."""
    rows, n = scores.shape
    raw = np.zeros((rows, n, SORT_PAIR_BYTES), dtype=np.uint8)
    width = byte_width(dtype)
    raw[:, :, :width] = np.ascontiguousarray(_as_dtype(scores, dtype)).view(np.uint8).reshape(rows, n, width)
    raw[:, :, 4:] = np.ascontiguousarray(indices.astype(np.uint32)).view(np.uint8).reshape(rows, n, 4)
    return raw.reshape(rows, n * SORT_PAIR_BYTES).view(np_dtype(dtype))


def unpack_pairs(pairs: Array, dtype: str) -> tuple[Array, Array]:
    """The scores and uint32 indices of a row of (score, index) pairs."""
    rows = pairs.shape[0]
    raw = np.ascontiguousarray(_as_dtype(pairs, dtype)).view(np.uint8).reshape(rows, -1, SORT_PAIR_BYTES)
    width = byte_width(dtype)
    scores = np.ascontiguousarray(raw[:, :, :width]).view(np_dtype(dtype))[:, :, 0]
    indices = np.ascontiguousarray(raw[:, :, 4:]).view(np.uint32)[:, :, 0]
    return scores, indices


def _descending_order(scores: Array, indices: Array) -> Array:
    """Positions in sort32 order: score descending, equal scores by index ascending (-0.0 ==
    +0.0), then by position; a NaN score sorts after every number [departure: pto-isa's
    comparator is not a strict weak order on NaN, so its order there is undefined]."""
    wide = widen_to_float64(scores, dtype_name_of(scores))
    nan = np.isnan(wide)
    key = np.where(nan, 0.0, -wide) + 0.0  # + 0.0 folds -0.0 into +0.0
    return np.lexsort((np.arange(len(wide)), indices.astype(np.int64), key, nan))


def sort32(scores: Array, indices: Array, dtype: str) -> Array:
    """TSORT32: every row's valid columns in blocks of 32 (the last may be shorter), each block
    sorted into (score, index) pairs as `_descending_order` orders them; the result has
    `sort_pair_elements` elements per source column."""
    pair = sort_pair_elements(dtype)
    rows, cols = scores.shape
    out = np.zeros((rows, cols * pair), dtype=np_dtype(dtype))
    idx = np.asarray(indices).astype(np.uint32)
    for r in range(rows):
        for start in range(0, cols, SORT_BLOCK):
            block = slice(start, min(start + SORT_BLOCK, cols))
            s, i = _as_dtype(scores[r, block], dtype), idx[r, block]
            order = _descending_order(s, i)
            out[r, start * pair:block.stop * pair] = _pack_pairs(s[order][None], i[order][None], dtype)[0]
    return out


def _merge_pick(heads: list[Array]) -> int:
    """The list whose head pair is taken: the first non-empty one, replaced by any later head
    whose score is strictly greater (TMRGSORT's scan: ties keep the earlier list)."""
    pick = -1
    best: Array | None = None
    for index, head in enumerate(heads):
        if head.size == 0:
            continue
        if best is None or bool(head > best):
            pick, best = index, head
    return pick


def _merge(lists: list[tuple[Array, Array]], out_pairs: int, exhausted: bool) -> tuple[Array, Array, list[int]]:
    """Merge sorted (scores, indices) lists; stops after `out_pairs` pairs, or (exhausted) as
    soon as one list runs out. Returns the merged scores, indices and how many pairs each list gave."""
    taken = [0] * len(lists)
    out_s: list[Array] = []
    out_i: list[int] = []
    while len(out_s) < out_pairs:
        heads = [s[taken[k]:taken[k] + 1] for k, (s, _) in enumerate(lists)]
        pick = _merge_pick([h[0:1] if h.size else h for h in heads])
        if pick < 0:
            break
        out_s.append(lists[pick][0][taken[pick]])
        out_i.append(int(lists[pick][1][taken[pick]]))
        taken[pick] += 1
        if exhausted and any(taken[k] == len(lists[k][0]) for k in range(len(lists))):
            break
    scores = np.array(out_s, dtype=lists[0][0].dtype) if out_s else np.zeros(0, lists[0][0].dtype)
    return scores, np.array(out_i, dtype=np.uint32), taken


def mrgsort_format1(src: Array, block_len: int, out_cols: int, dtype: str) -> tuple[Array, int]:
    """TMRGSORT format 1 on one row of pairs: every group of 4 consecutive sorted blocks of
    `block_len` elements (pairs included: 32 FP32 pairs are 64 elements) merges into one sorted
    run; columns after the last whole group are not written. Returns (row, columns written)."""
    pair = sort_pair_elements(dtype)
    if block_len <= 0 or block_len % pair:
        raise NumericsError(f"mrgsort block_len {block_len} must be a positive multiple of {pair} "
                            f"(the elements of one {dtype} (score, index) pair)")
    group = 4 * block_len
    out = np.zeros(out_cols, dtype=np_dtype(dtype))
    written = 0
    for base in range(0, out_cols - group + 1, group):
        lists = [unpack_pairs(src[None, base + b * block_len:base + (b + 1) * block_len], dtype) for b in range(4)]
        scores, indices, _ = _merge([(s[0], i[0]) for s, i in lists], group // pair, exhausted=False)
        out[base:base + group] = _pack_pairs(scores[None], indices[None], dtype)[0]
        written = base + group
    return out, written


def mrgsort_format2(sources: list[Array], out_cols: int, exhausted: bool, dtype: str) -> tuple[Array, list[int]]:
    """TMRGSORT format 2: merge 2 to 4 sorted rows of pairs into one row of `out_cols` elements
    (exhausted: stop when the first list runs out). Returns the row (unwritten tail 0) and the
    pairs taken from each source."""
    pair = sort_pair_elements(dtype)
    lists = [tuple(x[0] for x in unpack_pairs(src[None], dtype)) for src in sources]
    scores, indices, taken = _merge([(s, i) for s, i in lists], out_cols // pair, exhausted)
    out = np.zeros(out_cols, dtype=np_dtype(dtype))
    packed = _pack_pairs(scores[None], indices[None], dtype)[0]
    out[:packed.size] = packed
    return out, taken


# -- gathers and scatters -------------------------------------------------------------------

MASK_PATTERNS: Final[dict[int, tuple[str, int, int]]] = {
    1: ("P0101", 2, 0), 2: ("P1010", 2, 1), 3: ("P0001", 4, 0), 4: ("P0010", 4, 1),
    5: ("P0100", 4, 2), 6: ("P1000", 4, 3), 7: ("P1111", 1, 0),
}  # fmt: skip


def mask_pattern_columns(pattern: int, cols: int) -> Array:
    """The columns a MaskPattern marks (spec "Mask patterns": c % stride == phase)."""
    if pattern not in MASK_PATTERNS:
        raise NumericsError(f"unknown mask pattern {pattern}; expected 1..7")
    _, stride, phase = MASK_PATTERNS[pattern]
    return np.arange(phase, cols, stride)


def buffer_elements(indices: Array, cols: int, pitch: int) -> Array:
    """Flat positions in a buffer whose rows are `pitch` elements apart, of which the first
    `cols` hold a row of a [rows, cols] value, as positions in that value's row-major elements
    (TGATHER / TSCATTER index the padded buffer); a position in a row's padding becomes -1."""
    raw = np.asarray(indices).astype(np.int64)
    if pitch == cols:
        return raw
    row, col = np.divmod(raw, pitch)
    return np.where((raw >= 0) & (col < cols), row * cols + col, -1)


def gather_flat(src: Array, indices: Array, pitch: int | None = None) -> Array:
    """TGATHER index form: out[r, c] = src.flat[indices[r, c]] over the source's row-major
    elements; an index outside [0, src.size) reads 0 (pto-isa's bounds rule). With `pitch`,
    indices count a buffer of 2-D rows `pitch` apart (`buffer_elements`); an index into a row's
    padding is undefined (the simulator reports the read of unwritten padding) and reads 0."""
    flat = np.asarray(src).reshape(-1)
    raw = np.asarray(indices).astype(np.int64)
    if pitch is not None:
        rows, cols = np.asarray(src).shape
        inside_buffer = (raw >= 0) & (raw < rows * pitch)
        raw = np.where(inside_buffer, buffer_elements(raw, cols, pitch), -1)
    inside = (raw >= 0) & (raw < flat.size)
    picked = flat[np.where(inside, raw, 0)]
    return np.where(inside, picked, np.zeros((), dtype=flat.dtype)).astype(flat.dtype)


def scatter_flat(dst: Array, indices: Array, src: Array, pitch: int | None = None) -> Array:
    """TSCATTER index form: dst.flat[indices[r, c]] = src[r, c] in row-major order (a later
    duplicate wins); an index outside the destination is a fault, never a silent write. With
    `pitch`, indices count a buffer of 2-D rows `pitch` apart (`buffer_elements`): the fault is
    outside that buffer, and a write into a row's padding changes no element."""
    out = np.array(dst, copy=True)
    flat = out.reshape(-1)
    raw = np.asarray(indices).astype(np.int64).reshape(-1)
    size = flat.size if pitch is None else out.shape[0] * pitch
    bad = (raw < 0) | (raw >= size)
    if np.any(bad):
        raise ArithmeticFault("scatter", _first_index(bad), f"index {int(raw[bad][0])} outside the {size} "
                              "destination elements")
    if pitch is not None:
        raw = buffer_elements(raw, out.shape[1], pitch)
    values = np.asarray(src).reshape(-1)
    for position, target in enumerate(raw):
        if target >= 0:
            flat[target] = values[position]
    return out
