# fuzz-regression: mismatch (simulator mismatch)
# blamed: legalize-vec-dtypes
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   ret0: MISMATCH at [0]: compiled 0xbe5e, interpreter 0xbe5f (4 of 16 elements differ)
#   the output of legalize-vec-dtypes, interpreted, already differs:
#   ret0: MISMATCH at [0]: compiled 0xbe5e, interpreter 0xbe5f (4 of 16 elements differ)
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[16], pl.BF16], x2: pl.Tensor[[16], pl.BF16]) -> pl.Tensor[[16], pl.BF16]:
        t3: pl.Tensor[[16], pl.BF16] = pl.tensor.muls(x1, pl.const(0.1, pl.BF16))
        return t3

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, x1: pl.Tensor[[5, 16], pl.INT16], big6: pl.Tensor[[1, 1], pl.INT16]) -> tuple[pl.Tensor[[5, 16], pl.INT16], pl.Tensor[[1, 1], pl.INT16], pl.Tensor[[1, 1], pl.INT16]]:
        pl.system.syncall(mode="hard")
        t2: pl.Tensor[[5, 16], pl.INT16] = pl.tensor.not_(x1)
        pl.system.syncall(core_type="aiv_only")
        t3: pl.Tensor[[5, 16], pl.INT16] = pl.tensor.xor(x1, x1)
        w4: pl.Tensor[[1, 1], pl.INT16] = pl.tensor.slice(x1, [1, 1], [0, 0], [1, 1])
        r5: pl.Tensor[[1, 1], pl.INT16] = pl.tensor.col_max(w4)
        asm7: pl.Tensor[[1, 1], pl.INT16] = pl.tensor.assemble(big6, r5, [0, 0])
        t8: pl.Tensor[[1, 1], pl.INT16] = pl.tensor.muls(big6, pl.const(1, pl.INT16))
        return t3, r5, t8

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[16], pl.BF16], kernel0_x2: pl.Tensor[[16], pl.BF16], kernel1_x1: pl.Tensor[[5, 16], pl.INT16], kernel1_big6: pl.Tensor[[1, 1], pl.INT16]) -> tuple[pl.Tensor[[16], pl.BF16], pl.Tensor[[5, 16], pl.INT16], pl.Tensor[[1, 1], pl.INT16], pl.Tensor[[1, 1], pl.INT16]]:
        kernel0_out: pl.Tensor[[16], pl.BF16] = self.kernel0(kernel0_x1, kernel0_x2)
        kernel1_outs: tuple[pl.Tensor[[5, 16], pl.INT16], pl.Tensor[[1, 1], pl.INT16], pl.Tensor[[1, 1], pl.INT16]] = self.kernel1(kernel1_x1, kernel1_big6)
        kernel1_out0: pl.Tensor[[5, 16], pl.INT16] = kernel1_outs[0]
        kernel1_out1: pl.Tensor[[1, 1], pl.INT16] = kernel1_outs[1]
        kernel1_out2: pl.Tensor[[1, 1], pl.INT16] = kernel1_outs[2]
        return kernel0_out, kernel1_out0, kernel1_out1, kernel1_out2
