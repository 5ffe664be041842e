# fuzz-regression: rejected (compile error)
# blamed: auto-tile-matmul-l0
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:18:59: error: [AutoTileMatmulL0] not supported yet: tile.matmul of a left operand `t2_tile_mat` with 1 physical row: mad writes whole 16-row boxes into L0C, which the [1, 16] accumulator has no room for
#       hint: load the left operand boxed with its rows as the valid extent, e.g. pl.load(a, [0, 0], [16, 16], [1, 16], target_memory=pl.MemorySpace.Mat), or use pl.matmul on tensors, which boxes M itself
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.FP32]) -> pl.Tensor[[1, 1], pl.FP32]:
        t2: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.muls(x1, pl.const(0.5, pl.FP32))
        s3: pl.Scalar[pl.FP32] = pl.tensor.read(x1, [0, 0])
        s4: pl.Scalar[pl.FP32] = pl.cast(pl.cast(s3 + pl.const(0.5, pl.FP32), pl.FP16), pl.FP32)
        t5: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.adds(t2, s4)
        n6: pl.Scalar[pl.INDEX] = pl.tensor.dim(x1, axis=0)
        n7: pl.Scalar[pl.INDEX] = n6 * 2
        pl.system.bar_all()
        t8: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.abs(x1)
        sc10: pl.Tensor[[1, 1], pl.FP32] = pl.tensor.adds(pl.tensor.matmul(t2, x1, a_trans=False, b_trans=True, out_dtype=pl.FP32), pl.cast(n7, pl.FP32))
        return sc10

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.FP32]) -> pl.Tensor[[1, 1], pl.FP32]:
        kernel0_out: pl.Tensor[[1, 1], pl.FP32] = self.kernel0(kernel0_x1)
        return kernel0_out
