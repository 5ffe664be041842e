# fuzz-regression: mismatch (simulator mismatch)
# blamed: legalize-vec-dtypes
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   ret3: MISMATCH at [0, 1]: compiled 0x7fe9, interpreter 0x7ffd (15 of 16 elements differ)
#   the output of legalize-vec-dtypes, interpreted, already differs:
#   ret3: MISMATCH at [0, 1]: compiled 0x7fe9, interpreter 0x7ffd (15 of 16 elements differ)
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.INT32], out7: pl.Out[pl.Tensor[[16, 1], pl.INT32]], out9: pl.Out[pl.Tensor[[1, 16], pl.FP32]]) -> tuple[pl.Tensor[[16, 1], pl.INT32], pl.Tensor[[1, 16], pl.FP32]]:
        l2: pl.Tile[[1, 16], pl.INT32, pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [1, 16], target_memory=pl.Mem.Vec)
        t3: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.reinterpret_view(l2, dtype=pl.FP32)
        t4: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.reinterpret_view(l2, dtype=pl.FP32)
        pl.system.bar_all()
        t5: pl.Tile[[1, 16], pl.INT32] = pl.tile.shls(l2, pl.const(0, pl.INT32))
        st8: pl.Tensor[[16, 1], pl.INT32] = pl.tile.store(pl.tile.transpose_view(l2), [0, 0], out7)
        st10: pl.Tensor[[1, 16], pl.FP32] = pl.tile.store(t3, [0, 0], out9)
        return st8, st10

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, s1: pl.Tensor[[16, 32], pl.FP32], v2: pl.Tensor[[16, 32], pl.FP32], m3: pl.Tensor[[16, 1], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        t4: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.muls(m3, pl.const(1.0, pl.FP32))
        t5: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.muls(m3, pl.const(0.0, pl.FP32))
        t6: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.muls(v2, pl.const(0.0, pl.FP32))
        for i7, (m8, l9, o10,) in pl.range(1, init_values=(t4, t5, t6,)):
            t11: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.slice(s1, [16, 32], [i7 * ((16 + 16) // 2), 0])
            t12: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.row_max(t11)
            t13: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.maximum(m8, t12)
            t14: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.sub(m8, t13)
            t15: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.exp(t14)
            t16: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.row_expand_sub(t11, t13)
            t17: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.exp(t16)
            t18: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.mul(l9, t15)
            t19: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.row_sum(t17)
            t20: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.add(t18, t19)
            t21: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.row_expand_mul(o10, t15)
            t22: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.mul(t17, v2)
            t23: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.add(t21, t22)
            r24, r25, r26 = pl.yield_(t13, t20, t23)
        t27: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.row_expand_div(r26, r25)
        return t27

    @pl.function(type=pl.FunctionType.InCore)
    def kernel2(self, a1: pl.Tensor[[1, 272], pl.BF16], b2: pl.Tensor[[272, 16], pl.BF16]) -> pl.Tensor[[1, 16], pl.BF16]:
        c3: pl.Tensor[[1, 16], pl.BF16] = pl.tensor.matmul(a1, b2)
        sc5: pl.Tensor[[1, 16], pl.BF16] = pl.tensor.adds(c3, pl.tensor.read(c3, [0, 0]))
        return sc5

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.INT32], kernel1_s1: pl.Tensor[[16, 32], pl.FP32], kernel1_v2: pl.Tensor[[16, 32], pl.FP32], kernel1_m3: pl.Tensor[[16, 1], pl.FP32], kernel2_a1: pl.Tensor[[1, 272], pl.BF16], kernel2_b2: pl.Tensor[[272, 16], pl.BF16]) -> tuple[pl.Tensor[[16, 1], pl.INT32], pl.Tensor[[1, 16], pl.FP32], pl.Tensor[[16, 32], pl.FP32], pl.Tensor[[1, 16], pl.BF16]]:
        kernel0_out7: pl.Tensor[[16, 1], pl.INT32] = pl.tensor.create([16, 1], dtype=pl.INT32)
        kernel0_out9: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.create([1, 16], dtype=pl.FP32)
        kernel0_outs: tuple[pl.Tensor[[16, 1], pl.INT32], pl.Tensor[[1, 16], pl.FP32]] = self.kernel0(kernel0_x1, kernel0_out7, kernel0_out9)
        kernel0_out0: pl.Tensor[[16, 1], pl.INT32] = kernel0_outs[0]
        kernel0_out1: pl.Tensor[[1, 16], pl.FP32] = kernel0_outs[1]
        kernel1_out: pl.Tensor[[16, 32], pl.FP32] = self.kernel1(kernel1_s1, kernel1_v2, kernel1_m3)
        kernel2_out: pl.Tensor[[1, 16], pl.BF16] = self.kernel2(kernel2_a1, kernel2_b2)
        return kernel0_out0, kernel0_out1, kernel1_out, kernel2_out
