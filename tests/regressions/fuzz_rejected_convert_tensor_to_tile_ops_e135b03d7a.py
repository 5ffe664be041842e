# fuzz-regression: rejected (compile error)
# blamed: convert-tensor-to-tile-ops
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:13:35: error: [ConvertTensorToTileOps] not supported yet: reading an element of `t6`, a pl.UINT8 value the kernel computed (it lives in a tile, and PTOAS's tgetval reads no unsigned tile: its scalar must be signless and equal the element type)
#       hint: read it as the signed type of its width (pl.cast the value, or store it and read the GM tensor)
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[16], pl.UINT8], x2: pl.Tensor[[16], pl.UINT8], x3: pl.Tensor[[16], pl.UINT8]) -> pl.Tensor[[4], pl.FP32]:
        t5: pl.Tensor[[4], pl.FP32] = pl.tensor.abs(pl.tensor.reinterpret_view(x1, dtype=pl.FP32))
        t6: pl.Tensor[[1, 16], pl.UINT8] = pl.tensor.reshape(x1, [1, 16])
        t7: pl.Tensor[[4], pl.FP32] = pl.tensor.reinterpret_view(x1, dtype=pl.FP32)
        t8: pl.Scalar[pl.UINT8] = pl.tensor.read(t6, [0, 0])
        sc9: pl.Tensor[[4], pl.FP32] = pl.tensor.adds(t5, pl.cast(t8, pl.FP32))
        return sc9

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[16], pl.UINT8], kernel0_x2: pl.Tensor[[16], pl.UINT8], kernel0_x3: pl.Tensor[[16], pl.UINT8]) -> pl.Tensor[[4], pl.FP32]:
        kernel0_out: pl.Tensor[[4], pl.FP32] = self.kernel0(kernel0_x1, kernel0_x2, kernel0_x3)
        return kernel0_out
