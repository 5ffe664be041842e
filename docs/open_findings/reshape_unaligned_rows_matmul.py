# red-team (issue 8): a valid kernel refused
# The left operand is a reshape of a [50, 64] FP16 input to [100, 32]: 100 rows are not a whole
# number of 16-row fractal boxes. The reshape happens on flat Vec data, as it must (a re-view of
# Mat's NZ boxes would pair elements with other elements' bytes), but the reshaped tile is moved
# into Mat unboxed, so InferTileMemorySpace refuses it ("not supported yet: ... its rows (100)
# are not a multiple of 16, and a reshaped operand is not boxed for the cube"). A matmul whose
# left operand is *loaded* with 100 rows works (boxed to 112 at the load,
# examples/matmul_boxed_m100_f16.py).
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate
# Root fix: box the Vec -> Mat move of a reshaped operand (a Mat destination of 112 x 32 with
# valid [100, 32], TMOV / the cross-core FIFO writing the valid rows), as the load path boxes.
import pypto.language as pl


@pl.program
class ReshapeRows100:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[50, 64], pl.FP16], b: pl.Tensor[[32, 48], pl.FP16]) -> pl.Tensor[[100, 48], pl.FP32]:
        c = pl.matmul(pl.reshape(a, [100, 32]), b, out_dtype=pl.FP32)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[50, 64], pl.FP16], b: pl.Tensor[[32, 48], pl.FP16]) -> pl.Tensor[[100, 48], pl.FP32]:
        c = self.kernel(a, b)
        return c
