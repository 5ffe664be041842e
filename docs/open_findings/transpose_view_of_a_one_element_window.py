# agent-b (construct:window-re-viewed; tests/test_ptoas.py's generated-program draw): PTOAS
# refuses a transpose_view of a [1, 1] window (here of a [16, 1] column): on a5 "'pto.treshape'
# op expects src and dst to have the same total byte size" (the packed copy of the window is a
# row-major [1, 1] tile padded to a 32-byte row, its transpose a column-major [1, 1] tile padded
# the other way), on a3 "'pto.tmov' op expects A2/A3 non-mat tmov to use matching src/dst
# shapes". A [1, 1] window of a [16, 16] tile instead reaches the vector op column-major ("'pto.tadd'
# op expects src0, src1, and dst to use row-major layout": LegalizeVecLayouts re-views an [N, 1]
# column as a row only for N > 1). The simulator and the interpreter agree on all three. A [1, n]
# window (n > 1) re-viewed as an [n, 1] column assembles on both targets (INT16 / INT32 too since
# their copies are made as FP16 / FP32 bits: tests/kernels/ops/window_repack_int16.py).
# replay: python -m nanopass.pipeline THIS_FILE --backend Ascend950 -o k.pto && ptoas --pto-arch=a5 --pto-level=level3 k.pto -o k.cpp
# Root fix: a transpose of a [1, 1] tile is the tile itself (a same-layout re-view, or no view at
# all); and a [1, 1] column-major tile is row-major for the vector unit's purposes.
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
