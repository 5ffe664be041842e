import pypto.language as pl


@pl.program
class BiasWindows:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, lhs: pl.Tensor[[256, 128], pl.FP32], rhs: pl.Tensor[[128, 512], pl.FP32],
               bias: pl.Tensor[[1, 512], pl.FP32],
               out: pl.Out[pl.Tensor[[256, 512], pl.FP32]]) -> pl.Tensor[[256, 512], pl.FP32]:
        # The [256, 512] FP32 result overflows L0C on both targets and its bias row the 910B
        # Bias table: AutoTileMatmulL0 reloads a [1, n] bias window for every output tile.
        lhs_mat = pl.tile.load(lhs, [0, 0], [256, 128], target_memory=pl.Mem.Mat)
        rhs_mat = pl.tile.load(rhs, [0, 0], [128, 512], target_memory=pl.Mem.Mat)
        bias_mat = pl.tile.load(bias, [0, 0], [1, 512], target_memory=pl.Mem.Mat)
        c = pl.tile.matmul_bias(lhs_mat, rhs_mat, bias_mat)
        out = pl.store(c, [0, 0], out)
        return out
