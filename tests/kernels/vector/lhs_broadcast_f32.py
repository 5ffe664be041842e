import pypto.language as pl


@pl.program
class LhsBroadcastF32:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[8, 32], pl.FP32], col: pl.Tensor[[8, 1], pl.FP32],
               row: pl.Tensor[[1, 32], pl.FP32], one: pl.Tensor[[1, 1], pl.FP32]) -> pl.Tensor[[8, 32], pl.FP32]:
        a = pl.sub(col, x)
        b = pl.div(row, a)
        c = pl.maximum(b, col)
        d = pl.minimum(c, row)
        e = pl.add(d, one)
        return e

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[8, 32], pl.FP32], col: pl.Tensor[[8, 1], pl.FP32],
             row: pl.Tensor[[1, 32], pl.FP32], one: pl.Tensor[[1, 1], pl.FP32]) -> pl.Tensor[[8, 32], pl.FP32]:
        y = self.kernel(x, col, row, one)
        return y
