# fuzz-regression: rejected (compile error)
# blamed: convert-tensor-to-tile-ops
# input-seed: 0
# backend: Ascend950
# pipeline: default
# verdict when found:
#   <fuzz>:12:43: error: [ConvertTensorToTileOps] `tensor.add` broadcasts an operand of shape [16, 16] to [16, 1]; only 2-D [m, 1] / [1, n] / [1, 1] operands broadcast on chip
#       hint: reshape the operands to 2-D, or expand explicitly with tensor.row_expand_* / col_expand_*
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend950
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, a1: pl.Tensor[[16, 16], pl.FP16], b2: pl.Tensor[[16, 1], pl.FP16], x6: pl.Tensor[[1, 1], pl.FP32], x7: pl.Tensor[[16, 1], pl.FP32]) -> tuple[pl.Tensor[[16, 1], pl.FP32], pl.Tensor[[16, 16], pl.FP16]]:
        ca3: pl.Tensor[[16, 16], pl.FP16] = pl.tensor.muls(a1, pl.const(1.0, pl.FP16))
        c5: pl.Tensor[[16, 1], pl.FP32, pl.TensorView(valid_shape=[1, 1])] = pl.tensor.set_validshape(pl.tensor.matmul(ca3, b2, out_dtype=pl.FP32), 1, 1)
        t8: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.add(c5, x7)
        return t8, ca3

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_a1: pl.Tensor[[16, 16], pl.FP16], kernel0_b2: pl.Tensor[[16, 1], pl.FP16], kernel0_x6: pl.Tensor[[1, 1], pl.FP32], kernel0_x7: pl.Tensor[[16, 1], pl.FP32]) -> tuple[pl.Tensor[[16, 1], pl.FP32], pl.Tensor[[16, 16], pl.FP16]]:
        kernel0_outs: tuple[pl.Tensor[[16, 1], pl.FP32], pl.Tensor[[16, 16], pl.FP16]] = self.kernel0(kernel0_a1, kernel0_b2, kernel0_x6, kernel0_x7)
        kernel0_out0: pl.Tensor[[16, 1], pl.FP32] = kernel0_outs[0]
        kernel0_out1: pl.Tensor[[16, 16], pl.FP16] = kernel0_outs[1]
        return kernel0_out0, kernel0_out1
