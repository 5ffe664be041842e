# fuzz-regression: poison (poison read)
# blamed: memory planning / codegen / simulator (after L0Tiled)
# input-seed: 0
# backend: Ascend950
# pipeline: default
# verdict when found:
#   <fuzz>:21:43: error: [Simulator] pto.tsels reads 4[1, 0], which no instruction has written (its bytes still hold the 0xFF poison pattern)
#       hint: the program reads uninitialised memory: a missing load, a wrong address, or padding consumed as data
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend950
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[16, 16], pl.BF16], x3: pl.Tensor[[16, 16], pl.FP16], x6: pl.Tensor[[1, 16], pl.BF16], x8: pl.Tensor[[1, 16], pl.INT16], x11: pl.Tensor[[1, 1], pl.INT16], x16: pl.Tensor[[16, 1], pl.INT32], out20: pl.Out[pl.Tensor[[16, 1], pl.INT32]], out22: pl.Out[pl.Tensor[[1, 1], pl.INT16]]) -> tuple[pl.Tensor[[16, 1], pl.INT32], pl.Tensor[[1, 1], pl.INT16]]:
        l2: pl.Tile[[16, 16], pl.BF16, pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        l4: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.tile.load(x3, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        scratch5: pl.Tile[[16, 16], pl.BF16] = pl.tile.create([16, 16], dtype=pl.BF16)
        l7: pl.Tile[[1, 16], pl.BF16, pl.Mem.Vec] = pl.tile.load(x6, [0, 0], [1, 16], target_memory=pl.Mem.Vec)
        l9: pl.Tile[[1, 16], pl.INT16, pl.Mem.Vec] = pl.tile.load(x8, [0, 0], [1, 16], target_memory=pl.Mem.Vec)
        scratch10: pl.Tile[[16, 16], pl.BF16] = pl.tile.create([16, 16], dtype=pl.BF16)
        l12: pl.Tile[[1, 1], pl.INT16, pl.Mem.Vec] = pl.tile.load(x11, [0, 0], [1, 1], target_memory=pl.Mem.Vec)
        t14: pl.Tile[[1, 1], pl.INT16] = pl.tile.sels(l9, l12, pl.tile.create([1, 16], dtype=pl.INT16), pl.const(1, pl.INT16))
        t15: pl.Tile[[16, 16], pl.INT32, pl.TileView(valid_shape=[1, 1])] = pl.tile.tri(pl.const(1, pl.INT32), [16, 16], [1, 1], upper=True)
        pl.system.bar_all()
        l17: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.load(x16, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        t19: pl.Tile[[16, 1], pl.INT32] = pl.tile.sels(t15, l17, pl.tile.create([16, 16], dtype=pl.INT32), pl.const(1, pl.INT32))
        st21: pl.Tensor[[16, 1], pl.INT32] = pl.tile.store(t19, [0, 0], out20)
        st23: pl.Tensor[[1, 1], pl.INT16] = pl.tile.store(t14, [0, 0], out22)
        return st21, st23

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[16, 16], pl.BF16], kernel0_x3: pl.Tensor[[16, 16], pl.FP16], kernel0_x6: pl.Tensor[[1, 16], pl.BF16], kernel0_x8: pl.Tensor[[1, 16], pl.INT16], kernel0_x11: pl.Tensor[[1, 1], pl.INT16], kernel0_x16: pl.Tensor[[16, 1], pl.INT32]) -> tuple[pl.Tensor[[16, 1], pl.INT32], pl.Tensor[[1, 1], pl.INT16]]:
        kernel0_out20: pl.Tensor[[16, 1], pl.INT32] = pl.tensor.create([16, 1], dtype=pl.INT32)
        kernel0_out22: pl.Tensor[[1, 1], pl.INT16] = pl.tensor.create([1, 1], dtype=pl.INT16)
        kernel0_outs: tuple[pl.Tensor[[16, 1], pl.INT32], pl.Tensor[[1, 1], pl.INT16]] = self.kernel0(kernel0_x1, kernel0_x3, kernel0_x6, kernel0_x8, kernel0_x11, kernel0_x16, kernel0_out20, kernel0_out22)
        kernel0_out0: pl.Tensor[[16, 1], pl.INT32] = kernel0_outs[0]
        kernel0_out1: pl.Tensor[[1, 1], pl.INT16] = kernel0_outs[1]
        return kernel0_out0, kernel0_out1
