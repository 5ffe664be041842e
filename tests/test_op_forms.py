"""Operator forms PyPTO's programs use, end to end: each kernel is compiled and simulated
through the CLI on NumPy inputs, compared bit for bit with a NumPy reference written here,
and its PTO text is handed to the real assembler (PTOAS 0.44) for the arch it targets.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from tests.test_kernels_matmul import B910, B950, assert_bits_equal, run_cli
from tests.test_ptoas import ARCH, PTOAS, needs_ptoas

Array = npt.NDArray[Any]


def compile_and_run(tmp: Path, source: str, inputs: dict[str, Array], backend: str) -> tuple[dict[str, Array], Path]:
    kernel = tmp / "kernel.py"
    kernel.write_text(source)
    rc, log, outputs = run_cli(kernel, inputs, backend, tmp)
    assert rc == 0, log
    assert "bit-exact" in log and "differ" not in log, log
    return outputs, tmp / "out.pto"


def assert_ptoas_accepts(pto: Path, backend: str) -> None:
    if PTOAS is None or not PTOAS.is_file():
        pytest.skip("PTOAS is not built")
    result = subprocess.run([str(PTOAS), f"--pto-arch={ARCH[backend]}", "--pto-level=level3", str(pto),
                             "-o", str(pto.with_suffix(".cpp"))], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"PTOAS rejects:\n{result.stderr}\n{pto.read_text()}"


def compile_error(tmp: Path, source: str, backend: str = B910) -> str:
    kernel = tmp / "bad.py"
    kernel.write_text(source)
    rc, log, _ = run_cli(kernel, {}, backend, tmp)
    assert rc == 1, log
    assert "Traceback" not in log, log
    return log


# -- tile.tri: a partially valid mask annotated without its TileView; INT8 on Ascend950 -------------

PARTIAL_TRI = """\
import pypto.language as pl


@pl.program
class PartialTri:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, out: pl.InOut[pl.Tensor[[16, 32], pl.DTYPE]]) -> pl.Tensor[[16, 32], pl.DTYPE]:
        mask: pl.Tile[[16, 32], pl.DTYPE] = pl.tile.tri(2, [16, 32], valid_shape=[9, 21], dtype=pl.DTYPE, upper=True)
        out = pl.store(mask, [0, 0], out)
        return out
"""


def upper_triangle_ref(background: Array, diagonal: int, rows: int, cols: int) -> Array:
    """1 where c >= r + diagonal inside the valid [rows, cols] window; the rest untouched."""
    out = background.copy()
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    out[:rows, :cols] = (c >= r + diagonal).astype(out.dtype)
    return out


@needs_ptoas
@pytest.mark.parametrize("dtype, np_dtype, backend", [("INT8", np.int8, B950), ("INT32", np.int32, B910)])
def test_partially_valid_tri_annotated_without_its_view(tmp_path: Path, dtype: str, np_dtype: Any,
                                                        backend: str) -> None:
    # PyPTO checks an annotation's kind, dtype, rank and static dims only: the valid shape the
    # call states completes `pl.Tile[[16, 32], ...]` instead of contradicting it.
    background = np.full((16, 32), 7, np_dtype)
    outputs, pto = compile_and_run(tmp_path, PARTIAL_TRI.replace("DTYPE", dtype), {"out": background}, backend)
    assert_bits_equal("out", upper_triangle_ref(background, 2, 9, 21), outputs["out"])
    assert "v_row=9, v_col=21" in pto.read_text()
    assert_ptoas_accepts(pto, backend)


def test_int8_tri_is_ascend950_only(tmp_path: Path) -> None:
    log = compile_error(tmp_path, PARTIAL_TRI.replace("DTYPE", "INT8"), B910)
    assert "bad.py:8:" in log and "tile.tri on Ascend910B" in log and "compile for Ascend950" in log, log


def test_a_stated_valid_shape_must_still_agree(tmp_path: Path) -> None:
    source = PARTIAL_TRI.replace("DTYPE", "INT32").replace(
        "mask: pl.Tile[[16, 32], pl.INT32]", "mask: pl.Tile[[16, 32], pl.INT32, pl.TileView(valid_shape=[9, 20])]")
    log = compile_error(tmp_path, source)
    assert "bad.py:8:" in log and "valid_shape=[9, 21]" in log, log


# -- tensor.scatter: an index covering the first rows; the mask-pattern spelling --------------------

PARTIAL_SCATTER = """\
import pypto.language as pl


