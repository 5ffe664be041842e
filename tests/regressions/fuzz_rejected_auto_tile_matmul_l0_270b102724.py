# fuzz-regression: rejected (compile error)
# blamed: auto-tile-matmul-l0
# input-seed: 0
# backend: Ascend950
# pipeline: default
# verdict when found:
#   <fuzz>:24:9: error: [AutoTileMatmulL0] PH-AT-006: the accumulator `c3_tile` of tile.matmul is [304, 224] INT32 and needs 272384 bytes, but L0C holds 262144 bytes on Ascend950; it cannot be tiled into output blocks because its result is not consumed by a direct tile.store right after it
#       hint: compute the output in blocks in the kernel (a loop over N or M blocks that slices the operands and stores each block), or consume the matmul result directly with one pl.store / return so AutoTileMatmulL0 can tile the output grid itself
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend950
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[16], pl.INT16]) -> pl.Tensor[[16], pl.INT16]:
        t2: pl.Scalar[pl.INDEX] = pl.tensor.get_block_idx()
        t3: pl.Tensor[[16], pl.INT16] = pl.tensor.muls(x1, pl.const(1, pl.INT16))
        return t3

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, x1: pl.Tensor[[16], pl.INT32]) -> pl.Tensor[[16], pl.INT32]:
        pl.system.bar_all()
        t3: pl.Tensor[[16], pl.INT32] = pl.tensor.shl(x1, pl.tensor.ands(x1, pl.const(31, pl.INT32)))
        pl.system.bar_all()
        t4: pl.Scalar[pl.INDEX] = pl.tensor.get_block_idx()
        return t3

    @pl.function(type=pl.FunctionType.InCore)
    def kernel2(self, a1: pl.Tensor[[300, 64], pl.INT8], b2: pl.Tensor[[64, 200], pl.INT8]) -> tuple[pl.Tensor[[300, 200], pl.INT32, pl.TensorView(valid_shape=[1, 1])], pl.Tensor[[300, 200], pl.INT32]]:
        c3: pl.Tensor[[300, 200], pl.INT32] = pl.tensor.matmul(a1, b2)
        c4: pl.Tensor[[300, 200], pl.INT32, pl.TensorView(valid_shape=[1, 1])] = pl.tensor.set_validshape(c3, 1, 1)
        return c4, c3

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[16], pl.INT16], kernel1_x1: pl.Tensor[[16], pl.INT32], kernel2_a1: pl.Tensor[[300, 64], pl.INT8], kernel2_b2: pl.Tensor[[64, 200], pl.INT8]) -> tuple[pl.Tensor[[16], pl.INT16], pl.Tensor[[16], pl.INT32], pl.Tensor[[300, 200], pl.INT32, pl.TensorView(valid_shape=[1, 1])], pl.Tensor[[300, 200], pl.INT32]]:
        kernel0_out: pl.Tensor[[16], pl.INT16] = self.kernel0(kernel0_x1)
        kernel1_out: pl.Tensor[[16], pl.INT32] = self.kernel1(kernel1_x1)
        kernel2_outs: tuple[pl.Tensor[[300, 200], pl.INT32, pl.TensorView(valid_shape=[1, 1])], pl.Tensor[[300, 200], pl.INT32]] = self.kernel2(kernel2_a1, kernel2_b2)
        kernel2_out0: pl.Tensor[[300, 200], pl.INT32, pl.TensorView(valid_shape=[1, 1])] = kernel2_outs[0]
        kernel2_out1: pl.Tensor[[300, 200], pl.INT32] = kernel2_outs[1]
        return kernel0_out, kernel1_out, kernel2_out0, kernel2_out1
