import pypto.language as pl


@pl.program
class OddShape7x13:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[7, 13], pl.FP32], b: pl.Tensor[[7, 13], pl.FP32]) -> tuple[
            pl.Tensor[[7, 13], pl.FP32], pl.Tensor[[7, 1], pl.FP32]]:
        c = pl.add(a, b)
        return c, pl.row_sum(c)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[7, 13], pl.FP32], b: pl.Tensor[[7, 13], pl.FP32]) -> tuple[
            pl.Tensor[[7, 13], pl.FP32], pl.Tensor[[7, 1], pl.FP32]]:
        c, s = self.kernel(a, b)
        return c, s
