# N-D broadcasting (NumPy rules) and a transpose of the last two axes of a rank-3 tensor: a
# [16, 32] matrix and a [32] vector broadcast across the batch axis (assembled once per
# batch), a [2, 16, 1] column per row (row_expand); FlattenTileNdTo2D transposes page by page.
import pypto.language as pl


@pl.program
class NdBroadcastTranspose:
    @pl.function(type=pl.FunctionType.InCore)
    def k(
        self,
        x: pl.Tensor[[2, 16, 32], pl.FP32],
        bias: pl.Tensor[[16, 32], pl.FP32],
        scale: pl.Tensor[[32], pl.FP32],
        shift: pl.Tensor[[2, 16, 1], pl.FP32],
    ) -> pl.Tensor[[2, 32, 16], pl.FP32]:
        biased = pl.add(x, bias)
        scaled = pl.mul(biased, scale)
        shifted = pl.sub(scaled, shift)
        out = pl.transpose(shifted, 1, 2)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[2, 16, 32], pl.FP32],
        bias: pl.Tensor[[16, 32], pl.FP32],
        scale: pl.Tensor[[32], pl.FP32],
        shift: pl.Tensor[[2, 16, 1], pl.FP32],
    ) -> pl.Tensor[[2, 32, 16], pl.FP32]:
        out = self.k(x, bias, scale, shift)
        return out
