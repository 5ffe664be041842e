# fuzz-regression: interpreter-error (interpreter fault)
# blamed: interpreter
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   InterpreterError: <fuzz>:42:43: error: [Interpreter] tensor.matmul: left operand has K = 16 valid columns but the right one only 1 valid rows
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.INT32], x6: pl.Tensor[[16], pl.INT32]) -> tuple[pl.Tensor[[1, 16], pl.INT32, pl.TensorView(valid_shape=[1, 1])], pl.Tensor[[1, 16], pl.INT32, pl.TensorView(valid_shape=[1, 1])]]:
        t2: pl.Scalar[pl.INDEX] = pl.tensor.get_block_idx()
        t3: pl.Tensor[[1, 16], pl.INT32, pl.TensorView(valid_shape=[1, 1])] = pl.tensor.set_validshape(x1, 1, 1)
        pl.system.bar_all()
        t4: pl.Scalar[pl.INDEX] = pl.tensor.get_block_idx()
        t5: pl.Tensor[[1, 16], pl.INT32, pl.TensorView(valid_shape=[1, 1])] = pl.tensor.col_max(t3)
        pl.system.syncall(core_type="aiv_only")
        t7: pl.Tensor[[1, 16], pl.INT32, pl.TensorView(valid_shape=[1, 1])] = pl.tensor.col_max(t3)
        return t7, t5

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, x1: pl.Tensor[[16], pl.INT32]) -> pl.Tensor[[16], pl.INT32]:
        t2: pl.Tensor[[16], pl.INT32] = pl.tensor.muls(x1, pl.const(1, pl.INT32))
        n3: pl.Scalar[pl.INDEX] = pl.tensor.dim(t2, axis=0)
        n4: pl.Scalar[pl.INDEX] = n3 * 2
        pl.system.bar_all()
        t5: pl.Scalar[pl.INDEX] = pl.tensor.get_block_idx()
        pl.system.bar_all()
        t6: pl.Scalar[pl.INDEX] = pl.tensor.get_block_idx()
        return t2

    @pl.function(type=pl.FunctionType.InCore)
    def kernel2(self, x1: pl.Tensor[[8, 16], pl.FP32], idx2: pl.Tensor[[1, 8], pl.INT32], x4: pl.Tensor[[16], pl.INT32], x5: pl.Tensor[[16], pl.INT32], x6: pl.Tensor[[16], pl.INT32], x7: pl.Tensor[[1, 16], pl.FP32], x8: pl.Tensor[[8, 16], pl.FP32], x13: pl.Tensor[[16], pl.INT32]) -> pl.Tensor[[8, 16], pl.FP32]:
        t3: pl.Tensor[[8, 16], pl.FP32] = pl.tensor.scatter_update(x1, index=idx2, src=x1)
        pl.system.syncall(x6, pl.const(1, pl.INT32), mode="soft")
        t9: pl.Tensor[[8, 16], pl.FP32] = pl.tensor.cast(x1, target_type=pl.FP32)
        pl.system.bar_all()
        t10: pl.Tensor[[8, 16], pl.FP32] = pl.tensor.add(x1, pl.const(0.5, pl.FP32))
        pl.system.bar_all()
        t11: pl.Tensor[[8, 16], pl.FP32] = pl.tensor.log(x1, high_precision=True)
        pl.system.bar_all()
        t12: pl.Tensor[[8, 16], pl.FP32, pl.TensorView(valid_shape=[1, 1])] = pl.tensor.set_validshape(x1, 1, 1)
        pl.system.syncall(x13, pl.const(1, pl.INT32), mode="soft")
        t14: pl.Tensor[[8, 8], pl.FP32] = pl.tensor.matmul(x1, t12, a_trans=False, b_trans=True, out_dtype=pl.FP32)
        p16: pl.Tensor[[8, 16], pl.FP32] = pl.tensor.add(pl.tensor.set_validshape(x1, 1, 1), x1)
        return p16

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.INT32], kernel0_x6: pl.Tensor[[16], pl.INT32], kernel1_x1: pl.Tensor[[16], pl.INT32], kernel2_x1: pl.Tensor[[8, 16], pl.FP32], kernel2_idx2: pl.Tensor[[1, 8], pl.INT32], kernel2_x4: pl.Tensor[[16], pl.INT32], kernel2_x5: pl.Tensor[[16], pl.INT32], kernel2_x6: pl.Tensor[[16], pl.INT32], kernel2_x7: pl.Tensor[[1, 16], pl.FP32], kernel2_x8: pl.Tensor[[8, 16], pl.FP32], kernel2_x13: pl.Tensor[[16], pl.INT32]) -> tuple[pl.Tensor[[1, 16], pl.INT32, pl.TensorView(valid_shape=[1, 1])], pl.Tensor[[1, 16], pl.INT32, pl.TensorView(valid_shape=[1, 1])], pl.Tensor[[16], pl.INT32], pl.Tensor[[8, 16], pl.FP32]]:
        kernel0_outs: tuple[pl.Tensor[[1, 16], pl.INT32, pl.TensorView(valid_shape=[1, 1])], pl.Tensor[[1, 16], pl.INT32, pl.TensorView(valid_shape=[1, 1])]] = self.kernel0(kernel0_x1, kernel0_x6)
        kernel0_out0: pl.Tensor[[1, 16], pl.INT32, pl.TensorView(valid_shape=[1, 1])] = kernel0_outs[0]
        kernel0_out1: pl.Tensor[[1, 16], pl.INT32, pl.TensorView(valid_shape=[1, 1])] = kernel0_outs[1]
        kernel1_out: pl.Tensor[[16], pl.INT32] = self.kernel1(kernel1_x1)
        kernel2_out: pl.Tensor[[8, 16], pl.FP32] = self.kernel2(kernel2_x1, kernel2_idx2, kernel2_x4, kernel2_x5, kernel2_x6, kernel2_x7, kernel2_x8, kernel2_x13)
        return kernel0_out0, kernel0_out1, kernel1_out, kernel2_out
