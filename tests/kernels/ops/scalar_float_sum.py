# Float scalar sums (k1 + k2, then + -0.0) feeding a tile op: PTO spells each as two subtractions
# (FLOAT_ADD_AS_SUBTRACTIONS); tests/test_ptoas.py hands the kernel to PTOAS on both targets.
import pypto.language as pl


@pl.program
class ScalarAdd:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[8, 16], pl.FP32], k1: pl.Scalar[pl.FP32], k2: pl.Scalar[pl.FP32]) -> pl.Tensor[[8, 16], pl.FP32]:
        s = k1 + k2
        t = s + pl.const(-0.0, pl.FP32)
        return pl.adds(x, t)
