# fuzz-regression: mismatch (simulator mismatch)
# blamed: memory planning / codegen / simulator (after L0Tiled)
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   ret0: MISMATCH at [0, 0]: compiled 0xc00b, interpreter 0x42aa (1 of 2 elements differ)
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.BF16], out5: pl.Out[pl.Tensor[[1, 2], pl.BF16]]) -> pl.Tensor[[1, 2], pl.BF16]:
        l2: pl.Tile[[1, 16], pl.BF16, pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [1, 16], target_memory=pl.Mem.Vec)
        pl.system.bar_all()
        t4: pl.Tile[[1, 2], pl.BF16, pl.TileView(valid_shape=[1, 1])] = pl.tile.col_max(pl.tile.slice(l2, [1, 2], [0, 1], [1, 1]))
        st6: pl.Tensor[[1, 2], pl.BF16] = pl.tile.store(t4, [0, 0], out5)
        return st6

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.BF16]) -> pl.Tensor[[1, 2], pl.BF16]:
        kernel0_out5: pl.Tensor[[1, 2], pl.BF16] = pl.tensor.create([1, 2], dtype=pl.BF16)
        kernel0_out: pl.Tensor[[1, 2], pl.BF16] = self.kernel0(kernel0_x1, kernel0_out5)
        return kernel0_out
