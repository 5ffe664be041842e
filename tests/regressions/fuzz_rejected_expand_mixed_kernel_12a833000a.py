# fuzz-regression: rejected (compile error)
# blamed: expand-mixed-kernel
# input-seed: 65536
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:22:5: error: [ExpandMixedKernel] GM tensor `big11` is written on the cube core (AIC) and also accessed on the vector core (AIV); the two cores run concurrently and nothing orders their GM accesses
#       hint: write each output tensor from one core only (store the vector result from the vector core and the cube result from the cube core), or split the work into two kernels
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 65536 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[16, 16], pl.FP32], x5: pl.Tensor[[16, 16], pl.FP32], x7: pl.Tensor[[16, 1], pl.FP32], x10: pl.Tensor[[1, 16], pl.FP32], out13: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        l2: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        t3: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[1, 1])] = pl.tile.reshape(l2, [16, 16], [1, 1])
        t4: pl.Tile[[16, 16], pl.FP32] = pl.tile.minimums(l2, pl.const(0.5, pl.FP32))
        l6: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x5, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        l8: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.load(x7, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        t9: pl.Tile[[16, 16], pl.FP32] = pl.tile.row_expand_min(l2, l8)
        l11: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x10, [0, 0], [1, 16], target_memory=pl.Mem.Vec)
        t12: pl.Tile[[16, 16], pl.FP32] = pl.tile.part_min(t3, l2)
        st14: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(t12, [0, 0], out13)
        return st14

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, x1: pl.Tensor[[16, 16], pl.FP16], x5: pl.Tensor[[1, 16], pl.FP16], x6: pl.Tensor[[16, 1], pl.FP16], big11: pl.Tensor[[20, 16], pl.FP32]) -> tuple[pl.Tensor[[16, 16], pl.FP16], pl.Tensor[[13, 1], pl.FP16, pl.TensorView(valid_shape=[8, 1])], pl.Tensor[[16, 16], pl.FP32]]:
        t2: pl.Tensor[[16, 16], pl.FP16] = pl.tensor.part_min(x1, x1)
        t3: pl.Tensor[[1, 64], pl.FP32] = pl.tensor.create([1, 64], dtype=pl.FP32)
        t4: pl.Tensor[[16, 16], pl.FP16] = pl.tensor.maximum(t2, pl.const(-1.5, pl.FP16))
        t7: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.matmul(t4, t4, a_trans=False, b_trans=False, out_dtype=pl.FP32)
        t8: pl.Tensor[[16, 16], pl.FP16] = pl.tensor.col_expand_sub(t4, x5)
        w9: pl.Tensor[[13, 12], pl.FP16, pl.TensorView(valid_shape=[8, 11])] = pl.tensor.slice(x1, [13, 12], [3, 0], [8, 11])
        r10: pl.Tensor[[13, 1], pl.FP16, pl.TensorView(valid_shape=[8, 1])] = pl.tensor.row_sum(w9)
        win12: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.slice(big11, [16, 16], [1, 0])
        asm13: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(win12, t7, [0, 0])
        return t8, r10, asm13

    @pl.function(type=pl.FunctionType.InCore)
    def kernel2(self, x1: pl.Tensor[[16, 32], pl.FP32], k2: pl.Scalar[pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        s3: pl.Scalar[pl.FP32] = pl.tensor.read(x1, [15, 23])
        s4: pl.Scalar[pl.FP32] = s3
        t5: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.subs(x1, s4)
        sc6: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.adds(t5, k2)
        return sc6

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[16, 16], pl.FP32], kernel0_x5: pl.Tensor[[16, 16], pl.FP32], kernel0_x7: pl.Tensor[[16, 1], pl.FP32], kernel0_x10: pl.Tensor[[1, 16], pl.FP32], kernel1_x1: pl.Tensor[[16, 16], pl.FP16], kernel1_x5: pl.Tensor[[1, 16], pl.FP16], kernel1_x6: pl.Tensor[[16, 1], pl.FP16], kernel1_big11: pl.Tensor[[20, 16], pl.FP32], kernel2_x1: pl.Tensor[[16, 32], pl.FP32], kernel2_k2: pl.Scalar[pl.FP32]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP16], pl.Tensor[[13, 1], pl.FP16, pl.TensorView(valid_shape=[8, 1])], pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 32], pl.FP32]]:
        kernel0_out13: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.create([16, 16], dtype=pl.FP32)
        kernel0_out: pl.Tensor[[16, 16], pl.FP32] = self.kernel0(kernel0_x1, kernel0_x5, kernel0_x7, kernel0_x10, kernel0_out13)
        kernel1_outs: tuple[pl.Tensor[[16, 16], pl.FP16], pl.Tensor[[13, 1], pl.FP16, pl.TensorView(valid_shape=[8, 1])], pl.Tensor[[16, 16], pl.FP32]] = self.kernel1(kernel1_x1, kernel1_x5, kernel1_x6, kernel1_big11)
        kernel1_out0: pl.Tensor[[16, 16], pl.FP16] = kernel1_outs[0]
        kernel1_out1: pl.Tensor[[13, 1], pl.FP16, pl.TensorView(valid_shape=[8, 1])] = kernel1_outs[1]
        kernel1_out2: pl.Tensor[[16, 16], pl.FP32] = kernel1_outs[2]
        kernel2_out: pl.Tensor[[16, 32], pl.FP32] = self.kernel2(kernel2_x1, kernel2_k2)
        return kernel0_out, kernel1_out0, kernel1_out1, kernel1_out2, kernel2_out
