"""A row-expand exp-difference whose per-row operand is a cube result with N = 1 (a [m, 1] value
the Acc tile holds boxed a fractal wide): the vector unit's trowexpandexpdif reads the operand as
a dense column, which the boxed tile is not, and there is no element-wise expdif instruction to
run it as after broadcasting the column. ConvertTensorToTileOps lowers it as what it means
(NUMERICS: exp of the difference, the difference rounded first): the column broadcast over the
other operand (trowexpand), the element-wise difference (tsub), then texp, bit for bit."""

from __future__ import annotations

from pathlib import Path

import pytest

from backend.arrays import random_inputs
from languages.gen import pto as P
from languages.pl_parser import load_program
from nanopass_pto.run import compare, compile_program, reference, run

_KERNEL = '''import pypto.language as pl


@pl.program
class ShiftedExp:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 32], pl.FP32], a: pl.Tensor[[16, 64], pl.BF16],
          w: pl.Tensor[[64, 1], pl.BF16]) -> pl.Tensor[[16, 32], pl.FP32]:
        shift: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.matmul(a, w, out_dtype=pl.FP32)
        y: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.row_expand_expdif(x, shift)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 32], pl.FP32], a: pl.Tensor[[16, 64], pl.BF16],
             w: pl.Tensor[[64, 1], pl.BF16]) -> pl.Tensor[[16, 32], pl.FP32]:
        out: pl.Tensor[[16, 32], pl.FP32] = self.k(x, a, w)
        return out
'''


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_expdif_by_a_boxed_matmul_column_runs_bit_exact(tmp_path: Path, backend: str) -> None:
    path = tmp_path / "shifted_exp.py"
    path.write_text(_KERNEL)
    source = load_program(str(path))
    compiled = compile_program(source, backend=backend, verify_all=True)
    inputs = random_inputs(source, 0)
    reports = compare(reference(source, inputs), run(compiled, inputs))
    assert reports and all(r.ok for r in reports), [r.line for r in reports]
    emitted = [getattr(s.value, "op", "") for f in getattr(compiled.final, "functions", ())
               for s in getattr(f, "body", ()) if isinstance(s, (P.AssignStmt, P.EvalStmt))]
    assert {"pto.trowexpand", "pto.tsub", "pto.texp"} <= set(emitted), emitted
