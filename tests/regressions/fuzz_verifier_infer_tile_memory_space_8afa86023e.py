# fuzz-regression: verifier (verifier)
# blamed: infer-tile-memory-space
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   internal compiler error: Verification failed after 'InferTileMemorySpace' for properties {CubeTileLayouts}
#   error: [InferTileMemorySpace] `infer-tile-memory-space` claims to produce CubeTileLayouts, but its output violates it (the input was verified when it was loaded: this is a compiler bug)
#       hint: for pass authors: fix the pass, or declare the property in its `invalidates` so later passes re-establish it
#   <fuzz>:35:42: error: [CubeTileLayouts] `c6_tile_t`: a [16, 16] pl.FP32 tile in Acc has view (blayout=row_major, slayout=col_major, fractal=1024); the hardware keeps Acc as NZ with 16 x 16 accumulator boxes, fractal 1024
#       hint: the view must come from languages.views (implicit_view / move_view / extract_view), which states these formats
#   <fuzz>:35:42: error: [CubeTileLayouts] the result of tile.transpose_view: a [16, 16] pl.FP32 tile in Acc has view (blayout=row_major, slayout=col_major, fractal=1024); the hardware keeps Acc as NZ with 16 x 16 accumulator boxes, fractal 1024
#   ...
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, s1: pl.Tensor[[16, 32], pl.FP32], v2: pl.Tensor[[16, 32], pl.FP32], m3: pl.Tensor[[16, 1], pl.FP32]) -> pl.Tensor[[16, 1], pl.FP32]:
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
        t28: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.adds(r24, pl.const(0.0, pl.FP32))
        return t28

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, a1: pl.Tensor[[1, 16], pl.FP16], b2: pl.Tensor[[16, 16], pl.FP16], a4: pl.Tensor[[1, 16], pl.FP16], b5: pl.Tensor[[16, 16], pl.FP16]) -> tuple[pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 16], pl.FP32]]:
        c6: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.matmul_acc(pl.tensor.matmul(a1, b2, out_dtype=pl.FP32), a4, b5)
        t7: pl.Tensor[[1, 1], pl.FP32] = pl.tensor.matmul(c6, c6, a_trans=False, b_trans=True, out_dtype=pl.FP32)
        return t7, c6

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_s1: pl.Tensor[[16, 32], pl.FP32], kernel0_v2: pl.Tensor[[16, 32], pl.FP32], kernel0_m3: pl.Tensor[[16, 1], pl.FP32], kernel1_a1: pl.Tensor[[1, 16], pl.FP16], kernel1_b2: pl.Tensor[[16, 16], pl.FP16], kernel1_a4: pl.Tensor[[1, 16], pl.FP16], kernel1_b5: pl.Tensor[[16, 16], pl.FP16]) -> tuple[pl.Tensor[[16, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 16], pl.FP32]]:
        kernel0_out: pl.Tensor[[16, 1], pl.FP32] = self.kernel0(kernel0_s1, kernel0_v2, kernel0_m3)
        kernel1_outs: tuple[pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 16], pl.FP32]] = self.kernel1(kernel1_a1, kernel1_b2, kernel1_a4, kernel1_b5)
        kernel1_out0: pl.Tensor[[1, 1], pl.FP32] = kernel1_outs[0]
        kernel1_out1: pl.Tensor[[1, 16], pl.FP32] = kernel1_outs[1]
        return kernel0_out, kernel1_out0, kernel1_out1
