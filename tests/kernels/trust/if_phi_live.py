import pypto.language as pl


@pl.program
class IfPhiLive:
    """A loop whose body branches: the then branch yields `x`, a value defined before the loop
    and read again after the `if`; the else branch yields a fresh product. Both branches compute
    (and the else branch reads the iter-arg), so the phi must not overwrite `x`."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.adds(a, 1.0)
        seed = pl.muls(b, 1.0)
        for i, (acc,) in pl.range(4, init_values=(seed,)):
            if i == 1:
                phi = pl.yield_(x)
            else:
                prod = pl.mul(acc, x)
                phi = pl.yield_(prod)
            mixed = pl.add(phi, x)
            nxt = pl.muls(mixed, 0.5)
            acc_out = pl.yield_(nxt)
        return acc_out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        r = self.kernel(a, b)
        return r
