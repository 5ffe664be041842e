# fuzz-regression: rejected (compile error)
# blamed: convert-tensor-to-tile-ops
# input-seed: 0
# backend: Ascend950
# pipeline: default
# verdict when found:
#   <fuzz>:11:35: error: [ConvertTensorToTileOps] not supported yet: reading an element of `t2`, a pl.UINT8 value the kernel computed (it lives in a tile, and PTOAS's tgetval reads no unsigned tile: its scalar must be signless and equal the element type)
#       hint: read it as the signed type of its width (pl.cast the value, or store it and read the GM tensor)
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend950
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.UINT8], bc5: pl.Tensor[[1, 1], pl.UINT8], big7: pl.Tensor[[1, 16], pl.UINT8]) -> tuple[pl.Tensor[[1, 16], pl.UINT8], pl.Tensor[[1, 16], pl.UINT8]]:
        t2: pl.Tensor[[1, 16], pl.UINT8] = pl.tensor.divs(x1, pl.const(1, pl.UINT8))
        t3: pl.Scalar[pl.UINT8] = pl.tensor.read(t2, [0, 0])
        p6: pl.Tensor[[1, 16], pl.UINT8] = pl.tensor.add(pl.tensor.set_validshape(x1, 1, 1), bc5)
        win8: pl.Tensor[[1, 16], pl.UINT8] = pl.tensor.slice(big7, [1, 16], [0, 0])
        asm9: pl.Tensor[[1, 16], pl.UINT8] = pl.tensor.assemble(win8, t2, [0, 0])
        t10: pl.Tensor[[1, 16], pl.UINT8] = pl.tensor.muls(win8, pl.const(1, pl.UINT8))
        sc11: pl.Tensor[[1, 16], pl.UINT8] = pl.tensor.adds(p6, t3)
        return sc11, t10

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.UINT8], kernel0_bc5: pl.Tensor[[1, 1], pl.UINT8], kernel0_big7: pl.Tensor[[1, 16], pl.UINT8]) -> tuple[pl.Tensor[[1, 16], pl.UINT8], pl.Tensor[[1, 16], pl.UINT8]]:
        kernel0_outs: tuple[pl.Tensor[[1, 16], pl.UINT8], pl.Tensor[[1, 16], pl.UINT8]] = self.kernel0(kernel0_x1, kernel0_bc5, kernel0_big7)
        kernel0_out0: pl.Tensor[[1, 16], pl.UINT8] = kernel0_outs[0]
        kernel0_out1: pl.Tensor[[1, 16], pl.UINT8] = kernel0_outs[1]
        return kernel0_out0, kernel0_out1
