# Matrix-vector products: gemv_bias starts the row's MAD chain from the bias, gemv_acc continues
# it (NUMERICS.md section 1). The vector is one valid row of a 16-row Left box (pto.tgemv reads
# valid row 1); acc_phase picks the instruction's template, not the values.
import pypto.language as pl


@pl.program
class Gemv:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        v: pl.Tensor[[1, 128], pl.FP16],
        w: pl.Tensor[[128, 32], pl.FP16],
        bias: pl.Tensor[[1, 32], pl.FP32],
        out: pl.Out[pl.Tensor[[1, 32], pl.FP32]],
    ) -> pl.Tensor[[1, 32], pl.FP32]:
        v_mat = pl.tile.load(v, [0, 0], [16, 128], [1, 128], target_memory=pl.Mem.Mat)
        w_mat = pl.tile.load(w, [0, 0], [128, 32], target_memory=pl.Mem.Mat)
        bias_mat = pl.tile.load(bias, [0, 0], [1, 32], target_memory=pl.Mem.Mat)
        first = pl.tile.gemv_bias(v_mat, w_mat, bias_mat, acc_phase="partial")
        second = pl.tile.gemv_acc(first, v_mat, w_mat, acc_phase="final")
        out = pl.store(second, [0, 0], out)
        return out
