# fuzz-regression: mismatch (simulator mismatch)
# blamed: convert-tensor-to-tile-ops..update-orchestration-call-sites
# input-seed: 65536
# backend: Ascend950
# pipeline: default
# verdict when found:
#   ret1: MISMATCH at [0]: compiled 0x4003d76b, interpreter 0x43302f75 (32 of 32 elements differ)
#   the output of update-orchestration-call-sites, interpreted, already differs:
#   ret1: MISMATCH at [0]: compiled 0x4003d76b, interpreter 0x43302f75 (32 of 32 elements differ)
# (replayed on Ascend950 since PTOAS's A2/A3 tor takes 8- and 16-bit elements only)
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 65536 --backend Ascend950
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, a1: pl.Tensor[[128, 512], pl.INT8], b2: pl.Tensor[[512, 64], pl.INT8]) -> pl.Tensor[[128, 64], pl.INT32]:
        c3: pl.Tensor[[128, 64], pl.INT32] = pl.tensor.matmul(a1, b2)
        return c3

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, y1: pl.Tensor[[32], pl.FP32], x2: pl.Tensor[[32], pl.FP32], x4: pl.Tensor[[32], pl.FP32], x6: pl.Tensor[[32], pl.FP32], x12: pl.Tensor[[32], pl.UINT32], x13: pl.Tensor[[32], pl.INT32], x14: pl.Tensor[[32], pl.INT32], x15: pl.Tensor[[32], pl.UINT32], x16: pl.Tensor[[32], pl.INT32], x17: pl.Tensor[[32], pl.FP32], x24: pl.Tensor[[32], pl.FP32]) -> pl.Tensor[[32], pl.FP32]:
        t3: pl.Tensor[[32], pl.FP32] = pl.tensor.adds(x2, pl.const(3.0, pl.FP32))
        t5: pl.Tensor[[32], pl.FP32] = pl.tensor.adds(x4, pl.const(0.001, pl.FP32))
        t7: pl.Tensor[[32], pl.FP32] = pl.tensor.adds(x6, pl.const(0.001, pl.FP32))
        for i8, (acc9, acc10, acc11,) in pl.range(1, init_values=(t3, t5, t7,)):
            t18: pl.Tensor[[1], pl.FP32] = pl.tensor.row_min(acc10)
            t19: pl.Tensor[[32], pl.FP32] = pl.tensor.expand_clone(y1, acc11)
            for i20, (acc21,) in pl.range(2, init_values=(acc9,)):
                t22: pl.Tensor[[32], pl.FP32] = pl.tensor.part_add(acc9, acc11)
                t23: pl.Tensor[[32], pl.FP32] = pl.tensor.add(acc21, pl.const(2.0, pl.FP32))
                if i20 == 2:
                    t25: pl.Tensor[[32], pl.FP32] = pl.tensor.add(acc9, x24)
                    t26: pl.Tensor[[32], pl.FP32] = pl.tensor.part_max(acc9, t25)
                    phi28 = pl.yield_(t23)
                else:
                    t27: pl.Tensor[[32], pl.FP32] = pl.tensor.part_max(acc10, acc21)
                    phi28 = pl.yield_(t23)
                out29 = pl.yield_(t22)
            if i8 == 2:
                t30: pl.Tensor[[32], pl.FP32] = pl.tensor.minimum(t19, acc9)
                phi32 = pl.yield_(acc11)
            else:
                t31: pl.Tensor[[32], pl.FP32] = pl.tensor.relu(t19)
                phi32 = pl.yield_(t31)
            out33, out34, out35 = pl.yield_(acc11, acc11, phi32)
        t36: pl.Tensor[[32], pl.FP32] = pl.tensor.add(out33, out34)
        return t36

    @pl.function(type=pl.FunctionType.InCore)
    def kernel2(self, x1: pl.Tensor[[3, 16], pl.UINT32], x2: pl.Tensor[[3, 16], pl.UINT32], x4: pl.Tensor[[1, 16], pl.UINT32], x5: pl.Tensor[[3, 1], pl.UINT32], big11: pl.Tensor[[4, 24], pl.UINT32]) -> pl.Tensor[[4, 24], pl.UINT32]:
        t3: pl.Tensor[[3, 16], pl.UINT32] = pl.tensor.muls(x2, pl.const(0, pl.UINT32))
        t6: pl.Tensor[[3, 16], pl.UINT32] = pl.tensor.or_(x1, x2)
        d7: pl.Tensor[[3, 1], pl.UINT32] = pl.tensor.ors(x5, pl.const(1, pl.UINT32))
        t8: pl.Tensor[[3, 16], pl.UINT32] = pl.tensor.row_expand_div(t3, d7)
        t9: pl.Scalar[pl.INDEX] = pl.tensor.get_block_num()
        t10: pl.Tensor[[3, 16], pl.UINT32] = pl.tensor.muls(t3, pl.const(7, pl.UINT32))
        asm12: pl.Tensor[[4, 24], pl.UINT32] = pl.tensor.assemble(big11, t3, [1, 2])
        t13: pl.Tensor[[4, 24], pl.UINT32] = pl.tensor.muls(big11, pl.const(3, pl.UINT32))
        return t13

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_a1: pl.Tensor[[128, 512], pl.INT8], kernel0_b2: pl.Tensor[[512, 64], pl.INT8], kernel1_y1: pl.Tensor[[32], pl.FP32], kernel1_x2: pl.Tensor[[32], pl.FP32], kernel1_x4: pl.Tensor[[32], pl.FP32], kernel1_x6: pl.Tensor[[32], pl.FP32], kernel1_x12: pl.Tensor[[32], pl.UINT32], kernel1_x13: pl.Tensor[[32], pl.INT32], kernel1_x14: pl.Tensor[[32], pl.INT32], kernel1_x15: pl.Tensor[[32], pl.UINT32], kernel1_x16: pl.Tensor[[32], pl.INT32], kernel1_x17: pl.Tensor[[32], pl.FP32], kernel1_x24: pl.Tensor[[32], pl.FP32], kernel2_x1: pl.Tensor[[3, 16], pl.UINT32], kernel2_x2: pl.Tensor[[3, 16], pl.UINT32], kernel2_x4: pl.Tensor[[1, 16], pl.UINT32], kernel2_x5: pl.Tensor[[3, 1], pl.UINT32], kernel2_big11: pl.Tensor[[4, 24], pl.UINT32]) -> tuple[pl.Tensor[[128, 64], pl.INT32], pl.Tensor[[32], pl.FP32], pl.Tensor[[4, 24], pl.UINT32]]:
        kernel0_out: pl.Tensor[[128, 64], pl.INT32] = self.kernel0(kernel0_a1, kernel0_b2)
        kernel1_out: pl.Tensor[[32], pl.FP32] = self.kernel1(kernel1_y1, kernel1_x2, kernel1_x4, kernel1_x6, kernel1_x12, kernel1_x13, kernel1_x14, kernel1_x15, kernel1_x16, kernel1_x17, kernel1_x24)
        kernel2_out: pl.Tensor[[4, 24], pl.UINT32] = self.kernel2(kernel2_x1, kernel2_x2, kernel2_x4, kernel2_x5, kernel2_big11)
        return kernel0_out, kernel1_out, kernel2_out
