# pypto.program: MatmulExceedsL0C
import pypto.language as pl


@pl.program
class MatmulExceedsL0C:
    @pl.function(type=pl.FunctionType.InCore)
    def matmul_incore(
        self, a: pl.Tensor[[256, 32], pl.FP16], b: pl.Tensor[[32, 512], pl.FP16]
    ) -> pl.Tensor[[256, 512], pl.FP32]:
        # The FP32 result is 512 KiB, more than L0C holds (128 KiB on 910B, 256 KiB on 950):
        # it is computed as a grid of M/N tiles, each stored straight from L0C to GM.
        c: pl.Tensor[[256, 512], pl.FP32] = pl.tensor.matmul(a, b, out_dtype=pl.FP32)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[256, 32], pl.FP16], b: pl.Tensor[[32, 512], pl.FP16]) -> pl.Tensor[[256, 512], pl.FP32]:
        c: pl.Tensor[[256, 512], pl.FP32] = self.matmul_incore(a, b)
        return c
