"""What a local's annotation says and what it leaves to the op (JIT_FRONTEND.md 3.2: PyPTO checks
an annotated local's kind, dtype, rank and static dims against the inferred type).

- A space written on a result the op leaves unplaced (`pl.tile.load` without target_memory)
  places it, provided the op can produce that space.
- An annotation without a `pl.TileView` states no layout: the layout the op gives its result in
  that space (TEXTRACT's L0 format for an extract into Left) completes it.
- What the annotation does state (dtype, dims, a written TileView) must still agree.
"""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from tests.kernel_cli import Array, compile_kernel, program_text


def _compile(tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str,
             inputs: dict[str, Array] | None = None) -> tuple[int, str]:
    return compile_kernel(tmp_path, capsys, program_text(body), inputs)


PLACED_BY_ANNOTATION = """\
@pl.function(type=pl.FunctionType.InCore)
def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Tensor[[16, 64], pl.FP32],
           out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
    xt: pl.Tile[[16, 64], pl.FP32, pl.Mem.{space}] = pl.tile.load(x, [0, 0], [16, 64])
    yt: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(y, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
    s: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(xt, yt)
    return pl.store(s, [0, 0], out)
"""


def test_a_space_in_the_annotation_places_a_load_that_names_none(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(7)
    x = rng.standard_normal((16, 64)).astype(np.float32)
    y = rng.standard_normal((16, 64)).astype(np.float32)
    rc, log = _compile(tmp_path, capsys, PLACED_BY_ANNOTATION.format(space="Vec"), {"x": x, "y": y})
    assert rc == 0, log
    got = np.load(tmp_path / "out.npz")["out"]
    assert got.view(np.uint32).tolist() == (x + y).view(np.uint32).tolist()


def test_a_space_the_op_cannot_produce_is_still_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # tile.load writes Vec or Mat; an accumulator is the cube's output, never a load's.
    rc, log = _compile(tmp_path, capsys, PLACED_BY_ANNOTATION.format(space="Acc"))
    assert rc != 0
    assert "kernel.py:9:" in log and "`xt` is annotated" in log and "tile.load" in log, log


EXTRACT_INTO_LEFT = """\
@pl.function(type=pl.FunctionType.InCore)
def kernel(self, a: pl.Tensor[[16, 128], pl.BF16], b: pl.Tensor[[128, 32], pl.BF16],
           out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
    a_mat: pl.Tile[[16, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 128], target_memory=pl.Mem.Mat)
    b_mat: pl.Tile[[128, 32], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [128, 32], target_memory=pl.Mem.Mat)
    a_l0: pl.Tile[[16, 128], pl.BF16, pl.Mem.Left{view}] = pl.tile.extract(a_mat, 0, 0, [16, 128], target_memory=pl.Mem.Left)
    b_l0: pl.Tile[[128, 32], pl.BF16, pl.Mem.Right] = pl.tile.extract(b_mat, 0, 0, [128, 32], target_memory=pl.Mem.Right)
    c: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a_l0, b_l0)
    return pl.store(c, [0, 0], out)
"""


def test_an_annotation_without_a_tile_view_takes_the_extracts_layout(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(3)
    a = rng.integers(-8, 8, (16, 128)).astype(np.float32)
    b = rng.integers(-8, 8, (128, 32)).astype(np.float32)
    inputs = {"a": a.astype(ml_dtypes.bfloat16), "b": b.astype(ml_dtypes.bfloat16)}
    rc, log = _compile(tmp_path, capsys, EXTRACT_INTO_LEFT.format(view=""), inputs)
    assert rc == 0, log
    # Small integers: every product and partial sum is exact in FP32, so any order gives a @ b.
    assert np.load(tmp_path / "out.npz")["out"].tolist() == (a @ b).tolist()
    assert "loc=left, dtype=bf16, rows=16, cols=128, v_row=16, v_col=128, blayout=row_major" in \
        (tmp_path / "k.pto").read_text()


def test_a_written_tile_view_that_contradicts_the_extract_is_an_error(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    view = ", pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)"
    rc, log = _compile(tmp_path, capsys, EXTRACT_INTO_LEFT.format(view=view))
    assert rc != 0
    assert "kernel.py:11:" in log and "`a_l0` is annotated" in log and "tile.extract" in log, log


def test_a_kernel_written_at_tile_level_may_return_its_store(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    # The store used to vanish: PTOCodegen translated the return and dropped the call in it
    # (0xFFFFFFFF poison in every output element). Tile-level text binds the returned call to a
    # name, and PTOCodegen now requires NormalizedStmtStructure, so it cannot drop one again.
    body = PLACED_BY_ANNOTATION.format(space="Vec").replace(
        "pl.tile.load(x, [0, 0], [16, 64])", "pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)")
    assert "return pl.store(s, [0, 0], out)" in body
    rng = np.random.default_rng(11)
    x = rng.standard_normal((16, 64)).astype(np.float32)
    y = rng.standard_normal((16, 64)).astype(np.float32)
    rc, log = _compile(tmp_path, capsys, body, {"x": x, "y": y})
    assert rc == 0, log
    assert "pto.tstore" in (tmp_path / "k.pto").read_text()
    assert np.load(tmp_path / "out.npz")["out"].view(np.uint32).tolist() == (x + y).view(np.uint32).tolist()


def test_a_function_without_a_return_annotation_returns_what_its_return_gives(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # PyPTO infers the results of a @pl.function written without `->` from its return.
    body = """\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        y = pl.add(x, x)
        out = pl.assemble(out, y, [0, 0])
        return out
    """
    x = np.random.default_rng(5).standard_normal((16, 16)).astype(np.float32)
    rc, log = _compile(tmp_path, capsys, body, {"x": x})
    assert rc == 0, log
    assert np.load(tmp_path / "out.npz")["out"].view(np.uint32).tolist() == (x + x).view(np.uint32).tolist()


def test_returning_a_call_of_a_kernel_with_two_results_returns_both(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    body = """\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP32], a: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
               b: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        a = pl.assemble(a, pl.add(x, x), [0, 0])
        b = pl.assemble(b, pl.mul(x, x), [0, 0])
        return a, b

    @pl.function
    def main(self, x: pl.Tensor[[16, 16], pl.FP32]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        a = pl.create_tensor([16, 16], dtype=pl.FP32)
        b = pl.create_tensor([16, 16], dtype=pl.FP32)
        return self.kernel(x, a, b)
    """
    x = np.random.default_rng(6).standard_normal((16, 16)).astype(np.float32)
    rc, log = _compile(tmp_path, capsys, body, {"x": x})
    assert rc == 0, log
    results = np.load(tmp_path / "out.npz")
    assert {"ret0", "ret1"} <= set(results.files), results.files
    assert results["ret0"].view(np.uint32).tolist() == (x + x).view(np.uint32).tolist()
    assert results["ret1"].view(np.uint32).tolist() == (x * x).view(np.uint32).tolist()


def test_a_call_nested_in_a_tile_level_kernel_is_a_located_input_error(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    body = PLACED_BY_ANNOTATION.format(space="Vec").replace(
        "pl.tile.add(xt, yt)", "pl.tile.add(pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec), yt)")
    rc, log = _compile(tmp_path, capsys, body)
    assert rc != 0
    assert "kernel.py:11:" in log and "[NormalizedStmtStructure]" in log and "bind the nested value to a name" in log, log
