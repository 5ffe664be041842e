# fuzz-regression: rejected (compile error)
# blamed: materialize-semantic-aliases
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:18:9: error: [MaterializeSemanticAliases] not supported yet: the in-place operand `set_validshape_0_tile` is still read after its buffer is reused, so it would have to be copied within Acc, and Ascend910B has no Acc → Acc data path
#       hint: compute the value again instead of reading it after it is updated, or keep the value that is still needed in Vec
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, a1: pl.Tensor[[16, 32], pl.FP16], b2: pl.Tensor[[32, 16], pl.FP16], out6: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        l3: pl.Tile[[16, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(a1, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        t5: pl.Tile[[16, 16], pl.FP32] = pl.tile.batch_matmul(l3, pl.tile.load(b2, [0, 0], [32, 16], target_memory=pl.Mem.Mat))
        st7: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(t5, [0, 0], out6)
        return st7

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, a1: pl.Tensor[[16, 16], pl.FP16], b2: pl.Tensor[[16, 16], pl.FP16], a5: pl.Tensor[[16, 16], pl.FP16], b6: pl.Tensor[[16, 16], pl.FP16]) -> tuple[pl.Tensor[[16, 16], pl.FP32, pl.TensorView(valid_shape=[1, 1])], pl.Tensor[[16, 16], pl.FP32]]:
        c3: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.matmul(a1, b2, out_dtype=pl.FP32)
        c7: pl.Tensor[[16, 16], pl.FP32, pl.TensorView(valid_shape=[1, 1])] = pl.tensor.matmul_acc(pl.tensor.set_validshape(c3, 1, 1), a5, b6)
        return c7, c3

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_a1: pl.Tensor[[16, 32], pl.FP16], kernel0_b2: pl.Tensor[[32, 16], pl.FP16], kernel1_a1: pl.Tensor[[16, 16], pl.FP16], kernel1_b2: pl.Tensor[[16, 16], pl.FP16], kernel1_a5: pl.Tensor[[16, 16], pl.FP16], kernel1_b6: pl.Tensor[[16, 16], pl.FP16]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32, pl.TensorView(valid_shape=[1, 1])], pl.Tensor[[16, 16], pl.FP32]]:
        kernel0_out6: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.create([16, 16], dtype=pl.FP32)
        kernel0_out: pl.Tensor[[16, 16], pl.FP32] = self.kernel0(kernel0_a1, kernel0_b2, kernel0_out6)
        kernel1_outs: tuple[pl.Tensor[[16, 16], pl.FP32, pl.TensorView(valid_shape=[1, 1])], pl.Tensor[[16, 16], pl.FP32]] = self.kernel1(kernel1_a1, kernel1_b2, kernel1_a5, kernel1_b6)
        kernel1_out0: pl.Tensor[[16, 16], pl.FP32, pl.TensorView(valid_shape=[1, 1])] = kernel1_outs[0]
        kernel1_out1: pl.Tensor[[16, 16], pl.FP32] = kernel1_outs[1]
        return kernel0_out, kernel1_out0, kernel1_out1
