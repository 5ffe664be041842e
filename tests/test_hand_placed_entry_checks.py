"""A kernel written at TilePlaced is checked, when loaded, for what the passes it skips establish
(found by the generator's hand-placed programs): rank-2 tiles only (FlattenTileNdTo2D), moves on
the target's data paths (InferTileMemorySpace), and compact only in L0 (the tile.create
deduction). Each was an internal compiler error or a simulator fault before; now each is a
located error at the user's line."""

from __future__ import annotations

from pathlib import Path

import pytest

from nanopass.pipeline import main

HEADER = '''import pypto.language as pl


@pl.program
class HandPlaced:
    @pl.function(type=pl.FunctionType.InCore)
'''

MAIN = '''
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[SHAPE, pl.FP32]) -> pl.Tensor[SHAPE, pl.FP32]:
        out: pl.Tensor[SHAPE, pl.FP32] = pl.tensor.create(SHAPE, dtype=pl.FP32)
        y: pl.Tensor[SHAPE, pl.FP32] = self.kernel(x, out)
        return y
'''

RANK_3 = '''    def kernel(self, x: pl.Tensor[[2, 8, 16], pl.FP32], out: pl.Out[pl.Tensor[[2, 8, 16], pl.FP32]]) -> pl.Tensor[[2, 8, 16], pl.FP32]:
        t: pl.Tile[[2, 8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [2, 8, 16], target_memory=pl.Mem.Vec)
        s: pl.Tensor[[2, 8, 16], pl.FP32] = pl.tile.store(t, [0, 0, 0], out)
        return s
'''

VEC_TO_BIAS = '''    def kernel(self, x: pl.Tensor[[1, 16], pl.FP32], out: pl.Out[pl.Tensor[[1, 16], pl.FP32]]) -> pl.Tensor[[1, 16], pl.FP32]:
        t: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [1, 16], target_memory=pl.Mem.Vec)
        b: pl.Tile[[1, 16], pl.FP32, pl.Mem.Bias] = pl.tile.move(t, target_memory=pl.Mem.Bias)
        s: pl.Tensor[[1, 16], pl.FP32] = pl.tile.store(t, [0, 0], out)
        return s
'''

COMPACT_MAT = '''    def kernel(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat, pl.TileView(compact=True)] = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Mat, compact=True)
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        s: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(t, [0, 0], out)
        return s
'''


@pytest.mark.parametrize("body, shape, line, expected", [
    # Without a language header a placed rank-3 tile is read as TileUnplaced (and flattened);
    # written as TilePlaced it is refused.
    ("# nanopass.language: TilePlaced\n" + RANK_3, "[2, 8, 16]", 9, "[TileOps2D] tile `t` in InCore function `kernel` has rank 3"),
    (VEC_TO_BIAS, "[1, 16]", 9, "[MovesOnDataPaths] tile.move from Vec to Bias: Ascend910B has no Vec → Bias data path"),
    (COMPACT_MAT, "[16, 16]", 8, "attribute 'compact' needs an L0 target_memory (Left, Right or Acc), got Mat"),
])
def test_a_hand_placed_kernel_is_refused_at_its_line(body: str, shape: str, line: int, expected: str,
                                                   tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "placed.py"
    header, kernel = body.rpartition("    def kernel")[::2]
    path.write_text(header + HEADER + "    def kernel" + kernel + MAIN.replace("SHAPE", shape))
    assert main([str(path), "--verify-all", "--simulate", "--backend", "Ascend910B"]) != 0
    err = capsys.readouterr().err
    assert expected in err, err
    assert f"placed.py:{line}:" in err, err
    assert "internal compiler error" not in err and "Traceback" not in err, err
