"""The flat index of TGATHER / TSCATTER counts a tile's Vec buffer, not its logical elements.

pto-isa reads index k of `pto.tgather` at buffer row k // Cols, column k % Cols, where Cols is
the padded extent the tile was allocated with (a [16, 4] FP32 tile's rows are 8 apart), and a
column window (pto.subview) counts its own declared columns while its rows lie its parent's
pitch apart. Three consequences, each pinned here:

- tensor.gather without `dim` (out = src.reshape(-1)[index]) maps the user's index onto the
  padded rows, and copies a column-window source into storage of its own first (the spec's
  "strided on-chip windows are packed first"); tensor.scatter copies a window destination;
- the tile-level ops are the instructions: their index names positions of the padded buffer,
  in the interpreter as in the simulator, and random inputs draw only positions of elements;
- a tile-level gather / scatter over a column window is refused at the user's line
  (TargetOpRules' WholeRows), since no index spelling means the same on both sides.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from backend import numerics
from backend.arrays import IndexBound, _random_indices
from languages.layout import flat_index_pitch
from languages.types import DataType, TensorType
from nanopass.pipeline import main

BACKENDS = ("Ascend910B", "Ascend950")

FLAT_GATHER_OF_PADDED_ROWS = """\
import pypto.language as pl


@pl.program
class PaddedRows:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 4], pl.FP32], w: pl.Tensor[[8, 16], pl.FP32], idx: pl.Tensor[[16, 8], pl.INT32],
          narrow: pl.Out[pl.Tensor[[16, 8], pl.FP32]], window: pl.Out[pl.Tensor[[16, 8], pl.FP32]]
          ) -> tuple[pl.Tensor[[16, 8], pl.FP32], pl.Tensor[[16, 8], pl.FP32]]:
        doubled: pl.Tensor[[16, 4], pl.FP32] = pl.add(x, x)
        picked: pl.Tensor[[16, 8], pl.FP32] = pl.gather(doubled, idx)
        wide: pl.Tensor[[8, 16], pl.FP32] = pl.muls(w, 3.0)
        cols: pl.Tensor[[8, 8], pl.FP32] = pl.slice(wide, [8, 8], [0, 4])
        from_window: pl.Tensor[[16, 8], pl.FP32] = pl.gather(cols, idx)
        a: pl.Tensor[[16, 8], pl.FP32] = pl.assemble(narrow, picked, [0, 0])
        b: pl.Tensor[[16, 8], pl.FP32] = pl.assemble(window, from_window, [0, 0])
        return a, b

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 4], pl.FP32], w: pl.Tensor[[8, 16], pl.FP32], idx: pl.Tensor[[16, 8], pl.INT32]
             ) -> tuple[pl.Tensor[[16, 8], pl.FP32], pl.Tensor[[16, 8], pl.FP32]]:
        n: pl.Tensor[[16, 8], pl.FP32] = pl.tensor.create([16, 8], dtype=pl.FP32)
        m: pl.Tensor[[16, 8], pl.FP32] = pl.tensor.create([16, 8], dtype=pl.FP32)
        r, s = self.k(x, w, idx, n, m)
        return r, s
"""


def _run(tmp_path: Path, source: str, backend: str, inputs: dict[str, np.ndarray]) -> tuple[int, str, Path]:
    (tmp_path / "k.py").write_text(source)
    np.savez(tmp_path / "in.npz", **inputs)  # type: ignore[arg-type]
    out = tmp_path / "out.npz"
    rc = main([str(tmp_path / "k.py"), "--backend", backend, "--verify-all", "--simulate", "-o",
               str(tmp_path / "k.pto"), "--inputs", str(tmp_path / "in.npz"), "--save-outputs", str(out)])
    return rc, str(tmp_path / "k.py"), out


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_flat_gather_indexes_logical_elements_of_padded_rows_and_of_windows(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], backend: str) -> None:
    rng = np.random.default_rng(11)
    x = rng.uniform(-4, 4, (16, 4)).astype(np.float32)
    w = rng.uniform(-4, 4, (8, 16)).astype(np.float32)
    # Every index a logical element (0..63), and the ones just past a 4-wide row (4, 5, ...)
    # that the padded buffer would read as padding.
    idx = rng.integers(0, 64, (16, 8)).astype(np.int32)
    idx[0, :4] = (4, 5, 6, 7)
    rc, _, out = _run(tmp_path, FLAT_GATHER_OF_PADDED_ROWS, backend, {"x": x, "w": w, "idx": idx})
    log = capsys.readouterr().err
    assert rc == 0 and log.count("bit-exact") == 2, log
    got = np.load(out)
    assert (got["ret0"].view(np.uint32) == (x + x).reshape(-1)[idx].view(np.uint32)).all()
    window = (w * np.float32(3.0))[:, 4:12]
    assert (got["ret1"].view(np.uint32) == window.reshape(-1)[idx].view(np.uint32)).all()


SCATTER_INTO_A_WINDOW = """\
import pypto.language as pl


