"""A GM tensor as tensor.matmul_acc's accumulator: the accumulator lives in Acc, which no load
fills, so ConvertTensorToTileOps declines it at the user's line; the registry states that once
(`never_loaded`) and the generator reads it, so a campaign never draws the call with a GM
accumulator (issue 8's 10-minute campaign drew one)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from backend.fuzzing.generator import reaching_kernel
from backend.fuzzing.registry_calls import generatable, not_generated_reason
from languages.ops import REGISTRY, never_loaded

PROGRAM = '''import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.matmul_acc(x, x, x)
        return t

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        out: pl.Tensor[[16, 16], pl.FP32] = self.kernel0(x)
        return out
'''


def test_only_the_accumulator_is_never_loaded() -> None:
    opdef = REGISTRY.get("tensor.matmul_acc")
    assert never_loaded(opdef, 0)
    assert not never_loaded(opdef, 1) and not never_loaded(opdef, 2)
    assert not never_loaded(REGISTRY.get("tensor.matmul"), 0)
    assert not any(never_loaded(REGISTRY.get("tensor.add"), i) for i in range(2))


def test_a_gm_accumulator_is_declined_at_the_call(tmp_path: Path) -> None:
    path = tmp_path / "gm_acc.py"
    path.write_text(PROGRAM)
    run = subprocess.run([sys.executable, "-m", "nanopass.pipeline", str(path), "--verify-all"],
                         capture_output=True, text=True)
    assert run.returncode == 1, run.stderr
    assert f"{path}:8:43: error: [ConvertTensorToTileOps] operand 0 of `tensor.matmul_acc` is a GM tensor" in run.stderr
    assert never_loaded(REGISTRY.get("tensor.matmul_acc"), 0) in run.stderr
    assert "Traceback" not in run.stderr


def test_the_generator_reads_the_same_fact() -> None:
    opdef = REGISTRY.get("tensor.matmul_acc")
    assert not generatable(opdef)
    assert never_loaded(opdef, 0) in not_generated_reason(opdef)
    assert reaching_kernel(opdef, kernels=10) is None
