# window_repack_int16.py's INT32 form: A2/A3's vec -> vec pto.tinsert takes no INT32 (A5's does),
# so on Ascend910B the window is copied as its FP32 bits, on Ascend950 as it is
# (tests/test_window_repack_bits.py).
import pypto.language as pl


@pl.program
class WindowRepackInt32:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 32], pl.INT32], out: pl.Out[pl.Tensor[[2, 8], pl.FP32]]) -> pl.Tensor[[2, 8], pl.FP32]:
        t: pl.Tile[[16, 32], pl.INT32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        s: pl.Tile[[2, 8], pl.INT32, pl.Mem.Vec] = pl.tile.slice(t, [2, 8], [3, 5])
        c: pl.Tile[[2, 8], pl.FP32, pl.Mem.Vec] = pl.tile.reinterpret_view(s, dtype=pl.FP32)
        d = pl.tile.maximum(c, c)
        return pl.tile.store(d, [0, 0], out)
