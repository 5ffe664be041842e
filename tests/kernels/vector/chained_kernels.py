import pypto.language as pl


@pl.program
class ChainedKernels:
    @pl.function(type=pl.FunctionType.InCore)
    def scale(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        return pl.muls(x, 0.25)

    @pl.function(type=pl.FunctionType.InCore)
    def combine(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32]) -> tuple[
            pl.Tensor[[16, 32], pl.FP32], pl.Tensor[[16, 1], pl.FP32]]:
        c = pl.add(a, b)
        return c, pl.row_max(c)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 32], pl.FP32], y: pl.Tensor[[16, 32], pl.FP32]) -> tuple[
            pl.Tensor[[16, 32], pl.FP32], pl.Tensor[[16, 1], pl.FP32]]:
        sx = self.scale(x)
        sy = self.scale(y)
        c, m = self.combine(sx, sy)
        return c, m
