# fuzz-regression: mismatch (simulator mismatch)
# blamed: convert-tensor-to-tile-ops..update-orchestration-call-sites
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   ret0: MISMATCH at [0, 1]: compiled 0xffffffff, interpreter 0xffffe4ed (15 of 16 elements differ)
#   the output of update-orchestration-call-sites, interpreted, already differs:
#   ret0: MISMATCH at [0, 1]: compiled 0xffffffff, interpreter 0xffffe4ed (15 of 16 elements differ)
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.INT32], x2: pl.Tensor[[1, 16], pl.INT32], x3: pl.Tensor[[1, 16], pl.INT32], x6: pl.Tensor[[1, 1], pl.INT32]) -> pl.Tensor[[1, 16], pl.INT32]:
        t4: pl.Tensor[[1, 16], pl.INT32, pl.TensorView(valid_shape=[1, 1])] = pl.tensor.set_validshape(x1, 1, 1)
        t5: pl.Scalar[pl.INDEX] = pl.tensor.get_block_idx()
        t7: pl.Tensor[[1, 16], pl.INT32] = pl.tensor.add(t4, x6)
        return t7

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.INT32], kernel0_x2: pl.Tensor[[1, 16], pl.INT32], kernel0_x3: pl.Tensor[[1, 16], pl.INT32], kernel0_x6: pl.Tensor[[1, 1], pl.INT32]) -> pl.Tensor[[1, 16], pl.INT32]:
        kernel0_out: pl.Tensor[[1, 16], pl.INT32] = self.kernel0(kernel0_x1, kernel0_x2, kernel0_x3, kernel0_x6)
        return kernel0_out
