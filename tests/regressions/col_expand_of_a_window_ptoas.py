# (agent-i, while testing finding 406905d9c9; also on 2f1c225 and lead-17 ad5b071) PTOAS refuses a kernel that verifies
# and simulates bit-exact: a column broadcast (tensor.sub of a [4, 32] window of a computed [8, 32] value by
# a [1, 32] row) emits pto.tcolexpandsub whose src0 is the window's pto.subview ([4, 32] of the [8, 32]
# tile): 'pto.tcolexpandsub' op expects src0/dst to have same shape (a3 and a5), though the types printed
# are both 4x32; a column window ([8, 16] at column 16) is refused the same way, a row broadcast
# (trowexpandmul) of the same window is accepted. Fixed (agent-m): PTOAS verifies tcolexpand* again after
# lowering the subview to a bind_tile of its parent's [8, 32] buffer, and its column-broadcast verifier does not
# step aside there; LegalizeVecLayouts copies the window first (SHAPE_MATCHED_INSTRUCTIONS), TargetOpRules checks
# it on the PTO program (SameDeclaredShape). tests/test_instruction_operand_shapes.py assembles this file.
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate -o k.pto, then ptoas --pto-arch=a3 k.pto
import pypto.language as pl


@pl.program
class ColExpandOfAWindow:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[8, 32], pl.FP32], r: pl.Tensor[[4, 1], pl.FP32],
               c: pl.Tensor[[1, 32], pl.FP32]) -> tuple[pl.Tensor[[4, 32], pl.FP32], pl.Tensor[[4, 32], pl.FP32]]:
        e: pl.Tensor[[8, 32], pl.FP32] = pl.tensor.mul(x, x)
        low: pl.Tensor[[4, 32], pl.FP32, pl.TensorView(valid_shape=[1, 32])] = pl.tensor.slice(e, [4, 32], [4, 0], [1, 32])
        rows: pl.Tensor[[4, 32], pl.FP32] = pl.tensor.mul(low, r)
        right: pl.Tensor[[4, 32], pl.FP32] = pl.tensor.slice(e, [4, 32], [2, 0])
        cols: pl.Tensor[[4, 32], pl.FP32] = pl.tensor.sub(right, c)
        return rows, cols

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[8, 32], pl.FP32], r: pl.Tensor[[4, 1], pl.FP32],
             c: pl.Tensor[[1, 32], pl.FP32]) -> tuple[pl.Tensor[[4, 32], pl.FP32], pl.Tensor[[4, 32], pl.FP32]]:
        outs: tuple[pl.Tensor[[4, 32], pl.FP32], pl.Tensor[[4, 32], pl.FP32]] = self.kernel(x, r, c)
        a: pl.Tensor[[4, 32], pl.FP32] = outs[0]
        b: pl.Tensor[[4, 32], pl.FP32] = outs[1]
        return a, b
