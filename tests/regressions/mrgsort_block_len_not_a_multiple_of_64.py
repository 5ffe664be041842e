# Campaign finding 29e310f0a0 (agent-m's --ptoas campaign, seed 7): a [1, 16] FP32 row merged in
# blocks of 2 elements simulated bit-exact, but PTOAS refused the pto.tmrgsort ("expects blockLen > 0
# and multiple of 64", TMrgSortOp::verify). The deduction now refuses a constant block_len that is
# not a positive multiple of 64 at the call (tests/test_mrgsort_block_len.py asserts the located
# error on both targets), so this is a refusal test's input, not a replayed regression.
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.FP32]) -> pl.Tensor[[1, 16], pl.FP32]:
        t2: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.mrgsort_format1(x1, pl.const(2, pl.INT32))
        return t2

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.FP32]) -> pl.Tensor[[1, 16], pl.FP32]:
        kernel0_out: pl.Tensor[[1, 16], pl.FP32] = self.kernel0(kernel0_x1)
        return kernel0_out
