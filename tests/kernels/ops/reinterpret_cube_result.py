# The bits of a matmul result seen as INT32: the Acc tile is boxed, so the reinterpretation reads it
# after the move to a flat Vec tile (tile.reinterpret_view reads Vec; InferTileMemorySpace moves it).
import pypto.language as pl


@pl.program
class ReinterpretCube:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16]) -> pl.Tensor[[16, 16], pl.INT32]:
        c: pl.Tensor[[16, 16], pl.FP32] = pl.matmul(a, b, out_dtype=pl.FP32)
        bits: pl.Tensor[[16, 16], pl.INT32] = pl.tensor.reinterpret_view(c, pl.INT32)
        return bits
