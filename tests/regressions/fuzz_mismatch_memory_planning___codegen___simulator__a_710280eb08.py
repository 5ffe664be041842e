# fuzz-regression: mismatch (simulator mismatch)
# blamed: memory planning / codegen / simulator (after L0Tiled)
# input-seed: 0
# backend: Ascend950
# pipeline: default
# verdict when found:
#   ret0: MISMATCH at [0, 0]: compiled 0x00000001, interpreter 0x000059c2 (1 of 1 elements differ)
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend950
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: DSL
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.INT32], out6: pl.Out[pl.Tensor[[1, 1], pl.INT32]]) -> pl.Tensor[[1, 1], pl.INT32]:
        l2: pl.Tile[[1, 16], pl.INT32, pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [1, 16], target_memory=pl.Mem.Vec)
        t3: pl.Scalar[pl.INT32] = pl.tile.read(l2, [0, 0])
        t4: pl.Tile[[1, 16], pl.INT32, pl.Mem.Vec] = pl.tile.write(l2, [0, 0], pl.const(1, pl.INT32))
        st7: pl.Tensor[[1, 1], pl.INT32] = pl.tile.store(pl.tile.slice(l2, [1, 1], [0, 0]), [0, 0], out6)
        return st7

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.INT32], kernel1_a1: pl.Tensor[[300, 16], pl.FP16], kernel1_b2: pl.Tensor[[16, 128], pl.FP16]) -> tuple[pl.Tensor[[1, 1], pl.INT32], pl.Tensor[[300, 128], pl.FP32, pl.TensorView(valid_shape=[1, 1])]]:
        kernel0_out6: pl.Tensor[[1, 1], pl.INT32] = pl.tensor.create([1, 1], dtype=pl.INT32)
        kernel0_out: pl.Tensor[[1, 1], pl.INT32] = self.kernel0(kernel0_x1, kernel0_out6)
        with pl.at(level=pl.Level.CORE_GROUP):
            kernel1_s_c4: pl.Tensor[[300, 128], pl.FP32, pl.TensorView(valid_shape=[1, 1])] = pl.tensor.set_validshape(pl.tensor.matmul(kernel1_a1, kernel1_b2, out_dtype=pl.FP32), 1, 1)
        kernel1_out: pl.Tensor[[300, 128], pl.FP32, pl.TensorView(valid_shape=[1, 1])] = kernel1_s_c4
        return kernel0_out, kernel1_out
