import pypto.language as pl


@pl.program
class ReshapeFeedsMatmul:
    """The left operand is a reshape of a [128, 64] input: in Mat's NZ boxes a same-address
    re-view would pair every element with another one's bytes, so the reshape happens on flat
    data and the result moves to the cube."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[128, 64], pl.FP16], b: pl.Tensor[[128, 32], pl.FP16]) -> pl.Tensor[[64, 32], pl.FP32]:
        c = pl.matmul(pl.reshape(a, [64, 128]), b, out_dtype=pl.FP32)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[128, 64], pl.FP16], b: pl.Tensor[[128, 32], pl.FP16]) -> pl.Tensor[[64, 32], pl.FP32]:
        c = self.kernel(a, b)
        return c
