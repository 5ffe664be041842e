"""RMS norm over rows of a [32, 64] FP32 tensor with a [1, 64] gain:
y = x / sqrt(mean(x * x, axis=1) + eps) * gamma.

The row statistic is a [32, 1] tile; scalar arithmetic on it runs on its [1, 32] reshape (the
row-major form tile-scalar ops take, as PyPTO's normalization example does), then it is
broadcast back over the rows with row_expand_div and the gain over the columns with
col_expand_mul."""
import numpy as np

import pypto.language as pl

ROWS = 32
COLS = 64
EPS = 1e-6
INV_COLS = 1.0 / COLS


@pl.jit
def rms_norm(x: pl.Tensor, gamma: pl.Tensor, y: pl.Out[pl.Tensor]) -> pl.Tensor:
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [ROWS, COLS])
        g = pl.load(gamma, [0, 0], [1, COLS])
        scratch = pl.create_tile([ROWS, COLS], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
        sum_sq: pl.Tile[[ROWS, 1], pl.FP32] = pl.row_sum(pl.mul(t, t), scratch)
        mean_sq = pl.reshape(sum_sq, [1, ROWS])
        mean_sq = pl.mul(mean_sq, INV_COLS)
        rms = pl.sqrt(pl.add(mean_sq, EPS))
        rms = pl.reshape(rms, [ROWS, 1])
        normed = pl.row_expand_div(t, rms)
        pl.store(pl.col_expand_mul(normed, g), [0, 0], y)
    return y


if __name__ == "__main__":
    rng = np.random.default_rng(11)
    x = rng.standard_normal((ROWS, COLS)).astype(np.float32)
    gamma = rng.standard_normal((1, COLS)).astype(np.float32)
    y = np.zeros((ROWS, COLS), dtype=np.float32)
    rms_norm(x, gamma, y)
    rms = np.sqrt((x * x).mean(axis=1, keepdims=True) + np.float32(EPS))
    assert np.allclose(y, x / rms * gamma, rtol=1e-5, atol=1e-6)
    print("rms_norm: ok")
