"""Independent NumPy references for the cube and for row softmax, written from NUMERICS.md
(not from backend/numerics.py): the tests compare the compiler's bits with these."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[Any]


def fused_add_f32(acc: Array, product: Array) -> Array:
    """RNE32(acc + product) with `product` exact in float64: TwoSum, round to odd, narrow once."""
    a = acc.astype(np.float64)
    s = a + product
    bb = s - a
    err = (a - (s - bb)) + (product - bb)
    # Round to odd: an inexact sum whose last bit is even moves one ulp toward the true value.
    step = (err != 0) & ((s.view(np.int64) & 1) == 0)
    odd = np.where(step, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)
    return odd.astype(np.float32)


def matmul_ref(a: Array, b: Array, start: Array | None = None) -> Array:
    """[M, K] @ [K, N] on the cube: FP32 (or INT32) accumulator, sequential over K."""
    m, k_len = a.shape
    n = b.shape[1]
    if a.dtype == np.int8:
        total = a.astype(np.int64) @ b.astype(np.int64)
        if start is not None:
            total += start.astype(np.int64)
        return ((total + 2**31) % 2**32 - 2**31).astype(np.int32)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    acc = np.zeros((m, n), np.float32) if start is None else start.astype(np.float32)
    for k in range(k_len):
        acc = fused_add_f32(acc, a64[:, k:k + 1] * b64[k:k + 1, :])
    return acc


def row_softmax_ref(s: Array) -> Array:
    """row_max, row_expand_sub, exp (RNE32 of the float64 exp), sequential row_sum, divide."""
    row_max = s.max(axis=1, keepdims=True)  # no NaN in the data: max == the sequential `>` scan
    shifted = (s - row_max).astype(np.float32)
    e = np.exp(shifted.astype(np.float64)).astype(np.float32)
    total = np.add.accumulate(e, axis=1, dtype=np.float32)[:, -1:]  # sequential, FP32
    out: Array = (e / total).astype(np.float32)
    return out
