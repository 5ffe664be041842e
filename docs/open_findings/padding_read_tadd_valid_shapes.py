# agent-b (tests/test_ptoas.py::test_ptoas_accepts_generated_programs_a5, once the generator's
# draws moved): PTOAS rejects what the generator's padding-read construct compiles to, on a3 and
# a5: "'pto.tadd' op expects src0 and src1 to have the same valid_shape". An element-wise op
# over a narrowed operand (set_validshape [1, 1] of a [1, 16] parameter, whose loaded padding is
# data) and a whole one is full-shape (the spec's exact-region rule covers equal regions only),
# and it is emitted as one pto.tadd whose src0 is v_col=1 and src1 / dst v_col=16. The simulator
# computes it over dst's valid region and matches the interpreter bit for bit, so the campaign
# never sees it; only PTOAS does. Present on main (883318f): not introduced by the new constructs.
# replay: python -m nanopass.pipeline THIS_FILE --backend Ascend950 -o k.pto && ptoas --pto-arch=a5 --pto-level=level3 k.pto -o k.cpp
# Root fix: widen a narrower operand of an element-wise op to the result's valid region first
# (tile.set_validshape, as ConvertTensorToTileOps._broadcast_lhs_over_result does for the
# broadcast ops), keeping the read-past-valid routes (LegalizeVecDtypes' whole-tile
# re-validation, LegalizeVecLayouts' whole row) and their mutants meaningful; and let the
# simulator refuse a binary instruction whose sources' valid shapes differ, as PTOAS does.
import pypto.language as pl


@pl.program
class PaddingReadAdd:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[1, 16], pl.INT32]) -> pl.Tensor[[1, 16], pl.INT32]:
        p13: pl.Tensor[[1, 16], pl.INT32] = pl.tensor.add(pl.tensor.set_validshape(x1, 1, 1), x1)
        return p13

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x1: pl.Tensor[[1, 16], pl.INT32]) -> pl.Tensor[[1, 16], pl.INT32]:
        y: pl.Tensor[[1, 16], pl.INT32] = self.kernel0(x1)
        return y
