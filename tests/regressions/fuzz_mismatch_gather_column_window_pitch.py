# fuzz-regression: mismatch (simulator poison read)
# blamed: convert-tensor-to-tile-ops
# input-seed: 1
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   [Simulator] pto.tgather reads 2[0, 1], which no instruction has written (its bytes still hold the 0xFF poison pattern)
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 1 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# Fixed (agent-y): ConvertTensorToTileOps indexes the packed copy at the pitch its placement keeps
# (_placed_type: the copy of a one-column window of a row-major tile is row-major, rows 32 bytes apart);
# tests/test_flat_walked_operands.py.
# (agent-p, issue 8: the generator's gathered on-chip windows) a valid kernel reads poison: tensor.gather
# (dim=0 or dim=1) from a one-column window ([2, 1] at column 1) of a computed [16, 32] FP16 value.
# ConvertTensorToTileOps packs the window first (tile.move into Vec) and builds the flat index with the
# pitch of a fresh [2, 1] tile, one element per row (column-major, languages.layout.padded_2d), but the
# copy keeps its source's row-major layout (languages.views.move_view: a flat destination keeps the
# source's effective layout), whose rows are 16 FP16 elements apart: TGATHER reads index 1 at [0, 1],
# padding. Windows of two columns or more agree (their shape is row-major too) and are drawn; the
# generator keeps off one-column windows of a wider tile (window_gathered) until this is fixed.
# Root fix: make the pack a tile of the layout its shape implies (a column copy, as LegalizeVecLayouts
# re-cuts a column window from its source's row view), or build the index from the copy's placed pitch.
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 1
import pypto.language as pl


@pl.program
class GatherColumnWindow:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 32], pl.FP16], idx: pl.Tensor[[2, 1], pl.INT32]) -> pl.Tensor[[2, 1], pl.FP16]:
        t: pl.Tensor[[16, 32], pl.FP16] = pl.tensor.muls(x, 2.0)
        w: pl.Tensor[[2, 1], pl.FP16] = pl.tensor.slice(t, [2, 1], [4, 1])
        y: pl.Tensor[[2, 1], pl.FP16] = pl.tensor.gather(w, idx, dim=1)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 32], pl.FP16], idx: pl.Tensor[[2, 1], pl.INT32]) -> pl.Tensor[[2, 1], pl.FP16]:
        y: pl.Tensor[[2, 1], pl.FP16] = self.kernel(x, idx)
        return y
