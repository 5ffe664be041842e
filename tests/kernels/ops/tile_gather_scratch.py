# A tile-level gather written without its scratch: the compiler allocates the index-shaped INT32 tmp
# PTOAS's index-form tgather requires (the operator catalogue's compiler-managed scratch).
import pypto.language as pl


@pl.program
class TileGather:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, 16], pl.FP32], i: pl.Tensor[[1, 8], pl.INT32],
          out: pl.Out[pl.Tensor[[1, 8], pl.FP32]]) -> pl.Tensor[[1, 8], pl.FP32]:
        g = pl.tile.gather(pl.load(x, [0, 0], [1, 16]), pl.load(i, [0, 0], [1, 8]))
        out = pl.store(g, [0, 0], out)
        return out
