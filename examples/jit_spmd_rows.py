"""An SPMD kernel: `pl.spmd(8)` runs the CORE_GROUP body once per block, and each block scales
its own 16-row band of the input (pl.tile.get_block_idx() says which)."""
import numpy as np

import pypto.language as pl


@pl.jit
def scale_bands(x: pl.Tensor, y: pl.Out[pl.Tensor]) -> pl.Tensor:
    with pl.spmd(8):
        with pl.at(level=pl.Level.CORE_GROUP):
            band = pl.tile.get_block_idx()
            t = pl.load(x, [band * 16, 0], [16, 64])
            pl.store(pl.mul(t, 3.0), [band * 16, 0], y)
    return y


if __name__ == "__main__":
    x = np.random.default_rng(5).standard_normal((128, 64)).astype(np.float32)
    y = np.zeros_like(x)
    scale_bands(x, y)
    assert np.array_equal(y, x * np.float32(3))
    print("scale_bands: ok")
