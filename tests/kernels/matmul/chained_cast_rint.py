import pypto.language as pl


@pl.program
class Chained:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[64, 64], pl.BF16], b: pl.Tensor[[64, 128], pl.BF16], w: pl.Tensor[[128, 32], pl.BF16]) -> pl.Tensor[[64, 32], pl.FP32]:
        c = pl.matmul(a, b, out_dtype=pl.FP32)
        cb = pl.cast(c, pl.BF16, mode="rint")
        d = pl.matmul(cb, w, out_dtype=pl.FP32)
        return d

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.BF16], b: pl.Tensor[[64, 128], pl.BF16], w: pl.Tensor[[128, 32], pl.BF16]) -> pl.Tensor[[64, 32], pl.FP32]:
        d = self.mm(a, b, w)
        return d
