# pypto.program: ElementwiseAddF32
import pypto.language as pl


@pl.program
class ElementwiseAddF32:
    @pl.function(type=pl.FunctionType.InCore)
    def add_incore(
        self, a: pl.Tensor[[64, 128], pl.FP32], b: pl.Tensor[[64, 128], pl.FP32]
    ) -> pl.Tensor[[64, 128], pl.FP32]:
        c: pl.Tensor[[64, 128], pl.FP32] = pl.tensor.add(a, b)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 128], pl.FP32], b: pl.Tensor[[64, 128], pl.FP32]) -> pl.Tensor[[64, 128], pl.FP32]:
        c: pl.Tensor[[64, 128], pl.FP32] = self.add_incore(a, b)
        return c
