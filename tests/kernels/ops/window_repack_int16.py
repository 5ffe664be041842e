# A reinterpret_view of an INT16 window (tile.slice at [3, 5]) of a loaded tile (agent-b's finding
# window_repack_tinsert_dtype, construct:window-re-viewed): a re-view starts at its buffer's first
# byte, so LegalizeVecLayouts copies the window into a tile of its own first, a Vec -> Vec
# pto.tinsert, which takes no INT16 on either target (PTOAS: "expects A2/A3 vec->vec tinsert
# src/dst to have same supported dtype (i8/f16/bf16/f32)", A5: "(fp8/f16/bf16/f32/i8/i32)"). The
# window is copied as its FP16 bits (the source re-viewed as FP16, the same window cut from it)
# and the copy re-viewed as INT16: tests/test_window_repack_bits.py.
import pypto.language as pl


@pl.program
class WindowRepack:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 32], pl.INT16], out: pl.Out[pl.Tensor[[2, 8], pl.FP16]]) -> pl.Tensor[[2, 8], pl.FP16]:
        t: pl.Tile[[16, 32], pl.INT16, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        s: pl.Tile[[2, 8], pl.INT16, pl.Mem.Vec] = pl.tile.slice(t, [2, 8], [3, 5])
        c: pl.Tile[[2, 8], pl.FP16, pl.Mem.Vec] = pl.tile.reinterpret_view(s, dtype=pl.FP16)
        d = pl.tile.maximum(c, c)
        return pl.tile.store(d, [0, 0], out)
