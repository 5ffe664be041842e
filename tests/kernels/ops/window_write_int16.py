# An on-chip assemble of INT16 tiles (ConvertTensorToTileOps: tile.assemble between row-major Vec
# tiles, a pto.tinsert at the window's origin), which takes no INT16 on either target: the tiles
# are written as their FP16 bits and the result re-viewed as INT16 (LegalizeVecLayouts;
# tests/test_window_repack_bits.py).
import pypto.language as pl


@pl.program
class WindowWriteInt16:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 32], pl.INT16], b: pl.Tensor[[4, 16], pl.INT16],
          out: pl.Out[pl.Tensor[[16, 32], pl.INT16]]) -> pl.Tensor[[16, 32], pl.INT16]:
        x = pl.add(a, a)
        y = pl.add(b, b)
        z = pl.assemble(x, y, [2, 16])
        w = pl.add(z, z)
        return pl.assemble(out, w, [0, 0])
