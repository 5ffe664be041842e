# fuzz-regression: verifier (verifier)
# blamed: infer-tile-memory-space
# input-seed: 22281
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   internal compiler error: Verification failed after 'InferTileMemorySpace' for properties {DefinedReads}
#   error: [InferTileMemorySpace] `infer-tile-memory-space` broke DefinedReads, which it does not declare in `invalidates` (it held before the pass) (the input was verified when it was loaded: this is a compiler bug)
#       hint: for pass authors: fix the pass, or declare the property in its `invalidates` so later passes re-establish it
#   <fuzz>:33:9: error: [DefinedReads] tile.store reads `t5_tile` over its valid region [9, 9], but tile.move wrote only [6, 0] of it: the elements beyond hold no data
#       hint: set_validshape widens the metadata only: write the elements first (load or fill them)
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 22281 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
# (stop 27's final 300 s campaign on 3ced3b4, seed 99; not fixed) an internal compiler error: DefinedReads after
# InferTileMemorySpace. kernel2 slices a set_validshape-narrowed product (valid [9, 15]) at [3, 23] with
# extent [9, 9]: the window lies past the source's valid region, yet tensor.slice's deduction gives it a
# full valid region [9, 9] (the tile-level move writes only [6, 0]). Root fix: a slice's valid region is
# its window intersected with its source's valid region (or a located refusal of a window past it), and
# the generator draws windows inside the valid region.
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, y1: pl.Tensor[[1, 16], pl.FP32], x2: pl.Tensor[[1, 16], pl.FP32], x4: pl.Tensor[[1, 16], pl.FP32], x9: pl.Tensor[[1, 16], pl.FP32], x12: pl.Tensor[[1, 1], pl.FP32]) -> pl.Tensor[[1, 16], pl.FP32]:
        t3: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.adds(x2, pl.const(0.5, pl.FP32))
        t5: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.adds(x4, pl.const(0.5, pl.FP32))
        for i6, (acc7, acc8,) in pl.range(2, init_values=(t3, t5,)):
            t10: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.exp(acc7)
            t11: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.full([16, 16], value=pl.const(0.5, pl.FP32), dtype=pl.FP32)
            t13: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.row_expand_add(acc7, x12)
            out14, out15 = pl.yield_(acc8, acc7)
        t16: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.add(out14, out15)
        return t16

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, a1: pl.Tensor[[1, 32], pl.BF16], b2: pl.Tensor[[32, 32], pl.BF16], out6: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        l3: pl.Tile[[16, 32], pl.BF16, pl.Mem.Mat, pl.TileView(valid_shape=[1, 32])] = pl.tile.load(a1, [0, 0], [16, 32], [1, 32], target_memory=pl.Mem.Mat)
        l4: pl.Tile[[32, 32], pl.BF16, pl.Mem.Mat] = pl.tile.load(b2, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
        t5: pl.Tile[[16, 32], pl.FP32, pl.TileView(valid_shape=[1, 32])] = pl.tile.matmul(l3, l4)
        st7: pl.Tensor[[16, 32], pl.FP32] = pl.tile.store(t5, [0, 0], out6)
        return st7

    @pl.function(type=pl.FunctionType.InCore)
    def kernel2(self, a1: pl.Tensor[[16, 32], pl.FP32], b2: pl.Tensor[[32, 32], pl.FP32]) -> pl.Tensor[[9, 9], pl.FP32]:
        c3: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.matmul(a1, b2, out_dtype=pl.FP32)
        c4: pl.Tensor[[16, 32], pl.FP32, pl.TensorView(valid_shape=[9, 15])] = pl.tensor.set_validshape(c3, 9, 15)
        t5: pl.Tensor[[9, 9], pl.FP32] = pl.tensor.slice(c4, [9, 9], [3, 23])
        return t5

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_y1: pl.Tensor[[1, 16], pl.FP32], kernel0_x2: pl.Tensor[[1, 16], pl.FP32], kernel0_x4: pl.Tensor[[1, 16], pl.FP32], kernel0_x9: pl.Tensor[[1, 16], pl.FP32], kernel0_x12: pl.Tensor[[1, 1], pl.FP32], kernel1_a1: pl.Tensor[[1, 32], pl.BF16], kernel1_b2: pl.Tensor[[32, 32], pl.BF16], kernel2_b2: pl.Tensor[[32, 32], pl.FP32]) -> tuple[pl.Tensor[[1, 16], pl.FP32], pl.Tensor[[9, 9], pl.FP32]]:
        kernel0_out: pl.Tensor[[1, 16], pl.FP32] = self.kernel0(kernel0_y1, kernel0_x2, kernel0_x4, kernel0_x9, kernel0_x12)
        kernel1_out6: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.create([16, 32], dtype=pl.FP32)
        kernel1_out: pl.Tensor[[16, 32], pl.FP32] = self.kernel1(kernel1_a1, kernel1_b2, kernel1_out6)
        kernel2_out: pl.Tensor[[9, 9], pl.FP32] = self.kernel2(kernel1_out, kernel2_b2)
        return kernel0_out, kernel2_out
