# fuzz-regression: simulator-error (simulator fault)
# blamed: memory planning / codegen / simulator (after L0Tiled)
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:28:55: error: [Simulator] pto.subview: window [32, 1] at [0, 0] leaves 0 (Vec @ 0, [16, 32] INT8, valid [16, 16])
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.INT32], out4: pl.Out[pl.Tensor[[1, 16], pl.INT32]]) -> pl.Tensor[[1, 16], pl.INT32]:
        t3: pl.Tile[[1, 16], pl.INT32, pl.Mem.Vec, pl.TileView(valid_shape=[1, 1])] = pl.tile.set_validshape(pl.tile.load(x1, [0, 0], [1, 16], target_memory=pl.Mem.Vec), 1, 1)
        st5: pl.Tensor[[1, 16], pl.INT32] = pl.tile.store(t3, [0, 0], out4)
        return st5

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, x1: pl.Tensor[[16, 16], pl.INT8], x4: pl.Tensor[[16, 1], pl.INT8], x9: pl.Tensor[[16, 1], pl.INT8], out12: pl.Out[pl.Tensor[[16, 16], pl.INT8]]) -> pl.Tensor[[16, 16], pl.INT8]:
        l2: pl.Tile[[16, 16], pl.INT8, pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        pl.system.bar_all()
        t3: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        pl.system.bar_all()
        l5: pl.Tile[[16, 1], pl.INT8, pl.Mem.Vec] = pl.tile.load(x4, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        pl.system.bar_all()
        t6: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        pl.system.bar_all()
        t7: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        pl.system.bar_all()
        t8: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        pl.system.bar_all()
        t11: pl.Tile[[16, 16], pl.INT8, pl.Mem.Vec] = pl.tile.assemble(l2, pl.tile.load(x9, [0, 0], [16, 1], target_memory=pl.Mem.Vec), [0, 0])
        st13: pl.Tensor[[16, 16], pl.INT8] = pl.tile.store(t11, [0, 0], out12)
        return st13

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.INT32], kernel1_x1: pl.Tensor[[16, 16], pl.INT8], kernel1_x4: pl.Tensor[[16, 1], pl.INT8], kernel1_x9: pl.Tensor[[16, 1], pl.INT8]) -> tuple[pl.Tensor[[1, 16], pl.INT32], pl.Tensor[[16, 16], pl.INT8]]:
        kernel0_out4: pl.Tensor[[1, 16], pl.INT32] = pl.tensor.create([1, 16], dtype=pl.INT32)
        kernel0_out: pl.Tensor[[1, 16], pl.INT32] = self.kernel0(kernel0_x1, kernel0_out4)
        kernel1_out12: pl.Tensor[[16, 16], pl.INT8] = pl.tensor.create([16, 16], dtype=pl.INT8)
        kernel1_out: pl.Tensor[[16, 16], pl.INT8] = self.kernel1(kernel1_x1, kernel1_x4, kernel1_x9, kernel1_out12)
        return kernel0_out, kernel1_out
