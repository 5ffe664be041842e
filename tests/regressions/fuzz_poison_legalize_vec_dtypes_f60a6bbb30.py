# fuzz-regression: poison (poison read)
# blamed: legalize-vec-dtypes
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:12:43: error: [Simulator] pto.tfmod reads 2[0, 1], which no instruction has written (its bytes still hold the 0xFF poison pattern)
#       hint: the program reads uninitialised memory: a missing load, a wrong address, or padding consumed as data
#   the output of legalize-vec-dtypes, interpreted, already differs:
#   ret0: MISMATCH at [0, 1]: compiled 0xffff, interpreter 0x0000 (15 of 16 elements differ)
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.BF16], x2: pl.Tensor[[1, 16], pl.BF16], x3: pl.Tensor[[1, 16], pl.BF16]) -> pl.Tensor[[1, 16], pl.BF16]:
        t4: pl.Tensor[[1, 16], pl.BF16, pl.TensorView(valid_shape=[1, 1])] = pl.tensor.set_validshape(x1, 1, 1)
        t5: pl.Scalar[pl.INDEX] = pl.tensor.get_block_idx()
        t6: pl.Tensor[[1, 16], pl.BF16] = pl.tensor.fmod(t4, x1)
        return t6

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.BF16], kernel0_x2: pl.Tensor[[1, 16], pl.BF16], kernel0_x3: pl.Tensor[[1, 16], pl.BF16]) -> pl.Tensor[[1, 16], pl.BF16]:
        kernel0_out: pl.Tensor[[1, 16], pl.BF16] = self.kernel0(kernel0_x1, kernel0_x2, kernel0_x3)
        return kernel0_out
