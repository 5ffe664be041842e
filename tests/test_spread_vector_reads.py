"""A row / column broadcast reads its vector operand once per result row / column: TCOLEXPAND*
reads row 0 over the result's valid columns, whatever the vector's own valid region. DefinedReads
(and the generator, from the same registry facts) refuse a vector that holds fewer values than
that at the user's line (finding 9976370f45: a poison read on the device)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nanopass.pipeline import main

HEADER = "import pypto.language as pl\n\n\n@pl.program\nclass K:\n    @pl.function(type=pl.FunctionType.InCore)\n"

ONE_VALUE_FOR_SIXTEEN_COLUMNS = HEADER + """\
    def k(self, x: pl.Tensor[[16, 16], pl.INT32], out: pl.Out[pl.Tensor[[16, 16], pl.INT32]]) -> pl.Tensor[[16, 16], pl.INT32]:
        t: pl.Tile[[16, 16], pl.INT32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        corner: pl.Tile[[16, 16], pl.INT32, pl.Mem.Vec, pl.TileView(valid_shape=[1, 1])] = pl.tile.set_validshape(t, 1, 1)
        m: pl.Tile[[1, 16], pl.INT32, pl.TileView(valid_shape=[1, 1])] = pl.tile.col_max(corner)
        e: pl.Tile[[16, 16], pl.INT32] = pl.tile.col_expand_max(t, m)
        return pl.tile.store(e, [0, 0], out)
"""

ONE_VALUE_FOR_SIXTEEN_ROWS = HEADER + """\
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        top: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[1, 16])] = pl.tile.set_validshape(t, 1, 16)
        s: pl.Tile[[16, 1], pl.FP32, pl.TileView(valid_shape=[1, 1])] = pl.tile.row_sum(top, pl.tile.create([16, 16], dtype=pl.FP32))
        e: pl.Tile[[16, 16], pl.FP32] = pl.tile.row_expand_sub(t, s)
        return pl.tile.store(e, [0, 0], out)
"""


@pytest.mark.parametrize(("text", "words"), [
    (ONE_VALUE_FOR_SIXTEEN_COLUMNS, "one value per result column ([1, 16] of `m`"),
    (ONE_VALUE_FOR_SIXTEEN_ROWS, "one value per result row ([16, 1] of `s`"),
])
def test_a_vector_short_of_the_results_rows_or_columns_is_refused_at_the_users_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, words: str) -> None:
    path = tmp_path / "k.py"
    path.write_text(text)
    assert main([str(path), "--verify-all", "-o", str(tmp_path / "k.pto")]) != 0
    err = capsys.readouterr().err
    assert "k.py:11:" in err and "[DefinedReads]" in err and words in err and "Traceback" not in err, err
