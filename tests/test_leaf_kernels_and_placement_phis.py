"""Two frontend rules: a bare @pl.function that calls nothing but computes on tensors is a
kernel (ConvertTensorToTileOps lowers it like an InCore one), and an if whose branches leave one
tile placed and the other not placed yet merges into an unplaced result (ConvertToSSA), which
InferTileMemorySpace places; tiles placed in different spaces still do not merge."""

from __future__ import annotations

import numpy as np
import pytest

from languages.pl_parser import parse_program
from nanopass.diagnostics import CompileError
from nanopass_pto.run import compile_program, reference, run

LEAF_TENSOR_FUNCTION = """\
import pypto.language as pl


@pl.program
class Leaf:
    @pl.function
    def scaled_sum(self, a: pl.Tensor[[32, 64], pl.FP32], b: pl.Tensor[[32, 64], pl.FP32]) -> pl.Tensor[[32, 64], pl.FP32]:
        s: pl.Tensor[[32, 64], pl.FP32] = pl.add(a, b)
        y: pl.Tensor[[32, 64], pl.FP32] = pl.mul(s, 3.0)
        return y
"""


def test_a_bare_function_computing_on_tensors_is_compiled_as_a_kernel() -> None:
    program = parse_program(LEAF_TENSOR_FUNCTION, "leaf.py")
    a = np.linspace(-4, 4, 32 * 64, dtype=np.float32).reshape(32, 64)
    b = np.float32(0.25) * a[::-1].copy()
    expected = (a + b) * np.float32(3)
    compiled = compile_program(program, verify_all=True)
    assert np.array_equal(run(compiled, {"a": a, "b": b})["ret0"], expected)
    assert np.array_equal(reference(program, {"a": a, "b": b})["ret0"], expected)


# `picked` is the loaded tile (placed in Vec by target_memory) or a product of it (not placed yet).
PLACEMENT_PHI = """\
import pypto.language as pl


@pl.program
class PickOne:
    @pl.function(type=pl.FunctionType.InCore)
    def pick(self, flag: pl.Scalar[pl.INDEX], x: pl.Tensor[[8, 64], pl.FP32], out: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> pl.Tensor[[8, 64], pl.FP32]:
        loaded: pl.Tile[[8, 64], pl.FP32] = pl.tile.load(x, [0, 0], [8, 64], target_memory=pl.MemorySpace.SPACE)
        doubled: pl.Tile[[8, 64], pl.FP32] = pl.tile.muls(loaded, 2.0)
        if flag == 0:
            picked = loaded
        else:
            picked = doubled
        stored: pl.Tensor[[8, 64], pl.FP32] = pl.tile.store(picked, [0, 0], out)
        return stored
"""


@pytest.mark.parametrize("flag", [0, 1])
def test_branches_differing_only_in_placement_merge_and_run(flag: int) -> None:
    program = parse_program(PLACEMENT_PHI.replace("SPACE", "Vec"), "pick.py")
    x = np.linspace(-1, 1, 8 * 64, dtype=np.float32).reshape(8, 64)
    expected = x if flag == 0 else x * np.float32(2)
    compiled = compile_program(program, verify_all=True)
    assert np.array_equal(run(compiled, {"flag": flag, "x": x})["out"], expected)


def test_branches_placed_in_different_spaces_still_do_not_merge() -> None:
    text = PLACEMENT_PHI.replace("SPACE", "Vec").replace(
        "pl.tile.muls(loaded, 2.0)", "pl.tile.load(x, [0, 0], [8, 64], target_memory=pl.MemorySpace.Mat)")
    with pytest.raises(CompileError) as caught:
        compile_program(parse_program(text, "pick.py"))
    rendered = caught.value.render()
    assert "pick.py:11:13: error: [ConvertToSSA] `picked` is pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec" in rendered
    assert "pl.Mem.Mat" in rendered


SCALAR_RESULT = """\
import pypto.language as pl


@pl.program
class FirstElement:
    @pl.function(type=pl.FunctionType.InCore)
    def first(self, a: pl.Tensor[[8], pl.FP32]) -> pl.Scalar[pl.FP32]:
        v: pl.Scalar[pl.FP32] = pl.tensor.read(a, [0])
        return v

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[8], pl.FP32]) -> pl.Scalar[pl.FP32]:
        v: pl.Scalar[pl.FP32] = self.first(a)
        return v
"""


def test_a_kernel_returning_a_scalar_is_named_not_supported_yet() -> None:
    program = parse_program(SCALAR_RESULT, "first.py")
    compiled = compile_program(program, verify_all=True)
    with pytest.raises(CompileError) as caught:
        run(compiled, {"a": np.arange(8, dtype=np.float32)})
    rendered = caught.value.render()
    assert "first.py:8:9: error: [Interpreter] not supported yet: kernel first returns a scalar" in rendered
