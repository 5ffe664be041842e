# fuzz-regression: verifier (verifier)
# blamed: convert-tensor-to-tile-ops
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   internal compiler error: Verification failed after 'ConvertTensorToTileOps' for properties {DefinedReads}
#   <fuzz>:11:43: error: [DefinedReads] tile.add computes its result over its valid region [1, 16], so it reads `t4_tile` there, past `t4_tile`'s valid region; tile.load wrote only [1, 1] of it: the elements beyond hold no data
#   (a false finding: tile.load wrote all [1, 16] of x1; the reshape narrows only the valid region, its bytes are the load's)
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.FP32], out5: pl.Out[pl.Tensor[[1, 16], pl.FP32]]) -> pl.Tensor[[1, 16], pl.FP32]:
        t4: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.reshape(x1, [1, 16], valid_shape=[1, 1])
        t5: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.add(t4, x1)
        asm6: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.assemble(out5, t5, [0, 0])
        return asm6

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, x1: pl.Tensor[[16], pl.FP32], out5: pl.Out[pl.Tensor[[1, 16], pl.FP32]]) -> pl.Tensor[[1, 16], pl.FP32]:
        t4: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.reshape(x1, [1, 16], valid_shape=[1, 1])
        t5: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.add(t4, x1)
        asm6: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.assemble(out5, t5, [0, 0])
        return asm6

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.FP32], kernel1_x1: pl.Tensor[[16], pl.FP32]) -> tuple[pl.Tensor[[1, 16], pl.FP32], pl.Tensor[[1, 16], pl.FP32]]:
        kernel0_out5: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.create([1, 16], dtype=pl.FP32)
        kernel0_out: pl.Tensor[[1, 16], pl.FP32] = self.kernel0(kernel0_x1, kernel0_out5)
        kernel1_out5: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.create([1, 16], dtype=pl.FP32)
        kernel1_out: pl.Tensor[[1, 16], pl.FP32] = self.kernel1(kernel1_x1, kernel1_out5)
        return kernel0_out, kernel1_out
