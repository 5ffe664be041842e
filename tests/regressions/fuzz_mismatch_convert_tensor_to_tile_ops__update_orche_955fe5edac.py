# fuzz-regression: mismatch (simulator mismatch)
# blamed: convert-tensor-to-tile-ops..update-orchestration-call-sites
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   ret2: MISMATCH at [0, 0]: compiled 0x4769c5da, interpreter 0x44a58dbc (1 of 1 elements differ)
#   the output of update-orchestration-call-sites, interpreted, already differs:
#   ret2: MISMATCH at [0, 0]: compiled 0x4769c5da, interpreter 0x44a58dbc (1 of 1 elements differ)
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# fixed: ConvertTensorToTileOps narrows a tile result to the tensor result's valid region whatever
# the shapes (it did only for boxed ones): tensor.matmul_acc's result is its re-validated [1, 1]
# accumulator, tile.matmul_acc's is valid over the whole product, so col_max read 16 rows
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, a1: pl.Tensor[[300, 16], pl.FP16], b2: pl.Tensor[[16, 128], pl.FP16]) -> pl.Tensor[[300, 128], pl.FP32]:
        c3: pl.Tensor[[300, 128], pl.FP32] = pl.tensor.matmul(a1, b2, out_dtype=pl.FP32)
        return c3

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, x1: pl.Tensor[[16], pl.FP32]) -> pl.Tensor[[16], pl.FP32]:
        pl.system.bar_all()
        t2: pl.Tensor[[16], pl.FP32] = pl.tensor.abs(x1)
        pl.system.bar_all()
        t3: pl.Tensor[[16], pl.FP32] = pl.tensor.abs(x1)
        return t3

    @pl.function(type=pl.FunctionType.InCore)
    def kernel2(self, a1: pl.Tensor[[16, 16], pl.FP16], b2: pl.Tensor[[16, 16], pl.FP16], a5: pl.Tensor[[16, 16], pl.FP16], b6: pl.Tensor[[16, 16], pl.FP16]) -> pl.Tensor[[1, 16], pl.FP32, pl.TensorView(valid_shape=[1, 1])]:
        c4: pl.Tensor[[16, 16], pl.FP32, pl.TensorView(valid_shape=[1, 1])] = pl.tensor.set_validshape(pl.tensor.matmul(a1, b2, out_dtype=pl.FP32), 1, 1)
        c7: pl.Tensor[[16, 16], pl.FP32, pl.TensorView(valid_shape=[1, 1])] = pl.tensor.matmul_acc(c4, a5, b6)
        pl.system.bar_all()
        t8: pl.Tensor[[1, 16], pl.FP32, pl.TensorView(valid_shape=[1, 1])] = pl.tensor.col_max(c7)
        return t8

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_a1: pl.Tensor[[300, 16], pl.FP16], kernel0_b2: pl.Tensor[[16, 128], pl.FP16], kernel1_x1: pl.Tensor[[16], pl.FP32], kernel2_a1: pl.Tensor[[16, 16], pl.FP16], kernel2_b2: pl.Tensor[[16, 16], pl.FP16], kernel2_a5: pl.Tensor[[16, 16], pl.FP16], kernel2_b6: pl.Tensor[[16, 16], pl.FP16]) -> tuple[pl.Tensor[[300, 128], pl.FP32], pl.Tensor[[16], pl.FP32], pl.Tensor[[1, 16], pl.FP32, pl.TensorView(valid_shape=[1, 1])]]:
        kernel0_out: pl.Tensor[[300, 128], pl.FP32] = self.kernel0(kernel0_a1, kernel0_b2)
        kernel1_out: pl.Tensor[[16], pl.FP32] = self.kernel1(kernel1_x1)
        kernel2_out: pl.Tensor[[1, 16], pl.FP32, pl.TensorView(valid_shape=[1, 1])] = self.kernel2(kernel2_a1, kernel2_b2, kernel2_a5, kernel2_b6)
        return kernel0_out, kernel1_out, kernel2_out
