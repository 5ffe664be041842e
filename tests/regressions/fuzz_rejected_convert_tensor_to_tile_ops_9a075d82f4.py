# fuzz-regression: rejected (compile error)
# blamed: convert-tensor-to-tile-ops
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:18:78: error: [TypeDeduction] tile.row_expand: operand 'rhs' (argument 1) expected shape [32, 1] (one value per row), got [20, 1]
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
    def kernel1(self, a1: pl.Tensor[[20, 16], pl.FP16], b2: pl.Tensor[[16, 1], pl.FP16], x6: pl.Tensor[[1, 1], pl.FP32]) -> tuple[pl.Tensor[[20, 1], pl.FP32, pl.TensorView(valid_shape=[2, 1])], pl.Tensor[[20, 1], pl.FP32, pl.TensorView(valid_shape=[2, 1])]]:
        c4: pl.Tensor[[20, 1], pl.FP32] = pl.tensor.matmul(pl.tensor.slice(a1, [20, 16], [0, 0], [2, 16]), b2, out_dtype=pl.FP32)
        c5: pl.Tensor[[20, 1], pl.FP32, pl.TensorView(valid_shape=[2, 1])] = pl.tensor.set_validshape(c4, 2, 1)
        t7: pl.Tensor[[20, 1], pl.FP32, pl.TensorView(valid_shape=[2, 1])] = pl.tensor.col_expand(c5, x6)
        return t7, c5

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.INT8], kernel1_a1: pl.Tensor[[20, 16], pl.FP16], kernel1_b2: pl.Tensor[[16, 1], pl.FP16], kernel1_x6: pl.Tensor[[1, 1], pl.FP32]) -> tuple[pl.Tensor[[1, 16], pl.INT8], pl.Tensor[[20, 1], pl.FP32, pl.TensorView(valid_shape=[2, 1])], pl.Tensor[[20, 1], pl.FP32, pl.TensorView(valid_shape=[2, 1])]]:
        kernel0_out4: pl.Tensor[[1, 16], pl.INT8] = pl.tensor.create([1, 16], dtype=pl.INT8)
        kernel0_out: pl.Tensor[[1, 16], pl.INT8] = self.kernel0(kernel0_x1, kernel0_out4)
        kernel1_outs: tuple[pl.Tensor[[20, 1], pl.FP32, pl.TensorView(valid_shape=[2, 1])], pl.Tensor[[20, 1], pl.FP32, pl.TensorView(valid_shape=[2, 1])]] = self.kernel1(kernel1_a1, kernel1_b2, kernel1_x6)
        kernel1_out0: pl.Tensor[[20, 1], pl.FP32, pl.TensorView(valid_shape=[2, 1])] = kernel1_outs[0]
        kernel1_out1: pl.Tensor[[20, 1], pl.FP32, pl.TensorView(valid_shape=[2, 1])] = kernel1_outs[1]
        return kernel0_out, kernel1_out0, kernel1_out1
