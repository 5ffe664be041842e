# Flat gathers (no dim) of set_validshape-narrowed indices, the spec's example among them (FP16,
# physical [1, 16] valid [1, 8]): the index's padding columns are never gathered through (the
# lowering zero-fills them before the whole-row tgather), the result keeps the index's valid shape.
import pypto.language as pl


@pl.program
class FlatGatherNarrowedIndex:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[4, 16], pl.FP16], i: pl.Tensor[[1, 16], pl.INT32], w: pl.Tensor[[2, 8], pl.FP32],
          j: pl.Tensor[[2, 8], pl.INT32]) -> tuple[pl.Tensor[[1, 16], pl.FP16], pl.Tensor[[2, 8], pl.FP32]]:
        y: pl.Tensor[[4, 16], pl.FP16] = pl.tensor.adds(x, 1.0)
        indices: pl.Tensor[[1, 16], pl.INT32] = pl.tensor.set_validshape(i, 1, 8)
        values: pl.Tensor[[1, 16], pl.FP16] = pl.gather(y, index=indices)
        z: pl.Tensor[[2, 8], pl.FP32] = pl.tensor.muls(w, 2.0)
        narrow: pl.Tensor[[2, 8], pl.INT32] = pl.tensor.set_validshape(j, 2, 5)
        picked: pl.Tensor[[2, 8], pl.FP32] = pl.gather(z, narrow)
        return values, picked

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 16], pl.FP16], i: pl.Tensor[[1, 16], pl.INT32], w: pl.Tensor[[2, 8], pl.FP32],
             j: pl.Tensor[[2, 8], pl.INT32]) -> tuple[pl.Tensor[[1, 16], pl.FP16], pl.Tensor[[2, 8], pl.FP32]]:
        out: tuple[pl.Tensor[[1, 16], pl.FP16], pl.Tensor[[2, 8], pl.FP32]] = self.k(x, i, w, j)
        return out
