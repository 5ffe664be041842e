# pypto.program: MatmulF16
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class MatmulF16:
    @pl.function(type=pl.FunctionType.InCore)
    def matmul_incore(self, a: pl.Tensor[[64, 128], pl.FP16], b: pl.Tensor[[128, 32], pl.FP16]) -> pl.Tensor[[64, 32], pl.FP32]:
        c: pl.Tensor[[64, 32], pl.FP32] = pl.tensor.matmul(a, b, out_dtype=pl.FP32)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 128], pl.FP16], b: pl.Tensor[[128, 32], pl.FP16]) -> pl.Tensor[[64, 32], pl.FP32]:
        c: pl.Tensor[[64, 32], pl.FP32] = self.matmul_incore(a, b)
        return c