@pl.program
class ScatterWindow:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], idx: pl.Tensor[[16, 4], pl.INT32], s: pl.Tensor[[16, 4], pl.FP32],
          part: pl.Out[pl.Tensor[[16, 4], pl.FP32]], whole: pl.Out[pl.Tensor[[16, 16], pl.FP32]]
          ) -> tuple[pl.Tensor[[16, 4], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        y: pl.Tensor[[16, 16], pl.FP32] = pl.add(x, x)
        w: pl.Tensor[[16, 4], pl.FP32] = pl.slice(y, [16, 4], [0, 4])
        t: pl.Tensor[[16, 4], pl.FP32] = pl.scatter(w, idx, s)
        a: pl.Tensor[[16, 4], pl.FP32] = pl.assemble(part, t, [0, 0])
        b: pl.Tensor[[16, 16], pl.FP32] = pl.assemble(whole, y, [0, 0])
        return a, b

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], idx: pl.Tensor[[16, 4], pl.INT32], s: pl.Tensor[[16, 4], pl.FP32]
             ) -> tuple[pl.Tensor[[16, 4], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        o: pl.Tensor[[16, 4], pl.FP32] = pl.tensor.create([16, 4], dtype=pl.FP32)
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.create([16, 16], dtype=pl.FP32)
        r, r2 = self.k(x, idx, s, o, o2)
        return r, r2
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_scatter_into_a_column_window_writes_a_copy_and_leaves_the_parent(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], backend: str) -> None:
    rng = np.random.default_rng(5)
    x = rng.uniform(-4, 4, (16, 16)).astype(np.float32)
    idx = np.stack([rng.permutation(4) for _ in range(16)]).astype(np.int32)
    s = rng.uniform(-4, 4, (16, 4)).astype(np.float32)
    rc, _, out = _run(tmp_path, SCATTER_INTO_A_WINDOW, backend, {"x": x, "idx": idx, "s": s})
    log = capsys.readouterr().err
    assert rc == 0 and log.count("bit-exact") == 2, log
    got = np.load(out)
    y = x + x
    expected = y[:, 4:8].copy()
    np.put_along_axis(expected, idx, s, axis=1)
    assert (got["ret0"].view(np.uint32) == expected.view(np.uint32)).all()
    assert (got["ret1"].view(np.uint32) == y.view(np.uint32)).all()  # the parent is not written


TILE_GATHER_OF_PADDED_ROWS = """\
import pypto.language as pl


@pl.program
class TileLevel:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 4], pl.FP32], idx: pl.Tensor[[16, 8], pl.INT32],
          out: pl.Out[pl.Tensor[[16, 8], pl.FP32]]) -> pl.Tensor[[16, 8], pl.FP32]:
        s: pl.Tile[[16, 4], pl.FP32] = pl.tile.load(x, [0, 0], [16, 4], target_memory=pl.Mem.Vec)
        i: pl.Tile[[16, 8], pl.INT32] = pl.tile.load(idx, [0, 0], [16, 8], target_memory=pl.Mem.Vec)
        t: pl.Tile[[16, 8], pl.FP32] = pl.tile.gather(s, i)
        st: pl.Tensor[[16, 8], pl.FP32] = pl.tile.store(t, [0, 0], out)
        return st

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 4], pl.FP32], idx: pl.Tensor[[16, 8], pl.INT32]) -> pl.Tensor[[16, 8], pl.FP32]:
        o: pl.Tensor[[16, 8], pl.FP32] = pl.tensor.create([16, 8], dtype=pl.FP32)
        r: pl.Tensor[[16, 8], pl.FP32] = self.k(x, idx, o)
        return r
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_tile_gather_indexes_the_padded_buffer(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               backend: str) -> None:
    rng = np.random.default_rng(2)
    x = rng.uniform(-4, 4, (16, 4)).astype(np.float32)
    row, col = rng.integers(0, 16, (16, 8)), rng.integers(0, 4, (16, 8))
    idx = (row * 8 + col).astype(np.int32)  # the buffer's rows are 8 FP32 apart
    rc, _, out = _run(tmp_path, TILE_GATHER_OF_PADDED_ROWS, backend, {"x": x, "idx": idx})
    log = capsys.readouterr().err
    assert rc == 0 and "bit-exact" in log, log
    assert (np.load(out)["ret0"].view(np.uint32) == x[row, col].view(np.uint32)).all()


def test_tile_gather_into_padding_is_a_poison_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Position 4 of a [16, 4] FP32 tile's buffer is row 0's padding: no instruction wrote it.
    idx = np.zeros((16, 8), np.int32)
    idx[3, 2] = 4
    rc, path, _ = _run(tmp_path, TILE_GATHER_OF_PADDED_ROWS, "Ascend910B",
                       {"x": np.ones((16, 4), np.float32), "idx": idx})
    log = capsys.readouterr().err
    assert rc == 1 and f"{path}:11:" in log and "which no instruction has written" in log, log


def test_random_inputs_draw_positions_of_elements_only() -> None:
    # The generator's conditioned index inputs come from random_inputs: with the pitched domain a
    # [16, 4] FP32 source's indices are r * 8 + c with c < 4, every element reachable.
    bound = IndexBound(64, pitch=(4, flat_index_pitch((16, 4), DataType.FP32)))
    drawn = _random_indices(np.random.default_rng(0), TensorType((64, 64), DataType.INT32), bound)
    assert drawn.max() < 16 * 8 and ((drawn % 8) < 4).all()
    assert len(np.unique(drawn)) == 64


def test_interpreter_and_simulator_rules_agree_on_pitched_positions() -> None:
    src = np.arange(12, dtype=np.float32).reshape(3, 4)
    # Buffer positions: 0..3 are row 0, 8..11 row 1, 16..19 row 2; 4..7 / 12..15 padding; 24 past it.
    got = numerics.gather_flat(src, np.array([[0, 9, 19, 5, 24]]), pitch=8)
    assert got.tolist() == [[0.0, 5.0, 11.0, 0.0, 0.0]]
    dst = numerics.scatter_flat(np.zeros((3, 4), np.float32), np.array([[1, 17, 6]]),
                                np.array([[7.0, 8.0, 9.0]], np.float32), pitch=8)
    assert dst[0, 1] == 7.0 and dst[2, 1] == 8.0 and dst.sum() == 15.0  # the padding write changed nothing
    with pytest.raises(numerics.ArithmeticFault):
        numerics.scatter_flat(np.zeros((3, 4), np.float32), np.array([[24]]), np.array([[1.0]], np.float32), pitch=8)
    assert flat_index_pitch((16, 4), DataType.FP32) == 8 and flat_index_pitch((16, 1), DataType.FP32) == 1
    assert flat_index_pitch((4, 16), DataType.FP16) == 16 and flat_index_pitch((2, 3), DataType.INT8) == 32


TILE_GATHER_OF_A_WINDOW = """\
import pypto.language as pl


@pl.program
class Window:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], idx: pl.Tensor[[16, 8], pl.INT32],
          out: pl.Out[pl.Tensor[[16, 8], pl.FP32]]) -> pl.Tensor[[16, 8], pl.FP32]:
        s: pl.Tile[[16, 16], pl.FP32] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        w: pl.Tile[[16, 4], pl.FP32] = pl.tile.slice(s, [16, 4], [0, 4])
        i: pl.Tile[[16, 8], pl.INT32] = pl.tile.load(idx, [0, 0], [16, 8], target_memory=pl.Mem.Vec)
        t: pl.Tile[[16, 8], pl.FP32] = pl.tile.gather(w, i)
        st: pl.Tensor[[16, 8], pl.FP32] = pl.tile.store(t, [0, 0], out)
        return st
"""


def test_tile_gather_of_a_column_window_is_refused_at_the_users_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "k.py"
    path.write_text(TILE_GATHER_OF_A_WINDOW)
    assert main([str(path), "--verify-all"]) == 1
    err = capsys.readouterr().err
    assert f"{path}:12:" in err and "[TargetOpRules]" in err and "4-column window of `s`" in err, err
    assert "pl.tile.move(window, target_memory=pl.Mem.Vec)" in err and "Traceback" not in err
