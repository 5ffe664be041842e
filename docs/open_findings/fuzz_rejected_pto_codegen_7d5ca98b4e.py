# fuzz-regression: rejected (compile error)
# blamed: pto-codegen
# input-seed: 0
# backend: Ascend950
# pipeline: default
# verdict when found:
#   <fuzz>:11:43: error: [BoxedExtents] a Mat tile of physical shape [32, 16] and dtype int8 must be a whole number of 16x32 fractal boxes, but its column extent 16 is not a multiple of 32. PTO addresses a boxed tile one box at a time, so a partial box has no address. The *logical* extent is free -- allocate 32 on that axis and declare 16 as the tile's valid_shape (`valid_shape=` on pl.load / pl.tile.create + pl.set_validshape), which moves and computes only the real data. A tensor-level pl.matmul / pl.matmul_acc does this for its M axis automatically.
#       hint: round the physical shape up to whole boxes and narrow the logical extent with valid_shape
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend950
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 32], pl.INT8]) -> tuple[pl.Tensor[[1, 1], pl.INT32], pl.Tensor[[1, 32], pl.INT8]]:
        t2: pl.Tensor[[1, 32], pl.INT8] = pl.tensor.col_expand(x1, x1)
        t3: pl.Tensor[[1, 1], pl.INT32] = pl.tensor.matmul(x1, t2, a_trans=False, b_trans=True, out_dtype=pl.INT32)
        return t3, t2

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 32], pl.INT8]) -> tuple[pl.Tensor[[1, 1], pl.INT32], pl.Tensor[[1, 32], pl.INT8]]:
        kernel0_outs: tuple[pl.Tensor[[1, 1], pl.INT32], pl.Tensor[[1, 32], pl.INT8]] = self.kernel0(kernel0_x1)
        kernel0_out0: pl.Tensor[[1, 1], pl.INT32] = kernel0_outs[0]
        kernel0_out1: pl.Tensor[[1, 32], pl.INT8] = kernel0_outs[1]
        return kernel0_out0, kernel0_out1
