# fuzz-regression: verifier (verifier)
# blamed: legalize-vec-layouts
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   internal compiler error: Verification failed after 'LegalizeVecLayouts' for properties {DefinedReads}
#   error: [LegalizeVecLayouts] `legalize-vec-layouts` broke DefinedReads, which it does not declare in `invalidates` (it held before the pass) (the input was verified when it was loaded: this is a compiler bug)
#       hint: for pass authors: fix the pass, or declare the property in its `invalidates` so later passes re-establish it
#   <fuzz>:16:43: error: [DefinedReads] tile.add computes its result over its valid region [1, 16], so it reads `set_validshape_0_tile_row` there, past `set_validshape_0_tile_row`'s valid region; tile.load wrote only [1, 1] of it: the elements beyond hold no data
#       hint: give the operands one valid shape (pl.set_validshape on the wider one), or fill the narrower one's padding first (pl.tile.fillpad), or load it at its full extent
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[16, 1], pl.FP32]) -> tuple[pl.Tensor[[16, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[16, 1], pl.FP32]]:
        t2: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.abs(x1)
        pl.system.bar_all()
        t3: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.abs(x1)
        pl.system.bar_all()
        t4: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.abs(x1)
        r6: pl.Tensor[[1, 1], pl.FP32] = pl.tensor.col_max(pl.tensor.slice(x1, [1, 1], [0, 0], [1, 1]))
        p8: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.add(pl.tensor.set_validshape(x1, 1, 1), x1)
        return t4, r6, p8

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[16, 1], pl.FP32]) -> tuple[pl.Tensor[[16, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[16, 1], pl.FP32]]:
        kernel0_outs: tuple[pl.Tensor[[16, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[16, 1], pl.FP32]] = self.kernel0(kernel0_x1)
        kernel0_out0: pl.Tensor[[16, 1], pl.FP32] = kernel0_outs[0]
        kernel0_out1: pl.Tensor[[1, 1], pl.FP32] = kernel0_outs[1]
        kernel0_out2: pl.Tensor[[16, 1], pl.FP32] = kernel0_outs[2]
        return kernel0_out0, kernel0_out1, kernel0_out2