@pl.program
class FirstRowsScatter:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, table: pl.Tensor[[16, 8], pl.FP32], cols: pl.Tensor[[4, 8], pl.INT32],
               vals: pl.Tensor[[4, 8], pl.FP32]) -> pl.Tensor[[16, 8], pl.FP32]:
        out: pl.Tensor[[16, 8], pl.FP32] = pl.tensor.scatter(table, dim=-1, index=cols, src=vals)
        return out
"""


def test_scatter_of_the_first_rows_keeps_the_others(tmp_path: Path) -> None:
    rng = np.random.default_rng(41)
    table = rng.standard_normal((16, 8)).astype(np.float32)
    cols = np.stack([rng.permutation(8) for _ in range(4)]).astype(np.int32)
    vals = rng.standard_normal((4, 8)).astype(np.float32)
    expected = table.copy()
    for b in range(4):
        expected[b, cols[b]] = vals[b]
    outputs, pto = compile_and_run(tmp_path, PARTIAL_SCATTER, {"table": table, "cols": cols, "vals": vals}, B910)
    assert_bits_equal("ret0", expected, outputs["ret0"])
    assert_ptoas_accepts(pto, B910)


MASK_SPELLING = """\
import pypto.language as pl


@pl.program
class OddColumns:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, compact: pl.Tensor[[4, 8], pl.FP32], wide: pl.Tensor[[4, 16], pl.FP32]
               ) -> pl.Tensor[[4, 16], pl.FP32]:
        out: pl.Tensor[[4, 16], pl.FP32] = pl.tensor.scatter(compact, mask_pattern=2, dst=wide)
        return out
"""


def test_tensor_scatter_with_a_mask_pattern_is_the_row_scatter(tmp_path: Path) -> None:
    # PyPTO's tensor.scatter dispatches on mask_pattern=: the positional operand is the compact
    # source, dst= the destination (P1010 = 2 marks the odd columns).
    rng = np.random.default_rng(43)
    compact = rng.standard_normal((4, 8)).astype(np.float32)
    wide = rng.standard_normal((4, 16)).astype(np.float32)
    expected = wide.copy()
    expected[:, 1::2] = compact
    outputs, pto = compile_and_run(tmp_path, MASK_SPELLING, {"compact": compact, "wide": wide}, B910)
    assert_bits_equal("ret0", expected, outputs["ret0"])
    assert_ptoas_accepts(pto, B910)


# -- tensor.gather along an axis with an INT16 index ----------------------------------------------

INT16_AXIS_GATHER = """\
import pypto.language as pl


@pl.program
class PickColumns:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, rows: pl.Tensor[[4, 16], pl.FP16], picks: pl.Tensor[[4, 16], pl.INT16]
               ) -> pl.Tensor[[4, 16], pl.FP16]:
        out: pl.Tensor[[4, 16], pl.FP16] = pl.tensor.gather(rows, dim=-1, index=picks)
        return out
"""


def test_axis_gather_widens_an_int16_index(tmp_path: Path) -> None:
    rng = np.random.default_rng(47)
    rows = rng.standard_normal((4, 16)).astype(np.float16)
    picks = rng.integers(0, 16, (4, 16)).astype(np.int16)
    expected = np.take_along_axis(rows, picks.astype(np.int64), axis=1)
    outputs, pto = compile_and_run(tmp_path, INT16_AXIS_GATHER, {"rows": rows, "picks": picks}, B910)
    assert_bits_equal("ret0", expected, outputs["ret0"])
    assert_ptoas_accepts(pto, B910)


# -- random inputs hold the indices the ops that read them define ----------------------------------

BLOCK_GATHER = """\
import pypto.language as pl


