# (stop 27, tests/test_ptoas.py's generated-program draw on a5; was docs/open_findings) A [1, 1]
# window of an [N, 1] INT32 column, reinterpreted as FP32 and fed to tile.part_max. PTOAS refused
# `'pto.tpartmax' op expects src0/src1/dst to have the same shape` (a5; a3: the window's copy, a
# vector tmov between a [1, 1] subview and an [8, 1] tile, "matching src/dst shapes"):
# LegalizeVecLayouts copied the window before the reinterpret into a column-major [1, 1] tile
# ([8, 1] FP32 once padded), while part_max's fresh [1, 1] result is row-major ([1, 8]).
# Fixed: a [1, 1] tile is a row as much as a column, so a copy of one (tile.move) and a re-view of
# one from its first byte (reinterpret_view) are row-major [1, 1] tiles (`v9` below, which was
# annotated column-major), and the copy of a column's window is made from the column's row view:
# a pto.tinsert of the one-element row window (a scalar element move in pto-isa, as INT32 bits
# copied as FP32 on a3), into the [1, 8] tile part_max reads. tests/test_one_element_windows.py.
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[16, 1], pl.INT32], out17: pl.Out[pl.Tensor[[1, 1], pl.FP32]]) -> pl.Tensor[[1, 1], pl.FP32]:
        l2: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        w: pl.Tile[[1, 1], pl.INT32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major)] = pl.tile.slice(l2, [1, 1], [1, 0])
        v9: pl.Tile[[1, 1], pl.FP32, pl.Mem.Vec] = pl.tile.reinterpret_view(w, dtype=pl.FP32)
        tile10: pl.Tile[[1, 1], pl.FP32] = pl.tile.part_max(v9, v9)
        st18: pl.Tensor[[1, 1], pl.FP32] = pl.tile.store(tile10, [0, 0], out17)
        return st18

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[16, 1], pl.INT32]) -> pl.Tensor[[1, 1], pl.FP32]:
        kernel0_out17: pl.Tensor[[1, 1], pl.FP32] = pl.tensor.create([1, 1], dtype=pl.FP32)
        kernel0_outs: pl.Tensor[[1, 1], pl.FP32] = self.kernel0(kernel0_x1, kernel0_out17)
        return kernel0_outs
