# A reshape of an M = 1 product (a [1, 16] result living boxed as a [16, 16] accumulator) to its
# own shape moves nothing: it reshapes the box to itself and keeps the valid row.
import pypto.language as pl


@pl.program
class K:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[1, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16]) -> pl.Tensor[[1, 16], pl.FP32]:
        p: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.matmul(a, b, out_dtype=pl.FP32)
        q: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.reshape(p, [1, 16])
        return pl.tensor.add(q, q)
