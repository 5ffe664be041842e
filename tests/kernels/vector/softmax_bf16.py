import pypto.language as pl


@pl.program
class SoftmaxBF16:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.BF16]) -> pl.Tensor[[16, 64], pl.BF16]:
        xf = pl.cast(x, pl.FP32)
        m = pl.row_max(xf)
        e = pl.exp(pl.row_expand_sub(xf, m))
        y = pl.row_expand_div(e, pl.row_sum(e))
        return pl.cast(y, pl.BF16, "rint")

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.BF16]) -> pl.Tensor[[16, 64], pl.BF16]:
        y = self.kernel(x)
        return y
