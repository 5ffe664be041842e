import pypto.language as pl


@pl.program
class CastsInt:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[8, 32], pl.FP32], h: pl.Tensor[[8, 32], pl.FP16],
               n: pl.Tensor[[8, 32], pl.INT32]) -> tuple[
            pl.Tensor[[8, 32], pl.INT32], pl.Tensor[[8, 32], pl.INT32], pl.Tensor[[8, 32], pl.INT32],
            pl.Tensor[[8, 32], pl.INT32], pl.Tensor[[8, 32], pl.INT32], pl.Tensor[[8, 32], pl.INT8],
            pl.Tensor[[8, 32], pl.FP32], pl.Tensor[[8, 32], pl.FP32], pl.Tensor[[8, 32], pl.FP16]]:
        i_rint = pl.cast(x, pl.INT32, "rint")
        i_round = pl.cast(x, pl.INT32, "round")
        i_floor = pl.cast(x, pl.INT32, "floor")
        i_ceil = pl.cast(x, pl.INT32, "ceil")
        i_trunc = pl.cast(x, pl.INT32, "trunc")
        b_round = pl.cast(h, pl.INT8, "round")
        f_from_i = pl.cast(n, pl.FP32)
        f_from_h = pl.cast(h, pl.FP32)
        h_from_i = pl.cast(n, pl.FP16, "rint")
        return i_rint, i_round, i_floor, i_ceil, i_trunc, b_round, f_from_i, f_from_h, h_from_i

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[8, 32], pl.FP32], h: pl.Tensor[[8, 32], pl.FP16],
             n: pl.Tensor[[8, 32], pl.INT32]) -> tuple[
            pl.Tensor[[8, 32], pl.INT32], pl.Tensor[[8, 32], pl.INT32], pl.Tensor[[8, 32], pl.INT32],
            pl.Tensor[[8, 32], pl.INT32], pl.Tensor[[8, 32], pl.INT32], pl.Tensor[[8, 32], pl.INT8],
            pl.Tensor[[8, 32], pl.FP32], pl.Tensor[[8, 32], pl.FP32], pl.Tensor[[8, 32], pl.FP16]]:
        a, b, c, d, e, f, g, k, m = self.kernel(x, h, n)
        return a, b, c, d, e, f, g, k, m
