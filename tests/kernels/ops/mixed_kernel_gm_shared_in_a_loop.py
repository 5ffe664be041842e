import pypto.language as pl


@pl.program
class SharedInALoop:
    """Each iteration the vector core reads a window of `buf` (rows 4i..4i+15) that the cube core
    overwrote in part the iteration before (rows 8(i-1)..8(i-1)+15), then the cube overwrites rows
    8i..8i+15 with a product of an operand the vector core computed. On Ascend910B a mixed
    kernel: ExpandMixedKernel puts an all-core barrier before the read (after the previous
    iteration's store) and before the store (after this iteration's read)."""

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16], big: pl.Tensor[[24, 16], pl.FP32]) -> tuple[pl.Tensor[[24, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        clipped: pl.Tensor[[16, 16], pl.FP16] = pl.tensor.maximum(a, pl.const(-1.5, pl.FP16))
        first: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.slice(big, [16, 16], [8, 0])
        zero: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.muls(first, pl.const(0.0, pl.FP32))
        for i, (buf, total,) in pl.range(2, init_values=(big, zero,)):
            window: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.slice(buf, [16, 16], [i * 4, 0])
            seen: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.add(total, window)
            product: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.matmul(clipped, b, out_dtype=pl.FP32)
            written: pl.Tensor[[24, 16], pl.FP32] = pl.tensor.assemble(buf, product, [i * 8, 0])
            r_buf, r_total = pl.yield_(written, seen)
        return r_buf, r_total

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16], big: pl.Tensor[[24, 16], pl.FP32]) -> tuple[pl.Tensor[[24, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        outs: tuple[pl.Tensor[[24, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]] = self.kernel(a, b, big)
        r_buf: pl.Tensor[[24, 16], pl.FP32] = outs[0]
        r_total: pl.Tensor[[16, 16], pl.FP32] = outs[1]
        return r_buf, r_total
