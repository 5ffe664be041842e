# fuzz-regression: rejected (compile error)
# blamed: flatten-tile-nd-to-2d
# input-seed: 0
# backend: Ascend950
# pipeline: default
# verdict when found:
#   <fuzz>:26:9: error: [TypeDeduction] tile.store: operand 'tile' (argument 0) expected a tile valid in [2, 2] (the packed window [2, 1, 2]), got valid [4, 1]
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend950
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.INT32], x3: pl.Tensor[[1, 1], pl.INT32], out6: pl.Out[pl.Tensor[[1, 16], pl.INT32]]) -> pl.Tensor[[1, 16], pl.INT32]:
        l2: pl.Tile[[1, 16], pl.INT32, pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [1, 16], target_memory=pl.Mem.Vec)
        t5: pl.Tile[[1, 16], pl.INT32] = pl.tile.row_expand_min(l2, pl.tile.load(x3, [0, 0], [1, 1], target_memory=pl.Mem.Vec))
        st7: pl.Tensor[[1, 16], pl.INT32] = pl.tile.store(t5, [0, 0], out6)
        return st7

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, x1: pl.Tensor[[2, 1, 1], pl.FP32], x2: pl.Tensor[[2, 1, 1], pl.FP32]) -> pl.Tensor[[2, 1, 2], pl.FP16]:
        t3: pl.Tensor[[2, 1, 2], pl.FP16] = pl.tensor.reinterpret_view(x1, dtype=pl.FP16)
        t4: pl.Tensor[[2, 1, 1], pl.FP32] = pl.tensor.abs(x1)
        pl.system.bar_all()
        t5: pl.Tensor[[2, 1, 1], pl.FP32] = pl.tensor.reshape(x1, [2, 1, 1])
        pl.system.bar_all()
        t6: pl.Tensor[[2, 1, 1], pl.FP32] = pl.tensor.reshape(x1, [2, 1, 1])
        t7: pl.Tensor[[2, 1, 1], pl.FP32] = pl.tensor.abs(x1)
        pl.system.bar_all()
        t8: pl.Tensor[[2, 1, 2], pl.FP16] = pl.tensor.abs(t3)
        return t8

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.INT32], kernel0_x3: pl.Tensor[[1, 1], pl.INT32], kernel1_x1: pl.Tensor[[2, 1, 1], pl.FP32], kernel1_x2: pl.Tensor[[2, 1, 1], pl.FP32]) -> tuple[pl.Tensor[[1, 16], pl.INT32], pl.Tensor[[2, 1, 2], pl.FP16]]:
        kernel0_out6: pl.Tensor[[1, 16], pl.INT32] = pl.tensor.create([1, 16], dtype=pl.INT32)
        kernel0_out: pl.Tensor[[1, 16], pl.INT32] = self.kernel0(kernel0_x1, kernel0_x3, kernel0_out6)
        kernel1_out: pl.Tensor[[2, 1, 2], pl.FP16] = self.kernel1(kernel1_x1, kernel1_x2)
        return kernel0_out, kernel1_out
