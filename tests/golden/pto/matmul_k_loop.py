# pypto.program: MatmulKLoop
# nanopass.language: Addressed
import pypto.language as pl


@pl.program
class MatmulKLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def matmul(self, a: pl.Tensor[[100, 256], pl.FP16], b: pl.Tensor[[256, 128], pl.FP16], out: pl.Out[pl.Tensor[[100, 128], pl.FP32]]) -> pl.Tensor[[100, 128], pl.FP32]:
        a_mat: pl.Tile[[112, 256], pl.FP16, pl.MemRef("mem_mat_0", 0, 57344), pl.Mem.Mat, pl.TileView(valid_shape=[100, 256])] = pl.tile.load(a, [0, 0], [112, 256], [100, 256], target_memory=pl.Mem.Mat)
        b_mat: pl.Tile[[256, 128], pl.FP16, pl.MemRef("mem_mat_1", 57344, 65536), pl.Mem.Mat] = pl.tile.load(b, [0, 0], [256, 128], target_memory=pl.Mem.Mat)
        c_seed: pl.Tile[[112, 128], pl.FP32, pl.MemRef("mem_acc_0", 0, 57344), pl.Mem.Acc, pl.TileView(compact=True)] = pl.tile.create([112, 128], dtype=pl.FP32, target_memory=pl.Mem.Acc, compact=True)
        c_init: pl.Tile[[112, 128], pl.FP32, pl.MemRef("mem_acc_0", 0, 57344), pl.Mem.Acc, pl.TileView(valid_shape=[100, 128], compact=True)] = pl.tile.set_validshape(c_seed, 100, 128)
        for ko, (c_iter,) in pl.pipeline(0, 256, 64, init_values=(c_init,), stage=2):
            sa: pl.Tile[[112, 64], pl.FP16, pl.MemRef("mem_left_0", 0, 14336), pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.row_major, valid_shape=[100, 64])] = pl.tile.extract(a_mat, 0, ko, [112, 64], target_memory=pl.Mem.Left)
            sb: pl.Tile[[64, 128], pl.FP16, pl.MemRef("mem_right_0", 0, 16384), pl.Mem.Right] = pl.tile.extract(b_mat, ko, 0, [64, 128], target_memory=pl.Mem.Right)
            c_acc: pl.Tile[[112, 128], pl.FP32, pl.MemRef("mem_acc_0", 0, 57344), pl.Mem.Acc, pl.TileView(valid_shape=[100, 128], compact=True)] = pl.tile.matmul_acc(c_iter, sa, sb, ko == 0)
            c = pl.yield_(c_acc)
        stored: pl.Tensor[[100, 128], pl.FP32] = pl.tile.store(c, [0, 0], out)
        return stored
