# A batched K split in two: batch_matmul then batch_matmul_acc, the right operand read transposed
# (b_trans: each batch's [32, 64] block of b is a [64, 32] column window of the packed view).
import pypto.language as pl


@pl.program
class BatchMatmulAcc:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(
        self,
        a: pl.Tensor[[2, 16, 128], pl.BF16],
        b: pl.Tensor[[2, 32, 128], pl.BF16],
    ) -> pl.Tensor[[2, 16, 32], pl.FP32]:
        a0 = pl.slice(a, [2, 16, 64], [0, 0, 0])
        b0 = pl.slice(b, [2, 32, 64], [0, 0, 0])
        a1 = pl.slice(a, [2, 16, 64], [0, 0, 64])
        b1 = pl.slice(b, [2, 32, 64], [0, 0, 64])
        c = pl.matmul(a0, b0, b_trans=True, out_dtype=pl.FP32)
        c2 = pl.matmul_acc(c, a1, b1, b_trans=True)
        return c2

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        a: pl.Tensor[[2, 16, 128], pl.BF16],
        b: pl.Tensor[[2, 32, 128], pl.BF16],
    ) -> pl.Tensor[[2, 16, 32], pl.FP32]:
        c2 = self.mm(a, b)
        return c2
