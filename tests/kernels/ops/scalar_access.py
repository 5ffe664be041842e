# Scalar access everywhere it reaches PTO: the block index in an offset, a GM element read,
# one tile element read and written back elsewhere, tensor.dim, a GM element written, a barrier.
import pypto.language as pl


@pl.program
class ScalarAccess:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 32], pl.FP32], n: pl.Tensor[[1, 8], pl.INT32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]], flags: pl.InOut[pl.Tensor[[1, 8], pl.INT32]]
               ) -> pl.Tensor[[16, 32], pl.FP32]:
        b = pl.tile.get_block_idx()
        t = pl.load(x, [b * 16, 0], [16, 32])
        count = pl.tensor.read(n, [0, 0])
        first = pl.tile.read(t, [0, 1])
        t2 = pl.tile.write(t, [1, 2], first)
        cols = pl.tensor.dim(x, 1)
        pl.tensor.write(flags, [0, 3], pl.const(7, pl.INT32))
        pl.system.syncall()
        out = pl.store(t2, [0, 0], out)
        return out
