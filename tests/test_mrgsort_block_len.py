"""TMRGSORT format 1's block length (issue 10, finding 29e310f0a0).

PTOAS's TMrgSortOp::verify refuses a constant blockLen that is not a positive multiple of 64
("expects blockLen > 0 and multiple of 64", on every target), and pto-isa's A2/A3 TMRGSORT
asserts the same (TMRGSORT_BLOCK_LEN); the block length counts the row's elements, pairs
included (32 FP32 (score, index) pairs are 64 elements). The registry's deduction refuses such a
block length at the user's line (`MRGSORT_BLOCK_LEN_MULTIPLE`), and the program generator draws
only multiples of 64 on rows of whole groups of four blocks.

A merge that keeps the rule runs as a user runs it (--verify-all --simulate) on both targets and
is compared bit for bit with a NumPy reference written here; with PTOAS built, the assembler
accepts its PTO.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from tests.test_kernels_matmul import check_kernel, run_cli
from tests.test_op_forms import assert_ptoas_accepts, compile_error

Array = npt.NDArray[Any]
BACKENDS = ("Ascend910B", "Ascend950")
FINDING = Path(__file__).resolve().parent / "regressions" / "mrgsort_block_len_not_a_multiple_of_64.py"

KERNEL = """\
import pypto.language as pl


@pl.program
class Merge:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[1, COLS], pl.DT]) -> pl.Tensor[[1, COLS], pl.DT]:
        merged: pl.Tensor[[1, COLS], pl.DT] = pl.tensor.mrgsort(x, block_len=BLOCK)
        return merged

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[1, COLS], pl.DT]) -> pl.Tensor[[1, COLS], pl.DT]:
        out: pl.Tensor[[1, COLS], pl.DT] = self.kernel(x)
        return out
"""


def _kernel(cols: int, dtype: str, block: int) -> str:
    return KERNEL.replace("COLS", str(cols)).replace("DT", dtype).replace("BLOCK", str(block))


# -- the NumPy reference: a (score, index) pair is 8 bytes, the score in its first bytes ------------

NP = {"FP32": np.float32, "FP16": np.float16}


def _pairs_row(scores: Array, indices: Array, dtype: str) -> Array:
    """One row of 8-byte pairs: the score's bytes first, then zero bytes, the UINT32 index in
    bytes 4..7, read as elements of `dtype`."""
    raw = np.zeros((scores.size, 8), np.uint8)
    width = np.dtype(NP[dtype]).itemsize
    raw[:, :width] = scores.astype(NP[dtype]).view(np.uint8).reshape(-1, width)
    raw[:, 4:] = indices.astype(np.uint32).view(np.uint8).reshape(-1, 4)
    return raw.reshape(1, -1).view(NP[dtype])


def _merge_input(cols: int, dtype: str, block: int, seed: int) -> tuple[Array, Array]:
    """A row of sorted blocks of `block` elements (distinct scores, each block descending) and
    the reference merge: every group of four blocks one descending run."""
    pair_elements = 8 // np.dtype(NP[dtype]).itemsize
    pairs = cols // pair_elements
    rng = np.random.default_rng(seed)
    scores = (rng.permutation(pairs).astype(np.float64) - pairs / 2) / 4  # exact in FP16 and FP32
    indices = rng.permutation(pairs).astype(np.uint32)
    per_block = block // pair_elements
    order = np.concatenate([b * per_block + np.argsort(-scores[b * per_block:(b + 1) * per_block], kind="stable")
                            for b in range(pairs // per_block)])
    row = _pairs_row(scores[order], indices[order], dtype)
    merged_order = np.concatenate([g * 4 * per_block + np.argsort(-scores[order][g * 4 * per_block:
                                                                               (g + 1) * 4 * per_block],
                                                                  kind="stable")
                                   for g in range(pairs // (4 * per_block))])
    return row, _pairs_row(scores[order][merged_order], indices[order][merged_order], dtype)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("cols", "dtype", "block"), [(256, "FP32", 64), (512, "FP32", 64), (512, "FP32", 128),
                                                      (256, "FP16", 64), (1024, "FP16", 128)])
def test_a_merge_in_blocks_of_a_multiple_of_64_is_bit_exact(tmp_path: Path, backend: str, cols: int, dtype: str,
                                                            block: int) -> None:
    kernel = tmp_path / "merge.py"
    kernel.write_text(_kernel(cols, dtype, block))
    row, expected = _merge_input(cols, dtype, block, seed=cols + block)
    check_kernel(kernel, {"x": row}, {"ret0": expected}, backend, tmp_path)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("dtype", "block"), [("FP32", 64), ("FP16", 128)])
def test_the_assembler_takes_a_merge_in_blocks_of_a_multiple_of_64(tmp_path: Path, backend: str, dtype: str,
                                                                   block: int) -> None:
    kernel = tmp_path / "merge.py"
    kernel.write_text(_kernel(1024, dtype, block))
    rc, log, _ = run_cli(kernel, {"x": _merge_input(1024, dtype, block, seed=5)[0]}, backend, tmp_path)
    assert rc == 0, log
    assert_ptoas_accepts(tmp_path / "out.pto", backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("cols", "dtype", "block"), [(16, "FP32", 2), (256, "FP32", 32), (256, "FP16", 16),
                                                      (512, "FP32", 96), (256, "FP32", 0)])
def test_a_block_len_that_is_no_multiple_of_64_is_refused_at_the_users_line(tmp_path: Path, backend: str, cols: int,
                                                                            dtype: str, block: int) -> None:
    log = compile_error(tmp_path, _kernel(cols, dtype, block), backend)
    assert re.search(r"bad\.py:8:\d+: error: .*expected block_len a positive multiple of 64 elements", log), log
    assert f"got {block}" in log and "use block_len 64" in log, log


def test_the_campaign_finding_is_refused_where_the_user_wrote_it(tmp_path: Path) -> None:
    # Finding 29e310f0a0: a [1, 16] FP32 row merged in blocks of 2 (one FP32 pair) simulated
    # bit-exact, but PTOAS refused the pto.tmrgsort; the compiler now refuses it at the call.
    for backend in BACKENDS:
        rc, log, _ = run_cli(FINDING, {}, backend, tmp_path)
        assert rc == 1, log
        line = next(n for n, text in enumerate(FINDING.read_text().splitlines(), 1) if "mrgsort_format1" in text)
        assert re.search(rf"{FINDING.name}:{line}:\d+: error: .*expected block_len a positive multiple of 64 "
                         r"elements .*got 2", log), log


def test_a_row_of_more_than_255_merge_groups_is_refused() -> None:
    # pto-isa counts the merge groups in 8 bits (A2/A3 asserts 1..255, A5 passes a uint8_t).
    from languages.gen import tile_unplaced as U
    from languages.ops import REGISTRY
    from languages.types import DataType, TileType
    from nanopass.diagnostics import CompileError

    def call(cols: int, block: int) -> object:
        row = U.Var("row", TileType((1, cols), DataType.FP16))
        return REGISTRY.deduce("tile.mrgsort_format1", (row, U.ConstInt(block, DataType.INT32)), ())

    assert isinstance(call(255 * 256, 64), TileType)
    with pytest.raises(CompileError, match="at most 255 merge groups of 4 blocks in the row, got 256"):
        call(256 * 256, 64)
    assert isinstance(call(256 * 256, 128), TileType)


def test_the_generator_draws_block_lengths_the_deduction_takes() -> None:
    from backend.fuzzing.registry_calls import merge_block_lens
    from languages.types import DataType, TensorType

    assert merge_block_lens(TensorType((1, 256), DataType.FP32)) == (64,)
    assert merge_block_lens(TensorType((1, 1024), DataType.FP16)) == (64, 128, 256)
    assert merge_block_lens(TensorType((1, 16), DataType.FP32)) == (64,)  # none fits: refused and redrawn


def test_generated_merges_keep_the_block_rule() -> None:
    from backend.fuzzing.generator import reaching_kernel
    from languages.gen import tensor as T
    from languages.ops import REGISTRY
    from languages.pl_printer import print_program

    drawn = []
    for op in ("tensor.mrgsort_format1", "tile.mrgsort_format1"):
        for arch in ("a2a3", "a5"):
            kernel = reaching_kernel(REGISTRY.get(op), seed=0, arch=arch)
            assert kernel is not None, (op, arch)
            text = print_program(T.Program("Fuzz", (kernel,)))
            drawn += [int(m.group(1)) for m in re.finditer(r"mrgsort_format1\(\w+, pl\.const\((\d+), pl\.INT32\)\)",
                                                           text)]
    assert drawn and all(block > 0 and block % 64 == 0 for block in drawn), drawn




FOUR_WAY = """\
import pypto.language as pl


