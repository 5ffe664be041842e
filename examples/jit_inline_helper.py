"""An @pl.jit.inline helper: one row block of SiLU (load, x * sigmoid(x), store), spliced by the
InlineFunctions pass into the kernel twice, once per 16-row half of the input."""
import numpy as np
import pypto.language as pl


@pl.jit.inline
def silu_rows(x: pl.Tensor, y: pl.Out[pl.Tensor], row: pl.INDEX) -> pl.Tensor:
    t = pl.load(x, [row, 0], [16, 128])
    s = pl.recip(pl.add(pl.exp(pl.mul(t, -1.0)), 1.0))
    y = pl.store(pl.mul(t, s), [row, 0], y)
    return y


@pl.jit
def silu(x: pl.Tensor, y: pl.Out[pl.Tensor]) -> pl.Tensor:
    with pl.at(level=pl.Level.CORE_GROUP):
        y = silu_rows(x, y, 0)
        y = silu_rows(x, y, 16)
    return y


if __name__ == "__main__":
    x = np.random.default_rng(2).standard_normal((32, 128)).astype(np.float32)
    y = np.zeros((32, 128), dtype=np.float32)
    silu(x, y)
    assert np.allclose(y, x / (1 + np.exp(-x)), rtol=1e-5, atol=1e-6)
    print("silu: ok")
