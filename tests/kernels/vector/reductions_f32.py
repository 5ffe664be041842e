import pypto.language as pl


@pl.program
class ReductionsF32:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32]) -> tuple[
            pl.Tensor[[16, 1], pl.FP32], pl.Tensor[[16, 1], pl.FP32], pl.Tensor[[16, 1], pl.FP32],
            pl.Tensor[[1, 64], pl.FP32], pl.Tensor[[1, 64], pl.FP32], pl.Tensor[[1, 64], pl.FP32]]:
        return pl.row_sum(x), pl.row_max(x), pl.row_min(x), pl.col_sum(x), pl.col_max(x), pl.col_min(x)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32]) -> tuple[
            pl.Tensor[[16, 1], pl.FP32], pl.Tensor[[16, 1], pl.FP32], pl.Tensor[[16, 1], pl.FP32],
            pl.Tensor[[1, 64], pl.FP32], pl.Tensor[[1, 64], pl.FP32], pl.Tensor[[1, 64], pl.FP32]]:
        a, b, c, d, e, f = self.kernel(x)
        return a, b, c, d, e, f
