"""Layer norm over rows of a [32, 64] FP32 tensor with a [1, 64] gain and bias:
y = (x - mean) / sqrt(var + eps) * gamma + beta, mean and var over each row.

Both row statistics are [32, 1] tiles: their scalar steps run on the [1, 32] reshape (the
row-major form tile-scalar ops take), row_expand_sub / row_expand_div broadcast them over the
rows, col_expand_mul / col_expand_add broadcast gain and bias over the columns."""
import numpy as np

import pypto.language as pl

ROWS = 32
COLS = 64
EPS = 1e-5
INV_COLS = 1.0 / COLS


@pl.jit
def layer_norm(x: pl.Tensor, gamma: pl.Tensor, beta: pl.Tensor, y: pl.Out[pl.Tensor]) -> pl.Tensor:
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [ROWS, COLS])
        g = pl.load(gamma, [0, 0], [1, COLS])
        b = pl.load(beta, [0, 0], [1, COLS])
        scratch = pl.create_tile([ROWS, COLS], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
        row_total: pl.Tile[[ROWS, 1], pl.FP32] = pl.row_sum(t, scratch)
        mean = pl.reshape(pl.mul(pl.reshape(row_total, [1, ROWS]), INV_COLS), [ROWS, 1])
        centered = pl.row_expand_sub(t, mean)
        sum_sq: pl.Tile[[ROWS, 1], pl.FP32] = pl.row_sum(pl.mul(centered, centered), scratch)
        var = pl.mul(pl.reshape(sum_sq, [1, ROWS]), INV_COLS)
        std = pl.reshape(pl.sqrt(pl.add(var, EPS)), [ROWS, 1])
        normed = pl.row_expand_div(centered, std)
        pl.store(pl.col_expand_add(pl.col_expand_mul(normed, g), b), [0, 0], y)
    return y


if __name__ == "__main__":
    rng = np.random.default_rng(13)
    x = rng.standard_normal((ROWS, COLS)).astype(np.float32)
    gamma = rng.standard_normal((1, COLS)).astype(np.float32)
    beta = rng.standard_normal((1, COLS)).astype(np.float32)
    y = np.zeros((ROWS, COLS), dtype=np.float32)
    layer_norm(x, gamma, beta, y)
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    assert np.allclose(y, (x - mean) / np.sqrt(var + np.float32(EPS)) * gamma + beta, rtol=1e-4, atol=1e-5)
    print("layer_norm: ok")
