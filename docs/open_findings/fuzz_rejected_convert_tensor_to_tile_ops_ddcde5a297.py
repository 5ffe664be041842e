# fuzz-regression: rejected (compile error)
# blamed: convert-tensor-to-tile-ops
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:44:42: error: [ConvertTensorToTileOps] not supported yet: `tensor.sort32` of `t5`, a cube result of shape [1, 1] that lives boxed as [1, 16] (its N = 1 is rounded up to a whole fractal box): it sorts its source's physical rows against an index of the same shape, and no vector op copies a boxed column into a column vector
#       hint: store the matmul result and use it in the next kernel, or give the matmul an N that is a multiple of 16
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, q1: pl.Tensor[[16, 64], pl.FP16], k2: pl.Tensor[[16, 64], pl.FP16], v3: pl.Tensor[[16, 64], pl.FP16], ws24: pl.Tensor[[16], pl.INT32]) -> tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 1], pl.FP32]]:
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
            pl.system.syncall(ws24, mode="soft", core_type="mix")
            t25: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.matmul(t23, t12, out_dtype=pl.FP32)
            t26: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.row_expand_mul(o10, t17)
            t27: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.add(t26, t25)
            r28, r29, r30 = pl.yield_(t15, t22, t27)
        t31: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.row_expand_div(r30, r29)
        return t31, r28

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, a1: pl.Tensor[[300, 16], pl.FP16], b2: pl.Tensor[[16, 128], pl.FP16]) -> pl.Tensor[[300, 128], pl.FP16]:
        c3: pl.Tensor[[300, 128], pl.FP16] = pl.tensor.matmul(a1, b2)
        return c3

    @pl.function(type=pl.FunctionType.InCore)
    def kernel2(self, a1: pl.Tensor[[16, 16], pl.FP16], b2: pl.Tensor[[16, 1], pl.FP16], x6: pl.Tensor[[1, 1], pl.INT32]) -> tuple[pl.Tensor[[1, 2], pl.FP32], pl.Tensor[[16, 16], pl.FP16]]:
        ca3: pl.Tensor[[16, 16], pl.FP16] = pl.tensor.muls(a1, pl.const(1.0, pl.FP16))
        t5: pl.Tensor[[1, 1], pl.FP32] = pl.tensor.col_max(pl.tensor.matmul(ca3, b2, out_dtype=pl.FP32))
        t7: pl.Tensor[[1, 2], pl.FP32] = pl.tensor.sort32(t5, x6)
        return t7, ca3

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_q1: pl.Tensor[[16, 64], pl.FP16], kernel0_k2: pl.Tensor[[16, 64], pl.FP16], kernel0_v3: pl.Tensor[[16, 64], pl.FP16], kernel0_ws24: pl.Tensor[[16], pl.INT32], kernel1_a1: pl.Tensor[[300, 16], pl.FP16], kernel1_b2: pl.Tensor[[16, 128], pl.FP16], kernel2_a1: pl.Tensor[[16, 16], pl.FP16], kernel2_b2: pl.Tensor[[16, 1], pl.FP16], kernel2_x6: pl.Tensor[[1, 1], pl.INT32]) -> tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 1], pl.FP32], pl.Tensor[[300, 128], pl.FP16], pl.Tensor[[1, 2], pl.FP32], pl.Tensor[[16, 16], pl.FP16]]:
        kernel0_outs: tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 1], pl.FP32]] = self.kernel0(kernel0_q1, kernel0_k2, kernel0_v3, kernel0_ws24)
        kernel0_out0: pl.Tensor[[16, 64], pl.FP32] = kernel0_outs[0]
        kernel0_out1: pl.Tensor[[16, 1], pl.FP32] = kernel0_outs[1]
        kernel1_out: pl.Tensor[[300, 128], pl.FP16] = self.kernel1(kernel1_a1, kernel1_b2)
        kernel2_outs: tuple[pl.Tensor[[1, 2], pl.FP32], pl.Tensor[[16, 16], pl.FP16]] = self.kernel2(kernel2_a1, kernel2_b2, kernel2_x6)
        kernel2_out0: pl.Tensor[[1, 2], pl.FP32] = kernel2_outs[0]
        kernel2_out1: pl.Tensor[[16, 16], pl.FP16] = kernel2_outs[1]
        return kernel0_out0, kernel0_out1, kernel1_out, kernel2_out0, kernel2_out1
