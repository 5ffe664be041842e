"""A view of a GM parameter names the parameter's bytes, not a copy taken where the view is
written (spec convert_tensor_to_tile_ops.md, "GM Identity and Read/Write Ordering"): a slice,
set_validshape or reshape of a parameter read after a scalar write to that parameter sees the
written value, and a scalar write through such a view lands in the parameter. Each kernel is
compiled under --verify-all, simulated, and compared bit for bit with a NumPy reference."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from tests.kernel_cli import compile_kernel, program_text

Array = npt.NDArray[Any]


def _run(tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, inputs: dict[str, Array]) -> dict[str, Array]:
    rc, log = compile_kernel(tmp_path, capsys, program_text(body), inputs)
    assert rc == 0, log
    return dict(np.load(tmp_path / "out.npz"))


def _inputs(**shapes: tuple[int, ...]) -> dict[str, Array]:
    rng = np.random.default_rng(7)
    return {name: rng.standard_normal(shape).astype(np.float32) for name, shape in shapes.items()}


def _same_bits(got: Array, want: Array) -> None:
    assert got.shape == want.shape
    assert np.array_equal(got.view(np.uint32), want.astype(np.float32).view(np.uint32))


def test_a_slice_taken_before_a_write_reads_the_written_value(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    inputs = _inputs(x=(16, 16), y=(8, 16))
    out = _run(tmp_path, capsys, """\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.InOut[pl.Tensor[[16, 16], pl.FP32]],
               y: pl.Tensor[[8, 16], pl.FP32]) -> pl.Tensor[[8, 16], pl.FP32]:
        lower = pl.tensor.slice(x, [8, 16], [8, 0])
        pl.tensor.write(x, [9, 3], 0.5)
        return pl.tensor.add(lower, y)
    """, inputs)
    x = inputs["x"].copy()
    x[9, 3] = 0.5
    _same_bits(out["ret0"], x[8:16] + inputs["y"])
    _same_bits(out["x"], x)


def test_a_set_validshape_view_taken_before_a_write_reads_the_written_value(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inputs = _inputs(x=(16, 16), y=(16, 16))
    out = _run(tmp_path, capsys, """\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.InOut[pl.Tensor[[16, 16], pl.FP32]],
               y: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        whole = pl.tensor.set_validshape(x, 16, 16)
        pl.tensor.write(x, [0, 0], -2.0)
        return pl.tensor.mul(whole, y)
    """, inputs)
    x = inputs["x"].copy()
    x[0, 0] = -2.0
    _same_bits(out["ret0"], x * inputs["y"])


def test_a_scalar_write_through_a_slice_lands_in_the_parameter(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    # `x` is declared In: the write through the view makes it written (UpgradeParamDirections).
    inputs = _inputs(x=(16, 16), y=(8, 16))
    out = _run(tmp_path, capsys, """\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP32],
               y: pl.Tensor[[8, 16], pl.FP32]) -> pl.Tensor[[8, 16], pl.FP32]:
        lower = pl.tensor.slice(x, [8, 16], [8, 0])
        pl.tensor.write(lower, [1, 2], 0.5)
        return pl.tensor.sub(lower, y)
    """, inputs)
    x = inputs["x"].copy()
    x[9, 2] = 0.5
    _same_bits(out["x"], x)
    _same_bits(out["ret0"], x[8:16] - inputs["y"])


def test_a_scalar_write_through_a_reshape_lands_at_the_row_major_position(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inputs = _inputs(x=(16, 16), y=(8, 32))
    out = _run(tmp_path, capsys, """\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.InOut[pl.Tensor[[16, 16], pl.FP32]],
               y: pl.Tensor[[8, 32], pl.FP32]) -> pl.Tensor[[8, 32], pl.FP32]:
        wide = pl.tensor.reshape(x, [8, 32])
        pl.tensor.write(wide, [3, 20], 0.25)
        return pl.tensor.add(wide, y)
    """, inputs)
    x = inputs["x"].copy()
    x.reshape(8, 32)[3, 20] = 0.25
    _same_bits(out["x"], x)
    _same_bits(out["ret0"], x.reshape(8, 32) + inputs["y"])


def test_a_view_read_in_a_loop_sees_each_iterations_write(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    inputs = _inputs(x=(16, 16), out=(4, 16))
    out = _run(tmp_path, capsys, """\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.InOut[pl.Tensor[[16, 16], pl.FP32]],
               out: pl.Out[pl.Tensor[[4, 16], pl.FP32]]) -> pl.Tensor[[4, 16], pl.FP32]:
        rows = pl.tensor.slice(x, [4, 16], [4, 0])
        for i, (acc,) in pl.range(3, init_values=(out,)):
            s = pl.tensor.read(rows, [0, i])
            pl.tensor.write(x, [4, i + 1], s)
            shifted = pl.tensor.adds(rows, 1.0)
            acc = pl.tensor.assemble(acc, shifted, [0, 0])
            acc = pl.yield_(acc)
        return acc
    """, inputs)
    x = inputs["x"].copy()
    for i in range(3):
        x[4, i + 1] = x[4, i]
    _same_bits(out["x"], x)
    _same_bits(out["ret0"], x[4:8] + np.float32(1.0))


def test_a_write_through_a_dtype_reinterpreting_view_says_not_supported_yet(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, log = compile_kernel(tmp_path, capsys, program_text("""\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.InOut[pl.Tensor[[16, 16], pl.FP32]],
               y: pl.Tensor[[16, 16], pl.INT32]) -> pl.Tensor[[16, 16], pl.INT32]:
        bits = pl.tensor.reinterpret_view(x, pl.INT32, shape=[16, 16])
        pl.tensor.write(bits, [0, 0], 7)
        return pl.tensor.add(bits, y)
    """))
    assert rc != 0
    assert "kernel.py:10:" in log and "not supported yet: tensor.write through `bits`" in log, log


def test_an_assemble_into_a_slice_of_a_parameter_writes_the_parameter(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inputs = _inputs(x=(16, 16), y=(8, 16))
    out = _run(tmp_path, capsys, """\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.InOut[pl.Tensor[[16, 16], pl.FP32]],
               y: pl.Tensor[[8, 16], pl.FP32]) -> pl.Tensor[[8, 16], pl.FP32]:
        lower = pl.tensor.slice(x, [8, 16], [8, 0])
        bumped = pl.tensor.adds(pl.tensor.slice(y, [4, 16], [0, 0]), 1.0)
        lower = pl.tensor.assemble(lower, bumped, [2, 0])
        return pl.tensor.add(lower, y)
    """, inputs)
    x = inputs["x"].copy()
    x[10:14] = inputs["y"][0:4] + np.float32(1.0)
    _same_bits(out["x"], x)
    _same_bits(out["ret0"], x[8:16] + inputs["y"])


def test_a_loop_carrying_a_slice_it_assembles_into_writes_the_parameter(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inputs = _inputs(x=(16, 16), y=(8, 16))
    out = _run(tmp_path, capsys, """\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.InOut[pl.Tensor[[16, 16], pl.FP32]],
               y: pl.Tensor[[8, 16], pl.FP32]) -> pl.Tensor[[8, 16], pl.FP32]:
        lower = pl.tensor.slice(x, [8, 16], [8, 0])
        for i, (acc,) in pl.range(2, init_values=(lower,)):
            block = pl.tensor.slice(y, [4, 16], [i * 4, 0])
            acc = pl.tensor.assemble(acc, block, [i * 4, 0])
            acc = pl.yield_(acc)
        return pl.tensor.muls(acc, 2.0)
    """, inputs)
    x = inputs["x"].copy()
    x[8:16] = inputs["y"]
    _same_bits(out["x"], x)
    _same_bits(out["ret0"], inputs["y"] * np.float32(2.0))


def test_the_mutant_that_loads_a_view_where_it_is_defined_is_caught(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    # Under the mutant the kernel of the first test reads the slice's old bytes: --simulate's
    # comparison with the interpreter fails (per pass: ConvertTensorToTileOps' output differs).
    from nanopass_pto.mutants import MUTANTS
    body = """\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.InOut[pl.Tensor[[16, 16], pl.FP32]],
               y: pl.Tensor[[8, 16], pl.FP32]) -> pl.Tensor[[8, 16], pl.FP32]:
        lower = pl.tensor.slice(x, [8, 16], [8, 0])
        pl.tensor.write(x, [9, 3], 0.5)
        return pl.tensor.add(lower, y)
    """
    with {m.name: m for m in MUTANTS}["gm-view-loaded-where-defined"].applied():
        rc, log = compile_kernel(tmp_path, capsys, program_text(body), _inputs(x=(16, 16), y=(8, 16)))
    assert rc != 0 and "ret0: MISMATCH" in log, log


def test_a_scalar_read_of_a_view_of_an_unsigned_parameter_reads_gm(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    # An on-chip read (pto.tgetval) takes no unsigned tile; the view names GM bytes, so the read
    # is a GM read of the parameter at the mapped indices (campaign finding e135b03d7a).
    x = (np.arange(64, dtype=np.uint8) * np.uint8(7)).reshape(2, 32)
    rc, log = compile_kernel(tmp_path, capsys, program_text("""\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[2, 32], pl.UINT8]) -> pl.Tensor[[2, 32], pl.INT32]:
        flat = pl.tensor.reshape(x, [1, 64])
        row = pl.tensor.slice(flat, [1, 32], [0, 32])
        v = pl.tensor.read(row, [0, 3])
        return pl.tensor.adds(pl.tensor.cast(x, pl.INT32), pl.cast(v, pl.INT32))
    """), {"x": x})
    assert rc == 0, log
    got = np.load(tmp_path / "out.npz")["ret0"]
    assert np.array_equal(got, x.astype(np.int32) + np.int32(x[1, 3]))
