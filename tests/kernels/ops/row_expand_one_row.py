# Row broadcasts by a one-row per-row operand ([1, 1], row-major) and by a column ([4, 1],
# column-major): PTOAS reads a row-major per-row operand as one 32-byte block per row (ROW_BLOCK_OPERANDS).
import pypto.language as pl


@pl.program
class RowExpandOneRow:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, 16], pl.FP32], r: pl.Tensor[[1, 1], pl.FP32], y: pl.Tensor[[4, 16], pl.FP16],
          c: pl.Tensor[[4, 1], pl.FP16]) -> tuple[pl.Tensor[[1, 16], pl.FP32], pl.Tensor[[4, 16], pl.FP16]]:
        a: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.row_expand_add(x, r)
        b: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.row_expand_mul(a, r)
        d: pl.Tensor[[4, 16], pl.FP16] = pl.tensor.row_expand_add(y, c)
        return b, d
