import pypto.language as pl


# A [16, 1152] FP32 product whose right panel (128 x 1152 FP16) is past L0B on both targets:
# returned whole, and read by vector ops (a window of it, an element-wise op, a rint cast).
# One output grid stores each sub-tile and gathers it into one Vec tile the vector ops read.
@pl.program
class StoresAndVectorConsumersOfAWideProduct:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[16, 128], pl.FP16], b: pl.Tensor[[128, 1152], pl.FP16]) -> tuple[pl.Tensor[[16, 1152], pl.FP32], pl.Tensor[[8, 200], pl.FP32], pl.Tensor[[16, 1152], pl.BF16]]:
        c = pl.matmul(a, b, out_dtype=pl.FP32)
        window = pl.slice(c, [8, 200], [4, 900])
        shifted = pl.adds(window, 1.5)
        narrow = pl.cast(c, pl.BF16, mode="rint")
        return c, shifted, narrow

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 128], pl.FP16], b: pl.Tensor[[128, 1152], pl.FP16]) -> tuple[pl.Tensor[[16, 1152], pl.FP32], pl.Tensor[[8, 200], pl.FP32], pl.Tensor[[16, 1152], pl.BF16]]:
        c, shifted, narrow = self.mm(a, b)
        return c, shifted, narrow
