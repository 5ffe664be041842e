# fuzz-regression: mismatch (simulator mismatch)
# blamed: memory planning / codegen / simulator (after L0Tiled)
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   ret1: MISMATCH at [0, 0]: compiled 0x3dc13fe7, interpreter 0xbf6abe6c (1 of 2 elements differ)
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.INT32], out4: pl.Out[pl.Tensor[[1, 16], pl.INT32]]) -> pl.Tensor[[1, 16], pl.INT32]:
        l2: pl.Tile[[1, 16], pl.INT32, pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [1, 16], target_memory=pl.Mem.Vec)
        t3: pl.Tile[[1, 16], pl.INT32, pl.Mem.Vec, pl.TileView(valid_shape=[1, 3])] = pl.tile.set_validshape(l2, 1, 3)
        st5: pl.Tensor[[1, 16], pl.INT32] = pl.tile.store(t3, [0, 0], out4)
        return st5

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, x1: pl.Tensor[[1, 16], pl.BF16], out11: pl.Out[pl.Tensor[[1, 2], pl.FP32]]) -> pl.Tensor[[1, 2], pl.FP32]:
        l2: pl.Tile[[1, 16], pl.BF16, pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [1, 16], target_memory=pl.Mem.Vec)
        t3: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        t4: pl.Tile[[1, 16], pl.BF16] = pl.tile.col_min(l2)
        t5: pl.Tile[[1, 4], pl.BF16, pl.Mem.Vec, pl.TileView(valid_shape=[1, 2])] = pl.tile.slice(l2, [1, 4], [0, 3], [1, 2])
        t6: pl.Tile[[1, 16], pl.BF16, pl.Mem.Vec, pl.TileView(valid_shape=[1, 1])] = pl.tile.set_validshape(l2, 1, 1)
        pl.system.bar_all()
        t7: pl.Tile[[16, 1], pl.BF16] = pl.tile.transpose_view(t4)
        pl.system.bar_all()
        t8: pl.Tile[[1, 16], pl.BF16, pl.TileView(valid_shape=[1, 1])] = pl.tile.set_validshape(t4, 1, 1)
        t9: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        st12: pl.Tensor[[1, 2], pl.FP32] = pl.tile.store(pl.tile.reinterpret_view(t5, dtype=pl.FP32), [0, 0], out11)
        return st12

    @pl.function(type=pl.FunctionType.InCore)
    def kernel2(self, q1: pl.Tensor[[16, 64], pl.FP16], k2: pl.Tensor[[16, 64], pl.FP16], v3: pl.Tensor[[16, 64], pl.FP16]) -> pl.Tensor[[16, 64], pl.FP32]:
        t4: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.full([16, 1], value=pl.const(-30000.0, pl.FP32), dtype=pl.FP32)
        t5: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.full([16, 1], value=pl.const(0.0, pl.FP32), dtype=pl.FP32)
        t6: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.full([16, 64], value=pl.const(0.0, pl.FP32), dtype=pl.FP32)
        for i7, (m8, l9, o10,) in pl.range(1, init_values=(t4, t5, t6,)):
            t11: pl.Tensor[[16, 64], pl.FP16] = pl.tensor.slice(k2, [16, 64], [i7 * 16, 0])
            t12: pl.Tensor[[16, 64], pl.FP16] = pl.tensor.slice(v3, [16, 64], [i7 * 16, 0])
            t13: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.matmul(q1, t11, b_trans=True, out_dtype=pl.FP32)
            t14: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.row_max(t13)
            t15: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.maximum(m8, t14)
            t16: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.sub(m8, t15)
            t17: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.exp(t16)
            t18: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.row_expand_sub(t13, t15)
            t19: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.exp(t18)
            t20: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.mul(l9, t17)
            t21: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.row_sum(t19)
            t22: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.add(t20, t21)
            t23: pl.Tensor[[16, 16], pl.FP16] = pl.tensor.cast(t19, target_type=pl.FP16, mode="rint")
            t24: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.matmul(t23, t12, out_dtype=pl.FP32)
            t25: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.row_expand_mul(o10, t17)
            t26: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.add(t25, t24)
            r27, r28, r29 = pl.yield_(t15, t22, t26)
        t30: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.row_expand_div(r29, r28)
        return t30

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.INT32], kernel1_x1: pl.Tensor[[1, 16], pl.BF16], kernel2_q1: pl.Tensor[[16, 64], pl.FP16], kernel2_k2: pl.Tensor[[16, 64], pl.FP16], kernel2_v3: pl.Tensor[[16, 64], pl.FP16]) -> tuple[pl.Tensor[[1, 16], pl.INT32], pl.Tensor[[1, 2], pl.FP32], pl.Tensor[[16, 64], pl.FP32]]:
        kernel0_out4: pl.Tensor[[1, 16], pl.INT32] = pl.tensor.create([1, 16], dtype=pl.INT32)
        kernel0_out: pl.Tensor[[1, 16], pl.INT32] = self.kernel0(kernel0_x1, kernel0_out4)
        kernel1_out11: pl.Tensor[[1, 2], pl.FP32] = pl.tensor.create([1, 2], dtype=pl.FP32)
        kernel1_out: pl.Tensor[[1, 2], pl.FP32] = self.kernel1(kernel1_x1, kernel1_out11)
        kernel2_out: pl.Tensor[[16, 64], pl.FP32] = self.kernel2(kernel2_q1, kernel2_k2, kernel2_v3)
        return kernel0_out, kernel1_out, kernel2_out
