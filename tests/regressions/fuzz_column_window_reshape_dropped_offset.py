# fuzz-regression: mismatch (simulator mismatch)
# blamed: memory planning / codegen / simulator (after L0Tiled)
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   ret0: MISMATCH at [0, 0]: compiled 0x415b, interpreter 0xd54a (1 of 1 elements differ)
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# fixed: LegalizeVecLayouts reshaped the [2, 1] column window s4 to [1, 2] itself, a handle at the
# base of t3's buffer (the window's row offset dropped); it now slices t3's row view, and
# ViewLegality rejects a reshape of a window view.
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[16, 1], pl.FP32]) -> pl.Tensor[[2, 1], pl.FP16, pl.TensorView(valid_shape=[1, 1])]:
        c2: pl.Tensor[[16, 1], pl.FP16] = pl.tensor.cast(x1, target_type=pl.FP16, mode="floor")
        t3: pl.Tensor[[16, 1], pl.FP16] = pl.tensor.neg(c2)
        s4: pl.Tensor[[2, 1], pl.FP16, pl.TensorView(valid_shape=[1, 1])] = pl.tensor.slice(t3, [2, 1], [1, 0], [1, 1])
        t5: pl.Tensor[[2, 1], pl.FP16, pl.TensorView(valid_shape=[1, 1])] = pl.tensor.adds(s4, pl.const(0.5, pl.FP16))
        return t5

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[16, 1], pl.FP32]) -> pl.Tensor[[2, 1], pl.FP16, pl.TensorView(valid_shape=[1, 1])]:
        kernel0_out: pl.Tensor[[2, 1], pl.FP16, pl.TensorView(valid_shape=[1, 1])] = self.kernel0(kernel0_x1)
        return kernel0_out
