# fuzz-regression: rejected (compile error)
# blamed: convert-tensor-to-tile-ops
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:17:75: error: [TypeDeduction] tile.col_expand_expdif: operand 'col' (argument 1) expected shape [1, 1] (one value per column), got [16, 16]
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.INT8], out4: pl.Out[pl.Tensor[[1, 16], pl.INT8]]) -> pl.Tensor[[1, 16], pl.INT8]:
        t3: pl.Tile[[1, 16], pl.INT8, pl.Mem.Vec, pl.TileView(valid_shape=[1, 1])] = pl.tile.set_validshape(pl.tile.load(x1, [0, 0], [1, 16], target_memory=pl.Mem.Vec), 1, 1)
        st5: pl.Tensor[[1, 16], pl.INT8] = pl.tile.store(t3, [0, 0], out4)
        return st5

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, a1: pl.Tensor[[16, 16], pl.FP16], b2: pl.Tensor[[16, 1], pl.FP16], x5: pl.Tensor[[16, 1], pl.FP32]) -> tuple[pl.Tensor[[16, 1], pl.FP32], pl.Tensor[[16, 1], pl.FP32]]:
        c3: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.matmul(a1, b2, out_dtype=pl.FP32)
        t6: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.col_expand_expdif(x5, pl.tensor.set_validshape(c3, 1, 1))
        return t6, c3

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.INT8], kernel1_a1: pl.Tensor[[16, 16], pl.FP16], kernel1_b2: pl.Tensor[[16, 1], pl.FP16], kernel1_x5: pl.Tensor[[16, 1], pl.FP32]) -> tuple[pl.Tensor[[1, 16], pl.INT8], pl.Tensor[[16, 1], pl.FP32], pl.Tensor[[16, 1], pl.FP32]]:
        kernel0_out4: pl.Tensor[[1, 16], pl.INT8] = pl.tensor.create([1, 16], dtype=pl.INT8)
        kernel0_out: pl.Tensor[[1, 16], pl.INT8] = self.kernel0(kernel0_x1, kernel0_out4)
        kernel1_outs: tuple[pl.Tensor[[16, 1], pl.FP32], pl.Tensor[[16, 1], pl.FP32]] = self.kernel1(kernel1_a1, kernel1_b2, kernel1_x5)
        kernel1_out0: pl.Tensor[[16, 1], pl.FP32] = kernel1_outs[0]
        kernel1_out1: pl.Tensor[[16, 1], pl.FP32] = kernel1_outs[1]
        return kernel0_out, kernel1_out0, kernel1_out1
