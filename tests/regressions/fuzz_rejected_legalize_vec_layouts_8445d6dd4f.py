# fuzz-regression: rejected (compile error)
# blamed: legalize-vec-layouts
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:14:58: error: [LegalizeVecLayouts] `tile.col_expand_add` of a column-major [N, 1] column by a value other than [1, 1] is not supported yet
#       hint: PTO's vector unit computes on row-major tiles; broadcast a [1, 1] value, or compute on a row-major tile
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[16, 1], pl.INT32], out7: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        t3: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec, pl.TileView(valid_shape=[1, 1])] = pl.tile.set_validshape(pl.tile.load(x1, [0, 0], [16, 1], target_memory=pl.Mem.Vec), 1, 1)
        t4: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        t5: pl.Tile[[16, 1], pl.FP32, pl.TileView(valid_shape=[1, 1])] = pl.tile.cast(t3, target_type=pl.FP32)
        pl.system.bar_all()
        st8: pl.Tensor[[16, 1], pl.FP32] = pl.tile.store(pl.tile.col_expand_add(t5, t5), [0, 0], out7)
        return st8

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[16, 1], pl.INT32]) -> pl.Tensor[[16, 1], pl.FP32]:
        kernel0_out7: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.create([16, 1], dtype=pl.FP32)
        kernel0_out: pl.Tensor[[16, 1], pl.FP32] = self.kernel0(kernel0_x1, kernel0_out7)
        return kernel0_out
