# Embedding lookup via gather: each token id is broadcast along its output row (row_expand)
# and an axis gather (dim=0) picks out[i, j] = table[ids[i], j] from the GM table.
import pypto.language as pl


@pl.program
class Embedding:
    @pl.function(type=pl.FunctionType.InCore)
    def lookup(self, table: pl.Tensor[[64, 32], pl.FP32], ids: pl.Tensor[[8, 1], pl.INT32]) -> pl.Tensor[[8, 32], pl.FP32]:
        rows = pl.tensor.row_expand(pl.tensor.full([8, 32], dtype=pl.INT32, value=0), ids)
        emb = pl.tensor.gather(table, dim=0, index=rows)
        return emb

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, table: pl.Tensor[[64, 32], pl.FP32], ids: pl.Tensor[[8, 1], pl.INT32]) -> pl.Tensor[[8, 32], pl.FP32]:
        emb = self.lookup(table, ids)
        return emb
