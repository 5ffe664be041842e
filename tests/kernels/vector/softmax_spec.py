import pypto.language as pl


@pl.program
class SoftmaxSpec:
    @pl.function(type=pl.FunctionType.InCore)
    def softmax(self, x: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        m = pl.row_max(x)
        e = pl.exp(pl.row_expand_sub(x, m))
        s = pl.row_sum(e)
        y = pl.row_expand_div(e, s)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        y = self.softmax(x)
        return y
