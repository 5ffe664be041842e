# PyPTO's high_precision= forms and tensor.fmod. high_precision selects each instruction's
# high-precision algorithm (pto precisionType); tensor.rsqrt's needs a workspace, which
# ConvertTensorToTileOps synthesizes (tile.rsqrt(x, tmp)). The bits are NUMERICS' correctly
# rounded results either way.
import pypto.language as pl


@pl.program
class HighPrecision:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        inv_root = pl.rsqrt(x, high_precision=True)
        logs = pl.log(x, high_precision=True)
        inv = pl.recip(y, high_precision=True)
        ratio = pl.div(logs, inv, high_precision=True)
        out = pl.fmod(ratio, inv_root)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        out = self.k(x, y)
        return out