@pl.program
class Blocks:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, src: pl.Tensor[[16, 128], pl.FP16], offsets: pl.Tensor[[8, 8], pl.UINT32],
               rows: pl.Tensor[[1, 8], pl.INT32], table: pl.Tensor[[64, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[8, 128], pl.FP16]]) -> pl.Tensor[[8, 128], pl.FP16]:
        s: pl.Tile[[16, 128], pl.FP16] = pl.load(src, [0, 0], [16, 128])
        o: pl.Tile[[8, 8], pl.UINT32] = pl.load(offsets, [0, 0], [8, 8])
        r: pl.Tile[[1, 8], pl.INT32] = pl.load(rows, [0, 0], [1, 8])
        g: pl.Tile[[8, 32], pl.FP32] = pl.tile.mgather(table, r)
        b: pl.Tile[[8, 128], pl.FP16] = pl.tile.gatherb(s, o)
        out = pl.store(b, [0, 0], out)
        return out
"""


def test_random_inputs_condition_index_parameters(tmp_path: Path) -> None:
    from backend.arrays import random_inputs
    from languages.pl_parser import parse_program

    program = parse_program(BLOCK_GATHER, "blocks.py")
    for seed in range(3):
        inputs = random_inputs(program, seed)
        offsets, rows = inputs["offsets"].astype(np.int64), inputs["rows"].astype(np.int64)
        # gatherb: whole 32-byte blocks inside the 16 x 128 FP16 source; mgather: rows of table.
        assert ((offsets % 32 == 0) & (offsets >= 0) & (offsets + 32 <= 16 * 128 * 2)).all(), offsets
        assert ((rows >= 0) & (rows < 64)).all(), rows
        assert len(np.unique(offsets)) > 1 and len(np.unique(rows)) > 1
        assert inputs["src"].dtype == np.float16 and inputs["table"].dtype == np.float32


# -- tensor.random / tile.random: Philox-4x32 as the Ascend950 vector unit lays it out ----------------
#
# NUMERICS-style rule (pto-isa npu/a5/TRandom.hpp): the counter is one 128-bit integer; per row,
# each pass of 256 columns runs lane k (0..63) on counter + k, word w of lane k lands at column
# 256 * pass + 4k + w; the counter then advances by 64, by ((cols - 1) % 64) + 1 after a row's last
# pass. The reference below is plain Python integers, independent of backend/numerics.py.

RANDOM_KERNEL = """\
import pypto.language as pl


@pl.program
class Noise:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[ROWS, COLS], pl.INT32]) -> pl.Tensor[[ROWS, COLS], pl.INT32]:
        r: pl.Tensor[[ROWS, COLS], pl.INT32] = pl.tensor.random(KEY0, KEY1, C0, C1, C2, C3, [ROWS, COLS],
                                                                dtype=pl.INT32, rounds=ROUNDS)
        y: pl.Tensor[[ROWS, COLS], pl.INT32] = pl.add(r, x)
        return y
