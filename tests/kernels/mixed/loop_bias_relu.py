import pypto.language as pl


@pl.program
class LoopBias:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[64, 32], pl.FP16], b: pl.Tensor[[32, 32], pl.FP16], bias: pl.Tensor[[64, 32], pl.FP32], out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        for i, (acc,) in pl.range(0, 64, 32, init_values=(out,)):
            blk = pl.slice(a, [32, 32], [i, 0])
            c = pl.matmul(blk, b, out_dtype=pl.FP32)
            d = pl.relu(pl.add(c, pl.slice(bias, [32, 32], [i, 0])))
            acc_next = pl.assemble(acc, d, [i, 0])
            res = pl.yield_(acc_next)
        return res

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 32], pl.FP16], b: pl.Tensor[[32, 32], pl.FP16], bias: pl.Tensor[[64, 32], pl.FP32]) -> pl.Tensor[[64, 32], pl.FP32]:
        out = pl.create_tensor([64, 32], dtype=pl.FP32)
        y = self.kernel(a, b, bias, out)
        return y
