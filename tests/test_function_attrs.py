"""Function attributes (`@pl.function(attrs={...})`, JIT_FRONTEND.md section 3.1): the launch
attributes `core_num` (a Spmd wrapper dispatches its kernel once per block) and
`dual_aiv_dispatch` (an AIV kernel runs on both vector lanes) parse, print, survive every pass
and change what the interpreter and the simulator run; instances that race on an output, and
attributes this compiler does not implement, are located errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from languages.pl_parser import parse_program
from languages.pl_printer import print_program
from nanopass.diagnostics import CompileError
from nanopass_pto.run import compile_program, reference, run

Array = npt.NDArray[Any]

# Four blocks, each scaling its own row by (its block index + the number of blocks).
PER_BLOCK_ROWS = """\
import pypto.language as pl


@pl.program
class PerBlockRows:
    @pl.function(type=pl.FunctionType.InCore)
    def scale_row(self, x: pl.Tensor[[4, 32], pl.FP32], y: pl.Out[pl.Tensor[[4, 32], pl.FP32]]) -> pl.Tensor[[4, 32], pl.FP32]:
        row: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        blocks: pl.Scalar[pl.INDEX] = pl.tile.get_block_num()
        t: pl.Tile[[1, 32], pl.FP32] = pl.load(x, [row, 0], [1, 32])
        scaled: pl.Tile[[1, 32], pl.FP32] = pl.tile.muls(t, pl.cast(row + blocks, pl.FP32))
        stored: pl.Tensor[[4, 32], pl.FP32] = pl.store(scaled, [row, 0], y)
        return stored

    @pl.function(type=pl.FunctionType.Spmd, attrs={"core_num": 4})
    def grid(self, x: pl.Tensor[[4, 32], pl.FP32], y: pl.Out[pl.Tensor[[4, 32], pl.FP32]]) -> pl.Tensor[[4, 32], pl.FP32]:
        stored: pl.Tensor[[4, 32], pl.FP32] = self.scale_row(x, y)
        return stored

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 32], pl.FP32], y: pl.Out[pl.Tensor[[4, 32], pl.FP32]]) -> pl.Tensor[[4, 32], pl.FP32]:
        stored: pl.Tensor[[4, 32], pl.FP32] = self.grid(x, y)
        return stored
"""

# Each vector lane negates its own half of the rows; WRITE_ROW picks where it writes.
LANE_HALVES = """\
import pypto.language as pl


@pl.program
class LaneHalves:
    @pl.function(type=pl.FunctionType.AIV, attrs={"dual_aiv_dispatch": True})
    def negate_half(self, a: pl.Tensor[[32, 16], pl.FP32], out: pl.Out[pl.Tensor[[32, 16], pl.FP32]]) -> pl.Tensor[[32, 16], pl.FP32]:
        lane: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(a, [lane * 16, 0], [16, 16])
        n: pl.Tile[[16, 16], pl.FP32] = pl.tile.neg(t)
        written: pl.Tensor[[32, 16], pl.FP32] = pl.store(n, [WRITE_ROW, 0], out)
        return written
