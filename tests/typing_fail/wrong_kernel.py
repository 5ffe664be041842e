# A kernel with wrong calls: `mypy tests/typing_fail/wrong_kernel.py` must flag each one (tests/test_typing.py).
import pypto.language as pl


@pl.program
class Wrong:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[64, 128], pl.FP32], b: pl.Tensor[[64, 128], pl.FP32]) -> pl.Tensor[[64, 128], pl.FP32]:
        c: pl.Tensor[[64, 128], pl.FP32] = pl.tensor.add(a)
        d: pl.Tensor[[64, 128], pl.FP32] = pl.tensor.addd(a, b)
        t: pl.Tile[[64, 128], pl.FP32] = pl.tile.load(a, [0, 0], [64, 128])
        e: pl.Tensor[[64, 128], pl.FP32] = pl.tensor.exp(t)
        f: pl.Tensor[[64, 128], pl.FP32] = pl.tensor.matmul(a, b, a_trans=True, bogus=1)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 128], pl.FP32], b: pl.Tensor[64, pl.FP32]) -> pl.Tensor[[64, 128], pl.FP32]:
        c: pl.Tensor[[64, 128], pl.FP32] = self.kernel(a)
        return c
