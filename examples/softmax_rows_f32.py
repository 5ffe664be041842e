# pypto.program: SoftmaxRowsF32
import pypto.language as pl


@pl.program
class SoftmaxRowsF32:
    @pl.function(type=pl.FunctionType.InCore)
    def softmax_incore(self, x: pl.Tensor[[32, 128], pl.FP32]) -> pl.Tensor[[32, 128], pl.FP32]:
        # Subtracting the row maximum keeps exp() finite for large inputs.
        row_max: pl.Tensor[[32, 1], pl.FP32] = pl.tensor.row_max(x)
        e: pl.Tensor[[32, 128], pl.FP32] = pl.tensor.exp(pl.tensor.row_expand_sub(x, row_max))
        row_sum: pl.Tensor[[32, 1], pl.FP32] = pl.tensor.row_sum(e)
        y: pl.Tensor[[32, 128], pl.FP32] = pl.tensor.row_expand_div(e, row_sum)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32, 128], pl.FP32]) -> pl.Tensor[[32, 128], pl.FP32]:
        y: pl.Tensor[[32, 128], pl.FP32] = self.softmax_incore(x)
        return y
