# fuzz-regression: verifier (verifier)
# blamed: legalize-vec-dtypes
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   internal compiler error: Verification failed after 'LegalizeVecDtypes' for properties {ViewLegality}
#   error: [LegalizeVecDtypes] `legalize-vec-dtypes` broke ViewLegality, which it does not declare in `invalidates` (it held before the pass) (the input was verified when it was loaded: this is a compiler bug)
#       hint: for pass authors: fix the pass, or declare the property in its `invalidates` so later passes re-establish it
#   <fuzz>:11:78: error: [ViewLegality] tile.set_validshape cannot change the valid shape of `abs_0_tile`: it is a view (tile.reinterpret_view at <fuzz>:11:103), which carries its valid extent in its own type
#       hint: pass valid_shape= to the slice instead, or call set_validshape on the source tile before taking the view
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.BF16]) -> pl.Tensor[[1, 16], pl.BF16, pl.TensorView(valid_shape=[1, 1])]:
        t2: pl.Scalar[pl.INDEX] = pl.tensor.get_block_num()
        t4: pl.Tensor[[1, 16], pl.BF16, pl.TensorView(valid_shape=[1, 1])] = pl.tensor.set_validshape(pl.tensor.abs(x1), 1, 1)
        return t4

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.BF16]) -> pl.Tensor[[1, 16], pl.BF16, pl.TensorView(valid_shape=[1, 1])]:
        kernel0_out: pl.Tensor[[1, 16], pl.BF16, pl.TensorView(valid_shape=[1, 1])] = self.kernel0(kernel0_x1)
        return kernel0_out
