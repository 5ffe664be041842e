# fuzz-regression: mismatch (simulator mismatch)
# blamed: convert-tensor-to-tile-ops..update-orchestration-call-sites
# input-seed: 0
# backend: Ascend950
# pipeline: default
# verdict when found:
#   ret3: MISMATCH at [0, 1]: compiled 0xffff, interpreter 0x3800 (3199 of 3200 elements differ)
#   the output of update-orchestration-call-sites, interpreted, already differs:
#   ret3: MISMATCH at [0, 1]: compiled 0xffff, interpreter 0x3800 (3199 of 3200 elements differ)
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend950
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 32], pl.INT32], out6: pl.Out[pl.Tensor[[1, 32], pl.INT32]]) -> pl.Tensor[[1, 32], pl.INT32]:
        l2: pl.Tile[[1, 32], pl.INT32, pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [1, 32], target_memory=pl.Mem.Vec)
        t3: pl.Tile[[1, 32], pl.INT32, pl.Mem.Vec, pl.TileView(pad=pl.TilePad.zero)] = pl.tile.fillpad(l2)
        t4: pl.Tile[[1, 32], pl.INT32] = pl.tile.relu(l2)
        st7: pl.Tensor[[1, 32], pl.INT32] = pl.tile.store(pl.tile.col_min(l2), [0, 0], out6)
        return st7

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, x1: pl.Tensor[[1, 16], pl.FP32], k2: pl.Scalar[pl.FP32], k6: pl.Scalar[pl.UINT32]) -> tuple[pl.Tensor[[1, 16], pl.FP32], pl.Tensor[[1, 16], pl.FP32]]:
        s3: pl.Scalar[pl.FP32] = pl.tensor.read(x1, [0, 0])
        s4: pl.Scalar[pl.FP32] = k2
        t5: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.adds(x1, s4)
        if (k6 - pl.const(1, pl.UINT32)) // pl.const(3, pl.UINT32) == pl.const(1, pl.UINT32):
            t7: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.adds(t5, pl.const(0.5, pl.FP32))
            phi9 = pl.yield_(t7)
        else:
            t8: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.add(t5, t5)
            phi9 = pl.yield_(t8)
        sc10: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.adds(phi9, s3)
        return sc10, t5

    @pl.function(type=pl.FunctionType.InCore)
    def kernel2(self, a1: pl.Tensor[[100, 272], pl.FP16], b2: pl.Tensor[[272, 32], pl.FP16], x6: pl.Tensor[[100, 1], pl.FP16]) -> pl.Tensor[[100, 32], pl.FP16]:
        c4: pl.Tensor[[100, 32], pl.FP16] = pl.tensor.matmul(pl.tensor.muls(a1, pl.const(1.0, pl.FP16)), b2)
        t7: pl.Tensor[[100, 32], pl.FP16] = pl.tensor.minimum(pl.tensor.set_validshape(c4, 1, 1), x6)
        return t7

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 32], pl.INT32], kernel1_x1: pl.Tensor[[1, 16], pl.FP32], kernel1_k2: pl.Scalar[pl.FP32], kernel1_k6: pl.Scalar[pl.UINT32], kernel2_a1: pl.Tensor[[100, 272], pl.FP16], kernel2_b2: pl.Tensor[[272, 32], pl.FP16], kernel2_x6: pl.Tensor[[100, 1], pl.FP16]) -> tuple[pl.Tensor[[1, 32], pl.INT32], pl.Tensor[[1, 16], pl.FP32], pl.Tensor[[1, 16], pl.FP32], pl.Tensor[[100, 32], pl.FP16]]:
        kernel0_out6: pl.Tensor[[1, 32], pl.INT32] = pl.tensor.create([1, 32], dtype=pl.INT32)
        kernel0_out: pl.Tensor[[1, 32], pl.INT32] = self.kernel0(kernel0_x1, kernel0_out6)
        kernel1_outs: tuple[pl.Tensor[[1, 16], pl.FP32], pl.Tensor[[1, 16], pl.FP32]] = self.kernel1(kernel1_x1, kernel1_k2, kernel1_k6)
        kernel1_out0: pl.Tensor[[1, 16], pl.FP32] = kernel1_outs[0]
        kernel1_out1: pl.Tensor[[1, 16], pl.FP32] = kernel1_outs[1]
        kernel2_out: pl.Tensor[[100, 32], pl.FP16] = self.kernel2(kernel2_a1, kernel2_b2, kernel2_x6)
        return kernel0_out, kernel1_out0, kernel1_out1, kernel2_out
