import pypto.language as pl


@pl.program
class CarrySeededByMatmul:
    """A Vec recurrence (`acc`) seeded by a matmul result (Acc) and a carried row maximum: the
    seed hops to where the body computes the carry, instead of the carry living in Acc."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        c0 = pl.matmul(a, b, out_dtype=pl.FP32)
        m0 = pl.row_max(c0)
        for i, (m, acc) in pl.range(3, init_values=(m0, c0)):
            c = pl.matmul(a, b, out_dtype=pl.FP32)
            mn = pl.maximum(m, pl.row_max(c))
            an = pl.add(acc, pl.row_expand_sub(c, mn))
            m_out, a_out = pl.yield_(mn, an)
        r = pl.row_expand_add(a_out, m_out)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        r = self.kernel(a, b)
        return r
