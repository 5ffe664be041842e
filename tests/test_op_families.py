"""NUMERICS-style rules of the catalog's op families, pinned as bit patterns (backend/numerics.py
is what the interpreter and the simulator share; these tests are the rules it must keep):

- compares are IEEE on floats (a NaN is unordered, only `ne` holds; -0.0 == +0.0) and produce a
  packed predicate mask: bit c % 8 of byte c // 8 of the row, every other bit 0;
- select takes the first value where the mask bit is set; sels the scalar elsewhere;
- PReLU keeps x where x > 0 and rounds x * slope elsewhere (NaN and -0.0 take the product);
- fmod keeps the dividend's sign, rem the divisor's (pto-isa TREM adds the divisor, rounded);
- a shift count outside [0, width) is a reported fault, like an integer division by zero;
- sort32 sorts each 32-column block by score descending, equal scores by index ascending
  (-0.0 equals +0.0), NaN last; pairs are 8 bytes (an FP16 score is followed by 2 zero bytes);
- mrgsort takes the strictly greater head, so ties keep the earlier list; format 1 merges every
  group of four blocks and leaves the tail unwritten; `exhausted` stops when one list runs out;
- gather reads 0 for an index outside the source; scatter faults on one, a later duplicate wins;
- ci wraps in its integer dtype; tri marks c <= r + d (lower) / c >= r + d (upper);
- expdif rounds the difference before exp; part_* passes the one valid operand's value.
"""

from __future__ import annotations

import numpy as np
import pytest

from backend import numerics as nm


def f32(*values: float) -> np.ndarray:
    return np.array(values, np.float32)


def hexes(array: np.ndarray, dtype: str) -> list[str]:
    return nm.hex_list(array, dtype)


# -- compares and masks ----------------------------------------------------------------------------


def test_compares_are_ieee_with_nan_unordered_and_signed_zeros_equal() -> None:
    a = f32(1.0, float("nan"), -0.0, 2.0)
    b = f32(1.0, float("nan"), 0.0, 1.0)
    assert nm.compare("eq", a, b, "FP32").tolist() == [True, False, True, False]
    assert nm.compare("ne", a, b, "FP32").tolist() == [False, True, False, True]
    assert nm.compare("lt", a, b, "FP32").tolist() == [False, False, False, False]
    assert nm.compare("ge", a, b, "FP32").tolist() == [True, False, True, True]
    ints = np.array([-1, 0, 5], np.int32)
    assert nm.compare("gt", ints, 0, "INT32").tolist() == [False, False, True]


def test_mask_packs_lsb_first_per_row_and_poisons_the_rest() -> None:
    # TCMP / TCMPS define only the bits of the compared columns: the bits past them in the last
    # word, and every other word, hold the poison pattern (ones), not zeros (nothing zeroes the
    # mask on chip; pto-isa's CPU model does).
    bits = np.zeros((2, 17), bool)
    bits[0, [0, 2, 16]] = True
    bits[1, 9] = True
    mask = nm.pack_mask(bits, (2, 32), "UINT8")
    assert mask[0, :4].tolist() == [0b101, 0, 0xFF, 0xFF] and mask[1, :3].tolist() == [0, 0b10, 0xFE]
    assert (mask[:, 3:] == 0xFF).all()
    assert nm.packed_mask_words(bits, "UINT8").shape == (2, 3)
    assert (nm.unpack_mask(mask, 2, 17) == bits).all()
    wide = nm.pack_mask(bits, (2, 1), "UINT32")
    assert hexes(wide, "UINT32") == ["0xffff0005", "0xfffe0200"]
    assert (nm.unpack_mask(wide, 2, 17) == bits).all()


def test_select_picks_by_bit_and_sels_takes_the_scalar() -> None:
    bits = np.array([[True, False, True]])
    a, b = f32(1.0, 2.0, 3.0)[None], f32(-1.0, -2.0, -3.0)[None]
    assert nm.select(bits, a, b, "FP32").tolist() == [[1.0, -2.0, 3.0]]
    assert nm.select(bits, a, 0.1, "FP32").tolist()[0][1] == float(np.float32(0.1))


# -- element-wise ---------------------------------------------------------------------------------


def test_prelu_keeps_positive_values_and_rounds_the_product() -> None:
    x = f32(2.0, -3.0, -0.0, float("nan"), 0.0)
    out = nm.prelu(x, 0.1, "FP32")
    assert hexes(out, "FP32") == ["0x40000000", "0xbe99999a", "0x80000000", "0x7fc00000", "0x00000000"]
    slope = f32(0.5, 0.5, 0.5, 0.5, 0.5)
    assert nm.prelu(x, slope, "FP32")[1] == np.float32(-1.5)


