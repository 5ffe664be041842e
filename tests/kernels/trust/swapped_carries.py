import pypto.language as pl


@pl.program
class SwappedCarries:
    """A Fibonacci-like recurrence: the yield swaps the two carried tiles, so neither can be
    written into the other's buffer before both are read."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[8, 16], pl.FP32], b: pl.Tensor[[8, 16], pl.FP32]) -> pl.Tensor[[8, 16], pl.FP32]:
        p0 = pl.adds(a, 0.0)
        q0 = pl.adds(b, 0.0)
        for i, (p, q) in pl.range(5, init_values=(p0, q0)):
            s = pl.add(p, q)
            p_out, q_out = pl.yield_(q, s)
        r = pl.sub(q_out, p_out)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[8, 16], pl.FP32], b: pl.Tensor[[8, 16], pl.FP32]) -> pl.Tensor[[8, 16], pl.FP32]:
        r = self.kernel(a, b)
        return r
