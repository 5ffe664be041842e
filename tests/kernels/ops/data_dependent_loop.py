# Scalar reads steer the kernel: a data-dependent loop bound (rows blocks of x summed) and an
# `if` on a second read scalar (double the sum, or negate it).
import pypto.language as pl


@pl.program
class DynLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[64, 32], pl.FP32], meta: pl.Tensor[[1, 8], pl.INT32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        rows = pl.tensor.read(meta, [0, 0])
        mode = pl.tensor.read(meta, [0, 1])
        acc = pl.tile.full([16, 32], dtype=pl.FP32, value=0.0)
        for i in pl.range(rows):
            blk = pl.load(x, [i * 16, 0], [16, 32])
            acc = pl.tile.add(acc, blk)
        if mode > 0:
            res = pl.tile.muls(acc, 2.0)
        else:
            res = pl.tile.neg(acc)
        out = pl.store(res, [0, 0], out)
        return out
