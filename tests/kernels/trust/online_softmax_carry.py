import pypto.language as pl


@pl.program
class OnlineSoftmaxCarry:
    """Flash-attention's online softmax over four 16-row blocks of scores: the running row
    maximum `m`, the running denominator `l` and the running numerator `o` are carried, and the
    old `m` is read again after `m_new` exists (exp(m - m_new))."""

    @pl.function(type=pl.FunctionType.InCore)
    def attend(self, s: pl.Tensor[[64, 32], pl.FP32], v: pl.Tensor[[16, 32], pl.FP32],
               m0: pl.Tensor[[16, 1], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        m_init = pl.muls(m0, 1.0)
        l_init = pl.muls(m0, 0.0)
        o_init = pl.muls(v, 0.0)
        for i, (m, l, o) in pl.range(4, init_values=(m_init, l_init, o_init)):
            blk = pl.slice(s, [16, 32], [i * 16, 0])
            m_new = pl.maximum(m, pl.row_max(blk))
            alpha = pl.exp(pl.sub(m, m_new))
            p = pl.exp(pl.row_expand_sub(blk, m_new))
            l_new = pl.add(pl.mul(l, alpha), pl.row_sum(p))
            o_new = pl.add(pl.row_expand_mul(o, alpha), pl.mul(p, v))
            m_out, l_out, o_out = pl.yield_(m_new, l_new, o_new)
        out = pl.row_expand_div(o_out, l_out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, s: pl.Tensor[[64, 32], pl.FP32], v: pl.Tensor[[16, 32], pl.FP32],
             m0: pl.Tensor[[16, 1], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        out = self.attend(s, v, m0)
        return out
