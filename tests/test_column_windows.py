"""Vector ops on a column window (`tile.slice` of an [N, 1] tile) and on-chip tiles larger than
their whole space.

A window of a column is re-cut from the source's [1, N] row view by LegalizeVecLayouts (a
reshape of the window itself is a handle at the source buffer's base, dropping the window's
offset: a fuzz campaign found the wrong bits, tests/regressions/fuzz_column_window_*), and
ViewLegality rejects a reshape of a window view wherever it comes from. A Mat / Vec tile larger
than its whole space is reported where it is defined as soon as it is placed, before L0 tiling
unrolls a grid over it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from languages.pl_parser import load_program
from nanopass.pipeline import main
from nanopass_pto import run

COLUMN_WINDOW = '''
import pypto.language as pl


@pl.program
class ColumnWindow:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 1], pl.FP32]) -> pl.Tensor[[4, 1], pl.FP32]:
        t: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.neg(x)
        w: pl.Tensor[[4, 1], pl.FP32] = pl.tensor.slice(t, [4, 1], [OFFSET, 0])
        y: pl.Tensor[[4, 1], pl.FP32] = pl.tensor.adds(w, 0.5)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 1], pl.FP32]) -> pl.Tensor[[4, 1], pl.FP32]:
        y: pl.Tensor[[4, 1], pl.FP32] = self.kernel(x)
        return y
'''


@pytest.mark.parametrize("offset", [0, 3, 12])
def test_a_vector_op_on_a_column_window_reads_the_window(offset: int, tmp_path: Path) -> None:
    path = tmp_path / "window.py"
    path.write_text(COLUMN_WINDOW.replace("OFFSET", str(offset)))
    program = load_program(str(path))
    compiled = run.compile_program(program, verify_all=True)
    inputs = run.random_inputs(program, seed=offset)
    reports = run.compare(run.reference(program, inputs), run.run(compiled, inputs))
    assert reports and all(r.ok for r in reports), [str(r) for r in reports]


TILE_RESHAPE_OF_WINDOW = '''
import pypto.language as pl


@pl.program
class ReshapeOfWindow:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 1], pl.FP32], out: pl.Out[pl.Tensor[[1, 4], pl.FP32]]) -> pl.Tensor[[1, 4], pl.FP32]:
        t: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        w: pl.Tile[[4, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [4, 1], [3, 0])
        r: pl.Tile[[1, 4], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(w, [1, 4])
        out_1: pl.Tensor[[1, 4], pl.FP32] = pl.tile.store(r, [0, 0], out)
        return out_1
'''


def test_a_reshape_of_a_window_is_rejected_at_the_reshape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "reshape_window.py"
    path.write_text(TILE_RESHAPE_OF_WINDOW)
    assert main([str(path), "--verify-all"]) == 1
    err = capsys.readouterr().err
    assert f"{path}:11:" in err and "[ViewLegality] tile.reshape re-views `w`, a window of another tile" in err, err
    assert "internal compiler error" not in err and "reproducer" not in err


HUGE_MATMUL = '''
import pypto.language as pl


@pl.program
class HugeMatmul:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[65536, 256], pl.FP16], b: pl.Tensor[[256, 65536], pl.FP16]) -> pl.Tensor[[65536, 65536], pl.FP32]:
        c: pl.Tensor[[65536, 65536], pl.FP32] = pl.tensor.matmul(a, b, out_dtype=pl.FP32)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[65536, 256], pl.FP16], b: pl.Tensor[[256, 65536], pl.FP16]) -> pl.Tensor[[65536, 65536], pl.FP32]:
        c: pl.Tensor[[65536, 65536], pl.FP32] = self.kernel(a, b)
        return c
'''


def test_a_2d_operand_larger_than_all_of_l1_is_reported_where_it_is_placed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: AutoTileMatmulL0 unrolled 512 x 256 output blocks over it (no answer in minutes)."""
    path = tmp_path / "huge.py"
    path.write_text(HUGE_MATMUL)
    assert main([str(path), "--verify-all"]) == 1
    err = capsys.readouterr().err
    assert f"{path}:9:" in err and "[InferTileMemorySpace] Mat usage of kernel `kernel`: the tile `a_tile` alone is " \
        "[65536, 256] FP16, 33554432 bytes, over the Ascend910B Mat capacity of 524288 bytes" in err, err
    assert "smaller tiles" in err and "internal compiler error" not in err


