# Causal-masked row softmax: a lower-triangular 0/1 mask from tile.tri, turned into a predicate
# with tile.cmps (mask != 0), and tile.sel keeping the scores on and below the diagonal (-1e30
# above it, so exp gives exactly 0 there).
import pypto.language as pl


@pl.program
class CausalSoftmax:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, scores: pl.Tensor[[32, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        s = pl.load(scores, [0, 0], [32, 32])
        lower = pl.tile.tri(pl.const(0, pl.INT32), [32, 32], dtype=pl.INT32)
        keep = pl.tile.cmps(lower, pl.const(0, pl.INT32), cmp_type=1)
        minus_inf = pl.tile.full([32, 32], dtype=pl.FP32, value=-1.0e30)
        sel_tmp = pl.tile.create([32, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        masked = pl.tile.sel(keep, s, minus_inf, sel_tmp)
        red_tmp = pl.tile.create([32, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        row_max = pl.tile.row_max(masked, red_tmp)
        e = pl.tile.exp(pl.tile.row_expand_sub(masked, row_max))
        row_sum = pl.tile.row_sum(e, red_tmp)
        y = pl.tile.row_expand_div(e, row_sum)
        out = pl.store(y, [0, 0], out)
        return out
