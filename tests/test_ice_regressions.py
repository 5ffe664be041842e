"""Programs that used to end in an internal compiler error ("Verification failed after <pass>")
either compile correctly now (and run bit-exact against NumPy where the simulator can feed
them) or are rejected at the user's line as "not supported yet", never blamed on a pass."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import numpy.typing as npt
import pytest

from nanopass.pipeline import main
from tests.kernel_cli import compile_kernel, program_text

Array = npt.NDArray[Any]
PTOAS = Path("/root/.cache/ptoas/4d2f456e/build/tools/ptoas/ptoas")
_text = program_text
_run = compile_kernel


def _ptoas_accepts(tmp_path: Path) -> None:
    if not PTOAS.exists():
        pytest.skip("PTOAS is not built here")
    done = subprocess.run([str(PTOAS), "--pto-arch=a3", "--pto-level=level3", str(tmp_path / "k.pto"),
                           "-o", str(tmp_path / "k.cpp")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


def test_an_acc_tile_parameter_seeds_the_accumulator_without_a_copy(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    # Nothing copies Acc to Acc: the loop's accumulator is the parameter's own buffer.
    text = _text("""\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 512], pl.BF16], b: pl.Tensor[[512, 32], pl.BF16],
               seed: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        a_mat: pl.Tile[[16, 512], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 512], target_memory=pl.Mem.Mat)
        b_mat: pl.Tile[[512, 32], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [512, 32], target_memory=pl.Mem.Mat)
        c: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(seed, a_mat, b_mat)
        return pl.store(c, [0, 0], out)
    """)
    rc, log = _run(tmp_path, capsys, text)
    assert rc == 0, log
    pto = (tmp_path / "k.pto").read_text()
    assert not re.search(r"pto\.tmov ins\(%arg2 [^)]*loc=acc[^)]*\) outs\([^)]*loc=acc", pto), pto
    assert re.search(r"pto\.tmatmul\.acc ins\(%arg2", pto), pto
    _ptoas_accepts(tmp_path)


def test_scalar_access_to_a_mat_tile_goes_through_vec(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # TGETVAL / TSETVAL see only UB: the Mat tile is brought to Vec (re-loaded on Ascend910B).
    text = _text("""\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        x_mat: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16], target_memory=pl.MemorySpace.Mat)
        v: pl.Scalar[pl.FP32] = pl.tile.read(x_mat, [3, 4])
        w: pl.Tile[[16, 16], pl.FP32] = pl.tile.write(x_mat, [1, 2], v)
        return pl.store(w, [0, 0], out)
    """)
    x = np.random.default_rng(5).uniform(-3, 3, (16, 16)).astype(np.float32)
    rc, log = _run(tmp_path, capsys, text, {"x": x, "out": np.zeros_like(x)})
    assert rc == 0 and "bit-exact" in log, log
    expected = x.copy()
    expected[1, 2] = x[3, 4]
    assert (np.load(tmp_path / "out.npz")["ret0"].view(np.uint32) == expected.view(np.uint32)).all()
    _ptoas_accepts(tmp_path)


def test_assembling_an_accumulator_into_an_acc_tile_is_not_supported_yet(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = _text("""\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.BF16], b: pl.Tensor[[32, 32], pl.BF16],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        a_mat: pl.Tile[[16, 32], pl.BF16] = pl.load(a, [0, 0], [16, 32], target_memory=pl.MemorySpace.Mat)
        b_mat: pl.Tile[[32, 32], pl.BF16] = pl.load(b, [0, 0], [32, 32], target_memory=pl.MemorySpace.Mat)
        half: pl.Tile[[16, 32], pl.FP32] = pl.tile.matmul(a_mat, b_mat)
        whole: pl.Tile[[16, 64], pl.FP32] = pl.tile.create([16, 64], pl.FP32, target_memory=pl.MemorySpace.Acc)
        both: pl.Tile[[16, 64], pl.FP32] = pl.tile.assemble(whole, half, [0, 32])
        return pl.store(both, [0, 0], out)
    """)
    rc, log = _run(tmp_path, capsys, text)
    assert rc == 1 and "kernel.py:13:" in log, log
    assert "not supported yet: tile.assemble of an Acc tile into an Acc tile" in log and "hint:" in log


def test_extracting_into_mat_is_not_supported_yet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = _text("""\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[32, 32], pl.BF16],
               out: pl.Out[pl.Tensor[[16, 16], pl.BF16]]) -> pl.Tensor[[16, 16], pl.BF16]:
        a_mat: pl.Tile[[32, 32], pl.BF16] = pl.load(a, [0, 0], [32, 32], target_memory=pl.MemorySpace.Mat)
        part: pl.Tile[[16, 16], pl.BF16] = pl.tile.extract(a_mat, 16, 0, shape=[16, 16], target_memory=pl.MemorySpace.Mat)
        v = pl.move(part, target_memory=pl.MemorySpace.Vec)
        return pl.store(v, [0, 0], out)
    """)
    rc, log = _run(tmp_path, capsys, text)
    assert rc == 1 and "kernel.py:10:" in log and "not supported yet: tile.extract into Mat" in log, log
    assert "target_memory=pl.MemorySpace.Left" in log


@pytest.mark.parametrize("exhausted", [False, True])
def test_a_two_way_merge_with_its_executed_counts_compiles_and_assembles(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], exhausted: bool) -> None:
    text = _text(f"""\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[1, 128], pl.FP32], b: pl.Tensor[[1, 128], pl.FP32],
               out: pl.Out[pl.Tensor[[1, 256], pl.FP32]]) -> pl.Tensor[[1, 256], pl.FP32]:
        merged: pl.Tensor[[1, 256], pl.FP32] = pl.tensor.mrgsort(a, b, exhausted={exhausted})
        done = pl.assemble(out, merged, [0, 0])
        return done
    """)
    rng = np.random.default_rng(9)
    # Rows of (score, index) pairs sorted by descending score, as tile.sort32 leaves them.
    def row() -> Array:
        scores = np.sort(rng.uniform(-1, 1, 64).astype(np.float32))[::-1]
        pairs = np.empty(128, np.float32)
        pairs[0::2] = scores
        pairs[1::2] = np.arange(64, dtype=np.uint32).view(np.float32)
        return pairs.reshape(1, 128)
    a, b = row(), row()
    rc, log = _run(tmp_path, capsys, text, {"a": a, "b": b, "out": np.zeros((1, 256), np.float32)})
    assert rc == 0 and "bit-exact" in log, log
    merge = [line for line in (tmp_path / "k.pto").read_text().splitlines() if "pto.tmrgsort" in line]
    assert len(merge) == 1 and merge[0].count("outs(") == 1 and f"exhausted = {str(exhausted).lower()}" in merge[0]
    _ptoas_accepts(tmp_path)
    if exhausted:
        return  # the merge stops once a list runs out: only the full merge has a plain reference
    got = np.load(tmp_path / "out.npz")["ret0"].reshape(-1)
    scores = np.concatenate([a[0, 0::2], b[0, 0::2]])
    assert (got[0::2].view(np.uint32) == np.sort(scores)[::-1].view(np.uint32)).all()


def test_a_group_wrapper_forwards_the_output_its_kernel_gained(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    text = _text("""\
    @pl.function(type=pl.FunctionType.InCore)
    def scale(self, x: pl.Tensor[[32], pl.FP32]) -> pl.Tensor[[32], pl.FP32]:
        y: pl.Tensor[[32], pl.FP32] = pl.muls(x, 3.0)
        return y

    @pl.function(type=pl.FunctionType.Group)
    def cluster(self, x: pl.Tensor[[32], pl.FP32]) -> pl.Tensor[[32], pl.FP32]:
        y: pl.Tensor[[32], pl.FP32] = self.scale(x)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32], pl.FP32]) -> pl.Tensor[[32], pl.FP32]:
        y: pl.Tensor[[32], pl.FP32] = self.cluster(x)
        return y
    """)
    x = np.random.default_rng(2).uniform(-5, 5, 32).astype(np.float32)
    rc, log = _run(tmp_path, capsys, text, {"x": x})
    assert rc == 0 and "bit-exact" in log, log
    got = np.load(tmp_path / "out.npz")["ret0"]
    assert (got.view(np.uint32) == (x * np.float32(3.0)).astype(np.float32).view(np.uint32)).all()


MATMUL_K = """\
@pl.function(type=pl.FunctionType.InCore)
def kernel(self, a: pl.Tensor[[16, {k}], pl.BF16], b: pl.Tensor[[{k}, 16], pl.BF16],
           out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
    a_mat: pl.Tile[[16, {k}], pl.BF16] = pl.load(a, [0, 0], [16, {k}], target_memory=pl.MemorySpace.Mat)
    b_mat: pl.Tile[[{k}, 16], pl.BF16] = pl.load(b, [0, 0], [{k}, 16], target_memory=pl.MemorySpace.Mat)
    c: pl.Tile[[16, 16], pl.FP32] = pl.tile.matmul(a_mat, b_mat)
    return pl.store(c, [0, 0], out)
"""


def test_an_unaligned_k_matmul_too_big_to_leave_whole_is_not_supported_yet(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, log = _run(tmp_path, capsys, _text(MATMUL_K.format(k=2056)))
    assert rc == 1 and "kernel.py:11:" in log, log
    assert "not supported yet: tile.matmul `c` [16, 16] x K=2056 cannot be L0-tiled" in log and "pad K" in log


def test_a_one_row_matmul_result_broadcasts_down_the_columns(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    # q @ k has M = 1, which the cube boxes to a whole fractal of rows: the column operand of
    # col_expand_mul is then a taller buffer whose valid region is the one row.
    text = _text("""\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, q: pl.Tensor[[1, 64], pl.BF16], k: pl.Tensor[[64, 32], pl.BF16],
               x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        row: pl.Tensor[[1, 32], pl.FP32] = pl.matmul(q, k, out_dtype=pl.FP32)
        y: pl.Tensor[[16, 32], pl.FP32] = pl.col_expand_mul(x, row)
        return y
    """)
    rng = np.random.default_rng(11)
    # Small integers: every product and the 64-term sums are exact in FP32, so the reference is too.
    q = rng.integers(-3, 4, (1, 64)).astype(np.float32)
    k = rng.integers(-3, 4, (64, 32)).astype(np.float32)
    x = rng.uniform(-2, 2, (16, 32)).astype(np.float32)
    rc, log = _run(tmp_path, capsys, text, {"q": q.astype(ml_dtypes.bfloat16), "k": k.astype(ml_dtypes.bfloat16),
                                            "x": x})
    assert rc == 0 and "bit-exact" in log, log
    expected = (x * (q.astype(np.float64) @ k.astype(np.float64)).astype(np.float32)).astype(np.float32)
    assert (np.load(tmp_path / "out.npz")["ret0"].view(np.uint32) == expected.view(np.uint32)).all()


def test_a_local_tensor_read_after_an_in_place_assemble_sees_the_write(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # `grown` *is* `acc` (tensor.assemble writes its target in place): reading `acc` afterwards
    # reads the assembled contents, in the reference and in the compiled kernel alike.
    text = _text("""\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        z = pl.full([16, 64], dtype=pl.FP32, value=0.0)
        for i, (acc,) in pl.range(4, init_values=(z,)):
            part = pl.slice(a, [16, 16], [0, i * 16])
            bumped = pl.adds(part, 1.0)
            grown = pl.assemble(acc, bumped, [0, i * 16])
            doubled = pl.add(acc, grown)
            halved = pl.muls(doubled, 0.5)
            out = pl.yield_(halved)
        return out
    """)
    a = np.random.default_rng(6).uniform(-2, 2, (16, 64)).astype(np.float32)
    rc, log = _run(tmp_path, capsys, text, {"a": a})
    assert rc == 0 and "bit-exact" in log, log
    expected = (a + np.float32(1.0)).astype(np.float32)  # (x + x) * 0.5 is exact
    assert (np.load(tmp_path / "out.npz")["ret0"].view(np.uint32) == expected.view(np.uint32)).all()


def _ints(seed: int, shape: tuple[int, ...], dtype: Any = np.float32) -> Array:
    # Small integers: every product and sum below is exact, so the NumPy reference is too.
    return np.random.default_rng(seed).integers(-3, 4, shape).astype(dtype)


def _bits(path: Path, name: str = "ret0") -> Array:
    return np.asarray(np.load(path / "out.npz")[name])


def test_a_leaf_opaque_tile_kernel_gets_its_l0_operands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A bare @pl.function working on tiles is a kernel (PTOCodegen emits it), so its matmul
    # is L0-tiled like an InCore one's instead of reaching PTO with its operands still in Mat.
    text = _text("""\
    @pl.function
    def kernel(self, a: pl.Tensor[[16, 256], pl.FP32], b: pl.Tensor[[256, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        a_mat: pl.Tile[[16, 256], pl.FP32, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 256], target_memory=pl.Mem.Mat)
        b_mat: pl.Tile[[256, 32], pl.FP32, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [256, 32], target_memory=pl.Mem.Mat)
        c: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a_mat, b_mat)
        out = pl.store(c, [0, 0], out)
        return out
    """)
    a, b = _ints(1, (16, 256)), _ints(2, (256, 32))
    rc, log = _run(tmp_path, capsys, text, {"a": a, "b": b})
    assert rc == 0 and "bit-exact" in log, log
    assert (_bits(tmp_path) == a @ b).all()
    _ptoas_accepts(tmp_path)


def test_a_store_in_a_return_statement_of_a_tile_kernel_is_emitted(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # `return pl.store(...)` written at the tile level: PTOCodegen used to drop the returned
    # call, so the kernel stored nothing (every element of the output stale).
    text = _text("""\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 128], pl.INT8], w: pl.Tensor[[64, 128], pl.INT8],
               out: pl.Out[pl.Tensor[[16, 64], pl.INT32]]) -> pl.Tensor[[16, 64], pl.INT32]:
        x_mat: pl.Tile[[16, 128], pl.INT8, pl.Mem.Mat] = pl.load(x, [0, 0], [16, 128], target_memory=pl.Mem.Mat)
        w_mat: pl.Tile[[64, 128], pl.INT8, pl.Mem.Mat] = pl.load(w, [0, 0], [64, 128], target_memory=pl.Mem.Mat)
        w_t = pl.tile.transpose_view(w_mat)
        c = pl.tile.matmul(x_mat, w_t)
        return pl.store(c, [0, 0], out)
    """)
    x, w = _ints(3, (16, 128), np.int8), _ints(4, (64, 128), np.int8)
    rc, log = _run(tmp_path, capsys, text, {"x": x, "w": w})
    assert rc == 0 and "bit-exact" in log, log
    assert (_bits(tmp_path) == x.astype(np.int32) @ w.astype(np.int32).T).all()
    assert "pto.tstore" in (tmp_path / "k.pto").read_text()


def test_a_placed_rank3_tile_kernel_is_flattened_before_l0_tiling(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Placed N-D tiles enter where FlattenTileNdTo2D still runs (the pipeline used to start
    # after it), and the batched accumulator carried by the loop is stored by the return.
    text = _text("""\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[1, 16, 64], pl.INT8], w: pl.Tensor[[1, 32, 64], pl.INT8],
               out: pl.Out[pl.Tensor[[1, 16, 32], pl.INT32]]) -> pl.Tensor[[1, 16, 32], pl.INT32]:
        x_mat: pl.Tile[[1, 16, 64], pl.INT8, pl.Mem.Mat] = pl.load(x, [0, 0, 0], [1, 16, 64], target_memory=pl.Mem.Mat)
        w_mat: pl.Tile[[1, 32, 64], pl.INT8, pl.Mem.Mat] = pl.load(w, [0, 0, 0], [1, 32, 64], target_memory=pl.Mem.Mat)
        w_t = pl.tile.transpose_view(w_mat)
        first = pl.tile.batch_matmul(x_mat, w_t)
        for _i, (acc,) in pl.range(3, init_values=(first,)):
            more = pl.tile.batch_matmul_acc(acc, x_mat, w_t)
            acc = pl.yield_(more)
        return pl.store(acc, [0, 0, 0], out)
    """)
    x, w = _ints(5, (1, 16, 64), np.int8), _ints(6, (1, 32, 64), np.int8)
    rc, log = _run(tmp_path, capsys, text, {"x": x, "w": w})
    assert rc == 0 and "bit-exact" in log, log
    assert (_bits(tmp_path) == 4 * (x.astype(np.int32) @ w.astype(np.int32).transpose(0, 2, 1))).all()


def test_a_slice_of_a_matmul_product_off_the_fractal_boxes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # An [8, 16] window at row 4 is not whole 16x16 boxes of the Acc tile: the product moves to
    # Vec first and the window is taken there (it used to be an Acc subview BoxedExtents rejected).
    text = _text("""\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[32, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[8, 16], pl.FP32]:
        c: pl.Tensor[[32, 64], pl.FP32] = pl.matmul(a, b, out_dtype=pl.FP32)
        s: pl.Tensor[[8, 16], pl.FP32] = pl.slice(c, [8, 16], [4, 16])
        return s
    """)
    a, b = _ints(7, (32, 64)), _ints(8, (64, 64))
    rc, log = _run(tmp_path, capsys, text, {"a": a, "b": b})
    assert rc == 0 and "bit-exact" in log, log
    assert (_bits(tmp_path) == (a @ b)[4:12, 16:32]).all()


ONE_ROW_LEFT = """\
@pl.function(type=pl.FunctionType.InCore)
def kernel(self, a: pl.Tensor[[1, 128], pl.FP32], b: pl.Tensor[[128, 64], pl.FP32],
           out: pl.Out[pl.Tensor[[1, 64], pl.FP32]]) -> pl.Tensor[[1, 64], pl.FP32]:
    lhs = pl.load(a, [0, 0], {window}, target_memory=pl.MemorySpace.Mat)
    rhs = pl.load(b, [0, 0], [128, 64], target_memory=pl.MemorySpace.Mat)
    c = pl.tile.{op}(lhs, rhs)
    out = pl.store(c, [0, 0], out)
    return out
