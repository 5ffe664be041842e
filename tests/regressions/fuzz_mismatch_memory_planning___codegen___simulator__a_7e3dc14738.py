# fuzz-regression: mismatch (simulator mismatch)
# blamed: memory planning / codegen / simulator (after L0Tiled)
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   ret2: MISMATCH at [0, 16]: compiled 0x44d9ebff, interpreter 0x469662ce (6 of 22 elements differ)
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[2, 1, 16], pl.FP32], x2: pl.Tensor[[2, 1, 16], pl.FP32], x3: pl.Tensor[[2, 1, 16], pl.FP32], x4: pl.Tensor[[2, 1, 16], pl.FP32]) -> pl.Tensor[[2, 1, 16], pl.FP32]:
        t5: pl.Tensor[[2, 1, 16], pl.FP32] = pl.tensor.muls(x1, pl.const(0.001, pl.FP32))
        return t5

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, x1: pl.Tensor[[16], pl.INT32]) -> pl.Tensor[[16], pl.INT32]:
        pl.system.bar_all()
        t2: pl.Scalar[pl.INDEX] = pl.tensor.get_subblock_idx()
        pl.system.bar_all()
        t3: pl.Scalar[pl.INDEX] = pl.tensor.get_subblock_idx()
        t4: pl.Tensor[[16], pl.INT32] = pl.tensor.muls(x1, pl.const(1, pl.INT32))
        return t4

    @pl.function(type=pl.FunctionType.InCore)
    def kernel2(self, a1: pl.Tensor[[20, 16], pl.FP16], b2: pl.Tensor[[16, 32], pl.FP16], a4: pl.Tensor[[20, 16], pl.FP16], b5: pl.Tensor[[16, 32], pl.FP16]) -> pl.Tensor[[20, 32], pl.FP32, pl.TensorView(valid_shape=[1, 22])]:
        c6: pl.Tensor[[20, 32], pl.FP32] = pl.tensor.matmul_acc(pl.tensor.matmul(a1, b2, out_dtype=pl.FP32), a4, b5)
        t7: pl.Tensor[[20, 32], pl.FP32, pl.TensorView(valid_shape=[1, 22])] = pl.tensor.set_validshape(c6, 1, 22)
        return t7

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[2, 1, 16], pl.FP32], kernel0_x2: pl.Tensor[[2, 1, 16], pl.FP32], kernel0_x3: pl.Tensor[[2, 1, 16], pl.FP32], kernel0_x4: pl.Tensor[[2, 1, 16], pl.FP32], kernel1_x1: pl.Tensor[[16], pl.INT32], kernel2_a1: pl.Tensor[[20, 16], pl.FP16], kernel2_b2: pl.Tensor[[16, 32], pl.FP16], kernel2_a4: pl.Tensor[[20, 16], pl.FP16], kernel2_b5: pl.Tensor[[16, 32], pl.FP16]) -> tuple[pl.Tensor[[2, 1, 16], pl.FP32], pl.Tensor[[16], pl.INT32], pl.Tensor[[20, 32], pl.FP32, pl.TensorView(valid_shape=[1, 22])]]:
        kernel0_out: pl.Tensor[[2, 1, 16], pl.FP32] = self.kernel0(kernel0_x1, kernel0_x2, kernel0_x3, kernel0_x4)
        kernel1_out: pl.Tensor[[16], pl.INT32] = self.kernel1(kernel1_x1)
        kernel2_out: pl.Tensor[[20, 32], pl.FP32, pl.TensorView(valid_shape=[1, 22])] = self.kernel2(kernel2_a1, kernel2_b2, kernel2_a4, kernel2_b5)
        return kernel0_out, kernel1_out, kernel2_out