def test_fmod_keeps_the_dividend_sign_and_rem_the_divisor_sign() -> None:
    a, b = f32(-7.5, 7.5, 6.0), f32(2.0, -2.0, 3.0)
    assert nm.binary("fmod", a, b, "FP32").tolist() == [-1.5, 1.5, 0.0]
    assert nm.binary("rem", a, b, "FP32").tolist() == [0.5, -0.5, 0.0]
    # The moved remainder r + b rounds once in T: -2**-24 + 1 is exact, -2**-25 + 1 is not.
    tiny = np.array([-(2.0 ** -12)], np.float16)
    assert hexes(nm.binary("rem", tiny, np.array([1.0], np.float16), "FP16"), "FP16") == ["0x3c00"]


def test_shift_counts_outside_the_width_fault() -> None:
    x = np.array([-8], np.int16)
    assert nm.binary("shr", x, np.array([1], np.int16), "INT16").tolist() == [-4]
    assert hexes(nm.binary("shl", x, np.array([13], np.int16), "INT16"), "INT16") == ["0x0000"]
    with pytest.raises(nm.ArithmeticFault, match=r"shift count outside \[0, 16\)"):
        nm.binary("shl", x, np.array([16], np.int16), "INT16")
    with pytest.raises(nm.ArithmeticFault, match="shift count"):
        nm.scalar_binary("shrs", x, -1, "INT16")


def test_expdif_rounds_the_difference_first() -> None:
    x, y = np.array([1.0], np.float16), np.array([2.0 ** -12], np.float16)
    # 1 - 2**-12 rounds to 1 in FP16, so exp(1) -- not exp(0.99976) -- is rounded to FP16.
    assert hexes(nm.expdif(x, y, "FP16"), "FP16") == hexes(nm.unary("exp", x, "FP16"), "FP16")


def test_partial_ops_pass_the_one_valid_value_and_zero_elsewhere() -> None:
    a = f32(1.0, 2.0)[None]  # valid [1, 2]
    b = np.array([[10.0], [20.0]], np.float32)  # valid [2, 1]
    out = nm.partial("add", a, b, (2, 2), "FP32")
    assert out.tolist() == [[11.0, 2.0], [20.0, 0.0]]


def test_ci_wraps_and_tri_marks_the_diagonal_band() -> None:
    assert nm.sequence(32766, 3, False, "INT16").tolist() == [32766, 32767, -32768]
    assert nm.sequence(1, 3, True, "INT32").tolist() == [1, 0, -1]
    assert nm.triangle(3, 3, 0, False, "INT32").tolist() == [[1, 0, 0], [1, 1, 0], [1, 1, 1]]
    assert nm.triangle(2, 3, 1, True, "INT32").tolist() == [[0, 1, 1], [0, 0, 1]]
    assert nm.triangle(2, 2, -1, False, "FP16").tolist() == [[0, 0], [1, 0]]


# -- sorting --------------------------------------------------------------------------------------


def _pairs(row: np.ndarray, dtype: str) -> list[tuple[float, int]]:
    scores, indices = nm.unpack_pairs(row[None], dtype)
    return [(float(s), int(i)) for s, i in zip(scores[0], indices[0])]


def test_sort32_orders_descending_ties_by_index_nan_last() -> None:
    scores = f32(1.0, 3.0, -0.0, 3.0, float("nan"), 0.0)[None]
    indices = np.array([[9, 7, 2, 1, 0, 1]], np.uint32)
    out = nm.sort32(scores, indices, "FP32")
    assert out.shape == (1, 12)
    got = _pairs(out[0], "FP32")
    assert [i for _, i in got] == [1, 7, 9, 1, 2, 0]  # -0.0 and +0.0 tie: index 1 before 2
    assert np.isnan(got[-1][0])


def test_sort32_sorts_each_block_of_32_on_its_own() -> None:
    scores = np.arange(64, dtype=np.float32)[None]
    indices = np.arange(64, dtype=np.uint32)[None]
    got = _pairs(nm.sort32(scores, indices, "FP32")[0], "FP32")
    assert [i for _, i in got[:32]] == list(range(31, -1, -1))
    assert [i for _, i in got[32:]] == list(range(63, 31, -1))


def test_sort32_fp16_pairs_are_eight_bytes() -> None:
    out = nm.sort32(np.array([[1.0, 2.0]], np.float16), np.array([[5, 6]], np.uint32), "FP16")
    assert out.shape == (1, 8)
    assert hexes(out, "FP16") == ["0x4000", "0x0000", "0x0006", "0x0000", "0x3c00", "0x0000", "0x0005", "0x0000"]


