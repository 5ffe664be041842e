# fuzz-regression: rejected (compile error)
# blamed: infer-tile-memory-space
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:47:43: error: [TypeDeduction] tile.reinterpret_view: operand 'x' (argument 0) not supported yet: reinterpreting the [16, 16] FP32 tile (col_major) as [32, 16] FP16: the col_major [32, 16] tile over the same bytes holds them in another order than the row-major one the view reads
#       hint: reinterpret into a shape whose rows are the source's (the automatic shape), or into one row ([1, n]) or one column ([n, 1])
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[16], pl.INT32]) -> pl.Tensor[[16], pl.INT32]:
        t2: pl.Tensor[[16], pl.FP32] = pl.tensor.reinterpret_view(x1, dtype=pl.FP32)
        t3: pl.Tensor[[16], pl.INT32] = pl.tensor.muls(x1, pl.const(1, pl.INT32))
        return t3

    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, x1: pl.Tensor[[1, 16], pl.INT32], x12: pl.Tensor[[1, 32], pl.INT32], ve32n13: pl.Scalar[pl.INDEX], io16: pl.InOut[pl.Tensor[[1, 32], pl.INT32]], out18: pl.Out[pl.Tensor[[1, 1], pl.FP32]], out20: pl.Out[pl.Tensor[[1, 16], pl.FP32]]) -> tuple[pl.Tensor[[1, 32], pl.INT32], pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 16], pl.FP32]]:
        l2: pl.Tile[[1, 16], pl.INT32, pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [1, 16], target_memory=pl.Mem.Vec)
        t3: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.reinterpret_view(l2, dtype=pl.FP32)
        pl.system.bar_all()
        t4: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.reinterpret_view(l2, dtype=pl.FP32)
        pl.system.bar_all()
        t5: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.reinterpret_view(l2, dtype=pl.FP32)
        pl.system.bar_all()
        t6: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.reinterpret_view(l2, dtype=pl.FP32)
        pl.system.bar_all()
        t7: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.reinterpret_view(l2, dtype=pl.FP32)
        w8: pl.Tile[[1, 1], pl.INT32, pl.Mem.Vec] = pl.tile.slice(l2, [1, 1], [0, 0])
        v10: pl.Tile[[1, 1], pl.FP32, pl.Mem.Vec] = pl.tile.reinterpret_view(pl.tile.slice(l2, [1, 1], [0, 1]), dtype=pl.FP32)
        tile11: pl.Tile[[1, 1], pl.FP32] = pl.tile.abs(v10)
        rg15: pl.Tile[[1, 32], pl.INT32, pl.TileView(valid_shape=[1, ve32n13])] = pl.tile.adds(pl.tile.load(x12, [0, 0], [1, 32], [1, ve32n13], target_memory=pl.Mem.Vec), pl.const(1, pl.INT32))
        st17: pl.Tensor[[1, 32], pl.INT32] = pl.tile.store(rg15, [0, 0], io16)
        st19: pl.Tensor[[1, 1], pl.FP32] = pl.tile.store(tile11, [0, 0], out18)
        st21: pl.Tensor[[1, 16], pl.FP32] = pl.tile.store(t3, [0, 0], out20)
        return st17, st19, st21

    @pl.function(type=pl.FunctionType.InCore)
    def kernel2(self, x1: pl.Tensor[[16, 16], pl.FP32], x3: pl.Tensor[[16, 16], pl.FP32], x13: pl.Tensor[[1, 16], pl.INT32], ve16n14: pl.Scalar[pl.INDEX], io17: pl.InOut[pl.Tensor[[1, 16], pl.INT32]], out19: pl.Out[pl.Tensor[[16, 32], pl.FP16]], out21: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> tuple[pl.Tensor[[1, 16], pl.INT32], pl.Tensor[[16, 32], pl.FP16], pl.Tensor[[16, 16], pl.FP32]]:
        l2: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        l4: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x3, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        s5: pl.Scalar[pl.FP32] = pl.tile.read(l2, [0, 0])
        s6: pl.Scalar[pl.FP32] = s5 + pl.const(0.5, pl.FP32)
        tile7: pl.Tile[[16, 16], pl.FP32] = pl.tile.adds(l2, s6)
        t8: pl.Tile[[16, 16], pl.FP32] = pl.tile.transpose_view(tile7)
        t9: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.reinterpret_view(l2, dtype=pl.FP32)
        t10: pl.Tile[[16, 16], pl.FP32] = pl.tile.abs(l2)
        pl.system.bar_all()
        t11: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.reinterpret_view(l2, dtype=pl.FP32)
        t12: pl.Tile[[16, 32], pl.FP16] = pl.tile.reinterpret_view(t8, dtype=pl.FP16)
        rg16: pl.Tile[[1, 16], pl.INT32, pl.TileView(valid_shape=[1, ve16n14])] = pl.tile.adds(pl.tile.load(x13, [0, 0], [1, 16], [1, ve16n14], target_memory=pl.Mem.Vec), pl.const(1, pl.INT32))
        st18: pl.Tensor[[1, 16], pl.INT32] = pl.tile.store(rg16, [0, 0], io17)
        st20: pl.Tensor[[16, 32], pl.FP16] = pl.tile.store(t12, [0, 0], out19)
        st22: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(tile7, [0, 0], out21)
        return st18, st20, st22

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[16], pl.INT32], kernel1_x1: pl.Tensor[[1, 16], pl.INT32], kernel1_x12: pl.Tensor[[1, 32], pl.INT32], kernel1_ve32n13: pl.Scalar[pl.INDEX], kernel1_io16: pl.Tensor[[1, 32], pl.INT32], kernel2_x1: pl.Tensor[[16, 16], pl.FP32], kernel2_x3: pl.Tensor[[16, 16], pl.FP32], kernel2_x13: pl.Tensor[[1, 16], pl.INT32], kernel2_ve16n14: pl.Scalar[pl.INDEX], kernel2_io17: pl.Tensor[[1, 16], pl.INT32]) -> tuple[pl.Tensor[[16], pl.INT32], pl.Tensor[[1, 32], pl.INT32], pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 16], pl.FP32], pl.Tensor[[1, 16], pl.INT32], pl.Tensor[[16, 32], pl.FP16], pl.Tensor[[16, 16], pl.FP32]]:
        kernel0_out: pl.Tensor[[16], pl.INT32] = self.kernel0(kernel0_x1)
        kernel1_out18: pl.Tensor[[1, 1], pl.FP32] = pl.tensor.create([1, 1], dtype=pl.FP32)
        kernel1_out20: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.create([1, 16], dtype=pl.FP32)
        kernel1_outs: tuple[pl.Tensor[[1, 32], pl.INT32], pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 16], pl.FP32]] = self.kernel1(kernel1_x1, kernel1_x12, kernel1_ve32n13, kernel1_io16, kernel1_out18, kernel1_out20)
        kernel1_out0: pl.Tensor[[1, 32], pl.INT32] = kernel1_outs[0]
        kernel1_out1: pl.Tensor[[1, 1], pl.FP32] = kernel1_outs[1]
        kernel1_out2: pl.Tensor[[1, 16], pl.FP32] = kernel1_outs[2]
        kernel2_out19: pl.Tensor[[16, 32], pl.FP16] = pl.tensor.create([16, 32], dtype=pl.FP16)
        kernel2_out21: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.create([16, 16], dtype=pl.FP32)
        kernel2_outs: tuple[pl.Tensor[[1, 16], pl.INT32], pl.Tensor[[16, 32], pl.FP16], pl.Tensor[[16, 16], pl.FP32]] = self.kernel2(kernel2_x1, kernel2_x3, kernel2_x13, kernel2_ve16n14, kernel2_io17, kernel2_out19, kernel2_out21)
        kernel2_out0: pl.Tensor[[1, 16], pl.INT32] = kernel2_outs[0]
        kernel2_out1: pl.Tensor[[16, 32], pl.FP16] = kernel2_outs[1]
        kernel2_out2: pl.Tensor[[16, 16], pl.FP32] = kernel2_outs[2]
        return kernel0_out, kernel1_out0, kernel1_out1, kernel1_out2, kernel2_out0, kernel2_out1, kernel2_out2
