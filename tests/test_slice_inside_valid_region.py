"""A slice's window reads its source's valid region.

A campaign sliced a product narrowed by set_validshape to [9, 15] at [3, 23] with extent [9, 9]:
the window lay past the valid region, yet the slice was typed valid over its whole window, and
DefinedReads failed after InferTileMemorySpace (an internal compiler error, finding 6c68afa2aa).
Past the valid region is no value: a window (or the slice's own valid_shape) reaching past it is
refused at the user's line, and one inside it runs bit-exact.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nanopass.pipeline import main

KERNEL = """\
import pypto.language as pl


@pl.program
class Windows:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[4, 8], pl.FP32]:
        y: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.adds(x, 1.0)
        n: pl.Tensor[[16, 32], pl.FP32, pl.TensorView(valid_shape=[9, 15])] = pl.tensor.set_validshape(y, 9, 15)
        w: pl.Tensor[[4, 8], pl.FP32] = pl.tensor.slice(n, [4, 8], [{row}, {col}])
        return w

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[4, 8], pl.FP32]:
        r: pl.Tensor[[4, 8], pl.FP32] = self.k(x)
        return r
"""


@pytest.mark.parametrize("row, col", [(6, 0), (0, 8), (3, 23)])
def test_a_window_past_the_valid_region_is_refused_at_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                               row: int, col: int) -> None:
    path = tmp_path / "k.py"
    path.write_text(KERNEL.format(row=row, col=col))
    assert main([str(path), "--verify-all"]) == 1
    err = capsys.readouterr().err
    assert f"{path}:10:" in err and "reaches past the valid region [9, 15]" in err, err
    assert "internal compiler error" not in err and "Traceback" not in err


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_a_window_inside_the_valid_region_runs_bit_exact(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         backend: str) -> None:
    path = tmp_path / "k.py"
    path.write_text(KERNEL.format(row=5, col=7))
    assert main([str(path), "--verify-all", "--simulate", "--backend", backend, "-o", str(tmp_path / "k.pto")]) == 0
    assert "bit-exact" in capsys.readouterr().err
