# fuzz-regression: mismatch (simulator mismatch)
# blamed: convert-tensor-to-tile-ops..update-orchestration-call-sites
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   kernel0_x1: MISMATCH at [1, 0]: compiled 0x0000230f, interpreter 0x00005032 (7 of 8 elements differ)
#   the output of update-orchestration-call-sites, interpreted, already differs:
#   kernel0_x1: MISMATCH at [1, 0]: compiled 0x0000230f, interpreter 0x00005032 (7 of 8 elements differ)
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[8, 1], pl.INT32], x2: pl.Tensor[[8, 1], pl.INT32]) -> pl.Tensor[[1, 1], pl.INT32]:
        t3: pl.Tensor[[8, 1], pl.INT32, pl.TensorView(valid_shape=[1, 1])] = pl.tensor.slice(x2, [8, 1], [0, 0], [1, 1])
        t4: pl.Tensor[[1, 1], pl.INT32] = pl.tensor.col_max(t3)
        t5: pl.Tensor[[8, 1], pl.INT32] = pl.tensor.expand_clone(t3, x1)
        t6: pl.Tensor[[1, 1], pl.INT32] = pl.tensor.col_max(t3)
        return t6

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[8, 1], pl.INT32], kernel0_x2: pl.Tensor[[8, 1], pl.INT32]) -> pl.Tensor[[1, 1], pl.INT32]:
        kernel0_out: pl.Tensor[[1, 1], pl.INT32] = self.kernel0(kernel0_x1, kernel0_x2)
        return kernel0_out
