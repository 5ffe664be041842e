# Narrowed values read whole (finding b3fe3e1a0b): tensor.expand_clone copies its source over the
# target's region, past a valid region narrowed by set_validshape or a narrowing reshape, and an
# element-wise op does the same with a narrowed cube product that lives boxed ([112, 32] for the
# user's [100, 32]), and a row broadcast widens such a product's one-element view over its result
# (finding c2d27eb707). tests/test_expand_clone_reads_whole.py runs it against NumPy.
import pypto.language as pl


@pl.program
class ExpandCloneOfNarrowedValues:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[100, 64], pl.FP16], b: pl.Tensor[[64, 32], pl.FP16],
               x: pl.Tensor[[100, 32], pl.FP32], x_sum: pl.Tensor[[100, 32], pl.FP32],
               w: pl.Tensor[[1, 32], pl.FP32], z: pl.Tensor[[16, 32], pl.FP32],
               r: pl.Tensor[[4, 16], pl.FP16], y: pl.Tensor[[2, 32], pl.FP16], col: pl.Tensor[[100, 1], pl.FP32]
               ) -> tuple[pl.Tensor[[100, 32], pl.FP32], pl.Tensor[[100, 32], pl.FP32],
                          pl.Tensor[[16, 32], pl.FP32], pl.Tensor[[2, 32], pl.FP16], pl.Tensor[[100, 32], pl.FP32]]:
        product: pl.Tensor[[100, 32], pl.FP32] = pl.tensor.matmul(a, b, out_dtype=pl.FP32)
        first_row: pl.Tensor[[100, 32], pl.FP32, pl.TensorView(valid_shape=[1, 32])] = pl.tensor.set_validshape(product, 1, 32)
        copied: pl.Tensor[[100, 32], pl.FP32] = pl.tensor.expand_clone(first_row, x)
        summed: pl.Tensor[[100, 32], pl.FP32] = pl.tensor.add(first_row, x_sum)
        doubled: pl.Tensor[[1, 32], pl.FP32] = pl.tensor.muls(w, pl.const(2.0, pl.FP32))
        half_row: pl.Tensor[[1, 32], pl.FP32, pl.TensorView(valid_shape=[1, 16])] = pl.tensor.set_validshape(doubled, 1, 16)
        spread: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.expand_clone(half_row, z)
        bumped: pl.Tensor[[4, 16], pl.FP16] = pl.tensor.adds(r, pl.const(1.0, pl.FP16))
        top: pl.Tensor[[2, 32], pl.FP16, pl.TensorView(valid_shape=[1, 32])] = pl.tensor.reshape(bumped, [2, 32], valid_shape=[1, 32])
        reshaped: pl.Tensor[[2, 32], pl.FP16] = pl.tensor.expand_clone(top, y)
        corner: pl.Tensor[[100, 32], pl.FP32, pl.TensorView(valid_shape=[1, 1])] = pl.tensor.set_validshape(product, 1, 1)
        clipped: pl.Tensor[[100, 32], pl.FP32] = pl.tensor.minimum(corner, col)
        return copied, summed, spread, reshaped, clipped

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[100, 64], pl.FP16], b: pl.Tensor[[64, 32], pl.FP16],
             x: pl.Tensor[[100, 32], pl.FP32], x_sum: pl.Tensor[[100, 32], pl.FP32],
             w: pl.Tensor[[1, 32], pl.FP32], z: pl.Tensor[[16, 32], pl.FP32],
             r: pl.Tensor[[4, 16], pl.FP16], y: pl.Tensor[[2, 32], pl.FP16], col: pl.Tensor[[100, 1], pl.FP32]
             ) -> tuple[pl.Tensor[[100, 32], pl.FP32], pl.Tensor[[100, 32], pl.FP32],
                        pl.Tensor[[16, 32], pl.FP32], pl.Tensor[[2, 32], pl.FP16], pl.Tensor[[100, 32], pl.FP32]]:
        copied, summed, spread, reshaped, clipped = self.kernel(a, b, x, x_sum, w, z, r, y, col)
        return copied, summed, spread, reshaped, clipped
