import pypto.language as pl


@pl.program
class NarrowingCastDies:
    """`t` dies at its FP32 -> FP16 cast: the cast's result must not be given `t`'s bytes (pto-isa
    converts element by element in place and would read elements it already overwrote)."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP16]:
        t = pl.muls(a, 3.0)
        h = pl.cast(t, pl.FP16, "rint")
        r = pl.adds(h, 1.0)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP16]:
        r = self.kernel(a)
        return r
