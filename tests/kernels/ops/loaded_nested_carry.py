import pypto.language as pl


@pl.program
class LoadedCarry:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        for i, (acc,) in pl.range(2, init_values=(x,)):
            for j, (inner,) in pl.range(2, init_values=(acc,)):
                product: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.matmul(inner, b, out_dtype=pl.FP32)
                r_inner = pl.yield_(product)
            r_acc = pl.yield_(r_inner)
        return r_acc
