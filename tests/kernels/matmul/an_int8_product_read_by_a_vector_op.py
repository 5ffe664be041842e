import pypto.language as pl


# An INT8 [16, 1056] product read only by a vector op: the Vec-scratch grid gathers each INT32
# sub-tile into one Vec tile, as the bits of FP32 on Ascend910B (whose Vec -> Vec tinsert takes
# no INT32: PTOAS refused the INT32 tinsert, and TargetOpRules now refuses it too).
@pl.program
class AnInt8ProductReadByAVectorOp:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[16, 64], pl.INT8], b: pl.Tensor[[64, 1056], pl.INT8]) -> pl.Tensor[[16, 1056], pl.INT32]:
        c = pl.matmul(a, b)
        d = pl.muls(c, 3)
        return d

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.INT8], b: pl.Tensor[[64, 1056], pl.INT8]) -> pl.Tensor[[16, 1056], pl.INT32]:
        d = self.mm(a, b)
        return d
