# fuzz-regression: poison (poison read)
# blamed: convert-tensor-to-tile-ops..update-orchestration-call-sites
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:30:34: error: [Simulator] pto.tgetval reads 1[1, 0], which no instruction has written (its bytes still hold the 0xFF poison pattern)
#       hint: the program reads uninitialised memory: a missing load, a wrong address, or padding consumed as data
#   the output of update-orchestration-call-sites, interpreted, already differs:
#   ret3: MISMATCH at [0, 0]: compiled 0xffff, interpreter 0xbd4c (1 of 1 elements differ)
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.BF16], x3: pl.Tensor[[1, 16], pl.BF16], x7: pl.Tensor[[1, 1], pl.BF16], out12: pl.Out[pl.Tensor[[16, 1], pl.BF16]], out14: pl.Out[pl.Tensor[[1, 8], pl.FP32]]) -> tuple[pl.Tensor[[16, 1], pl.BF16], pl.Tensor[[1, 8], pl.FP32]]:
        l2: pl.Tile[[1, 16], pl.BF16, pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [1, 16], target_memory=pl.Mem.Vec)
        l4: pl.Tile[[1, 16], pl.BF16, pl.Mem.Vec] = pl.tile.load(x3, [0, 0], [1, 16], target_memory=pl.Mem.Vec)
        t5: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.reinterpret_view(l2, dtype=pl.FP32)
        pl.system.bar_all()
        t6: pl.Tile[[16, 1], pl.BF16, pl.Mem.Vec] = pl.tile.transpose_view(l2)
        pl.system.bar_all()
        t9: pl.Tile[[1, 16], pl.BF16] = pl.tile.row_expand(l2, pl.tile.load(x7, [0, 0], [1, 1], target_memory=pl.Mem.Vec))
        t10: pl.Tile[[16, 1], pl.BF16, pl.Mem.Vec] = pl.tile.transpose_view(l2)
        pl.system.bar_all()
        st13: pl.Tensor[[16, 1], pl.BF16] = pl.tile.store(pl.tile.transpose_view(l2), [0, 0], out12)
        st15: pl.Tensor[[1, 8], pl.FP32] = pl.tile.store(t5, [0, 0], out14)
        return st13, st15

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, x1: pl.Tensor[[8, 1], pl.FP16], x2: pl.Tensor[[8, 1], pl.FP16]) -> tuple[pl.Tensor[[8, 32], pl.UINT8], pl.Tensor[[1, 1], pl.FP16]]:
        t3: pl.Tensor[[8, 1], pl.FP16, pl.TensorView(valid_shape=[1, 1])] = pl.tensor.slice(x1, [8, 1], [0, 0], [1, 1])
        t4: pl.Tensor[[8, 32], pl.UINT8] = pl.tensor.cmp(x1, x1)
        pl.system.bar_all()
        t5: pl.Tensor[[8, 1], pl.FP16, pl.TensorView(valid_shape=[1, 1])] = pl.tensor.view(t3)
        t6: pl.Tensor[[8, 1], pl.BF16] = pl.tensor.reinterpret_view(x1, dtype=pl.BF16)
        t7: pl.Scalar[pl.FP16] = pl.tensor.read(t5, [1, 0])
        pl.system.bar_all()
        t8: pl.Tensor[[8, 1], pl.FP16] = pl.tensor.reinterpret_view(x1, dtype=pl.FP16)
        r10: pl.Tensor[[1, 1], pl.FP16] = pl.tensor.col_max(pl.tensor.slice(x1, [1, 1], [0, 0], [1, 1]))
        sc11: pl.Tensor[[1, 1], pl.FP16] = pl.tensor.adds(r10, t7)
        return t4, sc11

    @pl.function(type=pl.FunctionType.InCore)
    def kernel2(self, a1: pl.Tensor[[300, 16], pl.FP16], b2: pl.Tensor[[16, 128], pl.FP16]) -> pl.Tensor[[300, 128], pl.FP16]:
        c3: pl.Tensor[[300, 128], pl.FP16] = pl.tensor.matmul(a1, b2, out_dtype=pl.FP16)
        return c3

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.BF16], kernel0_x3: pl.Tensor[[1, 16], pl.BF16], kernel0_x7: pl.Tensor[[1, 1], pl.BF16], kernel1_x1: pl.Tensor[[8, 1], pl.FP16], kernel1_x2: pl.Tensor[[8, 1], pl.FP16], kernel2_a1: pl.Tensor[[300, 16], pl.FP16], kernel2_b2: pl.Tensor[[16, 128], pl.FP16]) -> tuple[pl.Tensor[[16, 1], pl.BF16], pl.Tensor[[1, 8], pl.FP32], pl.Tensor[[8, 32], pl.UINT8], pl.Tensor[[1, 1], pl.FP16], pl.Tensor[[300, 128], pl.FP16]]:
        kernel0_out12: pl.Tensor[[16, 1], pl.BF16] = pl.tensor.create([16, 1], dtype=pl.BF16)
        kernel0_out14: pl.Tensor[[1, 8], pl.FP32] = pl.tensor.create([1, 8], dtype=pl.FP32)
        kernel0_outs: tuple[pl.Tensor[[16, 1], pl.BF16], pl.Tensor[[1, 8], pl.FP32]] = self.kernel0(kernel0_x1, kernel0_x3, kernel0_x7, kernel0_out12, kernel0_out14)
        kernel0_out0: pl.Tensor[[16, 1], pl.BF16] = kernel0_outs[0]
        kernel0_out1: pl.Tensor[[1, 8], pl.FP32] = kernel0_outs[1]
        kernel1_outs: tuple[pl.Tensor[[8, 32], pl.UINT8], pl.Tensor[[1, 1], pl.FP16]] = self.kernel1(kernel1_x1, kernel1_x2)
        kernel1_out0: pl.Tensor[[8, 32], pl.UINT8] = kernel1_outs[0]
        kernel1_out1: pl.Tensor[[1, 1], pl.FP16] = kernel1_outs[1]
        kernel2_out: pl.Tensor[[300, 128], pl.FP16] = self.kernel2(kernel2_a1, kernel2_b2)
        return kernel0_out0, kernel0_out1, kernel1_out0, kernel1_out1, kernel2_out
