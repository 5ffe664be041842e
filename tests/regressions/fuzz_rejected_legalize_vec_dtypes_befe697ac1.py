# fuzz-regression: rejected (compile error)
# blamed: legalize-vec-dtypes
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   error: [TypeDeduction] tile.reinterpret_view: not supported yet: tile.reinterpret_view of a value whose valid shape holds the runtime valid extent `ve16n2`
#       hint: give the operand a constant valid shape (or pass the runtime extent only to loads, slices, set_validshape and element-wise ops)
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.BF16], ve16n2: pl.Scalar[pl.INDEX], io3: pl.InOut[pl.Tensor[[1, 16], pl.BF16]]) -> pl.Tensor[[1, 16], pl.BF16]:
        l4: pl.Tile[[1, 16], pl.BF16, pl.Mem.Vec, pl.TileView(valid_shape=[1, ve16n2])] = pl.tile.load(x1, [0, 0], [1, 16], [1, ve16n2], target_memory=pl.Mem.Vec)
        rg5: pl.Tile[[1, 16], pl.BF16, pl.Mem.Vec, pl.TileView(valid_shape=[1, ve16n2])] = pl.tile.maximums(l4, pl.const(0.5, pl.BF16))
        st6: pl.Tensor[[1, 16], pl.BF16] = pl.tile.store(rg5, [0, 0], io3)
        return st6

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x1: pl.Tensor[[1, 16], pl.BF16], ve16n2: pl.Scalar[pl.INDEX], io3: pl.Tensor[[1, 16], pl.BF16]) -> pl.Tensor[[1, 16], pl.BF16]:
        r: pl.Tensor[[1, 16], pl.BF16] = self.kernel0(x1, ve16n2, io3)
        return r
