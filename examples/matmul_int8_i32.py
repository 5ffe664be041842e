# pypto.program: MatmulInt8I32
import pypto.language as pl


@pl.program
class MatmulInt8I32:
    @pl.function(type=pl.FunctionType.InCore)
    def matmul_incore(
        self, a: pl.Tensor[[64, 128], pl.INT8], b: pl.Tensor[[128, 64], pl.INT8]
    ) -> pl.Tensor[[64, 64], pl.INT32]:
        # INT8 operands accumulate in INT32 (two's-complement wrap-around).
        c: pl.Tensor[[64, 64], pl.INT32] = pl.tensor.matmul(a, b)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 128], pl.INT8], b: pl.Tensor[[128, 64], pl.INT8]) -> pl.Tensor[[64, 64], pl.INT32]:
        c: pl.Tensor[[64, 64], pl.INT32] = self.matmul_incore(a, b)
        return c
