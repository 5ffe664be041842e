"""A product holds data in the rows its lhs has data for (and the columns its rhs has): the lhs
of `pl.matmul(pl.slice(a, [32, 16], [0, 0], valid_shape=[2, 16]), b)` is loaded over its two
valid rows, so only two rows of the product are computed, whatever tensor.matmul's full-shape
valid region says. DefinedReads checks a kernel's returned tensors too (they are stored over
their valid region): returning rows past the computed ones is refused at the return."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from languages.pl_parser import parse_program
from nanopass.pipeline import main
from nanopass_pto.run import compile_program, random_inputs, run

HEADER = "import pypto.language as pl\n\n\n@pl.program\nclass K:\n    @pl.function(type=pl.FunctionType.InCore)\n"

SIGNATURE = ("    def k(self, a: pl.Tensor[[32, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16]) -> "
             "pl.Tensor[[4, 16], pl.FP32]:\n"
             "        p: pl.Tensor[[32, 16], pl.FP32] = pl.tensor.matmul(pl.tensor.slice(a, [32, 16], [0, 0], [2, 16]), "
             "b, out_dtype=pl.FP32)\n")

# Rows 2 and 3 of the product were never computed.
PAST_THE_COMPUTED_ROWS = HEADER + SIGNATURE + """\
        w: pl.Tensor[[4, 16], pl.FP32] = pl.tensor.slice(p, [4, 16], [0, 0])
        return w
"""

THE_COMPUTED_ROWS = HEADER + SIGNATURE + """\
        w: pl.Tensor[[4, 16], pl.FP32, pl.TensorView(valid_shape=[2, 16])] = pl.tensor.slice(p, [4, 16], [0, 0], [2, 16])
        return w
"""


def test_returning_rows_the_product_never_computed_is_refused_at_the_return(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "k.py"
    path.write_text(PAST_THE_COMPUTED_ROWS)
    assert main([str(path), "--verify-all", "-o", str(tmp_path / "k.pto")]) != 0
    err = capsys.readouterr().err
    assert "k.py:10:" in err and "[DefinedReads] the kernel returns `w`" in err, err
    assert "tensor.matmul wrote only [2, 16]" in err and "Traceback" not in err, err


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_returning_the_computed_rows_matches_numpy(backend: str) -> None:
    compiled = compile_program(parse_program(THE_COMPUTED_ROWS, "k.py"), backend=backend, verify_all=True)
    inputs = random_inputs(compiled.source, 2)
    got = np.asarray(run(compiled, inputs)["ret0"], dtype=np.float32)[:2]
    a, b = (np.asarray(inputs[n], dtype=np.float16).astype(np.float32) for n in ("a", "b"))
    # NUMERICS.md: one sequential chain over K, each FP16 product exact in FP32, each sum rounded.
    expected = np.zeros((2, 16), dtype=np.float32)
    for k in range(16):
        expected = (expected + a[:2, k:k + 1] * b[k:k + 1, :]).astype(np.float32)
    assert np.array_equal(got.view(np.uint32), expected.view(np.uint32))


# The cube sums over the left operand's valid K; a right operand valid over fewer K rows would
# feed its padding into every sum (finding ad5626022d: the interpreter refused it at run time).
SHORT_RIGHT_K = HEADER + """\
    def k(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16]) -> pl.Tensor[[16, 16], pl.FP32]:
        c: pl.Tensor[[16, 16], pl.FP16, pl.TensorView(valid_shape=[16, 4])] = pl.tensor.set_validshape(b, 16, 4)
        return pl.tensor.matmul(a, c, b_trans=True, out_dtype=pl.FP32)
"""


def test_a_right_operand_valid_over_fewer_k_rows_is_refused_at_the_matmul(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "k.py"
    path.write_text(SHORT_RIGHT_K)
    assert main([str(path), "--verify-all", "-o", str(tmp_path / "k.pto")]) != 0
    err = capsys.readouterr().err
    assert "k.py:9:" in err and "is valid over K = 4 only, but the left operand over K = 16" in err, err
    assert "Traceback" not in err