"""


def philox_ref(counter: int, key: tuple[int, int], rounds: int) -> list[int]:
    m = 0xFFFFFFFF
    c = [(counter >> (32 * w)) & m for w in range(4)]
    k0, k1 = key
    for _ in range(rounds):
        p0, p1 = c[0] * 0xD2511F53, c[2] * 0xCD9E8D57
        c = [(p1 >> 32) ^ c[1] ^ k0, p1 & m, (p0 >> 32) ^ c[3] ^ k1, p0 & m]
        k0, k1 = (k0 + 0x9E3779B9) & m, (k1 + 0xBB67AE85) & m
    return c


def trandom_ref(rows: int, cols: int, key: tuple[int, int], words: tuple[int, int, int, int], rounds: int) -> Array:
    counter = sum(w << (32 * i) for i, w in enumerate(words))
    out = np.zeros((rows, cols), np.uint32)
    passes = -(-cols // 256)
    for r in range(rows):
        for p in range(passes):
            for lane in range(64):
                for w, value in enumerate(philox_ref((counter + lane) % (1 << 128), key, rounds)):
                    col = 256 * p + 4 * lane + w
                    if col < cols:
                        out[r, col] = value
            counter += 64 if p != passes - 1 else (cols - 1) % 64 + 1
    return out.view(np.int32)


@needs_ptoas
@pytest.mark.parametrize("rows, cols, key, words, rounds", [
    (4, 256, (1, 2), (3, 4, 5, 6), 7),
    # three passes, the last one partial; the low counter word carries into the next
    (2, 520, (0x1234, 0x7FFF0000), (0x7FFFFFC0, 0x7FFFFFFF, 0, 9), 10),
])
def test_tensor_random_is_philox_in_the_hardware_layout(tmp_path: Path, rows: int, cols: int, key: tuple[int, int],
                                                         words: tuple[int, int, int, int], rounds: int) -> None:
    source = RANDOM_KERNEL.replace("ROWS", str(rows)).replace("COLS", str(cols)).replace("ROUNDS", str(rounds))
    for name, value in (("KEY0", key[0]), ("KEY1", key[1]), *((f"C{i}", w) for i, w in enumerate(words))):
        source = source.replace(name, str(value))
    x = np.random.default_rng(53).integers(-1000, 1000, (rows, cols)).astype(np.int32)
    outputs, pto = compile_and_run(tmp_path, source, {"x": x}, B950)
    expected = (trandom_ref(rows, cols, key, words, rounds).astype(np.int64) + x).astype(np.int32)
    assert_bits_equal("ret0", expected, outputs["ret0"])
    assert f"rounds = {rounds} : i32" in pto.read_text()
    assert_ptoas_accepts(pto, B950)


def test_random_is_ascend950_only(tmp_path: Path) -> None:
    source = RANDOM_KERNEL.replace("ROWS", "4").replace("COLS", "256").replace("ROUNDS", "10")
    for name in ("KEY0", "KEY1", "C0", "C1", "C2", "C3"):
        source = source.replace(name, "1")
    log = compile_error(tmp_path, source, B910)
    assert "bad.py:8:" in log and "tensor.random on Ascend910B: not available" in log and "Ascend950" in log, log
    assert "reproducer" not in log, log  # the user's line, not a pass


def test_random_rounds_are_7_or_10(tmp_path: Path) -> None:
    source = RANDOM_KERNEL.replace("ROWS", "4").replace("COLS", "256").replace("ROUNDS", "8")
    for name in ("KEY0", "KEY1", "C0", "C1", "C2", "C3"):
        source = source.replace(name, "1")
    log = compile_error(tmp_path, source, B950)
    assert "bad.py:8:" in log and "rounds" in log and "7" in log and "10" in log, log


# -- system.sync_set / sync_wait: static and computed event ids, ffts_mode --------------------------

SYNC_KERNEL = """\
import pypto.language as pl


@pl.program
class Flags:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP32], event: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        out = pl.store(t, [0, 0], out)
        pl.system.sync_set(event_id=3, pipe=pl.PipeType.SET_PIPE, ffts_mode=1)
        pl.system.sync_wait(event_id=3, pipe=pl.PipeType.MTE2)
        pl.system.sync_set(event, pipe=pl.PipeType.FIX)
        pl.system.sync_wait(event, pipe=pl.PipeType.V)
        return out
