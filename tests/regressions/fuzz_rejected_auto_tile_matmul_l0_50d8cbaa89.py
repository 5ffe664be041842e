# fuzz-regression: rejected (compile error)
# blamed: auto-tile-matmul-l0
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:19:9: error: [AutoTileMatmulL0] not supported yet: tile.matmul of a left operand `t2_tile_mat` with 1 physical row: mad writes whole 16-row boxes into L0C, which the [1, 16] accumulator has no room for
#       hint: load the left operand boxed with its rows as the valid extent, e.g. pl.load(a, [0, 0], [16, 16], [1, 16], target_memory=pl.MemorySpace.Mat), or use pl.matmul on tensors, which boxes M itself
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.FP32], bc11: pl.Tensor[[1, 1], pl.FP32]) -> tuple[pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 16], pl.FP32]]:
        t2: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.abs(x1)
        pl.system.bar_all()
        t3: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.abs(x1)
        t4: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.abs(x1)
        pl.system.bar_all()
        t5: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.abs(x1)
        pl.system.bar_all()
        t6: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.abs(x1)
        pl.system.bar_all()
        t7: pl.Tensor[[1, 1], pl.FP32] = pl.tensor.matmul(t2, x1, a_trans=False, b_trans=True, out_dtype=pl.FP32)
        r9: pl.Tensor[[1, 1], pl.FP32] = pl.tensor.col_max(pl.tensor.slice(x1, [1, 1], [0, 0], [1, 1]))
        p12: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.add(pl.tensor.set_validshape(x1, 1, 1), bc11)
        return t7, r9, p12

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.FP32], kernel0_bc11: pl.Tensor[[1, 1], pl.FP32]) -> tuple[pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 16], pl.FP32]]:
        kernel0_outs: tuple[pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 16], pl.FP32]] = self.kernel0(kernel0_x1, kernel0_bc11)
        kernel0_out0: pl.Tensor[[1, 1], pl.FP32] = kernel0_outs[0]
        kernel0_out1: pl.Tensor[[1, 1], pl.FP32] = kernel0_outs[1]
        kernel0_out2: pl.Tensor[[1, 16], pl.FP32] = kernel0_outs[2]
        return kernel0_out0, kernel0_out1, kernel0_out2
