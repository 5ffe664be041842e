# tensor.col_expand of a set_validshape-narrowed target ([16, 32] valid [8, 13]) by a full [1, 32]
# row: the row is handed to tcolexpand as its window valid over the target's 13 columns (PTOAS
# wants src and dst valid over the same columns; agent-e's finding, uncovered behind GATHER_PADDED).
import pypto.language as pl


@pl.program
class ColExpandNarrowed:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 32], pl.FP32], x: pl.Tensor[[1, 32], pl.FP32]
          ) -> pl.Tensor[[16, 32], pl.FP32, pl.TensorView(valid_shape=[8, 13])]:
        c: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.adds(a, 1.0)
        n: pl.Tensor[[16, 32], pl.FP32, pl.TensorView(valid_shape=[8, 13])] = pl.tensor.set_validshape(c, 8, 13)
        t: pl.Tensor[[16, 32], pl.FP32, pl.TensorView(valid_shape=[8, 13])] = pl.tensor.col_expand(n, x)
        return t

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 32], pl.FP32], x: pl.Tensor[[1, 32], pl.FP32]
             ) -> pl.Tensor[[16, 32], pl.FP32, pl.TensorView(valid_shape=[8, 13])]:
        r: pl.Tensor[[16, 32], pl.FP32, pl.TensorView(valid_shape=[8, 13])] = self.k(a, x)
        return r
