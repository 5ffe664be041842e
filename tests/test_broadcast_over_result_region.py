"""A tensor broadcast op whose lhs is valid over less than its result (operands with different
valid regions give a full-shape result) computes over the whole result: ConvertTensorToTileOps
widens the lhs of the row_expand_* / col_expand_* tile op it lowers to, whose result is valid
where its lhs is (finding c38f671a79: 15 of 16 elements were never written)."""

from __future__ import annotations

import numpy as np
import pytest

from languages.pl_parser import parse_program
from nanopass_pto.run import compile_program, random_inputs, run

HEADER = "import pypto.language as pl\n\n\n@pl.program\nclass K:\n    @pl.function(type=pl.FunctionType.InCore)\n"

PER_ROW = HEADER + """\
    def k(self, x: pl.Tensor[[4, 16], pl.FP32], v: pl.Tensor[[4, 1], pl.FP32]) -> pl.Tensor[[4, 16], pl.FP32]:
        n: pl.Tensor[[4, 16], pl.FP32, pl.TensorView(valid_shape=[4, 1])] = pl.tensor.set_validshape(x, 4, 1)
        return pl.tensor.sub(n, v)
"""

PER_COLUMN = HEADER + """\
    def k(self, x: pl.Tensor[[8, 16], pl.FP32], v: pl.Tensor[[1, 16], pl.FP32]) -> pl.Tensor[[8, 16], pl.FP32]:
        n: pl.Tensor[[8, 16], pl.FP32, pl.TensorView(valid_shape=[2, 16])] = pl.tensor.set_validshape(x, 2, 16)
        return pl.tensor.mul(n, v)
"""


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
@pytest.mark.parametrize(("text", "reference"), [
    (PER_ROW, lambda x, v: x - v),
    (PER_COLUMN, lambda x, v: x * v),
])
def test_the_result_is_computed_over_its_whole_valid_region(backend: str, text: str, reference: object) -> None:
    compiled = compile_program(parse_program(text, "k.py"), backend=backend, verify_all=True)
    inputs = random_inputs(compiled.source, 3)
    got = np.asarray(run(compiled, inputs)["ret0"], dtype=np.float32)
    x, v = (np.asarray(inputs[n], dtype=np.float32) for n in ("x", "v"))
    expected = np.asarray(reference(x, v), dtype=np.float32)  # type: ignore[operator]
    assert np.array_equal(got.view(np.uint32), expected.view(np.uint32))


def test_the_mutant_that_keeps_the_lhs_valid_region_is_seen_by_the_simulation() -> None:
    from nanopass_pto.mutants import MUTANTS
    from nanopass_pto.run import compare, reference

    mutant = {m.name: m for m in MUTANTS}["broadcast-lhs-keeps-valid"]
    with mutant.applied():
        compiled = compile_program(parse_program(PER_ROW, "k.py"), backend="Ascend950", verify_all=True)
    inputs = random_inputs(compiled.source, 3)
    reports = compare(reference(compiled.source, inputs), run(compiled, inputs))
    assert reports and not all(r.ok for r in reports), reports
