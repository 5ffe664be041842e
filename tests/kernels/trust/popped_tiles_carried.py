import pypto.language as pl


@pl.program
class PoppedTilesCarried:
    """Matmul results (popped on the vector core from the cube's FIFO) carried out of regions:
    a loop whose carry is the popped tile itself, and an if-phi whose two branches both pop.
    A pop binds its own slot, so each carried tile needs a buffer of its own, defined on every
    path that reaches its uses."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32], x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        seed = pl.muls(x, 2.0)
        for j, (carry,) in pl.range(2, init_values=(seed,)):
            if j == 0:
                p = pl.matmul(a, b, out_dtype=pl.FP32)
                phi = pl.yield_(p)
            else:
                q = pl.matmul(a, b, out_dtype=pl.FP32)
                phi = pl.yield_(q)
            n = pl.add(phi, carry)
            nxt = pl.yield_(n)
        r = pl.add(nxt, x)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32], x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        r = self.kernel(a, b, x)
        return r
