"""Kernels over the operator catalog, run through the CLI as a user runs them
(`--verify-all --simulate --inputs --save-outputs`) and compared bit for bit with NumPy
references written here (independently of backend/numerics.py) from NUMERICS.md and the rules
the op-family tests pin (tests/test_op_families.py).

Hand-written kernels live in tests/kernels/ops/.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from backend.pto_text.parser import parse_mlir
from backend.pto_text.printer import print_mlir
from tests.references import matmul_ref, row_softmax_ref
from tests.test_kernels_matmul import B910, B950, BF16, assert_bits_equal, check_kernel, run_cli

Array = npt.NDArray[Any]
KERNELS = Path(__file__).resolve().parent / "kernels" / "ops"


def test_matmul_bias_starts_the_chain_from_the_bias_row(tmp_path: Path) -> None:
    rng = np.random.default_rng(11)
    lhs = rng.standard_normal((16, 64)).astype(np.float16)
    rhs = rng.standard_normal((64, 32)).astype(np.float16)
    bias = rng.standard_normal((1, 32)).astype(np.float32)
    reference = matmul_ref(lhs, rhs, start=np.broadcast_to(bias, (16, 32)))
    check_kernel(KERNELS / "matmul_bias_f16.py", {"lhs": lhs, "rhs": rhs, "bias": bias},
                 {"out": reference}, B910, tmp_path)


def causal_softmax_ref(scores: Array) -> Array:
    """-1e30 above the diagonal, then row softmax: exp of a huge negative is exactly 0."""
    rows, cols = scores.shape
    keep = np.arange(cols)[None, :] <= np.arange(rows)[:, None]
    return row_softmax_ref(np.where(keep, scores, np.float32(-1.0e30)).astype(np.float32))


def test_causal_masked_softmax_with_tri_cmps_sel(tmp_path: Path) -> None:
    scores = np.random.default_rng(3).standard_normal((32, 32)).astype(np.float32) * 4
    check_kernel(KERNELS / "causal_softmax_f32.py", {"scores": scores}, {"out": causal_softmax_ref(scores)},
                 B910, tmp_path)


def int16_quant_ref(x: Array, code: Array, key: Array, scale: np.float32) -> tuple[Array, Array]:
    """NumPy's int16 operators wrap and shift like the vector unit (>> is arithmetic)."""
    q = x >> 8
    packed = ((code & 15) << 8) | (q & 255)
    word = (packed ^ key).astype(np.int16)
    back = word ^ key
    byte = ((back << 8).astype(np.int16) >> 8).astype(np.int16)
    return word, (byte.astype(np.float32) * scale).astype(np.float32)


