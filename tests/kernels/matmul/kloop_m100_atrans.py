import pypto.language as pl


@pl.program
class KLoopM100ATrans:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[128, 100], pl.BF16], b: pl.Tensor[[128, 80], pl.BF16]) -> pl.Tensor[[100, 80], pl.FP32]:
        # a is stored K-major (a_trans): each K block is a [32, 100] row window, M = 100 on columns.
        a0 = pl.slice(a, [32, 100], [0, 0])
        b0 = pl.slice(b, [32, 80], [0, 0])
        acc0 = pl.matmul(a0, b0, a_trans=True, out_dtype=pl.FP32)
        for k0, (acc_iter,) in pl.pipeline(32, 128, 32, init_values=(acc0,), stage=2):
            ak = pl.slice(a, [32, 100], [k0, 0])
            bk = pl.slice(b, [32, 80], [k0, 0])
            acc_next = pl.matmul_acc(acc_iter, ak, bk, a_trans=True)
            acc = pl.yield_(acc_next)
        return acc

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[128, 100], pl.BF16], b: pl.Tensor[[128, 80], pl.BF16]) -> pl.Tensor[[100, 80], pl.FP32]:
        c = self.mm(a, b)
        return c
