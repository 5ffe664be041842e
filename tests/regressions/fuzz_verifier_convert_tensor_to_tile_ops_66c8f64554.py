# fuzz-regression: verifier (verifier)
# blamed: convert-tensor-to-tile-ops
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   internal compiler error: Verification failed after 'ConvertTensorToTileOps' for properties {TargetOpRules}
#   error: [ConvertTensorToTileOps] `convert-tensor-to-tile-ops` broke TargetOpRules, which it does not declare in `invalidates` (it held before the pass) (the input was verified when it was loaded: this is a compiler bug)
#       hint: for pass authors: fix the pass, or declare the property in its `invalidates` so later passes re-establish it
#   <fuzz>:10:44: error: [TargetOpRules] tile.full on Ascend910B: the result has element type UINT16, expected one of BF16, FP16, FP32, INT16, INT32; PTOAS's texpands takes BF16 / FP16 / FP32 / INT16 / INT32 elements on A2/A3 (its scalar is a signless MLIR integer that must equal the element type, so no unsigned one)
#       hint: compute in one of those types (pl.cast before and after), or compile for Ascend950
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 1], pl.UINT16], idx2: pl.Tensor[[1, 1], pl.INT32]) -> pl.Tensor[[1, 1], pl.UINT16]:
        t3: pl.Tensor[[1, 1], pl.UINT16] = pl.tensor.scatter_update(x1, index=idx2, src=x1)
        return t3

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 1], pl.UINT16], kernel0_idx2: pl.Tensor[[1, 1], pl.INT32]) -> pl.Tensor[[1, 1], pl.UINT16]:
        kernel0_out: pl.Tensor[[1, 1], pl.UINT16] = self.kernel0(kernel0_x1, kernel0_idx2)
        return kernel0_out
