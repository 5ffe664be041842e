import pypto.language as pl


# An INT8 [300, 200] product (its INT32 accumulator boxed [304, 224]: past L0C, and past Vec as
# a whole) returned whole and through two windows. A window of a matmul result is taken on Vec:
# the output grid moves each sub-tile there and stores the part of each window it holds, so the
# whole product never lives in Vec.
@pl.program
class WindowsOfAnOversizedProduct:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[300, 64], pl.INT8], b: pl.Tensor[[64, 200], pl.INT8]) -> tuple[pl.Tensor[[300, 200], pl.INT32], pl.Tensor[[48, 40], pl.INT32], pl.Tensor[[9, 150], pl.INT32]]:
        c = pl.matmul(a, b)
        across = pl.slice(c, [48, 40], [100, 72])
        strip = pl.slice(c, [9, 150], [291, 50])
        return c, across, strip

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[300, 64], pl.INT8], b: pl.Tensor[[64, 200], pl.INT8]) -> tuple[pl.Tensor[[300, 200], pl.INT32], pl.Tensor[[48, 40], pl.INT32], pl.Tensor[[9, 150], pl.INT32]]:
        c, across, strip = self.mm(a, b)
        return c, across, strip
