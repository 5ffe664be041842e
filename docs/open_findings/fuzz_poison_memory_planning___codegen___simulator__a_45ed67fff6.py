# fuzz-regression: poison (poison read)
# blamed: memory planning / codegen / simulator (after L0Tiled)
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:12:9: error: [Simulator] pto.tstore reads 1[0, 0], which no instruction has written (its bytes still hold the 0xFF poison pattern)
#       hint: the program reads uninitialised memory: a missing load, a wrong address, or padding consumed as data
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.FP32]) -> pl.Tensor[[1, 16], pl.FP32]:
        pl.system.bar_all()
        t2: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.mrgsort_format1(x1, pl.const(8, pl.INT32))
        return t2

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.FP32]) -> pl.Tensor[[1, 16], pl.FP32]:
        kernel0_out: pl.Tensor[[1, 16], pl.FP32] = self.kernel0(kernel0_x1)
        return kernel0_out
