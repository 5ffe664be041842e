# tensor.expand_clone writes src broadcast to target's shape over all of target (the result is
# target): here a [2, 4, 1] column per row is cloned across 8 columns, page by page.
import pypto.language as pl


@pl.program
class ExpandClone:
    @pl.function(type=pl.FunctionType.InCore)
    def k(
        self,
        src: pl.Tensor[[2, 16, 1], pl.FP16],
        target: pl.Out[pl.Tensor[[2, 16, 32], pl.FP16]],
    ) -> pl.Tensor[[2, 16, 32], pl.FP16]:
        y = pl.expand_clone(src, target)
        return y
