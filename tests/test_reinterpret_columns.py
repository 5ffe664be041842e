"""reinterpret_view of a column vector: an [N, 1] tile is stored column-major (its N elements
contiguous), so the automatic view scales its rows — before placement as after it. A tile
kernel that reinterprets a column and stores the [k*N, 1] result runs bit-exact; one that
claims the row-major [N, k] is refused at its own line, not by a pass."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from languages.memory_space import MemorySpace
from languages.types import DataType, TileType
from nanopass.pipeline import main
from tests.test_op_registry import FP32, INT8, deduce, tile

KERNEL = """\
import pypto.language as pl


@pl.program
class Columns:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[ROWS, 1], pl.FP32], out: pl.Out[pl.Tensor[[OUT], pl.INT8]]) -> pl.Tensor[[OUT], pl.INT8]:
        r: pl.Tile[[ROWS, 1], pl.FP32] = pl.tile.sqrt(pl.tile.load(x, [0, 0], [ROWS, 1], target_memory=pl.Mem.Vec))
        bytes_: pl.Tile[[RESULT], pl.INT8] = pl.tile.reinterpret_view(r, dtype=pl.INT8)
        st: pl.Tensor[[OUT], pl.INT8] = pl.tile.store(bytes_, [0, 0], out)
        return st

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[ROWS, 1], pl.FP32]) -> pl.Tensor[[OUT], pl.INT8]:
        out: pl.Tensor[[OUT], pl.INT8] = pl.tensor.create([OUT], dtype=pl.INT8)
        y: pl.Tensor[[OUT], pl.INT8] = self.k(x, out)
        return y
"""


def _kernel(rows: int, result: str, out: str) -> str:
    return KERNEL.replace("ROWS", str(rows)).replace("RESULT", result).replace("OUT", out)


def test_a_column_reinterprets_along_its_rows_placed_or_not() -> None:
    for space in (None, MemorySpace.Vec):
        got = deduce("tile.reinterpret_view", tile((8, 1), FP32, space=space), dtype=INT8)
        assert isinstance(got, TileType) and got.shape == (32, 1), (space, got)
    # One row stays row-major: its last axis scales.
    got = deduce("tile.reinterpret_view", tile((1, 8), FP32), dtype=INT8)
    assert isinstance(got, TileType) and got.shape == (1, 32)


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
@pytest.mark.parametrize("rows", [8, 16])
def test_a_reinterpreted_column_stores_its_bytes_bit_exact(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           backend: str, rows: int) -> None:
    shape = f"{4 * rows}, 1"
    (tmp_path / "k.py").write_text(_kernel(rows, shape, shape))
    x = np.random.default_rng(rows).uniform(0.5, 4.0, (rows, 1)).astype(np.float32)
    np.savez(tmp_path / "in.npz", x=x)
    rc = main([str(tmp_path / "k.py"), "--backend", backend, "--verify-all", "--simulate", "-o",
               str(tmp_path / "k.pto"), "--inputs", str(tmp_path / "in.npz"), "--save-outputs",
               str(tmp_path / "out.npz")])
    log = capsys.readouterr().err
    assert rc == 0 and "bit-exact" in log, log
    got = np.load(tmp_path / "out.npz")["ret0"]
    assert got.dtype == np.int8 and got.shape == (4 * rows, 1)
    assert (got.reshape(-1).view(np.float32) == np.sqrt(x).reshape(-1)).all()


def test_claiming_the_row_major_view_of_a_column_is_refused_at_the_users_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "k.py").write_text(_kernel(8, "8, 4", "8, 4"))
    rc = main([str(tmp_path / "k.py"), "--backend", "Ascend910B", "-o", str(tmp_path / "k.pto")])
    log = capsys.readouterr().err
    assert rc == 1 and "Traceback" not in log and "internal compiler error" not in log, log
    assert "k.py:9:" in log and "gives pl.Tile[[32, 1], pl.INT8]" in log, log


AS_ROW = """\
import pypto.language as pl


