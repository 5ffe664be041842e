# A batched split-K loop: the [2, 16, 32] accumulator is carried through pl.range as one 2-D
# accumulator per batch, side by side (FlattenTileNdTo2D splits the carry); each batch's MAD
# chain runs over K in order (NUMERICS.md section 1).
import pypto.language as pl


@pl.program
class BatchMatmulKLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[2, 16, 256], pl.FP16], b: pl.Tensor[[2, 256, 32], pl.FP16]) -> pl.Tensor[[2, 16, 32], pl.FP32]:
        a0 = pl.slice(a, [2, 16, 64], [0, 0, 0])
        b0 = pl.slice(b, [2, 64, 32], [0, 0, 0])
        acc0 = pl.matmul(a0, b0, out_dtype=pl.FP32)
        for k0, (acc_iter,) in pl.range(64, 256, 64, init_values=(acc0,)):
            ak = pl.slice(a, [2, 16, 64], [0, 0, k0])
            bk = pl.slice(b, [2, 64, 32], [0, k0, 0])
            acc_next = pl.matmul_acc(acc_iter, ak, bk)
            acc = pl.yield_(acc_next)
        return acc

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[2, 16, 256], pl.FP16], b: pl.Tensor[[2, 256, 32], pl.FP16]) -> pl.Tensor[[2, 16, 32], pl.FP32]:
        c = self.mm(a, b)
        return c
