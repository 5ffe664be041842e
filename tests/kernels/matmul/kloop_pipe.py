import pypto.language as pl


@pl.program
class KLoopPipe:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[64, 256], pl.FP16], b: pl.Tensor[[256, 128], pl.FP16]) -> pl.Tensor[[64, 128], pl.FP32]:
        a0 = pl.slice(a, [64, 64], [0, 0])
        b0 = pl.slice(b, [64, 128], [0, 0])
        acc0 = pl.matmul(a0, b0, out_dtype=pl.FP32)
        for k0, (acc_iter,) in pl.pipeline(64, 256, 64, init_values=(acc0,), stage=2):
            ak = pl.slice(a, [64, 64], [0, k0])
            bk = pl.slice(b, [64, 128], [k0, 0])
            acc_next = pl.matmul_acc(acc_iter, ak, bk)
            acc = pl.yield_(acc_next)
        return acc

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 256], pl.FP16], b: pl.Tensor[[256, 128], pl.FP16]) -> pl.Tensor[[64, 128], pl.FP32]:
        c = self.mm(a, b)
        return c
