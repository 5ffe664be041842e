# fuzz-regression: rejected (compile error)
# blamed: expand-mixed-kernel
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:21:9: error: [ExpandMixedKernel] `syncall_mat_ws` is computed on the cube core (AIC) but used on the vector core (AIV); only tiles that cross through a cross-core FIFO (Acc → Vec, Vec → Mat) can move between the cores
#       hint: compute the value on the core that uses it, or pass it through a GM tensor in a separate kernel
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.FP32]) -> tuple[pl.Tensor[[1, 8], pl.FP32], pl.Tensor[[1, 16], pl.FP32]]:
        t2: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.rsqrt(x1, high_precision=True)
        pl.system.bar_all()
        t3: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.abs(x1)
        t4: pl.Tensor[[1, 8], pl.FP32] = pl.tensor.gather_mask(x1, mask_pattern=1, output_dtype=pl.FP32)
        pl.system.bar_all()
        t5: pl.Tensor[[1, 8], pl.FP32] = pl.tensor.gather_mask(x1, mask_pattern=1, output_dtype=pl.FP32)
        return t5, t2

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, a1: pl.Tensor[[16, 16], pl.FP16], b2: pl.Tensor[[16, 16], pl.FP16], a4: pl.Tensor[[16, 16], pl.FP16], b5: pl.Tensor[[16, 16], pl.FP16], x7: pl.Tensor[[16], pl.INT32]) -> tuple[pl.Tensor[[16, 8], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        c6: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.matmul_acc(pl.tensor.matmul(a1, b2, out_dtype=pl.FP32), a4, b5)
        pl.system.syncall(x7, pl.const(1, pl.INT32), mode="soft", core_type="mix")
        t8: pl.Tensor[[16, 8], pl.FP32] = pl.tensor.gather_mask(c6, mask_pattern=1, output_dtype=pl.FP32)
        return t8, c6

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.FP32], kernel1_a1: pl.Tensor[[16, 16], pl.FP16], kernel1_b2: pl.Tensor[[16, 16], pl.FP16], kernel1_a4: pl.Tensor[[16, 16], pl.FP16], kernel1_b5: pl.Tensor[[16, 16], pl.FP16], kernel1_x7: pl.Tensor[[16], pl.INT32]) -> tuple[pl.Tensor[[1, 8], pl.FP32], pl.Tensor[[1, 16], pl.FP32], pl.Tensor[[16, 8], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        kernel0_outs: tuple[pl.Tensor[[1, 8], pl.FP32], pl.Tensor[[1, 16], pl.FP32]] = self.kernel0(kernel0_x1)
        kernel0_out0: pl.Tensor[[1, 8], pl.FP32] = kernel0_outs[0]
        kernel0_out1: pl.Tensor[[1, 16], pl.FP32] = kernel0_outs[1]
        kernel1_outs: tuple[pl.Tensor[[16, 8], pl.FP32], pl.Tensor[[16, 16], pl.FP32]] = self.kernel1(kernel1_a1, kernel1_b2, kernel1_a4, kernel1_b5, kernel1_x7)
        kernel1_out0: pl.Tensor[[16, 8], pl.FP32] = kernel1_outs[0]
        kernel1_out1: pl.Tensor[[16, 16], pl.FP32] = kernel1_outs[1]
        return kernel0_out0, kernel0_out1, kernel1_out0, kernel1_out1