WINDOW_READ_PAST_VALID = '''
import pypto.language as pl


@pl.program
class WindowReadPastValid:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 1], pl.INT32], c: pl.Tensor[[4, 1], pl.INT32],
               out: pl.Out[pl.Tensor[[4, 1], pl.INT32]]) -> pl.Tensor[[4, 1], pl.INT32]:
        t: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        SOURCE
        w: pl.Tile[[4, 1], pl.INT32, pl.Mem.Vec, pl.TileView(valid_shape=[1, 1])] = pl.tile.slice(src, [4, 1], [OFFSET, 0], [1, 1])
        k: pl.Tile[[4, 1], pl.INT32, pl.Mem.Vec] = pl.tile.load(c, [0, 0], [4, 1], target_memory=pl.Mem.Vec)
        y: pl.Tile[[4, 1], pl.INT32, pl.Mem.Vec] = pl.tile.OP(w, k)
        o: pl.Tensor[[4, 1], pl.INT32] = pl.tile.store(y, [0, 0], out)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 1], pl.INT32], c: pl.Tensor[[4, 1], pl.INT32]) -> pl.Tensor[[4, 1], pl.INT32]:
        out: pl.Tensor[[4, 1], pl.INT32] = pl.tensor.create([4, 1], dtype=pl.INT32)
        y: pl.Tensor[[4, 1], pl.INT32] = self.kernel(x, c, out)
        return y
'''

_SOURCES = {
    "whole": "src: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.add(t, t)",
    # The column the window is cut from is itself narrowed (its rows hold data: it was loaded).
    "narrowed": "src: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec, pl.TileView(valid_shape=[14, 1])] = "
                "pl.tile.set_validshape(t, 14, 1)",
}
_NUMPY = {"add": np.add, "sub": np.subtract, "maximum": np.maximum}


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
@pytest.mark.parametrize("source", sorted(_SOURCES))
@pytest.mark.parametrize("op, offset", [("add", 0), ("sub", 3), ("maximum", 12)])
def test_a_column_window_read_past_its_valid_region(backend: str, source: str, op: str, offset: int,
                                                    tmp_path: Path) -> None:
    """Finding 10120613cb: an op on a column window valid over [1, 1] whose result is valid over
    the whole window reads the window's other rows (they hold the source's data). LegalizeVecLayouts
    cuts the window again from the source's row view valid over its whole shape (it was 'not
    supported yet: the row view of a view cannot reach the padding')."""
    path = tmp_path / "window_read_past.py"
    path.write_text(WINDOW_READ_PAST_VALID.replace("SOURCE", _SOURCES[source]).replace("OFFSET", str(offset))
                    .replace("OP", op))
    assert main([str(path), "--verify-all", "--backend", backend, "-o", str(tmp_path / "k.pto")]) == 0
    program = load_program(str(path))
    compiled = run.compile_program(program, verify_all=True, backend=backend)
    inputs = run.random_inputs(program, seed=offset)
    x = np.asarray(inputs["x"]).reshape(16, 1)
    c = np.asarray(inputs["c"]).reshape(4, 1)
    base = x + x if source == "whole" else x
    with np.errstate(over="ignore"):
        expected = _NUMPY[op](base[offset:offset + 4], c).astype(np.int32)
    got = list(run.run(compiled, inputs).values())
    assert len(got) == 1 and np.array_equal(np.asarray(got[0]).reshape(4, 1), expected), (got, expected)
