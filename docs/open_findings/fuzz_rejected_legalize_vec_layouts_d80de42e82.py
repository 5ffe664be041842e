# fuzz-regression: rejected (compile error)
# blamed: legalize-vec-layouts
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:11:46: error: [LegalizeVecLayouts] `tile.row_expand_div` of a column-major [N, 1] column is not supported yet in this element type on this target: it runs as tile.col_expand_div: PTOAS's tcolexpanddiv takes FP16 / FP32 elements on A2/A3 (BF16 runs in FP32: LegalizeVecDtypes)
#       hint: compute in a type that instruction takes (pl.cast before and after), or on a row-major [1, N] row
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[2, 1, 1], pl.INT32], x7: pl.Tensor[[2, 1, 1], pl.BF16], x8: pl.Tensor[[16, 16], pl.FP16], idx11: pl.Tensor[[2, 16], pl.INT32], x13: pl.Tensor[[2, 1, 1], pl.FP32]) -> tuple[pl.Tensor[[2, 1, 1], pl.INT32], pl.Tensor[[2, 16], pl.FP16], pl.Tensor[[2, 1, 1], pl.INT32]]:
        d3: pl.Tensor[[2, 1, 1], pl.INT32] = pl.tensor.adds(pl.tensor.muls(x1, pl.const(2, pl.INT32)), pl.const(1, pl.INT32))
        t4: pl.Tensor[[2, 1, 1], pl.INT32] = pl.tensor.row_expand_div(x1, d3)
        t5: pl.Tensor[[2, 1, 1], pl.INT32] = pl.tensor.sub(x1, pl.const(1, pl.INT32))
        pl.system.bar_all()
        pl.system.bar_all()
        pl.system.bar_all()
        t6: pl.Tensor[[2, 1, 1], pl.INT32] = pl.tensor.add(x1, pl.const(1, pl.INT32))
        w10: pl.Tensor[[2, 1], pl.FP16] = pl.tensor.slice(pl.tensor.muls(x8, pl.const(0.5, pl.FP16)), [2, 1], [0, 0])
        t12: pl.Tensor[[2, 16], pl.FP16] = pl.tensor.gather(w10, idx11)
        rc15: pl.Tensor[[2, 1, 1], pl.INT32] = pl.tensor.cast(pl.tensor.muls(x13, pl.const(0.5, pl.FP32)), target_type=pl.INT32, mode="round")
        return rc15, t12, t4

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[2, 1, 1], pl.INT32], kernel0_x7: pl.Tensor[[2, 1, 1], pl.BF16], kernel0_x8: pl.Tensor[[16, 16], pl.FP16], kernel0_idx11: pl.Tensor[[2, 16], pl.INT32], kernel0_x13: pl.Tensor[[2, 1, 1], pl.FP32]) -> tuple[pl.Tensor[[2, 1, 1], pl.INT32], pl.Tensor[[2, 16], pl.FP16], pl.Tensor[[2, 1, 1], pl.INT32]]:
        kernel0_outs: tuple[pl.Tensor[[2, 1, 1], pl.INT32], pl.Tensor[[2, 16], pl.FP16], pl.Tensor[[2, 1, 1], pl.INT32]] = self.kernel0(kernel0_x1, kernel0_x7, kernel0_x8, kernel0_idx11, kernel0_x13)
        kernel0_out0: pl.Tensor[[2, 1, 1], pl.INT32] = kernel0_outs[0]
        kernel0_out1: pl.Tensor[[2, 16], pl.FP16] = kernel0_outs[1]
        kernel0_out2: pl.Tensor[[2, 1, 1], pl.INT32] = kernel0_outs[2]
        return kernel0_out0, kernel0_out1, kernel0_out2
