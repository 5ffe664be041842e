"""NumPy broadcasting aligns trailing axes: an [n] operand of a 2-D element-wise tensor op is an
[1, n] row, spread down the rows when the other operand has more (finding 2db73a0526: refused as
'only 2-D operands broadcast on chip')."""

from __future__ import annotations

import numpy as np
import pytest

from languages.pl_parser import parse_program
from nanopass_pto.run import compile_program, random_inputs, run

HEADER = "import pypto.language as pl\n\n\n@pl.program\nclass K:\n    @pl.function(type=pl.FunctionType.InCore)\n"

KERNEL = HEADER + """\
    def k(self, a: pl.Tensor[[4, 16], pl.FP32], r: pl.Tensor[[1, 16], pl.FP32], v: pl.Tensor[[16], pl.FP32]) -> tuple[
            pl.Tensor[[4, 16], pl.FP32], pl.Tensor[[1, 16], pl.FP32]]:
        down: pl.Tensor[[4, 16], pl.FP32] = pl.tensor.sub(a, v)
        row: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.mul(v, r)
        return down, row
"""


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_an_n_vector_broadcasts_as_a_row(backend: str) -> None:
    compiled = compile_program(parse_program(KERNEL, "k.py"), backend=backend, verify_all=True)
    inputs = random_inputs(compiled.source, 4)
    outputs = run(compiled, inputs)
    a, r, v = (np.asarray(inputs[n], dtype=np.float32) for n in ("a", "r", "v"))
    for got, expected in ((outputs["ret0"], a - v), (outputs["ret1"], v * r)):
        assert np.array_equal(np.asarray(got, dtype=np.float32).view(np.uint32), expected.view(np.uint32))
