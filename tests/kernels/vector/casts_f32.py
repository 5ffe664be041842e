import pypto.language as pl


@pl.program
class CastsF32:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[8, 32], pl.FP32]) -> tuple[
            pl.Tensor[[8, 32], pl.FP16], pl.Tensor[[8, 32], pl.FP16], pl.Tensor[[8, 32], pl.FP16],
            pl.Tensor[[8, 32], pl.FP16], pl.Tensor[[8, 32], pl.FP16], pl.Tensor[[8, 32], pl.FP16],
            pl.Tensor[[8, 32], pl.BF16], pl.Tensor[[8, 32], pl.BF16], pl.Tensor[[8, 32], pl.BF16]]:
        h_rint = pl.cast(x, pl.FP16, "rint")
        h_round = pl.cast(x, pl.FP16, mode="round")
        h_floor = pl.cast(x, pl.FP16, mode="floor")
        h_ceil = pl.cast(x, pl.FP16, mode="ceil")
        h_trunc = pl.cast(x, pl.FP16, mode="trunc")
        h_odd = pl.cast(x, pl.FP16, mode="odd")
        b_rint = pl.cast(x, target_type=pl.BF16, mode="rint")
        b_floor = pl.cast(x, pl.BF16, mode="floor")
        b_default = pl.cast(x, pl.BF16)
        return h_rint, h_round, h_floor, h_ceil, h_trunc, h_odd, b_rint, b_floor, b_default

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[8, 32], pl.FP32]) -> tuple[
            pl.Tensor[[8, 32], pl.FP16], pl.Tensor[[8, 32], pl.FP16], pl.Tensor[[8, 32], pl.FP16],
            pl.Tensor[[8, 32], pl.FP16], pl.Tensor[[8, 32], pl.FP16], pl.Tensor[[8, 32], pl.FP16],
            pl.Tensor[[8, 32], pl.BF16], pl.Tensor[[8, 32], pl.BF16], pl.Tensor[[8, 32], pl.BF16]]:
        a, b, c, d, e, f, g, h, i = self.kernel(x)
        return a, b, c, d, e, f, g, h, i
