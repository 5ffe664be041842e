import pypto.language as pl


@pl.program
class OutDtypeAdd:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[64, 32], pl.FP16], x: pl.Tensor[[32, 32], pl.FP16]) -> pl.Tensor[[32, 32], pl.FP16]:
        c = pl.matmul(a, b, out_dtype=pl.FP16)
        d = pl.add(c, x)
        return d

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[64, 32], pl.FP16], x: pl.Tensor[[32, 32], pl.FP16]) -> pl.Tensor[[32, 32], pl.FP16]:
        d = self.mm(a, b, x)
        return d
