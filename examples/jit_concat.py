"""Column concatenation: two [32, 32] FP32 tensors side by side into one [32, 64] tensor.
`pl.concat` joins tiles along columns (PyPTO's tile.concat); the result is stored whole."""
import numpy as np

import pypto.language as pl


@pl.jit
def concat_cols(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]) -> pl.Tensor:
    with pl.at(level=pl.Level.CORE_GROUP):
        left = pl.load(a, [0, 0], [32, 32])
        right = pl.load(b, [0, 0], [32, 32])
        pl.store(pl.concat(left, right), [0, 0], out)
    return out


if __name__ == "__main__":
    rng = np.random.default_rng(7)
    a = rng.standard_normal((32, 32)).astype(np.float32)
    b = rng.standard_normal((32, 32)).astype(np.float32)
    out = np.zeros((32, 64), dtype=np.float32)
    concat_cols(a, b, out)
    assert np.array_equal(out.view(np.uint32), np.concatenate([a, b], axis=1).view(np.uint32))
    print("concat_cols: ok")
