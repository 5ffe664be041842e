# fuzz-regression: generator (input verification)
# blamed: generator
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   error: the input program is not valid DSL
#   <fuzz>:33:48: error: [TargetOpRules] tile.sels on Ascend910B: operand 'tmp' `scratch4` shares bytes with the result `scratch4`; A2/A3's TSELS writes the scalar into tmp while it still reads mask and src and writes dst
#       hint: give tmp a buffer of its own (pl.tile.create([1, 32], dtype=...)); on Ascend950 tmp is unused
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: DSL
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.INT32], out4: pl.Out[pl.Tensor[[1, 16], pl.INT32]], out6: pl.Out[pl.Tensor[[1, 16], pl.INT32]]) -> tuple[pl.Tensor[[1, 16], pl.INT32], pl.Tensor[[1, 16], pl.INT32]]:
        l2: pl.Tile[[1, 16], pl.INT32, pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [1, 16], target_memory=pl.Mem.Vec)
        t3: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        st5: pl.Tensor[[1, 16], pl.INT32] = pl.tile.store(l2, [0, 0], out4)
        st7: pl.Tensor[[1, 16], pl.INT32] = pl.tile.store(l2, [0, 0], out6)
        return st5, st7

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, x1: pl.Tensor[[1, 16], pl.FP32], k2: pl.Scalar[pl.FP32]) -> tuple[pl.Tensor[[1, 16], pl.FP32], pl.Tensor[[1, 16], pl.FP32]]:
        s3: pl.Scalar[pl.FP32] = k2
        t4: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.adds(x1, s3)
        if s3 == pl.const(0.5, pl.FP32) and k2 < pl.const(0.5, pl.FP32):
            t5: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.adds(t4, pl.const(0.5, pl.FP32))
            phi7 = pl.yield_(t5)
        else:
            t6: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.add(t4, t4)
            phi7 = pl.yield_(t6)
        return phi7, t4

    @pl.function(type=pl.FunctionType.InCore)
    def kernel2(self, x1: pl.Tensor[[1, 32], pl.INT32], out9: pl.Out[pl.Tensor[[1, 32], pl.INT32]]) -> pl.Tensor[[1, 32], pl.INT32]:
        l2: pl.Tile[[1, 32], pl.INT32] = pl.tile.load(x1, [0, 0], [1, 32])
        t3: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        scratch4: pl.Tile[[1, 32], pl.INT32] = pl.tile.create([1, 32], dtype=pl.INT32)
        scratch4: pl.Tile[[1, 32], pl.INT32] = pl.tile.sels(l2, l2, scratch4, pl.const(1, pl.INT32))
        pl.system.bar_all()
        t6: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        pl.system.bar_all()
        t7: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        pl.system.bar_all()
        t8: pl.Tile[[1, 32], pl.INT32, pl.TileView(valid_shape=[1, 1])] = pl.tile.set_validshape(l2, 1, 1)
        pl.system.bar_all()
        st10: pl.Tensor[[1, 32], pl.INT32] = pl.tile.store(t8, [0, 0], out9)
        return st10

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.INT32], kernel1_x1: pl.Tensor[[1, 16], pl.FP32], kernel1_k2: pl.Scalar[pl.FP32], kernel2_x1: pl.Tensor[[1, 32], pl.INT32]) -> tuple[pl.Tensor[[1, 16], pl.INT32], pl.Tensor[[1, 16], pl.INT32], pl.Tensor[[1, 16], pl.FP32], pl.Tensor[[1, 16], pl.FP32], pl.Tensor[[1, 32], pl.INT32]]:
        kernel0_out4: pl.Tensor[[1, 16], pl.INT32] = pl.tensor.create([1, 16], dtype=pl.INT32)
        kernel0_out6: pl.Tensor[[1, 16], pl.INT32] = pl.tensor.create([1, 16], dtype=pl.INT32)
        kernel0_outs: tuple[pl.Tensor[[1, 16], pl.INT32], pl.Tensor[[1, 16], pl.INT32]] = self.kernel0(kernel0_x1, kernel0_out4, kernel0_out6)
        kernel0_out0: pl.Tensor[[1, 16], pl.INT32] = kernel0_outs[0]
        kernel0_out1: pl.Tensor[[1, 16], pl.INT32] = kernel0_outs[1]
        kernel1_outs: tuple[pl.Tensor[[1, 16], pl.FP32], pl.Tensor[[1, 16], pl.FP32]] = self.kernel1(kernel1_x1, kernel1_k2)
        kernel1_out0: pl.Tensor[[1, 16], pl.FP32] = kernel1_outs[0]
        kernel1_out1: pl.Tensor[[1, 16], pl.FP32] = kernel1_outs[1]
        kernel2_out9: pl.Tensor[[1, 32], pl.INT32] = pl.tensor.create([1, 32], dtype=pl.INT32)
        kernel2_out: pl.Tensor[[1, 32], pl.INT32] = self.kernel2(kernel2_x1, kernel2_out9)
        return kernel0_out0, kernel0_out1, kernel1_out0, kernel1_out1, kernel2_out