def test_integer_quantize_with_bitwise_ops_and_shifts(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    x, code, key = (rng.integers(-32768, 32768, (16, 32)).astype(np.int16) for _ in range(3))
    scale = np.float32(0.0371)
    word, dequant = int16_quant_ref(x, code, key, scale)
    check_kernel(KERNELS / "int16_quant_bits.py", {"x": x, "code": code, "key": key, "scale": np.asarray(scale)},
                 {"ret0": word, "ret1": dequant}, B910, tmp_path)


def test_data_dependent_loop_bound_and_if_on_a_read_scalar(tmp_path: Path) -> None:
    x = np.random.default_rng(7).standard_normal((64, 32)).astype(np.float32)
    for rows, mode in ((3, 1), (0, -2), (4, 0)):
        meta = np.zeros((1, 8), np.int32)
        meta[0, :2] = (rows, mode)
        acc = np.zeros((16, 32), np.float32)
        for i in range(rows):
            acc = (acc + x[16 * i:16 * i + 16]).astype(np.float32)
        expected = acc * np.float32(2.0) if mode > 0 else -acc
        work = tmp_path / f"run{rows}"
        work.mkdir()
        check_kernel(KERNELS / "data_dependent_loop.py", {"x": x, "meta": meta}, {"out": expected}, B910, work)


def test_scalar_reads_and_writes_of_tiles_and_gm(tmp_path: Path) -> None:
    rng = np.random.default_rng(9)
    x = rng.standard_normal((16, 32)).astype(np.float32)
    n = rng.integers(0, 10, (1, 8)).astype(np.int32)
    flags = rng.integers(0, 10, (1, 8)).astype(np.int32)
    out = x.copy()
    out[1, 2] = x[0, 1]
    written = flags.copy()
    written[0, 3] = 7
    check_kernel(KERNELS / "scalar_access.py", {"x": x, "n": n, "flags": flags},
                 {"out": out, "flags": written}, B910, tmp_path)


def test_top_k_via_sort32_and_mrgsort(tmp_path: Path) -> None:
    scores = np.random.default_rng(13).standard_normal((1, 128)).astype(np.float32)
    order = np.argsort(-scores[0], kind="stable")  # descending; no equal scores in this draw
    check_kernel(KERNELS / "topk_sort32_mrgsort.py", {"scores": scores},
                 {"values": scores[:, order[:16]], "indices": order[:16].astype(np.int32)[None]}, B910, tmp_path)


def test_embedding_lookup_via_gather(tmp_path: Path) -> None:
    rng = np.random.default_rng(17)
    table = rng.standard_normal((64, 32)).astype(np.float32)
    ids = rng.integers(0, 64, (8, 1)).astype(np.int32)
    check_kernel(KERNELS / "embedding_gather.py", {"table": table, "ids": ids}, {"ret0": table[ids[:, 0]]},
                 B910, tmp_path)


def test_kv_cache_scatter_update_keeps_unnamed_rows(tmp_path: Path) -> None:
    rng = np.random.default_rng(19)
    cache = rng.standard_normal((16, 64)).astype(np.float16)
    slots = rng.permutation(16)[:8].reshape(1, 8).astype(np.int32)
    rows = rng.standard_normal((8, 64)).astype(np.float16)
    expected = cache.copy()
    expected[slots[0]] = rows
    check_kernel(KERNELS / "kv_cache_scatter_update.py", {"cache": cache, "slots": slots, "rows": rows},
                 {"ret0": expected}, B910, tmp_path)


def test_activation_chain_and_concat(tmp_path: Path) -> None:
    rng = np.random.default_rng(23)
    x, slope, gate = (rng.standard_normal((16, 32)).astype(np.float32) for _ in range(3))
    f64 = np.float64

    def rounded_exp(v: Array) -> Array:
        return np.exp(v.astype(f64)).astype(np.float32)  # RNE32 of the float64 exp

    prelu = np.where(x > 0, x, (x * slope).astype(np.float32))
    silu = (x / (rounded_exp(-x) + np.float32(1.0))).astype(np.float32)
    gelu = (x / (rounded_exp((x * np.float32(-1.702)).astype(np.float32)) + np.float32(1.0))).astype(np.float32)
    swiglu = (silu * gate).astype(np.float32)
    check_kernel(KERNELS / "activations_concat.py", {"x": x, "slope": slope, "gate": gate},
                 {"prelu_out": prelu, "glu_out": np.concatenate([gelu, swiglu], axis=1)}, B910, tmp_path)


def test_fillpad_fills_past_the_valid_region(tmp_path: Path) -> None:
    x = np.random.default_rng(29).standard_normal((16, 64)).astype(np.float32)
    full = x.copy()
    full[:, 40:] = 0.0
    sums = np.add.accumulate(full, axis=1, dtype=np.float32)[:, -1:]  # sequential row sum
    check_kernel(KERNELS / "fillpad_rows.py", {"x": x}, {"out": full, "sums": sums}, B910, tmp_path)


def test_atomic_store_accumulates_into_gm(tmp_path: Path) -> None:
    rng = np.random.default_rng(31)
    x = rng.standard_normal((32, 32)).astype(np.float32)
    acc = rng.standard_normal((16, 32)).astype(np.float32)
    expected = ((acc + x[:16]).astype(np.float32) + x[16:]).astype(np.float32)
    check_kernel(KERNELS / "atomic_store.py", {"x": x, "acc": acc}, {"acc": expected}, B910, tmp_path)


def batched_matmul_ref(a: Array, b: Array, start: Array | None = None) -> Array:
    """NUMERICS for batched matmuls: one independent MAD chain per broadcast batch index (the
    batches never mix: batch i's result is exactly the 2-D matmul of batch i's matrices)."""
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a_all = np.broadcast_to(a, batch + a.shape[-2:])
    b_all = np.broadcast_to(b, batch + b.shape[-2:])
    out = np.zeros(batch + (a.shape[-2], b.shape[-1]), np.float32)
    for index in np.ndindex(*batch):
        out[index] = matmul_ref(a_all[index], b_all[index], None if start is None else start[index])
    return out


def test_batched_matmul_broadcasts_the_batch_dims(tmp_path: Path) -> None:
    rng = np.random.default_rng(37)
    a = rng.standard_normal((2, 3, 16, 64)).astype(np.float16)
    b = rng.standard_normal((3, 64, 32)).astype(np.float16)
    check_kernel(KERNELS / "batch_matmul_broadcast_f16.py", {"a": a, "b": b}, {"ret0": batched_matmul_ref(a, b)},
                 B910, tmp_path)


def test_batched_matmul_acc_with_a_transposed_rhs(tmp_path: Path) -> None:
    rng = np.random.default_rng(41)
    a = rng.standard_normal((2, 16, 128)).astype(BF16)
    b = rng.standard_normal((2, 32, 128)).astype(BF16)
    b_t = np.swapaxes(b, -1, -2)
    first = batched_matmul_ref(a[:, :, :64], b_t[:, :64])
    expected = batched_matmul_ref(a[:, :, 64:], b_t[:, 64:], start=first)
    for backend in (B910, B950):
        work = tmp_path / backend
        work.mkdir()
        check_kernel(KERNELS / "batch_matmul_acc_btrans_bf16.py", {"a": a, "b": b}, {"ret0": expected}, backend, work)


def test_high_precision_forms_and_fmod(tmp_path: Path) -> None:
    """NUMERICS for high_precision=: it picks the instruction's high-precision algorithm, and this
    model already rounds rsqrt / log / recip / div correctly, so the bits equal the default
    form's: rsqrt and log are RNE32 of the float64 function, recip and div the IEEE FP32
    quotient; fmod is exact (C fmod, the dividend's sign)."""
    rng = np.random.default_rng(43)
    x = (rng.random((16, 64)) * 8 + 0.01).astype(np.float32)
    y = rng.standard_normal((16, 64)).astype(np.float32)
    f64 = np.float64
    inv_root = (f64(1.0) / np.sqrt(x.astype(f64))).astype(np.float32)
    logs = np.log(x.astype(f64)).astype(np.float32)
    inv = np.float32(1.0) / y
    out = np.fmod(logs / inv, inv_root)
    check_kernel(KERNELS / "high_precision_f32.py", {"x": x, "y": y}, {"ret0": out}, B910, tmp_path)
    text = (tmp_path / "out.pto").read_text()
    for enum in ("rsqrt", "log", "recip", "div"):
        assert f"{{precisionType = #pto<{enum}_precision high_precision>}}" in text, enum
    assert "pto.tfmod ins(" in text
    # The per-instruction enums read back (the simulator runs the parsed text).
    assert print_mlir(parse_mlir(text, "hp.pto"), emit_loc=False) == text


def test_tile_rsqrt_with_tmp_and_row_expand_add_with_tmp(tmp_path: Path) -> None:
    rng = np.random.default_rng(47)
    x = (rng.random((16, 32)) * 4 + 0.5).astype(np.float32)
    row = rng.standard_normal((16, 1)).astype(np.float32)
    root = (np.float64(1.0) / np.sqrt(x.astype(np.float64))).astype(np.float32)
    check_kernel(KERNELS / "tile_workspace_forms.py", {"x": x, "row": row}, {"out": root + row}, B910, tmp_path)
    text = (tmp_path / "out.pto").read_text()
    # tmp is trsqrt's second ins() operand; trowexpandadd (PTOAS 0.44) takes only the two sources.
    assert re.search(r"pto\.trsqrt ins\(%\w+, %\w+ :.*\{precisionType = #pto<rsqrt_precision high_precision>\}", text)
    assert re.search(r"pto\.trowexpandadd ins\(%\w+, %\w+ :", text)


def test_nd_broadcasting_and_a_per_page_transpose(tmp_path: Path) -> None:
    """NUMERICS for N-D broadcasting: an element of the result is the FP32 op of the two operand
    elements NumPy's broadcasting pairs with it (the expansion copies bits: it adds or multiplies
    nothing); the transpose of the last two axes moves bits only."""
    rng = np.random.default_rng(53)
    x = rng.standard_normal((2, 16, 32)).astype(np.float32)
    bias = rng.standard_normal((16, 32)).astype(np.float32)
    scale = rng.standard_normal(32).astype(np.float32)
    shift = rng.standard_normal((2, 16, 1)).astype(np.float32)
    expected = np.swapaxes((x + bias) * scale - shift, 1, 2)
    check_kernel(KERNELS / "nd_broadcast_transpose_f32.py", {"x": x, "bias": bias, "scale": scale, "shift": shift},
                 {"ret0": expected}, B910, tmp_path)


def test_gemv_bias_then_gemv_acc_continue_one_rows_chain(tmp_path: Path) -> None:
    rng = np.random.default_rng(59)
    v = rng.standard_normal((1, 128)).astype(np.float16)
    w = rng.standard_normal((128, 32)).astype(np.float16)
    bias = rng.standard_normal((1, 32)).astype(np.float32)
    first = matmul_ref(v, w, start=bias)
    check_kernel(KERNELS / "gemv_f16.py", {"v": v, "w": w, "bias": bias}, {"out": matmul_ref(v, w, start=first)},
                 B910, tmp_path)
    text = (tmp_path / "out.pto").read_text()
    assert "{accPhase = #pto<acc_phase partial>}" in text and "{accPhase = #pto<acc_phase final>}" in text


def test_expand_clone_writes_the_broadcast_over_the_target(tmp_path: Path) -> None:
    src = np.random.default_rng(61).standard_normal((2, 16, 1)).astype(np.float16)
    expected = np.broadcast_to(src, (2, 16, 32)).copy()
    check_kernel(KERNELS / "expand_clone_f16.py", {"src": src, "target": np.zeros((2, 16, 32), np.float16)},
                 {"target": expected, "ret0": expected}, B910, tmp_path)


def test_batched_split_k_loop_carries_one_accumulator_per_batch(tmp_path: Path) -> None:
    rng = np.random.default_rng(67)
    a = rng.standard_normal((2, 16, 256)).astype(np.float16)
    b = rng.standard_normal((2, 256, 32)).astype(np.float16)
    # One chain over K per batch: a single 2-D MAD chain over all 256 (the K blocks continue it).
    expected = batched_matmul_ref(a, b)
    for backend in (B910, B950):
        work = tmp_path / backend
        work.mkdir()
        check_kernel(KERNELS / "batch_matmul_kloop_f16.py", {"a": a, "b": b}, {"ret0": expected}, backend, work)


def test_scatter_mask_interleaves_two_streams(tmp_path: Path) -> None:
    # P0101 marks columns 0, 2, 4, ... and P1010 columns 1, 3, 5, ... (names read right to left):
    # the two scatters fill every column, so nothing of `base` survives, on both backends.
    rng = np.random.default_rng(29)
    base = rng.standard_normal((8, 32)).astype(np.float16)
    even = rng.standard_normal((8, 16)).astype(np.float16)
    odd = rng.standard_normal((8, 16)).astype(np.float16)
    expected = base.copy()
    expected[:, 0::2] = even
    expected[:, 1::2] = odd
    for backend in (B910, B950):
        check_kernel(KERNELS / "interleave_scatter_mask.py", {"base": base, "even": even, "odd": odd},
                     {"ret0": expected}, backend, tmp_path)


def test_a_cube_result_reinterpreted_reads_the_flat_copy(tmp_path: Path) -> None:
    rng = np.random.default_rng(21)
    a = rng.standard_normal((16, 32)).astype(np.float16)
    b = rng.standard_normal((32, 16)).astype(np.float16)
    bits = matmul_ref(a, b).astype(np.float32).view(np.int32)
    for backend in (B910, B950):
        check_kernel(KERNELS / "reinterpret_cube_result.py", {"a": a, "b": b}, {"ret0": bits}, backend, tmp_path)


def test_leaky_relu_on_half_precision_with_its_f16_slope(tmp_path: Path) -> None:
    x = (np.random.default_rng(22).standard_normal((16, 32)) * 4).astype(np.float16)
    x[0, :4] = [0.0, -0.0, 65504.0, -65504.0]
    slope = np.float16(0.3)
    expected = np.where(x > 0, x, (x * slope).astype(np.float16))
    for backend in (B910, B950):
        check_kernel(KERNELS / "leaky_relu_f16.py", {"x": x}, {"ret0": expected}, backend, tmp_path)


def test_row_broadcasts_by_a_one_row_operand_and_by_a_column(tmp_path: Path) -> None:
    rng = np.random.default_rng(23)
    x = rng.standard_normal((1, 16)).astype(np.float32)
    r = rng.standard_normal((1, 1)).astype(np.float32)
    y = rng.standard_normal((4, 16)).astype(np.float16)
    c = rng.standard_normal((4, 1)).astype(np.float16)
    first = ((x + r) * r).astype(np.float32)
    for backend in (B910, B950):
        check_kernel(KERNELS / "row_expand_one_row.py", {"x": x, "r": r, "y": y, "c": c},
                     {"ret0": first, "ret1": (y + c).astype(np.float16)}, backend, tmp_path)


def test_bf16_row_broadcast_max_and_min_run_widened(tmp_path: Path) -> None:
    rng = np.random.default_rng(24)
    x = rng.standard_normal((16, 32)).astype(BF16)
    r = rng.standard_normal((16, 1)).astype(BF16)
    wide_x, wide_r = x.astype(np.float32), r.astype(np.float32)
    # NUMERICS.md: max(a, b) = b if b > a else a (no NaN drawn here); exact in BF16.
    hi = np.where(wide_r > wide_x, wide_r, wide_x).astype(BF16)
    lo = np.where(wide_r < wide_x, wide_r, wide_x).astype(BF16)
    for backend in (B910, B950):
        check_kernel(KERNELS / "row_expand_max_bf16.py", {"x": x, "r": r}, {"hi": hi, "lo": lo}, backend, tmp_path)


def test_a_tile_gather_without_its_scratch_gets_one(tmp_path: Path) -> None:
    rng = np.random.default_rng(26)
    x = rng.standard_normal((1, 16)).astype(np.float32)
    i = rng.integers(0, 16, (1, 8)).astype(np.int32)
    for backend in (B910, B950):
        check_kernel(KERNELS / "tile_gather_scratch.py", {"x": x, "i": i}, {"out": x[0, i[0]][None, :]}, backend,
                     tmp_path)
    text = (tmp_path / "out.pto").read_text()
    gather = next(line for line in text.splitlines() if "pto.tgather" in line)
    assert gather.split("ins(")[1].split(" : ")[0].count("%") == 3, gather  # src, indices, tmp


def test_a_column_broadcast_into_a_narrowed_target_reads_the_row_over_its_valid_columns(tmp_path: Path) -> None:
    # The row is valid over 32 columns, the target over 13: the result's valid [8, 13] region is
    # the row's first 13 values in every row (and PTOAS takes the instruction: tests/test_ptoas.py).
    rng = np.random.default_rng(21)
    a = rng.standard_normal((16, 32)).astype(np.float32)
    x = rng.standard_normal((1, 32)).astype(np.float32)
    expected = np.broadcast_to(x[:, :13], (8, 13))
    for backend in (B910, B950):
        rc, log, outputs = run_cli(KERNELS / "col_expand_of_a_narrowed_target.py", {"a": a, "x": x}, backend, tmp_path)
        assert rc == 0 and "bit-exact" in log, log
        # The output holds the tensor's whole [16, 32] buffer; its valid region is what was written.
        assert_bits_equal("ret0", np.ascontiguousarray(expected), np.ascontiguousarray(outputs["ret0"][:8, :13]))
