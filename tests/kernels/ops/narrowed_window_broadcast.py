"""Windows of a computed value narrowed by their own valid_shape (tensor.slice's valid_shape), one
in rows and one in columns, broadcast against a per-row operand: the result is valid over the
window's whole shape, so the window is read past its valid region, where its elements are the
computed value's (tests/test_narrowed_views_read_whole.py: the window is re-taken over the region
read, since no set_validshape widens a view); and a tensor.view of a set_validshape-narrowed
value read whole by an element-wise mul (the view keeps the value's data past its valid region,
as DefinedReads now holds: it took a view's data to be its valid region only)."""
import pypto.language as pl


@pl.program
class NarrowedWindowBroadcast:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[8, 32], pl.FP32], r: pl.Tensor[[4, 1], pl.FP32],
               r2: pl.Tensor[[4, 1], pl.FP32]) -> tuple[pl.Tensor[[4, 32], pl.FP32], pl.Tensor[[4, 32], pl.FP32], pl.Tensor[[8, 32], pl.FP32]]:
        e: pl.Tensor[[8, 32], pl.FP32] = pl.tensor.mul(x, x)
        low: pl.Tensor[[4, 32], pl.FP32, pl.TensorView(valid_shape=[1, 32])] = pl.tensor.slice(e, [4, 32], [4, 0], [1, 32])
        rows: pl.Tensor[[4, 32], pl.FP32] = pl.tensor.mul(low, r)
        right: pl.Tensor[[4, 32], pl.FP32, pl.TensorView(valid_shape=[4, 5])] = pl.tensor.slice(e, [4, 32], [2, 0], [4, 5])
        cols: pl.Tensor[[4, 32], pl.FP32] = pl.tensor.sub(right, r2)
        cut: pl.Tensor[[8, 32], pl.FP32, pl.TensorView(valid_shape=[3, 32])] = pl.tensor.set_validshape(e, 3, 32)
        seen: pl.Tensor[[8, 32], pl.FP32, pl.TensorView(valid_shape=[3, 32])] = pl.tensor.view(cut)
        again: pl.Tensor[[8, 32], pl.FP32] = pl.tensor.mul(seen, x)
        return rows, cols, again

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[8, 32], pl.FP32], r: pl.Tensor[[4, 1], pl.FP32],
             r2: pl.Tensor[[4, 1], pl.FP32]) -> tuple[pl.Tensor[[4, 32], pl.FP32], pl.Tensor[[4, 32], pl.FP32], pl.Tensor[[8, 32], pl.FP32]]:
        outs: tuple[pl.Tensor[[4, 32], pl.FP32], pl.Tensor[[4, 32], pl.FP32], pl.Tensor[[8, 32], pl.FP32]] = self.kernel(x, r, r2)
        a: pl.Tensor[[4, 32], pl.FP32] = outs[0]
        b: pl.Tensor[[4, 32], pl.FP32] = outs[1]
        d: pl.Tensor[[8, 32], pl.FP32] = outs[2]
        return a, b, d
