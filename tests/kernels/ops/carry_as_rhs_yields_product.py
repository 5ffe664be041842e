import pypto.language as pl


@pl.program
class RhsCarry:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        seed: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.muls(x, pl.const(0.25, pl.FP32))
        zero: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.muls(x, pl.const(0.0, pl.FP32))
        for i, (acc, total,) in pl.range(3, init_values=(seed, zero,)):
            grown: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.add(total, acc)
            product: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.matmul(b, acc, out_dtype=pl.FP32)
            r_acc, r_total = pl.yield_(product, grown)
        return r_acc, r_total
