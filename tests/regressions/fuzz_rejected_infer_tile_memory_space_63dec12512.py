# fuzz-regression: rejected (compile error)
# blamed: infer-tile-memory-space
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:36:103: error: [TypeDeduction] tile.store: operand 'offsets' (argument 1) the stored valid region at offsets [0, 0] with extent [2, 1] expected inside [1, 2]
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.INT32], out4: pl.Out[pl.Tensor[[16, 1], pl.INT32]]) -> pl.Tensor[[16, 1], pl.INT32]:
        t3: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.transpose_view(pl.tile.load(x1, [0, 0], [1, 16], target_memory=pl.Mem.Vec))
        st5: pl.Tensor[[16, 1], pl.INT32] = pl.tile.store(t3, [0, 0], out4)
        return st5

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, x1: pl.Tensor[[16], pl.INT32]) -> pl.Tensor[[16], pl.INT32]:
        t2: pl.Tensor[[16], pl.INT32] = pl.tensor.muls(x1, pl.const(1, pl.INT32))
        n3: pl.Scalar[pl.INDEX] = pl.tensor.dim(x1, axis=0)
        n4: pl.Scalar[pl.INDEX] = n3 * 2
        pl.system.bar_all()
        t5: pl.Tensor[[16], pl.FP32] = pl.tensor.reinterpret_view(x1, dtype=pl.FP32)
        pl.system.bar_all()
        t6: pl.Tensor[[16], pl.FP32] = pl.tensor.reinterpret_view(x1, dtype=pl.FP32)
        sc7: pl.Tensor[[16], pl.INT32] = pl.tensor.adds(t2, pl.cast(n4, pl.INT32))
        return sc7

    @pl.function(type=pl.FunctionType.InCore)
    def kernel2(self, x1: pl.Tensor[[1, 1], pl.FP32], out10: pl.Out[pl.Tensor[[1, 2], pl.FP16]]) -> pl.Tensor[[1, 2], pl.FP16]:
        l2: pl.Tile[[1, 1], pl.FP32, pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [1, 1], target_memory=pl.Mem.Vec)
        t3: pl.Tile[[1, 1], pl.FP32] = pl.tile.abs(l2)
        t4: pl.Tile[[1, 1], pl.FP32, pl.Mem.Vec] = pl.tile.reinterpret_view(l2, dtype=pl.FP32)
        t5: pl.Tile[[1, 1], pl.FP32] = pl.tile.transpose_view(t3)
        t6: pl.Tile[[1, 1], pl.FP32, pl.Mem.Vec] = pl.tile.reinterpret_view(l2, dtype=pl.FP32)
        t7: pl.Tile[[1, 1], pl.FP32] = pl.tile.abs(l2)
        pl.system.bar_all()
        t8: pl.Tile[[1, 1], pl.FP32, pl.Mem.Vec] = pl.tile.reinterpret_view(l2, dtype=pl.FP32)
        st11: pl.Tensor[[1, 2], pl.FP16] = pl.tile.store(pl.tile.reinterpret_view(t5, dtype=pl.FP16), [0, 0], out10)
        return st11

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.INT32], kernel1_x1: pl.Tensor[[16], pl.INT32], kernel2_x1: pl.Tensor[[1, 1], pl.FP32]) -> tuple[pl.Tensor[[16, 1], pl.INT32], pl.Tensor[[16], pl.INT32], pl.Tensor[[1, 2], pl.FP16]]:
        kernel0_out4: pl.Tensor[[16, 1], pl.INT32] = pl.tensor.create([16, 1], dtype=pl.INT32)
        kernel0_out: pl.Tensor[[16, 1], pl.INT32] = self.kernel0(kernel0_x1, kernel0_out4)
        kernel1_out: pl.Tensor[[16], pl.INT32] = self.kernel1(kernel1_x1)
        kernel2_out10: pl.Tensor[[1, 2], pl.FP16] = pl.tensor.create([1, 2], dtype=pl.FP16)
        kernel2_out: pl.Tensor[[1, 2], pl.FP16] = self.kernel2(kernel2_x1, kernel2_out10)
        return kernel0_out, kernel1_out, kernel2_out
