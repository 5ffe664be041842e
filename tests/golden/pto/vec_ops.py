# pypto.program: VecOps
# nanopass.language: Addressed
import pypto.language as pl


@pl.program
class VecOps:
    @pl.function(type=pl.FunctionType.InCore)
    def vec_ops(self, x: pl.Tensor[[16, 32], pl.FP32], col: pl.Tensor[[16, 1], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP16]]) -> pl.Tensor[[16, 32], pl.FP16]:
        t: pl.Tile[[16, 32], pl.FP32, pl.MemRef("mem_vec_0", 0, 2048), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        tmp: pl.Tile[[16, 32], pl.FP32, pl.MemRef("mem_vec_1", 2048, 2048), pl.Mem.Vec] = pl.tile.create([16, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        m: pl.Tile[[16, 1], pl.FP32, pl.MemRef("mem_vec_2", 4096, 64), pl.Mem.Vec] = pl.tile.row_max(t, tmp)
        c: pl.Tile[[16, 1], pl.FP32, pl.MemRef("mem_vec_3", 4224, 64), pl.Mem.Vec] = pl.tile.load(col, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        s: pl.Tile[[16, 32], pl.FP32, pl.MemRef("mem_vec_4", 4352, 2048), pl.Mem.Vec] = pl.tile.row_expand_sub(t, m)
        e: pl.Tile[[16, 32], pl.FP32, pl.MemRef("mem_vec_5", 6400, 2048), pl.Mem.Vec] = pl.tile.exp(s)
        r: pl.Tile[[16, 1], pl.FP32, pl.MemRef("mem_vec_6", 8448, 64), pl.Mem.Vec] = pl.tile.row_sum(e, tmp)
        d: pl.Tile[[16, 32], pl.FP32, pl.MemRef("mem_vec_4", 4352, 2048), pl.Mem.Vec] = pl.tile.row_expand_div(e, r)
        a: pl.Tile[[16, 32], pl.FP32, pl.MemRef("mem_vec_5", 6400, 2048), pl.Mem.Vec] = pl.tile.adds(d, pl.const(1.5, pl.FP32))
        h: pl.Tile[[16, 32], pl.FP16, pl.MemRef("mem_vec_7", 8576, 1024), pl.Mem.Vec] = pl.tile.cast(a, pl.FP16, mode="rint")
        o: pl.Tensor[[16, 32], pl.FP16] = pl.tile.store(h, [0, 0], out)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 32], pl.FP32], col: pl.Tensor[[16, 1], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP16]:
        out: pl.Tensor[[16, 32], pl.FP16] = pl.tensor.create([16, 32], dtype=pl.FP16)
        y: pl.Tensor[[16, 32], pl.FP16] = self.vec_ops(x, col, out)
        return y