"""


def _rows() -> Array:
    return np.arange(4 * 32, dtype=np.float32).reshape(4, 32) / 8


def test_core_num_runs_one_instance_per_block_in_the_interpreter_and_the_simulator() -> None:
    program = parse_program(PER_BLOCK_ROWS, "per_block.py")
    x = _rows()
    expected = x * (np.arange(4, dtype=np.float32)[:, None] + 4)
    assert np.array_equal(reference(program, {"x": x})["y"], expected)
    compiled = compile_program(program, verify_all=True)
    assert np.array_equal(run(compiled, {"x": x})["y"], expected)


def test_dual_aiv_dispatch_runs_both_lanes() -> None:
    program = parse_program(LANE_HALVES.replace("WRITE_ROW", "lane * 16"), "lanes.py")
    a = np.linspace(-3, 3, 32 * 16, dtype=np.float32).reshape(32, 16)
    assert np.array_equal(reference(program, {"a": a})["out"], -a)
    compiled = compile_program(program, verify_all=True)
    assert np.array_equal(run(compiled, {"a": a})["out"], -a)


def test_lanes_writing_one_window_with_different_values_is_a_located_race() -> None:
    program = parse_program(LANE_HALVES.replace("WRITE_ROW", "0"), "racy.py")
    a = np.linspace(-3, 3, 32 * 16, dtype=np.float32).reshape(32, 16)
    with pytest.raises(CompileError) as caught:
        reference(program, {"a": a})
    text = caught.value.render()
    assert "racy.py:7:5" in text
    assert "lane 1 writes out[0, 0] after lane 0 wrote a different value there" in text


def test_attrs_print_and_parse_back_to_the_same_program() -> None:
    program = parse_program(PER_BLOCK_ROWS, "per_block.py")
    text = print_program(program)
    assert "@pl.function(type=pl.FunctionType.Spmd, attrs={'core_num': 4})" in text
    again = parse_program(text, "printed.py")
    assert again == program
    grid = next(f for f in again.functions if f.name == "grid")
    assert grid.attrs == (("core_num", 4),)


def test_split_mode_none_is_no_attribute_and_other_keys_are_kept_verbatim() -> None:
    text = PER_BLOCK_ROWS.replace('attrs={"core_num": 4}', 'attrs={"core_num": 4, "split": pl.SplitMode.NONE, '
                                                           '"stationary": "lhs"}')
    grid = next(f for f in parse_program(text, "kept.py").functions if f.name == "grid")
    assert grid.attrs == (("core_num", 4), ("stationary", "lhs"))


@pytest.mark.parametrize(("attrs", "message"), [
    ('{"core_num": 0}', "the function attribute 'core_num' must be a positive integer constant, got 0"),
    ('{"core_num": 4, "core_num": 2}', "the function attribute 'core_num' is given twice"),
    ('{"dual_aiv_dispatch": True}', "the function attribute 'dual_aiv_dispatch' belongs on a AIV function"),
    ('{"split": pl.SplitMode.UP_DOWN}', "not supported yet: the function attribute 'split'"),
    ('{"core_num": x}', "the function attribute 'core_num' must be a constant"),
    ('{4: 1}', "attrs= keys must be string literals"),
])
def test_bad_attributes_are_located_errors(attrs: str, message: str) -> None:
    text = PER_BLOCK_ROWS.replace('attrs={"core_num": 4}', f"attrs={attrs}")
    with pytest.raises(CompileError) as caught:
        parse_program(text, "bad.py")
    rendered = caught.value.render()
    assert message in rendered
    assert "bad.py:15:" in rendered


def test_core_num_on_a_kernel_is_rejected() -> None:
    text = PER_BLOCK_ROWS.replace("@pl.function(type=pl.FunctionType.InCore)",
                                  '@pl.function(type=pl.FunctionType.InCore, attrs={"core_num": 2})')
    with pytest.raises(CompileError) as caught:
        parse_program(text, "kernel.py")
    assert "'core_num' belongs on a Spmd function" in caught.value.render()


# A Spmd wrapper around a tensor-level kernel: the kernel gains an Out parameter for its result
# (ConvertTensorToTileOps), which the wrapper forwards and the orchestration allocates.
SPMD_TENSOR_KERNEL = """\
import pypto.language as pl


@pl.program
class WrappedTensorKernel:
    @pl.function(type=pl.FunctionType.InCore)
    def double(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y: pl.Tensor[[64], pl.FP32] = pl.add(x, x)
        return y

    @pl.function(type=pl.FunctionType.Spmd, attrs={"core_num": 2})
    def wrapper(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y: pl.Tensor[[64], pl.FP32] = self.double(x)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y: pl.Tensor[[64], pl.FP32] = self.wrapper(x)
        return y
"""


def test_a_spmd_wrapper_forwards_the_out_parameter_its_kernel_gains() -> None:
    program = parse_program(SPMD_TENSOR_KERNEL, "wrapped.py")
    x = np.linspace(-1, 1, 64, dtype=np.float32)
    compiled = compile_program(program, verify_all=True)
    assert np.array_equal(run(compiled, {"x": x})["ret0"], x + x)
