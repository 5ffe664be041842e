import pypto.language as pl


# A [256, 384] FP32 product (past L0C on both targets) returned twice and through a
# set_validshape view: one output grid, each sub-tile stored three times.
@pl.program
class TwoStoresOfAnF32Grid:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[256, 64], pl.FP16], b: pl.Tensor[[64, 384], pl.FP16]) -> tuple[pl.Tensor[[256, 384], pl.FP32], pl.Tensor[[256, 384], pl.FP32], pl.Tensor[[256, 384], pl.FP32, pl.TensorView(valid_shape=[200, 300])]]:
        c = pl.matmul(a, b, out_dtype=pl.FP32)
        v = pl.tensor.set_validshape(c, 200, 300)
        return c, c, v

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[256, 64], pl.FP16], b: pl.Tensor[[64, 384], pl.FP16]) -> tuple[pl.Tensor[[256, 384], pl.FP32], pl.Tensor[[256, 384], pl.FP32], pl.Tensor[[256, 384], pl.FP32, pl.TensorView(valid_shape=[200, 300])]]:
        x, y, z = self.mm(a, b)
        return x, y, z
