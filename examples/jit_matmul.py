"""A 64x64 matmul by hand on the cube: load both operands into Mat (L1), move them to Left / Right
(L0A / L0B), pl.matmul into Acc (L0C), store the accumulator to GM."""
import numpy as np

import pypto.language as pl


@pl.jit
def matmul_64(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]) -> pl.Tensor:
    with pl.at(level=pl.Level.CORE_GROUP):
        ta = pl.load(a, [0, 0], [64, 64], target_memory=pl.MemorySpace.Mat)
        tb = pl.load(b, [0, 0], [64, 64], target_memory=pl.MemorySpace.Mat)
        left = pl.move(ta, target_memory=pl.MemorySpace.Left)
        right = pl.move(tb, target_memory=pl.MemorySpace.Right)
        acc = pl.matmul(left, right)
        pl.store(acc, [0, 0], c)
    return c


if __name__ == "__main__":
    rng = np.random.default_rng(1)
    a = rng.integers(-4, 5, (64, 64)).astype(np.float16)
    b = rng.integers(-4, 5, (64, 64)).astype(np.float16)
    c = np.zeros((64, 64), dtype=np.float32)
    matmul_64(a, b, c)
    assert np.array_equal(c, a.astype(np.float32) @ b.astype(np.float32))
    print("matmul_64: ok")