"""


@pytest.mark.parametrize("op", ["matmul", "gemv"])
def test_a_one_row_mat_left_operand_is_a_located_error(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      op: str) -> None:
    # mad writes a whole 16-row box into L0C; a [1, 64] accumulator has one row of room.
    rc, log = _run(tmp_path, capsys, _text(ONE_ROW_LEFT.format(window="[1, 128]", op=op)))
    assert rc == 1 and "kernel.py:11:" in log, log
    assert f"not supported yet: tile.{op} of a left operand `lhs` with 1 physical row" in log
    assert "pl.load(a, [0, 0], [16, 128], [1, 128]" in log


@pytest.mark.parametrize("op", ["matmul", "gemv"])
def test_a_boxed_one_row_left_operand_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str], op: str) -> None:
    a, b = _ints(9, (1, 128)), _ints(10, (128, 64))
    rc, log = _run(tmp_path, capsys, _text(ONE_ROW_LEFT.format(window="[16, 128], [1, 128]", op=op)),
                   {"a": a, "b": b})
    assert rc == 0 and "bit-exact" in log, log
    assert (_bits(tmp_path) == a @ b).all()
    _ptoas_accepts(tmp_path)

def test_a_tile_parameter_is_fed_from_the_inputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The simulator writes a tile parameter's input into its buffer before the kernel runs (the
    # reference interpreter takes it as the tile's value); random inputs cover it too.
    text = _text("""\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 64], pl.BF16], b: pl.Tensor[[64, 32], pl.BF16],
               seed: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        a_mat: pl.Tile[[16, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Mat)
        b_mat: pl.Tile[[64, 32], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [64, 32], target_memory=pl.Mem.Mat)
        c: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(seed, a_mat, b_mat)
        out = pl.store(c, [0, 0], out)
        return out
    """)
    rng = np.random.default_rng(2)
    a = rng.integers(-4, 5, (16, 64)).astype(np.float32)
    b = rng.integers(-4, 5, (64, 32)).astype(np.float32)
    seed = rng.integers(-100, 100, (16, 32)).astype(np.float32)
    rc, log = _run(tmp_path, capsys, text, {"a": a.astype(ml_dtypes.bfloat16), "b": b.astype(ml_dtypes.bfloat16),
                                            "seed": seed})
    assert rc == 0, log
    # Small integers: every product and sum is exact in FP32, whatever the order.
    assert np.load(tmp_path / "out.npz")["out"].tolist() == (seed + a @ b).tolist()
    path = tmp_path / "kernel.py"
    assert main([str(path), "--verify-all", "--simulate"]) == 0, capsys.readouterr()
