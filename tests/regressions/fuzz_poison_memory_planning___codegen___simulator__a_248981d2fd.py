# fuzz-regression: poison (poison read)
# blamed: memory planning / codegen / simulator (after L0Tiled)
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:14:58: error: [Simulator] pto.tmov reads 0[16, 0], which no instruction has written (its bytes still hold the 0xFF poison pattern)
#       hint: the program reads uninitialised memory: a missing load, a wrong address, or padding consumed as data
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[16, 1], pl.INT8], x4: pl.Tensor[[1, 1], pl.INT8], out7: pl.Out[pl.Tensor[[16, 1], pl.INT8]]) -> pl.Tensor[[16, 1], pl.INT8]:
        l2: pl.Tile[[16, 1], pl.INT8, pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        t3: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        l5: pl.Tile[[1, 1], pl.INT8, pl.Mem.Vec] = pl.tile.load(x4, [0, 0], [1, 1], target_memory=pl.Mem.Vec)
        pl.system.bar_all()
        st8: pl.Tensor[[16, 1], pl.INT8] = pl.tile.store(pl.tile.assemble(l2, l2, [0, 0]), [0, 0], out7)
        return st8

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[16, 1], pl.INT8], kernel0_x4: pl.Tensor[[1, 1], pl.INT8]) -> pl.Tensor[[16, 1], pl.INT8]:
        kernel0_out7: pl.Tensor[[16, 1], pl.INT8] = pl.tensor.create([16, 1], dtype=pl.INT8)
        kernel0_out: pl.Tensor[[16, 1], pl.INT8] = self.kernel0(kernel0_x1, kernel0_x4, kernel0_out7)
        return kernel0_out
