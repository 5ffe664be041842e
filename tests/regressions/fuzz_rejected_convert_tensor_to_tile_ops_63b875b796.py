# fuzz-regression: rejected (compile error)
# blamed: convert-tensor-to-tile-ops
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:10:43: error: [ConvertTensorToTileOps] not supported yet: `tensor.reshape` of `x1_tile`, a cube result of shape [1, 16] that lives boxed as [16, 16] (its M is rounded up to a whole fractal box); a reshape needs a buffer holding exactly [1, 16]
#       hint: store the matmul result and reshape it in the next kernel, or give the matmul an M that is a multiple of 16
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.FP32]) -> pl.Tensor[[1, 1], pl.FP32]:
        t2: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.reshape(x1, [1, 16])
        t3: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.reshape(x1, [1, 16])
        pl.system.bar_all()
        t4: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.reshape(x1, [1, 16])
        pl.system.bar_all()
        t5: pl.Tensor[[1, 1], pl.FP32] = pl.tensor.matmul(x1, t2, a_trans=False, b_trans=True, out_dtype=pl.FP32)
        return t5

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.FP32]) -> pl.Tensor[[1, 1], pl.FP32]:
        kernel0_out: pl.Tensor[[1, 1], pl.FP32] = self.kernel0(kernel0_x1)
        return kernel0_out
