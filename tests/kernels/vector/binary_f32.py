import pypto.language as pl


@pl.program
class BinaryF32:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32]) -> tuple[
            pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32],
            pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32]]:
        s = pl.add(a, b)
        d = pl.sub(a, b)
        p = pl.mul(a, b)
        q = pl.div(a, b)
        hi = pl.maximum(a, b)
        lo = pl.minimum(a, b)
        return s, d, p, q, hi, lo

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32]) -> tuple[
            pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32],
            pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32]]:
        s, d, p, q, hi, lo = self.kernel(a, b)
        return s, d, p, q, hi, lo
