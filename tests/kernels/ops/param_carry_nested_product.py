import pypto.language as pl


@pl.program
class ParamCarry:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        zero: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.muls(b, pl.const(0.0, pl.FP32))
        for i, (acc, total,) in pl.range(2, init_values=(x, zero,)):
            magnitude: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.abs(acc)
            grown: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.add(total, magnitude)
            for j, (inner,) in pl.range(2, init_values=(acc,)):
                product: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.matmul(inner, b, out_dtype=pl.FP32)
                r_inner = pl.yield_(product)
            r_acc, r_total = pl.yield_(r_inner, grown)
        return r_acc, r_total
