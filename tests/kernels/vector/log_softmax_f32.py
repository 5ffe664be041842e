import pypto.language as pl


@pl.program
class LogSoftmaxF32:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        m: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.row_max(x)
        shifted = pl.tensor.row_expand_sub(x, m)
        s = pl.tensor.row_sum(pl.tensor.exp(shifted))
        y = pl.tensor.row_expand_sub(shifted, pl.tensor.log(s))
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        y = self.kernel(x)
        return y
