# fuzz-regression: verifier (verifier)
# blamed: legalize-vec-dtypes
# input-seed: 0
# backend: Ascend950
# pipeline: default
# verdict when found:
#   internal compiler error: Verification failed after 'LegalizeVecDtypes' for properties {DefinedReads}
#   error: [LegalizeVecDtypes] `legalize-vec-dtypes` broke DefinedReads, which it does not declare in `invalidates` (it held before the pass) (the input was verified when it was loaded: this is a compiler bug)
#       hint: for pass authors: fix the pass, or declare the property in its `invalidates` so later passes re-establish it
#   <fuzz>:29:59: error: [DefinedReads] tile.add computes its result over its valid region [1, 16], so it reads `t5` there, past `t5`'s valid region; tile.cast wrote only [1, 1] of it: the elements beyond hold no data
#       hint: give the operands one valid shape (pl.set_validshape on the wider one), or fill the narrower one's padding first (pl.tile.fillpad), or load it at its full extent
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend950
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[16], pl.FP32]) -> pl.Tensor[[16], pl.FP32]:
        t2: pl.Scalar[pl.INDEX] = pl.tensor.get_block_idx()
        t3: pl.Tensor[[16, 1], pl.FP32, pl.TensorView(valid_shape=[1, 1])] = pl.tensor.reshape(x1, [16, 1], [1, 1])
        pl.system.bar_all()
        t4: pl.Tensor[[16], pl.FP32] = pl.tensor.abs(x1)
        return t4

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, x1: pl.Tensor[[1, 16], pl.BF16], out10: pl.Out[pl.Tensor[[1, 16], pl.BF16]], out12: pl.Out[pl.Tensor[[1, 16], pl.BF16]]) -> tuple[pl.Tensor[[1, 16], pl.BF16], pl.Tensor[[1, 16], pl.BF16]]:
        l2: pl.Tile[[1, 16], pl.BF16, pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [1, 16], target_memory=pl.Mem.Vec)
        pl.system.bar_all()
        t3: pl.Tile[[1, 16], pl.BF16] = pl.tile.col_expand_max(l2, l2)
        pl.system.bar_all()
        t4: pl.Tile[[1, 16], pl.BF16] = pl.tile.abs(l2)
        pl.system.bar_all()
        t5: pl.Tile[[1, 16], pl.BF16, pl.TileView(valid_shape=[1, 1])] = pl.tile.set_validshape(t3, 1, 1)
        t6: pl.Tile[[1, 16], pl.BF16, pl.Mem.Vec, pl.TileView(valid_shape=[1, 1])] = pl.tile.set_validshape(l2, 1, 1)
        pl.system.bar_all()
        t7: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        t8: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        st11: pl.Tensor[[1, 16], pl.BF16] = pl.tile.store(pl.tile.add(t4, t5), [0, 0], out10)
        st13: pl.Tensor[[1, 16], pl.BF16] = pl.tile.store(t4, [0, 0], out12)
        return st11, st13

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[16], pl.FP32], kernel1_x1: pl.Tensor[[1, 16], pl.BF16]) -> tuple[pl.Tensor[[16], pl.FP32], pl.Tensor[[1, 16], pl.BF16], pl.Tensor[[1, 16], pl.BF16]]:
        kernel0_out: pl.Tensor[[16], pl.FP32] = self.kernel0(kernel0_x1)
        kernel1_out10: pl.Tensor[[1, 16], pl.BF16] = pl.tensor.create([1, 16], dtype=pl.BF16)
        kernel1_out12: pl.Tensor[[1, 16], pl.BF16] = pl.tensor.create([1, 16], dtype=pl.BF16)
        kernel1_outs: tuple[pl.Tensor[[1, 16], pl.BF16], pl.Tensor[[1, 16], pl.BF16]] = self.kernel1(kernel1_x1, kernel1_out10, kernel1_out12)
        kernel1_out0: pl.Tensor[[1, 16], pl.BF16] = kernel1_outs[0]
        kernel1_out1: pl.Tensor[[1, 16], pl.BF16] = kernel1_outs[1]
        return kernel0_out, kernel1_out0, kernel1_out1
