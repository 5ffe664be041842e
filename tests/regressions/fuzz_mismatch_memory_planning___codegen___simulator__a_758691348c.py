# fuzz-regression: mismatch (simulator mismatch)
# blamed: memory planning / codegen / simulator (after L0Tiled)
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   ret0: MISMATCH at [0, 0]: compiled 0x000059c2, interpreter 0x0000230f (1 of 1 elements differ)
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.INT32], x3: pl.Tensor[[1, 16], pl.INT32], out8: pl.Out[pl.Tensor[[1, 1], pl.INT32]], out10: pl.Out[pl.Tensor[[1, 1], pl.INT32]]) -> tuple[pl.Tensor[[1, 1], pl.INT32], pl.Tensor[[1, 1], pl.INT32]]:
        l2: pl.Tile[[1, 16], pl.INT32, pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [1, 16], target_memory=pl.Mem.Vec)
        l4: pl.Tile[[1, 16], pl.INT32, pl.Mem.Vec] = pl.tile.load(x3, [0, 0], [1, 16], target_memory=pl.Mem.Vec)
        t5: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        t6: pl.Tile[[1, 1], pl.INT32, pl.Mem.Vec] = pl.tile.slice(l2, [1, 1], [0, 1])
        st9: pl.Tensor[[1, 1], pl.INT32] = pl.tile.store(pl.tile.transpose_view(t6), [0, 0], out8)
        st11: pl.Tensor[[1, 1], pl.INT32] = pl.tile.store(t6, [0, 0], out10)
        return st9, st11

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.INT32], kernel0_x3: pl.Tensor[[1, 16], pl.INT32]) -> tuple[pl.Tensor[[1, 1], pl.INT32], pl.Tensor[[1, 1], pl.INT32]]:
        kernel0_out8: pl.Tensor[[1, 1], pl.INT32] = pl.tensor.create([1, 1], dtype=pl.INT32)
        kernel0_out10: pl.Tensor[[1, 1], pl.INT32] = pl.tensor.create([1, 1], dtype=pl.INT32)
        kernel0_outs: tuple[pl.Tensor[[1, 1], pl.INT32], pl.Tensor[[1, 1], pl.INT32]] = self.kernel0(kernel0_x1, kernel0_x3, kernel0_out8, kernel0_out10)
        kernel0_out0: pl.Tensor[[1, 1], pl.INT32] = kernel0_outs[0]
        kernel0_out1: pl.Tensor[[1, 1], pl.INT32] = kernel0_outs[1]
        return kernel0_out0, kernel0_out1
