# fuzz-regression: rejected (compile error)
# blamed: legalize-vec-layouts
# input-seed: 0
# backend: Ascend950
# pipeline: default
# verdict when found:
#   <fuzz>:47:53: error: [LegalizeVecLayouts] not supported yet: `tile.subc` on an [N, 1] column runs on its [1, N] row view, and it reads its operand `t8` (a view valid in [1, 1]) past its valid region; the row view of a view cannot reach the padding
#       hint: give the operands one valid shape (pl.tile.set_validshape), or narrow the source tile before taking the view
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend950
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: TilePlaced
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[2, 16], pl.UINT32], x3: pl.Tensor[[1, 2], pl.INT32], x5: pl.Tensor[[1, 2], pl.INT32], x7: pl.Tensor[[2, 16], pl.INT32], x9: pl.Tensor[[1, 16], pl.UINT32], x12: pl.Tensor[[16, 16], pl.BF16], x17: pl.Tensor[[2, 1], pl.UINT32], out22: pl.Out[pl.Tensor[[2, 16], pl.UINT32]]) -> pl.Tensor[[2, 16], pl.UINT32]:
        l2: pl.Tile[[2, 16], pl.UINT32, pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [2, 16], target_memory=pl.Mem.Vec)
        l4: pl.Tile[[1, 2], pl.INT32, pl.Mem.Vec] = pl.tile.load(x3, [0, 0], [1, 2], target_memory=pl.Mem.Vec)
        l6: pl.Tile[[1, 2], pl.INT32, pl.Mem.Vec] = pl.tile.load(x5, [0, 0], [1, 2], target_memory=pl.Mem.Vec)
        l8: pl.Tile[[2, 16], pl.INT32, pl.Mem.Vec] = pl.tile.load(x7, [0, 0], [2, 16], target_memory=pl.Mem.Vec)
        l10: pl.Tile[[1, 16], pl.UINT32, pl.Mem.Vec] = pl.tile.load(x9, [0, 0], [1, 16], target_memory=pl.Mem.Vec)
        t11: pl.Tile[[2, 16], pl.UINT32, pl.Mem.Vec] = pl.tile.add(l2, l2)
        pl.system.bar_all()
        l13: pl.Tile[[16, 16], pl.BF16, pl.Mem.Vec] = pl.tile.load(x12, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        w14: pl.Tile[[1, 1], pl.BF16, pl.Mem.Vec] = pl.tile.slice(l13, [1, 1], [0, 0])
        tile15: pl.Tile[[1, 1], pl.BF16, pl.Mem.Vec] = pl.tile.add(w14, w14)
        w16: pl.Tile[[2, 1], pl.UINT32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.row_major)] = pl.tile.slice(l2, [2, 1], [0, 0])
        l18: pl.Tile[[2, 1], pl.UINT32, pl.Mem.Vec] = pl.tile.load(x17, [0, 0], [2, 1], target_memory=pl.Mem.Vec)
        tile19: pl.Tile[[2, 1], pl.UINT32, pl.Mem.Vec] = pl.tile.add(w16, l18)
        wr20: pl.Tile[[2, 16], pl.UINT32, pl.Mem.Vec] = pl.tile.write(l2, [0, 0], pl.const(1, pl.UINT32))
        tile21: pl.Tile[[2, 16], pl.UINT32, pl.Mem.Vec] = pl.tile.sub(wr20, l2)
        st23: pl.Tensor[[2, 16], pl.UINT32] = pl.tile.store(tile21, [0, 0], out22)
        return st23

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, a1: pl.Tensor[[1, 32], pl.FP16], b2: pl.Tensor[[32, 16], pl.FP16], a6: pl.Tensor[[1, 32], pl.FP16], b7: pl.Tensor[[32, 16], pl.FP16], x11: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        l3: pl.Tile[[16, 32], pl.FP16, pl.Mem.Mat, pl.TileView(valid_shape=[1, 32])] = pl.tile.load(a1, [0, 0], [16, 32], [1, 32], target_memory=pl.Mem.Mat)
        l4: pl.Tile[[32, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(b2, [0, 0], [32, 16], target_memory=pl.Mem.Mat)
        t5: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc, pl.TileView(valid_shape=[1, 16], compact=True)] = pl.tile.batch_matmul(l3, l4)
        l8: pl.Tile[[16, 32], pl.FP16, pl.Mem.Mat, pl.TileView(valid_shape=[1, 32])] = pl.tile.load(a6, [0, 0], [16, 32], [1, 32], target_memory=pl.Mem.Mat)
        l9: pl.Tile[[32, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(b7, [0, 0], [32, 16], target_memory=pl.Mem.Mat)
        t10: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc, pl.TileView(valid_shape=[1, 16], compact=True)] = pl.tile.gemv_acc(t5, l8, l9)
        st12: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(t10, [0, 0], x11)
        return st12

    @pl.function(type=pl.FunctionType.InCore)
    def kernel2(self, x1: pl.Tensor[[16, 1], pl.INT32], x4: pl.Tensor[[1, 1], pl.INT32], x10: pl.Tensor[[16, 16], pl.BF16], x14: pl.Tensor[[16, 16], pl.BF16], x16: pl.Tensor[[16, 16], pl.BF16], x20: pl.Tensor[[16, 16], pl.BF16]) -> pl.Tensor[[16, 16], pl.BF16]:
        l2: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        t3: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.divs(l2, pl.const(1, pl.INT32))
        l5: pl.Tile[[1, 1], pl.INT32, pl.Mem.Vec] = pl.tile.load(x4, [0, 0], [1, 1], target_memory=pl.Mem.Vec)
        t6: pl.Tile[[1, 1], pl.INT32, pl.Mem.Vec] = pl.tile.add(l5, l5)
        t7: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.add(l2, l2)
        t8: pl.Tile[[2, 1], pl.INT32, pl.Mem.Vec, pl.TileView(valid_shape=[1, 1])] = pl.tile.slice(l2, [2, 1], [0, 0], [1, 1])
        t9: pl.Tile[[2, 1], pl.INT32, pl.Mem.Vec] = pl.tile.subc(t8, t8, t8)
        l11: pl.Tile[[16, 16], pl.BF16, pl.Mem.Vec] = pl.tile.load(x10, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        w12: pl.Tile[[1, 1], pl.BF16, pl.Mem.Vec] = pl.tile.slice(l11, [1, 1], [0, 0])
        tile13: pl.Tile[[1, 1], pl.BF16, pl.Mem.Vec] = pl.tile.abs(w12)
        l15: pl.Tile[[16, 16], pl.BF16, pl.Mem.Vec] = pl.tile.load(x14, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        l17: pl.Tile[[16, 16], pl.BF16, pl.Mem.Vec] = pl.tile.load(x16, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        n18: pl.Tile[[16, 16], pl.BF16, pl.Mem.Vec, pl.TileView(valid_shape=[1, 1])] = pl.tile.set_validshape(l17, 1, 1)
        tile19: pl.Tile[[16, 16], pl.BF16, pl.Mem.Vec] = pl.tile.add(l15, n18)
        st21: pl.Tensor[[16, 16], pl.BF16] = pl.tile.store(tile19, [0, 0], x20)
        return st21

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[2, 16], pl.UINT32], kernel0_x3: pl.Tensor[[1, 2], pl.INT32], kernel0_x5: pl.Tensor[[1, 2], pl.INT32], kernel0_x7: pl.Tensor[[2, 16], pl.INT32], kernel0_x9: pl.Tensor[[1, 16], pl.UINT32], kernel0_x12: pl.Tensor[[16, 16], pl.BF16], kernel0_x17: pl.Tensor[[2, 1], pl.UINT32], kernel1_a1: pl.Tensor[[1, 32], pl.FP16], kernel1_b2: pl.Tensor[[32, 16], pl.FP16], kernel1_a6: pl.Tensor[[1, 32], pl.FP16], kernel1_b7: pl.Tensor[[32, 16], pl.FP16], kernel1_x11: pl.Tensor[[16, 16], pl.FP32], kernel2_x1: pl.Tensor[[16, 1], pl.INT32], kernel2_x4: pl.Tensor[[1, 1], pl.INT32], kernel2_x10: pl.Tensor[[16, 16], pl.BF16], kernel2_x14: pl.Tensor[[16, 16], pl.BF16], kernel2_x16: pl.Tensor[[16, 16], pl.BF16], kernel2_x20: pl.Tensor[[16, 16], pl.BF16]) -> tuple[pl.Tensor[[2, 16], pl.UINT32], pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.BF16]]:
        kernel0_out22: pl.Tensor[[2, 16], pl.UINT32] = pl.tensor.create([2, 16], dtype=pl.UINT32)
        kernel0_out: pl.Tensor[[2, 16], pl.UINT32] = self.kernel0(kernel0_x1, kernel0_x3, kernel0_x5, kernel0_x7, kernel0_x9, kernel0_x12, kernel0_x17, kernel0_out22)
        kernel1_out: pl.Tensor[[16, 16], pl.FP32] = self.kernel1(kernel1_a1, kernel1_b2, kernel1_a6, kernel1_b7, kernel1_x11)
        kernel2_out: pl.Tensor[[16, 16], pl.BF16] = self.kernel2(kernel2_x1, kernel2_x4, kernel2_x10, kernel2_x14, kernel2_x16, kernel2_x20)
        return kernel0_out, kernel1_out, kernel2_out
