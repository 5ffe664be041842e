# fuzz-regression: verifier (verifier)
# blamed: convert-tensor-to-tile-ops
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   internal compiler error: Verification failed after 'ConvertTensorToTileOps' for properties {DefinedReads}
#   error: [ConvertTensorToTileOps] `convert-tensor-to-tile-ops` broke DefinedReads, which it does not declare in `invalidates` (it held before the pass) (the input was verified when it was loaded: this is a compiler bug)
#       hint: for pass authors: fix the pass, or declare the property in its `invalidates` so later passes re-establish it
#   <fuzz>:35:45: error: [DefinedReads] tile.minimum computes its result over its valid region [100, 32], so it reads `c5_tile_window` there, past `c5_tile_window`'s valid region; tile.cast wrote only [1, 32] of it: the elements beyond hold no data
#       hint: give the operands one valid shape (pl.set_validshape on the wider one), or fill the narrower one's padding first (pl.tile.fillpad), or load it at its full extent
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# fixed (agent-s): a matmul computes its lhs's valid rows by its rhs's valid columns only, at every
# level (cube_extents, languages/ops/tensor_ops.py): the program as found, whose tensor.minimum
# read c5 over [100, 32], is refused at that line by DefinedReads (tests/test_narrowed_matmul_operands.py);
# kept here with kernel2's minimum over the product's computed row, the program the generator now draws.
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[16], pl.FP32], x7: pl.Tensor[[16], pl.BF16], c8: pl.Tensor[[1, 16], pl.FP32], x11: pl.Tensor[[16, 12], pl.FP16], idx14: pl.Tensor[[2, 2], pl.INT32], idx15: pl.Tensor[[2, 2], pl.INT32], idx16: pl.Tensor[[2, 2], pl.INT32], idx17: pl.Tensor[[2, 2], pl.INT32], idx18: pl.Tensor[[2, 2], pl.INT32], idx19: pl.Tensor[[2, 2], pl.INT32], idx20: pl.Tensor[[1, 2], pl.INT32], idx21: pl.Tensor[[1, 2], pl.INT32], idx22: pl.Tensor[[1, 2], pl.INT32], idx24: pl.Tensor[[2, 2], pl.INT32], x25: pl.Tensor[[16, 12], pl.FP16], idx26: pl.Tensor[[16, 12], pl.INT32], idx28: pl.Tensor[[2, 2], pl.INT32], x29: pl.Tensor[[1, 2], pl.FP16], idx30: pl.Tensor[[2, 2], pl.INT32], x31: pl.Tensor[[2, 1], pl.FP16], idx32: pl.Tensor[[2, 2], pl.INT32], idx33: pl.Tensor[[2, 2], pl.INT32], idx34: pl.Tensor[[2, 2], pl.INT32], idx35: pl.Tensor[[2, 2], pl.INT32], idx36: pl.Tensor[[2, 2], pl.INT32], idx37: pl.Tensor[[2, 2], pl.INT32], idx38: pl.Tensor[[2, 2], pl.INT32], x39: pl.Tensor[[2, 1], pl.INT32], idx40: pl.Tensor[[2, 2], pl.INT32], idx41: pl.Tensor[[2, 2], pl.INT32], x42: pl.Tensor[[2, 1], pl.FP16], idx43: pl.Tensor[[2, 2], pl.INT32], idx44: pl.Tensor[[2, 2], pl.INT32], idx45: pl.Tensor[[2, 2], pl.INT32], x46: pl.Tensor[[1, 2], pl.FP16], idx47: pl.Tensor[[2, 2], pl.INT32], idx48: pl.Tensor[[2, 2], pl.INT32], idx49: pl.Tensor[[2, 2], pl.INT32], x50: pl.Tensor[[2, 1], pl.FP16], idx51: pl.Tensor[[2, 2], pl.INT32]) -> pl.Tensor[[1, 32], pl.UINT8, pl.TensorView(valid_shape=[1, 2])]:
        t2: pl.Tensor[[16], pl.FP32] = pl.tensor.muls(x1, pl.const(0.5, pl.FP32))
        n3: pl.Scalar[pl.INDEX] = pl.tensor.dim(x1, axis=0)
        n4: pl.Scalar[pl.INDEX] = n3 + 2
        pl.system.bar_all()
        t5: pl.Tensor[[16], pl.FP32] = pl.tensor.abs(x1)
        pl.system.bar_all()
        t6: pl.Tensor[[16], pl.FP32] = pl.tensor.abs(x1)
        mw10: pl.Tensor[[1, 32], pl.UINT8, pl.TensorView(valid_shape=[1, 2])] = pl.tensor.set_validshape(pl.tensor.cmp(c8, c8, cmp_type=0), 1, 2)
        w13: pl.Tensor[[2, 2], pl.FP16] = pl.tensor.slice(pl.tensor.muls(x11, pl.const(0.5, pl.FP16)), [2, 2], [0, 0])
        t23: pl.Tensor[[1, 2], pl.INT32] = pl.tensor.scatter(idx20, idx22, idx20)
        t27: pl.Tensor[[16, 12], pl.FP16] = pl.tensor.gather(x25, idx26, dim=0)
        return mw10

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, a1: pl.Tensor[[16, 32], pl.FP16], b2: pl.Tensor[[32, 16], pl.FP16]) -> tuple[pl.Tensor[[16, 16], pl.FP32, pl.TensorView(valid_shape=[1, 16])], pl.Tensor[[16, 16], pl.FP32, pl.TensorView(valid_shape=[1, 16])]]:
        c4: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.matmul(pl.tensor.set_validshape(a1, 1, 32), b2, out_dtype=pl.FP32)
        c5: pl.Tensor[[16, 16], pl.FP32, pl.TensorView(valid_shape=[1, 16])] = pl.tensor.set_validshape(c4, 1, 16)
        t7: pl.Tensor[[16, 16], pl.FP32, pl.TensorView(valid_shape=[1, 16])] = pl.tensor.add(c5, pl.tensor.exp(c5))
        return t7, c5

    @pl.function(type=pl.FunctionType.InCore)
    def kernel2(self, a1: pl.Tensor[[100, 272], pl.FP16], b2: pl.Tensor[[272, 32], pl.FP16], ws6: pl.Tensor[[16], pl.INT32], x7: pl.Tensor[[100, 32], pl.FP16]) -> tuple[pl.Tensor[[100, 32], pl.FP16, pl.TensorView(valid_shape=[1, 32])], pl.Tensor[[100, 32], pl.FP16, pl.TensorView(valid_shape=[1, 32])]]:
        c4: pl.Tensor[[100, 32], pl.FP16] = pl.tensor.matmul(pl.tensor.set_validshape(a1, 1, 272), b2)
        c5: pl.Tensor[[100, 32], pl.FP16, pl.TensorView(valid_shape=[1, 32])] = pl.tensor.set_validshape(c4, 1, 32)
        pl.system.syncall(ws6, mode="soft", core_type="mix")
        t8: pl.Tensor[[100, 32], pl.FP16, pl.TensorView(valid_shape=[1, 32])] = pl.tensor.minimum(c5, pl.tensor.set_validshape(x7, 1, 32))
        return t8, c5

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[16], pl.FP32], kernel0_x7: pl.Tensor[[16], pl.BF16], kernel0_c8: pl.Tensor[[1, 16], pl.FP32], kernel0_x11: pl.Tensor[[16, 12], pl.FP16], kernel0_idx14: pl.Tensor[[2, 2], pl.INT32], kernel0_idx15: pl.Tensor[[2, 2], pl.INT32], kernel0_idx16: pl.Tensor[[2, 2], pl.INT32], kernel0_idx17: pl.Tensor[[2, 2], pl.INT32], kernel0_idx18: pl.Tensor[[2, 2], pl.INT32], kernel0_idx19: pl.Tensor[[2, 2], pl.INT32], kernel0_idx20: pl.Tensor[[1, 2], pl.INT32], kernel0_idx21: pl.Tensor[[1, 2], pl.INT32], kernel0_idx22: pl.Tensor[[1, 2], pl.INT32], kernel0_idx24: pl.Tensor[[2, 2], pl.INT32], kernel0_x25: pl.Tensor[[16, 12], pl.FP16], kernel0_idx26: pl.Tensor[[16, 12], pl.INT32], kernel0_idx28: pl.Tensor[[2, 2], pl.INT32], kernel0_x29: pl.Tensor[[1, 2], pl.FP16], kernel0_idx30: pl.Tensor[[2, 2], pl.INT32], kernel0_x31: pl.Tensor[[2, 1], pl.FP16], kernel0_idx32: pl.Tensor[[2, 2], pl.INT32], kernel0_idx33: pl.Tensor[[2, 2], pl.INT32], kernel0_idx34: pl.Tensor[[2, 2], pl.INT32], kernel0_idx35: pl.Tensor[[2, 2], pl.INT32], kernel0_idx36: pl.Tensor[[2, 2], pl.INT32], kernel0_idx37: pl.Tensor[[2, 2], pl.INT32], kernel0_idx38: pl.Tensor[[2, 2], pl.INT32], kernel0_x39: pl.Tensor[[2, 1], pl.INT32], kernel0_idx40: pl.Tensor[[2, 2], pl.INT32], kernel0_idx41: pl.Tensor[[2, 2], pl.INT32], kernel0_x42: pl.Tensor[[2, 1], pl.FP16], kernel0_idx43: pl.Tensor[[2, 2], pl.INT32], kernel0_idx44: pl.Tensor[[2, 2], pl.INT32], kernel0_idx45: pl.Tensor[[2, 2], pl.INT32], kernel0_x46: pl.Tensor[[1, 2], pl.FP16], kernel0_idx47: pl.Tensor[[2, 2], pl.INT32], kernel0_idx48: pl.Tensor[[2, 2], pl.INT32], kernel0_idx49: pl.Tensor[[2, 2], pl.INT32], kernel0_x50: pl.Tensor[[2, 1], pl.FP16], kernel0_idx51: pl.Tensor[[2, 2], pl.INT32], kernel1_a1: pl.Tensor[[16, 32], pl.FP16], kernel1_b2: pl.Tensor[[32, 16], pl.FP16], kernel2_a1: pl.Tensor[[100, 272], pl.FP16], kernel2_b2: pl.Tensor[[272, 32], pl.FP16], kernel2_ws6: pl.Tensor[[16], pl.INT32], kernel2_x7: pl.Tensor[[100, 32], pl.FP16]) -> tuple[pl.Tensor[[1, 32], pl.UINT8, pl.TensorView(valid_shape=[1, 2])], pl.Tensor[[16, 16], pl.FP32, pl.TensorView(valid_shape=[1, 16])], pl.Tensor[[16, 16], pl.FP32, pl.TensorView(valid_shape=[1, 16])], pl.Tensor[[100, 32], pl.FP16, pl.TensorView(valid_shape=[1, 32])], pl.Tensor[[100, 32], pl.FP16, pl.TensorView(valid_shape=[1, 32])]]:
        kernel0_out: pl.Tensor[[1, 32], pl.UINT8, pl.TensorView(valid_shape=[1, 2])] = self.kernel0(kernel0_x1, kernel0_x7, kernel0_c8, kernel0_x11, kernel0_idx14, kernel0_idx15, kernel0_idx16, kernel0_idx17, kernel0_idx18, kernel0_idx19, kernel0_idx20, kernel0_idx21, kernel0_idx22, kernel0_idx24, kernel0_x25, kernel0_idx26, kernel0_idx28, kernel0_x29, kernel0_idx30, kernel0_x31, kernel0_idx32, kernel0_idx33, kernel0_idx34, kernel0_idx35, kernel0_idx36, kernel0_idx37, kernel0_idx38, kernel0_x39, kernel0_idx40, kernel0_idx41, kernel0_x42, kernel0_idx43, kernel0_idx44, kernel0_idx45, kernel0_x46, kernel0_idx47, kernel0_idx48, kernel0_idx49, kernel0_x50, kernel0_idx51)
        kernel1_outs: tuple[pl.Tensor[[16, 16], pl.FP32, pl.TensorView(valid_shape=[1, 16])], pl.Tensor[[16, 16], pl.FP32, pl.TensorView(valid_shape=[1, 16])]] = self.kernel1(kernel1_a1, kernel1_b2)
        kernel1_out0: pl.Tensor[[16, 16], pl.FP32, pl.TensorView(valid_shape=[1, 16])] = kernel1_outs[0]
        kernel1_out1: pl.Tensor[[16, 16], pl.FP32, pl.TensorView(valid_shape=[1, 16])] = kernel1_outs[1]
        kernel2_outs: tuple[pl.Tensor[[100, 32], pl.FP16, pl.TensorView(valid_shape=[1, 32])], pl.Tensor[[100, 32], pl.FP16, pl.TensorView(valid_shape=[1, 32])]] = self.kernel2(kernel2_a1, kernel2_b2, kernel2_ws6, kernel2_x7)
        kernel2_out0: pl.Tensor[[100, 32], pl.FP16, pl.TensorView(valid_shape=[1, 32])] = kernel2_outs[0]
        kernel2_out1: pl.Tensor[[100, 32], pl.FP16, pl.TensorView(valid_shape=[1, 32])] = kernel2_outs[1]
        return kernel0_out, kernel1_out0, kernel1_out1, kernel2_out0, kernel2_out1
