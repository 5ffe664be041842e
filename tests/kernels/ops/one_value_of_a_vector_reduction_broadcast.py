# The sum of an [16] vector (a [1] tensor) against another vector, both ways, and against a
# matrix: the value is spread over the [1, 16] row a 1-D tile packs as, viewed as [16] again.
import pypto.language as pl


@pl.program
class K:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16], pl.FP32], v: pl.Tensor[[16], pl.FP32], m: pl.Tensor[[4, 16], pl.FP32]) -> tuple[
            pl.Tensor[[16], pl.FP32], pl.Tensor[[16], pl.FP32], pl.Tensor[[4, 16], pl.FP32]]:
        total: pl.Tensor[[1], pl.FP32] = pl.tensor.row_sum(x)
        left: pl.Tensor[[16], pl.FP32] = pl.tensor.sub(total, v)
        right: pl.Tensor[[16], pl.FP32] = pl.tensor.sub(v, total)
        grid: pl.Tensor[[4, 16], pl.FP32] = pl.tensor.sub(m, total)
        return left, right, grid
