import pypto.language as pl


@pl.program
class MatmulM100Relu:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[100, 64], pl.FP16], b: pl.Tensor[[64, 48], pl.FP16]) -> pl.Tensor[[100, 48], pl.FP32]:
        # M = 100 is boxed to 112 rows; the compact accumulator is pushed valid [100, 48].
        c = pl.matmul(a, b, out_dtype=pl.FP32)
        e = pl.relu(c)
        return e

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[100, 64], pl.FP16], b: pl.Tensor[[64, 48], pl.FP16]) -> pl.Tensor[[100, 48], pl.FP32]:
        e = self.mm(a, b)
        return e
