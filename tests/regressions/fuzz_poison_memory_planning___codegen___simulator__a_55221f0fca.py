# fuzz-regression: poison (poison read)
# blamed: memory planning / codegen / simulator (after L0Tiled)
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:14:42: error: [Simulator] pto.tgather reads 1[0, 4], which no instruction has written (its bytes still hold the 0xFF poison pattern)
#       hint: the program reads uninitialised memory: a missing load, a wrong address, or padding consumed as data
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[16, 16], pl.INT8], x4: pl.Tensor[[1, 16], pl.INT8], x6: pl.Tensor[[16, 1], pl.INT8], x8: pl.Tensor[[16, 1], pl.FP32], idx10: pl.Tensor[[16, 4], pl.INT32], out13: pl.Out[pl.Tensor[[16, 4], pl.FP32]]) -> pl.Tensor[[16, 4], pl.FP32]:
        t3: pl.Tile[[16, 4], pl.FP32, pl.Mem.Vec] = pl.tile.reinterpret_view(pl.tile.load(x1, [0, 0], [16, 16], target_memory=pl.Mem.Vec), dtype=pl.FP32)
        l5: pl.Tile[[1, 16], pl.INT8, pl.Mem.Vec] = pl.tile.load(x4, [0, 0], [1, 16], target_memory=pl.Mem.Vec)
        l7: pl.Tile[[16, 1], pl.INT8, pl.Mem.Vec] = pl.tile.load(x6, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        l9: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.load(x8, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        t12: pl.Tile[[16, 4], pl.FP32] = pl.tile.gather(t3, pl.tile.load(idx10, [0, 0], [16, 4], target_memory=pl.Mem.Vec))
        st14: pl.Tensor[[16, 4], pl.FP32] = pl.tile.store(t12, [0, 0], out13)
        return st14

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[16, 16], pl.INT8], kernel0_x4: pl.Tensor[[1, 16], pl.INT8], kernel0_x6: pl.Tensor[[16, 1], pl.INT8], kernel0_x8: pl.Tensor[[16, 1], pl.FP32], kernel0_idx10: pl.Tensor[[16, 4], pl.INT32]) -> pl.Tensor[[16, 4], pl.FP32]:
        kernel0_out13: pl.Tensor[[16, 4], pl.FP32] = pl.tensor.create([16, 4], dtype=pl.FP32)
        kernel0_out: pl.Tensor[[16, 4], pl.FP32] = self.kernel0(kernel0_x1, kernel0_x4, kernel0_x6, kernel0_x8, kernel0_idx10, kernel0_out13)
        return kernel0_out
