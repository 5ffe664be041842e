# BF16 ops that select a value (abs, relu, max, max with a scalar, column max, part max) and
# the part add, which copies an operand where only one is valid. PTOAS takes no BF16 form of
# most of them, so LegalizeVecDtypes computes them in FP32, carrying the BF16 bits there and
# back (Fp32Route.BITS; BITS_ROUNDED for the part add): a signalling NaN comes out as the BF16
# op gives it, where a tcvt would quiet it. (tests/test_legalize_vec_dtypes_nan.py runs it on NaNs.)
import pypto.language as pl


@pl.program
class Bf16ValueSelecting:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 32], pl.BF16], b: pl.Tensor[[16, 32], pl.BF16]
          ) -> tuple[pl.Tensor[[16, 32], pl.BF16], pl.Tensor[[16, 32], pl.BF16], pl.Tensor[[1, 32], pl.BF16],
                     pl.Tensor[[16, 32], pl.BF16], pl.Tensor[[16, 32], pl.BF16]]:
        picked = pl.tensor.maximum(pl.tensor.abs(a), pl.tensor.relu(b))
        floor = pl.tensor.maximum(a, -0.0)
        top = pl.tensor.col_max(b)
        # a valid [8, 16]: b alone outside it, copied (PTOAS wants one operand valid as the result).
        av: pl.Tensor[[16, 32], pl.BF16, pl.TensorView(valid_shape=[8, 16])] = pl.tensor.set_validshape(a, 8, 16)
        return picked, floor, top, pl.tensor.part_max(av, b), pl.tensor.part_add(av, b)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 32], pl.BF16], b: pl.Tensor[[16, 32], pl.BF16]
             ) -> tuple[pl.Tensor[[16, 32], pl.BF16], pl.Tensor[[16, 32], pl.BF16], pl.Tensor[[1, 32], pl.BF16],
                        pl.Tensor[[16, 32], pl.BF16], pl.Tensor[[16, 32], pl.BF16]]:
        picked, floor, top, most, total = self.k(a, b)
        return picked, floor, top, most, total
