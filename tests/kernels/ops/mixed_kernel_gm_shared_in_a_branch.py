import pypto.language as pl


@pl.program
class SharedInABranch:
    """One branch stores a cube product into `big` and reads it back on the vector core, the other
    reads `big` on the vector core: a barrier between the store and the read back, none across
    the branches (no run takes both)."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16], big: pl.Tensor[[16, 16], pl.FP32], k: pl.Scalar[pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        clipped: pl.Tensor[[16, 16], pl.FP16] = pl.tensor.maximum(a, pl.const(-1.5, pl.FP16))
        if k < pl.const(0.5, pl.FP32):
            product: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.matmul(clipped, b, out_dtype=pl.FP32)
            written: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(big, product, [0, 0])
            again: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.adds(written, pl.const(1.0, pl.FP32))
            phi = pl.yield_(again)
        else:
            other: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.adds(big, pl.const(2.0, pl.FP32))
            phi = pl.yield_(other)
        return phi
