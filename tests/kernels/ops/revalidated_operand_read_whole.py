# An element-wise op over a set_validshape-narrowed value and a whole one reads the narrowed
# operand over the whole result (its loaded bytes are there): ConvertTensorToTileOps hands the
# op the tile it narrows, so PTOAS sees sources of one valid shape (pto.tadd / tsub: "expects
# src0 and src1 to have the same valid_shape"). tests/test_ptoas.py assembles it on both targets.
import pypto.language as pl


@pl.program
class RevalidatedOperandReadWhole:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 32], pl.FP32], y: pl.Tensor[[16, 32], pl.FP32]) -> tuple[
            pl.Tensor[[16, 32], pl.FP32], pl.Tensor[[16, 32], pl.FP32]]:
        top = pl.tensor.set_validshape(x, 4, 32)
        whole = pl.tensor.sub(top, y)
        corner = pl.tensor.set_validshape(y, 1, 1)
        again = pl.tensor.maximum(x, corner)
        return whole, again

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 32], pl.FP32], y: pl.Tensor[[16, 32], pl.FP32]) -> tuple[
            pl.Tensor[[16, 32], pl.FP32], pl.Tensor[[16, 32], pl.FP32]]:
        whole, again = self.kernel(x, y)
        return whole, again
