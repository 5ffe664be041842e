import pypto.language as pl


@pl.program
class ElementwiseBF16:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.BF16], b: pl.Tensor[[16, 32], pl.BF16]) -> pl.Tensor[[16, 32], pl.BF16]:
        c = pl.add(pl.mul(a, b), 0.5)
        d = pl.maximum(c, b)
        e = pl.sqrt(pl.abs(d))
        return pl.neg(e)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 32], pl.BF16], b: pl.Tensor[[16, 32], pl.BF16]) -> pl.Tensor[[16, 32], pl.BF16]:
        y = self.kernel(a, b)
        return y
