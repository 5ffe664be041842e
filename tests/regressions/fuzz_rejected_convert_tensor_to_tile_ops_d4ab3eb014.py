# fuzz-regression: rejected (compile error)
# blamed: convert-tensor-to-tile-ops
# input-seed: 243
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:15:9: error: [TypeDeduction] tile.row_expand_mul: operand 'row' (argument 1) expected shape [32, 1] (one value per row), got [32, 16]
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 243 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, a1: pl.Tensor[[1, 64], pl.INT8], b2: pl.Tensor[[64, 1], pl.INT8]) -> pl.Tensor[[1, 1], pl.INT32]:
        c3: pl.Tensor[[1, 1], pl.INT32] = pl.tensor.matmul(a1, b2)
        return c3

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, a1: pl.Tensor[[20, 16], pl.BF16], b2: pl.Tensor[[16, 1], pl.BF16], x5: pl.Tensor[[1, 1], pl.FP32]) -> pl.Tensor[[20, 1], pl.FP32]:
        c3: pl.Tensor[[20, 1], pl.FP32] = pl.tensor.matmul(a1, b2, out_dtype=pl.FP32)
        t4: pl.Tensor[[20, 1], pl.FP32] = pl.tensor.fillpad(c3, pad_value="max")
        t6: pl.Tensor[[20, 1], pl.FP32] = pl.tensor.row_expand_mul(t4, c3)
        return t6

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_a1: pl.Tensor[[1, 64], pl.INT8], kernel0_b2: pl.Tensor[[64, 1], pl.INT8], kernel1_a1: pl.Tensor[[20, 16], pl.BF16], kernel1_b2: pl.Tensor[[16, 1], pl.BF16], kernel1_x5: pl.Tensor[[1, 1], pl.FP32]) -> tuple[pl.Tensor[[1, 1], pl.INT32], pl.Tensor[[20, 1], pl.FP32]]:
        kernel0_out: pl.Tensor[[1, 1], pl.INT32] = self.kernel0(kernel0_a1, kernel0_b2)
        kernel1_out: pl.Tensor[[20, 1], pl.FP32] = self.kernel1(kernel1_a1, kernel1_b2, kernel1_x5)
        return kernel0_out, kernel1_out
