# pypto.program: SoftmaxRows
# nanopass.language: TileUnplaced
import pypto.language as pl


@pl.program
class SoftmaxRows:
    @pl.function(type=pl.FunctionType.InCore)
    def softmax_incore(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        tx: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(x, [0, 0], [16, 64])
        scratch: pl.Tile[[16, 64], pl.FP32] = pl.tile.create([16, 64], dtype=pl.FP32)
        row_max: pl.Tile[[16, 1], pl.FP32] = pl.tile.row_max(tx, scratch)
        shifted: pl.Tile[[16, 64], pl.FP32] = pl.tile.row_expand_sub(tx, row_max)
        exps: pl.Tile[[16, 64], pl.FP32] = pl.tile.exp(shifted)
        row_sum: pl.Tile[[16, 1], pl.FP32] = pl.tile.row_sum(exps, scratch)
        probs: pl.Tile[[16, 64], pl.FP32] = pl.tile.row_expand_div(exps, row_sum)
        stored: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(probs, [0, 0], out)
        return stored

    @pl.function(type=pl.FunctionType.Orchestration)
    def softmax(self, x: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        out: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.create([16, 64], dtype=pl.FP32)
        y: pl.Tensor[[16, 64], pl.FP32] = self.softmax_incore(x, out)
        return y
