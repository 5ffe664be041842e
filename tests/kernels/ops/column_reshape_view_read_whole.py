# An element-wise op on [N, 1] columns reading a reshape view of a column past its valid region,
# where the reshape narrows the valid region by its own valid_shape argument (finding 6ff8b34c84:
# `tile.add(tile.reshape(l2, [16, 1], [1, 1]), l2)`), a reinterpret_view of such a view, and such a
# view of a column computed as a row and narrowed:
# LegalizeVecLayouts runs the op on the columns' [1, N] rows and takes the view again over the
# whole column first (a pto.treshape handle set_validshape cannot widen), its narrowing argument
# widened too. tests/test_ptoas.py assembles it on both targets;
# tests/test_revalidated_reshape_views.py compares its bits with NumPy.
import pypto.language as pl


@pl.program
class ColumnReshapeViewReadWhole:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 1], pl.INT32], b: pl.Tensor[[16, 1], pl.INT32], f: pl.Tensor[[16, 1], pl.FP32],
               out_add: pl.Out[pl.Tensor[[16, 1], pl.INT32]], out_bits: pl.Out[pl.Tensor[[16, 1], pl.FP32]]
               ) -> tuple[pl.Tensor[[16, 1], pl.INT32], pl.Tensor[[16, 1], pl.FP32]]:
        la: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        lb: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        lf: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.load(f, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        first: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec, pl.TileView(valid_shape=[1, 1])] = pl.tile.reshape(
            la, [16, 1], [1, 1])
        added: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.add(first, lb)
        bits: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[1, 1])] = pl.tile.reinterpret_view(
            first, pl.FP32)
        summed: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.add(lf, bits)
        # A view of a column computed as a row and narrowed there: the row's handle is re-validated.
        diff: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.sub(la, lb)
        diff4: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec, pl.TileView(valid_shape=[4, 1])] = pl.tile.set_validshape(
            diff, 4, 1)
        diff2: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec, pl.TileView(valid_shape=[2, 1])] = pl.tile.reshape(
            diff4, [16, 1], [2, 1])
        total: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.add(diff2, added)
        s1: pl.Tensor[[16, 1], pl.INT32] = pl.tile.store(total, [0, 0], out_add)
        s2: pl.Tensor[[16, 1], pl.FP32] = pl.tile.store(summed, [0, 0], out_bits)
        return s1, s2

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 1], pl.INT32], b: pl.Tensor[[16, 1], pl.INT32], f: pl.Tensor[[16, 1], pl.FP32]
             ) -> tuple[pl.Tensor[[16, 1], pl.INT32], pl.Tensor[[16, 1], pl.FP32]]:
        out_add: pl.Tensor[[16, 1], pl.INT32] = pl.tensor.create([16, 1], dtype=pl.INT32)
        out_bits: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.create([16, 1], dtype=pl.FP32)
        r1, r2 = self.kernel(a, b, f, out_add, out_bits)
        return r1, r2
