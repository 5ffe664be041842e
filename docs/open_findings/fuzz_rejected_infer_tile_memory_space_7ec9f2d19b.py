# fuzz-regression: rejected (compile error)
# blamed: infer-tile-memory-space
# input-seed: 0
# backend: Ascend950
# pipeline: default
# verdict when found:
#   <fuzz>:20:81: error: [InferTileMemorySpace] Vec usage of kernel `kernel2`: the tile `matmul_0_tile_vec` alone is [256, 256] FP32, 262144 bytes, over the Ascend950 Vec capacity of 245760 bytes
#       hint: use smaller tiles: loop over blocks of the tensor, loading a slice per iteration, so each tile holds at most 245760 bytes of Vec
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend950
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[16], pl.INT32]) -> pl.Tensor[[16], pl.INT32]:
        t2: pl.Tensor[[16], pl.INT32] = pl.tensor.muls(x1, pl.const(1, pl.INT32))
        return t2

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, a1: pl.Tensor[[300, 32], pl.INT8], b2: pl.Tensor[[32, 128], pl.INT8]) -> pl.Tensor[[300, 128], pl.INT32]:
        c3: pl.Tensor[[300, 128], pl.INT32] = pl.tensor.matmul(a1, b2)
        return c3

    @pl.function(type=pl.FunctionType.InCore)
    def kernel2(self, a1: pl.Tensor[[256, 64], pl.FP16], b2: pl.Tensor[[64, 256], pl.FP16]) -> pl.Tensor[[256, 256], pl.FP16, pl.TensorView(valid_shape=[1, 1])]:
        c4: pl.Tensor[[256, 256], pl.FP16, pl.TensorView(valid_shape=[1, 1])] = pl.tensor.set_validshape(pl.tensor.matmul(a1, b2), 1, 1)
        return c4

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[16], pl.INT32], kernel1_a1: pl.Tensor[[300, 32], pl.INT8], kernel1_b2: pl.Tensor[[32, 128], pl.INT8], kernel2_a1: pl.Tensor[[256, 64], pl.FP16], kernel2_b2: pl.Tensor[[64, 256], pl.FP16]) -> tuple[pl.Tensor[[16], pl.INT32], pl.Tensor[[300, 128], pl.INT32], pl.Tensor[[256, 256], pl.FP16, pl.TensorView(valid_shape=[1, 1])]]:
        kernel0_out: pl.Tensor[[16], pl.INT32] = self.kernel0(kernel0_x1)
        kernel1_out: pl.Tensor[[300, 128], pl.INT32] = self.kernel1(kernel1_a1, kernel1_b2)
        kernel2_out: pl.Tensor[[256, 256], pl.FP16, pl.TensorView(valid_shape=[1, 1])] = self.kernel2(kernel2_a1, kernel2_b2)
        return kernel0_out, kernel1_out, kernel2_out
