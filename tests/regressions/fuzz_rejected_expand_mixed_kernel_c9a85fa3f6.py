# fuzz-regression: rejected (compile error)
# blamed: expand-mixed-kernel
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:15:5: error: [ExpandMixedKernel] GM tensor `y1` is written on the cube core (AIC) and also accessed on the vector core (AIV); the two cores run concurrently and nothing orders their GM accesses
#       hint: write each output tensor from one core only (store the vector result from the vector core and the cube result from the cube core), or split the work into two kernels
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, a1: pl.Tensor[[8, 32], pl.FP16], b2: pl.Tensor[[32, 16], pl.FP16]) -> pl.Tensor[[8, 16], pl.FP32]:
        c3: pl.Tensor[[8, 16], pl.FP32] = pl.tensor.matmul(a1, b2, out_dtype=pl.FP32)
        t5: pl.Tensor[[8, 16], pl.FP32] = pl.tensor.add(c3, pl.tensor.exp(c3))
        return t5

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, y1: pl.Tensor[[16, 32], pl.FP32], x2: pl.Tensor[[16, 32], pl.FP32], x4: pl.Tensor[[16, 32], pl.FP32], x6: pl.Tensor[[16, 32], pl.FP32], x12: pl.Tensor[[1, 32], pl.FP32], x13: pl.Tensor[[16, 1], pl.FP32], x14: pl.Tensor[[1, 32], pl.FP32], idx20: pl.Tensor[[16, 32], pl.INT32], idx21: pl.Tensor[[16, 32], pl.INT32], x22: pl.Tensor[[16, 1], pl.FP32], idx23: pl.Tensor[[16, 32], pl.INT32], idx24: pl.Tensor[[1, 16], pl.INT32]) -> pl.Tensor[[16, 32], pl.FP32]:
        t3: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.adds(x2, pl.const(0.5, pl.FP32))
        t5: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.adds(x4, pl.const(0.5, pl.FP32))
        t7: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.adds(x6, pl.const(0.5, pl.FP32))
        for i8, (acc9, acc10, acc11,) in pl.range(1, init_values=(t3, t5, t7,)):
            t15: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.matmul(acc9, x14, a_trans=False, b_trans=True, out_dtype=pl.FP32)
            t16: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.write(y1, [0, 0], pl.const(0.5, pl.FP32))
            t17: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.row_expand_expdif(acc9, t15)
            if i8 == 0:
                t18: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.abs(acc9)
                t19: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.abs(acc9)
                phi26 = pl.yield_(t17)
            else:
                t25: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.scatter_update(acc9, index=idx24, src=acc9)
                phi26 = pl.yield_(acc11)
            t27: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.add(acc11, acc9)
            out28, out29, out30 = pl.yield_(acc11, acc11, t27)
        t31: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.add(out28, out29)
        return t31

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_a1: pl.Tensor[[8, 32], pl.FP16], kernel0_b2: pl.Tensor[[32, 16], pl.FP16], kernel1_y1: pl.Tensor[[16, 32], pl.FP32], kernel1_x2: pl.Tensor[[16, 32], pl.FP32], kernel1_x4: pl.Tensor[[16, 32], pl.FP32], kernel1_x6: pl.Tensor[[16, 32], pl.FP32], kernel1_x12: pl.Tensor[[1, 32], pl.FP32], kernel1_x13: pl.Tensor[[16, 1], pl.FP32], kernel1_x14: pl.Tensor[[1, 32], pl.FP32], kernel1_idx20: pl.Tensor[[16, 32], pl.INT32], kernel1_idx21: pl.Tensor[[16, 32], pl.INT32], kernel1_x22: pl.Tensor[[16, 1], pl.FP32], kernel1_idx23: pl.Tensor[[16, 32], pl.INT32], kernel1_idx24: pl.Tensor[[1, 16], pl.INT32]) -> tuple[pl.Tensor[[8, 16], pl.FP32], pl.Tensor[[16, 32], pl.FP32]]:
        kernel0_out: pl.Tensor[[8, 16], pl.FP32] = self.kernel0(kernel0_a1, kernel0_b2)
        kernel1_out: pl.Tensor[[16, 32], pl.FP32] = self.kernel1(kernel1_y1, kernel1_x2, kernel1_x4, kernel1_x6, kernel1_x12, kernel1_x13, kernel1_x14, kernel1_idx20, kernel1_idx21, kernel1_x22, kernel1_idx23, kernel1_idx24)
        return kernel0_out, kernel1_out
