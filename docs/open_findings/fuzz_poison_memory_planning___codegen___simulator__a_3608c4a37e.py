# fuzz-regression: poison (poison read)
# blamed: memory planning / codegen / simulator (after L0Tiled)
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:16:41: error: [Simulator] pto.tadd reads 2[0, 2], which no instruction has written (its bytes still hold the 0xFF poison pattern)
#       hint: the program reads uninitialised memory: a missing load, a wrong address, or padding consumed as data
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.FP32], out8: pl.Out[pl.Tensor[[1, 16], pl.FP32]], out10: pl.Out[pl.Tensor[[1, 16], pl.FP32]]) -> tuple[pl.Tensor[[1, 16], pl.FP32], pl.Tensor[[1, 16], pl.FP32]]:
        t3: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[1, 2])] = pl.tile.set_validshape(pl.tile.load(x1, [0, 0], [1, 16], target_memory=pl.Mem.Vec), 1, 2)
        pl.system.bar_all()
        t4: pl.Tile[[1, 16], pl.FP32, pl.TileView(valid_shape=[1, 2])] = pl.tile.abs(t3)
        pl.system.bar_all()
        t5: pl.Tile[[1, 16], pl.FP32, pl.TileView(valid_shape=[1, 2])] = pl.tile.col_max(t3)
        pl.system.bar_all()
        t7: pl.Tile[[1, 16], pl.FP32] = pl.tile.add(pl.tile.set_validshape(t3, 1, 1), t4)
        st9: pl.Tensor[[1, 16], pl.FP32] = pl.tile.store(t7, [0, 0], out8)
        st11: pl.Tensor[[1, 16], pl.FP32] = pl.tile.store(t4, [0, 0], out10)
        return st9, st11

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.FP32]) -> tuple[pl.Tensor[[1, 16], pl.FP32], pl.Tensor[[1, 16], pl.FP32]]:
        kernel0_out8: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.create([1, 16], dtype=pl.FP32)
        kernel0_out10: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.create([1, 16], dtype=pl.FP32)
        kernel0_outs: tuple[pl.Tensor[[1, 16], pl.FP32], pl.Tensor[[1, 16], pl.FP32]] = self.kernel0(kernel0_x1, kernel0_out8, kernel0_out10)
        kernel0_out0: pl.Tensor[[1, 16], pl.FP32] = kernel0_outs[0]
        kernel0_out1: pl.Tensor[[1, 16], pl.FP32] = kernel0_outs[1]
        return kernel0_out0, kernel0_out1
