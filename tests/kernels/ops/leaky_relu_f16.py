# Leaky ReLU on an FP16 tile: PTOAS types the slope f32 whatever the tile (TLReluOp), so the f16
# slope is widened exactly (arith.extf) and TLRELU narrows it back.
import pypto.language as pl


@pl.program
class LeakyHalf:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 32], pl.FP16]) -> pl.Tensor[[16, 32], pl.FP16]:
        return pl.tile.lrelu(pl.load(x, [0, 0], [16, 32]), 0.3)
