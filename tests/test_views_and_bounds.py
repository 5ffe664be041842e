"""Views and windows: set_validshape on a view and a slice leaving its source inside a loop are
rejected at the user's line (no traceback, never blamed on a pass); in-bounds loop windows and
the spec's alternative (valid_shape= on the slice) run bit-exact against NumPy; the ViewLegality
and StaticBounds verifiers are each fed a broken program."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from languages.decls import TilePlaced
from languages.pl_parser import parse_program
from nanopass.pipeline import main
from verifiers import static_bounds, view_legality

Array = npt.NDArray[Any]
KERNELS = Path(__file__).resolve().parent / "kernels" / "trust"


def _program(body: str, params: str, result: str, args: str) -> str:
    lines = [
        "import pypto.language as pl",
        "",
        "",
        "@pl.program",
        "class Kernel:",
        "    @pl.function(type=pl.FunctionType.InCore)",
        f"    def kernel(self, {params}) -> {result}:",
        textwrap.indent(textwrap.dedent(body), " " * 8).rstrip(),
        "",
        "    @pl.function(type=pl.FunctionType.Orchestration)",
        f"    def main(self, {params}) -> {result}:",
        f"        r = self.kernel({args})",
        "        return r",
    ]
    return "\n".join(lines) + "\n"


def _compile(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    path = tmp_path / "kernel.py"
    path.write_text(text)
    rc = main([str(path), "--verify-all", "-o", str(tmp_path / "k.pto"), *extra])
    captured = capsys.readouterr()
    return rc, captured.out + captured.err


SET_VALIDSHAPE_ON_SLICE = """\
t = pl.adds(a, 1.0)
s = pl.slice(t, [16, 32], [8, 16])
v = pl.set_validshape(s, 8, 16)
r = pl.muls(v, 2.0)
return r
"""


def test_set_validshape_on_a_slice_view_is_rejected_pointing_at_the_slice(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    text = _program(SET_VALIDSHAPE_ON_SLICE, "a: pl.Tensor[[32, 64], pl.FP32]",
                    "pl.Tensor[[16, 32], pl.FP32, pl.TensorView(valid_shape=[8, 16])]", "a")
    rc, log = _compile(tmp_path, text, capsys)
    assert rc == 1 and "Traceback" not in log
    assert "kernel.py:10:" in log and "cannot narrow a view" in log, log
    assert "tensor.slice at " in log and "kernel.py:9:" in log  # points at the slice
    assert "valid_shape=" in log  # says how to fix it
    assert "fix the pass" not in log


def test_the_spec_alternative_narrows_the_slice_itself(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = SET_VALIDSHAPE_ON_SLICE.replace("s = pl.slice(t, [16, 32], [8, 16])\nv = pl.set_validshape(s, 8, 16)",
                                           "v = pl.slice(t, [16, 32], [8, 16], [8, 16])")
    text = _program(body, "a: pl.Tensor[[32, 64], pl.FP32]",
                    "pl.Tensor[[16, 32], pl.FP32, pl.TensorView(valid_shape=[8, 16])]", "a")
    a = np.random.default_rng(0).uniform(-2, 2, (32, 64)).astype(np.float32)
    np.savez(tmp_path / "in.npz", a=a)
    rc, log = _compile(tmp_path, text, capsys, "--simulate", "--inputs", str(tmp_path / "in.npz"),
                       "--save-outputs", str(tmp_path / "out.npz"))
    assert rc == 0 and "bit-exact" in log, log
    got = np.load(tmp_path / "out.npz")["ret0"]
    expected = ((a[8:16, 16:32] + np.float32(1.0)) * np.float32(2.0)).astype(np.float32)
    assert (got[:8, :16].view(np.uint32) == expected.view(np.uint32)).all()


def test_hand_written_set_validshape_on_a_tile_slice_is_rejected_at_load(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    body = """\
    t: pl.Tile[[32, 64], pl.FP32] = pl.tile.load(a, [0, 0], [32, 64])
    s: pl.Tile[[16, 32], pl.FP32] = pl.tile.slice(t, [16, 32], [8, 16])
    v = pl.tile.set_validshape(s, 8, 16)
    r = pl.tile.store(v, [0, 0], out)
    return r
    """
    text = _program(body, "a: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]",
                    "pl.Tensor[[16, 32], pl.FP32]", "a, out")
    rc, log = _compile(tmp_path, text, capsys)
    assert rc == 1 and "Traceback" not in log and "not valid Tensor" in log, log
    assert "[ViewLegality]" in log and "kernel.py:10:" in log and "tile.slice at" in log


SLICE_LOOP = """\
z = pl.full([16, 32], dtype=pl.FP32, value=0.0)
for i, (acc,) in pl.range({trips}, init_values=(z,)):
    s = pl.slice(a, [16, 32], [i * 16, {col}])
    n = pl.add(acc, s)
    out = pl.yield_(n)
