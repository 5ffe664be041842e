"""Tile-level element-wise ops reading an operand past its valid region, where the loaded data
is: a tile narrowed by set_validshape after a whole load, subtracted from a whole tile, and a
window cut with a narrower valid_shape (tile.slice), maximised against a whole tile. PTOAS wants
an element-wise instruction's sources valid over one region, so RevalidateReadOperands
re-validates each such operand over the region read: a set_validshape of the tile's handle, the
window cut again (tests/test_revalidated_tile_operands.py)."""
import pypto.language as pl


@pl.program
class TileOperandsReadPastValid:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, p: pl.Tensor[[8, 32], pl.FP32], q: pl.Tensor[[8, 32], pl.FP32],
               w: pl.Tensor[[16, 32], pl.FP32], out0: pl.Out[pl.Tensor[[8, 32], pl.FP32]],
               out1: pl.Out[pl.Tensor[[8, 32], pl.FP32]]) -> tuple[pl.Tensor[[8, 32], pl.FP32], pl.Tensor[[8, 32], pl.FP32]]:
        tp: pl.Tile[[8, 32], pl.FP32] = pl.tile.load(p, [0, 0], [8, 32], target_memory=pl.Mem.Vec)
        tq: pl.Tile[[8, 32], pl.FP32] = pl.tile.load(q, [0, 0], [8, 32], target_memory=pl.Mem.Vec)
        few: pl.Tile[[8, 32], pl.FP32, pl.TileView(valid_shape=[3, 32])] = pl.tile.set_validshape(tp, 3, 32)
        diff: pl.Tile[[8, 32], pl.FP32] = pl.tile.sub(tq, few)
        tw: pl.Tile[[16, 32], pl.FP32] = pl.tile.load(w, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        part: pl.Tile[[8, 32], pl.FP32, pl.TileView(valid_shape=[8, 5])] = pl.tile.slice(tw, [8, 32], [8, 0], [8, 5])
        top: pl.Tile[[8, 32], pl.FP32] = pl.tile.maximum(part, tq)
        r0: pl.Tensor[[8, 32], pl.FP32] = pl.tile.store(diff, [0, 0], out0)
        r1: pl.Tensor[[8, 32], pl.FP32] = pl.tile.store(top, [0, 0], out1)
        return r0, r1

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, p: pl.Tensor[[8, 32], pl.FP32], q: pl.Tensor[[8, 32], pl.FP32], w: pl.Tensor[[16, 32], pl.FP32],
             out0: pl.Out[pl.Tensor[[8, 32], pl.FP32]],
             out1: pl.Out[pl.Tensor[[8, 32], pl.FP32]]) -> tuple[pl.Tensor[[8, 32], pl.FP32], pl.Tensor[[8, 32], pl.FP32]]:
        rs: tuple[pl.Tensor[[8, 32], pl.FP32], pl.Tensor[[8, 32], pl.FP32]] = self.kernel(p, q, w, out0, out1)
        a: pl.Tensor[[8, 32], pl.FP32] = rs[0]
        b: pl.Tensor[[8, 32], pl.FP32] = rs[1]
        return a, b
