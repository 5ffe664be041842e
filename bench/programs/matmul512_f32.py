import pypto.language as pl


@pl.program
class Matmul512F32:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[512, 512], pl.FP32], b: pl.Tensor[[512, 512], pl.FP32], out: pl.Out[pl.Tensor[[512, 512], pl.FP32]]) -> pl.Tensor[[512, 512], pl.FP32]:
        for mi, (o1,) in pl.range(0, 512, 128, init_values=(out,)):
            for nj, (o2,) in pl.range(0, 512, 128, init_values=(o1,)):
                a0 = pl.slice(a, [128, 128], [mi, 0])
                b0 = pl.slice(b, [128, 128], [0, nj])
                acc0 = pl.matmul(a0, b0, out_dtype=pl.FP32)
                for k0, (acc_iter,) in pl.range(128, 512, 128, init_values=(acc0,)):
                    ak = pl.slice(a, [128, 128], [mi, k0])
                    bk = pl.slice(b, [128, 128], [k0, nj])
                    acc_next = pl.matmul_acc(acc_iter, ak, bk)
                    acc = pl.yield_(acc_next)
                o3 = pl.assemble(o2, acc, [mi, nj])
                r2 = pl.yield_(o3)
            r1 = pl.yield_(r2)
        return r1

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[512, 512], pl.FP32], b: pl.Tensor[[512, 512], pl.FP32]) -> pl.Tensor[[512, 512], pl.FP32]:
        out = pl.create_tensor([512, 512], dtype=pl.FP32)
        y = self.kernel(a, b, out)
        return y
