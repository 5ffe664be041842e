# fuzz-regression: verifier (verifier)
# blamed: legalize-vec-layouts
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   internal compiler error: Verification failed after 'LegalizeVecLayouts' for properties {DefinedReads}
#   <fuzz>:12:9: error: [DefinedReads] tile.reshape reads `reduce_tmp` over [8, 1], but `reduce_tmp` (line 12)
#   is a tile.create whose contents are undefined, and no op wrote it: it holds no data
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# found (agent-ab) by a campaign on the DefinedReads change that makes a created buffer hold no
# data: LegalizeVecLayouts re-views the row reduction's created scratch (tile.reshape of a
# tile.create) before handing it to the op that writes it. A view reads nothing; fixed there:
# a view of a buffer no op wrote holds nothing and is no read (data_extents.views_nothing), its
# readers are checked.
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[8, 1], pl.INT32], x4: pl.Tensor[[1, 1], pl.INT32], out7: pl.Out[pl.Tensor[[8, 1], pl.INT32]], out9: pl.Out[pl.Tensor[[8, 1], pl.INT32]]) -> tuple[pl.Tensor[[8, 1], pl.INT32], pl.Tensor[[8, 1], pl.INT32]]:
        l2: pl.Tile[[8, 1], pl.INT32, pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [8, 1], target_memory=pl.Mem.Vec)
        pl.system.bar_all()
        t3: pl.Tile[[8, 1], pl.INT32] = pl.tile.row_max(l2)
        l5: pl.Tile[[1, 1], pl.INT32, pl.Mem.Vec] = pl.tile.load(x4, [0, 0], [1, 1], target_memory=pl.Mem.Vec)
        st8: pl.Tensor[[8, 1], pl.INT32] = pl.tile.store(pl.tile.add(l2, l2), [0, 0], out7)
        st10: pl.Tensor[[8, 1], pl.INT32] = pl.tile.store(t3, [0, 0], out9)
        return st8, st10

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[8, 1], pl.INT32], kernel0_x4: pl.Tensor[[1, 1], pl.INT32]) -> tuple[pl.Tensor[[8, 1], pl.INT32], pl.Tensor[[8, 1], pl.INT32]]:
        kernel0_out7: pl.Tensor[[8, 1], pl.INT32] = pl.tensor.create([8, 1], dtype=pl.INT32)
        kernel0_out9: pl.Tensor[[8, 1], pl.INT32] = pl.tensor.create([8, 1], dtype=pl.INT32)
        kernel0_outs: tuple[pl.Tensor[[8, 1], pl.INT32], pl.Tensor[[8, 1], pl.INT32]] = self.kernel0(kernel0_x1, kernel0_x4, kernel0_out7, kernel0_out9)
        kernel0_out0: pl.Tensor[[8, 1], pl.INT32] = kernel0_outs[0]
        kernel0_out1: pl.Tensor[[8, 1], pl.INT32] = kernel0_outs[1]
        return kernel0_out0, kernel0_out1
