# fuzz-regression: interpreter-error (interpreter fault)
# blamed: interpreter
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   ValueError: When changing to a larger dtype, its size must be a divisor of the total size in bytes of the last axis of the array.
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[16, 16], pl.BF16], out4: pl.Out[pl.Tensor[[16, 16], pl.BF16]]) -> pl.Tensor[[16, 16], pl.BF16]:
        l2: pl.Tile[[16, 16], pl.BF16, pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        t3: pl.Tile[[16, 16], pl.BF16] = pl.tile.subsc(l2, pl.const(0.5, pl.BF16), l2)
        st5: pl.Tensor[[16, 16], pl.BF16] = pl.tile.store(t3, [0, 0], out4)
        return st5

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, x1: pl.Tensor[[2, 1], pl.INT8], x3: pl.Tensor[[2, 1], pl.INT8], out13: pl.Out[pl.Tensor[[2, 1], pl.INT8]], out15: pl.Out[pl.Tensor[[2, 1], pl.INT8]]) -> tuple[pl.Tensor[[2, 1], pl.INT8], pl.Tensor[[2, 1], pl.INT8]]:
        l2: pl.Tile[[2, 1], pl.INT8, pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [2, 1], target_memory=pl.Mem.Vec)
        l4: pl.Tile[[2, 1], pl.INT8, pl.Mem.Vec] = pl.tile.load(x3, [0, 0], [2, 1], target_memory=pl.Mem.Vec)
        t5: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        pl.system.bar_all()
        t7: pl.Tile[[2, 1], pl.INT8] = pl.tile.shr(l2, pl.tile.ands(l2, pl.const(7, pl.INT8)))
        t8: pl.Tile[[2, 1], pl.INT8] = pl.tile.subsc(l2, pl.const(1, pl.INT8), l2)
        pl.system.bar_all()
        t9: pl.Tile[[1, 1], pl.FP16, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major)] = pl.tile.reinterpret_view(l2, dtype=pl.FP16)
        t10: pl.Scalar[pl.INDEX] = pl.tile.get_block_num()
        t11: pl.Tile[[2, 1], pl.INT8] = pl.tile.subsc(l2, pl.const(1, pl.INT8), l2)
        pl.system.bar_all()
        st14: pl.Tensor[[2, 1], pl.INT8] = pl.tile.store(pl.tile.subsc(l2, pl.const(1, pl.INT8), l2), [0, 0], out13)
        st16: pl.Tensor[[2, 1], pl.INT8] = pl.tile.store(t7, [0, 0], out15)
        return st14, st16

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[16, 16], pl.BF16], kernel1_x1: pl.Tensor[[2, 1], pl.INT8], kernel1_x3: pl.Tensor[[2, 1], pl.INT8]) -> tuple[pl.Tensor[[16, 16], pl.BF16], pl.Tensor[[2, 1], pl.INT8], pl.Tensor[[2, 1], pl.INT8]]:
        kernel0_out4: pl.Tensor[[16, 16], pl.BF16] = pl.tensor.create([16, 16], dtype=pl.BF16)
        kernel0_out: pl.Tensor[[16, 16], pl.BF16] = self.kernel0(kernel0_x1, kernel0_out4)
        kernel1_out13: pl.Tensor[[2, 1], pl.INT8] = pl.tensor.create([2, 1], dtype=pl.INT8)
        kernel1_out15: pl.Tensor[[2, 1], pl.INT8] = pl.tensor.create([2, 1], dtype=pl.INT8)
        kernel1_outs: tuple[pl.Tensor[[2, 1], pl.INT8], pl.Tensor[[2, 1], pl.INT8]] = self.kernel1(kernel1_x1, kernel1_x3, kernel1_out13, kernel1_out15)
        kernel1_out0: pl.Tensor[[2, 1], pl.INT8] = kernel1_outs[0]
        kernel1_out1: pl.Tensor[[2, 1], pl.INT8] = kernel1_outs[1]
        return kernel0_out, kernel1_out0, kernel1_out1
