"""The operands TGATHER / TSCATTER walk flat, as they are placed.

The index forms of TGATHER and TSCATTER (and TGATHERB) read position k of an operand at the k-th
element of its buffer, rows padded to 32 bytes. Two consequences, each pinned here:

- a window gathered from (scattered into) is copied into a tile of its own first, and that copy
  keeps the window's placed layout (`languages.views.move_view`), not the one its shape implies:
  a one-column window of a row-major tile is a row-major [N, 1] tile whose rows are 32 bytes
  apart. ConvertTensorToTileOps built the flat index at the pitch of a fresh [N, 1] column (one
  element a row), so the gather read row padding (tests/regressions/
  fuzz_mismatch_gather_column_window_pitch.py); it now indexes the copy at its placed pitch
  (`_placed_type`). Each kernel below runs on both targets and is compared bit for bit with NumPy;
- a column-major operand of more than one row and column (a `tile.transpose_view`) holds its
  elements column after column, so a flat walk is not its row-major order: the registry states
  it (`FlatRowMajor` on tile.gather / gather_mask / gatherb / scatter), the deduction refuses
  such an operand at the user's line wherever its layout is first known (stated by the program,
  or given by placement), and TargetOpRules checks the same rule after every pass (agent-p's
  seed-3 campaign finding 340c6cfa3e: a gather from a transposed [16, 2] view, 118 of 128
  elements wrong, silently). An [N, 1] or [1, N] column-major tile is in row-major order anyway.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import numpy as np
import numpy.typing as npt
import pytest

from languages.pl_parser import parse_program
from backend.targets.handlers import get_backend
from nanopass.pipeline import main
from nanopass_pto.mutants import _patched
from verifiers.target_op_rules import verify as target_op_rules

Array = npt.NDArray[Any]
BACKENDS = ("Ascend910B", "Ascend950")

WINDOW_GATHER = """\
import pypto.language as pl


@pl.program
class WindowGather:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 32], pl.{T}], idx: pl.Tensor[[{IR}, {IC}], pl.INT32]
               ) -> pl.Tensor[[{IR}, {IC}], pl.{T}]:
        t: pl.Tensor[[16, 32], pl.{T}] = pl.tensor.muls(x, 2.0)
        w: pl.Tensor[[{R}, {W}], pl.{T}] = pl.tensor.slice(t, [{R}, {W}], [{R0}, {C0}])
        y: pl.Tensor[[{IR}, {IC}], pl.{T}] = pl.tensor.gather(w, idx{DIM})
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 32], pl.{T}], idx: pl.Tensor[[{IR}, {IC}], pl.INT32]
             ) -> pl.Tensor[[{IR}, {IC}], pl.{T}]:
        y: pl.Tensor[[{IR}, {IC}], pl.{T}] = self.kernel(x, idx)
        return y
"""

WINDOW_SCATTER = """\
import pypto.language as pl


@pl.program
class WindowScatter:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 32], pl.{T}], idx: pl.Tensor[[{R}, 1], pl.INT32],
               s: pl.Tensor[[{R}, 1], pl.{T}]) -> pl.Tensor[[{R}, {W}], pl.{T}]:
        t: pl.Tensor[[16, 32], pl.{T}] = pl.tensor.muls(x, 2.0)
        w: pl.Tensor[[{R}, {W}], pl.{T}] = pl.tensor.slice(t, [{R}, {W}], [{R0}, {C0}])
        y: pl.Tensor[[{R}, {W}], pl.{T}] = pl.tensor.scatter(w, idx, s)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 32], pl.{T}], idx: pl.Tensor[[{R}, 1], pl.INT32],
             s: pl.Tensor[[{R}, 1], pl.{T}]) -> pl.Tensor[[{R}, {W}], pl.{T}]:
        y: pl.Tensor[[{R}, {W}], pl.{T}] = self.kernel(x, idx, s)
        return y
