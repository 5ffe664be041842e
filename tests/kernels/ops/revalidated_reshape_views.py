# An element-wise op reading a reshape view past its valid region, where the reshape narrows the
# valid region by its own valid_shape argument (finding 66a183e452: `tile.and_(l2,
# tile.reshape(l2, [16, 16], [1, 1]))`): RevalidateReadOperands takes the view again over the
# region read, with that argument widened too (re-viewing a re-validated source with the old
# arguments kept the old [1, 1]), so PTOAS sees sources of one valid shape (pto.tand / tsub:
# "expects src0 and src1 to have the same valid_shape"). tests/test_ptoas.py assembles it on both
# targets; tests/test_revalidated_reshape_views.py compares its bits with NumPy.
import pypto.language as pl


@pl.program
class RevalidatedReshapeViews:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 16], pl.UINT8], b: pl.Tensor[[16, 16], pl.UINT8],
               x: pl.Tensor[[16, 32], pl.FP32], y: pl.Tensor[[16, 32], pl.FP32],
               out_and: pl.Out[pl.Tensor[[16, 16], pl.UINT8]], out_sub: pl.Out[pl.Tensor[[16, 32], pl.FP32]]
               ) -> tuple[pl.Tensor[[16, 16], pl.UINT8], pl.Tensor[[16, 32], pl.FP32]]:
        la: pl.Tile[[16, 16], pl.UINT8, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        lb: pl.Tile[[16, 16], pl.UINT8, pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        corner: pl.Tile[[16, 16], pl.UINT8, pl.Mem.Vec, pl.TileView(valid_shape=[1, 1])] = pl.tile.reshape(
            la, [16, 16], [1, 1])
        anded: pl.Tile[[16, 16], pl.UINT8, pl.Mem.Vec] = pl.tile.and_(lb, corner)
        lx: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        ly: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(y, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        top: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[4, 32])] = pl.tile.set_validshape(
            lx, 4, 32)
        toprows: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[2, 32])] = pl.tile.reshape(
            top, [16, 32], [2, 32])
        diff: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.sub(ly, toprows)
        s1: pl.Tensor[[16, 16], pl.UINT8] = pl.tile.store(anded, [0, 0], out_and)
        s2: pl.Tensor[[16, 32], pl.FP32] = pl.tile.store(diff, [0, 0], out_sub)
        return s1, s2

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.UINT8], b: pl.Tensor[[16, 16], pl.UINT8],
             x: pl.Tensor[[16, 32], pl.FP32], y: pl.Tensor[[16, 32], pl.FP32]
             ) -> tuple[pl.Tensor[[16, 16], pl.UINT8], pl.Tensor[[16, 32], pl.FP32]]:
        out_and: pl.Tensor[[16, 16], pl.UINT8] = pl.tensor.create([16, 16], dtype=pl.UINT8)
        out_sub: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.create([16, 32], dtype=pl.FP32)
        r1, r2 = self.kernel(a, b, x, y, out_and, out_sub)
        return r1, r2
