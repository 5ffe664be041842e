# fuzz-regression: rejected (compile error)
# blamed: convert-tensor-to-tile-ops
# input-seed: 1
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   <fuzz>:10:35: error: [ConvertTensorToTileOps] `tensor.dim` has no tile lowering in an InCore function
#       hint: rewrite it with supported tensor ops (tensor.abs, tensor.add, tensor.adds, tensor.and, tensor.ands, tensor.assemble, tensor.cast, tensor.ci, tensor.cmp, tensor.col_expand, tensor.col_expand_add, tensor.col_expand_div, tensor.col_expand_expdif, tensor.col_expand_mul, tensor.col_expand_sub, tensor.col_max, tensor.col_min, tensor.col_prod, tensor.col_sum, tensor.concat, tensor.create, tensor.dim, tensor.div, tensor.divs, tensor.exp, tensor.expand_clone, tensor.expands, tensor.fillpad, tensor.fmod, tensor.fmods, tensor.full, tensor.gather, tensor.gather_mask, tensor.get_block_idx, tensor.get_block_num, tensor.get_subblock_idx, tensor.log, tensor.matmul, tensor.matmul_acc, tensor.maximum, tensor.minimum, tensor.mrgsort_format1, tensor.mrgsort_format2, tensor.mul, tensor.muls, tensor.neg, tensor.not, tensor.or, tensor.ors, tensor.part_add, tensor.part_max, tensor.part_min, tensor.part_mul, tensor.random, tensor.read, tensor.recip, tensor.reinterpret_view, tensor.relu, tensor.reshape, tensor.row_expand, tensor.row_expand_add, tensor.row_expand_div, tensor.row_expand_expdif, tensor.row_expand_mul, tensor.row_expand_sub, tensor.row_max, tensor.row_min, tensor.row_prod, tensor.row_sum, tensor.rsqrt, tensor.scatter, tensor.scatter_mask, tensor.scatter_update, tensor.set_validshape, tensor.shl, tensor.shls, tensor.shr, tensor.shrs, tensor.slice, tensor.sort32, tensor.sqrt, tensor.sub, tensor.subs, tensor.transpose, tensor.view, tensor.write, tensor.xor, tensor.xors) or hand-written tile.* ops
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 1 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[16], pl.FP16]) -> pl.Tensor[[16], pl.FP16]:
        n3: pl.Scalar[pl.INDEX] = pl.tensor.dim(pl.tensor.muls(x1, pl.const(0.5, pl.FP16)), axis=0)
        n4: pl.Scalar[pl.INDEX] = n3 * 2
        pl.system.bar_v()
        t5: pl.Tensor[[16], pl.FP16] = pl.tensor.adds(x1, pl.const(0.5, pl.FP16))
        sc7: pl.Tensor[[16], pl.FP16] = pl.tensor.adds(pl.tensor.abs(x1), pl.cast(n4, pl.FP16))
        return sc7

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[16], pl.FP16]) -> pl.Tensor[[16], pl.FP16]:
        kernel0_out: pl.Tensor[[16], pl.FP16] = self.kernel0(kernel0_x1)
        return kernel0_out
