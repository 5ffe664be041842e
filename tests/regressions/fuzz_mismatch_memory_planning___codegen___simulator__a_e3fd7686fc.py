# fuzz-regression: mismatch (simulator mismatch)
# blamed: memory planning / codegen / simulator (after L0Tiled)
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   ret0: MISMATCH at [0, 3]: compiled 0xc190, interpreter 0xc191 (1 of 16 elements differ)
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: DSL
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_y1: pl.Tensor[[1, 16], pl.BF16], kernel0_x2: pl.Tensor[[1, 16], pl.BF16], kernel0_x4: pl.Tensor[[1, 16], pl.BF16], kernel0_x6: pl.Tensor[[1, 16], pl.BF16], kernel0_x12: pl.Tensor[[1, 1], pl.INT32], kernel0_x13: pl.Tensor[[1, 16], pl.INT32], kernel0_x14: pl.Tensor[[1, 16], pl.UINT32], kernel0_x15: pl.Tensor[[1, 16], pl.INT32]) -> pl.Tensor[[1, 16], pl.BF16]:
        with pl.at(level=pl.Level.CORE_GROUP):
            kernel0_s_t3: pl.Tensor[[1, 16], pl.BF16] = pl.tensor.adds(kernel0_x2, pl.const(0.5, pl.BF16))
            kernel0_s_t5: pl.Tensor[[1, 16], pl.BF16] = pl.tensor.adds(kernel0_x4, pl.const(0.5, pl.BF16))
            kernel0_s_t7: pl.Tensor[[1, 16], pl.BF16] = pl.tensor.adds(kernel0_x6, pl.const(0.5, pl.BF16))
            for kernel0_s_i8, (kernel0_s_acc9, kernel0_s_acc10, kernel0_s_acc11,) in pl.range(1, init_values=(kernel0_s_t3, kernel0_s_t5, kernel0_s_t7,)):
                kernel0_s_t16: pl.Tensor[[1, 16], pl.BF16] = pl.tensor.mul(kernel0_s_acc9, pl.const(0.1, pl.BF16))
                kernel0_s_t17: pl.Tensor[[1, 16], pl.BF16] = pl.tensor.abs(kernel0_s_acc9)
                kernel0_s_out18, kernel0_s_out19, kernel0_s_out20 = pl.yield_(kernel0_s_t16, kernel0_s_acc11, kernel0_s_acc10)
            kernel0_s_t21: pl.Tensor[[1, 16], pl.BF16] = pl.tensor.add(kernel0_s_out18, kernel0_s_out19)
        kernel0_out: pl.Tensor[[1, 16], pl.BF16] = kernel0_s_t21
        return kernel0_out
