"""In-place tile updates (InPlaceUpdatesBound): `pl.tile.write(t, ...)` as a statement updates
`t` itself, as PyPTO's tiles are buffers. The parser rebinds the name to the op's result, and
ConvertTensorToTileOps does the same for a `pl.tensor.write` on a tensor that became a tile, so
the reference interpreter (value semantics) and the device (in place) agree; a program that
leaves such an update unbound is rejected where it is loaded."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

import languages.gen.tensor as T
from languages.pl_parser import parse_program
from nanopass_pto.run import compile_program, reference, run

# Copy element [1, 5] of the loaded tile into [0, 0], in place, then store the tile.
TILE_WRITE = """\
import pypto.language as pl


@pl.program
class PokeTile:
    @pl.function(type=pl.FunctionType.InCore)
    def poke(self, src: pl.Tensor[[8, 16], pl.FP32], dst: pl.Out[pl.Tensor[[8, 16], pl.FP32]]) -> pl.Tensor[[8, 16], pl.FP32]:
        t: pl.Tile[[8, 16], pl.FP32] = pl.load(src, [0, 0], [8, 16])
        v: pl.Scalar[pl.FP32] = pl.tile.read(t, [1, 5])
        pl.tile.write(t, [0, 0], v)
        stored: pl.Tensor[[8, 16], pl.FP32] = pl.store(t, [0, 0], dst)
        return stored
"""

# The same on a tensor computed in the kernel, which ConvertTensorToTileOps turns into a tile.
TENSOR_WRITE = """\
import pypto.language as pl


@pl.program
class PokeTensor:
    @pl.function(type=pl.FunctionType.InCore)
    def poke(self, src: pl.Tensor[[8, 16], pl.FP32], dst: pl.Out[pl.Tensor[[8, 16], pl.FP32]]) -> pl.Tensor[[8, 16], pl.FP32]:
        t: pl.Tensor[[8, 16], pl.FP32] = pl.add(src, src)
        v: pl.Scalar[pl.FP32] = pl.tensor.read(t, [1, 5])
        pl.tensor.write(t, [0, 0], v)
        stored: pl.Tensor[[8, 16], pl.FP32] = pl.assemble(dst, t, [0, 0])
        return stored
"""


def _src() -> np.ndarray:
    return np.arange(8 * 16, dtype=np.float32).reshape(8, 16) / 4


def test_a_statement_tile_write_updates_the_tile_the_store_reads() -> None:
    program = parse_program(TILE_WRITE, "poke.py")
    writes = [s for s in program.functions[0].body if getattr(getattr(s, "value", None), "op", "") == "tile.write"]
    assert [type(s).__name__ for s in writes] == ["AssignStmt"]  # `t` is rebound to the updated tile
    src = _src()
    expected = src.copy()
    expected[0, 0] = src[1, 5]
    assert np.array_equal(reference(program, {"src": src})["dst"], expected)
    assert np.array_equal(run(compile_program(program, verify_all=True), {"src": src})["dst"], expected)


def test_a_tensor_write_on_a_tensor_that_becomes_a_tile_stays_bound() -> None:
    program = parse_program(TENSOR_WRITE, "poke_tensor.py")
    assert isinstance(program, T.Program)
    src = _src()
    expected = src + src
    expected[0, 0] = expected[1, 5]
    assert np.array_equal(reference(program, {"src": src})["dst"], expected)
    assert np.array_equal(run(compile_program(program, verify_all=True), {"src": src})["dst"], expected)


def test_printed_ir_with_an_unbound_in_place_update_is_rejected_when_loaded(tmp_path: Path) -> None:
    text = "# nanopass.language: Tensor\n" + TILE_WRITE
    source = tmp_path / "unbound.py"
    source.write_text(text)
    done = subprocess.run([sys.executable, "-m", "nanopass.pipeline", str(source), "--verify-all"],
                          capture_output=True, text=True)
    assert done.returncode != 0
    assert (f"{source}:11:9: error: [InPlaceUpdatesBound] `tile.write` updates the tile `t` in place but its result "
            "is not bound") in done.stderr
    assert "Traceback" not in done.stderr
