import pypto.language as pl


@pl.program
class VecOverflow:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[256, 256], pl.FP32], b: pl.Tensor[[256, 256], pl.FP32]) -> pl.Tensor[[256, 256], pl.FP32]:
        c = pl.add(a, b)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[256, 256], pl.FP32], b: pl.Tensor[[256, 256], pl.FP32]) -> pl.Tensor[[256, 256], pl.FP32]:
        c = self.kernel(a, b)
        return c