"""

_NP = {"FP16": np.float16, "FP32": np.float32}


def _run(tmp_path: Path, source: str, backend: str, inputs: dict[str, Array]) -> Array:
    (tmp_path / "k.py").write_text(source)
    np.savez(tmp_path / "in.npz", **inputs)  # type: ignore[arg-type]
    out = tmp_path / "out.npz"
    rc = main([str(tmp_path / "k.py"), "--backend", backend, "--verify-all", "--simulate", "-o",
               str(tmp_path / "k.pto"), "--inputs", str(tmp_path / "in.npz"), "--save-outputs", str(out)])
    assert rc == 0
    with np.load(out) as saved:
        return np.asarray(saved["ret0"])


def _same_bits(got: Array, expected: Array) -> None:
    assert got.shape == expected.shape and got.dtype == expected.dtype
    np.testing.assert_array_equal(got.view(np.uint8), expected.view(np.uint8))


# (rows, width, row offset, column offset) of the window: one column of the row-major [16, 32]
# value (the finding's [2, 1] at column 1, a taller one at the last column), and two columns.
WINDOWS = [(2, 1, 4, 1), (9, 1, 3, 31), (5, 2, 1, 7)]
# How the gather indexes the window: flat (no dim), along the rows (dim=0, an index of the
# window's shape), along the columns (dim=1, an [R, 1] index); each gives the index's shape and
# its values' bound, and the NumPy gather.
GATHERS: dict[str, tuple[Callable[[int, int, int], tuple[tuple[int, int], int]], str,
                         Callable[[Array, Array], Array]]] = {
    # (A flat gather's index rows are whole 32-byte blocks of the source's type: `block` columns.)
    "flat": (lambda r, w, block: ((r, block), r * w), "", lambda src, idx: src.reshape(-1)[idx]),
    "dim0": (lambda r, w, block: ((r, w), r), ", dim=0",
             lambda src, idx: np.take_along_axis(src, idx.astype(np.int64), axis=0)),
    "dim1": (lambda r, w, block: ((r, 1), w), ", dim=1",
             lambda src, idx: np.take_along_axis(src, idx.astype(np.int64), axis=1)),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["FP16", "FP32"])
@pytest.mark.parametrize("window", WINDOWS, ids=lambda w: f"{w[0]}x{w[1]}@{w[2]},{w[3]}")
@pytest.mark.parametrize("how", list(GATHERS))
def test_a_gather_from_a_window_of_a_computed_value_matches_numpy(
        tmp_path: Path, backend: str, dtype: str, window: tuple[int, int, int, int], how: str) -> None:
    rows, width, r0, c0 = window
    shape_of, dim, gather = GATHERS[how]
    (ir, ic), bound = shape_of(rows, width, 32 // np.dtype(_NP[dtype]).itemsize)
    source = WINDOW_GATHER.format(T=dtype, R=rows, W=width, R0=r0, C0=c0, IR=ir, IC=ic, DIM=dim)
    rng = np.random.default_rng(rows * 100 + c0)
    x = rng.uniform(-4, 4, (16, 32)).astype(_NP[dtype])
    idx = rng.integers(0, bound, (ir, ic)).astype(np.int32)
    idx.reshape(-1)[-1] = bound - 1  # the window's last element: its last row, past any padding
    expected = gather((x * _NP[dtype](2))[r0:r0 + rows, c0:c0 + width], idx)
    _same_bits(_run(tmp_path, source, backend, {"x": x, "idx": idx}), expected)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("window", [(2, 1, 4, 1), (7, 1, 8, 30)], ids=lambda w: f"{w[0]}x{w[1]}@{w[2]},{w[3]}")
def test_a_scatter_into_a_one_column_window_matches_numpy(
        tmp_path: Path, backend: str, window: tuple[int, int, int, int]) -> None:
    rows, width, r0, c0 = window
    source = WINDOW_SCATTER.format(T="FP32", R=rows, W=width, R0=r0, C0=c0)
    rng = np.random.default_rng(rows)
    x = rng.uniform(-4, 4, (16, 32)).astype(np.float32)
    s = rng.uniform(-4, 4, (rows, 1)).astype(np.float32)
    idx = np.zeros((rows, 1), dtype=np.int32)  # the window's one column, in every row
    expected = (x * np.float32(2))[r0:r0 + rows, c0:c0 + width].copy()
    np.put_along_axis(expected, idx.astype(np.int64), s, axis=1)
    _same_bits(_run(tmp_path, source, backend, {"x": x, "idx": idx, "s": s}), expected)


# -- column-major operands of the flat walk ----------------------------------------------------

# A hand-written gather from a transposed [2, 16] load: the finding, with the view's layout
# stated (a Vec load) or left to placement (the view of an unplaced tile.adds result).
TRANSPOSED_GATHER = """\
import pypto.language as pl


@pl.program
class Transposed:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[{XR}, {XC}], pl.INT32], idx: pl.Tensor[[16, 8], pl.INT32],
               out: pl.Out[pl.Tensor[[16, 8], pl.INT32]]) -> pl.Tensor[[16, 8], pl.INT32]:
        a = pl.tile.load(x, [0, 0], [{XR}, {XC}]{SPACE})
        s = {SOURCE}
        t = pl.tile.transpose_view(s)
        i = pl.tile.load(idx, [0, 0], [16, 8], target_memory=pl.Mem.Vec)
        g = pl.tile.gather(t, i)
        return pl.tile.store(g, [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[{XR}, {XC}], pl.INT32], idx: pl.Tensor[[16, 8], pl.INT32]
             ) -> pl.Tensor[[16, 8], pl.INT32]:
        out: pl.Tensor[[16, 8], pl.INT32] = pl.tensor.create([16, 8], dtype=pl.INT32)
        r: pl.Tensor[[16, 8], pl.INT32] = self.kernel(x, idx, out)
        return r
