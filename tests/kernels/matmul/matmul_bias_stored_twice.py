import pypto.language as pl


@pl.program
class BiasStoredTwice:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, lhs: pl.Tensor[[256, 128], pl.FP32], rhs: pl.Tensor[[128, 512], pl.FP32],
               bias: pl.Tensor[[1, 512], pl.FP32],
               out: pl.Out[pl.Tensor[[256, 512], pl.FP32]],
               part: pl.Out[pl.Tensor[[256, 512], pl.FP32]]) -> tuple[pl.Tensor[[256, 512], pl.FP32], pl.Tensor[[256, 512], pl.FP32]]:
        # The [256, 512] FP32 biased result overflows L0C on both targets, and it is stored whole
        # and through a set_validshape view: one output grid, each output tile a biased K
        # reduction over its own [1, n] bias window, stored twice.
        lhs_mat = pl.tile.load(lhs, [0, 0], [256, 128], target_memory=pl.Mem.Mat)
        rhs_mat = pl.tile.load(rhs, [0, 0], [128, 512], target_memory=pl.Mem.Mat)
        bias_mat = pl.tile.load(bias, [0, 0], [1, 512], target_memory=pl.Mem.Mat)
        c = pl.tile.matmul_bias(lhs_mat, rhs_mat, bias_mat)
        v = pl.tile.set_validshape(c, 100, 300)
        out = pl.store(c, [0, 0], out)
        part = pl.store(v, [0, 0], part)
        return out, part
