# pypto.program: AddressedMemRefs
# nanopass.language: Addressed
import pypto.language as pl


@pl.program
class AddressedMemRefs:
    @pl.function(type=pl.FunctionType.InCore)
    def add_incore(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        ta: pl.Tile[[16, 32], pl.FP32, pl.MemRef("mem_vec_0", 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        tb: pl.Tile[[16, 32], pl.FP32, pl.MemRef("mem_vec_1", 2048, 2048), pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        tc: pl.Tile[[16, 32], pl.FP32, pl.MemRef("mem_vec_0", 0, 2048), pl.Mem.Vec] = pl.tile.add(ta, tb)
        m: pl.Tile[[16, 32], pl.FP32, pl.MemRef("mem_mat_0", 0, 2048), pl.Mem.Mat] = pl.tile.move(tc, target_memory=pl.Mem.Mat)
        r: pl.Tensor[[16, 32], pl.FP32] = pl.tile.store(tc, [0, 0], out)
        return r
