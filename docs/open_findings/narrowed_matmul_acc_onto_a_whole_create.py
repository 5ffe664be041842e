# (agent-ab, issue 8 neighbour; not fixed) an internal error on both targets: AccCompactValid after
# AutoTileMatmulL0. A straight-line `tensor.matmul_acc(acc, a_narrowed, b, True)` onto a
# `pl.create_tensor([32, 16])` accumulator whose left operand is valid over 2 rows: "tile.matmul_acc
# accumulator operand acc_tile [32, 16] is not compact, but MAD writes it at row pitch 16 (Left valid
# rows 2) while readers use its 32 physical rows". The program is valid: it returns the 2 rows the
# product computed (init_cond=True: the accumulator is never read). Not investigated further; the
# likely root: the created seed of a straight-line matmul_acc over a row-narrowed product is not
# allocated compact at the product's M (tile.create(compact=True) + set_validshape), as the spec's
# HandleBoxedAccCreate / NarrowAccCarries do for boxed operands and loop carries.
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
import pypto.language as pl


@pl.program
class K:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16]) -> pl.Tensor[[2, 16], pl.FP32]:
        acc: pl.Tensor[[32, 16], pl.FP32] = pl.tensor.create([32, 16], dtype=pl.FP32)
        c: pl.Tensor[[32, 16], pl.FP32] = pl.tensor.matmul_acc(acc, pl.tensor.slice(a, [32, 16], [0, 0], [2, 16]), b, True)
        w: pl.Tensor[[2, 16], pl.FP32] = pl.tensor.slice(c, [2, 16], [0, 0])
        return w
