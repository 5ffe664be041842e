import pypto.language as pl


@pl.program
class BroadcastF32:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], col: pl.Tensor[[16, 1], pl.FP32],
               row: pl.Tensor[[1, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        y = pl.add(x, col)
        z = pl.mul(y, row)
        w = pl.sub(z, col)
        v = pl.div(w, row)
        return v

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], col: pl.Tensor[[16, 1], pl.FP32],
             row: pl.Tensor[[1, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        out = self.kernel(x, col, row)
        return out
