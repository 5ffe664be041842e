"""A compact accumulator's layout follows its valid rows: MAD writes L0C at a row pitch of its
valid rows rounded up to 16, and readers walk a compact tile at that pitch. Narrowing the valid
rows of a matmul result across a box (pl.set_validshape(c, 1, 22) of an M = 20 product laid out
at pitch 32) must keep that pitch: the re-validated tile is not compact. It used to stay compact
and its store read every 16-column box past the first from the wrong rows (a 10-minute
campaign's finding); it now runs bit-exact on both targets against NumPy. AccCompactValid
checks every re-view's pitch (the mutant that keeps the result compact is caught), and a
compact accumulator whose pitch is neither is refused by name."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from nanopass.pipeline import main
from nanopass_pto.mutants import MUTANTS
from tests.kernel_cli import compile_kernel, program_text

NARROWED_PRODUCT = program_text("""\
@pl.function(type=pl.FunctionType.InCore)
def kernel(self, a: pl.Tensor[[20, 16], pl.FP16], b: pl.Tensor[[16, 32], pl.FP16]) -> pl.Tensor[[20, 32], pl.FP32, pl.TensorView(valid_shape=[{rows}, 22])]:
    c: pl.Tensor[[20, 32], pl.FP32] = pl.matmul(a, b, out_dtype=pl.FP32)
    v: pl.Tensor[[20, 32], pl.FP32, pl.TensorView(valid_shape=[{rows}, 22])] = pl.set_validshape(c, {rows}, 22)
    return v

@pl.function(type=pl.FunctionType.Orchestration)
def main(self, a: pl.Tensor[[20, 16], pl.FP16], b: pl.Tensor[[16, 32], pl.FP16]) -> pl.Tensor[[20, 32], pl.FP32, pl.TensorView(valid_shape=[{rows}, 22])]:
    r = self.kernel(a, b)
    return r
""")


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
@pytest.mark.parametrize("rows", [1, 7, 17])
def test_a_narrowed_product_is_stored_at_its_layouts_pitch(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           backend: str, rows: int) -> None:
    rng = np.random.default_rng(rows)
    # Small integers: every product and partial sum is exact in FP32, whatever the summation order.
    a = rng.integers(-4, 5, (20, 16)).astype(np.float16)
    b = rng.integers(-4, 5, (16, 32)).astype(np.float16)
    path = tmp_path / "kernel.py"
    path.write_text(NARROWED_PRODUCT.format(rows=rows))
    np.savez(tmp_path / "in.npz", a=a, b=b)
    rc = main([str(path), "--verify-all", "-o", str(tmp_path / "k.pto"), "--backend", backend, "--simulate",
               "--inputs", str(tmp_path / "in.npz"), "--save-outputs", str(tmp_path / "out.npz")])
    log = capsys.readouterr().err
    assert rc == 0 and "bit-exact" in log, log
    got = np.load(tmp_path / "out.npz")["ret0"][:rows, :22]
    expected = (a.astype(np.float64) @ b.astype(np.float64))[:rows, :22].astype(np.float32)
    assert (got.view(np.uint32) == expected.view(np.uint32)).all()


def test_the_mutant_keeping_the_result_compact_is_caught(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "kernel.py"
    path.write_text(NARROWED_PRODUCT.format(rows=1))
    mutant = {m.name: m for m in MUTANTS}["compact-acc-revalidated-compact"]
    with mutant.applied():
        rc = main([str(path), "--verify-all", "-o", str(tmp_path / "k.pto"), "--reproducer-dir", str(tmp_path / "r")])
    log = capsys.readouterr().err
    assert rc == 2 and "[AccCompactValid]" in log and "read at row pitch 32" in log and "pitch 16" in log, log


def test_a_compact_accumulator_narrower_than_its_rows_is_not_revalidated_across_boxes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Left valid rows 5 of 32: MAD lays the product at pitch 16, less than the 32 physical
    rows, so 20 valid rows (pitch 32) have no view over the same bytes."""
    text = program_text("""\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[32, 16], pl.FP16], b: pl.Tensor[[16, 32], pl.FP16], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        ta: pl.Tile[[32, 16], pl.FP16, pl.Mem.Mat, pl.TileView(valid_shape=[5, 16])] = pl.tile.load(a, [0, 0], [32, 16], [5, 16], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[16, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        la: pl.Tile[[32, 16], pl.FP16, pl.Mem.Left, pl.TileView(valid_shape=[5, 16])] = pl.tile.move(ta, target_memory=pl.Mem.Left)
        rb: pl.Tile[[16, 32], pl.FP16, pl.Mem.Right] = pl.tile.move(tb, target_memory=pl.Mem.Right)
        c: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc, pl.TileView(valid_shape=[5, 32], compact=True)] = pl.tile.matmul(la, rb)
        w = pl.tile.set_validshape(c, 20, 32)
        r: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(w, [0, 0], out)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[32, 16], pl.FP16], b: pl.Tensor[[16, 32], pl.FP16], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        r = self.kernel(a, b, out)
        return r
    """)
    rc, log = compile_kernel(tmp_path, capsys, text)
    assert rc == 1 and "kernel.py:13:" in log and "not supported yet" in log and "row pitch of 16" in log, log
