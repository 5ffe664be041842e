import pypto.language as pl


@pl.program
class DecodeAttention:
    """One decode step's scores and softmax: q[16, 128] against 1152 cached keys. The key panel
    (128 x 1152 FP16, 288 KiB) overflows L0B, so the scores are computed in N blocks that are
    gathered into one Vec tile for the softmax (the whole accumulator fits L0C, but the result is
    consumed by vector ops, not stored)."""

    @pl.function(type=pl.FunctionType.InCore)
    def attn(self, q: pl.Tensor[[16, 128], pl.FP16],
             k: pl.Tensor[[1152, 128], pl.FP16]) -> pl.Tensor[[16, 1152], pl.FP32]:
        s = pl.matmul(q, k, b_trans=True, out_dtype=pl.FP32)
        m = pl.row_max(s)
        e = pl.exp(pl.row_expand_sub(s, m))
        t = pl.row_sum(e)
        p = pl.row_expand_div(e, t)
        return p

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, q: pl.Tensor[[16, 128], pl.FP16],
             k: pl.Tensor[[1152, 128], pl.FP16]) -> pl.Tensor[[16, 1152], pl.FP32]:
        p = self.attn(q, k)
        return p
