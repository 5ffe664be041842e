"""relu(x @ w + bias) as a multi-kernel program: a cube matmul kernel and a vector bias + relu
kernel (module-level @pl.jit.incore dependencies), an intermediate tensor allocated by the entry."""
import numpy as np

import pypto.language as pl


@pl.jit.incore
def matmul_kernel(x: pl.Tensor, w: pl.Tensor, out: pl.Out[pl.Tensor]) -> pl.Tensor:
    tx = pl.load(x, [0, 0], [64, 64], target_memory=pl.MemorySpace.Mat)
    tw = pl.load(w, [0, 0], [64, 64], target_memory=pl.MemorySpace.Mat)
    acc = pl.matmul(pl.move(tx, target_memory=pl.MemorySpace.Left), pl.move(tw, target_memory=pl.MemorySpace.Right))
    pl.store(acc, [0, 0], out)
    return out


@pl.jit.incore
def bias_relu_kernel(h: pl.Tensor, bias: pl.Tensor, out: pl.Out[pl.Tensor]) -> pl.Tensor:
    th = pl.load(h, [0, 0], [64, 64])
    tb = pl.load(bias, [0, 0], [64, 64])
    pl.store(pl.relu(pl.add(th, tb)), [0, 0], out)
    return out


@pl.jit
def fused_linear_relu(x: pl.Tensor, w: pl.Tensor, bias: pl.Tensor, y: pl.Out[pl.Tensor]) -> pl.Tensor:
    h = pl.create_tensor([64, 64], dtype=pl.FP32)
    h = matmul_kernel(x, w, h)
    y = bias_relu_kernel(h, bias, y)
    return y


if __name__ == "__main__":
    rng = np.random.default_rng(4)
    x = rng.integers(-3, 4, (64, 64)).astype(np.float16)
    w = rng.integers(-3, 4, (64, 64)).astype(np.float16)
    bias = rng.standard_normal((64, 64)).astype(np.float32)
    y = np.zeros((64, 64), dtype=np.float32)
    fused_linear_relu(x, w, bias, y)
    assert np.array_equal(y, np.maximum(x.astype(np.float32) @ w.astype(np.float32) + bias, 0))
    print("fused_linear_relu: ok")
