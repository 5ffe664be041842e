# fuzz-regression: mismatch (simulator mismatch)
# blamed: memory planning / codegen / simulator (after L0Tiled)
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   ret0: MISMATCH at [0, 1]: compiled 0xffffacde, interpreter 0x0000230f (14 of 16 elements differ)
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[16, 1], pl.INT32], out4: pl.Out[pl.Tensor[[8, 2], pl.FP32]]) -> pl.Tensor[[8, 2], pl.FP32]:
        t3: pl.Tile[[8, 2], pl.FP32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major)] = pl.tile.reinterpret_view(pl.tile.load(x1, [0, 0], [16, 1], target_memory=pl.Mem.Vec), dtype=pl.FP32, shape=[8, 2])
        st5: pl.Tensor[[8, 2], pl.FP32] = pl.tile.store(t3, [0, 0], out4)
        return st5

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[16, 1], pl.INT32]) -> pl.Tensor[[8, 2], pl.FP32]:
        kernel0_out4: pl.Tensor[[8, 2], pl.FP32] = pl.tensor.create([8, 2], dtype=pl.FP32)
        kernel0_out: pl.Tensor[[8, 2], pl.FP32] = self.kernel0(kernel0_x1, kernel0_out4)
        return kernel0_out
