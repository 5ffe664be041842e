# (stop 27, tests/test_ptoas.py's generated-program draw on a5, after the generator's draw shift)
# PTOAS refuses `'pto.tpartmax' op expects src0/src1/dst to have the same shape`: a [1, 1] window
# of an [N, 1] INT32 column is column-major, and LegalizeVecLayouts' copy of it before the
# reinterpret (tile.move within Vec) keeps that layout ([8, 1] FP32 once padded), while the
# part_max result is a fresh row-major [1, 1] ([1, 8]). The simulator runs it bit-exact.
# replay: python -m nanopass.pipeline THIS_FILE --backend Ascend950 -o k.pto && ptoas --pto-arch=a5 --pto-level=level3 k.pto -o k.cpp
# Root fix (the same as transpose_view_of_a_one_element_window.py): a [1, 1] tile is a row as
# much as a column: give a fresh copy of a one-element window the row-major layout (and a [1, 1]
# transpose is the tile itself), with a move PTOAS takes between the two paddings on a3 too.
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[16, 1], pl.INT32], out17: pl.Out[pl.Tensor[[1, 1], pl.FP32]]) -> pl.Tensor[[1, 1], pl.FP32]:
        l2: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        w: pl.Tile[[1, 1], pl.INT32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major)] = pl.tile.slice(l2, [1, 1], [1, 0])
        v9: pl.Tile[[1, 1], pl.FP32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major)] = pl.tile.reinterpret_view(w, dtype=pl.FP32)
        tile10: pl.Tile[[1, 1], pl.FP32] = pl.tile.part_max(v9, v9)
        st18: pl.Tensor[[1, 1], pl.FP32] = pl.tile.store(tile10, [0, 0], out17)
        return st18

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[16, 1], pl.INT32]) -> pl.Tensor[[1, 1], pl.FP32]:
        kernel0_out17: pl.Tensor[[1, 1], pl.FP32] = pl.tensor.create([1, 1], dtype=pl.FP32)
        kernel0_outs: pl.Tensor[[1, 1], pl.FP32] = self.kernel0(kernel0_x1, kernel0_out17)
        return kernel0_outs
