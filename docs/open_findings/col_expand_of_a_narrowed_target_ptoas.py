# (agent-e, uncovered behind GATHER_PADDED in generated programs) PTOAS refuses a kernel that verifies and
# simulates bit-exact: tensor.col_expand of a set_validshape-narrowed target ([16, 32] valid [8, 13]) by a
# full [1, 32] row emits a tcolexpand whose src row is valid over 32 columns and dst over 13 ('pto.tcolexpand'
# op expects src and dst to have the same valid_shape[1]', a3 and a5). Root fix: narrow the row's valid
# columns to the target's (set_validshape) before the instruction, as the row operand of a boxed lhs is.
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate -o k.pto, then ptoas --pto-arch=a3 k.pto
import pypto.language as pl


@pl.program
class ColExpandNarrowed:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 32], pl.FP32], x: pl.Tensor[[1, 32], pl.FP32]
          ) -> pl.Tensor[[16, 32], pl.FP32, pl.TensorView(valid_shape=[8, 13])]:
        c: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.adds(a, 1.0)
        n: pl.Tensor[[16, 32], pl.FP32, pl.TensorView(valid_shape=[8, 13])] = pl.tensor.set_validshape(c, 8, 13)
        t: pl.Tensor[[16, 32], pl.FP32, pl.TensorView(valid_shape=[8, 13])] = pl.tensor.col_expand(n, x)
        return t

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 32], pl.FP32], x: pl.Tensor[[1, 32], pl.FP32]
             ) -> pl.Tensor[[16, 32], pl.FP32, pl.TensorView(valid_shape=[8, 13])]:
        r: pl.Tensor[[16, 32], pl.FP32, pl.TensorView(valid_shape=[8, 13])] = self.k(a, x)
        return r
