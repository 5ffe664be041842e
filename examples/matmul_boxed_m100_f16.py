# pypto.program: MatmulBoxedM100
import pypto.language as pl


@pl.program
class MatmulBoxedM100:
    @pl.function(type=pl.FunctionType.InCore)
    def matmul_incore(
        self, a: pl.Tensor[[100, 128], pl.FP16], b: pl.Tensor[[128, 64], pl.FP16]
    ) -> pl.Tensor[[100, 64], pl.FP32]:
        # The cube works on 16-row boxes: M = 100 is boxed to 112 physical rows with valid
        # rows 100, and the accumulator is compact so L0C is read back at MAD's pitch.
        c: pl.Tensor[[100, 64], pl.FP32] = pl.tensor.matmul(a, b, out_dtype=pl.FP32)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[100, 128], pl.FP16], b: pl.Tensor[[128, 64], pl.FP16]) -> pl.Tensor[[100, 64], pl.FP32]:
        c: pl.Tensor[[100, 64], pl.FP32] = self.matmul_incore(a, b)
        return c
