# fuzz-regression: verifier (verifier)
# blamed: pto-codegen
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   internal compiler error: Verification failed after 'PTOCodegen' for properties {TargetOpRules}
#   error: [PTOCodegen] `pto-codegen` broke TargetOpRules, which it does not declare in `invalidates` (it held before the pass) (the input was verified when it was loaded: this is a compiler bug)
#       hint: for pass authors: fix the pass, or declare the property in its `invalidates` so later passes re-establish it
#   <fuzz>:26:44: error: [TargetOpRules] pto.tand on Ascend910B: operand 0 `0` is valid over [16, 16] and operand 1 `1` over [1, 1]; PTOAS's tand wants its sources and dst valid over one region
#       hint: re-validate an operand the op reads past its valid region over the region read (set_validshape; RevalidateReadOperands does so)
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.INT32], out4: pl.Out[pl.Tensor[[16, 1], pl.INT32]]) -> pl.Tensor[[16, 1], pl.INT32]:
        t3: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.transpose_view(pl.tile.load(x1, [0, 0], [1, 16], target_memory=pl.Mem.Vec))
        st5: pl.Tensor[[16, 1], pl.INT32] = pl.tile.store(t3, [0, 0], out4)
        return st5

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, x1: pl.Tensor[[16, 16], pl.UINT8], x3: pl.Tensor[[16, 16], pl.UINT8], x5: pl.Tensor[[1, 16], pl.UINT8], x7: pl.Tensor[[16, 1], pl.UINT8], x9: pl.Tensor[[16, 1], pl.UINT8], x15: pl.Tensor[[16, 16], pl.BF16], out20: pl.Out[pl.Tensor[[1, 1], pl.BF16]]) -> pl.Tensor[[1, 1], pl.BF16]:
        l2: pl.Tile[[16, 16], pl.UINT8, pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        l4: pl.Tile[[16, 16], pl.UINT8, pl.Mem.Vec] = pl.tile.load(x3, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        l6: pl.Tile[[1, 16], pl.UINT8, pl.Mem.Vec] = pl.tile.load(x5, [0, 0], [1, 16], target_memory=pl.Mem.Vec)
        l8: pl.Tile[[16, 1], pl.UINT8, pl.Mem.Vec] = pl.tile.load(x7, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        l10: pl.Tile[[16, 1], pl.UINT8, pl.Mem.Vec] = pl.tile.load(x9, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        pl.system.bar_all()
        t11: pl.Tile[[16, 16], pl.UINT8, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major)] = pl.tile.transpose_view(l2)
        pl.system.bar_all()
        t12: pl.Tile[[16, 16], pl.UINT8, pl.Mem.Vec, pl.TileView(valid_shape=[1, 1])] = pl.tile.reshape(l2, [16, 16], [1, 1])
        t13: pl.Tile[[16, 16], pl.UINT8, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major)] = pl.tile.transpose_view(l2)
        t14: pl.Tile[[16, 16], pl.UINT8] = pl.tile.and_(l2, t12)
        w17: pl.Tile[[1, 1], pl.BF16, pl.Mem.Vec] = pl.tile.slice(pl.tile.load(x15, [0, 0], [16, 16], target_memory=pl.Mem.Vec), [1, 1], [0, 0])
        tile18: pl.Tile[[1, 1], pl.BF16] = pl.tile.abs(w17)
        wr19: pl.Tile[[16, 16], pl.UINT8] = pl.tile.write(t14, [0, 0], pl.const(1, pl.UINT8))
        st21: pl.Tensor[[1, 1], pl.BF16] = pl.tile.store(tile18, [0, 0], out20)
        return st21

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.INT32], kernel1_x1: pl.Tensor[[16, 16], pl.UINT8], kernel1_x3: pl.Tensor[[16, 16], pl.UINT8], kernel1_x5: pl.Tensor[[1, 16], pl.UINT8], kernel1_x7: pl.Tensor[[16, 1], pl.UINT8], kernel1_x9: pl.Tensor[[16, 1], pl.UINT8], kernel1_x15: pl.Tensor[[16, 16], pl.BF16]) -> tuple[pl.Tensor[[16, 1], pl.INT32], pl.Tensor[[1, 1], pl.BF16]]:
        kernel0_out4: pl.Tensor[[16, 1], pl.INT32] = pl.tensor.create([16, 1], dtype=pl.INT32)
        kernel0_out: pl.Tensor[[16, 1], pl.INT32] = self.kernel0(kernel0_x1, kernel0_out4)
        kernel1_out20: pl.Tensor[[1, 1], pl.BF16] = pl.tensor.create([1, 1], dtype=pl.BF16)
        kernel1_out: pl.Tensor[[1, 1], pl.BF16] = self.kernel1(kernel1_x1, kernel1_x3, kernel1_x5, kernel1_x7, kernel1_x9, kernel1_x15, kernel1_out20)
        return kernel0_out, kernel1_out
