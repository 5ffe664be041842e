# agent-b (construct:window-re-viewed; tests/test_ptoas.py's generated-program draw): PTOAS
# refuses the copy LegalizeVecLayouts makes of a Vec window before re-viewing it
# (`_reinterpret_packed`: tile.move within Vec, emitted as pto.tinsert) for the element types
# PTOAS's vec -> vec tinsert does not take: "'pto.tinsert' op expects A2/A3 vec->vec tinsert
# src/dst to have same supported dtype (i8/f16/bf16/f32)" (INT16, INT32 here on a3) and "... A5
# ... (fp8/f16/bf16/f32/i8/i32)" (INT16 on a5). The simulator runs the copy and matches the
# interpreter, and no verifier (TargetOpRules) knows tinsert's element types, so only PTOAS says
# so. The same window of an FP32 / FP16 / BF16 tile, and INT32 on a5, assembles.
# replay: python -m nanopass.pipeline THIS_FILE --backend Ascend950 -o k.pto && ptoas --pto-arch=a5 --pto-level=level3 k.pto -o k.cpp
# Root fix: copy such a window as the bits of a same-width type tinsert takes (INT16 as FP16 /
# BF16, INT32 as FP32: a reinterpret of a whole, packed tile is a plain re-view), and state
# tinsert's element types as a target rule (registry) so TargetOpRules refuses what PTOAS does.
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
