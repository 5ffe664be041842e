import pypto.language as pl


# An INT8 [300, 200] product (its INT32 accumulator boxed [304, 224], past L0C on both targets)
# returned whole and through two set_validshape views: one output grid serves all three stores.
@pl.program
class SeveralStoresOfAnInt8Product:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[300, 64], pl.INT8], b: pl.Tensor[[64, 200], pl.INT8]) -> tuple[pl.Tensor[[300, 200], pl.INT32, pl.TensorView(valid_shape=[1, 1])], pl.Tensor[[300, 200], pl.INT32], pl.Tensor[[300, 200], pl.INT32, pl.TensorView(valid_shape=[150, 130])]]:
        c = pl.matmul(a, b)
        corner = pl.tensor.set_validshape(c, 1, 1)
        part = pl.tensor.set_validshape(c, 150, 130)
        return corner, c, part

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[300, 64], pl.INT8], b: pl.Tensor[[64, 200], pl.INT8]) -> tuple[pl.Tensor[[300, 200], pl.INT32, pl.TensorView(valid_shape=[1, 1])], pl.Tensor[[300, 200], pl.INT32], pl.Tensor[[300, 200], pl.INT32, pl.TensorView(valid_shape=[150, 130])]]:
        corner, whole, part = self.mm(a, b)
        return corner, whole, part
