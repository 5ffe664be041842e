# fuzz-regression: rejected (compile error)
# blamed: infer-tile-memory-space
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:17:59: error: [InferTileMemorySpace] tile.move needs `l2` in Acc, but it lives in Vec and Ascend910B has no Vec → Acc data path (from Vec it can move to: DDR, Vec)
#       hint: store `l2` to a GM tensor with pl.tile.store and load it again into Acc (e.g. in a separate kernel), or compile for a backend with a direct Vec → Acc move (Ascend950 has Acc → Vec and Vec → Mat)
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.INT32], out8: pl.Out[pl.Tensor[[1, 16], pl.INT32]], out10: pl.Out[pl.Tensor[[1, 16], pl.FP32]]) -> tuple[pl.Tensor[[1, 16], pl.INT32], pl.Tensor[[1, 16], pl.FP32]]:
        l2: pl.Tile[[1, 16], pl.INT32] = pl.tile.load(x1, [0, 0], [1, 16])
        t3: pl.Tile[[1, 16], pl.FP32] = pl.tile.reinterpret_view(l2, dtype=pl.FP32)
        t4: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        pl.system.bar_all()
        t5: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        pl.system.bar_all()
        t6: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        st9: pl.Tensor[[1, 16], pl.INT32] = pl.tile.store(pl.tile.move(l2, target_memory=pl.Mem.Acc), [0, 0], out8)
        st11: pl.Tensor[[1, 16], pl.FP32] = pl.tile.store(t3, [0, 0], out10)
        return st9, st11

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.INT32]) -> tuple[pl.Tensor[[1, 16], pl.INT32], pl.Tensor[[1, 16], pl.FP32]]:
        kernel0_out8: pl.Tensor[[1, 16], pl.INT32] = pl.tensor.create([1, 16], dtype=pl.INT32)
        kernel0_out10: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.create([1, 16], dtype=pl.FP32)
        kernel0_outs: tuple[pl.Tensor[[1, 16], pl.INT32], pl.Tensor[[1, 16], pl.FP32]] = self.kernel0(kernel0_x1, kernel0_out8, kernel0_out10)
        kernel0_out0: pl.Tensor[[1, 16], pl.INT32] = kernel0_outs[0]
        kernel0_out1: pl.Tensor[[1, 16], pl.FP32] = kernel0_outs[1]
        return kernel0_out0, kernel0_out1
