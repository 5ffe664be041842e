# pypto.program: Sugar
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Sugar:
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(self, x: pl.Tensor[[64], pl.FP32], ret0_out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        x_tile: pl.Tile[[64], pl.FP32] = pl.tile.load(x, [0], [64])
        y_tile: pl.Tile[[64], pl.FP32] = pl.tile.add(x_tile, x_tile)
        z: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = pl.tile.create([64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        b: pl.Tile[[64], pl.INT16] = pl.tile.and_(z, z)
        for i in pl.range(4):
            pass
        for i2 in pl.range(2, 8):
            pass
        c: pl.Scalar[pl.BOOL] = 1 < 2 and (True or False) and not False
        ret0_store: pl.Tensor[[64], pl.FP32] = pl.tile.store(y_tile, [0], ret0_out)
        return ret0_store

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        ret0_out: pl.Tensor[[64], pl.FP32] = pl.tensor.create([64], dtype=pl.FP32)
        y: pl.Tensor[[64], pl.FP32] = self.main_incore_0(x, ret0_out)
        return y
