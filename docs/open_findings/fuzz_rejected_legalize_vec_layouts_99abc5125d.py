# fuzz-regression: rejected (compile error)
# blamed: legalize-vec-layouts
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:12:9: error: [LegalizeVecLayouts] `tile.adds` on a column-major Vec tile of shape [16, 16] is not supported yet
#       hint: PTO's vector unit computes on row-major tiles; only an [N, 1] column has a zero-copy row view
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[16, 16], pl.INT32], x5: pl.Tensor[[16, 1], pl.INT32], out9: pl.Out[pl.Tensor[[16, 16], pl.INT32]]) -> pl.Tensor[[16, 16], pl.INT32]:
        l2: pl.Tile[[16, 16], pl.INT32, pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        t3: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.reinterpret_view(l2, dtype=pl.FP32)
        t4: pl.Tile[[16, 16], pl.INT32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major)] = pl.tile.transpose_view(l2)
        pl.system.bar_all()
        l6: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.load(x5, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        t7: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        st10: pl.Tensor[[16, 16], pl.INT32] = pl.tile.store(pl.tile.adds(t4, pl.cast(t7, pl.INT32)), [0, 0], out9)
        return st10

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[16, 16], pl.INT32], kernel0_x5: pl.Tensor[[16, 1], pl.INT32]) -> pl.Tensor[[16, 16], pl.INT32]:
        kernel0_out9: pl.Tensor[[16, 16], pl.INT32] = pl.tensor.create([16, 16], dtype=pl.INT32)
        kernel0_out: pl.Tensor[[16, 16], pl.INT32] = self.kernel0(kernel0_x1, kernel0_x5, kernel0_out9)
        return kernel0_out
