# pypto.program: MatmulF16F32
import pypto.language as pl


@pl.program
class MatmulF16F32:
    @pl.function(type=pl.FunctionType.InCore)
    def matmul_incore(
        self, a: pl.Tensor[[64, 256], pl.FP16], b: pl.Tensor[[256, 128], pl.FP16]
    ) -> pl.Tensor[[64, 128], pl.FP32]:
        # FP16 operands accumulate in FP32 on the cube unit (L0C).
        c: pl.Tensor[[64, 128], pl.FP32] = pl.tensor.matmul(a, b, out_dtype=pl.FP32)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 256], pl.FP16], b: pl.Tensor[[256, 128], pl.FP16]) -> pl.Tensor[[64, 128], pl.FP32]:
        c: pl.Tensor[[64, 128], pl.FP32] = self.matmul_incore(a, b)
        return c
