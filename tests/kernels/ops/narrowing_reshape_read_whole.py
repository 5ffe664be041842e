# A reshape narrowing the valid region of a parameter, read whole by an add: the elements past
# the valid one are the parameter's (the reshape keeps the bytes), so all 16 sums are defined.
import pypto.language as pl


@pl.program
class K:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16], pl.FP32], out: pl.Out[pl.Tensor[[1, 16], pl.FP32]]) -> pl.Tensor[[1, 16], pl.FP32]:
        first: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.reshape(x, [1, 16], valid_shape=[1, 1])
        s: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.add(first, x)
        r: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.assemble(out, s, [0, 0])
        return r