"""


@needs_ptoas
def test_cross_core_flags_reach_ptoas_on_ascend950(tmp_path: Path) -> None:
    # One block on one lane observes no other core: the flags order nothing the run can see, so
    # the data flows through unchanged; the instructions are what PTOAS must accept.
    x = np.random.default_rng(59).standard_normal((16, 16)).astype(np.float32)
    outputs, pto = compile_and_run(tmp_path, SYNC_KERNEL.replace("SET_PIPE", "MTE3"),
                                   {"x": x, "event": np.asarray(5, np.int64)}, B950)
    assert_bits_equal("out", x, outputs["out"])
    text = pto.read_text()
    for line in ("pto.sync.set <PIPE_MTE3>, 3 {ffts_mode = 1 : i32}", "pto.sync.wait <PIPE_MTE2>, 3",
                 "pto.sync.set <PIPE_FIX>, %", "pto.sync.wait <PIPE_V>, %"):
        assert line in text, text
    assert_ptoas_accepts(pto, B950)


def test_cross_core_flag_rules_per_target(tmp_path: Path) -> None:
    wrong_pipe = compile_error(tmp_path, SYNC_KERNEL.replace("SET_PIPE", "MTE2"), B950)
    assert "bad.py:11:" in wrong_pipe and "pipe PIPE_MTE2 is not one of PIPE_FIX, PIPE_MTE3" in wrong_pipe, wrong_pipe
    on_a3 = compile_error(tmp_path, SYNC_KERNEL.replace("SET_PIPE", "MTE3"), B910)
    assert "bad.py:11:" in on_a3 and "not supported yet" in on_a3 and "pto.set_ffts" in on_a3, on_a3


# -- pl.dump_tag: an Orchestration marker with no effect on values; rejected inside a kernel ----------

DUMP_TAG = """\
import pypto.language as pl


@pl.program
class Tagged:
    @pl.function(type=pl.FunctionType.InCore)
    def double(self, x: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        KERNEL_TAG
        y: pl.Tensor[[16, 64], pl.FP32] = pl.add(x, x)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        pl.dump_tag(x)
        y: pl.Tensor[[16, 64], pl.FP32] = self.double(x)
        return y
"""


def test_dump_tag_marks_a_tensor_without_changing_anything(tmp_path: Path) -> None:
    x = np.random.default_rng(61).standard_normal((16, 64)).astype(np.float32)
    outputs, pto = compile_and_run(tmp_path, DUMP_TAG.replace("KERNEL_TAG", "pass"), {"x": x}, B910)
    assert_bits_equal("ret0", (x + x).astype(np.float32), outputs["ret0"])
    assert "dump" not in pto.read_text()


def test_dump_tag_inside_a_kernel_is_rejected(tmp_path: Path) -> None:
    log = compile_error(tmp_path, DUMP_TAG.replace("KERNEL_TAG", "pl.dump_tag(x)"))
    assert "bad.py:8:" in log and "valid only in Orchestration or Inline functions" in log, log


def test_cacheinvalid_says_why_it_is_missing(tmp_path: Path) -> None:
    source = DUMP_TAG.replace("KERNEL_TAG", "pl.system.cacheinvalid()")
    log = compile_error(tmp_path, source)
    assert "bad.py:8:" in log and "'system.cacheinvalid' is a PyPTO operator this compiler does not support yet" in log
    assert "PTOAS 0.44 has no cache-invalidate instruction" in log, log


# -- tile.mrgsort format 2 with exhausted=True: two outs( destinations, which PTOAS accepts ---------

MERGE_TWO = """\
import pypto.language as pl


@pl.program
class MergeTwo:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[1, 64], pl.FP32], b: pl.Tensor[[1, 64], pl.FP32],
               out: pl.InOut[pl.Tensor[[1, 128], pl.FP32]]) -> pl.Tensor[[1, 128], pl.FP32]:
        ta = pl.load(a, [0, 0], [1, 64])
        tb = pl.load(b, [0, 0], [1, 64])
        tmp = pl.tile.create([1, 128], dtype=pl.FP32)
        m = pl.tile.mrgsort(ta, tb, tmp, exhausted=EXHAUSTED)
        out = pl.store(m, [0, 0], out)
        return out
