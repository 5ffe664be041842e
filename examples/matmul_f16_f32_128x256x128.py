# pypto.program: MatmulF16F32Square
import pypto.language as pl


@pl.program
class MatmulF16F32Square:
    @pl.function(type=pl.FunctionType.InCore)
    def matmul_incore(
        self, a: pl.Tensor[[128, 256], pl.FP16], b: pl.Tensor[[256, 128], pl.FP16]
    ) -> pl.Tensor[[128, 128], pl.FP32]:
        # [128, 256] f16 operands are 64 KiB each: more than L0A / L0B hold at once, so the
        # K axis is tiled into a pipelined loop of matmul_acc that accumulates in L0C.
        c: pl.Tensor[[128, 128], pl.FP32] = pl.tensor.matmul(a, b, out_dtype=pl.FP32)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[128, 256], pl.FP16], b: pl.Tensor[[256, 128], pl.FP16]) -> pl.Tensor[[128, 128], pl.FP32]:
        c: pl.Tensor[[128, 128], pl.FP32] = self.matmul_incore(a, b)
        return c
