import pypto.language as pl


@pl.program
class RowBlockLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[64, 32], pl.FP32], out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        for i, (acc,) in pl.range(0, 64, 16, init_values=(out,)):
            blk = pl.slice(x, [16, 32], [i, 0])
            m = pl.row_max(blk)
            y = pl.exp(pl.row_expand_sub(blk, m))
            y = pl.row_expand_div(y, pl.row_sum(y))
            acc_next = pl.assemble(acc, y, [i, 0])
            res = pl.yield_(acc_next)
        return res

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 32], pl.FP32]) -> pl.Tensor[[64, 32], pl.FP32]:
        out = pl.create_tensor([64, 32], dtype=pl.FP32)
        y = self.kernel(x, out)
        return y
