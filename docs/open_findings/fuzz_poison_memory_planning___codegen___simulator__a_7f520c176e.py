# fuzz-regression: poison (poison read)
# blamed: memory planning / codegen / simulator (after L0Tiled)
# input-seed: 0
# backend: Ascend950
# pipeline: default
# verdict when found:
#   <fuzz>:12:44: error: [Simulator] pto.tstore reads 6[0, 0] (buffer 1), which no instruction has written (its bytes still hold the 0xFF poison pattern)
#       hint: the program reads uninitialised memory: a missing load, a wrong address, or padding consumed as data
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend950
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.INT32], out6: pl.Out[pl.Tensor[[1, 1], pl.INT32]], out8: pl.Out[pl.Tensor[[1, 16], pl.INT32]]) -> tuple[pl.Tensor[[1, 1], pl.INT32], pl.Tensor[[1, 16], pl.INT32]]:
        t3: pl.Tile[[1, 16], pl.INT32] = pl.tile.relu(pl.tile.load(x1, [0, 0], [1, 16], target_memory=pl.Mem.Vec))
        t5: pl.Tile[[1, 1], pl.INT32] = pl.tile.slice(pl.tile.tri(pl.const(1, pl.INT32), [16, 16], [1, 1], upper=True), [1, 1], [0, 1])
        st7: pl.Tensor[[1, 1], pl.INT32] = pl.tile.store(t5, [0, 0], out6)
        st9: pl.Tensor[[1, 16], pl.INT32] = pl.tile.store(t3, [0, 0], out8)
        return st7, st9

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.INT32]) -> tuple[pl.Tensor[[1, 1], pl.INT32], pl.Tensor[[1, 16], pl.INT32]]:
        kernel0_out6: pl.Tensor[[1, 1], pl.INT32] = pl.tensor.create([1, 1], dtype=pl.INT32)
        kernel0_out8: pl.Tensor[[1, 16], pl.INT32] = pl.tensor.create([1, 16], dtype=pl.INT32)
        kernel0_outs: tuple[pl.Tensor[[1, 1], pl.INT32], pl.Tensor[[1, 16], pl.INT32]] = self.kernel0(kernel0_x1, kernel0_out6, kernel0_out8)
        kernel0_out0: pl.Tensor[[1, 1], pl.INT32] = kernel0_outs[0]
        kernel0_out1: pl.Tensor[[1, 16], pl.INT32] = kernel0_outs[1]
        return kernel0_out0, kernel0_out1
