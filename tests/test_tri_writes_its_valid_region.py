"""tile.tri writes its valid region only (pto-isa's TTRI: validRow x validCol), and a select reads
its packed mask one row per result row. DefinedReads (with the generator, which reads the same
facts in languages.ops) refuses a read of a tri's rows or columns past its valid region at the
user's line: on the device those bytes hold whatever was there before."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from languages.pl_parser import parse_program
from nanopass.pipeline import main
from nanopass_pto.run import compile_program, random_inputs, run

HEADER = "import pypto.language as pl\n\n\n@pl.program\nclass K:\n    @pl.function(type=pl.FunctionType.InCore)\n"

WHOLE_TRIANGLES = HEADER + """\
    def k(self, lo: pl.Out[pl.Tensor[[16, 32], pl.INT32]], up: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> tuple[
            pl.Tensor[[16, 32], pl.INT32], pl.Tensor[[16, 32], pl.FP32]]:
        a: pl.Tile[[16, 32], pl.INT32] = pl.tile.tri(pl.const(-2, pl.INT32), [16, 32], [16, 32], upper=False)
        b: pl.Tile[[16, 32], pl.FP32] = pl.tile.tri(pl.const(3, pl.INT32), [16, 32], [16, 32], dtype=pl.FP32, upper=True)
        x: pl.Tensor[[16, 32], pl.INT32] = pl.tile.store(a, [0, 0], lo)
        y: pl.Tensor[[16, 32], pl.FP32] = pl.tile.store(b, [0, 0], up)
        return x, y
"""

# The mask is written over one row; the select's result has 16.
MASK_ONE_ROW = HEADER + """\
    def k(self, x: pl.Tensor[[16, 1], pl.INT32], out: pl.Out[pl.Tensor[[16, 1], pl.INT32]]) -> pl.Tensor[[16, 1], pl.INT32]:
        m: pl.Tile[[16, 16], pl.INT32] = pl.tile.tri(pl.const(0, pl.INT32), [16, 16], [1, 16], upper=False)
        t: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        s: pl.Tile[[16, 1], pl.INT32] = pl.tile.sels(m, t, pl.tile.create([16, 16], dtype=pl.INT32), pl.const(7, pl.INT32))
        return pl.tile.store(s, [0, 0], out)
"""

# A window one column right of a tri valid over one column.
WINDOW_PAST_TRI = HEADER + """\
    def k(self, out: pl.Out[pl.Tensor[[4, 4], pl.INT32]]) -> pl.Tensor[[4, 4], pl.INT32]:
        m: pl.Tile[[16, 16], pl.INT32] = pl.tile.tri(pl.const(0, pl.INT32), [16, 16], [16, 1], upper=True)
        w: pl.Tile[[4, 4], pl.INT32] = pl.tile.slice(m, [4, 4], [0, 1])
        return pl.tile.store(w, [0, 0], out)
"""


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_triangles_over_their_whole_valid_region_match_numpy(backend: str) -> None:
    compiled = compile_program(parse_program(WHOLE_TRIANGLES, "k.py"), backend=backend, verify_all=True)
    outputs = run(compiled, random_inputs(compiled.source, 1))
    lo, up = np.asarray(outputs["ret0"]), np.asarray(outputs["ret1"])
    ones = np.ones((16, 32))
    assert np.array_equal(lo, np.tril(ones, -2).astype(np.int32))
    assert np.array_equal(up.view(np.uint32), np.triu(ones, 3).astype(np.float32).view(np.uint32))


@pytest.mark.parametrize(("text", "line", "words"), [
    (MASK_ONE_ROW, 10, "reads its mask `m` one row per result row"),
    (WINDOW_PAST_TRI, 10, "tile.tri wrote only [4, 0] of it"),
])
def test_a_read_past_a_tris_valid_region_is_refused_at_the_users_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, line: int, words: str) -> None:
    path = tmp_path / "k.py"
    path.write_text(text)
    assert main([str(path), "--verify-all", "-o", str(tmp_path / "k.pto")]) != 0
    err = capsys.readouterr().err
    assert f"k.py:{line}:" in err and "[DefinedReads]" in err and words in err, err
    assert "Traceback" not in err
