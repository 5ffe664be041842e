# fuzz-regression: poison (poison read)
# blamed: convert-tensor-to-tile-ops..update-orchestration-call-sites
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:25:44: error: [Simulator] pto.tgather reads 8[21, 9], which no instruction has written (its bytes still hold the 0xFF poison pattern)
#       hint: the program reads uninitialised memory: a missing load, a wrong address, or padding consumed as data
#   the output of update-orchestration-call-sites, interpreted, already differs:
#   ret2: MISMATCH at [1, 13]: compiled 0xffffffff, interpreter 0x00000000 (1 of 320 elements differ)
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[16, 16], pl.INT32]) -> tuple[pl.Tensor[[16, 16], pl.INT32], pl.Tensor[[1, 1], pl.INT32]]:
        t2: pl.Tensor[[16, 16], pl.INT32] = pl.tensor.muls(x1, pl.const(1, pl.INT32))
        s3: pl.Scalar[pl.INT32] = pl.tensor.read(t2, [0, 0])
        s4: pl.Scalar[pl.INT32] = s3 + pl.const(3, pl.INT32)
        t5: pl.Tensor[[16, 16], pl.INT32] = pl.tensor.adds(t2, s4)
        n6: pl.Scalar[pl.INDEX] = pl.tensor.dim(t2, axis=0)
        n7: pl.Scalar[pl.INDEX] = n6 * 2
        pl.system.bar_all()
        pl.system.bar_all()
        r9: pl.Tensor[[1, 1], pl.INT32] = pl.tensor.col_max(pl.tensor.slice(x1, [1, 1], [0, 3], [1, 1]))
        return t5, r9

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, a1: pl.Tensor[[20, 16], pl.FP16], b2: pl.Tensor[[16, 16], pl.FP16], a4: pl.Tensor[[20, 16], pl.FP16], b5: pl.Tensor[[16, 16], pl.FP16], x7: pl.Tensor[[20, 16], pl.INT32]) -> pl.Tensor[[20, 16], pl.FP32]:
        c6: pl.Tensor[[20, 16], pl.FP32] = pl.tensor.matmul_acc(pl.tensor.matmul(a1, b2, out_dtype=pl.FP32), a4, b5)
        pl.system.bar_all()
        t8: pl.Tensor[[20, 16], pl.FP32] = pl.tensor.gather(c6, x7, dim=1)
        return t8

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[16, 16], pl.INT32], kernel1_a1: pl.Tensor[[20, 16], pl.FP16], kernel1_b2: pl.Tensor[[16, 16], pl.FP16], kernel1_a4: pl.Tensor[[20, 16], pl.FP16], kernel1_b5: pl.Tensor[[16, 16], pl.FP16], kernel1_x7: pl.Tensor[[20, 16], pl.INT32]) -> tuple[pl.Tensor[[16, 16], pl.INT32], pl.Tensor[[1, 1], pl.INT32], pl.Tensor[[20, 16], pl.FP32]]:
        kernel0_outs: tuple[pl.Tensor[[16, 16], pl.INT32], pl.Tensor[[1, 1], pl.INT32]] = self.kernel0(kernel0_x1)
        kernel0_out0: pl.Tensor[[16, 16], pl.INT32] = kernel0_outs[0]
        kernel0_out1: pl.Tensor[[1, 1], pl.INT32] = kernel0_outs[1]
        kernel1_out: pl.Tensor[[20, 16], pl.FP32] = self.kernel1(kernel1_a1, kernel1_b2, kernel1_a4, kernel1_b5, kernel1_x7)
        return kernel0_out0, kernel0_out1, kernel1_out
