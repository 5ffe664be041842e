# fuzz-regression: rejected (compile error)
# blamed: convert-tensor-to-tile-ops
# input-seed: 480
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:11:43: error: [TypeDeduction] tile.ci: operand 'shape' (argument 1) expected a shape [1, ..., n] with n > 1 (leading dims 1), got [1, 1]
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 480 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# fixed: tensor.scatter_update of one-column rows built its flat index with tile.ci([1, 1]), which ci
# rejects (a sequence has at least two elements); one column's flat index is the row index itself.
# Found once the generator drew scatters (index parameters conditioned by random_inputs).
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[8, 16], pl.FP32], x2: pl.Tensor[[8, 16], pl.UINT32], x4: pl.Tensor[[8, 16], pl.UINT32], x5: pl.Tensor[[8, 16], pl.UINT32], x6: pl.Tensor[[8, 1], pl.FP32], x7: pl.Tensor[[8, 32], pl.INT32], x8: pl.Tensor[[8, 32], pl.INT32], x9: pl.Tensor[[1, 8], pl.INT32], x10: pl.Tensor[[1, 8], pl.INT32], x11: pl.Tensor[[8, 1], pl.UINT32], x12: pl.Tensor[[1, 8], pl.INT32], x13: pl.Tensor[[1, 8], pl.INT32], x14: pl.Tensor[[8, 1], pl.FP32]) -> pl.Tensor[[8, 1], pl.FP32]:
        t3: pl.Tensor[[8, 32], pl.FP32] = pl.tensor.sort32(x1, x2)
        t15: pl.Tensor[[8, 1], pl.FP32] = pl.tensor.scatter_update(x6, index=x13, src=x14)
        return t15

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, a1: pl.Tensor[[1, 16], pl.FP32], b2: pl.Tensor[[16, 32], pl.FP32], bias7: pl.Tensor[[1, 32], pl.FP32], a10: pl.Tensor[[1, 16], pl.FP32], b11: pl.Tensor[[16, 32], pl.FP32], out15: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        l3: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat, pl.TileView(valid_shape=[1, 16])] = pl.tile.load(a1, [0, 0], [16, 16], [1, 16], target_memory=pl.Mem.Mat)
        l4: pl.Tile[[16, 32], pl.FP32, pl.Mem.Mat] = pl.tile.load(b2, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        t5: pl.Tile[[16, 16], pl.FP32, pl.Mem.Left, pl.TileView(valid_shape=[1, 16])] = pl.tile.move(l3, target_memory=pl.Mem.Left)
        t6: pl.Tile[[16, 32], pl.FP32, pl.Mem.Right] = pl.tile.move(l4, target_memory=pl.Mem.Right)
        l8: pl.Tile[[1, 32], pl.FP32, pl.Mem.Mat] = pl.tile.load(bias7, [0, 0], [1, 32], target_memory=pl.Mem.Mat)
        t9: pl.Tile[[16, 32], pl.FP32, pl.TileView(valid_shape=[1, 32])] = pl.tile.gemv_bias(t5, t6, l8, acc_phase="partial")
        l12: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat, pl.TileView(valid_shape=[1, 16])] = pl.tile.load(a10, [0, 0], [16, 16], [1, 16], target_memory=pl.Mem.Mat)
        l13: pl.Tile[[16, 32], pl.FP32, pl.Mem.Mat] = pl.tile.load(b11, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        t14: pl.Tile[[16, 32], pl.FP32, pl.TileView(valid_shape=[1, 32])] = pl.tile.gemv_acc(t9, l12, l13)
        st16: pl.Tensor[[16, 32], pl.FP32] = pl.tile.store(t14, [0, 0], out15)
        return st16

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[8, 16], pl.FP32], kernel0_x2: pl.Tensor[[8, 16], pl.UINT32], kernel0_x4: pl.Tensor[[8, 16], pl.UINT32], kernel0_x5: pl.Tensor[[8, 16], pl.UINT32], kernel0_x6: pl.Tensor[[8, 1], pl.FP32], kernel0_x7: pl.Tensor[[8, 32], pl.INT32], kernel0_x8: pl.Tensor[[8, 32], pl.INT32], kernel0_x9: pl.Tensor[[1, 8], pl.INT32], kernel0_x10: pl.Tensor[[1, 8], pl.INT32], kernel0_x11: pl.Tensor[[8, 1], pl.UINT32], kernel0_x12: pl.Tensor[[1, 8], pl.INT32], kernel0_x13: pl.Tensor[[1, 8], pl.INT32], kernel0_x14: pl.Tensor[[8, 1], pl.FP32], kernel1_a1: pl.Tensor[[1, 16], pl.FP32], kernel1_b2: pl.Tensor[[16, 32], pl.FP32], kernel1_bias7: pl.Tensor[[1, 32], pl.FP32], kernel1_a10: pl.Tensor[[1, 16], pl.FP32], kernel1_b11: pl.Tensor[[16, 32], pl.FP32]) -> tuple[pl.Tensor[[8, 1], pl.FP32], pl.Tensor[[16, 32], pl.FP32]]:
        kernel0_out: pl.Tensor[[8, 1], pl.FP32] = self.kernel0(kernel0_x1, kernel0_x2, kernel0_x4, kernel0_x5, kernel0_x6, kernel0_x7, kernel0_x8, kernel0_x9, kernel0_x10, kernel0_x11, kernel0_x12, kernel0_x13, kernel0_x14)
        kernel1_out15: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.create([16, 32], dtype=pl.FP32)
        kernel1_out: pl.Tensor[[16, 32], pl.FP32] = self.kernel1(kernel1_a1, kernel1_b2, kernel1_bias7, kernel1_a10, kernel1_b11, kernel1_out15)
        return kernel0_out, kernel1_out
