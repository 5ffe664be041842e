"""PTOAS's pto.tgetval types its scalar as a signless integer that must equal the tile's element
type, so no unsigned tile can be read (0.44: "expects dst type to match src element type" for
ui32, "result #0 must be numeric" for a ui32 result). A tile.read of one is refused at the
user's line by TargetOpRules (the registry fact languages/ops/assembler_element_types.py), and a
tensor.read of a computed unsigned value (a tile after ConvertTensorToTileOps) says "not
supported yet" there, never blaming a pass. A GM read (pto.load_scalar) of an unsigned tensor
is fine."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.kernel_cli import compile_kernel, program_text


def test_a_tile_read_of_an_unsigned_tile_is_refused_at_the_call(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    rc, log = compile_kernel(tmp_path, capsys, program_text("""\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.InOut[pl.Tensor[[16, 16], pl.UINT32]]) -> pl.Tensor[[16, 16], pl.UINT32]:
        t = pl.load(x, [0, 0], [16, 16])
        v = pl.tile.read(t, [1, 2])
        return pl.store(pl.tile.adds(t, v), [0, 0], x)
    """))
    assert rc != 0 and "kernel.py:9:" in log and "[TargetOpRules]" in log and "tgetval" in log, log


def test_a_read_of_a_computed_unsigned_value_says_not_supported_yet(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    rc, log = compile_kernel(tmp_path, capsys, program_text("""\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 16], pl.UINT16]) -> pl.Tensor[[16, 16], pl.UINT16]:
        y = pl.tensor.adds(x, 3)
        v = pl.tensor.read(y, [0, 5])
        return pl.tensor.adds(y, v)
    """))
    assert rc != 0 and "kernel.py:9:" in log and "not supported yet: reading an element of `y`" in log, log


def test_a_gm_read_of_an_unsigned_parameter_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    x = (np.arange(256, dtype=np.uint32) * np.uint32(0x01010101)).reshape(16, 16)
    rc, log = compile_kernel(tmp_path, capsys, program_text("""\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 16], pl.UINT32]) -> pl.Tensor[[16, 16], pl.INT32]:
        v = pl.tensor.read(x, [15, 15])
        return pl.tensor.adds(pl.tensor.cast(x, pl.INT32), pl.cast(v, pl.INT32))
    """), {"x": x})
    assert rc == 0, log
    got = np.load(tmp_path / "out.npz")["ret0"]
    want = x.view(np.int32) + x[15, 15].view(np.int32)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
