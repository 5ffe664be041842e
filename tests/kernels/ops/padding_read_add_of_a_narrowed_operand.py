# An element-wise op over a set_validshape-narrowed parameter ([1, 1] of [1, 16], whose loaded
# bytes past the valid region are data) and the whole parameter is full-shape: ConvertTensorToTileOps
# hands pto.tadd the loaded tile itself, so its sources have one valid shape, which PTOAS wants
# ("'pto.tadd' op expects src0 and src1 to have the same valid_shape" before the fix; found by
# tests/test_ptoas.py on a generated padding-read program). tests/test_ptoas.py assembles it.
import pypto.language as pl


@pl.program
class PaddingReadAdd:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.INT32]) -> pl.Tensor[[1, 16], pl.INT32]:
        p13: pl.Tensor[[1, 16], pl.INT32] = pl.tensor.add(pl.tensor.set_validshape(x1, 1, 1), x1)
        return p13

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x1: pl.Tensor[[1, 16], pl.INT32]) -> pl.Tensor[[1, 16], pl.INT32]:
        y: pl.Tensor[[1, 16], pl.INT32] = self.kernel0(x1)
        return y
