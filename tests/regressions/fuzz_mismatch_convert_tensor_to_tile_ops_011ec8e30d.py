# fuzz-regression: mismatch (simulator mismatch)
# blamed: convert-tensor-to-tile-ops
# input-seed: 0
# backend: Ascend950
# pipeline: default
# verdict when found:
#   ret0: MISMATCH at [0, 0]: compiled 0x408b548f, interpreter 0x400b548f (1 of 1 elements differ)
#   the output of convert-tensor-to-tile-ops, interpreted, already differs:
#   ret0: MISMATCH at [0, 0]: compiled 0x408b548f, interpreter 0x400b548f (1 of 1 elements differ)
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend950
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.FP32], x4: pl.Tensor[[1, 1], pl.FP32], out9: pl.Out[pl.Tensor[[1, 1], pl.FP32]], out11: pl.Out[pl.Tensor[[1, 16], pl.FP32]]) -> tuple[pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 16], pl.FP32]]:
        l2: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [1, 16], target_memory=pl.Mem.Vec)
        pl.system.bar_all()
        t3: pl.Tile[[1, 16], pl.FP32] = pl.tile.add(l2, l2)
        pl.system.bar_all()
        l5: pl.Tile[[1, 1], pl.FP32, pl.Mem.Vec] = pl.tile.load(x4, [0, 0], [1, 1], target_memory=pl.Mem.Vec)
        t6: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.scatter_mask(l2, t3, mask_pattern=7)
        tile8: pl.Tile[[1, 1], pl.FP32] = pl.tile.abs(pl.tile.slice(l2, [1, 1], [0, 0]))
        st10: pl.Tensor[[1, 1], pl.FP32] = pl.tile.store(tile8, [0, 0], out9)
        st12: pl.Tensor[[1, 16], pl.FP32] = pl.tile.store(t3, [0, 0], out11)
        return st10, st12

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.FP32], kernel0_x4: pl.Tensor[[1, 1], pl.FP32]) -> tuple[pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 16], pl.FP32]]:
        kernel0_out9: pl.Tensor[[1, 1], pl.FP32] = pl.tensor.create([1, 1], dtype=pl.FP32)
        kernel0_out11: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.create([1, 16], dtype=pl.FP32)
        kernel0_outs: tuple[pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 16], pl.FP32]] = self.kernel0(kernel0_x1, kernel0_x4, kernel0_out9, kernel0_out11)
        kernel0_out0: pl.Tensor[[1, 1], pl.FP32] = kernel0_outs[0]
        kernel0_out1: pl.Tensor[[1, 16], pl.FP32] = kernel0_outs[1]
        return kernel0_out0, kernel0_out1
