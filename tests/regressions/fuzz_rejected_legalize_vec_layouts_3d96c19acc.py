# fuzz-regression: rejected (compile error)
# blamed: legalize-vec-layouts
# input-seed: 0
# backend: Ascend950
# pipeline: default
# verdict when found:
#   <fuzz>:15:57: error: [TypeDeduction] tile.add: operand 'rhs' (argument 1) expected the same shape as [2, 1], got [1, 2]
#       hint: use tile.row_expand_* for a [rows, 1] operand
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend950
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[16, 16], pl.FP32], out7: pl.Out[pl.Tensor[[2, 1], pl.FP32]]) -> pl.Tensor[[2, 1], pl.FP32]:
        l2: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        t3: pl.Tile[[2, 1], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[1, 1], blayout=pl.TileLayout.row_major)] = pl.tile.slice(l2, [2, 1], [0, 0], [1, 1])
        t4: pl.Tile[[2, 1], pl.FP32] = pl.tile.subsc(t3, pl.const(0.5, pl.FP32), t3)
        pl.system.bar_all()
        t5: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.write(l2, [0, 0], pl.const(0.5, pl.FP32))
        st8: pl.Tensor[[2, 1], pl.FP32] = pl.tile.store(pl.tile.add(t3, t4), [0, 0], out7)
        return st8

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[2, 1], pl.FP32]:
        kernel0_out7: pl.Tensor[[2, 1], pl.FP32] = pl.tensor.create([2, 1], dtype=pl.FP32)
        kernel0_out: pl.Tensor[[2, 1], pl.FP32] = self.kernel0(kernel0_x1, kernel0_out7)
        return kernel0_out
