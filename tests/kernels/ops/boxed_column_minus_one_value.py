# A row-narrowed cube column (a [20, 1] product valid over 2 rows, a [32, 16] tile) minus one
# value: its row twin with the value spread over the column's physical rows, valid over its rows.
import pypto.language as pl


@pl.program
class K:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[20, 16], pl.FP16], b: pl.Tensor[[16, 1], pl.FP16],
          v: pl.Tensor[[1, 1], pl.FP32]) -> pl.Tensor[[20, 1], pl.FP32, pl.TensorView(valid_shape=[2, 1])]:
        c: pl.Tensor[[20, 1], pl.FP32] = pl.tensor.matmul(pl.tensor.slice(a, [20, 16], [0, 0], [2, 16]), b,
                                                          out_dtype=pl.FP32)
        top: pl.Tensor[[20, 1], pl.FP32, pl.TensorView(valid_shape=[2, 1])] = pl.tensor.set_validshape(c, 2, 1)
        return pl.tensor.col_expand_sub(top, v)
