# A BF16 element-wise op a target computes in FP32 reading a reshape view past its valid region,
# where the reshape narrows the valid region by its own valid_shape argument: LegalizeVecDtypes
# widens the view taken again over the whole tile (a pto.treshape handle set_validshape cannot
# widen; the campaign's programs of construct:view-padding-read were refused here), so the FP32
# copy holds the padding the op reads. tests/test_ptoas.py assembles it on both targets;
# tests/test_revalidated_reshape_views.py compares its bits with NumPy.
import pypto.language as pl


@pl.program
class Bf16ReshapeViewReadWhole:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 16], pl.BF16], b: pl.Tensor[[16, 16], pl.BF16],
               out: pl.Out[pl.Tensor[[16, 16], pl.BF16]]) -> pl.Tensor[[16, 16], pl.BF16]:
        la: pl.Tile[[16, 16], pl.BF16, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        lb: pl.Tile[[16, 16], pl.BF16, pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        part: pl.Tile[[16, 16], pl.BF16, pl.Mem.Vec, pl.TileView(valid_shape=[3, 5])] = pl.tile.reshape(
            lb, [16, 16], [3, 5])
        top: pl.Tile[[16, 16], pl.BF16, pl.Mem.Vec] = pl.tile.maximum(la, part)
        stored: pl.Tensor[[16, 16], pl.BF16] = pl.tile.store(top, [0, 0], out)
        return stored

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.BF16], b: pl.Tensor[[16, 16], pl.BF16]) -> pl.Tensor[[16, 16], pl.BF16]:
        out: pl.Tensor[[16, 16], pl.BF16] = pl.tensor.create([16, 16], dtype=pl.BF16)
        r: pl.Tensor[[16, 16], pl.BF16] = self.kernel(a, b, out)
        return r
