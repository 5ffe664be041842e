# fuzz-regression: generator (input verification)
# blamed: generator
# input-seed: 0
# backend: Ascend950
# pipeline: default
# verdict when found:
#   error: the input program is not valid Tensor
#   <fuzz>:35:53: error: [ViewLegality] tile.reshape re-views `t4`, a window of another tile (tile.slice at <fuzz>:34:53): a reshape is a handle on the whole buffer from its base, so the window's offset would be dropped
#       hint: reshape the source tile and slice the reshaped tile, or move the window into its own tile (tile.move) before reshaping it
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend950
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.FP32], out7: pl.Out[pl.Tensor[[1, 16], pl.FP32]]) -> pl.Tensor[[1, 16], pl.FP32]:
        l2: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [1, 16], target_memory=pl.Mem.Vec)
        t3: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.reinterpret_view(l2, dtype=pl.FP32)
        t4: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        pl.system.bar_all()
        t5: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        pl.system.bar_all()
        st8: pl.Tensor[[1, 16], pl.FP32] = pl.tile.store(pl.tile.abs(l2), [0, 0], out7)
        return st8

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, x1: pl.Tensor[[16], pl.INT32]) -> pl.Tensor[[16], pl.INT32]:
        t2: pl.Tensor[[16], pl.INT32] = pl.tensor.muls(x1, pl.const(1, pl.INT32))
        n3: pl.Scalar[pl.INDEX] = pl.tensor.dim(t2, axis=0)
        n4: pl.Scalar[pl.INDEX] = n3 * 2
        pl.system.bar_all()
        t5: pl.Scalar[pl.INDEX] = pl.tensor.get_block_idx()
        pl.system.bar_all()
        t6: pl.Scalar[pl.INDEX] = pl.tensor.get_block_idx()
        return t2

    @pl.function(type=pl.FunctionType.InCore)
    def kernel2(self, x1: pl.Tensor[[1, 16], pl.INT32], out7: pl.Out[pl.Tensor[[1, 1], pl.INT32]], out9: pl.Out[pl.Tensor[[1, 1], pl.INT32]]) -> tuple[pl.Tensor[[1, 1], pl.INT32], pl.Tensor[[1, 1], pl.INT32]]:
        l2: pl.Tile[[1, 16], pl.INT32, pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [1, 16], target_memory=pl.Mem.Vec)
        t3: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        t4: pl.Tile[[1, 1], pl.INT32, pl.Mem.Vec] = pl.tile.slice(l2, [1, 1], [0, 0])
        t5: pl.Tile[[1, 1], pl.INT32, pl.Mem.Vec] = pl.tile.reshape(t4, [1, 1])
        pl.system.bar_all()
        t6: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        st8: pl.Tensor[[1, 1], pl.INT32] = pl.tile.store(t5, [0, 0], out7)
        st10: pl.Tensor[[1, 1], pl.INT32] = pl.tile.store(t4, [0, 0], out9)
        return st8, st10

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.FP32], kernel1_x1: pl.Tensor[[16], pl.INT32], kernel2_x1: pl.Tensor[[1, 16], pl.INT32]) -> tuple[pl.Tensor[[1, 16], pl.FP32], pl.Tensor[[16], pl.INT32], pl.Tensor[[1, 1], pl.INT32], pl.Tensor[[1, 1], pl.INT32]]:
        kernel0_out7: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.create([1, 16], dtype=pl.FP32)
        kernel0_out: pl.Tensor[[1, 16], pl.FP32] = self.kernel0(kernel0_x1, kernel0_out7)
        kernel1_out: pl.Tensor[[16], pl.INT32] = self.kernel1(kernel1_x1)
        kernel2_out7: pl.Tensor[[1, 1], pl.INT32] = pl.tensor.create([1, 1], dtype=pl.INT32)
        kernel2_out9: pl.Tensor[[1, 1], pl.INT32] = pl.tensor.create([1, 1], dtype=pl.INT32)
        kernel2_outs: tuple[pl.Tensor[[1, 1], pl.INT32], pl.Tensor[[1, 1], pl.INT32]] = self.kernel2(kernel2_x1, kernel2_out7, kernel2_out9)
        kernel2_out0: pl.Tensor[[1, 1], pl.INT32] = kernel2_outs[0]
        kernel2_out1: pl.Tensor[[1, 1], pl.INT32] = kernel2_outs[1]
        return kernel0_out, kernel1_out, kernel2_out0, kernel2_out1
