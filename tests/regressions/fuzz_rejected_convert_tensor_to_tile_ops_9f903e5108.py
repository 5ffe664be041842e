# fuzz-regression: rejected (compile error)
# blamed: convert-tensor-to-tile-ops
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:13:43: error: [ConvertTensorToTileOps] not supported yet: `tensor.add` broadcasting `reinterpret_view_0_tile` (a tile.reinterpret_view view valid over [1, 1]) over its result's valid region [1, 16]: a view carries its valid extent in its own type
#       hint: give the view the valid_shape the result needs, or compute on a copy of it
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[16], pl.INT32], x5: pl.Tensor[[1, 1], pl.FP32]) -> pl.Tensor[[1, 16], pl.FP32]:
        t2: pl.Tensor[[1, 16], pl.INT32, pl.TensorView(valid_shape=[1, 1])] = pl.tensor.reshape(x1, [1, 16], [1, 1])
        t3: pl.Tensor[[16], pl.FP32] = pl.tensor.reinterpret_view(x1, dtype=pl.FP32)
        pl.system.bar_all()
        t6: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.add(pl.tensor.reinterpret_view(t2, dtype=pl.FP32), x5)
        return t6

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[16], pl.INT32], kernel0_x5: pl.Tensor[[1, 1], pl.FP32]) -> pl.Tensor[[1, 16], pl.FP32]:
        kernel0_out: pl.Tensor[[1, 16], pl.FP32] = self.kernel0(kernel0_x1, kernel0_x5)
        return kernel0_out
