import pypto.language as pl


@pl.program
class Add512:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[512, 512], pl.FP32], b: pl.Tensor[[512, 512], pl.FP32], out: pl.Out[pl.Tensor[[512, 512], pl.FP32]]) -> pl.Tensor[[512, 512], pl.FP32]:
        for i, (acc,) in pl.range(0, 512, 32, init_values=(out,)):
            x = pl.slice(a, [32, 512], [i, 0])
            y = pl.slice(b, [32, 512], [i, 0])
            z = pl.add(x, y)
            acc_next = pl.assemble(acc, z, [i, 0])
            res = pl.yield_(acc_next)
        return res

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[512, 512], pl.FP32], b: pl.Tensor[[512, 512], pl.FP32]) -> pl.Tensor[[512, 512], pl.FP32]:
        out = pl.create_tensor([512, 512], dtype=pl.FP32)
        y = self.kernel(a, b, out)
        return y
