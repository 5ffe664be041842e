# fuzz-regression: rejected (compile error)
# blamed: allocate-memory-addr
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:11:45: error: [AllocateMemoryAddr] Vec usage of kernel `kernel0_aiv` is 352512 bytes, over the Ascend910B Vec capacity of 188416 bytes (the cross-core pipe's slot region takes 121856 bytes; 3 buffers live at once; the largest is `ca3_tile_box`, 121856 bytes, defined here)
#       hint: use smaller tiles (loop over blocks so each tile holds less than 188416 bytes of Vec), or split the kernel into several InCore functions that each keep fewer tiles alive
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, a1: pl.Tensor[[100, 272], pl.FP32], b2: pl.Tensor[[272, 32], pl.FP32]) -> tuple[pl.Tensor[[100, 32], pl.FP32], pl.Tensor[[100, 272], pl.FP32]]:
        ca3: pl.Tensor[[100, 272], pl.FP32] = pl.tensor.muls(a1, pl.const(1.0, pl.FP32))
        c4: pl.Tensor[[100, 32], pl.FP32] = pl.tensor.matmul(ca3, b2, out_dtype=pl.FP32)
        pl.system.bar_all()
        t5: pl.Tensor[[100, 32], pl.FP32] = pl.tensor.abs(c4)
        return t5, ca3

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_a1: pl.Tensor[[100, 272], pl.FP32], kernel0_b2: pl.Tensor[[272, 32], pl.FP32]) -> tuple[pl.Tensor[[100, 32], pl.FP32], pl.Tensor[[100, 272], pl.FP32]]:
        kernel0_outs: tuple[pl.Tensor[[100, 32], pl.FP32], pl.Tensor[[100, 272], pl.FP32]] = self.kernel0(kernel0_a1, kernel0_b2)
        kernel0_out0: pl.Tensor[[100, 32], pl.FP32] = kernel0_outs[0]
        kernel0_out1: pl.Tensor[[100, 272], pl.FP32] = kernel0_outs[1]
        return kernel0_out0, kernel0_out1
