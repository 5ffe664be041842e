# fuzz-regression: rejected (compile error)
# blamed: convert-tensor-to-tile-ops
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:11:40: error: [ConvertTensorToTileOps] `tensor.sub` broadcasts an operand of shape [1] to [16]; only 2-D [m, 1] / [1, n] / [1, 1] operands broadcast on chip
#       hint: reshape the operands to 2-D, or expand explicitly with tensor.row_expand_* / col_expand_*
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[16], pl.FP32], v16: pl.Tensor[[16], pl.FP32], out6: pl.Out[pl.Tensor[[16], pl.FP32]]) -> pl.Tensor[[16], pl.FP32]:
        r4: pl.Tensor[[1], pl.FP32] = pl.tensor.row_sum(x1)
        t5: pl.Tensor[[16], pl.FP32] = pl.tensor.sub(r4, v16)
        asm7: pl.Tensor[[16], pl.FP32] = pl.tensor.assemble(out6, t5, [0])
        return asm7

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[16], pl.FP32], kernel0_v16: pl.Tensor[[16], pl.FP32]) -> pl.Tensor[[16], pl.FP32]:
        kernel0_out6: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32)
        kernel0_out: pl.Tensor[[16], pl.FP32] = self.kernel0(kernel0_x1, kernel0_v16, kernel0_out6)
        return kernel0_out
