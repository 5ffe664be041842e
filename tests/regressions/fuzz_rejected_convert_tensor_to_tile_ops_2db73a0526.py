# fuzz-regression: rejected (compile error)
# blamed: convert-tensor-to-tile-ops
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:19:44: error: [ConvertTensorToTileOps] `tensor.add` broadcasts an operand of shape [16] to [1, 16]; only 2-D [m, 1] / [1, n] / [1, 1] operands broadcast on chip
#       hint: reshape the operands to 2-D, or expand explicitly with tensor.row_expand_* / col_expand_*
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
    def kernel1(self, x1: pl.Tensor[[16], pl.INT32], x2: pl.Tensor[[16], pl.INT32], x3: pl.Tensor[[16], pl.INT32], big9: pl.Tensor[[1, 16], pl.INT32]) -> pl.Tensor[[1, 16], pl.INT32]:
        n5: pl.Scalar[pl.INDEX] = pl.tensor.dim(pl.tensor.muls(x1, pl.const(1, pl.INT32)), axis=0)
        n6: pl.Scalar[pl.INDEX] = n5 * 2
        pl.system.bar_all()
        t8: pl.Tensor[[1, 16], pl.INT32] = pl.tensor.add(pl.tensor.reshape(x1, [1, 16]), x1)
        asm10: pl.Tensor[[1, 16], pl.INT32] = pl.tensor.assemble(big9, t8, [0, 0])
        t11: pl.Tensor[[1, 16], pl.INT32] = pl.tensor.muls(big9, pl.const(1, pl.INT32))
        return t11

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.INT8], kernel1_x1: pl.Tensor[[16], pl.INT32], kernel1_x2: pl.Tensor[[16], pl.INT32], kernel1_x3: pl.Tensor[[16], pl.INT32], kernel1_big9: pl.Tensor[[1, 16], pl.INT32]) -> tuple[pl.Tensor[[1, 16], pl.INT8], pl.Tensor[[1, 16], pl.INT32]]:
        kernel0_out4: pl.Tensor[[1, 16], pl.INT8] = pl.tensor.create([1, 16], dtype=pl.INT8)
        kernel0_out: pl.Tensor[[1, 16], pl.INT8] = self.kernel0(kernel0_x1, kernel0_out4)
        kernel1_out: pl.Tensor[[1, 16], pl.INT32] = self.kernel1(kernel1_x1, kernel1_x2, kernel1_x3, kernel1_big9)
        return kernel0_out, kernel1_out