"""


def sorted_pairs(scores: Array, first_index: int) -> Array:
    """A row of FP32 (score, index) pairs, scores descending; the index is a UINT32's bits."""
    row = np.empty(2 * scores.size, np.float32)
    row[0::2] = np.sort(scores)[::-1]
    row[1::2] = np.arange(first_index, first_index + scores.size, dtype=np.uint32).view(np.float32)
    return row[None, :]


def merge_ref(lists: list[Array], exhausted: bool) -> Array:
    """Merge descending by score (distinct scores here, so no tie rule is exercised); with
    exhausted, stop as soon as one list is used up; the rest of the row is 0."""
    heads = [0] * len(lists)
    merged: list[tuple[np.float32, np.float32]] = []
    while all(h < row.size // 2 for h, row in zip(heads, lists)) or (
            not exhausted and any(h < row.size // 2 for h, row in zip(heads, lists))):
        live = [i for i, row in enumerate(lists) if heads[i] < row.size // 2]
        best = max(live, key=lambda i: lists[i][0, 2 * heads[i]])
        merged.append((lists[best][0, 2 * heads[best]], lists[best][0, 2 * heads[best] + 1]))
        heads[best] += 1
    out = np.zeros((1, sum(row.size for row in lists)), np.float32)
    for k, (score, index) in enumerate(merged):
        out[0, 2 * k], out[0, 2 * k + 1] = score, index
    return out


@needs_ptoas
@pytest.mark.parametrize("exhausted", [False, True])
def test_mrgsort_format2_merges_sorted_rows(tmp_path: Path, exhausted: bool) -> None:
    rng = np.random.default_rng(67)
    scores = rng.permutation(1000)[:64].astype(np.float32) / 8
    # b's scores are all below a's: with exhausted the merge stops when a runs out (b left unmerged).
    a = sorted_pairs(np.sort(scores)[-32:], 0)
    b = sorted_pairs(np.sort(scores)[:32], 100)
    out = np.zeros((1, 128), np.float32)
    outputs, pto = compile_and_run(tmp_path, MERGE_TWO.replace("EXHAUSTED", str(exhausted)),
                                   {"a": a, "b": b, "out": out}, B910)
    assert_bits_equal("out", merge_ref([a, b], exhausted), outputs["out"])
    text = pto.read_text()
    assert f"{{exhausted = {str(exhausted).lower()}}}" in text and "vector<4xi16>)" in text
    from backend.pto_text.parser import parse_mlir
    parse_mlir(text)  # the two-destination form reads back
    assert_ptoas_accepts(pto, B910)


def test_mrgsort_rows_hold_whole_pairs(tmp_path: Path) -> None:
    # Fuzz-found once format 2 was drawn: a [1, 1] FP32 row (half a pair) reached the interpreter.
    source = MERGE_TWO.replace("EXHAUSTED", "False").replace("[1, 64]", "[1, 3]").replace("[1, 128]", "[1, 6]")
    log = compile_error(tmp_path, source)
    assert "bad.py:" in log and "whole (score, index) pairs (2 FP32 elements each), got 3 columns" in log, log


ONE_COLUMN_MASK_SCATTER = """\
import pypto.language as pl


@pl.program
class OneColumn:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, dst: pl.Tensor[[8, 1], pl.INT32], src: pl.Tensor[[8, 1], pl.INT32]) -> pl.Tensor[[8, 1], pl.INT32]:
        out: pl.Tensor[[8, 1], pl.INT32] = pl.tensor.scatter_mask(dst, src, mask_pattern=7)
        return out
"""


def test_mask_scatter_of_one_column(tmp_path: Path) -> None:
    # Fuzz-found once scatters were drawn: the expansion's column arange was tile.ci([1, 1]),
    # which ci rejects (a sequence has at least two elements).
    rng = np.random.default_rng(71)
    dst, src = (rng.integers(-99, 99, (8, 1)).astype(np.int32) for _ in range(2))
    outputs, _ = compile_and_run(tmp_path, ONE_COLUMN_MASK_SCATTER, {"dst": dst, "src": src}, B910)
    assert_bits_equal("ret0", src, outputs["ret0"])  # P1111 marks every column
