# pypto.program: MulKernel
# nanopass.language: Addressed
import pypto.language as pl

@pl.program
class MulKernel:
    @pl.function(type=pl.FunctionType.InCore)
    def mul_kernel_2d(self, a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32],
                      c: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        tile_a: pl.Tile[[32, 32], pl.FP32, pl.MemRef("mem_vec_0", 0, 4096), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [32, 32], target_memory=pl.Mem.Vec)
        tile_b: pl.Tile[[32, 32], pl.FP32, pl.MemRef("mem_vec_1", 4096, 4096), pl.Mem.Vec] = pl.tile.load(b, [0, 0], [32, 32], target_memory=pl.Mem.Vec)
        tile_c: pl.Tile[[32, 32], pl.FP32, pl.MemRef("mem_vec_2", 8192, 4096), pl.Mem.Vec] = pl.tile.mul(tile_a, tile_b)
        c_out: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(tile_c, [0, 0], c)
        return c_out
