import pypto.language as pl


@pl.program
class MatmulRowSoftmax:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, q: pl.Tensor[[64, 32], pl.FP16], k: pl.Tensor[[32, 64], pl.FP16]) -> pl.Tensor[[64, 64], pl.FP32]:
        s = pl.matmul(q, k, out_dtype=pl.FP32)
        m = pl.row_max(s)
        e = pl.exp(pl.row_expand_sub(s, m))
        p = pl.row_expand_div(e, pl.row_sum(e))
        return p

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, q: pl.Tensor[[64, 32], pl.FP16], k: pl.Tensor[[32, 64], pl.FP16]) -> pl.Tensor[[64, 64], pl.FP32]:
        p = self.mm(q, k)
        return p
