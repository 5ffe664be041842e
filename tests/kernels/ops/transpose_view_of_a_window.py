# A transpose_view of a window (tile.slice at [3, 5]) of a loaded tile: the window is copied into
# a tile of its own first (a pto.treshape re-views a buffer from its first byte; NoRebasedWindows).
import pypto.language as pl


@pl.program
class K:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[8, 1], pl.FP32]]) -> pl.Tensor[[8, 1], pl.FP32]:
        t: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        s: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [1, 8], [3, 5])
        c: pl.Tile[[8, 1], pl.FP32, pl.Mem.Vec] = pl.tile.transpose_view(s)
        return pl.tile.store(c, [0, 0], out)
