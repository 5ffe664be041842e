# fuzz-regression: rejected (compile error)
# blamed: convert-tensor-to-tile-ops
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:15:47: error: [ConvertTensorToTileOps] operand 0 of `tensor.matmul_acc` is a GM tensor, but the operator reads it on chip and it cannot be loaded there
#       hint: seed it in the kernel (pl.create_tensor) instead of passing a GM tensor
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[2, 16, 16], pl.FP32]) -> pl.Tensor[[2, 16, 16], pl.FP32]:
        n3: pl.Scalar[pl.INDEX] = pl.tensor.dim(pl.tensor.muls(x1, pl.const(0.5, pl.FP32)), axis=0)
        n4: pl.Scalar[pl.INDEX] = n3 * 2
        pl.system.bar_all()
        t5: pl.Tensor[[2, 16, 16], pl.FP32] = pl.tensor.abs(x1)
        pl.system.bar_all()
        t6: pl.Tensor[[2, 16, 16], pl.FP32] = pl.tensor.matmul_acc(x1, x1, x1, a_trans=True, b_trans=True)
        return t6

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[2, 16, 16], pl.FP32]) -> pl.Tensor[[2, 16, 16], pl.FP32]:
        kernel0_out: pl.Tensor[[2, 16, 16], pl.FP32] = self.kernel0(kernel0_x1)
        return kernel0_out
