"""SubviewWindows: a pto.subview window stays inside the declared extent of the tile it views.
Fed a PTO program whose window was moved past its source (by hand, as a .pto file, and by the
codegen mutant that swaps a window's offsets) it fires at the subview's line; the compiler's own
output for a windowed kernel passes."""

from __future__ import annotations

from pathlib import Path

import pytest

from backend.pto_text.parser import parse_mlir
from nanopass.pipeline import main
from nanopass_pto.mutants import MUTANTS
from tests.kernel_cli import program_text
from verifiers import subview_windows

# A [16, 32] window at rows 8.., columns 16.. of a [32, 64] tile: swapped, the offsets put it at
# row 16, column 8 (still inside); at column 48 it leaves the source.
KERNEL = program_text("""\
@pl.function(type=pl.FunctionType.InCore)
def kernel(self, a: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
    t: pl.Tile[[32, 64], pl.FP32] = pl.tile.load(a, [0, 0], [32, 64])
    s: pl.Tile[[16, 32], pl.FP32] = pl.tile.slice(t, [16, 32], [{row}, {col}])
    e: pl.Tile[[16, 32], pl.FP32] = pl.tile.exp(s)
    r: pl.Tensor[[16, 32], pl.FP32] = pl.tile.store(e, [0, 0], out)
    return r

@pl.function(type=pl.FunctionType.Orchestration)
def main(self, a: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
    r = self.kernel(a, out)
    return r
""")


def _pto(tmp_path: Path, capsys: pytest.CaptureFixture[str], row: int, col: int) -> str:
    path = tmp_path / "kernel.py"
    path.write_text(KERNEL.format(row=row, col=col))
    assert main([str(path), "--verify-all", "-o", str(tmp_path / "k.pto")]) == 0, capsys.readouterr().err
    return (tmp_path / "k.pto").read_text()


def test_the_compiled_window_is_inside_its_source(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = _pto(tmp_path, capsys, 8, 16)
    assert "pto.subview" in text
    assert subview_windows.verify(parse_mlir(text, "k.pto")) == []


def test_a_hand_moved_window_is_refused_at_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = _pto(tmp_path, capsys, 8, 16).replace("%c8_index, %c16_index]", "%c8_index, %c48_index]")
    text = text.replace("    %c16_index = arith.constant 16 : index\n",
                        "    %c16_index = arith.constant 16 : index\n    %c48_index = arith.constant 48 : index\n")
    line = next(i for i, l in enumerate(text.splitlines(), 1) if "pto.subview" in l)
    (tmp_path / "bad.pto").write_text(text)
    assert main([str(tmp_path / "bad.pto"), "--verify-all", "-o", str(tmp_path / "out.pto")]) == 1
    log = capsys.readouterr().err
    assert f"bad.pto:{line}:" in log and "[SubviewWindows]" in log, log
    assert "spans [48, 80), outside the source's declared extent 64" in log, log


def test_the_offset_swapping_mutant_is_caught(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Offsets [8, 48] of a [32, 64] tile swap to [48, 8]: past its 32 rows."""
    path = tmp_path / "kernel.py"
    path.write_text(KERNEL.format(row=8, col=32))
    mutant = {m.name: m for m in MUTANTS}["codegen-subview-offsets-swapped"]
    with mutant.applied():
        rc = main([str(path), "--verify-all", "-o", str(tmp_path / "k.pto"), "--reproducer-dir", str(tmp_path / "r")])
    log = capsys.readouterr().err
    assert rc == 2 and "[PTOCodegen]" in log and "violates it" in log and "spans [32, 48)" in log, log
