import pypto.language as pl


@pl.program
class Int8KLoopBTrans:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, x: pl.Tensor[[17, 256], pl.INT8], w: pl.Tensor[[48, 256], pl.INT8]) -> pl.Tensor[[17, 48], pl.INT32]:
        x0 = pl.slice(x, [17, 64], [0, 0])
        w0 = pl.slice(w, [48, 64], [0, 0])
        acc0 = pl.matmul(x0, w0, b_trans=True)
        for k0, (acc_iter,) in pl.range(64, 256, 64, init_values=(acc0,)):
            xk = pl.slice(x, [17, 64], [0, k0])
            wk = pl.slice(w, [48, 64], [0, k0])
            acc_next = pl.matmul_acc(acc_iter, xk, wk, b_trans=True)
            acc = pl.yield_(acc_next)
        return acc

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[17, 256], pl.INT8], w: pl.Tensor[[48, 256], pl.INT8]) -> pl.Tensor[[17, 48], pl.INT32]:
        y = self.mm(x, w)
        return y
