# BF16 row broadcasts of max / min: PTOAS takes no BF16 trowexpandmax / trowexpandmin, so
# LegalizeVecDtypes computes them in FP32 (WIDENED_TO_FP32); max / min select an operand, so the
# BF16 bits go there and back as bits (Fp32Route.BITS) and come out as the BF16 op's.
import pypto.language as pl


@pl.program
class RowExpandMaxBf16:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 32], pl.BF16], r: pl.Tensor[[16, 1], pl.BF16],
          hi: pl.Out[pl.Tensor[[16, 32], pl.BF16]], lo: pl.Out[pl.Tensor[[16, 32], pl.BF16]]
          ) -> tuple[pl.Tensor[[16, 32], pl.BF16], pl.Tensor[[16, 32], pl.BF16]]:
        xt = pl.load(x, [0, 0], [16, 32])
        rt = pl.load(r, [0, 0], [16, 1])
        hi = pl.store(pl.tile.row_expand_max(xt, rt), [0, 0], hi)
        lo = pl.store(pl.tile.row_expand_min(xt, rt), [0, 0], lo)
        return hi, lo
