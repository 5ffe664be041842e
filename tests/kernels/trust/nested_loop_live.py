import pypto.language as pl


@pl.program
class NestedLoopLive:
    """`x` is defined before two nested loops and read only in the inner one; the outer body
    defines `y` after the inner loop. `x` must stay live to the end of the *outer* loop."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.adds(a, 0.5)
        z = pl.muls(b, 0.25)
        for i, (acc,) in pl.range(3, init_values=(z,)):
            for j, (inner,) in pl.range(2, init_values=(acc,)):
                t = pl.mul(inner, x)
                n = pl.adds(t, 1.0)
                inner_out = pl.yield_(n)
            y = pl.muls(inner_out, 0.5)
            w = pl.sub(y, b)
            acc_out = pl.yield_(w)
        return acc_out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        r = self.kernel(a, b)
        return r
