import pypto.language as pl


@pl.program
class ScalarF32:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[8, 32], pl.FP32]) -> pl.Tensor[[8, 32], pl.FP32]:
        a = pl.add(x, 2.0)
        b = pl.mul(a, 0.5)
        c = pl.tensor.subs(b, 1.25)
        d = pl.tensor.divs(c, 3.0)
        e = pl.maximum(d, -0.5)
        f = pl.minimum(e, 0.75)
        g = pl.tensor.adds(f, 1.0)
        h = pl.tensor.muls(g, 3.0)
        return h

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[8, 32], pl.FP32]) -> pl.Tensor[[8, 32], pl.FP32]:
        y = self.kernel(x)
        return y
