# (agent-u, issue 8: a narrowed value read over a wider region, at tile level; fixed by agent-aa) it was
# an internal error on both targets: DefinedReads after LegalizeVecLayouts. A hand-written
# `tile.reinterpret_view` of a window narrowed by its own valid_shape ([4, 32] valid [1, 32]), read over
# its whole shape by `tile.add` (the window's rows past its valid one hold the loaded data, so the
# program is valid). A re-view of a window reads the window's buffer from its first byte, so
# LegalizeVecLayouts copies the window first (tile.move) -- it copied the valid region only, and the add
# read the copy's unwritten rows. Fixed: the window is copied over the region the re-view's consumers
# read (passes/analysis/view_retake.py `regions_read`, the window taken again by its ViewValid), then
# narrowed back by set_validshape. Run by tests/test_reinterpreted_windows_read_whole.py.
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, p: pl.Tensor[[8, 32], pl.FP32], q: pl.Tensor[[4, 32], pl.INT32], out0: pl.Out[pl.Tensor[[4, 32], pl.INT32]]) -> pl.Tensor[[4, 32], pl.INT32]:
        tp: pl.Tile[[8, 32], pl.FP32] = pl.tile.load(p, [0, 0], [8, 32], target_memory=pl.Mem.Vec)
        tq: pl.Tile[[4, 32], pl.INT32] = pl.tile.load(q, [0, 0], [4, 32], target_memory=pl.Mem.Vec)
        s: pl.Tile[[4, 32], pl.FP32, pl.TileView(valid_shape=[1, 32])] = pl.tile.slice(tp, [4, 32], [2, 0], [1, 32])
        v: pl.Tile[[4, 32], pl.INT32, pl.TileView(valid_shape=[1, 32])] = pl.tile.reinterpret_view(s, dtype=pl.INT32)
        t: pl.Tile[[4, 32], pl.INT32] = pl.tile.add(v, tq)
        r0: pl.Tensor[[4, 32], pl.INT32] = pl.tile.store(t, [0, 0], out0)
        return r0

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, p: pl.Tensor[[8, 32], pl.FP32], q: pl.Tensor[[4, 32], pl.INT32], out0: pl.Out[pl.Tensor[[4, 32], pl.INT32]]) -> pl.Tensor[[4, 32], pl.INT32]:
        o: pl.Tensor[[4, 32], pl.INT32] = self.kernel(p, q, out0)
        return o
