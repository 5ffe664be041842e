# fuzz-regression: verifier (verifier)
# blamed: legalize-vec-layouts
# input-seed: 348
# backend: Ascend950
# pipeline: default
# verdict when found:
#   internal compiler error: Verification failed after 'LegalizeVecLayouts' for properties {DefinedReads}
#   error: [LegalizeVecLayouts] `legalize-vec-layouts` broke DefinedReads, which it does not declare in `invalidates` (it held before the pass) (the input was verified when it was loaded: this is a compiler bug)
#       hint: for pass authors: fix the pass, or declare the property in its `invalidates` so later passes re-establish it
#   <fuzz>:11:43: error: [DefinedReads] tile.col_expand_sub spreads `t4_tile_row0_packed` over its result, one value per result column ([1, 16] of `t4_tile_row0_packed` for a result valid over [8, 16]), but tile.move wrote only [1, 1] of it: the elements beyond hold no data
#       hint: give `t4_tile_row0_packed` a value for every valid column of the result, or narrow the result's valid columns to the ones `t4_tile_row0_packed` holds
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 348 --backend Ascend950
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[8, 16], pl.INT8], x2: pl.Tensor[[8, 16], pl.INT8], x3: pl.Tensor[[8, 16], pl.INT8]) -> pl.Tensor[[8, 16], pl.INT8]:
        t4: pl.Tensor[[8, 16], pl.INT8, pl.TensorView(valid_shape=[1, 1])] = pl.tensor.reshape(x2, [8, 16], [1, 1])
        t5: pl.Tensor[[8, 16], pl.INT8] = pl.tensor.col_expand_sub(x1, t4)
        t6: pl.Scalar[pl.INT8] = pl.tensor.read(t5, [7, 1])
        t7: pl.Tensor[[8, 16], pl.INT8] = pl.tensor.reshape(x3, [8, 16])
        sc8: pl.Tensor[[8, 16], pl.INT8] = pl.tensor.adds(t5, t6)
        return sc8

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, q1: pl.Tensor[[16, 32], pl.BF16], k2: pl.Tensor[[16, 32], pl.BF16], v3: pl.Tensor[[16, 32], pl.BF16]) -> pl.Tensor[[16, 32], pl.FP32]:
        t4: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.full([16, 1], value=pl.const(-30000.0, pl.FP32), dtype=pl.FP32)
        t5: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.full([16, 1], value=pl.const(0.0, pl.FP32), dtype=pl.FP32)
        t6: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.full([16, 32], value=pl.const(0.0, pl.FP32), dtype=pl.FP32)
        for i7, (m8, l9, o10,) in pl.range(1, init_values=(t4, t5, t6,)):
            t11: pl.Tensor[[16, 32], pl.BF16] = pl.tensor.slice(k2, [16, 32], [i7 * 16, 0])
            t12: pl.Tensor[[16, 32], pl.BF16] = pl.tensor.slice(v3, [16, 32], [i7 * 16, 0])
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
            t23: pl.Tensor[[16, 16], pl.BF16] = pl.tensor.cast(t19, target_type=pl.BF16, mode="rint")
            pl.system.syncall(core_type="mix")
            t24: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.matmul(t23, t12, out_dtype=pl.FP32)
            t25: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.row_expand_mul(o10, t17)
            t26: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.add(t25, t24)
            r27, r28, r29 = pl.yield_(t15, t22, t26)
        t30: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.row_expand_div(r29, r28)
        return t30

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[8, 16], pl.INT8], kernel0_x2: pl.Tensor[[8, 16], pl.INT8], kernel0_x3: pl.Tensor[[8, 16], pl.INT8], kernel1_q1: pl.Tensor[[16, 32], pl.BF16], kernel1_k2: pl.Tensor[[16, 32], pl.BF16], kernel1_v3: pl.Tensor[[16, 32], pl.BF16]) -> tuple[pl.Tensor[[8, 16], pl.INT8], pl.Tensor[[16, 32], pl.FP32]]:
        kernel0_out: pl.Tensor[[8, 16], pl.INT8] = self.kernel0(kernel0_x1, kernel0_x2, kernel0_x3)
        kernel1_out: pl.Tensor[[16, 32], pl.FP32] = self.kernel1(kernel1_q1, kernel1_k2, kernel1_v3)
        return kernel0_out, kernel1_out
