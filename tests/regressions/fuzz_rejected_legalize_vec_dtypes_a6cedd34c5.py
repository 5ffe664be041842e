# fuzz-regression: rejected (compile error)
# blamed: legalize-vec-dtypes
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:38:45: error: [LegalizeVecDtypes] not supported yet: BF16 tile.col_expand_add on this target runs in FP32, and it reads its operand `bc12_tile_over_lhs` (a view valid in [1, 2]) past its valid region over the result's [16, 16]; the widening cannot reach a view's padding
#       hint: give the operands one valid shape (pl.tile.set_validshape), or compute in FP32 (pl.cast before and after)
#   (fixed: ConvertTensorToTileOps narrowed the column broadcast's row to the lhs's valid columns before widening the lhs over the result; the row is now narrowed after)
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.INT32], x3: pl.Tensor[[1, 16], pl.INT32], x8: pl.Tensor[[1, 8], pl.UINT32], x10: pl.Tensor[[1, 16], pl.UINT32], x12: pl.Tensor[[1, 8], pl.INT32], x14: pl.Tensor[[1, 16], pl.INT32], x16: pl.Tensor[[1, 16], pl.INT32], x18: pl.Tensor[[1, 16], pl.UINT32], x20: pl.Tensor[[1, 8], pl.INT32], x22: pl.Tensor[[1, 16], pl.INT32], out30: pl.Out[pl.Tensor[[1, 16], pl.INT32]], out32: pl.Out[pl.Tensor[[1, 16], pl.INT32]]) -> tuple[pl.Tensor[[1, 16], pl.INT32], pl.Tensor[[1, 16], pl.INT32]]:
        l2: pl.Tile[[1, 16], pl.INT32, pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [1, 16], target_memory=pl.Mem.Vec)
        l4: pl.Tile[[1, 16], pl.INT32, pl.Mem.Vec] = pl.tile.load(x3, [0, 0], [1, 16], target_memory=pl.Mem.Vec)
        t6: pl.Tile[[1, 16], pl.INT32] = pl.tile.sels(l2, l2, pl.tile.create([1, 16], dtype=pl.INT32), pl.const(1, pl.INT32))
        t7: pl.Tile[[1, 16], pl.INT32] = pl.tile.add(l2, l2)
        l9: pl.Tile[[1, 8], pl.UINT32, pl.Mem.Vec] = pl.tile.load(x8, [0, 0], [1, 8], target_memory=pl.Mem.Vec)
        l11: pl.Tile[[1, 16], pl.UINT32, pl.Mem.Vec] = pl.tile.load(x10, [0, 0], [1, 16], target_memory=pl.Mem.Vec)
        l13: pl.Tile[[1, 8], pl.INT32, pl.Mem.Vec] = pl.tile.load(x12, [0, 0], [1, 8], target_memory=pl.Mem.Vec)
        l15: pl.Tile[[1, 16], pl.INT32, pl.Mem.Vec] = pl.tile.load(x14, [0, 0], [1, 16], target_memory=pl.Mem.Vec)
        l17: pl.Tile[[1, 16], pl.INT32, pl.Mem.Vec] = pl.tile.load(x16, [0, 0], [1, 16], target_memory=pl.Mem.Vec)
        l19: pl.Tile[[1, 16], pl.UINT32, pl.Mem.Vec] = pl.tile.load(x18, [0, 0], [1, 16], target_memory=pl.Mem.Vec)
        l21: pl.Tile[[1, 8], pl.INT32, pl.Mem.Vec] = pl.tile.load(x20, [0, 0], [1, 8], target_memory=pl.Mem.Vec)
        l23: pl.Tile[[1, 16], pl.INT32, pl.Mem.Vec] = pl.tile.load(x22, [0, 0], [1, 16], target_memory=pl.Mem.Vec)
        d25: pl.Tile[[1, 16], pl.INT32] = pl.tile.adds(pl.tile.shrs(l2, pl.const(27, pl.INT32)), pl.const(16, pl.INT32))
        t26: pl.Tile[[1, 16], pl.INT32] = pl.tile.shl(l2, d25)
        t27: pl.Tile[[1, 16], pl.INT32] = pl.tile.col_max(l2)
        pl.system.bar_m()
        t29: pl.Tile[[1, 16], pl.INT32] = pl.tile.sels(l2, l2, pl.tile.create([1, 16], dtype=pl.INT32), pl.const(1, pl.INT32))
        st31: pl.Tensor[[1, 16], pl.INT32] = pl.tile.store(t29, [0, 0], out30)
        st33: pl.Tensor[[1, 16], pl.INT32] = pl.tile.store(t6, [0, 0], out32)
        return st31, st33

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, x1: pl.Tensor[[16, 16], pl.BF16], x2: pl.Tensor[[16, 16], pl.BF16], x3: pl.Tensor[[16, 16], pl.BF16], x6: pl.Tensor[[16, 1], pl.BF16], x7: pl.Tensor[[1, 16], pl.BF16], x8: pl.Tensor[[1, 1], pl.BF16], bc12: pl.Tensor[[1, 16], pl.BF16], big14: pl.Tensor[[16, 16], pl.BF16]) -> tuple[pl.Tensor[[16, 16], pl.BF16], pl.Tensor[[1, 1], pl.BF16], pl.Tensor[[16, 16], pl.BF16], pl.Tensor[[16, 16], pl.BF16]]:
        t4: pl.Tensor[[16, 16], pl.BF16] = pl.tensor.adds(x1, pl.const(0.5, pl.BF16))
        pl.system.bar_m()
        t5: pl.Tensor[[16, 16], pl.BF16] = pl.tensor.abs(x1)
        pl.system.bar_m()
        r10: pl.Tensor[[1, 1], pl.BF16] = pl.tensor.col_max(pl.tensor.slice(x1, [1, 1], [0, 0], [1, 1]))
        p13: pl.Tensor[[16, 16], pl.BF16] = pl.tensor.add(pl.tensor.set_validshape(x1, 1, 2), bc12)
        win15: pl.Tensor[[16, 16], pl.BF16] = pl.tensor.slice(big14, [16, 16], [0, 0])
        asm16: pl.Tensor[[16, 16], pl.BF16] = pl.tensor.assemble(win15, t4, [0, 0])
        t17: pl.Tensor[[16, 16], pl.BF16] = pl.tensor.muls(win15, pl.const(0.5, pl.BF16))
        return t5, r10, p13, t17

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[1, 16], pl.INT32], kernel0_x3: pl.Tensor[[1, 16], pl.INT32], kernel0_x8: pl.Tensor[[1, 8], pl.UINT32], kernel0_x10: pl.Tensor[[1, 16], pl.UINT32], kernel0_x12: pl.Tensor[[1, 8], pl.INT32], kernel0_x14: pl.Tensor[[1, 16], pl.INT32], kernel0_x16: pl.Tensor[[1, 16], pl.INT32], kernel0_x18: pl.Tensor[[1, 16], pl.UINT32], kernel0_x20: pl.Tensor[[1, 8], pl.INT32], kernel0_x22: pl.Tensor[[1, 16], pl.INT32], kernel1_x1: pl.Tensor[[16, 16], pl.BF16], kernel1_x2: pl.Tensor[[16, 16], pl.BF16], kernel1_x3: pl.Tensor[[16, 16], pl.BF16], kernel1_x6: pl.Tensor[[16, 1], pl.BF16], kernel1_x7: pl.Tensor[[1, 16], pl.BF16], kernel1_x8: pl.Tensor[[1, 1], pl.BF16], kernel1_bc12: pl.Tensor[[1, 16], pl.BF16], kernel1_big14: pl.Tensor[[16, 16], pl.BF16]) -> tuple[pl.Tensor[[1, 16], pl.INT32], pl.Tensor[[1, 16], pl.INT32], pl.Tensor[[16, 16], pl.BF16], pl.Tensor[[1, 1], pl.BF16], pl.Tensor[[16, 16], pl.BF16], pl.Tensor[[16, 16], pl.BF16]]:
        kernel0_out30: pl.Tensor[[1, 16], pl.INT32] = pl.tensor.create([1, 16], dtype=pl.INT32)
        kernel0_out32: pl.Tensor[[1, 16], pl.INT32] = pl.tensor.create([1, 16], dtype=pl.INT32)
        kernel0_outs: tuple[pl.Tensor[[1, 16], pl.INT32], pl.Tensor[[1, 16], pl.INT32]] = self.kernel0(kernel0_x1, kernel0_x3, kernel0_x8, kernel0_x10, kernel0_x12, kernel0_x14, kernel0_x16, kernel0_x18, kernel0_x20, kernel0_x22, kernel0_out30, kernel0_out32)
        kernel0_out0: pl.Tensor[[1, 16], pl.INT32] = kernel0_outs[0]
        kernel0_out1: pl.Tensor[[1, 16], pl.INT32] = kernel0_outs[1]
        kernel1_outs: tuple[pl.Tensor[[16, 16], pl.BF16], pl.Tensor[[1, 1], pl.BF16], pl.Tensor[[16, 16], pl.BF16], pl.Tensor[[16, 16], pl.BF16]] = self.kernel1(kernel1_x1, kernel1_x2, kernel1_x3, kernel1_x6, kernel1_x7, kernel1_x8, kernel1_bc12, kernel1_big14)
        kernel1_out0: pl.Tensor[[16, 16], pl.BF16] = kernel1_outs[0]
        kernel1_out1: pl.Tensor[[1, 1], pl.BF16] = kernel1_outs[1]
        kernel1_out2: pl.Tensor[[16, 16], pl.BF16] = kernel1_outs[2]
        kernel1_out3: pl.Tensor[[16, 16], pl.BF16] = kernel1_outs[3]
        return kernel0_out0, kernel0_out1, kernel1_out0, kernel1_out1, kernel1_out2, kernel1_out3
