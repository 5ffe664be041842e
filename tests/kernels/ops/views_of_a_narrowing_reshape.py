"""Views of a narrowing reshape, read past their valid region: a same-shape tensor.view, a
re-shaped tensor.view and a tensor.reshape of `head` (x reshaped with its top rows valid) are
read whole by per-row broadcasts (add, sub) and an element-wise mul; their padding is x's loaded
data (tests/test_narrowed_views_read_whole.py, finding 406905d9c9)."""
import pypto.language as pl


@pl.program
class ViewsOfNarrowing:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[8, 32], pl.FP32], r: pl.Tensor[[8, 1], pl.FP32], z: pl.Tensor[[16, 16], pl.FP32],
               q: pl.Tensor[[4, 1], pl.FP32]) -> tuple[pl.Tensor[[8, 32], pl.FP32], pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[4, 64], pl.FP32]]:
        head: pl.Tensor[[8, 32], pl.FP32, pl.TensorView(valid_shape=[4, 32])] = pl.tensor.reshape(x, [8, 32], [4, 32])
        same: pl.Tensor[[8, 32], pl.FP32, pl.TensorView(valid_shape=[4, 32])] = pl.tensor.view(head)
        rows: pl.Tensor[[8, 32], pl.FP32] = pl.tensor.add(same, r)
        square: pl.Tensor[[16, 16], pl.FP32, pl.TensorView(valid_shape=[8, 16])] = pl.tensor.view(head, shape=[16, 16], valid_shape=[8, 16])
        scaled: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.mul(square, z)
        wide: pl.Tensor[[4, 64], pl.FP32, pl.TensorView(valid_shape=[2, 64])] = pl.tensor.reshape(head, [4, 64], [2, 64])
        shifted: pl.Tensor[[4, 64], pl.FP32] = pl.tensor.sub(wide, q)
        return rows, scaled, shifted

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[8, 32], pl.FP32], r: pl.Tensor[[8, 1], pl.FP32], z: pl.Tensor[[16, 16], pl.FP32],
             q: pl.Tensor[[4, 1], pl.FP32]) -> tuple[pl.Tensor[[8, 32], pl.FP32], pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[4, 64], pl.FP32]]:
        outs: tuple[pl.Tensor[[8, 32], pl.FP32], pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[4, 64], pl.FP32]] = self.kernel(x, r, z, q)
        a: pl.Tensor[[8, 32], pl.FP32] = outs[0]
        b: pl.Tensor[[16, 16], pl.FP32] = outs[1]
        c: pl.Tensor[[4, 64], pl.FP32] = outs[2]
        return a, b, c
