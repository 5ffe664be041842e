"""A scalar read names an element of its operand's valid region.

Past the valid region is no value of the tensor: padding of a loaded tile, or GM bytes a narrowed
view does not name. A campaign drew `pl.tensor.read(v, [1, 0])` of a view valid over [1, 1]: the
reference read the parameter's byte there, the compiled kernel the view's unwritten padding (a
poison read, finding 75d68ff0e7). A static index outside the valid region is refused by the
deduction at the user's line; inside it, the read runs bit-exact.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nanopass.pipeline import main

KERNEL = """\
import pypto.language as pl


@pl.program
class Reads:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[8, 4], pl.FP32]) -> pl.Tensor[[8, 4], pl.FP32]:
        v: pl.Tensor[[8, 4], pl.FP32, pl.TensorView(valid_shape=[2, 3])] = pl.tensor.slice(x, [8, 4], [0, 0], [2, 3])
        s: pl.Scalar[pl.FP32] = pl.tensor.read(v, [{row}, {col}])
        y: pl.Tensor[[8, 4], pl.FP32] = pl.tensor.adds(x, s)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[8, 4], pl.FP32]) -> pl.Tensor[[8, 4], pl.FP32]:
        r: pl.Tensor[[8, 4], pl.FP32] = self.k(x)
        return r
"""


@pytest.mark.parametrize("row, col", [(2, 0), (0, 3), (5, 1)])
def test_a_read_past_the_valid_region_is_refused_at_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             row: int, col: int) -> None:
    path = tmp_path / "k.py"
    path.write_text(KERNEL.format(row=row, col=col))
    assert main([str(path), "--verify-all"]) == 1
    err = capsys.readouterr().err
    assert f"{path}:9:" in err and f"element [{row}, {col}] lies outside the valid region [2, 3]" in err, err
    assert "Traceback" not in err and "internal compiler error" not in err


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_a_read_inside_the_valid_region_runs_bit_exact(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                       backend: str) -> None:
    path = tmp_path / "k.py"
    path.write_text(KERNEL.format(row=1, col=2))
    assert main([str(path), "--verify-all", "--simulate", "--backend", backend, "-o", str(tmp_path / "k.pto")]) == 0
    assert "bit-exact" in capsys.readouterr().err
