import pypto.language as pl


@pl.program
class Tensor3D:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[2, 8, 32], pl.FP32], b: pl.Tensor[[2, 8, 32], pl.FP32]) -> tuple[
            pl.Tensor[[2, 8, 32], pl.FP32], pl.Tensor[[2, 8, 1], pl.FP32]]:
        c = pl.sub(a, b)
        m = pl.row_max(c)
        d = pl.row_expand_sub(c, m)
        return d, m

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[2, 8, 32], pl.FP32], b: pl.Tensor[[2, 8, 32], pl.FP32]) -> tuple[
            pl.Tensor[[2, 8, 32], pl.FP32], pl.Tensor[[2, 8, 1], pl.FP32]]:
        d, m = self.kernel(a, b)
        return d, m
