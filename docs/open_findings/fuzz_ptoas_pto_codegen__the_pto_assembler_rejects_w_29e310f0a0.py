# fuzz-regression: ptoas (PTO assembler)
# blamed: pto-codegen (the PTO assembler rejects what it emits)
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   PTOAS (--pto-arch=a3) rejects the kernel:
#   loc("/tmp/fuzz-ptoas-04mc9x2n/k.pto":15:5): error: 'pto.tmrgsort' op expects blockLen > 0 and multiple of 64
#   Error: Failed to parse MLIR.
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.FP32]) -> pl.Tensor[[1, 16], pl.FP32]:
        t2: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.mrgsort_format1(x1, pl.const(2, pl.INT32))
        return t2

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.FP32]) -> pl.Tensor[[1, 16], pl.FP32]:
        kernel0_out: pl.Tensor[[1, 16], pl.FP32] = self.kernel0(kernel0_x1)
        return kernel0_out
