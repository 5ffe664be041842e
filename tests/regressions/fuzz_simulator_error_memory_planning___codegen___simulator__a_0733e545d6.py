# fuzz-regression: simulator-error (simulator fault)
# blamed: memory planning / codegen / simulator (after L0Tiled)
# input-seed: 7351
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:11:43: error: [Simulator] pto.tscatter: index 16 at [2, 0] outside the 16 elements of 0 (Vec @ 0, [16, 1] FP32, valid [16, 1])
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 7351 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[16, 1], pl.FP32], x2: pl.Tensor[[16, 1], pl.FP32], x4: pl.Tensor[[1, 1], pl.FP32], idx5: pl.Tensor[[16, 1], pl.UINT32], idx6: pl.Tensor[[16, 1], pl.INT32], x7: pl.Tensor[[16, 1], pl.FP32]) -> pl.Tensor[[15, 1], pl.FP32]:
        t3: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.rsqrt(x1, high_precision=True)
        t8: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.scatter(t3, idx6, x7)
        t9: pl.Tensor[[15, 1], pl.FP32] = pl.tensor.slice(t8, [15, 1], [0, 0])
        return t9

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[16, 1], pl.FP32], kernel0_x2: pl.Tensor[[16, 1], pl.FP32], kernel0_x4: pl.Tensor[[1, 1], pl.FP32], kernel0_idx5: pl.Tensor[[16, 1], pl.UINT32], kernel0_idx6: pl.Tensor[[16, 1], pl.INT32], kernel0_x7: pl.Tensor[[16, 1], pl.FP32]) -> pl.Tensor[[15, 1], pl.FP32]:
        kernel0_out: pl.Tensor[[15, 1], pl.FP32] = self.kernel0(kernel0_x1, kernel0_x2, kernel0_x4, kernel0_idx5, kernel0_idx6, kernel0_x7)
        return kernel0_out