@pl.program
class FourWay:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[1, COLS], pl.FP32], b: pl.Tensor[[1, COLS], pl.FP32], c: pl.Tensor[[1, COLS], pl.FP32],
               d: pl.Tensor[[1, COLS], pl.FP32]) -> pl.Tensor[[1, TOTAL], pl.FP32]:
        merged: pl.Tensor[[1, TOTAL], pl.FP32] = pl.tensor.mrgsort(a, b, c, d)
        return merged

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[1, COLS], pl.FP32], b: pl.Tensor[[1, COLS], pl.FP32], c: pl.Tensor[[1, COLS], pl.FP32],
             d: pl.Tensor[[1, COLS], pl.FP32]) -> pl.Tensor[[1, TOTAL], pl.FP32]:
        out: pl.Tensor[[1, TOTAL], pl.FP32] = self.kernel(a, b, c, d)
        return out
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_four_way_merge_with_its_created_scratch_row_is_bit_exact(tmp_path: Path, backend: str) -> None:
    # tensor.mrgsort of four rows (format 2) is lowered with a tile.create scratch row, which
    # TMRGSORT writes and never reads: DefinedReads used to count it as read (a created buffer
    # holds no data), an internal error after ConvertTensorToTileOps (TRAILING_SCRATCH).
    cols = 128
    rng = np.random.default_rng(3)
    scores = (rng.permutation(4 * cols // 2).astype(np.float64) - cols) / 4
    indices = rng.permutation(4 * cols // 2).astype(np.uint32)
    rows, everything = {}, []
    for k, name in enumerate("abcd"):
        part = slice(k * cols // 2, (k + 1) * cols // 2)
        order = np.argsort(-scores[part], kind="stable")
        rows[name] = _pairs_row(scores[part][order], indices[part][order], "FP32")
        everything.append((scores[part][order], indices[part][order]))
    all_scores = np.concatenate([s for s, _ in everything])
    all_indices = np.concatenate([i for _, i in everything])
    merged = np.argsort(-all_scores, kind="stable")
    kernel = tmp_path / "four_way.py"
    kernel.write_text(FOUR_WAY.replace("TOTAL", str(4 * cols)).replace("COLS", str(cols)))
    check_kernel(kernel, rows, {"ret0": _pairs_row(all_scores[merged], all_indices[merged], "FP32")}, backend,
                 tmp_path)
