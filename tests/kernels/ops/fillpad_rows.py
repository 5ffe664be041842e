# fillpad: a tile loaded valid in [16, 40] of [16, 64] made fully valid, the 24 columns past the
# valid region filled with the pad value (zero), then reduced over whole rows.
import pypto.language as pl


@pl.program
class FillPad:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
               sums: pl.Out[pl.Tensor[[16, 1], pl.FP32]]):
        part = pl.load(x, [0, 0], [16, 64], valid_shape=[16, 40])
        full = pl.tile.fillpad(part, pad_value=pl.PadValue.zero)
        tmp = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        total = pl.tile.row_sum(full, tmp)
        pl.store(full, [0, 0], out)
        pl.store(total, [0, 0], sums)
