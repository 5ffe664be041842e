import pypto.language as pl


@pl.program
class FlashAttention:
    """Flash attention over four key/value blocks: two matmuls per iteration with the online
    softmax carried between them (row max, denominator, numerator)."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, q: pl.Tensor[[16, 64], pl.FP16], k: pl.Tensor[[64, 64], pl.FP16],
               v: pl.Tensor[[64, 64], pl.FP16]) -> pl.Tensor[[16, 64], pl.FP32]:
        m0 = pl.full([16, 1], dtype=pl.FP32, value=-30000.0)
        l0 = pl.full([16, 1], dtype=pl.FP32, value=0.0)
        o0 = pl.full([16, 64], dtype=pl.FP32, value=0.0)
        for i, (m, l, o) in pl.range(4, init_values=(m0, l0, o0)):
            kb = pl.slice(k, [16, 64], [i * 16, 0])
            vb = pl.slice(v, [16, 64], [i * 16, 0])
            s = pl.matmul(q, kb, b_trans=True, out_dtype=pl.FP32)
            m_new = pl.maximum(m, pl.row_max(s))
            alpha = pl.exp(pl.sub(m, m_new))
            p = pl.exp(pl.row_expand_sub(s, m_new))
            l_new = pl.add(pl.mul(l, alpha), pl.row_sum(p))
            pv = pl.matmul(pl.cast(p, pl.FP16, "rint"), vb, out_dtype=pl.FP32)
            o_new = pl.add(pl.row_expand_mul(o, alpha), pv)
            m_out, l_out, o_out = pl.yield_(m_new, l_new, o_new)
        r = pl.row_expand_div(o_out, l_out)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, q: pl.Tensor[[16, 64], pl.FP16], k: pl.Tensor[[64, 64], pl.FP16],
             v: pl.Tensor[[64, 64], pl.FP16]) -> pl.Tensor[[16, 64], pl.FP32]:
        r = self.kernel(q, k, v)
        return r
