# The tile-level workspace forms: pl.tile.rsqrt(t, tmp=...) (the high-precision trsqrt, which
# needs the workspace) and row_expand_add with PyPTO's optional tmp.
import pypto.language as pl


@pl.program
class TileWorkspaceForms:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[16, 32], pl.FP32],
        row: pl.Tensor[[16, 1], pl.FP32],
        out: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
    ) -> pl.Tensor[[16, 32], pl.FP32]:
        x_tile = pl.load(x, [0, 0], [16, 32])
        row_tile = pl.load(row, [0, 0], [16, 1])
        tmp = pl.tile.create([16, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        root = pl.tile.rsqrt(x_tile, tmp=tmp)
        scratch = pl.tile.create([16, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        shifted = pl.tile.row_expand_add(root, row_tile, scratch)
        out = pl.store(shifted, [0, 0], out)
        return out
