# fuzz-regression: verifier (verifier)
# blamed: auto-tile-matmul-l0
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   internal compiler error: Verification failed after 'AutoTileMatmulL0' for properties {AccCompactValid, TypeChecked}
#   error: [AutoTileMatmulL0] `auto-tile-matmul-l0` claims to produce AccCompactValid, but its output violates it; `auto-tile-matmul-l0` broke TypeChecked, which it does not declare in `invalidates` (it held before the pass) (the input was verified when it was loaded: this is a compiler bug)
#       hint: for pass authors: fix the pass, or declare the property in its `invalidates` so later passes re-establish it
#   <fuzz>:27:9: error: [AccCompactValid] tile.matmul_acc accumulator operand c4_tile_iter [32, 64] is not compact, but MAD writes it at row pitch 16 (Left valid rows 1) while readers use its 32 physical rows
#       hint: declare the accumulator seed compact: tile.create(..., target_memory=Acc, compact=True)
#   <fuzz>:27:9: error: [AccCompactValid] tile.matmul_acc result [32, 64] is not compact, but MAD writes it at row pitch 16 (Left valid rows 1) while readers use its 32 physical rows
#   ...
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[8, 16], pl.INT32], idx2: pl.Tensor[[8, 16], pl.INT32], x3: pl.Tensor[[8, 16], pl.INT32], idx4: pl.Tensor[[8, 16], pl.INT32], idx5: pl.Tensor[[8, 1], pl.UINT32], idx6: pl.Tensor[[8, 16], pl.INT32], x7: pl.Tensor[[1, 16], pl.INT32], idx8: pl.Tensor[[8, 16], pl.INT32], idx9: pl.Tensor[[8, 16], pl.INT32], idx10: pl.Tensor[[8, 16], pl.INT32], idx11: pl.Tensor[[8, 1], pl.INT32]) -> pl.Tensor[[8, 1], pl.UINT32]:
        t12: pl.Tensor[[8, 1], pl.UINT32] = pl.tensor.scatter_update(idx5, index=idx11, src=idx5)
        return t12

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, x1: pl.Tensor[[1, 16], pl.FP32], k2: pl.Scalar[pl.FP32], k3: pl.Scalar[pl.BF16]) -> tuple[pl.Tensor[[1, 16], pl.FP32], pl.Tensor[[1, 16], pl.FP32]]:
        s4: pl.Scalar[pl.FP32] = pl.cast(k3, pl.FP32)
        t5: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.adds(x1, s4)
        if s4 == pl.const(0.5, pl.FP32) and k2 < pl.const(0.5, pl.FP32):
            t6: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.adds(t5, pl.const(0.5, pl.FP32))
            phi8 = pl.yield_(t6)
        else:
            t7: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.add(t5, t5)
            phi8 = pl.yield_(t7)
        return phi8, t5

    @pl.function(type=pl.FunctionType.InCore)
    def kernel2(self, a1: pl.Tensor[[20, 1056], pl.INT8], b2: pl.Tensor[[1056, 48], pl.INT8]) -> pl.Tensor[[20, 48], pl.INT32, pl.TensorView(valid_shape=[1, 48])]:
        c4: pl.Tensor[[20, 48], pl.INT32] = pl.tensor.matmul(pl.tensor.slice(a1, [20, 1056], [0, 0], [1, 1056]), b2)
        c5: pl.Tensor[[20, 48], pl.INT32, pl.TensorView(valid_shape=[1, 48])] = pl.tensor.set_validshape(c4, 1, 48)
        return c5

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[8, 16], pl.INT32], kernel0_idx2: pl.Tensor[[8, 16], pl.INT32], kernel0_x3: pl.Tensor[[8, 16], pl.INT32], kernel0_idx4: pl.Tensor[[8, 16], pl.INT32], kernel0_idx5: pl.Tensor[[8, 1], pl.UINT32], kernel0_idx6: pl.Tensor[[8, 16], pl.INT32], kernel0_x7: pl.Tensor[[1, 16], pl.INT32], kernel0_idx8: pl.Tensor[[8, 16], pl.INT32], kernel0_idx9: pl.Tensor[[8, 16], pl.INT32], kernel0_idx10: pl.Tensor[[8, 16], pl.INT32], kernel0_idx11: pl.Tensor[[8, 1], pl.INT32], kernel1_x1: pl.Tensor[[1, 16], pl.FP32], kernel1_k2: pl.Scalar[pl.FP32], kernel1_k3: pl.Scalar[pl.BF16], kernel2_a1: pl.Tensor[[20, 1056], pl.INT8], kernel2_b2: pl.Tensor[[1056, 48], pl.INT8]) -> tuple[pl.Tensor[[8, 1], pl.UINT32], pl.Tensor[[1, 16], pl.FP32], pl.Tensor[[1, 16], pl.FP32], pl.Tensor[[20, 48], pl.INT32, pl.TensorView(valid_shape=[1, 48])]]:
        kernel0_out: pl.Tensor[[8, 1], pl.UINT32] = self.kernel0(kernel0_x1, kernel0_idx2, kernel0_x3, kernel0_idx4, kernel0_idx5, kernel0_idx6, kernel0_x7, kernel0_idx8, kernel0_idx9, kernel0_idx10, kernel0_idx11)
        kernel1_outs: tuple[pl.Tensor[[1, 16], pl.FP32], pl.Tensor[[1, 16], pl.FP32]] = self.kernel1(kernel1_x1, kernel1_k2, kernel1_k3)
        kernel1_out0: pl.Tensor[[1, 16], pl.FP32] = kernel1_outs[0]
        kernel1_out1: pl.Tensor[[1, 16], pl.FP32] = kernel1_outs[1]
        kernel2_out: pl.Tensor[[20, 48], pl.INT32, pl.TensorView(valid_shape=[1, 48])] = self.kernel2(kernel2_a1, kernel2_b2)
        return kernel0_out, kernel1_out0, kernel1_out1, kernel2_out
