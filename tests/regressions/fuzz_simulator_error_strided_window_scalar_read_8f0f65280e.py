# fuzz-regression: simulator-error (simulator fault)
# blamed: memory planning / codegen / simulator (after L0Tiled)
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:10:34: error: [Simulator] pto.load_scalar: element offset 48 leaves tensor arg0 of 32 elements
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# fixed (agent-r, found by the generator's construct:orchestration-windows): a tensor.read of a
# kernel parameter called on a column block reads at the wider tensor's strides (offset 1 * 48);
# the simulator's pto.load_scalar / pto.store_scalar took the element offset as one of a packed
# tensor; they now map it through the tensor view's strides.
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[2, 16], pl.FP32], k2: pl.Scalar[pl.FP32], k6: pl.Scalar[pl.UINT32]) -> pl.Tensor[[2, 16], pl.FP32]:
        s3: pl.Scalar[pl.FP32] = pl.tensor.read(x1, [1, 0])
        s4: pl.Scalar[pl.FP32] = s3
        t5: pl.Tensor[[2, 16], pl.FP32] = pl.tensor.adds(x1, s4)
        if (k6 - pl.const(0, pl.UINT32)) // pl.const(3, pl.UINT32) == pl.const(1, pl.UINT32):
            t7: pl.Tensor[[2, 16], pl.FP32] = pl.tensor.adds(t5, pl.const(0.5, pl.FP32))
            phi9 = pl.yield_(t7)
        else:
            t8: pl.Tensor[[2, 16], pl.FP32] = pl.tensor.add(t5, t5)
            phi9 = pl.yield_(t8)
        sc10: pl.Tensor[[2, 16], pl.FP32] = pl.tensor.adds(phi9, k2)
        return sc10

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[2, 48], pl.FP32], kernel0_k2: pl.Scalar[pl.FP32], kernel0_k6: pl.Scalar[pl.UINT32]) -> pl.Tensor[[2, 48], pl.FP32]:
        kernel0_acc: pl.Tensor[[2, 48], pl.FP32] = pl.tensor.create([2, 48], dtype=pl.FP32)
        for kernel0_blk, (kernel0_acc_iter,) in pl.range(3, init_values=(kernel0_acc,)):
            kernel0_x1_blk: pl.Tensor[[2, 16], pl.FP32] = pl.tensor.slice(kernel0_x1, [2, 16], [0, kernel0_blk * 16])
            kernel0_piece: pl.Tensor[[2, 16], pl.FP32] = self.kernel0(kernel0_x1_blk, kernel0_k2, kernel0_k6)
            kernel0_placed: pl.Tensor[[2, 48], pl.FP32] = pl.tensor.assemble(kernel0_acc_iter, kernel0_piece, [0, kernel0_blk * 16])
            kernel0_out = pl.yield_(kernel0_placed)
        return kernel0_out
