# Top-k of one row of 128 scores: sort32 sorts each 32-column block into (score, index) pairs,
# mrgsort (format 1, blocks of 32 pairs = 64 elements) merges the four blocks into one sorted
# run, and gather_mask splits the pairs into the sorted scores (P0101) and their indices (P1010,
# the index bits read as INT32). The first k columns are the top k.
import pypto.language as pl


@pl.program
class TopK:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, scores: pl.Tensor[[1, 128], pl.FP32],
               values: pl.Out[pl.Tensor[[1, 16], pl.FP32]], indices: pl.Out[pl.Tensor[[1, 16], pl.INT32]]):
        s = pl.load(scores, [0, 0], [1, 128])
        idx = pl.tile.ci(0, [1, 128], dtype=pl.INT32)
        blocks = pl.tile.sort32(s, idx)
        merged = pl.tile.mrgsort(blocks, block_len=64)
        sorted_values = pl.tile.gather_mask(merged, mask_pattern=pl.tile.MaskPattern.P0101)
        sorted_indices = pl.tile.gather_mask(merged, mask_pattern=pl.tile.MaskPattern.P1010, output_dtype=pl.INT32)
        top_values = pl.tile.slice(sorted_values, [1, 16], [0, 0])
        top_indices = pl.tile.slice(sorted_indices, [1, 16], [0, 0])
        pl.store(top_values, [0, 0], values)
        pl.store(top_indices, [0, 0], indices)
