import pypto.language as pl


@pl.program
class MatmulBiasRelu:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], bias: pl.Tensor[[32, 64], pl.FP32]) -> pl.Tensor[[32, 64], pl.FP32]:
        c = pl.matmul(a, b, out_dtype=pl.FP32)
        d = pl.add(c, bias)
        e = pl.relu(d)
        return e

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], bias: pl.Tensor[[32, 64], pl.FP32]) -> pl.Tensor[[32, 64], pl.FP32]:
        e = self.mm(a, b, bias)
        return e
