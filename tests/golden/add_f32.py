# pypto.program: AddF32
# nanopass.language: TileUnplaced
import pypto.language as pl


@pl.program
class AddF32:
    @pl.function(type=pl.FunctionType.InCore)
    def add_incore(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        ta: pl.Tile[[16, 32], pl.FP32] = pl.tile.load(a, [0, 0], [16, 32])
        tb: pl.Tile[[16, 32], pl.FP32] = pl.tile.load(b, [0, 0], [16, 32])
        tc: pl.Tile[[16, 32], pl.FP32] = pl.tile.add(ta, tb)
        r: pl.Tensor[[16, 32], pl.FP32] = pl.tile.store(tc, [0, 0], out)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        out: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.create([16, 32], dtype=pl.FP32)
        r: pl.Tensor[[16, 32], pl.FP32] = self.add_incore(a, b, out)
        return r
