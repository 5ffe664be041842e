import pypto.language as pl


@pl.program
class IfPhiAcrossUnits:
    """An if-phi whose then branch yields a matmul result (Acc) and whose else branch yields a
    vector result: the cube value hops to where the phi lives."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32], x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        seed = pl.muls(x, 1.0)
        for i, (acc,) in pl.range(3, init_values=(seed,)):
            if i == 1:
                c = pl.matmul(a, b, out_dtype=pl.FP32)
                phi = pl.yield_(c)
            else:
                d = pl.adds(acc, 1.0)
                phi = pl.yield_(d)
            n = pl.add(phi, acc)
            out = pl.yield_(n)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32], x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        r = self.kernel(a, b, x)
        return r
