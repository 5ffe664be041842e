# A KV-cache update: new rows for four token slots written into the cache with scatter_update
# (whole rows, dim=-2); ConvertTensorToTileOps lowers it to two tscatters and a sel that keeps
# every row no index names.
import pypto.language as pl


@pl.program
class KvCacheUpdate:
    @pl.function(type=pl.FunctionType.InCore)
    def update(self, cache: pl.Tensor[[16, 64], pl.FP16], slots: pl.Tensor[[1, 8], pl.INT32],
               rows: pl.Tensor[[8, 64], pl.FP16]) -> pl.Tensor[[16, 64], pl.FP16]:
        updated = pl.scatter_update(cache, -2, slots, rows)
        return updated

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, cache: pl.Tensor[[16, 64], pl.FP16], slots: pl.Tensor[[1, 8], pl.INT32],
             rows: pl.Tensor[[8, 64], pl.FP16]) -> pl.Tensor[[16, 64], pl.FP16]:
        updated = self.update(cache, slots, rows)
        return updated
