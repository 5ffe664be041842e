import pypto.language as pl


@pl.program
class MatCarry:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        seed: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        rhs: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        for i, (acc,) in pl.range(2, init_values=(seed,)):
            product: pl.Tile[[16, 16], pl.FP32] = pl.tile.matmul(acc, rhs)
            r = pl.yield_(product)
        st: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(r, [0, 0], out)
        return st
