import pypto.language as pl


@pl.program
class UnaryF32:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[8, 64], pl.FP32]) -> tuple[
            pl.Tensor[[8, 64], pl.FP32], pl.Tensor[[8, 64], pl.FP32], pl.Tensor[[8, 64], pl.FP32],
            pl.Tensor[[8, 64], pl.FP32]]:
        ax = pl.abs(x)
        e = pl.exp(x)
        lg = pl.log(ax)
        sq = pl.sqrt(ax)
        rs = pl.rsqrt(ax)
        n = pl.neg(x)
        r = pl.recip(x)
        rl = pl.relu(x)
        t1 = pl.add(lg, sq)
        t2 = pl.add(rs, n)
        return e, t1, t2, pl.sub(r, rl)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[8, 64], pl.FP32]) -> tuple[
            pl.Tensor[[8, 64], pl.FP32], pl.Tensor[[8, 64], pl.FP32], pl.Tensor[[8, 64], pl.FP32],
            pl.Tensor[[8, 64], pl.FP32]]:
        a, b, c, d = self.kernel(x)
        return a, b, c, d
