# fuzz-regression: verifier (verifier)
# blamed: convert-tensor-to-tile-ops
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   internal compiler error: Verification failed after 'ConvertTensorToTileOps' for properties {ViewLegality}
#   error: [ConvertTensorToTileOps] `convert-tensor-to-tile-ops` broke ViewLegality, which it does not declare in `invalidates` (it held before the pass) (the input was verified when it was loaded: this is a compiler bug)
#       hint: for pass authors: fix the pass, or declare the property in its `invalidates` so later passes re-establish it
#   <fuzz>:12:44: error: [ViewLegality] tile.set_validshape cannot change the valid shape of `view_0_tile`: it is a view (tile.reshape at <fuzz>:12:58), which carries its valid extent in its own type
#       hint: pass valid_shape= to the slice instead, or call set_validshape on the source tile before taking the view
#   (fixed: a view of a narrowing reshape is the view of the reshape's source, re-viewed over the region its consumer reads)
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.INT32], x2: pl.Tensor[[1, 16], pl.INT32], x3: pl.Tensor[[1, 16], pl.INT32], x7: pl.Tensor[[1, 1], pl.INT32]) -> pl.Tensor[[1, 16], pl.INT32]:
        t4: pl.Tensor[[1, 16], pl.INT32, pl.TensorView(valid_shape=[1, 1])] = pl.tensor.reshape(x1, [1, 16], [1, 1])
        t5: pl.Tensor[[1, 16], pl.INT32] = pl.tensor.reshape(x1, [1, 16])
        t8: pl.Tensor[[1, 16], pl.INT32] = pl.tensor.add(pl.tensor.view(t4), x7)
        return t8

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.INT32], kernel0_x2: pl.Tensor[[1, 16], pl.INT32], kernel0_x3: pl.Tensor[[1, 16], pl.INT32], kernel0_x7: pl.Tensor[[1, 1], pl.INT32]) -> pl.Tensor[[1, 16], pl.INT32]:
        kernel0_out: pl.Tensor[[1, 16], pl.INT32] = self.kernel0(kernel0_x1, kernel0_x2, kernel0_x3, kernel0_x7)
        return kernel0_out
