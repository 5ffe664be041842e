# A biased matmul: the bias row initialises L0C (NUMERICS.md section 1), then the K chain.
import pypto.language as pl


@pl.program
class MmBias:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        lhs: pl.Tensor[[16, 64], pl.FP16],
        rhs: pl.Tensor[[64, 32], pl.FP16],
        bias: pl.Tensor[[1, 32], pl.FP32],
        out: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
    ) -> pl.Tensor[[16, 32], pl.FP32]:
        lhs_mat = pl.tile.load(lhs, [0, 0], [16, 64], target_memory=pl.Mem.Mat)
        rhs_mat = pl.tile.load(rhs, [0, 0], [64, 32], target_memory=pl.Mem.Mat)
        bias_mat = pl.tile.load(bias, [0, 0], [1, 32], target_memory=pl.Mem.Mat)
        c = pl.tile.matmul_bias(lhs_mat, rhs_mat, bias_mat)
        out = pl.store(c, [0, 0], out)
        return out
