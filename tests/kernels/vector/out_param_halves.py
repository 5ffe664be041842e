import pypto.language as pl


@pl.program
class OutParamHalves:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        top = pl.slice(a, [16, 32], [0, 0])
        bottom = pl.slice(a, [16, 32], [16, 0])
        o1 = pl.assemble(out, pl.add(top, bottom), [0, 0])
        o2 = pl.assemble(o1, pl.sub(top, bottom), [16, 0])
        return o2

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[32, 32], pl.FP32]) -> pl.Tensor[[32, 32], pl.FP32]:
        out = pl.create_tensor([32, 32], dtype=pl.FP32)
        r = self.kernel(a, out)
        return r
