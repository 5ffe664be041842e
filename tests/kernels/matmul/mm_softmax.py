import pypto.language as pl


@pl.program
class MatmulSoftmax:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, q: pl.Tensor[[100, 64], pl.FP16], k: pl.Tensor[[48, 64], pl.FP16]) -> pl.Tensor[[100, 48], pl.FP32]:
        s = pl.matmul(q, k, b_trans=True, out_dtype=pl.FP32)
        m = pl.row_max(s)
        z = pl.row_expand_sub(s, m)
        e = pl.exp(z)
        t = pl.row_sum(e)
        p = pl.row_expand_div(e, t)
        return p

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, q: pl.Tensor[[100, 64], pl.FP16], k: pl.Tensor[[48, 64], pl.FP16]) -> pl.Tensor[[100, 48], pl.FP32]:
        p = self.mm(q, k)
        return p