return out
"""


@pytest.mark.parametrize(("trips", "col", "bad"), [(5, "0", "i = 4"), (4, "i * 8 - 8", "i = 0"), (4, "(i // 2) * 8", "")])
def test_a_loop_slice_leaving_its_source_is_rejected_over_the_iteration_range(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], trips: int, col: str, bad: str) -> None:
    text = _program(SLICE_LOOP.format(trips=trips, col=col), "a: pl.Tensor[[64, 40], pl.FP32]",
                    "pl.Tensor[[16, 32], pl.FP32]", "a")
    rc, log = _compile(tmp_path, text, capsys)
    if not bad:  # (i // 2) * 8 reaches 8 at most: 8 + 32 <= 40
        assert rc == 0, log
        return
    assert rc == 1 and "Traceback" not in log and "not valid Tensor" in log, log
    assert "[StaticBounds]" in log and "kernel.py:10:" in log and bad in log, log


def test_static_bounds_checks_nested_loops_and_tile_windows() -> None:
    text = _program("""\
    z: pl.Tile[[16, 16], pl.FP32] = pl.tile.full([16, 16], dtype=pl.FP32, value=0.0)
    for i, (acc,) in pl.range(2, init_values=(z,)):
        for j, (inner,) in pl.range(0, 48, 16, init_values=(acc,)):
            t: pl.Tile[[16, 16], pl.FP32] = pl.tile.load(a, [i * 16, j + 8], [16, 16])
            n: pl.Tile[[16, 16], pl.FP32] = pl.tile.add(inner, t)
            inner_out = pl.yield_(n)
        acc_out = pl.yield_(inner_out)
    r = pl.tile.store(acc_out, [0, 0], out)
    return r
    """, "a: pl.Tensor[[32, 56], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]", "pl.Tensor[[16, 16], pl.FP32]",
                    "a, out")
    from languages.pl_parser import parse_program as parse

    assert static_bounds.verify(parse(text, "ok.py")) == []  # j + 8 + 16 reaches 56 exactly
    found = static_bounds.verify(parse(text.replace("[32, 56]", "[32, 48]"), "bad.py"))
    assert len(found) == 1 and "axis 1" in found[0].message and "j = 32" in found[0].message, found


def test_view_legality_rejects_a_reshape_reinterpreting_nz_boxes() -> None:
    path = KERNELS / "placed_reshape_nz_reinterpreted.py"
    program = parse_program(path.read_text(), path.name, language=TilePlaced)
    found = view_legality.verify(program)
    assert len(found) == 1 and "tile.reshape" in found[0].message and "Mat" in found[0].message, found
    flat = path.read_text().replace("pl.Mem.Mat] = pl.tile.load(a", "pl.Mem.Vec] = pl.tile.load(a") \
        .replace("target_memory=pl.Mem.Mat)\n        b_tile", "target_memory=pl.Mem.Vec)\n        b_tile") \
        .replace("[[64, 128], pl.FP16, pl.Mem.Mat]", "[[64, 128], pl.FP16, pl.Mem.Vec]")
    assert [d for d in view_legality.verify(parse_program(flat, path.name, language=TilePlaced))
            if "re-views" in d.message] == []
