"""A matmul result narrowed by its dtype (BF16 / FP16 operands accumulate in FP32, the tensor is
the narrowed value) read through a view: a slice or an on-chip assemble of it sees the narrowed
elements, as every other consumer does (ConvertTensorToTileOps casts the accumulator with
FIXPIPE's rounding), so storing the window into its BF16 tensor is no FP32 store. Bit-exact
against the interpreter on both targets."""

from __future__ import annotations

from pathlib import Path

import pytest

from nanopass.pipeline import main

def _bit_exact_outputs(tmp_path: Path, capsys: pytest.CaptureFixture[str], kernel: str, backend: str) -> int:
    """Compile `kernel` under --verify-all --simulate; the number of outputs reported bit-exact."""
    (tmp_path / "k.py").write_text(kernel)
    rc = main([str(tmp_path / "k.py"), "--backend", backend, "--verify-all", "--simulate", "-o",
               str(tmp_path / "k.pto")])
    log = capsys.readouterr().err
    assert rc == 0, log
    return log.count("bit-exact")


KERNEL = """\
import pypto.language as pl


@pl.program
class NarrowedViews:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.BF16], b: pl.Tensor[[16, 16], pl.BF16]
          ) -> tuple[pl.Tensor[[8, 16], pl.BF16], pl.Tensor[[1, 1], pl.BF16], pl.Tensor[[16, 32], pl.BF16]]:
        c: pl.Tensor[[16, 16], pl.BF16] = pl.tensor.matmul(a, b)
        top: pl.Tensor[[8, 16], pl.BF16] = pl.tensor.slice(c, [8, 16], [0, 0])
        one: pl.Tensor[[1, 1], pl.BF16] = pl.tensor.slice(c, [1, 1], [3, 5])
        z: pl.Tensor[[16, 32], pl.BF16] = pl.tensor.full([16, 32], value=pl.const(0.0, pl.BF16), dtype=pl.BF16)
        placed: pl.Tensor[[16, 32], pl.BF16] = pl.tensor.assemble(z, c, [0, 16])
        return top, one, placed

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.BF16], b: pl.Tensor[[16, 16], pl.BF16]
             ) -> tuple[pl.Tensor[[8, 16], pl.BF16], pl.Tensor[[1, 1], pl.BF16], pl.Tensor[[16, 32], pl.BF16]]:
        r: tuple[pl.Tensor[[8, 16], pl.BF16], pl.Tensor[[1, 1], pl.BF16], pl.Tensor[[16, 32], pl.BF16]] = self.k(a, b)
        return r
"""


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_views_of_a_narrowed_matmul_result_read_the_narrowed_value(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], backend: str) -> None:
    assert _bit_exact_outputs(tmp_path, capsys, KERNEL, backend) == 3


EXPANDS = """\
import pypto.language as pl


@pl.program
class E:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[20, 32], pl.BF16], b: pl.Tensor[[32, 32], pl.BF16]) -> tuple[pl.Tensor[[20, 32], pl.BF16], pl.Tensor[[20, 32], pl.FP32, pl.TensorView(valid_shape=[7, 32])]]:
        c: pl.Tensor[[20, 32], pl.BF16] = pl.tensor.matmul(a, b)
        e: pl.Tensor[[20, 32], pl.BF16] = pl.tensor.expands(c, pl.const(3.0, pl.BF16))
        s: pl.Tensor[[20, 32], pl.BF16, pl.TensorView(valid_shape=[7, 32])] = pl.tensor.slice(a, [20, 32], [0, 0], [7, 32])
        d0: pl.Tensor[[20, 32], pl.FP32] = pl.tensor.matmul(s, b, out_dtype=pl.FP32)
        d: pl.Tensor[[20, 32], pl.FP32, pl.TensorView(valid_shape=[7, 32])] = pl.tensor.set_validshape(d0, 7, 32)
        f: pl.Tensor[[20, 32], pl.FP32, pl.TensorView(valid_shape=[7, 32])] = pl.tensor.expands(d, pl.const(2.0, pl.FP32))
        return e, f

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[20, 32], pl.BF16], b: pl.Tensor[[32, 32], pl.BF16]) -> tuple[pl.Tensor[[20, 32], pl.BF16], pl.Tensor[[20, 32], pl.FP32, pl.TensorView(valid_shape=[7, 32])]]:
        r: tuple[pl.Tensor[[20, 32], pl.BF16], pl.Tensor[[20, 32], pl.FP32, pl.TensorView(valid_shape=[7, 32])]] = self.k(a, b)
        return r
"""


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_expands_of_a_cube_result_fills_a_tile_of_the_tensors_type(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], backend: str) -> None:
    # expands reads only its target's shape and dtype: of a cube result (boxed [32, 32] for
    # M = 20, held in FP32 for a BF16 tensor) it filled the accumulator's tile, which a BF16 store
    # refused ('expected dtype BF16, got FP32') and A2/A3's vector core cannot read at all.
    assert _bit_exact_outputs(tmp_path, capsys, EXPANDS, backend) == 2
