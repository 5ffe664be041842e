"""A 64x64 matmul with K tiled into two 32-wide chunks: pl.matmul starts the accumulator, pl.matmul_acc
adds the second chunk (the rebinding `acc = ...` is converted to SSA)."""
import numpy as np

import pypto.language as pl


@pl.jit
def matmul_acc_64(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]) -> pl.Tensor:
    with pl.at(level=pl.Level.CORE_GROUP):
        a0 = pl.move(pl.load(a, [0, 0], [64, 32], target_memory=pl.MemorySpace.Mat), target_memory=pl.MemorySpace.Left)
        b0 = pl.move(pl.load(b, [0, 0], [32, 64], target_memory=pl.MemorySpace.Mat), target_memory=pl.MemorySpace.Right)
        acc = pl.matmul(a0, b0)
        a1 = pl.move(pl.load(a, [0, 32], [64, 32], target_memory=pl.MemorySpace.Mat), target_memory=pl.MemorySpace.Left)
        b1 = pl.move(pl.load(b, [32, 0], [32, 64], target_memory=pl.MemorySpace.Mat), target_memory=pl.MemorySpace.Right)
        acc = pl.matmul_acc(acc, a1, b1)
        pl.store(acc, [0, 0], c)
    return c


if __name__ == "__main__":
    rng = np.random.default_rng(5)
    a = rng.integers(-4, 5, (64, 64)).astype(np.float16)
    b = rng.integers(-4, 5, (64, 64)).astype(np.float16)
    c = np.zeros((64, 64), dtype=np.float32)
    matmul_acc_64(a, b, c)
    assert np.array_equal(c, a.astype(np.float32) @ b.astype(np.float32))
    print("matmul_acc_64: ok")
