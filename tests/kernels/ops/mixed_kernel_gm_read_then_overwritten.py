import pypto.language as pl


@pl.program
class ReadThenOverwritten:
    """The vector core reads `big` before the cube core overwrites its rows 1..16 with a product
    of an operand the vector core computed (on Ascend910B a mixed kernel: the operand crosses to
    the cube), and the vector core then reads the written window back to return it:
    ExpandMixedKernel orders the three accesses with an all-core barrier between each two of the
    two cores'."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16], big: pl.Tensor[[20, 16], pl.FP32]) -> tuple[pl.Tensor[[20, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        before: pl.Tensor[[20, 16], pl.FP32] = pl.tensor.adds(big, pl.const(1.0, pl.FP32))
        clipped: pl.Tensor[[16, 16], pl.FP16] = pl.tensor.maximum(a, pl.const(-1.5, pl.FP16))
        product: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.matmul(clipped, b, out_dtype=pl.FP32)
        window: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.slice(big, [16, 16], [1, 0])
        written: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(window, product, [0, 0])
        return before, written

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16], big: pl.Tensor[[20, 16], pl.FP32]) -> tuple[pl.Tensor[[20, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        outs: tuple[pl.Tensor[[20, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]] = self.kernel(a, b, big)
        before: pl.Tensor[[20, 16], pl.FP32] = outs[0]
        written: pl.Tensor[[16, 16], pl.FP32] = outs[1]
        return before, written
