# window_repack_int16.py's UINT16 form: PTOAS tests widths, not signedness, and takes no 16-bit
# integer in a vec -> vec pto.tinsert on either target: the window is copied as its FP16 bits
# (tests/test_window_repack_bits.py).
import pypto.language as pl


@pl.program
class WindowRepackUint16:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 32], pl.UINT16], out: pl.Out[pl.Tensor[[2, 8], pl.FP16]]) -> pl.Tensor[[2, 8], pl.FP16]:
        t: pl.Tile[[16, 32], pl.UINT16, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        s: pl.Tile[[2, 8], pl.UINT16, pl.Mem.Vec] = pl.tile.slice(t, [2, 8], [3, 5])
        c: pl.Tile[[2, 8], pl.FP16, pl.Mem.Vec] = pl.tile.reinterpret_view(s, dtype=pl.FP16)
        d = pl.tile.maximum(c, c)
        return pl.tile.store(d, [0, 0], out)
