# A tile-level gather of a padded, set_validshape-narrowed index (the fix TargetOpRules' whole-rows
# rule names for a [16, 4] FP32 gather): the gather runs over the index's whole rows and its
# result keeps the index's valid shape [16, 4].
import pypto.language as pl


@pl.program
class TileGatherNarrowedIndex:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], i: pl.Tensor[[16, 8], pl.INT32],
          out: pl.Out[pl.Tensor[[16, 4], pl.FP32]]) -> pl.Tensor[[16, 4], pl.FP32]:
        src = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        idx = pl.tile.load(i, [0, 0], [16, 8], target_memory=pl.Mem.Vec)
        narrow = pl.tile.set_validshape(idx, 16, 4)
        g = pl.tile.gather(src, narrow)
        out = pl.tile.store(g, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], i: pl.Tensor[[16, 8], pl.INT32]) -> pl.Tensor[[16, 4], pl.FP32]:
        out = pl.create_tensor([16, 4], dtype=pl.FP32)
        r = self.k(x, i, out)
        return r
