"""Assembling a result from parts: the top half of a [32, 64] FP32 output is a + b, the bottom
half a * b. Both halves are computed as [16, 64] tiles and written into one [32, 64] tile with
pl.assemble at row offsets 0 and 16 (PyPTO's tile.assemble), which is stored whole."""
import numpy as np

import pypto.language as pl

HALF = 16
COLS = 64


@pl.jit
def assemble_halves(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]) -> pl.Tensor:
    with pl.at(level=pl.Level.CORE_GROUP):
        whole = pl.create_tile([2 * HALF, COLS], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
        top_a = pl.load(a, [0, 0], [HALF, COLS])
        top_b = pl.load(b, [0, 0], [HALF, COLS])
        whole = pl.assemble(whole, pl.add(top_a, top_b), [0, 0])
        bottom_a = pl.load(a, [HALF, 0], [HALF, COLS])
        bottom_b = pl.load(b, [HALF, 0], [HALF, COLS])
        whole = pl.assemble(whole, pl.mul(bottom_a, bottom_b), [HALF, 0])
        pl.store(whole, [0, 0], out)
    return out


if __name__ == "__main__":
    rng = np.random.default_rng(17)
    a = rng.standard_normal((2 * HALF, COLS)).astype(np.float32)
    b = rng.standard_normal((2 * HALF, COLS)).astype(np.float32)
    want = np.concatenate([a[:HALF] + b[:HALF], a[HALF:] * b[HALF:]])
    out = np.zeros((2 * HALF, COLS), dtype=np.float32)
    assemble_halves(a, b, out)
    assert np.array_equal(out.view(np.uint32), want.view(np.uint32))
    print("assemble_halves: ok")
