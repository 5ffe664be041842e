"""SiLU from tile primitives: x * sigmoid(x), sigmoid(x) = 1 / (1 + exp(-x)) with pl.mul(t, -1.0)
(tile.muls), pl.exp, pl.add(t, 1.0) (tile.adds) and pl.recip."""
import numpy as np

import pypto.language as pl


@pl.jit
def silu(x: pl.Tensor, y: pl.Out[pl.Tensor]) -> pl.Tensor:
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [32, 128])
        sigmoid = pl.recip(pl.add(pl.exp(pl.mul(t, -1.0)), 1.0))
        pl.store(pl.mul(t, sigmoid), [0, 0], y)
    return y


if __name__ == "__main__":
    x = np.random.default_rng(2).standard_normal((32, 128)).astype(np.float32)
    y = np.zeros((32, 128), dtype=np.float32)
    silu(x, y)
    assert np.allclose(y, x / (1 + np.exp(-x)), rtol=1e-5, atol=1e-6)
    print("silu: ok")