def test_mrgsort_ties_keep_the_earlier_list_and_exhausted_stops_early() -> None:
    one = nm.sort32(f32(5.0, 1.0)[None], np.array([[0, 1]], np.uint32), "FP32")[0]
    two = nm.sort32(f32(5.0, 4.0)[None], np.array([[2, 3]], np.uint32), "FP32")[0]
    merged, taken = nm.mrgsort_format2([one, two], 8, False, "FP32")
    assert _pairs(merged, "FP32") == [(5.0, 0), (5.0, 2), (4.0, 3), (1.0, 1)] and taken == [2, 2]
    short = nm.sort32(f32(9.0)[None], np.array([[7]], np.uint32), "FP32")[0]
    stopped, taken = nm.mrgsort_format2([short, two], 8, True, "FP32")
    assert _pairs(stopped, "FP32")[:1] == [(9.0, 7)] and taken == [1, 0]
    assert not stopped[2:].any()


def test_mrgsort_format1_merges_groups_of_four_blocks_and_leaves_the_tail() -> None:
    blocks = [nm.sort32(f32(float(v), float(v - 10))[None], np.array([[v, v + 100]], np.uint32), "FP32")[0]
              for v in (1, 4, 2, 3)]
    row = np.concatenate(blocks + [f32(7.0, 7.0)])
    merged, written = nm.mrgsort_format1(row, 4, row.size, "FP32")
    assert written == 16
    assert [s for s, _ in _pairs(merged[:16], "FP32")] == [4.0, 3.0, 2.0, 1.0, -6.0, -7.0, -8.0, -9.0]
    with pytest.raises(nm.NumericsError, match="multiple of 2"):
        nm.mrgsort_format1(row, 3, row.size, "FP32")


def test_a_merge_whose_row_ends_in_a_partial_group_is_refused_by_the_deduction() -> None:
    # TMRGSORT leaves the columns after its last whole group of four blocks unwritten, so a
    # [1, 128] FP16 row merged in blocks of 64 (one group is 256 elements) would read as garbage:
    # the deduction refuses it (a campaign drew it once block_len came in whole pairs). Blocks
    # are multiples of 64 elements (tests/test_mrgsort_block_len.py).
    from languages.ops import REGISTRY
    from languages.types import DataType, TileType
    from nanopass.diagnostics import CompileError
    from nanopass.node import Node

    def const(value: int) -> Node:
        import languages.gen.tile_unplaced as U

        return U.ConstInt(value, DataType.INT32)

    def call(src: TileType, block: int) -> object:
        import languages.gen.tile_unplaced as U

        return REGISTRY.deduce("tile.mrgsort_format1", (U.Var("row", src), const(block)), ())

    row = TileType((1, 128), DataType.FP16)
    with pytest.raises(CompileError, match="whole merge groups of 4 blocks of block_len \\(256 elements\\)"):
        call(row, 64)
    assert isinstance(call(TileType((1, 256), DataType.FP16), 64), TileType)  # one whole group
    assert isinstance(call(TileType((1, 512), DataType.FP16), 64), TileType)  # two groups


# -- gathers and scatters -------------------------------------------------------------------------


def test_gather_reads_zero_outside_the_source() -> None:
    src = f32(1.0, 2.0, 3.0, 4.0).reshape(2, 2)
    idx = np.array([[3, 0], [4, -1]], np.int32)
    assert nm.gather_flat(src, idx).tolist() == [[4.0, 1.0], [0.0, 0.0]]


def test_scatter_writes_in_order_and_faults_outside_the_destination() -> None:
    dst = np.zeros((2, 2), np.float32)
    out = nm.scatter_flat(dst, np.array([[1, 1]], np.int32), f32(5.0, 6.0)[None])
    assert out.tolist() == [[0.0, 6.0], [0.0, 0.0]] and not dst.any()
    with pytest.raises(nm.ArithmeticFault, match="index 4 outside the 4 destination elements"):
        nm.scatter_flat(dst, np.array([[4]], np.int32), f32(1.0)[None])


def test_mask_patterns_mark_columns_by_stride_and_phase() -> None:
    assert nm.mask_pattern_columns(1, 8).tolist() == [0, 2, 4, 6]
    assert nm.mask_pattern_columns(6, 8).tolist() == [3, 7]
    assert nm.mask_pattern_columns(7, 3).tolist() == [0, 1, 2]