@pl.program
class AsRow:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[4, 3, 1], pl.FP16]) -> pl.Tensor[[1, 12], pl.BF16]:
        y: pl.Tensor[[4, 3, 1], pl.FP16] = pl.tensor.abs(x)
        r: pl.Tensor[[1, 12], pl.BF16] = pl.tensor.reinterpret_view(y, dtype=pl.BF16, shape=[1, 12])
        s: pl.Tensor[[1, 12], pl.BF16] = pl.tensor.maximum(r, r)
        return s

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 3, 1], pl.FP16]) -> pl.Tensor[[1, 12], pl.BF16]:
        o: pl.Tensor[[1, 12], pl.BF16] = self.k(x)
        return o
"""


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_a_column_reinterpreted_as_a_row_is_a_row_major_tile(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             backend: str) -> None:
    # The packed [12, 1] column is contiguous, so is its explicit [1, 12] view; the view kept the
    # column's column-major layout and the vector op after it was refused (LegalizeVecLayouts).
    got = deduce("tile.reinterpret_view", tile((12, 1), DataType.FP16, space=MemorySpace.Vec), dtype=DataType.BF16,
                 shape=(1, 12))
    assert isinstance(got, TileType) and got.view is not None and got.view.blayout == "row_major"
    (tmp_path / "k.py").write_text(AS_ROW)
    rc = main([str(tmp_path / "k.py"), "--backend", backend, "--verify-all", "--simulate", "-o",
               str(tmp_path / "k.pto")])
    log = capsys.readouterr().err
    assert rc == 0 and "bit-exact" in log, log


def test_an_explicit_shape_whose_rows_pad_differently_is_no_zero_copy_view() -> None:
    # [16, 16] INT16 has 32-byte rows; [32, 8] FP16 has 16-byte rows, padded to 32 on chip: the
    # same bytes cannot be both (InitMemRef sized the view by its source: a campaign's ICE).
    from languages.ops.vector_ops import reinterpret_on_chip_gap
    from languages.types import DataType, TensorType

    source = TensorType((16, 16), DataType.INT16)
    assert "padded to 32-byte blocks differently" in reinterpret_on_chip_gap(source, DataType.FP16, (32, 8))
    assert not reinterpret_on_chip_gap(source, DataType.FP16, (16, 16))
    assert not reinterpret_on_chip_gap(source, DataType.FP16, (8, 32))  # 64-byte rows: row order kept
    assert not reinterpret_on_chip_gap(TensorType((8, 16), DataType.FP32), DataType.FP16, (8, 32))


WINDOW = """\
import pypto.language as pl


@pl.program
class Window:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[2, 16], pl.BF16], out: pl.Out[pl.Tensor[[1, 2], pl.FP32]]) -> pl.Tensor[[1, 2], pl.FP32]:
        t: pl.Tile[[2, 16], pl.BF16, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [2, 16], target_memory=pl.Mem.Vec)
        w: pl.Tile[[1, 4], pl.BF16, pl.Mem.Vec] = pl.tile.slice(t, [1, 4], [1, 3])
        f: pl.Tile[[1, 2], pl.FP32, pl.Mem.Vec] = pl.tile.reinterpret_view(w, dtype=pl.FP32)
        st: pl.Tensor[[1, 2], pl.FP32] = pl.tile.store(f, [0, 0], out)
        return st

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[2, 16], pl.BF16]) -> pl.Tensor[[1, 2], pl.FP32]:
        out: pl.Tensor[[1, 2], pl.FP32] = pl.tensor.create([1, 2], dtype=pl.FP32)
        y: pl.Tensor[[1, 2], pl.FP32] = self.k(x, out)
        return y
