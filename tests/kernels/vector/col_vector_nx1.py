import pypto.language as pl


@pl.program
class ColVectorNx1:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[32, 1], pl.FP32], b: pl.Tensor[[32, 1], pl.FP32]) -> pl.Tensor[[32, 1], pl.FP32]:
        c = pl.exp(pl.sub(a, b))
        return pl.muls(c, 2.0)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[32, 1], pl.FP32], b: pl.Tensor[[32, 1], pl.FP32]) -> pl.Tensor[[32, 1], pl.FP32]:
        c = self.kernel(a, b)
        return c
