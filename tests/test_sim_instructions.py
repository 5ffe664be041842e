"""PTO instructions on logical tiles: pinned bits, and agreement with backend.numerics."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from backend import numerics
from backend.numerics import ArithmeticFault, hex_list
from backend.sim import instructions as ins

BF16 = ml_dtypes.bfloat16


def bits(values: np.ndarray, dtype: str) -> list[str]:
    return hex_list(values, dtype)


# -- pads ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pad", "dtype", "expected"),
    [
        ("zero", "FP16", "0x0000"),
        ("max", "FP16", "0x7c00"),
        ("min", "FP16", "0xfc00"),
        ("max", "FP32", "0x7f800000"),
        ("min", "BF16", "0xff80"),
        ("max", "INT8", "0x7f"),
        ("min", "INT8", "0x80"),
        ("min", "INT32", "0x80000000"),
        ("null", "FP16", "0xffff"),  # null leaves the bytes: poison if never written
    ],
)
def test_tload_pad_fill(pad: str, dtype: str, expected: str) -> None:
    window = np.ones((1, 2), dtype=numerics.np_dtype(dtype))
    tile = ins.tload(window, (2, 4), dtype, pad)
    assert bits(tile[:1, :2], dtype) == bits(window, dtype)
    assert set(bits(tile[1:, :], dtype)) | set(bits(tile[:, 2:], dtype)) == {expected}


def test_tload_window_larger_than_tile_is_rejected() -> None:
    with pytest.raises(ins.InstructionError, match="exceeds the tile shape"):
        ins.tload(np.zeros((3, 3), dtype=np.float32), (2, 4), "FP32", "zero")


# -- stores and moves -------------------------------------------------------------------------------


def test_tstore_from_acc_is_fixpipe_rne() -> None:
    acc = np.array([[1 + 2**-11, 1 + 3 * 2**-11, 65520.0]], dtype=np.float32)
    assert bits(ins.tstore(acc, "FP32", "FP16", from_acc=True), "FP16") == ["0x3c00", "0x3c02", "0x7c00"]
    as_int = np.array([[7, -1]], dtype=np.int32)
    assert bits(ins.tstore(as_int, "INT32", "INT32", from_acc=True), "INT32") == ["0x00000007", "0xffffffff"]


def test_tstore_vec_needs_matching_dtype() -> None:
    with pytest.raises(ins.InstructionError, match="tcvt"):
        ins.tstore(np.zeros((1, 1), dtype=np.float32), "FP32", "FP16")


def test_tmov_between_dtypes_is_rne() -> None:
    # 1 + 2^-8 + 2^-9 sits 3/4 of the way to the next bf16: RNE rounds up; -0.0 keeps its sign.
    src = np.array([[1 + 2**-8 + 2**-9, -0.0]], dtype=np.float32)
    assert bits(ins.tmov(src, "FP32", "BF16"), "BF16") == ["0x3f81", "0x8000"]


def test_textract_window_and_bounds() -> None:
    src = np.arange(64, dtype=np.float16).reshape(8, 8)
    out = ins.textract(src, 2, 4, (3, 2), "FP16", "FP16")
    assert out.tolist() == [[20, 21], [28, 29], [36, 37]]
    with pytest.raises(ins.InstructionError, match="leaves the source"):
        ins.textract(src, 6, 0, (3, 2), "FP16", "FP16")


# -- cube ------------------------------------------------------------------------------------------


def test_tmatmul_matches_numerics_and_k_split_is_exact() -> None:
    rng = np.random.default_rng(3)
    a = rng.standard_normal((16, 64)).astype(np.float16)
    b = rng.standard_normal((64, 16)).astype(np.float16)
    full = ins.tmatmul(a, b, "FP16")
    expected = numerics.matmul(a, b, np.zeros((16, 16), dtype=np.float32), "FP16")
    assert bits(full, "FP32") == bits(expected, "FP32")
    first = ins.tmatmul(a[:, :32], b[:32], "FP16")
    chained = ins.tmatmul_acc(first, a[:, 32:], b[32:], "FP16")
    assert bits(chained, "FP32") == bits(full, "FP32")


def test_tmatmul_int8_wraps_in_int32() -> None:
    a = np.full((1, 2), 127, dtype=np.int8)
    b = np.full((2, 1), 127, dtype=np.int8)
    start = np.array([[2**31 - 32258]], dtype=np.int32)  # + 2*127*127 = 2^31 + 0 -> wraps
    assert bits(ins.tmatmul_acc(start, a, b, "INT8"), "INT32") == ["0x80000000"]


def test_tmatmul_bias_initialises_the_accumulator() -> None:
    a = np.array([[1.0, 2.0]], dtype=np.float16)
    b = np.array([[3.0], [4.0]], dtype=np.float16)
    bias = np.array([[0.5]], dtype=np.float32)
    assert ins.tmatmul_bias(a, b, bias, "FP16").tolist() == [[11.5]]


def test_tmatmul_fp32_single_rounding_chain() -> None:
    # acc = RNE32(acc + a*b) with an exact product: (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 would round
    # (tie to even) to 1 + 2^-11 on its own, and again after adding 2^-24 (0x3f801000); fused
    # with the running sum 2^-24 it is exactly 1 + 2^-11 + 2^-23.
    a = np.array([[1.0, 1 + 2**-12]], dtype=np.float32)
    b = np.array([[2**-24], [1 + 2**-12]], dtype=np.float32)
    assert bits(ins.tmatmul(a, b, "FP32"), "FP32") == ["0x3f801001"]


# -- vector ----------------------------------------------------------------------------------------


def test_elementwise_binary_scalar_unary_fused() -> None:
    a = np.array([[1.0, -0.0, np.nan]], dtype=np.float32)
    b = np.array([[2.0, 0.0, 1.0]], dtype=np.float32)
    assert bits(ins.tbinary("max", a, b, "FP32"), "FP32") == bits(numerics.binary("max", a, b, "FP32"), "FP32")
    assert bits(ins.tbinary("max", a, b, "FP32"), "FP32")[:2] == ["0x40000000", "0x80000000"]
    assert bits(ins.tscalar("add", a[:, :2], 0.1, "FP32"), "FP32") == ["0x3f8ccccd", "0x3dcccccd"]
    h = np.array([[4.0, 2.0]], dtype=np.float16)
    assert bits(ins.tunary("sqrt", h, "FP16"), "FP16") == ["0x4000", "0x3da8"]
    # addc: FP32 intermediates, one rounding to fp16: 2048 + 1 + 1 = 2050 (0x6801); rounding
    # after each add would give 2048 twice (2049 is a tie to even).
    x = np.array([[2048.0]], dtype=np.float16)
    one = np.array([[1.0]], dtype=np.float16)
    assert bits(ins.tfused("addc", x, one, one, "FP16"), "FP16") == ["0x6801"]
    assert ins.texpands(1.5, (1, 2), "BF16").dtype == np.dtype(BF16)


def test_integer_division_by_zero_names_the_element() -> None:
    a = np.array([[4, 5], [6, 7]], dtype=np.int32)
    b = np.array([[1, 1], [0, 1]], dtype=np.int32)
    with pytest.raises(ArithmeticFault, match="element 2"):
        ins.tbinary("div", a, b, "INT32")


def test_reductions_are_sequential() -> None:
    x = np.array([[1e8, 1.0, -1e8, 1.0]], dtype=np.float32)
    assert bits(ins.trow_reduce("sum", x, "FP32"), "FP32") == ["0x3f800000"]
    assert ins.trow_reduce("max", x, "FP32").shape == (1, 1)
    cols = ins.tcol_reduce("sum", np.ones((3, 2), dtype=np.float16), "FP16")
    assert cols.shape == (1, 2) and bits(cols, "FP16") == ["0x4200", "0x4200"]
    with pytest.raises(ins.InstructionError):
        ins.trow_reduce("mean", x, "FP32")


def test_row_and_col_expand() -> None:
    x = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)
    col = np.array([[10.0], [20.0]], dtype=np.float32)
    assert ins.trow_expand_op("sub", x, col, "FP32").tolist() == [[-9.0, -8.0], [-17.0, -16.0]]
    assert ins.tcol_expand_op("mul", x, np.array([[2.0, 3.0]], dtype=np.float32), "FP32").tolist() == [
        [2.0, 6.0], [6.0, 12.0]]
    assert ins.trow_expand(x, col).tolist() == [[10.0, 10.0], [20.0, 20.0]]


@pytest.mark.parametrize(
    ("mode", "expected"),
    [("round", [3, -3, 4]), ("rint", [2, -2, 4]), ("floor", [2, -3, 3]), ("ceil", [3, -2, 4]),
     ("trunc", [2, -2, 3]), ("none", [2, -2, 3])],
)
def test_tcvt_modes(mode: str, expected: list[int]) -> None:
    x = np.array([[2.5, -2.5, 3.5]], dtype=np.float32)
    assert ins.tcvt(x, "FP32", "INT32", mode).tolist() == [expected]


def test_tcvt_honours_mode_float_to_float() -> None:
    x = np.array([[1 + 2**-11]], dtype=np.float32)  # a tie between two fp16 values
    assert bits(ins.tcvt(x, "FP32", "FP16", "rint"), "FP16") == ["0x3c00"]
    assert bits(ins.tcvt(x, "FP32", "FP16", "round"), "FP16") == ["0x3c01"]
    assert bits(ins.tcvt(x, "FP32", "FP16", "odd"), "FP16") == ["0x3c01"]


def test_ttrans() -> None:
    x = np.arange(6, dtype=np.int16).reshape(2, 3)
    assert ins.ttrans(x).tolist() == [[0, 3], [1, 4], [2, 5]]
