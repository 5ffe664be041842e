"""Tile-scalar arithmetic: pl.mul(tile, 2.0) dispatches to tile.muls, pl.add(tile, 1.0) to tile.adds;
a Python number passed for a scalar parameter specializes the kernel on that value."""
import numpy as np

import pypto.language as pl


@pl.jit
def fused_add_scale(a: pl.Tensor, b: pl.Tensor, scale: pl.FP32, c: pl.Out[pl.Tensor]) -> pl.Tensor:
    M, N = a.shape
    with pl.at(level=pl.Level.CORE_GROUP):
        ta = pl.load(a, [0, 0], [M, N])
        tb = pl.load(b, [0, 0], [M, N])
        shifted = pl.add(pl.add(ta, tb), 1.0)
        pl.store(pl.mul(shifted, scale), [0, 0], c)
    return c


if __name__ == "__main__":
    a = np.arange(64 * 64, dtype=np.float32).reshape(64, 64) / 64
    b = np.ones((64, 64), dtype=np.float32)
    c = np.zeros((64, 64), dtype=np.float32)
    fused_add_scale(a, b, 2.0, c)
    assert np.array_equal(c, ((a + b) + np.float32(1.0)) * np.float32(2.0))
    print("fused_add_scale: ok")
