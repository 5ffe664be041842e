"""Pinned bit patterns for every rule of design/NUMERICS.md sections 1-4.

Expected values are hex bit patterns, never tolerances.  The randomised checks compare
against independent references: exact rational arithmetic (``fractions.Fraction``) and
ml_dtypes' own RNE conversions.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backend import numerics as nm

Array = npt.NDArray[Any]

FLOAT_NAMES = ["FP32", "FP16", "BF16", "FP8E4M3FN", "FP8E5M2"]


def f32(*values: float) -> Array:
    return np.array(values, dtype=np.float32)


def f32_bits(*patterns: int) -> Array:
    return nm.from_bits(np.array(patterns, dtype=np.uint32), "FP32")


def hexes(array: Array, dtype: str) -> list[str]:
    return nm.hex_list(array, dtype)


# ---------------------------------------------------------------------------------------
# An exact rational reference for rounding to any of the float formats
# ---------------------------------------------------------------------------------------

INF = "inf"


def reference_round(value: Fraction, dst: str, mode: str) -> Fraction | str:
    """Round an exact rational to ``dst`` under ``mode``; returns a Fraction, 'inf' or 'nan'.

    The sign of the result is the sign of ``value`` (zeros are handled by the caller).
    """
    fmt = nm.float_format(dst)
    magnitude = abs(value)
    negative = value < 0
    if magnitude == 0:
        return Fraction(0)
    exponent = max(math.floor(math.log2(magnitude)), fmt.min_normal_exponent)
    # log2 of a huge rational can be off by one; fix it up exactly.
    while Fraction(2) ** exponent > magnitude and exponent > fmt.min_normal_exponent:
        exponent -= 1
    while Fraction(2) ** (exponent + 1) <= magnitude:
        exponent += 1
    quantum = Fraction(2) ** (exponent - fmt.mantissa_bits)
    scaled = magnitude / quantum
    down = math.floor(scaled)
    up = down if down == scaled else down + 1
    toward_inf_magnitude = {"floor": negative, "ceil": not negative}
    if mode in ("rint", "none"):
        half = scaled - down
        chosen = down if half < Fraction(1, 2) or (half == Fraction(1, 2) and down % 2 == 0) else up
        chosen = up if half > Fraction(1, 2) else chosen
    elif mode == "round":
        chosen = up if scaled - down >= Fraction(1, 2) else down
    elif mode == "trunc":
        chosen = down
    elif mode in toward_inf_magnitude:
        chosen = up if toward_inf_magnitude[mode] else down
    else:  # odd
        chosen = down if down == scaled or down % 2 == 1 else down + 1
    result = chosen * quantum
    if result > Fraction(fmt.max_finite):
        away = mode in ("rint", "none", "round") or toward_inf_magnitude.get(mode, False)
        if away:
            return INF if fmt.has_inf else "nan"
        result = Fraction(fmt.max_finite)
    return -result if negative else result


def as_fraction_bits(result: Fraction | str, negative: bool, dst: str) -> str:
    """The expected hex pattern of a reference result."""
    if result == INF:
        return nm.hex_bits(np.array(-np.inf if negative else np.inf), dst)
    if result == "nan":
        width = nm.byte_width(dst) * 8
        return f"0x{((1 << (width - 1)) * negative) | ((1 << (width - 1)) - 1):0{width // 4}x}"
    assert isinstance(result, Fraction)
    if result == 0:
        return nm.hex_bits(np.array(-0.0 if negative else 0.0), dst)
    return nm.hex_bits(np.array(float(result)), dst)


# ---------------------------------------------------------------------------------------
# dtype table and bit helpers
# ---------------------------------------------------------------------------------------


def test_dtype_table() -> None:
    assert set(nm.DTYPES) == {
        "FP32", "FP16", "BF16", "INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16",
        "UINT32", "UINT64", "BOOL", "FP8E4M3FN", "FP8E5M2", "INDEX",
    }  # fmt: skip
    assert nm.np_dtype("INDEX") == np.dtype(np.int64)
    assert nm.np_dtype("BOOL") == np.dtype(np.bool_)
    assert [nm.byte_width(n) for n in ("FP32", "BF16", "FP8E5M2", "INT64", "BOOL")] == [4, 2, 1, 8, 1]
    assert nm.is_float("BF16") and not nm.is_float("INT8")
    assert nm.is_signed_int("INT16") and not nm.is_signed_int("UINT16")
    assert not nm.is_signed_int("FP32")
    assert nm.POISON_BYTE == 0xFF


def test_unknown_dtype_is_a_clear_error() -> None:
    with pytest.raises(nm.NumericsError, match="unknown dtype 'FP64'"):
        nm.np_dtype("FP64")


def test_bits_helpers_round_trip() -> None:
    assert nm.hex_bits(np.float16(1.0), "FP16") == "0x3c00"
    assert nm.hex_bits(np.float32(1.0), "FP32") == "0x3f800000"
    assert nm.hex_bits(np.float16(2.0**-24), "FP16") == "0x0001"
    assert nm.hex_bits(np.int8(-1), "INT8") == "0xff"
    values = nm.from_bits([0x3F80, 0xBF80], "BF16")
    assert values.dtype == nm.np_dtype("BF16")
    assert list(values.astype(np.float32)) == [1.0, -1.0]
    assert nm.to_bits(values).dtype == np.uint16


def test_poison_pattern_is_nan_in_every_float_format() -> None:
    for name in FLOAT_NAMES:
        width = nm.byte_width(name)
        poison = nm.from_bits(np.array([(1 << (8 * width)) - 1], dtype=np.uint64), name)
        assert np.isnan(poison.astype(np.float32))[0], name


# ---------------------------------------------------------------------------------------
# Casts: float -> float in every mode
# ---------------------------------------------------------------------------------------

MODES = ["rint", "round", "floor", "ceil", "trunc", "odd", "none"]

# FP32 input -> FP16 result per mode (rint, round, floor, ceil, trunc, odd, none).
FP16_CASES = {
    # 1 + 2**-11: a tie between 0x3c00 (even) and 0x3c01.
    0x3F801000: ["0x3c00", "0x3c01", "0x3c00", "0x3c01", "0x3c00", "0x3c01", "0x3c00"],
    0xBF801000: ["0xbc00", "0xbc01", "0xbc01", "0xbc00", "0xbc00", "0xbc01", "0xbc00"],
    # 1 + 3 * 2**-11: a tie between 0x3c01 and 0x3c02 (even).
    0x3F803000: ["0x3c02", "0x3c02", "0x3c01", "0x3c02", "0x3c01", "0x3c01", "0x3c02"],
    # just above the 1 + 2**-11 tie: nearest modes go up.
    0x3F801001: ["0x3c01", "0x3c01", "0x3c00", "0x3c01", "0x3c00", "0x3c01", "0x3c01"],
    # 2**-25: half the FP16 minimum subnormal.
    0x33000000: ["0x0000", "0x0001", "0x0000", "0x0001", "0x0000", "0x0001", "0x0000"],
    0xB3000000: ["0x8000", "0x8001", "0x8001", "0x8000", "0x8000", "0x8001", "0x8000"],
    # 3 * 2**-25: a subnormal tie between 0x0001 and 0x0002 (even).
    0x33C00000: ["0x0002", "0x0002", "0x0001", "0x0002", "0x0001", "0x0001", "0x0002"],
    # 100000: overflow; directed modes toward zero give max-finite 0x7bff.
    0x47C35000: ["0x7c00", "0x7c00", "0x7bff", "0x7c00", "0x7bff", "0x7bff", "0x7c00"],
    0xC7C35000: ["0xfc00", "0xfc00", "0xfc00", "0xfbff", "0xfbff", "0xfbff", "0xfc00"],
    # 65520: the overflow threshold of RNE (the tie with 65536).
    0x477FF000: ["0x7c00", "0x7c00", "0x7bff", "0x7c00", "0x7bff", "0x7bff", "0x7c00"],
    # +-inf stays inf in every mode; -0.0 stays -0.0.
    0x7F800000: ["0x7c00"] * 7,
    0xFF800000: ["0xfc00"] * 7,
    0x80000000: ["0x8000"] * 7,
}


@pytest.mark.parametrize("pattern", sorted(FP16_CASES))
def test_fp32_to_fp16_every_mode(pattern: int) -> None:
    source = f32_bits(pattern)
    got = [nm.hex_bits(nm.cast(source, "FP32", "FP16", mode), "FP16") for mode in MODES]
    assert got == FP16_CASES[pattern]


BF16_CASES = {
    # 1 + 2**-8: tie between 0x3f80 (even) and 0x3f81.
    0x3F808000: ["0x3f80", "0x3f81", "0x3f80", "0x3f81", "0x3f80", "0x3f81", "0x3f80"],
    0xBF808000: ["0xbf80", "0xbf81", "0xbf81", "0xbf80", "0xbf80", "0xbf81", "0xbf80"],
    # round-to-odd: inexact with an odd truncation keeps it.
    0x3F810001: ["0x3f81", "0x3f81", "0x3f81", "0x3f82", "0x3f81", "0x3f81", "0x3f81"],
    # FP32 max-finite overflows BF16 under nearest modes.
    0x7F7FFFFF: ["0x7f80", "0x7f80", "0x7f7f", "0x7f80", "0x7f7f", "0x7f7f", "0x7f80"],
    # FP32 subnormal 2**-140 + 2**-149: BF16 subnormal grid is 2**-133.
    0x00000201: ["0x0000", "0x0000", "0x0000", "0x0001", "0x0000", "0x0001", "0x0000"],
    # 3 * 2**-134: a tie between BF16 subnormals 0x0001 and 0x0002 (even).
    0x00018000: ["0x0002", "0x0002", "0x0001", "0x0002", "0x0001", "0x0001", "0x0002"],
}


@pytest.mark.parametrize("pattern", sorted(BF16_CASES))
def test_fp32_to_bf16_every_mode(pattern: int) -> None:
    source = f32_bits(pattern)
    got = [nm.hex_bits(nm.cast(source, "FP32", "BF16", mode), "BF16") for mode in MODES]
    assert got == BF16_CASES[pattern]


def test_fp8_overflow_rules() -> None:
    # E4M3FN has no infinity: overflow that IEEE sends to inf becomes NaN (0x7f / 0xff);
    # directions toward zero saturate at 448 (0x7e).
    big = f32(1000.0, -1000.0, 464.0, 470.0)
    assert [hexes(nm.cast(big, "FP32", "FP8E4M3FN", m), "FP8E4M3FN") for m in MODES] == [
        ["0x7f", "0xff", "0x7e", "0x7f"],  # rint: 464 is a tie -> 448 (even)
        ["0x7f", "0xff", "0x7f", "0x7f"],  # round: 464 ties away -> 480 -> NaN
        ["0x7e", "0xff", "0x7e", "0x7e"],  # floor
        ["0x7f", "0xfe", "0x7f", "0x7f"],  # ceil
        ["0x7e", "0xfe", "0x7e", "0x7e"],  # trunc
        ["0x7e", "0xfe", "0x7e", "0x7e"],  # odd: saturates like trunc
        ["0x7f", "0xff", "0x7e", "0x7f"],  # none = rint
    ]
    assert hexes(nm.cast(f32(np.inf, -np.inf), "FP32", "FP8E4M3FN", "trunc"), "FP8E4M3FN") == [
        "0x7f",
        "0xff",
    ]
    assert hexes(nm.cast(f32(1e6, -1e6), "FP32", "FP8E5M2", "trunc"), "FP8E5M2") == ["0x7b", "0xfb"]
    assert hexes(nm.cast(f32(1e6, -1e6), "FP32", "FP8E5M2", "rint"), "FP8E5M2") == ["0x7c", "0xfc"]


def test_nan_stays_quiet_nan_keeping_sign_and_top_payload() -> None:
    # Signalling FP32 NaN 0x7f800001 -> quiet FP16 NaN 0x7e00; poison 0xffffffff -> 0xffff.
    source = f32_bits(0x7F800001, 0xFFFFFFFF, 0x7FC00000)
    for mode in MODES:
        assert hexes(nm.cast(source, "FP32", "FP16", mode), "FP16") == ["0x7e00", "0xffff", "0x7e00"]
        assert hexes(nm.cast(source, "FP32", "BF16", mode), "BF16") == ["0x7fc0", "0xffff", "0x7fc0"]
        assert hexes(nm.cast(source, "FP32", "FP8E4M3FN", mode), "FP8E4M3FN") == ["0x7f", "0xff", "0x7f"]
    # Widening keeps the payload too: FP16 0x7e01 -> FP32 0x7fc02000.
    assert hexes(nm.cast(nm.from_bits([0x7E01], "FP16"), "FP16", "FP32", "rint"), "FP32") == [
        "0x7fc02000"
    ]


def test_same_type_cast_passes_bits_through() -> None:
    signalling = f32_bits(0x7F800001)
    assert hexes(nm.cast(signalling, "FP32", "FP32", "round"), "FP32") == ["0x7f800001"]


def test_widening_is_exact() -> None:
    halves = nm.from_bits([0x0001, 0x8001, 0x7BFF, 0x3555], "FP16")
    assert hexes(nm.cast(halves, "FP16", "FP32", "floor"), "FP32") == [
        "0x33800000", "0xb3800000", "0x477fe000", "0x3eaaa000",
    ]  # fmt: skip
    assert hexes(nm.cast(nm.from_bits([0x0001], "BF16"), "BF16", "FP32", "rint"), "FP32") == [
        "0x00010000"
    ]


def test_rne_agrees_with_ml_dtypes_on_random_bits() -> None:
    rng = np.random.default_rng(2024)
    source = rng.integers(0, 2**32, size=50_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    source = source[np.isfinite(source)]
    scaled = (rng.standard_normal(50_000) * rng.choice([1e-7, 1e-3, 1.0, 300.0, 6e4], 50_000))
    source = np.concatenate([source, scaled.astype(np.float32)])
    for name in ["FP16", "BF16", "FP8E4M3FN", "FP8E5M2"]:
        with np.errstate(over="ignore", invalid="ignore"):
            reference = nm.to_bits(source.astype(nm.np_dtype(name)))
        mine = nm.to_bits(nm.cast(source, "FP32", name, "rint"))
        assert np.array_equal(mine, reference), name


finite_f32 = st.floats(width=32, allow_nan=False, allow_infinity=False)


@settings(max_examples=150, deadline=None)
@given(value=finite_f32, dst=st.sampled_from(["FP16", "BF16", "FP8E4M3FN", "FP8E5M2"]),
       mode=st.sampled_from(MODES))  # fmt: skip
def test_fp32_narrowing_matches_fraction_reference(value: float, dst: str, mode: str) -> None:
    negative = math.copysign(1.0, value) < 0
    expected = as_fraction_bits(reference_round(Fraction(value), dst, mode), negative, dst)
    assert nm.hex_bits(nm.cast(f32(value), "FP32", dst, mode), dst) == expected


# ---------------------------------------------------------------------------------------
# Casts involving integers
# ---------------------------------------------------------------------------------------


def test_float_to_int_modes_both_signs() -> None:
    values = f32(2.5, -2.5, 3.5, -0.5, 2.0)
    expected = {
        "rint": [2, -2, 4, 0, 2],
        "round": [3, -3, 4, -1, 2],
        "floor": [2, -3, 3, -1, 2],
        "ceil": [3, -2, 4, 0, 2],
        "trunc": [2, -2, 3, 0, 2],
        "odd": [3, -3, 3, -1, 2],
        "none": [2, -2, 3, 0, 2],
    }
    for mode, ints in expected.items():
        assert list(nm.cast(values, "FP32", "INT32", mode)) == ints, mode


def test_float_to_int_saturates_and_nan_is_zero() -> None:
    values = f32(3e9, -3e9, np.inf, -np.inf, np.nan, 300.0, -1.0)
    assert hexes(nm.cast(values, "FP32", "INT32", "round"), "INT32") == [
        "0x7fffffff", "0x80000000", "0x7fffffff", "0x80000000", "0x00000000", "0x0000012c",
        "0xffffffff",
    ]  # fmt: skip
    assert hexes(nm.cast(values, "FP32", "INT8", "round"), "INT8") == [
        "0x7f", "0x80", "0x7f", "0x80", "0x00", "0x7f", "0xff",
    ]  # fmt: skip
    assert hexes(nm.cast(values, "FP32", "UINT8", "round"), "UINT8") == [
        "0xff", "0x00", "0xff", "0x00", "0x00", "0xff", "0x00",
    ]  # fmt: skip
    assert hexes(nm.cast(f32(1e30, -1e30), "FP32", "INT64", "trunc"), "INT64") == [
        "0x7fffffffffffffff",
        "0x8000000000000000",
    ]


def test_int_to_float_is_one_rne_rounding() -> None:
    # 2**24 + 1 is a tie in FP32 -> 2**24 (even); 2**24 + 3 -> 2**24 + 4.
    ints = np.array([2**24 + 1, 2**24 + 3, -(2**24) - 1], dtype=np.int32)
    for mode in MODES:  # int -> float ignores the mode
        assert hexes(nm.cast(ints, "INT32", "FP32", mode), "FP32") == [
            "0x4b800000", "0x4b800002", "0xcb800000",
        ]  # fmt: skip
    # 2**60 + 2**36 + 1: via a float64 intermediate it would round twice to 2**60.
    big = np.array([2**60 + 2**36 + 1], dtype=np.int64)
    assert hexes(nm.cast(big, "INT64", "FP32", "rint"), "FP32") == ["0x5d800001"]
    assert hexes(nm.cast(np.array([2**64 - 1], np.uint64), "UINT64", "FP32", "rint"), "FP32") == [
        "0x5f800000"
    ]
    assert hexes(nm.cast(np.array([70000], np.int32), "INT32", "FP16", "rint"), "FP16") == ["0x7c00"]


def test_int_to_int_wraps_and_bool() -> None:
    assert hexes(nm.cast(np.array([300, -129], np.int32), "INT32", "INT8", "round"), "INT8") == [
        "0x2c",
        "0x7f",
    ]
    assert list(nm.cast(f32(0.0, -0.0, 2.0, np.nan), "FP32", "BOOL", "round")) == [
        False, False, True, False,
    ]  # fmt: skip
    assert hexes(nm.cast(np.array([True, False]), "BOOL", "FP16", "round"), "FP16") == [
        "0x3c00",
        "0x0000",
    ]


def test_fixpipe_cast_is_always_rne() -> None:
    tie = f32_bits(0x3F801000, 0x3F808000)
    assert hexes(nm.fixpipe_cast(tie, "FP16"), "FP16") == ["0x3c00", "0x3c04"]
    assert hexes(nm.fixpipe_cast(tie, "BF16"), "BF16") == ["0x3f80", "0x3f80"]
    ints = np.array([-5], np.int32)
    assert nm.fixpipe_cast(ints, "INT32") is ints
    with pytest.raises(nm.NumericsError):
        nm.fixpipe_cast(ints, "FP16")


def test_unknown_mode_is_a_clear_error() -> None:
    with pytest.raises(nm.NumericsError, match="unknown rounding mode 'nearest'"):
        nm.cast(f32(1.0), "FP32", "FP16", "nearest")


# ---------------------------------------------------------------------------------------
# FP32 fused multiply-add
# ---------------------------------------------------------------------------------------


def fraction_fma_bits(a: float, b: float, c: float) -> str:
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        product_negative = (math.copysign(1.0, a) < 0) != (math.copysign(1.0, b) < 0)
        product_is_zero = a == 0 or b == 0
        both_negative_zeros = product_is_zero and product_negative and math.copysign(1.0, c) < 0
        return "0x80000000" if both_negative_zeros and c == 0 else "0x00000000"
    return as_fraction_bits(reference_round(exact, "FP32", "rint"), exact < 0, "FP32")


def _short_significand_f32(significand: int, exponent: int) -> float:
    value = math.ldexp(significand, exponent)
    as_f32 = float(np.float32(value)) if abs(value) < 3e38 else 0.0
    return as_f32 if as_f32 == value else 0.0


# Short significands make exact products land on ties and cancellations often.
tie_prone_f32 = st.builds(
    _short_significand_f32, st.integers(-(2**13), 2**13), st.integers(-165, 115)
)
fma_operand = st.one_of(finite_f32, tie_prone_f32)


@settings(max_examples=200, deadline=None)
@given(a=fma_operand, b=fma_operand, c=fma_operand)
def test_fma_f32_matches_fraction(a: float, b: float, c: float) -> None:
    got = nm.hex_bits(nm.fma_f32(f32(a), f32(b), f32(c)), "FP32")
    assert got == fraction_fma_bits(a, b, c)


def test_fma_f32_pinned_cases() -> None:
    cases = [
        # (1 + 2**-23) * (1 - 2**-23) - 1 = -2**-46: a separate multiply would give 0.
        ((0x3F800001, 0x3F7FFFFE, 0xBF800000), "0xa8800000"),
        # tie broken only by the product's low bits: 1 + 2**-24 + 2**-47 -> up.
        ((0x3F800001, 0x3F000000, 0x3F000000), "0x3f800000"),
        # subnormal result: 2**-75 * 2**-75 = 2**-150 is a tie with 0 -> +0; plus 2**-149 -> 2**-149 * 1.5 tie -> 2*2**-149
        ((0x1A000000, 0x1A000000, 0x00000001), "0x00000002"),
        # exact cancellation gives +0; -0 * 1 + -0 gives -0
        ((0x3F800000, 0x40000000, 0xC0000000), "0x00000000"),
        ((0x80000000, 0x3F800000, 0x80000000), "0x80000000"),
        # overflow to inf, inf * 0 = NaN, inf + -inf = NaN
        ((0x7F7FFFFF, 0x40000000, 0x00000000), "0x7f800000"),
        ((0x7F800000, 0x3F800000, 0x3F800000), "0x7f800000"),
    ]
    for (a, b, c), expected in cases:
        assert nm.hex_bits(nm.fma_f32(f32_bits(a), f32_bits(b), f32_bits(c)), "FP32") == expected
    assert np.isnan(nm.fma_f32(f32(np.inf), f32(0.0), f32(1.0)))[0]
    assert np.isnan(nm.fma_f32(f32(np.inf), f32(1.0), f32(-np.inf)))[0]


# ---------------------------------------------------------------------------------------
# Cube MAD
# ---------------------------------------------------------------------------------------


def test_matmul_is_a_fused_sequential_chain() -> None:
    # Row [1+2**-23, 2**-24 ...] x column of ones (K=3): each step rounds once.
    a = f32_bits(0x3F800001, 0x33800000, 0x33800000).reshape(1, 3)
    b = np.ones((3, 1), np.float32)
    # 1+2**-23 + 2**-24 = tie -> 1+2**-22 (even); + 2**-24 -> below half ulp -> stays.
    assert hexes(nm.matmul(a, b, np.zeros((1, 1), np.float32), "FP32"), "FP32") == ["0x3f800002"]


def test_matmul_fp32_product_is_not_rounded_first() -> None:
    a = f32_bits(0x3F800001, 0xBF800000).reshape(1, 2)
    b = f32_bits(0x3F7FFFFE, 0x3F800000).reshape(2, 1)
    # acc = 0 + a0*b0 = RNE(1 - 2**-46) = 1.0; acc = 1.0 + (-1) = 0: order-sensitive, K ascending.
    assert hexes(nm.matmul(a, b, np.zeros((1, 1), np.float32), "FP32"), "FP32") == ["0x00000000"]
    # With a start of -1 the first fused step keeps the -2**-46 residue.
    start = f32(-1.0).reshape(1, 1)
    a2 = f32_bits(0x3F800001, 0x00000000).reshape(1, 2)
    assert hexes(nm.matmul(a2, b, start, "FP32"), "FP32") == ["0xa8800000"]


def test_matmul_bf16_products_beyond_fp32_range_use_fma() -> None:
    big = nm.from_bits([0x7F00], "BF16").reshape(1, 1)  # 2**127
    a = np.concatenate([big, nm.from_bits([0x3F80], "BF16").reshape(1, 1)], axis=1)
    b = np.concatenate([big, nm.from_bits([0xFF80], "BF16").reshape(1, 1)], axis=0)  # 2**127, -inf
    result = nm.matmul(a, b, np.zeros((1, 1), np.float32), "BF16")
    assert np.isnan(result)[0, 0]  # inf (overflow) + (-inf)
    tiny = nm.from_bits([0x0D00], "BF16").reshape(1, 1)  # 2**-101; squared 2**-202 -> +0
    assert hexes(nm.matmul(tiny, tiny, f32(-0.0).reshape(1, 1), "BF16"), "FP32") == ["0x00000000"]


def test_matmul_int8_wraps_in_int32() -> None:
    a = np.full((1, 4), -128, np.int8)
    b = np.full((4, 1), -128, np.int8)
    start = np.array([[2**31 - 2**16]], np.int32)
    # 2**31 - 2**16 + 4 * 2**14 = 2**31 -> wraps to INT32_MIN.
    assert hexes(nm.matmul(a, b, start, "INT8"), "INT32") == ["0x80000000"]
    assert nm.matmul(a, b, start, "INT8").dtype == np.int32


@pytest.mark.parametrize("dtype", ["FP16", "BF16", "FP32", "INT8"])
def test_matmul_k_split_is_bit_identical(dtype: str) -> None:
    rng = np.random.default_rng(7)
    m, k, n, split = 5, 48, 7, 16
    if dtype == "INT8":
        a = rng.integers(-128, 128, (m, k)).astype(np.int8)
        b = rng.integers(-128, 128, (k, n)).astype(np.int8)
        start = np.zeros((m, n), np.int32)
    else:
        a = (rng.standard_normal((m, k)) * 2.0 ** rng.integers(-8, 8, (m, k))).astype(nm.np_dtype(dtype))
        b = rng.standard_normal((k, n)).astype(nm.np_dtype(dtype))
        start = np.zeros((m, n), np.float32)
    full = nm.matmul(a, b, start, dtype)
    partial = nm.matmul(a[:, :split], b[:split], start, dtype)
    continued = nm.matmul(a[:, split:], b[split:], partial, dtype)
    assert np.array_equal(nm.to_bits(full), nm.to_bits(continued))


def test_matmul_bias_start_is_the_first_addend() -> None:
    a = np.array([[1.0]], np.float16)
    b = np.array([[2.0**-11]], np.float16)
    bias = f32(2.0**24).reshape(1, 1)
    # 2**24 + 2**-11 rounds back to 2**24 (bias first, then the product).
    assert hexes(nm.matmul(a, b, bias, "FP16"), "FP32") == ["0x4b800000"]


def test_matmul_shape_errors() -> None:
    with pytest.raises(nm.NumericsError, match=r"\[M,K\] x \[K,N\]"):
        nm.matmul(np.zeros((2, 3), np.float16), np.zeros((4, 2), np.float16), np.zeros((2, 2), np.float32), "FP16")
    with pytest.raises(nm.NumericsError, match="unsupported"):
        nm.matmul(np.zeros((1, 1), np.int16), np.zeros((1, 1), np.int16), np.zeros((1, 1), np.int32), "INT16")


# ---------------------------------------------------------------------------------------
# Element-wise vector operations
# ---------------------------------------------------------------------------------------


def test_signed_zero_rules() -> None:
    z, nz = f32(0.0), f32(-0.0)
    assert nm.hex_bits(nm.binary("add", nz, z, "FP32"), "FP32") == "0x00000000"
    assert nm.hex_bits(nm.binary("add", nz, nz, "FP32"), "FP32") == "0x80000000"
    assert nm.hex_bits(nm.binary("sub", f32(1.0), f32(1.0), "FP32"), "FP32") == "0x00000000"
    # max(a, b) = b if b > a else a: -0.0 and +0.0 compare equal, so a is kept.
    assert nm.hex_bits(nm.binary("max", nz, z, "FP32"), "FP32") == "0x80000000"
    assert nm.hex_bits(nm.binary("max", z, nz, "FP32"), "FP32") == "0x00000000"
    assert nm.hex_bits(nm.binary("min", z, nz, "FP32"), "FP32") == "0x00000000"
    h = np.array([-0.0], np.float16)
    assert nm.hex_bits(nm.binary("add", h, np.array([0.0], np.float16), "FP16"), "FP16") == "0x0000"


def test_max_min_nan_placement() -> None:
    nan, one = f32(np.nan), f32(1.0)
    assert np.isnan(nm.binary("max", nan, one, "FP32"))[0]
    assert nm.hex_bits(nm.binary("max", one, nan, "FP32"), "FP32") == "0x3f800000"
    assert np.isnan(nm.binary("min", nan, one, "FP32"))[0]
    assert nm.hex_bits(nm.binary("min", one, nan, "FP32"), "FP32") == "0x3f800000"
    half_nan = nm.from_bits([0x7E00], "FP16")
    half_one = nm.from_bits([0x3C00], "FP16")
    assert hexes(nm.binary("max", half_nan, half_one, "FP16"), "FP16") == ["0x7e00"]
    assert hexes(nm.binary("max", half_one, half_nan, "FP16"), "FP16") == ["0x3c00"]
    assert nm.hex_bits(nm.scalar_binary("maxs", one, float("nan"), "FP32"), "FP32") == "0x3f800000"


@pytest.mark.parametrize("dtype, nans, one", [
    ("FP32", [0x7F800001, 0xFFA00000, 0x7FC00001], 0x3F800000),
    ("FP16", [0x7C01, 0xFD00, 0x7E01], 0x3C00),
    ("BF16", [0x7F81, 0xFFA0, 0x7FC1], 0x3F80),
])
def test_max_min_select_the_operand_bits_in_every_format(dtype: str, nans: list[int], one: int) -> None:
    # max / min choose an operand: a signalling NaN in `a` comes out as it went in (not quieted
    # by a float64 round trip), as relu and the row / column max keep it.
    a = nm.from_bits(nans, dtype)
    b = nm.from_bits([one] * len(nans), dtype)
    for op in ("max", "min"):
        assert hexes(nm.binary(op, a, b, dtype), dtype) == hexes(a, dtype)
        assert hexes(nm.binary(op, b, a, dtype), dtype) == hexes(b, dtype)
        assert hexes(nm.scalar_binary(op + "s", a, 1.0, dtype), dtype) == hexes(a, dtype)


def test_fp16_and_bf16_ops_round_once() -> None:
    a = nm.from_bits([0x3C00, 0x3C00, 0x0001, 0x7BFF], "FP16")
    b = nm.from_bits([0x1000, 0x1001, 0x3800, 0x7BFF], "FP16")  # 2**-11, 2**-11 + ulp, 0.5, max
    assert hexes(nm.binary("add", a, b, "FP16"), "FP16") == ["0x3c00", "0x3c01", "0x3800", "0x7c00"]
    # 2**-24 * 0.5 = 2**-25: a tie to 0.
    assert hexes(nm.binary("mul", a, b, "FP16"), "FP16")[2] == "0x0000"
    assert hexes(nm.binary("div", a[:1], nm.from_bits([0x4200], "FP16"), "FP16"), "FP16") == ["0x3555"]
    bf_a = nm.from_bits([0x3F80, 0x0080], "BF16")  # 1, 2**-126
    bf_b = nm.from_bits([0x3B80, 0x3F00], "BF16")  # 2**-8, 0.5
    assert hexes(nm.binary("add", bf_a, bf_b, "BF16"), "BF16") == ["0x3f80", "0x3f00"]
    assert hexes(nm.binary("mul", bf_a, bf_b, "BF16"), "BF16") == ["0x3b80", "0x0040"]
    assert hexes(nm.binary("div", nm.from_bits([0x3F80], "BF16"), nm.from_bits([0x0000], "BF16"), "BF16"), "BF16") == [
        "0x7f80"
    ]


def test_fp32_subnormal_results() -> None:
    tiny = f32_bits(0x1E800000)  # 2**-66
    assert nm.hex_bits(nm.binary("mul", tiny, tiny, "FP32"), "FP32") == "0x00020000"  # 2**-132
    assert nm.hex_bits(nm.binary("div", f32_bits(0x00800000), f32(4.0), "FP32"), "FP32") == "0x00200000"


@settings(max_examples=100, deadline=None)
@given(
    a=st.integers(0, 0xFFFF), b=st.integers(0, 0xFFFF),
    op=st.sampled_from(["add", "sub", "mul", "div"]), dtype=st.sampled_from(["FP16", "BF16"]),
)  # fmt: skip
def test_narrow_float_ops_match_fraction(a: int, b: int, op: str, dtype: str) -> None:
    x, y = nm.from_bits([a], dtype), nm.from_bits([b], dtype)
    fx, fy = float(x.astype(np.float64)[0]), float(y.astype(np.float64)[0])
    if not (math.isfinite(fx) and math.isfinite(fy)) or (op == "div" and fy == 0.0):
        return
    got = nm.hex_bits(nm.binary(op, x, y, dtype), dtype)
    exact = {"add": Fraction(fx) + Fraction(fy), "sub": Fraction(fx) - Fraction(fy),
             "mul": Fraction(fx) * Fraction(fy)}.get(op)  # fmt: skip
    exact = Fraction(fx) / Fraction(fy) if exact is None else exact
    if exact == 0:
        assert int(got, 16) & ((1 << 15) - 1) == 0  # a zero; its sign is IEEE's business
        return
    assert got == as_fraction_bits(reference_round(exact, dtype, "rint"), exact < 0, dtype)


def test_unary_ops() -> None:
    x = f32(4.0, -2.0, 0.0, -0.0)
    assert hexes(nm.unary("neg", x, "FP32"), "FP32") == ["0xc0800000", "0x40000000", "0x80000000", "0x00000000"]
    assert hexes(nm.unary("abs", x, "FP32"), "FP32") == ["0x40800000", "0x40000000", "0x00000000", "0x00000000"]
    # relu(x) = max(x, 0) under the max rule: -0.0 and NaN pass through.
    relu_in = f32_bits(0xC0000000, 0x80000000, 0x7FC00001, 0x3F800000)
    assert hexes(nm.unary("relu", relu_in, "FP32"), "FP32") == [
        "0x00000000", "0x80000000", "0x7fc00001", "0x3f800000",
    ]  # fmt: skip
    assert hexes(nm.unary("sqrt", f32(2.0), "FP32"), "FP32") == ["0x3fb504f3"]
    assert hexes(nm.unary("rsqrt", f32(4.0, 0.0), "FP32"), "FP32") == ["0x3f000000", "0x7f800000"]
    assert hexes(nm.unary("rec", f32(3.0), "FP32"), "FP32") == ["0x3eaaaaab"]
    assert hexes(nm.unary("rec", np.array([3.0], np.float16), "FP16"), "FP16") == ["0x3555"]
    assert hexes(nm.unary("exp", np.array([1.0], np.float16), "FP16"), "FP16") == ["0x4170"]
    assert hexes(nm.unary("exp", f32(1.0), "FP32"), "FP32") == ["0x402df854"]
    assert hexes(nm.unary("log", f32(0.0, -1.0), "FP32"), "FP32")[0] == "0xff800000"
    assert np.isnan(nm.unary("log", f32(-1.0), "FP32"))[0]
    assert hexes(nm.unary("tanh", nm.from_bits([0x4040], "BF16"), "BF16"), "BF16") == ["0x3f7f"]
    assert hexes(nm.unary("sin", f32(0.0), "FP32"), "FP32") == ["0x00000000"]
    assert hexes(nm.unary("cos", f32(0.0), "FP32"), "FP32") == ["0x3f800000"]


def test_integer_unary_ops_wrap() -> None:
    x = np.array([-128, 5, 0], np.int8)
    assert hexes(nm.unary("neg", x, "INT8"), "INT8") == ["0x80", "0xfb", "0x00"]
    assert hexes(nm.unary("abs", x, "INT8"), "INT8") == ["0x80", "0x05", "0x00"]
    assert hexes(nm.unary("not", np.array([0x00FF], np.uint16), "UINT16"), "UINT16") == ["0xff00"]
    assert hexes(nm.unary("relu", x, "INT8"), "INT8") == ["0x00", "0x05", "0x00"]
    with pytest.raises(nm.NumericsError, match="sqrt"):
        nm.unary("sqrt", x, "INT8")


def test_integer_binary_ops() -> None:
    a = np.array([2**31 - 1, -7, 7, -8], np.int32)
    b = np.array([1, 2, -2, 1], np.int32)
    assert hexes(nm.binary("add", a, b, "INT32"), "INT32")[0] == "0x80000000"
    assert list(nm.binary("div", a, b, "INT32")) == [2**31 - 1, -3, -3, -8]
    # fmod truncates (C %); rem takes the divisor's sign (pto-isa TREM adds b when signs differ).
    assert list(nm.binary("fmod", a, b, "INT32")) == [0, -1, 1, 0]
    assert list(nm.binary("rem", a, b, "INT32")) == [0, 1, -1, 0]
    assert list(nm.binary("shr", a[1:], b[1:] * 0 + 1, "INT32")) == [-4, 3, -4]
    unsigned = np.array([0xFFFFFFF8], np.uint32)
    assert hexes(nm.binary("shr", unsigned, np.array([1], np.uint32), "UINT32"), "UINT32") == ["0x7ffffffc"]
    assert hexes(nm.binary("shl", np.array([0x41], np.int8), np.array([1], np.int8), "INT8"), "INT8") == ["0x82"]
    assert list(nm.binary("div", np.array([-(2**31)], np.int32), np.array([-1], np.int32), "INT32")) == [-(2**31)]
    bits = np.array([0b1100], np.int16), np.array([0b1010], np.int16)
    assert [int(nm.binary(op, *bits, "INT16")[0]) for op in ("and", "or", "xor")] == [8, 14, 6]
    assert list(nm.binary("max", np.array([3, -3], np.int8), np.array([-5, 5], np.int8), "INT8")) == [3, 5]


def test_integer_division_by_zero_is_an_arithmetic_fault() -> None:
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    b = np.array([[1, 1, 1], [1, 0, 0]], np.int32)
    with pytest.raises(nm.ArithmeticFault) as caught:
        nm.binary("div", a, b, "INT32")
    assert caught.value.op == "div" and caught.value.flat_index == 4
    with pytest.raises(nm.ArithmeticFault, match="rem: integer division by zero at element 0"):
        nm.binary("rem", a[:1], np.zeros((1, 3), np.int32), "INT32")
    with pytest.raises(nm.ArithmeticFault, match="shift count"):
        nm.binary("shl", a, np.full((2, 3), 32, np.int32), "INT32")


def test_scalar_is_converted_to_tile_type_first() -> None:
    one = np.array([1.0], np.float16)
    # 2**-11 + 2**-22 rounds to 2**-11 in FP16, and 1 + 2**-11 is then a tie -> 1.0.
    assert hexes(nm.scalar_binary("adds", one, 2.0**-11 + 2.0**-22, "FP16"), "FP16") == ["0x3c00"]
    assert hexes(nm.scalar_binary("muls", f32(3.0), 0.1, "FP32"), "FP32") == ["0x3e99999a"]
    assert hexes(nm.scalar_binary("divs", f32(2.0), 1.0, "FP32", scalar_first=True), "FP32") == ["0x3f000000"]
    assert list(nm.scalar_binary("adds", np.array([250], np.uint8), 10, "UINT8")) == [4]
    assert list(nm.scalar_binary("subs", np.array([0], np.int8), -1, "INT8")) == [1]
    with pytest.raises(nm.NumericsError, match="not an integer"):
        nm.scalar_binary("adds", np.array([1], np.int32), 0.5, "INT32")


def test_fused_ops_round_once_at_the_end() -> None:
    a, b, c = (np.array([v], np.float16) for v in (1.0, 2.0**-11, 2.0**-11))
    assert hexes(nm.fused("addc", a, b, c, "FP16"), "FP16") == ["0x3c01"]
    # The same chain as two single ops rounds twice and loses the carry.
    two_ops = nm.binary("add", nm.binary("add", a, b, "FP16"), c, "FP16")
    assert hexes(two_ops, "FP16") == ["0x3c00"]
    assert hexes(nm.fused("subc", a, -b, c, "FP16"), "FP16") == ["0x3c01"]
    assert hexes(nm.fused("addsc", a, 2.0**-11, c, "FP16"), "FP16") == ["0x3c01"]
    assert hexes(nm.fused("subsc", a, -(2.0**-11), c, "FP16"), "FP16") == ["0x3c01"]
    ints = np.array([2**31 - 1], np.int32)
    assert hexes(nm.fused("addc", ints, ints * 0 + 1, ints * 0, "INT32"), "INT32") == ["0x80000000"]


def test_unsupported_ops_are_clear_errors() -> None:
    with pytest.raises(nm.NumericsError, match="'shl' is not defined on float"):
        nm.binary("shl", f32(1.0), f32(1.0), "FP32")
    with pytest.raises(nm.NumericsError, match="unknown fused op"):
        nm.fused("mulc", f32(1.0), f32(1.0), f32(1.0), "FP32")


# ---------------------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------------------


def test_row_sum_is_sequential_not_pairwise() -> None:
    row = np.full((1, 128), 2.0**-24, np.float32)
    row[0, 0] = 1.0
    # Sequentially every 1 + 2**-24 is a tie back to 1.0; pairwise summation is larger.
    assert hexes(nm.row_sum(row, "FP32"), "FP32") == ["0x3f800000"]
    assert nm.hex_bits(np.add.reduce(row, axis=1), "FP32") != "0x3f800000"


def test_row_sum_starts_at_plus_zero_and_rounds_once() -> None:
    assert hexes(nm.row_sum(f32(-0.0, -0.0).reshape(1, 2), "FP32"), "FP32") == ["0x00000000"]
    halves = np.array([[2048.0, 1.0, 1.0]], np.float16)
    # FP32 accumulator: 2050 exactly, then one rounding to FP16.
    assert hexes(nm.row_sum(halves, "FP16"), "FP16") == ["0x6801"]
    # col_sum accumulates in the destination type: 2048 + 1 is a tie -> 2048, twice.
    assert hexes(nm.col_sum(halves.T, "FP16"), "FP16") == ["0x6800"]
    assert hexes(nm.row_sum(np.array([[100, 100]], np.int8), "INT8"), "INT8") == ["0xc8"]
    assert hexes(nm.row_sum(np.array([[100, 100]], np.int8), "INT32"), "INT32") == ["0x000000c8"]


def test_max_min_reductions_start_at_element_zero() -> None:
    x = f32(1.0, np.nan, 2.0, np.nan, -1.0, 3.0).reshape(2, 3)
    assert hexes(nm.row_max(x, "FP32"), "FP32") == ["0x40000000", "0x7fc00000"]
    assert hexes(nm.row_min(x, "FP32"), "FP32") == ["0x3f800000", "0x7fc00000"]
    # A NaN met later is never > m (column 0); a NaN at element 0 sticks (column 1).
    assert hexes(nm.col_max(x, "FP32"), "FP32") == ["0x3f800000", "0x7fc00000", "0x40400000"]
    assert hexes(nm.col_min(x, "FP32"), "FP32") == ["0x3f800000", "0x7fc00000", "0x40000000"]
    zeros = f32(-0.0, 0.0).reshape(1, 2)
    assert hexes(nm.row_max(zeros, "FP32"), "FP32") == ["0x80000000"]


def test_prod_reductions_round_every_step() -> None:
    x = np.array([[1.0 + 2.0**-10, 1.0 + 2.0**-10, 1.0 + 2.0**-10]], np.float16)
    # (1+u)^2 = 1 + 2u + u^2 -> 1 + 2u (u^2 dropped), then * (1+u) -> 1 + 3u (rounded again).
    assert hexes(nm.row_prod(x, "FP16"), "FP16") == ["0x3c03"]
    assert hexes(nm.col_prod(x.T, "FP16"), "FP16") == ["0x3c03"]
    assert hexes(nm.col_prod(np.array([[16], [16]], np.uint8), "UINT8"), "UINT8") == ["0x00"]


def test_reduction_shapes_and_errors() -> None:
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert nm.row_sum(x, "FP32").shape == (3,)
    assert nm.col_sum(x, "FP32").shape == (4,)
    assert list(nm.col_sum(x, "FP32")) == [12.0, 15.0, 18.0, 21.0]
    with pytest.raises(nm.NumericsError, match="2-D"):
        nm.row_sum(np.zeros(3, np.float32), "FP32")
    with pytest.raises(nm.NumericsError, match="empty"):
        nm.row_max(np.zeros((2, 0), np.float32), "FP32")
