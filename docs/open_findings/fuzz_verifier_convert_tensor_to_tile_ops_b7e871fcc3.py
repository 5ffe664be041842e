# fuzz-regression: verifier (verifier)
# blamed: convert-tensor-to-tile-ops
# input-seed: 0
# backend: Ascend950
# pipeline: default
# verdict when found:
#   internal compiler error: Verification failed after 'ConvertTensorToTileOps' for properties {DefinedReads}
#   error: [ConvertTensorToTileOps] `convert-tensor-to-tile-ops` broke DefinedReads, which it does not declare in `invalidates` (it held before the pass) (the input was verified when it was loaded: this is a compiler bug)
#       hint: for pass authors: fix the pass, or declare the property in its `invalidates` so later passes re-establish it
#   <fuzz>:12:9: error: [DefinedReads] tile.store reads `t6_tile` over its valid region [1, 1], but tile.matmul wrote only [0, 1] of it: the elements beyond hold no data
#       hint: set_validshape widens the metadata only: write the elements first (load or fill them)
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend950
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, a1: pl.Tensor[[20, 16], pl.FP16], b2: pl.Tensor[[16, 1], pl.FP16]) -> pl.Tensor[[1, 1], pl.FP32]:
        c4: pl.Tensor[[20, 1], pl.FP32] = pl.tensor.matmul(pl.tensor.slice(a1, [20, 16], [0, 0], [1, 16]), b2, out_dtype=pl.FP32)
        t6: pl.Tensor[[1, 1], pl.FP32] = pl.tensor.slice(pl.tensor.set_validshape(c4, 1, 1), [1, 1], [1, 0])
        return t6

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_a1: pl.Tensor[[20, 16], pl.FP16], kernel0_b2: pl.Tensor[[16, 1], pl.FP16]) -> pl.Tensor[[1, 1], pl.FP32]:
        kernel0_out: pl.Tensor[[1, 1], pl.FP32] = self.kernel0(kernel0_a1, kernel0_b2)
        return kernel0_out
