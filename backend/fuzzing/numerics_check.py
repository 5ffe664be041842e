"""An independent check of `backend.numerics`, run inside every fuzz campaign.

The simulator and the interpreter share `backend.numerics`: a wrong rounding there makes both
sides agree on the wrong bits, and no comparison between them can see it. So the fuzz target
also checks the shared arithmetic against a second implementation that shares nothing with
it: exact rational arithmetic (`fractions.Fraction`) rounded by the rules of NUMERICS.md
written out again here, with ml_dtypes / NumPy only holding the formats' bit patterns.

What is checked, per program (the fuzz target's seed picks the inputs):
- float add / sub / mul / div in FP32, FP16 and BF16 (one RNE rounding of the exact result,
  IEEE signed zeros, overflow to infinity);
- float -> float narrowing casts under every rounding mode (rint, round, floor, ceil, trunc,
  odd, none), overflow to infinity or max-finite by the mode's direction;
- integer add / sub / mul wrapping in every integer width.

Inputs are random bit patterns (finite ones) plus the corners where roundings go wrong: signed
zeros, the smallest subnormal, the largest finite value, 1 and its neighbours, and values
exactly half an ulp between two representable ones.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

import ml_dtypes
import numpy as np

from backend import numerics


@dataclass(frozen=True)
class _Format:
    dtype: Any  # the NumPy / ml_dtypes scalar type holding the bits
    precision: int  # significand bits, the implicit one included
    min_exponent: int  # of the smallest normal number
    max_exponent: int  # of the largest finite number
    bits: Any  # the unsigned integer type of the same width


FORMATS: dict[str, _Format] = {
    "FP32": _Format(np.float32, 24, -126, 127, np.uint32),
    "FP16": _Format(np.float16, 11, -14, 15, np.uint16),
    "BF16": _Format(ml_dtypes.bfloat16, 8, -126, 127, np.uint16),
}
INTEGERS: dict[str, Any] = {"INT8": np.int8, "INT16": np.int16, "INT32": np.int32,
                            "UINT8": np.uint8, "UINT16": np.uint16, "UINT32": np.uint32}
MODES = ("rint", "round", "floor", "ceil", "trunc", "odd", "none")
NARROWING = (("FP32", "FP16"), ("FP32", "BF16"), ("FP16", "BF16"), ("BF16", "FP16"))
_EXACT: dict[str, Callable[[Fraction, Fraction], Fraction]] = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b, "div": lambda a, b: a / b,
}


class NumericsMismatch(Exception):
    """backend.numerics disagrees with the exact reference."""


@functools.lru_cache(maxsize=None)
def _max_finite(fmt: _Format) -> Fraction:
    return (2 - Fraction(1, 2 ** (fmt.precision - 1))) * Fraction(2) ** fmt.max_exponent


def _floor_log2(value: Fraction) -> int:
    exponent = value.numerator.bit_length() - value.denominator.bit_length()
    if Fraction(2) ** exponent > value:
        exponent -= 1
    elif Fraction(2) ** (exponent + 1) <= value:
        exponent += 1
    return exponent


def round_exact(value: Fraction, fmt: _Format, mode: str, negative_zero: bool = False) -> float:
    """`value` rounded to `fmt` under `mode` (NUMERICS.md section 4), as a float64 holding the
    result exactly (or +-inf); `negative_zero` is the sign of a zero result the value cannot tell."""
    if mode == "none":
        mode = "rint"
    negative = value < 0 or (value == 0 and negative_zero)
    magnitude = abs(value)
    if magnitude == 0:
        return -0.0 if negative else 0.0
    exponent = max(_floor_log2(magnitude), fmt.min_exponent)
    quantum = Fraction(2) ** (exponent - (fmt.precision - 1))
    scaled = magnitude / quantum
    whole = scaled.numerator // scaled.denominator
    rest = scaled - whole
    up = {
        "rint": rest > Fraction(1, 2) or (rest == Fraction(1, 2) and whole % 2 == 1),
        "round": rest >= Fraction(1, 2),
        "trunc": False,
        "floor": negative and rest > 0,
        "ceil": not negative and rest > 0,
        "odd": rest > 0 and whole % 2 == 0,
    }[mode]
    rounded = (whole + int(up)) * quantum
    if rounded > _max_finite(fmt):
        away = {"rint": True, "round": True, "trunc": False, "odd": False, "floor": negative,
                "ceil": not negative}[mode]
        result = float("inf") if away else float(_max_finite(fmt))
    else:
        result = float(rounded)  # exact: every format here fits in float64
    return -result if negative else result


def _bits(values: Any, fmt: _Format) -> Any:
    return np.asarray(values, dtype=fmt.dtype).view(fmt.bits)


def corner_values(dtype: str, rng: np.random.Generator, count: int) -> Any:
    """`count` finite values of `dtype`: the corners first, then random bit patterns."""
    fmt = FORMATS[dtype]
    one = np.asarray(1.0, dtype=fmt.dtype).view(fmt.bits).item()
    width = np.dtype(fmt.bits).itemsize * 8
    sign = 1 << (width - 1)
    max_bits = np.asarray(float(_max_finite(fmt)), dtype=fmt.dtype).view(fmt.bits).item()
    corners = [0, sign, 1, 1 | sign, max_bits, max_bits | sign, one, one + 1, one - 1, one | sign, max_bits - 1]
    drawn = rng.integers(0, 1 << width, size=max(0, count - len(corners)), dtype=np.uint64)
    patterns = np.asarray(corners + [int(b) for b in drawn], dtype=np.uint64).astype(fmt.bits)
    values = patterns.view(fmt.dtype)
    with np.errstate(invalid="ignore"):
        finite = np.isfinite(values.astype(np.float64))
    return values[finite]


def _describe(dtype: str, values: Any) -> str:
    return ", ".join(numerics.hex_bits(v, dtype) for v in np.asarray(values).reshape(-1)[:4])


def check_float_arithmetic(dtype: str, rng: np.random.Generator, count: int = 24) -> None:
    fmt = FORMATS[dtype]
    a = corner_values(dtype, rng, count)
    b = rng.permutation(corner_values(dtype, rng, count))[: len(a)]
    a = a[: len(b)]
    for op, exact in _EXACT.items():
        pairs = [(x, y) for x, y in zip(a, b) if not (op == "div" and float(y) == 0.0)]
        if not pairs:
            continue
        xs = np.asarray([p[0] for p in pairs], dtype=fmt.dtype)
        ys = np.asarray([p[1] for p in pairs], dtype=fmt.dtype)
        got = _bits(numerics.binary(op, xs, ys, dtype), fmt)
        want = []
        for x, y in zip(xs, ys):
            fx, fy = float(x), float(y)
            value = exact(Fraction(fx), Fraction(fy))
            if op in ("mul", "div"):
                zero_sign = np.signbit(fx) != np.signbit(fy)
            else:  # an exact zero sum is +0 under RNE unless both addends are -0
                zero_sign = bool(np.signbit(fx) and np.signbit(fy if op == "add" else -fy))
            want.append(round_exact(value, fmt, "rint", zero_sign))
        expected = _bits(np.asarray(want, dtype=np.float64).astype(fmt.dtype), fmt)
        _compare(f"binary {op} in {dtype}", dtype, got, expected, xs, ys)


def check_narrowing_casts(rng: np.random.Generator, count: int = 24,
                          pairs: tuple[tuple[str, str], ...] = NARROWING) -> None:
    for src, dst in pairs:
        xs = corner_values(src, rng, count)
        fmt = FORMATS[dst]
        for mode in MODES:
            got = _bits(numerics.cast(xs, src, dst, mode), fmt)
            want = [round_exact(Fraction(float(x)), fmt, mode, bool(np.signbit(float(x)))) for x in xs]
            expected = _bits(np.asarray(want, dtype=np.float64).astype(fmt.dtype), fmt)
            _compare(f"cast {src} -> {dst} mode={mode}", dst, got, expected, xs, None)


def check_integer_wrapping(rng: np.random.Generator, count: int = 24,
                           dtypes: tuple[str, ...] = tuple(INTEGERS)) -> None:
    for dtype in dtypes:
        kind = INTEGERS[dtype]
        info = np.iinfo(kind)
        corners = [0, 1, -1 if info.min < 0 else 2, info.min, info.max]
        drawn = rng.integers(info.min, int(info.max) + 1, size=count, dtype=np.int64).tolist()
        xs = np.asarray(corners + drawn[: count - len(corners)], dtype=np.int64)
        ys = rng.permutation(np.asarray(corners + drawn[len(corners):], dtype=np.int64))[: len(xs)]
        xs = xs[: len(ys)]
        span = 1 << (np.dtype(kind).itemsize * 8)
        for op, exact in (("add", int.__add__), ("sub", int.__sub__), ("mul", int.__mul__)):
            got = numerics.binary(op, xs.astype(kind), ys.astype(kind), dtype).astype(np.int64)
            want = []
            for x, y in zip(xs.tolist(), ys.tolist()):
                wrapped = exact(x, y) % span
                want.append(wrapped - span if wrapped > info.max else wrapped)
            if not np.array_equal(got, np.asarray(want, dtype=np.int64)):
                bad = int(np.argmax(got != np.asarray(want)))
                raise NumericsMismatch(f"binary {op} in {dtype}: {xs[bad]} {op} {ys[bad]} gave {got[bad]}, "
                                       f"the wrapped exact result is {want[bad]}")


def _compare(what: str, dtype: str, got: Any, expected: Any, xs: Any, ys: Any) -> None:
    if np.array_equal(got, expected):
        return
    bad = int(np.argmax(got != expected))
    operands = _describe(_name(xs), xs[bad:bad + 1])
    if ys is not None:
        operands += ", " + _describe(_name(ys), ys[bad:bad + 1])
    raise NumericsMismatch(f"{what}: operands {operands} gave {hex(int(got[bad]))}, the exact reference "
                           f"rounds to {hex(int(expected[bad]))} ({int(np.sum(got != expected))} of {len(got)} differ)")


def _name(values: Any) -> str:
    for name, fmt in FORMATS.items():
        if np.asarray(values).dtype == np.dtype(fmt.dtype):
            return name
    return "FP32"


def self_check(seed: int, count: int = 12) -> str | None:
    """None when backend.numerics agrees with the exact reference on this seed's inputs, else
    what differs (the fuzz target reports it as a failure blamed on backend.numerics). Each seed
    checks one float format's arithmetic, one narrowing cast under every mode and one integer
    width, in rotation, so a campaign covers them all within its first dozen programs."""
    rng = np.random.default_rng(seed)
    floats, ints = tuple(FORMATS), tuple(INTEGERS)
    try:
        check_float_arithmetic(floats[seed % len(floats)], rng, count)
        check_narrowing_casts(rng, count, (NARROWING[seed % len(NARROWING)],))
        check_integer_wrapping(rng, count, (ints[seed % len(ints)],))
    except NumericsMismatch as err:
        return str(err)
    return None


__all__ = ["FORMATS", "NumericsMismatch", "round_exact", "self_check"]
