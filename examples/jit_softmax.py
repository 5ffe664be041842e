"""Numerically stable row softmax on 64x64: row_max / row_sum need a scratch tile on the tile path;
row_expand_sub / row_expand_div broadcast the [64, 1] row statistics."""
import numpy as np

import pypto.language as pl


@pl.jit
def tile_softmax(x: pl.Tensor, y: pl.Out[pl.Tensor]) -> pl.Tensor:
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [64, 64])
        scratch = pl.create_tile([64, 64], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
        row_max: pl.Tile[[64, 1], pl.FP32] = pl.row_max(t, scratch)
        e = pl.exp(pl.row_expand_sub(t, row_max))
        row_sum: pl.Tile[[64, 1], pl.FP32] = pl.row_sum(e, scratch)
        pl.store(pl.row_expand_div(e, row_sum), [0, 0], y)
    return y


if __name__ == "__main__":
    x = np.random.default_rng(3).standard_normal((64, 64)).astype(np.float32)
    y = np.zeros((64, 64), dtype=np.float32)
    tile_softmax(x, y)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    assert np.allclose(y, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)
    print("tile_softmax: ok")
