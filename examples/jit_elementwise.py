"""Element-wise kernels in PyPTO's @pl.jit style: add, multiply and a chunked add whose tile
shape stays fixed while the row offset moves."""
import numpy as np

import pypto.language as pl

ROWS = 256
COLS = 128
TILE_ROWS = 64


@pl.jit
def chunked_add(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]) -> pl.Tensor:
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(ROWS // TILE_ROWS):
            ta = pl.load(a, [i * TILE_ROWS, 0], [TILE_ROWS, COLS])
            tb = pl.load(b, [i * TILE_ROWS, 0], [TILE_ROWS, COLS])
            pl.store(pl.mul(pl.add(ta, tb), tb), [i * TILE_ROWS, 0], c)
    return c


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    a = rng.standard_normal((ROWS, COLS)).astype(np.float32)
    b = rng.standard_normal((ROWS, COLS)).astype(np.float32)
    c = np.zeros((ROWS, COLS), dtype=np.float32)
    chunked_add(a, b, c)
    assert np.array_equal(c, (a + b) * b)
    print("chunked_add: ok")
