# fuzz-regression: rejected (compile error)
# blamed: legalize-vec-layouts
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:16:60: error: [LegalizeVecLayouts] not supported yet: `tile.add` on an [N, 1] column runs on its [1, N] row view, and it reads its operand `t5` (a view valid in [1, 1]) past its valid region; the row view of a view cannot reach the padding
#       hint: give the operands one valid shape (pl.tile.set_validshape), or narrow the source tile before taking the view
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[16, 1], pl.INT32], x3: pl.Tensor[[16, 1], pl.INT32], out9: pl.Out[pl.Tensor[[16, 1], pl.INT32]], out11: pl.Out[pl.Tensor[[16, 1], pl.INT32]]) -> tuple[pl.Tensor[[16, 1], pl.INT32], pl.Tensor[[16, 1], pl.INT32]]:
        l2: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        l4: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.load(x3, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        t5: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec, pl.TileView(valid_shape=[1, 1])] = pl.tile.reshape(l2, [16, 1], [1, 1])
        pl.system.bar_all()
        t6: pl.Tile[[1, 16], pl.INT32, pl.Mem.Vec] = pl.tile.transpose_view(l2)
        t7: pl.Tile[[1, 16], pl.INT32, pl.Mem.Vec] = pl.tile.transpose_view(l2)
        st10: pl.Tensor[[16, 1], pl.INT32] = pl.tile.store(pl.tile.add(t5, l2), [0, 0], out9)
        st12: pl.Tensor[[16, 1], pl.INT32] = pl.tile.store(t5, [0, 0], out11)
        return st10, st12

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[16, 1], pl.INT32], kernel0_x3: pl.Tensor[[16, 1], pl.INT32]) -> tuple[pl.Tensor[[16, 1], pl.INT32], pl.Tensor[[16, 1], pl.INT32]]:
        kernel0_out9: pl.Tensor[[16, 1], pl.INT32] = pl.tensor.create([16, 1], dtype=pl.INT32)
        kernel0_out11: pl.Tensor[[16, 1], pl.INT32] = pl.tensor.create([16, 1], dtype=pl.INT32)
        kernel0_outs: tuple[pl.Tensor[[16, 1], pl.INT32], pl.Tensor[[16, 1], pl.INT32]] = self.kernel0(kernel0_x1, kernel0_x3, kernel0_out9, kernel0_out11)
        kernel0_out0: pl.Tensor[[16, 1], pl.INT32] = kernel0_outs[0]
        kernel0_out1: pl.Tensor[[16, 1], pl.INT32] = kernel0_outs[1]
        return kernel0_out0, kernel0_out1
