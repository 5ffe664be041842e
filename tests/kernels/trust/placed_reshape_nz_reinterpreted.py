# pypto.program: ReshapeMat
# A TilePlaced program as the old InferTileMemorySpace left it: a tile.reshape re-viewing NZ boxes (ViewLegality must reject it).
# nanopass.language: TilePlaced
import pypto.language as pl


@pl.program
class ReshapeMat:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[128, 64], pl.FP16], b: pl.Tensor[[128, 32], pl.FP16], ret0_out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        a_tile: pl.Tile[[128, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [128, 64], target_memory=pl.Mem.Mat)
        b_tile: pl.Tile[[128, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [128, 32], target_memory=pl.Mem.Mat)
        reshape_0_tile: pl.Tile[[64, 128], pl.FP16, pl.Mem.Mat] = pl.tile.reshape(a_tile, [64, 128])
        c_tile: pl.Tile[[64, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(reshape_0_tile, b_tile)
        ret0_store: pl.Tensor[[64, 32], pl.FP32] = pl.tile.store(c_tile, [0, 0], ret0_out)
        return ret0_store

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[128, 64], pl.FP16], b: pl.Tensor[[128, 32], pl.FP16]) -> pl.Tensor[[64, 32], pl.FP32]:
        ret0_out: pl.Tensor[[64, 32], pl.FP32] = pl.tensor.create([64, 32], dtype=pl.FP32)
        c: pl.Tensor[[64, 32], pl.FP32] = self.kernel(a, b, ret0_out)
        return c
