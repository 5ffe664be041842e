# fuzz-regression: rejected (compile error)
# blamed: allocate-memory-addr
# input-seed: 0
# backend: Ascend950
# pipeline: default
# verdict when found:
#   <fuzz>:22:81: error: [AllocateMemoryAddr] Vec usage of kernel `kernel1` is 319488 bytes, over the Ascend950 Vec capacity of 245760 bytes (2 buffers live at once; the largest is `matmul_0_tile_vec`, 212992 bytes, defined here)
#       hint: use smaller tiles (loop over blocks so each tile holds less than 245760 bytes of Vec), or split the kernel into several InCore functions that each keep fewer tiles alive
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend950
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.FP32], k2: pl.Scalar[pl.FP32]) -> pl.Tensor[[1, 16], pl.FP32]:
        s3: pl.Scalar[pl.FP32] = k2
        t4: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.adds(x1, s3)
        if s3 == pl.const(0.5, pl.FP32) and k2 < pl.const(0.5, pl.FP32):
            t5: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.adds(t4, pl.const(0.5, pl.FP32))
            phi7 = pl.yield_(t5)
        else:
            t6: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.add(t4, t4)
            phi7 = pl.yield_(t6)
        return phi7

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, a1: pl.Tensor[[200, 32], pl.FP16], b2: pl.Tensor[[32, 256], pl.FP16]) -> pl.Tensor[[200, 256], pl.FP16, pl.TensorView(valid_shape=[1, 1])]:
        c4: pl.Tensor[[200, 256], pl.FP16, pl.TensorView(valid_shape=[1, 1])] = pl.tensor.set_validshape(pl.tensor.matmul(a1, b2, out_dtype=pl.FP16), 1, 1)
        return c4

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.FP32], kernel0_k2: pl.Scalar[pl.FP32], kernel1_a1: pl.Tensor[[200, 32], pl.FP16], kernel1_b2: pl.Tensor[[32, 256], pl.FP16]) -> tuple[pl.Tensor[[1, 16], pl.FP32], pl.Tensor[[200, 256], pl.FP16, pl.TensorView(valid_shape=[1, 1])]]:
        kernel0_out: pl.Tensor[[1, 16], pl.FP32] = self.kernel0(kernel0_x1, kernel0_k2)
        kernel1_out: pl.Tensor[[200, 256], pl.FP16, pl.TensorView(valid_shape=[1, 1])] = self.kernel1(kernel1_a1, kernel1_b2)
        return kernel0_out, kernel1_out
