# fuzz-regression: interpreter-error (interpreter fault)
# blamed: interpreter
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   InterpreterError: <fuzz>:29:46: error: [Interpreter] tensor.shl: shl: shift count outside [0, 32) at element 0 (flat, row-major index)
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.INT32]) -> pl.Tensor[[1, 16], pl.INT32, pl.TensorView(valid_shape=[1, 1])]:
        t3: pl.Tensor[[1, 16], pl.INT32, pl.TensorView(valid_shape=[1, 1])] = pl.tensor.col_max(pl.tensor.set_validshape(x1, 1, 1))
        pl.system.bar_all()
        t4: pl.Scalar[pl.INDEX] = pl.tensor.get_block_num()
        pl.system.bar_all()
        t5: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.reinterpret_view(x1, dtype=pl.FP32, shape=[1, 16])
        return t3

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, x1: pl.Tensor[[16, 16], pl.INT32], x4: pl.Tensor[[1, 16], pl.INT32]) -> tuple[pl.Tensor[[1, 1], pl.INT32], pl.Tensor[[16, 16], pl.INT32]]:
        t2: pl.Scalar[pl.INDEX] = pl.tensor.dim(x1, axis=0)
        pl.system.bar_all()
        t3: pl.Tensor[[16, 16], pl.INT32, pl.TensorView(valid_shape=[1, 1])] = pl.tensor.set_validshape(x1, 1, 1)
        t5: pl.Scalar[pl.INDEX] = pl.tensor.get_block_idx()
        t6: pl.Scalar[pl.INDEX] = pl.tensor.get_block_num()
        pl.system.bar_all()
        t7: pl.Scalar[pl.INDEX] = pl.tensor.get_block_num()
        pl.system.bar_all()
        t8: pl.Scalar[pl.INDEX] = pl.tensor.get_block_num()
        r10: pl.Tensor[[1, 1], pl.INT32] = pl.tensor.col_max(pl.tensor.slice(x1, [1, 1], [0, 0], [1, 1]))
        p12: pl.Tensor[[16, 16], pl.INT32] = pl.tensor.shl(pl.tensor.set_validshape(x1, 1, 1), x1)
        return r10, p12

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.INT32], kernel1_x1: pl.Tensor[[16, 16], pl.INT32], kernel1_x4: pl.Tensor[[1, 16], pl.INT32]) -> tuple[pl.Tensor[[1, 16], pl.INT32, pl.TensorView(valid_shape=[1, 1])], pl.Tensor[[1, 1], pl.INT32], pl.Tensor[[16, 16], pl.INT32]]:
        kernel0_out: pl.Tensor[[1, 16], pl.INT32, pl.TensorView(valid_shape=[1, 1])] = self.kernel0(kernel0_x1)
        kernel1_outs: tuple[pl.Tensor[[1, 1], pl.INT32], pl.Tensor[[16, 16], pl.INT32]] = self.kernel1(kernel1_x1, kernel1_x4)
        kernel1_out0: pl.Tensor[[1, 1], pl.INT32] = kernel1_outs[0]
        kernel1_out1: pl.Tensor[[16, 16], pl.INT32] = kernel1_outs[1]
        return kernel0_out, kernel1_out0, kernel1_out1
