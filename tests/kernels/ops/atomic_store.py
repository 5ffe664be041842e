# An atomic store (atomic=pl.AtomicType.Add) accumulates into its GM output: the output is read
# as well as written, so ConvertTensorToTileOps makes it InOut, and both rows of x land added.
import pypto.language as pl


@pl.program
class AtomicStore:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[32, 32], pl.FP32], acc: pl.Out[pl.Tensor[[16, 32], pl.FP32]]):
        top = pl.load(x, [0, 0], [16, 32])
        bottom = pl.load(x, [16, 0], [16, 32])
        pl.store(top, [0, 0], acc, atomic=pl.AtomicType.Add)
        pl.store(bottom, [0, 0], acc, atomic=pl.AtomicType.Add)
