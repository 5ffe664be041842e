"""An activation from tile primitives: relu(a + b) (pl.relu is tile-only, like PyPTO's)."""
import numpy as np

import pypto.language as pl


@pl.jit
def add_relu(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]) -> pl.Tensor:
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.add(pl.load(a, [0, 0], [32, 128]), pl.load(b, [0, 0], [32, 128]))
        pl.store(pl.relu(t), [0, 0], c)
    return c


if __name__ == "__main__":
    rng = np.random.default_rng(2)
    a = rng.standard_normal((32, 128)).astype(np.float32)
    b = rng.standard_normal((32, 128)).astype(np.float32)
    c = np.zeros((32, 128), dtype=np.float32)
    add_relu(a, b, c)
    assert np.array_equal(c, np.maximum(a + b, 0))
    print("add_relu: ok")
