# fuzz-regression: rejected (compile error)
# blamed: legalize-vec-layouts
# input-seed: 146
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:63:9: error: [TypeDeduction] tile.reshape: operand 'shape' (argument 1) expected a shape of 16 elements (as [1, 16]), got [1, 32]
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 146 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.INT32], out6: pl.Out[pl.Tensor[[1, 16], pl.FP32]]) -> pl.Tensor[[1, 16], pl.FP32]:
        t3: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.reinterpret_view(pl.tile.load(x1, [0, 0], [1, 16], target_memory=pl.Mem.Vec), dtype=pl.FP32)
        pl.system.bar_all()
        t4: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        pl.system.bar_all()
        t5: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        st7: pl.Tensor[[1, 16], pl.FP32] = pl.tile.store(t3, [0, 0], out6)
        return st7

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, q1: pl.Tensor[[16, 64], pl.FP16], k2: pl.Tensor[[16, 64], pl.FP16], v3: pl.Tensor[[16, 64], pl.FP16]) -> pl.Tensor[[16, 64], pl.FP32]:
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

    @pl.function(type=pl.FunctionType.InCore)
    def kernel2(self, x1: pl.Tensor[[1, 32], pl.FP32], x2: pl.Tensor[[1, 32], pl.FP32], x3: pl.Tensor[[1, 32], pl.FP32], big19: pl.Tensor[[1, 32], pl.FP32]) -> tuple[pl.Tensor[[1, 32], pl.FP32, pl.TensorView(valid_shape=[1, 1])], pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 32], pl.FP32], pl.Tensor[[1, 32], pl.FP32]]:
        t4: pl.Tensor[[1, 32], pl.FP32] = pl.tensor.muls(x1, pl.const(0.5, pl.FP32))
        s5: pl.Scalar[pl.FP32] = pl.tensor.read(t4, [0, 0])
        s6: pl.Scalar[pl.FP32] = s5 + pl.const(0.5, pl.FP32)
        t7: pl.Tensor[[1, 32], pl.FP32] = pl.tensor.adds(t4, s6)
        pl.system.bar_all()
        t8: pl.Scalar[pl.INDEX] = pl.tensor.get_block_idx()
        pl.system.bar_all()
        t9: pl.Scalar[pl.INDEX] = pl.tensor.get_block_idx()
        pl.system.bar_all()
        t10: pl.Tensor[[1, 32], pl.FP32] = pl.tensor.abs(x1)
        pl.system.bar_all()
        t11: pl.Scalar[pl.INDEX] = pl.tensor.get_block_idx()
        pl.system.bar_all()
        t12: pl.Scalar[pl.INDEX] = pl.tensor.get_block_idx()
        pl.system.bar_all()
        t13: pl.Scalar[pl.INDEX] = pl.tensor.get_block_idx()
        pl.system.bar_all()
        t14: pl.Tensor[[1, 32], pl.FP32, pl.TensorView(valid_shape=[1, 1])] = pl.tensor.set_validshape(t4, 1, 1)
        w15: pl.Tensor[[1, 1], pl.FP32] = pl.tensor.slice(x1, [1, 1], [0, 0], [1, 1])
        r16: pl.Tensor[[1, 1], pl.FP32] = pl.tensor.col_max(w15)
        n17: pl.Tensor[[1, 32], pl.FP32, pl.TensorView(valid_shape=[1, 1])] = pl.tensor.set_validshape(x1, 1, 1)
        p18: pl.Tensor[[1, 32], pl.FP32] = pl.tensor.add(n17, x1)
        asm20: pl.Tensor[[1, 32], pl.FP32] = pl.tensor.assemble(big19, t4, [0, 0])
        t21: pl.Tensor[[1, 32], pl.FP32] = pl.tensor.muls(big19, pl.const(-1.5, pl.FP32))
        return t14, r16, p18, t21

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.INT32], kernel1_q1: pl.Tensor[[16, 64], pl.FP16], kernel1_k2: pl.Tensor[[16, 64], pl.FP16], kernel1_v3: pl.Tensor[[16, 64], pl.FP16], kernel2_x1: pl.Tensor[[1, 32], pl.FP32], kernel2_x2: pl.Tensor[[1, 32], pl.FP32], kernel2_x3: pl.Tensor[[1, 32], pl.FP32], kernel2_big19: pl.Tensor[[1, 32], pl.FP32]) -> tuple[pl.Tensor[[1, 16], pl.FP32], pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[1, 32], pl.FP32, pl.TensorView(valid_shape=[1, 1])], pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 32], pl.FP32], pl.Tensor[[1, 32], pl.FP32]]:
        kernel0_out6: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.create([1, 16], dtype=pl.FP32)
        kernel0_out: pl.Tensor[[1, 16], pl.FP32] = self.kernel0(kernel0_x1, kernel0_out6)
        kernel1_out: pl.Tensor[[16, 64], pl.FP32] = self.kernel1(kernel1_q1, kernel1_k2, kernel1_v3)
        kernel2_outs: tuple[pl.Tensor[[1, 32], pl.FP32, pl.TensorView(valid_shape=[1, 1])], pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 32], pl.FP32], pl.Tensor[[1, 32], pl.FP32]] = self.kernel2(kernel2_x1, kernel2_x2, kernel2_x3, kernel2_big19)
        kernel2_out0: pl.Tensor[[1, 32], pl.FP32, pl.TensorView(valid_shape=[1, 1])] = kernel2_outs[0]
        kernel2_out1: pl.Tensor[[1, 1], pl.FP32] = kernel2_outs[1]
        kernel2_out2: pl.Tensor[[1, 32], pl.FP32] = kernel2_outs[2]
        kernel2_out3: pl.Tensor[[1, 32], pl.FP32] = kernel2_outs[3]
        return kernel0_out, kernel1_out, kernel2_out0, kernel2_out1, kernel2_out2, kernel2_out3
