import pypto.language as pl


@pl.program
class ElementwiseF16:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 64], pl.FP16], b: pl.Tensor[[16, 64], pl.FP16],
               r: pl.Tensor[[16, 1], pl.FP16]) -> tuple[pl.Tensor[[16, 64], pl.FP16], pl.Tensor[[16, 1], pl.FP16]]:
        s = pl.mul(pl.add(a, b), pl.sub(a, b))
        t = pl.div(s, pl.adds(pl.abs(b), 1.0))
        u = pl.row_expand_mul(pl.exp(pl.muls(t, 0.125)), r)
        return pl.relu(u), pl.row_sum(u)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.FP16], b: pl.Tensor[[16, 64], pl.FP16],
             r: pl.Tensor[[16, 1], pl.FP16]) -> tuple[pl.Tensor[[16, 64], pl.FP16], pl.Tensor[[16, 1], pl.FP16]]:
        y, s = self.kernel(a, b, r)
        return y, s