"""
STATED = dict(SPACE=", target_memory=pl.Mem.Vec", SOURCE="a")
PLACED = dict(SPACE="", SOURCE="pl.tile.adds(a, 1)")


def _refusal(tmp_path: Path, source: str, backend: str, capsys: pytest.CaptureFixture[str]) -> str:
    (tmp_path / "k.py").write_text(source)
    assert main([str(tmp_path / "k.py"), "--backend", backend, "--verify-all", "--simulate", "-o", "-"]) == 1
    return capsys.readouterr().err


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("layout", [STATED, PLACED], ids=["stated", "placed"])
def test_a_gather_from_a_transposed_view_is_refused_at_the_users_line(
        tmp_path: Path, backend: str, layout: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    err = _refusal(tmp_path, TRANSPOSED_GATHER.format(XR=2, XC=16, **layout), backend, capsys)
    assert "k.py:13:13: error: [TypeDeduction]" in err or "k.py:13:13: error: [TypeChecked]" in err, err
    assert "is a column-major [16, 2] tile, whose buffer holds its elements column after column" in err
    assert "hint: gather from (scatter into) a row-major tile" in err
    assert "internal compiler error" not in err


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_gather_from_a_transposed_row_matches_numpy(tmp_path: Path, backend: str) -> None:
    """A transposed [1, 16] row is a column-major [16, 1] column: its elements are contiguous,
    in row-major order, so the flat walk reads them as the interpreter does."""
    source = TRANSPOSED_GATHER.format(XR=1, XC=16, **STATED)
    rng = np.random.default_rng(5)
    x = rng.integers(-1000, 1000, (1, 16)).astype(np.int32)
    idx = rng.integers(0, 16, (16, 8)).astype(np.int32)
    _same_bits(_run(tmp_path, source, backend, {"x": x, "idx": idx}), x.T.reshape(-1)[idx])


TRANSPOSED_SCATTER = """\
# nanopass.language: TilePlaced
import pypto.language as pl


@pl.program
class TransposedScatter:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP32], idx: pl.Tensor[[16, 8], pl.INT32],
               out: pl.Out[pl.Tensor[[8, 16], pl.FP32]]) -> pl.Tensor[[8, 16], pl.FP32]:
        a: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 16], target_memory=pl.Mem.Vec)
        t: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major)] = pl.tile.transpose_view(a)
        i: pl.Tile[[16, 8], pl.INT32, pl.Mem.Vec] = pl.tile.load(idx, [0, 0], [16, 8], target_memory=pl.Mem.Vec)
        v: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 8], target_memory=pl.Mem.Vec)
        s: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major)] = pl.tile.scatter(t, v, i)
        return pl.tile.store(a, [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], idx: pl.Tensor[[16, 8], pl.INT32]) -> pl.Tensor[[8, 16], pl.FP32]:
        out: pl.Tensor[[8, 16], pl.FP32] = pl.tensor.create([8, 16], dtype=pl.FP32)
        r: pl.Tensor[[8, 16], pl.FP32] = self.kernel(x, idx, out)
        return r
"""


def test_a_scatter_into_a_transposed_view_is_refused_at_the_users_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = _refusal(tmp_path, TRANSPOSED_SCATTER, "Ascend910B", capsys)
    assert "k.py:14:98: error: [TypeChecked] tile.scatter: operand 'dst' (argument 0) is a column-major" in err, err
    assert "is a column-major [16, 8] tile" in err and "expected inside" not in err
    assert "internal compiler error" not in err


def test_target_op_rules_catch_a_column_major_gather_source_the_deduction_lets_through() -> None:
    """The verifier side of the fact: with the deduction's check patched out (what a deducer
    forgetting it would do), TargetOpRules refuses the program at the gather all the same."""
    source = TRANSPOSED_GATHER.format(XR=2, XC=16, **STATED)
    with _patched("languages.ops", "_check_flat_row_major", lambda original: lambda opdef, args: None):
        program = parse_program(source, "k.py")
        found = target_op_rules(program, get_backend("Ascend910B"))
    assert [d.rule for d in found] == ["TargetOpRules"], found
    assert "operand 'src' `t` is a column-major [16, 2] tile" in found[0].message
    assert found[0].span.line == 13
