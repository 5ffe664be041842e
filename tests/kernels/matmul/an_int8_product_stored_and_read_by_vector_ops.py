import pypto.language as pl


# An INT8 [16, 1056] product: its INT32 accumulator (32 rows on Ascend910B) is past L0C there,
# its right panel past L0B on both targets. Returned whole, and a window of it read by a vector
# op as well as returned: the output grid stores each sub-tile and gathers it into one Vec tile
# (as the bits of FP32 on Ascend910B, whose Vec -> Vec tinsert takes no INT32).
@pl.program
class AnInt8ProductStoredAndReadByVectorOps:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[16, 64], pl.INT8], b: pl.Tensor[[64, 1056], pl.INT8]) -> tuple[pl.Tensor[[16, 1056], pl.INT32], pl.Tensor[[8, 40], pl.INT32], pl.Tensor[[8, 40], pl.INT32]]:
        c = pl.matmul(a, b)
        s = pl.slice(c, [8, 40], [5, 1000])
        d = pl.muls(s, 3)
        return c, s, d

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.INT8], b: pl.Tensor[[64, 1056], pl.INT8]) -> tuple[pl.Tensor[[16, 1056], pl.INT32], pl.Tensor[[8, 40], pl.INT32], pl.Tensor[[8, 40], pl.INT32]]:
        x, y, z = self.mm(a, b)
        return x, y, z
