# fuzz-regression: rejected (compile error)
# blamed: legalize-vec-layouts
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:10:9: error: [LegalizeVecLayouts] `tile.abs` on a column-major Vec tile of shape [8, 2] is not supported yet
#       hint: PTO's vector unit computes on row-major tiles; only an [N, 1] column has a zero-copy row view
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[16, 1], pl.INT16], x2: pl.Tensor[[16, 1], pl.INT16], x3: pl.Tensor[[16, 1], pl.INT16]) -> pl.Tensor[[8, 2], pl.FP16]:
        t4: pl.Tensor[[8, 2], pl.FP16] = pl.tensor.reinterpret_view(x1, dtype=pl.FP16, shape=[8, 2])
        pl.system.bar_all()
        t5: pl.Tensor[[8, 2], pl.FP16] = pl.tensor.abs(t4)
        return t5

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[16, 1], pl.INT16], kernel0_x2: pl.Tensor[[16, 1], pl.INT16], kernel0_x3: pl.Tensor[[16, 1], pl.INT16]) -> pl.Tensor[[8, 2], pl.FP16]:
        kernel0_out: pl.Tensor[[8, 2], pl.FP16] = self.kernel0(kernel0_x1, kernel0_x2, kernel0_x3)
        return kernel0_out