"""


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_a_reinterpreted_window_reads_the_windows_bytes(tmp_path: Path, backend: str) -> None:
    # A window at [1, 3] starts 38 bytes into its source and was re-viewed from the source's first
    # byte (a 60-second campaign's mismatch): it is copied into a tile of its own first, and the
    # copy of a row-major window is a pto.tinsert (A2/A3's tmov takes equal tile shapes only).
    from nanopass_pto.run import compile_program, run
    from languages.pl_parser import parse_program

    compiled = compile_program(parse_program(WINDOW, "w.py"), backend=backend, verify_all=True)
    x = np.random.default_rng(5).standard_normal((2, 16)).astype(np.float32)
    bits = (x.view(np.uint32) >> 16).astype(np.uint16)  # BF16 patterns, no NaN
    got = run(compiled, {"x": bits})
    assert len(got) == 1
    expected = bits[1:2, 3:7].copy().view(np.uint32).reshape(1, 2)
    assert np.asarray(next(iter(got.values()))).view(np.uint32).tolist() == expected.tolist()
    pto = tmp_path / "w.pto"
    assert main([str(_write(tmp_path, WINDOW)), "--backend", backend, "-o", str(pto)]) == 0
    assert "pto.tinsert" in pto.read_text()


def _write(directory: Path, text: str) -> Path:
    path = directory / "w.py"
    path.write_text(text)
    return path


def test_a_column_viewed_as_rows_and_columns_is_declined_and_not_drawn() -> None:
    # A [16, 1] INT16 column's tile is column-major, so its explicit [8, 2] FP16 view was a
    # column-major [8, 2] tile the vector op after it could not compute on (LegalizeVecLayouts,
    # a campaign's finding); viewed as a [16, 1] column it stays legal.
    from backend.fuzzing.registry_calls import on_chip_view_gap
    from languages.gen import tensor as T
    from languages.ops import REGISTRY
    from languages.ops.vector_ops import reinterpret_on_chip_gap
    from languages.types import TensorType

    column = TensorType((16, 1), DataType.INT16)
    assert "column-major [8, 2] tile" in reinterpret_on_chip_gap(column, DataType.FP16, (8, 2))
    assert not reinterpret_on_chip_gap(column, DataType.FP16, (16, 1))
    opdef = REGISTRY.get("tensor.reinterpret_view")
    result = TensorType((8, 2), DataType.FP16)
    attrs = (("dtype", DataType.FP16), ("shape", (8, 2)))
    assert on_chip_view_gap(opdef, (T.Var("x", column),), attrs, result, True)


def test_an_nd_column_is_judged_by_its_packed_tile() -> None:
    # A [2, 1, 1] FP32 tile packs to the [2, 1] column (leading axes fold into rows), whose FP16
    # bytes are [4, 1]: the tensor view's [2, 1, 2] (packed [2, 2]) is other bytes. It passed the
    # rank-2 check, and FlattenTileNdTo2D's store then met a [4, 1] tile (an Ascend950 campaign's
    # finding, blamed on the pass); now ConvertTensorToTileOps declines it, naming the packing.
    from languages.ops.vector_ops import reinterpret_on_chip_gap
    from languages.types import TensorType

    gap = reinterpret_on_chip_gap(TensorType((2, 1, 1), DataType.FP32), DataType.FP16)
    assert "[2, 1, 1] (packed on chip as [2, 1])" in gap and "[4, 1] tile" in gap
    # A packed row keeps the tensor view's order; so does a 3-D tile whose last axis is wide.
    assert not reinterpret_on_chip_gap(TensorType((1, 1, 8), DataType.FP32), DataType.FP16)
    assert not reinterpret_on_chip_gap(TensorType((2, 3, 8), DataType.FP32), DataType.FP16)


ND_COLUMN = """\
import pypto.language as pl


@pl.program
class NdColumn:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[2, 1, 1], pl.FP32]) -> pl.Tensor[[2, 1, 2], pl.FP16]:
        h: pl.Tensor[[2, 1, 2], pl.FP16] = pl.tensor.reinterpret_view(x, dtype=pl.FP16)
        a: pl.Tensor[[2, 1, 2], pl.FP16] = pl.tensor.abs(h)
        return a

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[2, 1, 1], pl.FP32]) -> pl.Tensor[[2, 1, 2], pl.FP16]:
        o: pl.Tensor[[2, 1, 2], pl.FP16] = self.k(x)
        return o
"""


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_an_nd_column_reinterpreted_is_refused_at_the_users_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                 backend: str) -> None:
    (tmp_path / "k.py").write_text(ND_COLUMN)
    rc = main([str(tmp_path / "k.py"), "--backend", backend, "--verify-all", "-o", str(tmp_path / "k.pto")])
    log = capsys.readouterr().err
    assert rc == 1 and "Traceback" not in log, log
    assert "k.py:8:" in log and "not supported yet" in log and "[ConvertTensorToTileOps]" in log, log
