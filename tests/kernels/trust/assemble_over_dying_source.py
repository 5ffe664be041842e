import pypto.language as pl


@pl.program
class AssembleOverDyingSource:
    """A whole-window assemble of a value that dies there into a fresh tile: the result may take
    the target's buffer, never the source's (the emitted form copies the target into the result
    first, which would overwrite the source before it is read)."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        y = pl.add(x, x)
        tmp = pl.create_tensor([16, 32], dtype=pl.FP32)
        t = pl.assemble(tmp, y, [0, 0])
        r = pl.mul(t, x)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        r = self.kernel(x)
        return r
