import pypto.language as pl


@pl.program
class LayerNormF32:
    @pl.function(type=pl.FunctionType.InCore)
    def layernorm(self, x: pl.Tensor[[8, 64], pl.FP32], gamma: pl.Tensor[[1, 64], pl.FP32],
                  beta: pl.Tensor[[1, 64], pl.FP32]) -> pl.Tensor[[8, 64], pl.FP32]:
        total = pl.row_sum(x)
        mean = pl.muls(total, 0.015625)
        centered = pl.row_expand_sub(x, mean)
        sq = pl.mul(centered, centered)
        var = pl.muls(pl.row_sum(sq), 0.015625)
        inv = pl.rsqrt(pl.adds(var, 1e-5))
        normed = pl.row_expand_mul(centered, inv)
        y = pl.add(pl.mul(normed, gamma), beta)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[8, 64], pl.FP32], gamma: pl.Tensor[[1, 64], pl.FP32],
             beta: pl.Tensor[[1, 64], pl.FP32]) -> pl.Tensor[[8, 64], pl.FP32]:
        y = self.layernorm(x, gamma, beta)
        return y
