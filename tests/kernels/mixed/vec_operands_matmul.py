import pypto.language as pl


@pl.program
class VecOperands:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        p: pl.Tensor[[16, 256], pl.FP16],
        v: pl.Tensor[[256, 64], pl.FP16],
        w: pl.Tensor[[64, 32], pl.FP16],
        out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
        out2: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
    ) -> tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 32], pl.FP32]]:
        # A placed kernel whose left operand the vector core holds (a PV product): AutoTileMatmulL0
        # stages it to Mat (cross-core on Ascend910B) before tiling K.
        p_vec: pl.Tile[[16, 256], pl.FP16, pl.Mem.Vec] = pl.tile.load(p, [0, 0], [16, 256])
        v_mat: pl.Tile[[256, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(v, [0, 0], [256, 64], target_memory=pl.Mem.Mat)
        c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(p_vec, v_mat)
        out = pl.store(c, [0, 0], out)
        # And one whose right operand sits in Vec: staged to Mat the same way.
        p_mat: pl.Tile[[16, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(p, [0, 0], [16, 64], target_memory=pl.Mem.Mat)
        w_vec: pl.Tile[[64, 32], pl.FP16, pl.Mem.Vec] = pl.tile.load(w, [0, 0], [64, 32])
        d: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(p_mat, w_vec)
        out2 = pl.store(d, [0, 0], out2)
        return out, out2
