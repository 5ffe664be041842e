import pypto.language as pl


@pl.program
class AccParam:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, c0: pl.Tensor[[48, 64], pl.FP32], a: pl.Tensor[[48, 96], pl.FP16], b: pl.Tensor[[96, 64], pl.FP16]) -> pl.Tensor[[48, 64], pl.FP32]:
        c = pl.matmul_acc(c0, a, b)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, c0: pl.Tensor[[48, 64], pl.FP32], a: pl.Tensor[[48, 96], pl.FP16], b: pl.Tensor[[96, 64], pl.FP16]) -> pl.Tensor[[48, 64], pl.FP32]:
        c = self.mm(c0, a, b)
        return c
