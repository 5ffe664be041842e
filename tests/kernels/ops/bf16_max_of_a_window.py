# A BF16 maximum of a window (tile.slice at [8, 16]) of a loaded tile: on both targets it runs in FP32
# through the BITS route, which copies the window out (a tinsert: PTOAS measures a subview by its
# parent) before re-viewing its bits (NoRebasedWindows).
import pypto.language as pl


@pl.program
class K:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 32], pl.BF16], out: pl.Out[pl.Tensor[[8, 16], pl.BF16]]) -> pl.Tensor[[8, 16], pl.BF16]:
        t: pl.Tile[[16, 32], pl.BF16, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        s: pl.Tile[[8, 16], pl.BF16, pl.Mem.Vec] = pl.tile.slice(t, [8, 16], [8, 16])
        m: pl.Tile[[8, 16], pl.BF16, pl.Mem.Vec] = pl.tile.maximum(s, s)
        return pl.tile.store(m, [0, 0], out)
