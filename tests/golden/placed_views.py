# pypto.program: PlacedViews
# nanopass.language: TilePlaced
import pypto.language as pl


@pl.program
class PlacedViews:
    @pl.function(type=pl.FunctionType.AIV)
    def vec_part(self, x: pl.Tensor[[64, 32], pl.BF16, pl.TensorView(valid_shape=[60, 32])], out: pl.InOut[pl.Tensor[[64, 32], pl.BF16]]) -> pl.Tensor[[64, 32], pl.BF16]:
        t: pl.Tile[[64, 32], pl.BF16, pl.Mem.Vec, pl.TileView(valid_shape=[60, 32], pad=pl.TilePad.zero)] = pl.tile.load(x, [0, 0], [64, 32], [60, 32], target_memory=pl.Mem.Vec)
        col: pl.Tile[[64, 1], pl.BF16, pl.Mem.Vec, pl.TileView(valid_shape=[60, 1])] = pl.tile.row_max(t, t)
        wide: pl.Tile[[64, 1], pl.BF16, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.row_major)] = pl.tile.move(col, target_memory=pl.Mem.Vec, blayout="row_major")
        r: pl.Tensor[[64, 32], pl.BF16] = pl.tile.store(t, [0, 0], out)
        return r

    @pl.function(type=pl.FunctionType.AIC)
    def cube_part(self, a: pl.Tensor[[112, 64], pl.INT8]) -> pl.Tile[[112, 64], pl.INT32, pl.Mem.Acc, pl.TileView(valid_shape=[100, 64], compact=True)]:
        a_mat: pl.Tile[[112, 64], pl.INT8, pl.Mem.Mat, pl.TileView(valid_shape=[100, 64])] = pl.tile.load(a, [0, 0], [112, 64], [100, 64], target_memory=pl.Mem.Mat)
        acc: pl.Tile[[112, 64], pl.INT32, pl.Mem.Acc, pl.TileView(valid_shape=[100, 64], compact=True)] = pl.tile.create([112, 64], dtype=pl.INT32, target_memory=pl.Mem.Acc, compact=True)
        bias: pl.Tile[[1, 64], pl.INT32, pl.Mem.Bias, pl.TileView(slayout=pl.TileLayout.row_major, fractal=1024)] = pl.tile.create([1, 64], dtype=pl.INT32, target_memory=pl.Mem.Bias)
        return acc

    @pl.function
    def opaque(self, x: pl.Tensor[[64, 32], pl.BF16]) -> pl.Tensor[[64, 32], pl.BF16]:
        return x
