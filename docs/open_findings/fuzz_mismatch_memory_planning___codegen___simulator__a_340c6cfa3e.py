# fuzz-regression: mismatch (simulator mismatch)
# blamed: memory planning / codegen / simulator (after L0Tiled)
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   ret0: MISMATCH at [0, 0]: compiled 0xffffcecd, interpreter 0x0000230f (118 of 128 elements differ)
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[2, 16], pl.INT32], idx4: pl.Tensor[[16, 8], pl.INT32], out7: pl.Out[pl.Tensor[[16, 8], pl.INT32]]) -> pl.Tensor[[16, 8], pl.INT32]:
        t3: pl.Tile[[16, 2], pl.INT32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major)] = pl.tile.transpose_view(pl.tile.load(x1, [0, 0], [2, 16], target_memory=pl.Mem.Vec))
        t6: pl.Tile[[16, 8], pl.INT32] = pl.tile.gather(t3, pl.tile.load(idx4, [0, 0], [16, 8], target_memory=pl.Mem.Vec))
        st8: pl.Tensor[[16, 8], pl.INT32] = pl.tile.store(t6, [0, 0], out7)
        return st8

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[2, 16], pl.INT32], kernel0_idx4: pl.Tensor[[16, 8], pl.INT32]) -> pl.Tensor[[16, 8], pl.INT32]:
        kernel0_out7: pl.Tensor[[16, 8], pl.INT32] = pl.tensor.create([16, 8], dtype=pl.INT32)
        kernel0_out: pl.Tensor[[16, 8], pl.INT32] = self.kernel0(kernel0_x1, kernel0_idx4, kernel0_out7)
        return kernel0_out
