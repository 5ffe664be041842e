# (agent-b, construct:window-re-viewed, tests/test_ptoas.py's generated-program draw; was
# docs/open_findings) A transpose_view of a [1, 1] window of a [16, 1] column, added to itself.
# PTOAS refused the window's copy made before the re-view, a column-major Vec tmov between a
# [1, 1] subview and a [16, 1] FP16 tile: on a5 "'pto.treshape' op expects src and dst to have the
# same total byte size" (A5 re-views a column-major tmov's operands through treshapes), on a3
# "'pto.tmov' op expects A2/A3 non-mat tmov to use matching src/dst shapes"; a [1, 1] window of a
# 2-D tile reached tadd column-major once transposed. Fixed: a flat [1, 1] tile is its own
# transpose (the result's type is the window's, languages.views.transposed_view), so the
# transpose of a window of one element is that window, cut again (no copy, no re-view), and the
# add computes on the window cut from the column's row view. tests/test_one_element_windows.py.
import pypto.language as pl


@pl.program
class OneElementTranspose:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 1], pl.FP16], out: pl.Out[pl.Tensor[[1, 1], pl.FP16]]) -> pl.Tensor[[1, 1], pl.FP16]:
        t: pl.Tile[[16, 1], pl.FP16, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        s: pl.Tile[[1, 1], pl.FP16, pl.Mem.Vec] = pl.tile.slice(t, [1, 1], [1, 0])
        c: pl.Tile[[1, 1], pl.FP16, pl.Mem.Vec] = pl.tile.transpose_view(s)
        d = pl.tile.add(c, c)
        return pl.tile.store(d, [0, 0], out)
