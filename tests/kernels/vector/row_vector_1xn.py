import pypto.language as pl


@pl.program
class RowVector1xN:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[1, 64], pl.FP32], b: pl.Tensor[[1, 64], pl.FP32]) -> pl.Tensor[[1, 64], pl.FP32]:
        m = pl.row_max(a)
        c = pl.row_expand_sub(pl.mul(a, b), m)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[1, 64], pl.FP32], b: pl.Tensor[[1, 64], pl.FP32]) -> pl.Tensor[[1, 64], pl.FP32]:
        c = self.kernel(a, b)
        return c
