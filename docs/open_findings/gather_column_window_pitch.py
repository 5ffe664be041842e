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
