"""Red team of issue 8 ("verification you can trust"): held-out kernels of the kinds the issue
lists, written the way a user writes them (unaligned rows, K = 96 / 192 / 320, FP16 / BF16 inputs
with FP32 accumulation, `@pl.program` classes and `@pl.jit` functions, the unified `pl.*` API and
explicit `pl.tile.*` code, loops carrying two to four values, nested loops, `if` / `else` in loops,
several kernels in one orchestration), on both backends.

Each valid kernel runs as a user runs it (`python -m nanopass.pipeline K.py --verify-all
--simulate --inputs in.npz --save-outputs out.npz`): the simulator must agree bit for bit with the
reference interpreter, and the outputs with a NumPy reference written here from NUMERICS.md
(float64, one rounding per op, sequential reductions) -- never from backend/numerics.py. Each
invalid kernel must be rejected (exit 1) at the line marked `# <- here`, with no traceback and
no pass blamed.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import numpy.typing as npt
import pytest

from nanopass.pipeline import main
from tests.references import matmul_ref

Array = npt.NDArray[Any]
F16, F32, F64 = np.float16, np.float32, np.float64
BOTH = ("Ascend910B", "Ascend950")
A2 = ("Ascend910B",)
A5 = ("Ascend950",)
HERE = "# <- here"


# -- NumPy references (NUMERICS.md: one rounding per op, sequential reductions) ------------------------


def bf16(x: Array) -> Array:
    """FP32 -> BF16 bit patterns (uint16), round to nearest even (no NaN in the data)."""
    u = np.ascontiguousarray(x, F32).view(np.uint32).astype(np.uint64)
    rounded = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def from_bf16(bits: Array) -> Array:
    return (bits.astype(np.uint32) << 16).view(F32)


def exp(x: Array) -> Array:
    return np.exp(x.astype(F64)).astype(x.dtype)


def vmax(a: Array, b: Array) -> Array:
    return np.where(b > a, b, a)


def vmin(a: Array, b: Array) -> Array:
    return np.where(b < a, b, a)


def row_max(x: Array) -> Array:
    acc = x[:, 0].copy()
    for c in range(1, x.shape[1]):
        acc = np.where(x[:, c] > acc, x[:, c], acc)
    return acc[:, None]


def row_min(x: Array) -> Array:
    acc = x[:, 0].copy()
    for c in range(1, x.shape[1]):
        acc = np.where(x[:, c] < acc, x[:, c], acc)
    return acc[:, None]


def row_sum(x: Array) -> Array:
    acc = np.zeros(x.shape[0], F32)
    for c in range(x.shape[1]):
        acc = (acc + x[:, c].astype(F32)).astype(F32)
    return acc[:, None]


def col_sum(x: Array) -> Array:
    acc = x[0].copy()
    for r in range(1, x.shape[0]):
        acc = (acc + x[r]).astype(x.dtype)
    out: Array = acc[None, :]
    return out


def f32(x: Any) -> Array:
    out: Array = np.asarray(x).astype(F32)
    return out


def uniform(seed: int, shape: tuple[int, ...], low: float = -3.0, high: float = 3.0, dtype: Any = F32) -> Array:
    return np.random.default_rng(seed).uniform(low, high, shape).astype(dtype)


def online_softmax_cols(x: Array, blocks: int, width: int) -> tuple[Array, Array]:
    """m, l of an online softmax over `blocks` column blocks of `x`."""
    rows = x.shape[0]
    m, l = np.full((rows, 1), -1e30, F32), np.zeros((rows, 1), F32)
    for i in range(blocks):
        s = x[:, i * width:(i + 1) * width]
        m_new = vmax(m, row_max(s))
        alpha = exp(f32(m - m_new))
        p = exp(f32(s - m_new))
        l = f32(f32(l * alpha) + row_sum(p))
        m = m_new
    return m, l


def flash(q: Array, k: Array, v: Array, block: int, low: Callable[[Array], Array], widen: Callable[[Array], Array],
          m0: float = -30000.0) -> Array:
    """Flash attention over key blocks; `low` rounds p to the matmul's input type, `widen` reads it."""
    rows, blocks = q.shape[0], k.shape[0] // block
    m, l, o = np.full((rows, 1), m0, F32), np.zeros((rows, 1), F32), np.zeros((rows, v.shape[1]), F32)
    for i in range(blocks):
        kb, vb = k[i * block:(i + 1) * block], v[i * block:(i + 1) * block]
        s = matmul_ref(widen(q), np.ascontiguousarray(widen(kb).T))
        m_new = vmax(m, row_max(s))
        alpha = exp(f32(m - m_new))
        p = exp(f32(s - m_new))
        l = f32(f32(l * alpha) + row_sum(p))
        pv = matmul_ref(widen(low(p)), widen(vb))
        o = f32(f32(o * alpha) + pv)
        m = m_new
    return f32(o / l)


def softmax(s: Array) -> Array:
    e = exp(f32(s - row_max(s)))
    return f32(e / row_sum(e))


# -- the cases ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    text: str
    inputs: Callable[[], dict[str, Array]] = lambda: {}
    reference: Callable[..., dict[str, Array]] | None = None
    backends: tuple[str, ...] = BOTH
    reject: str = ""  # a substring of the diagnostic; the line is the one marked HERE
    extra: tuple[str, ...] = field(default=())


def program(body: str) -> str:
    return "import pypto.language as pl\n\n\n" + textwrap.dedent(body)


CASES: dict[str, Case] = {}


def case(name: str, **kw: Any) -> None:
    assert name not in CASES
    CASES[name] = Case(**kw)


# (1) loop-carried vector state -------------------------------------------------------------------------

case("online_softmax_rows48_cols96", text=program('''
    @pl.program
    class OnlineSoftmax48:
        @pl.function(type=pl.FunctionType.InCore)
        def stats(self, x: pl.Tensor[[48, 96], pl.FP32]) -> tuple[pl.Tensor[[48, 1], pl.FP32], pl.Tensor[[48, 1], pl.FP32]]:
            m0 = pl.full([48, 1], dtype=pl.FP32, value=-1e30)
            l0 = pl.full([48, 1], dtype=pl.FP32, value=0.0)
            for i, (m, l) in pl.range(3, init_values=(m0, l0)):
                s = pl.slice(x, [48, 32], [0, i * 32])
                m_new = pl.maximum(m, pl.row_max(s))
                alpha = pl.exp(pl.sub(m, m_new))
                p = pl.exp(pl.row_expand_sub(s, m_new))
                l_new = pl.add(pl.mul(l, alpha), pl.row_sum(p))
                m_out, l_out = pl.yield_(m_new, l_new)
            return m_out, l_out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[48, 96], pl.FP32]) -> tuple[pl.Tensor[[48, 1], pl.FP32], pl.Tensor[[48, 1], pl.FP32]]:
            m, l = self.stats(x)
            return m, l
    '''), inputs=lambda: {"x": uniform(1, (48, 96))},
     reference=lambda x: dict(zip(("ret0", "ret1"), online_softmax_cols(x, 3, 32))))

case("online_softmax_four_carries", text=program('''
    @pl.program
    class FourCarries:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, s: pl.Tensor[[64, 32], pl.FP32], v: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
            m0 = pl.full([16, 1], dtype=pl.FP32, value=-30000.0)
            l0 = pl.full([16, 1], dtype=pl.FP32, value=0.0)
            o0 = pl.full([16, 32], dtype=pl.FP32, value=0.0)
            c0 = pl.full([16, 1], dtype=pl.FP32, value=0.0)
            for i, (m, l, o, c) in pl.range(4, init_values=(m0, l0, o0, c0)):
                blk = pl.slice(s, [16, 32], [i * 16, 0])
                m_new = pl.maximum(m, pl.row_max(blk))
                alpha = pl.exp(pl.sub(m, m_new))
                p = pl.exp(pl.row_expand_sub(blk, m_new))
                l_new = pl.add(pl.mul(l, alpha), pl.row_sum(p))
                o_new = pl.add(pl.row_expand_mul(o, alpha), pl.mul(p, v))
                c_new = pl.add(c, pl.sub(m_new, m))
                m_out, l_out, o_out, c_out = pl.yield_(m_new, l_new, o_new, c_new)
            r = pl.row_expand_add(pl.row_expand_div(o_out, l_out), c_out)
            return r

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, s: pl.Tensor[[64, 32], pl.FP32], v: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
            r = self.kernel(s, v)
            return r
    '''), inputs=lambda: {"s": uniform(2, (64, 32)), "v": uniform(3, (16, 32))},
     reference=lambda s, v: {"ret0": _four_carries(s, v)})


def _four_carries(s: Array, v: Array) -> Array:
    m, l, o, c = np.full((16, 1), -30000.0, F32), np.zeros((16, 1), F32), np.zeros((16, 32), F32), np.zeros((16, 1), F32)
    for i in range(4):
        blk = s[16 * i:16 * i + 16]
        m_new = vmax(m, row_max(blk))
        alpha = exp(f32(m - m_new))
        p = exp(f32(blk - m_new))
        l_new = f32(f32(l * alpha) + row_sum(p))
        o_new = f32(f32(o * alpha) + f32(p * v))
        c = f32(c + f32(m_new - m))
        m, l, o = m_new, l_new, o_new
    return f32(f32(o / l) + c)


case("flash_attention_fp16_k96", text=program('''
    @pl.program
    class FlashK96:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, q: pl.Tensor[[16, 96], pl.FP16], k: pl.Tensor[[96, 96], pl.FP16],
                   v: pl.Tensor[[96, 64], pl.FP16]) -> pl.Tensor[[16, 64], pl.FP32]:
            m0 = pl.full([16, 1], dtype=pl.FP32, value=-30000.0)
            l0 = pl.full([16, 1], dtype=pl.FP32, value=0.0)
            o0 = pl.full([16, 64], dtype=pl.FP32, value=0.0)
            for i, (m, l, o) in pl.range(3, init_values=(m0, l0, o0)):
                kb = pl.slice(k, [32, 96], [i * 32, 0])
                vb = pl.slice(v, [32, 64], [i * 32, 0])
                s = pl.matmul(q, kb, b_trans=True, out_dtype=pl.FP32)
                m_new = pl.maximum(m, pl.row_max(s))
                alpha = pl.exp(pl.sub(m, m_new))
                p = pl.exp(pl.row_expand_sub(s, m_new))
                l_new = pl.add(pl.mul(l, alpha), pl.row_sum(p))
                pv = pl.matmul(pl.cast(p, pl.FP16, "rint"), vb, out_dtype=pl.FP32)
                o_new = pl.add(pl.row_expand_mul(o, alpha), pv)
                m_out, l_out, o_out = pl.yield_(m_new, l_new, o_new)
            r = pl.row_expand_div(o_out, l_out)
            return r

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, q: pl.Tensor[[16, 96], pl.FP16], k: pl.Tensor[[96, 96], pl.FP16],
                 v: pl.Tensor[[96, 64], pl.FP16]) -> pl.Tensor[[16, 64], pl.FP32]:
            r = self.kernel(q, k, v)
            return r
    '''), inputs=lambda: {"q": uniform(4, (16, 96), -1, 1, F16), "k": uniform(5, (96, 96), -1, 1, F16),
                          "v": uniform(6, (96, 64), -1, 1, F16)},
     reference=lambda q, k, v: {"ret0": flash(q, k, v, 32, lambda p: p.astype(F16), lambda t: t)})

case("flash_attention_bf16_rows32", text=program('''
    @pl.program
    class FlashBF16:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, q: pl.Tensor[[32, 64], pl.BF16], k: pl.Tensor[[96, 64], pl.BF16],
                   v: pl.Tensor[[96, 64], pl.BF16]) -> pl.Tensor[[32, 64], pl.FP32]:
            m0 = pl.full([32, 1], dtype=pl.FP32, value=-30000.0)
            l0 = pl.full([32, 1], dtype=pl.FP32, value=0.0)
            o0 = pl.full([32, 64], dtype=pl.FP32, value=0.0)
            for i, (m, l, o) in pl.range(3, init_values=(m0, l0, o0)):
                kb = pl.slice(k, [32, 64], [i * 32, 0])
                vb = pl.slice(v, [32, 64], [i * 32, 0])
                s = pl.matmul(q, kb, b_trans=True, out_dtype=pl.FP32)
                m_new = pl.maximum(m, pl.row_max(s))
                alpha = pl.exp(pl.sub(m, m_new))
                p = pl.exp(pl.row_expand_sub(s, m_new))
                l_new = pl.add(pl.mul(l, alpha), pl.row_sum(p))
                pv = pl.matmul(pl.cast(p, pl.BF16, "rint"), vb, out_dtype=pl.FP32)
                o_new = pl.add(pl.row_expand_mul(o, alpha), pv)
                m_out, l_out, o_out = pl.yield_(m_new, l_new, o_new)
            r = pl.row_expand_div(o_out, l_out)
            return r

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, q: pl.Tensor[[32, 64], pl.BF16], k: pl.Tensor[[96, 64], pl.BF16],
                 v: pl.Tensor[[96, 64], pl.BF16]) -> pl.Tensor[[32, 64], pl.FP32]:
            r = self.kernel(q, k, v)
            return r
    '''), inputs=lambda: {"q": bf16(uniform(7, (32, 64), -1, 1)), "k": bf16(uniform(8, (96, 64), -1, 1)),
                          "v": bf16(uniform(9, (96, 64), -1, 1))},
     reference=lambda q, k, v: {"ret0": flash(q, k, v, 32, bf16, lambda t: from_bf16(t) if t.dtype == np.uint16 else t)})

case("flash_attention_jit_tiles_rebinding", text=program('''
    @pl.jit
    def flash(q: pl.Tensor, k: pl.Tensor, v: pl.Tensor, o: pl.Out[pl.Tensor]) -> pl.Tensor:
        with pl.at(level=pl.Level.CORE_GROUP):
            qt = pl.load(q, [0, 0], [16, 64], target_memory=pl.MemorySpace.Mat)
            m = pl.tile.full([16, 1], dtype=pl.FP32, value=-30000.0)
            l = pl.tile.full([16, 1], dtype=pl.FP32, value=0.0)
            acc = pl.tile.full([16, 64], dtype=pl.FP32, value=0.0)
            for i in pl.range(4):
                kb = pl.load(k, [i * 16, 0], [16, 64], target_memory=pl.MemorySpace.Mat)
                vb = pl.load(v, [i * 16, 0], [16, 64], target_memory=pl.MemorySpace.Mat)
                s = pl.matmul(pl.move(qt, target_memory=pl.MemorySpace.Left),
                              pl.move(pl.tile.transpose_view(kb), target_memory=pl.MemorySpace.Right))
                m_new = pl.maximum(m, pl.row_max(s))
                alpha = pl.exp(pl.sub(m, m_new))
                p = pl.exp(pl.row_expand_sub(s, m_new))
                l = pl.add(pl.mul(l, alpha), pl.row_sum(p))
                ph = pl.cast(p, pl.FP16, "rint")
                pm = pl.move(ph, target_memory=pl.MemorySpace.Mat)
                pv = pl.matmul(pl.move(pm, target_memory=pl.MemorySpace.Left),
                               pl.move(vb, target_memory=pl.MemorySpace.Right))
                acc = pl.add(pl.row_expand_mul(acc, alpha), pv)
                m = m_new
            pl.store(pl.row_expand_div(acc, l), [0, 0], o)
        return o
    '''), inputs=lambda: {"q": uniform(10, (16, 64), -1, 1, F16), "k": uniform(11, (64, 64), -1, 1, F16),
                          "v": uniform(12, (64, 64), -1, 1, F16), "o": np.zeros((16, 64), F32)},
     reference=lambda q, k, v, o: {"o": flash(q, k, v, 16, lambda p: p.astype(F16), lambda t: t)})

case("flash_attention_jit_tensor_ops", text=program('''
    @pl.jit
    def flash(q: pl.Tensor, k: pl.Tensor, v: pl.Tensor, o: pl.Out[pl.Tensor]) -> pl.Tensor:
        with pl.at(level=pl.Level.CORE_GROUP):
            m = pl.tensor.full([32, 1], dtype=pl.FP32, value=-30000.0)
            l = pl.tensor.full([32, 1], dtype=pl.FP32, value=0.0)
            acc = pl.tensor.full([32, 96], dtype=pl.FP32, value=0.0)
            for i in pl.range(3):
                kb = pl.slice(k, [64, 96], [i * 64, 0])
                vb = pl.slice(v, [64, 96], [i * 64, 0])
                s = pl.matmul(q, kb, b_trans=True, out_dtype=pl.FP32)
                m_new = pl.maximum(m, pl.row_max(s))
                alpha = pl.exp(pl.sub(m, m_new))
                p = pl.exp(pl.row_expand_sub(s, m_new))
                l = pl.add(pl.mul(l, alpha), pl.row_sum(p))
                pv = pl.matmul(pl.cast(p, pl.FP16, "rint"), vb, out_dtype=pl.FP32)
                acc = pl.add(pl.row_expand_mul(acc, alpha), pv)
                m = m_new
            o = pl.assemble(o, pl.row_expand_div(acc, l), [0, 0])
        return o
    '''), inputs=lambda: {"q": uniform(78, (32, 96), -1, 1, F16), "k": uniform(79, (192, 96), -1, 1, F16),
                          "v": uniform(80, (192, 96), -1, 1, F16), "o": np.zeros((32, 96), F32)},
     reference=lambda q, k, v, o: {"o": flash(q, k, v, 64, lambda p: p.astype(F16), lambda t: t)})

case("three_nested_loops_outer_value_read_innermost", text=program('''
    @pl.program
    class ThreeNested:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[48, 64], pl.FP32], b: pl.Tensor[[48, 64], pl.FP32]) -> pl.Tensor[[48, 64], pl.FP32]:
            x = pl.muls(a, 0.5)
            acc = pl.adds(b, 0.0)
            for i in pl.range(2):
                for j in pl.range(2):
                    for k in pl.range(2):
                        acc = pl.add(pl.mul(acc, x), b)
                    w = pl.muls(acc, 0.25)
                    acc = pl.sub(w, x)
                y = pl.adds(acc, 1.0)
                acc = pl.mul(y, b)
            return acc

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[48, 64], pl.FP32], b: pl.Tensor[[48, 64], pl.FP32]) -> pl.Tensor[[48, 64], pl.FP32]:
            r = self.kernel(a, b)
            return r
    '''), inputs=lambda: {"a": uniform(13, (48, 64), -1, 1), "b": uniform(14, (48, 64), -1, 1)},
     reference=lambda a, b: {"ret0": _three_nested(a, b)})


def _three_nested(a: Array, b: Array) -> Array:
    x, acc = f32(a * F32(0.5)), f32(b + F32(0.0))
    for _ in range(2):
        for _ in range(2):
            for _ in range(2):
                acc = f32(f32(acc * x) + b)
            acc = f32(f32(acc * F32(0.25)) - x)
        acc = f32(f32(acc + F32(1.0)) * b)
    return acc


case("nested_row_reductions_carried", text=program('''
    @pl.program
    class NestedReductions:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, x: pl.Tensor[[32, 128], pl.FP32]) -> pl.Tensor[[32, 32], pl.FP32]:
            mx0 = pl.full([32, 1], dtype=pl.FP32, value=-1e30)
            tot0 = pl.full([32, 1], dtype=pl.FP32, value=0.0)
            for i, (mx, tot) in pl.range(2, init_values=(mx0, tot0)):
                part0 = pl.full([32, 1], dtype=pl.FP32, value=0.0)
                for j, (part,) in pl.range(2, init_values=(part0,)):
                    blk = pl.slice(x, [32, 32], [0, i * 64 + j * 32])
                    part_new = pl.add(part, pl.row_sum(blk))
                    part_out = pl.yield_(part_new)
                mx_new = pl.maximum(mx, part_out)
                tot_new = pl.add(tot, part_out)
                mx_out, tot_out = pl.yield_(mx_new, tot_new)
            last = pl.slice(x, [32, 32], [0, 96])
            r = pl.row_expand_sub(pl.row_expand_mul(last, tot_out), mx_out)
            return r

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[32, 128], pl.FP32]) -> pl.Tensor[[32, 32], pl.FP32]:
            r = self.kernel(x)
            return r
    '''), inputs=lambda: {"x": uniform(15, (32, 128))},
     reference=lambda x: {"ret0": _nested_reductions(x)})


def _nested_reductions(x: Array) -> Array:
    mx, tot = np.full((32, 1), -1e30, F32), np.zeros((32, 1), F32)
    for i in range(2):
        part = np.zeros((32, 1), F32)
        for j in range(2):
            c = i * 64 + j * 32
            part = f32(part + row_sum(x[:, c:c + 32]))
        mx, tot = vmax(mx, part), f32(tot + part)
    return f32(f32(x[:, 96:] * tot) - mx)


case("old_minimum_read_after_update", text=program('''
    @pl.program
    class OldMinimum:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, s: pl.Tensor[[16, 128], pl.FP32]) -> tuple[pl.Tensor[[16, 32], pl.FP32], pl.Tensor[[16, 1], pl.FP32]]:
            lo0 = pl.full([16, 1], dtype=pl.FP32, value=1e30)
            g0 = pl.full([16, 32], dtype=pl.FP32, value=0.0)
            for i, (lo, g) in pl.range(4, init_values=(lo0, g0)):
                blk = pl.slice(s, [16, 32], [0, i * 32])
                lo_new = pl.minimum(lo, pl.row_min(blk))
                gap = pl.sub(lo, lo_new)
                g_new = pl.add(pl.row_expand_sub(blk, lo), pl.row_expand_mul(g, gap))
                lo_out, g_out = pl.yield_(lo_new, g_new)
            return g_out, lo_out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, s: pl.Tensor[[16, 128], pl.FP32]) -> tuple[pl.Tensor[[16, 32], pl.FP32], pl.Tensor[[16, 1], pl.FP32]]:
            g, lo = self.kernel(s)
            return g, lo
    '''), inputs=lambda: {"s": uniform(16, (16, 128), -100, 100)},
     reference=lambda s: dict(zip(("ret0", "ret1"), _old_minimum(s))))


def _old_minimum(s: Array) -> tuple[Array, Array]:
    lo, g = np.full((16, 1), 1e30, F32), np.zeros((16, 32), F32)
    for i in range(4):
        blk = s[:, 32 * i:32 * i + 32]
        lo_new = vmin(lo, row_min(blk))
        gap = f32(lo - lo_new)
        g = f32(f32(blk - lo) + f32(g * gap))
        lo = lo_new
    return g, lo


case("row_sum_carried_rows100_consumed_by_vector", text=program('''
    @pl.program
    class RowSumRows100:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, x: pl.Tensor[[100, 128], pl.FP32]) -> pl.Tensor[[100, 32], pl.FP32]:
            first = pl.slice(x, [100, 32], [0, 0])
            r0 = pl.row_sum(first)
            for i, (r,) in pl.range(1, 4, init_values=(r0,)):
                blk = pl.slice(x, [100, 32], [0, i * 32])
                r_new = pl.add(r, pl.row_sum(blk))
                r_out = pl.yield_(r_new)
            y = pl.row_expand_div(first, r_out)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[100, 128], pl.FP32]) -> pl.Tensor[[100, 32], pl.FP32]:
            y = self.kernel(x)
            return y
    '''), inputs=lambda: {"x": uniform(17, (100, 128), 0.5, 2.0)},
     reference=lambda x: {"ret0": _row_sum_rows100(x)})


def _row_sum_rows100(x: Array) -> Array:
    r = row_sum(x[:, :32])
    for i in range(1, 4):
        r = f32(r + row_sum(x[:, 32 * i:32 * i + 32]))
    return f32(x[:, :32] / r)


case("col_sum_carried_over_row_blocks", text=program('''
    @pl.program
    class ColSumCarry:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, x: pl.Tensor[[96, 64], pl.FP32]) -> pl.Tensor[[32, 64], pl.FP32]:
            c0 = pl.full([1, 64], dtype=pl.FP32, value=0.0)
            for i, (c,) in pl.range(3, init_values=(c0,)):
                blk = pl.slice(x, [32, 64], [i * 32, 0])
                c_new = pl.add(c, pl.col_sum(blk))
                c_out = pl.yield_(c_new)
            last = pl.slice(x, [32, 64], [64, 0])
            y = pl.col_expand_sub(last, c_out)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[96, 64], pl.FP32]) -> pl.Tensor[[32, 64], pl.FP32]:
            y = self.kernel(x)
            return y
    '''), inputs=lambda: {"x": uniform(18, (96, 64))},
     reference=lambda x: {"ret0": _col_sum_carry(x)})


def _col_sum_carry(x: Array) -> Array:
    c = np.zeros((1, 64), F32)
    for i in range(3):
        c = f32(c + col_sum(x[32 * i:32 * i + 32]))
    return f32(x[64:] - c)


case("matmul_acc_carried_k192_rows48", text=program('''
    @pl.program
    class AccK192:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[48, 192], pl.FP16], b: pl.Tensor[[192, 64], pl.FP16]) -> pl.Tensor[[48, 64], pl.FP32]:
            a0 = pl.slice(a, [48, 64], [0, 0])
            b0 = pl.slice(b, [64, 64], [0, 0])
            acc0 = pl.matmul(a0, b0, out_dtype=pl.FP32)
            for i, (acc,) in pl.range(1, 3, init_values=(acc0,)):
                ai = pl.slice(a, [48, 64], [0, i * 64])
                bi = pl.slice(b, [64, 64], [i * 64, 0])
                acc_new = pl.matmul_acc(acc, ai, bi)
                acc_out = pl.yield_(acc_new)
            return acc_out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[48, 192], pl.FP16], b: pl.Tensor[[192, 64], pl.FP16]) -> pl.Tensor[[48, 64], pl.FP32]:
            c = self.kernel(a, b)
            return c
    '''), inputs=lambda: {"a": uniform(19, (48, 192), -1, 1, F16), "b": uniform(20, (192, 64), -1, 1, F16)},
     reference=lambda a, b: {"ret0": matmul_ref(a, b)})

case("matmul_in_loop_row_max_carried", text=program('''
    @pl.program
    class MatmulRowMax:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[32, 96], pl.FP16], b: pl.Tensor[[96, 192], pl.FP16]) -> pl.Tensor[[32, 64], pl.FP32]:
            m0 = pl.full([32, 1], dtype=pl.FP32, value=-1e30)
            for j, (m,) in pl.range(3, init_values=(m0,)):
                bj = pl.slice(b, [96, 64], [0, j * 64])
                s = pl.matmul(a, bj, out_dtype=pl.FP32)
                m_new = pl.maximum(m, pl.row_max(s))
                m_out = pl.yield_(m_new)
            b0 = pl.slice(b, [96, 64], [0, 0])
            s0 = pl.matmul(a, b0, out_dtype=pl.FP32)
            r = pl.exp(pl.row_expand_sub(s0, m_out))
            return r

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[32, 96], pl.FP16], b: pl.Tensor[[96, 192], pl.FP16]) -> pl.Tensor[[32, 64], pl.FP32]:
            r = self.kernel(a, b)
            return r
    '''), inputs=lambda: {"a": uniform(21, (32, 96), -1, 1, F16), "b": uniform(22, (96, 192), -1, 1, F16)},
     reference=lambda a, b: {"ret0": _matmul_row_max(a, b)})


def _matmul_row_max(a: Array, b: Array) -> Array:
    m = np.full((32, 1), -1e30, F32)
    for j in range(3):
        m = vmax(m, row_max(matmul_ref(a, b[:, 64 * j:64 * j + 64])))
    return exp(f32(matmul_ref(a, b[:, :64]) - m))


case("if_else_in_loop_two_carries", text=program('''
    @pl.program
    class IfElseTwoCarries:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32]) -> tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 1], pl.FP32]]:
            x = pl.adds(a, 2.0)
            r0 = pl.full([16, 1], dtype=pl.FP32, value=0.0)
            for i, (acc, r) in pl.range(5, init_values=(b, r0)):
                if i % 2 == 0:
                    t = pl.mul(acc, x)
                    rr = pl.add(r, pl.row_max(t))
                    t_out, r_phi = pl.yield_(t, rr)
                else:
                    u = pl.sub(acc, x)
                    t_out, r_phi = pl.yield_(u, r)
                nxt = pl.muls(t_out, 0.5)
                acc_out, r_out = pl.yield_(nxt, r_phi)
            return acc_out, r_out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32]) -> tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 1], pl.FP32]]:
            acc, r = self.kernel(a, b)
            return acc, r
    '''), inputs=lambda: {"a": uniform(23, (16, 64), -1, 1), "b": uniform(24, (16, 64))},
     reference=lambda a, b: dict(zip(("ret0", "ret1"), _if_else_two(a, b))))


def _if_else_two(a: Array, b: Array) -> tuple[Array, Array]:
    x, acc, r = f32(a + F32(2.0)), b, np.zeros((16, 1), F32)
    for i in range(5):
        if i % 2 == 0:
            t = f32(acc * x)
            r = f32(r + row_max(t))
        else:
            t = f32(acc - x)
        acc = f32(t * F32(0.5))
    return acc, r


case("gm_seeded_carry_param_read_after_loop", text=program('''
    @pl.program
    class GmSeed:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, x: pl.Tensor[[32, 48], pl.FP32], b: pl.Tensor[[32, 48], pl.FP32]) -> pl.Tensor[[32, 48], pl.FP32]:
            for i, (acc,) in pl.range(3, init_values=(b,)):
                acc_new = pl.add(pl.mul(acc, x), b)
                acc_out = pl.yield_(acc_new)
            r = pl.sub(acc_out, b)
            return r

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[32, 48], pl.FP32], b: pl.Tensor[[32, 48], pl.FP32]) -> pl.Tensor[[32, 48], pl.FP32]:
            r = self.kernel(x, b)
            return r
    '''), inputs=lambda: {"x": uniform(81, (32, 48), -1, 1), "b": uniform(82, (32, 48))},
     reference=lambda x, b: {"ret0": _gm_seed(x, b)})


def _gm_seed(x: Array, b: Array) -> Array:
    acc = b
    for _ in range(3):
        acc = f32(f32(acc * x) + b)
    return f32(acc - b)


case("gm_seeded_matmul_accumulator_rejected", text=program('''
    @pl.program
    class GmSeedAcc:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[32, 128], pl.FP16], b: pl.Tensor[[128, 32], pl.FP16],
                   c: pl.Tensor[[32, 32], pl.FP32]) -> pl.Tensor[[32, 32], pl.FP32]:
            for i, (acc,) in pl.range(2, init_values=(c,)):
                ai = pl.slice(a, [32, 64], [0, i * 64])
                bi = pl.slice(b, [64, 32], [i * 64, 0])
                acc_new = pl.matmul_acc(acc, ai, bi)  # <- here
                acc_out = pl.yield_(acc_new)
            return acc_out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[32, 128], pl.FP16], b: pl.Tensor[[128, 32], pl.FP16],
                 c: pl.Tensor[[32, 32], pl.FP32]) -> pl.Tensor[[32, 32], pl.FP32]:
            r = self.kernel(a, b, c)
            return r
    '''), inputs=lambda: {"a": uniform(83, (32, 128), -1, 1, F16), "b": uniform(84, (128, 32), -1, 1, F16),
                          "c": uniform(85, (32, 32))}, reject="no load from GM can fill")


case("if_else_stores_in_loop_jit", text=program('''
    @pl.jit
    def branchy(x: pl.Tensor, y: pl.Out[pl.Tensor]) -> pl.Tensor:
        with pl.at(level=pl.Level.CORE_GROUP):
            for i in pl.range(4):
                t = pl.load(x, [i * 24, 0], [24, 64])
                if i < 2:
                    pl.store(pl.muls(t, 3.0), [i * 24, 0], y)
                else:
                    pl.store(pl.exp(t), [i * 24, 0], y)
        return y
    '''), inputs=lambda: {"x": uniform(25, (96, 64)), "y": np.zeros((96, 64), F32)},
     reference=lambda x, y: {"y": np.concatenate([f32(x[:48] * F32(3.0)), exp(x[48:])])})

case("tile_level_online_softmax", text=program('''
    @pl.program
    class TileOnlineSoftmax:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, x: pl.Tensor[[16, 128], pl.FP32], out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
            m = pl.tile.full([16, 1], dtype=pl.FP32, value=-1e30)
            l = pl.tile.full([16, 1], dtype=pl.FP32, value=0.0)
            tmp = pl.tile.create([16, 32], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
            for i in pl.range(4):
                s = pl.tile.load(x, [0, i * 32], [16, 32])
                bm = pl.tile.row_max(s, tmp)
                m_new = pl.tile.maximum(m, bm)
                alpha = pl.tile.exp(pl.tile.sub(m, m_new))
                p = pl.tile.exp(pl.tile.row_expand_sub(s, m_new))
                l = pl.tile.add(pl.tile.mul(l, alpha), pl.tile.row_sum(p, tmp))
                m = m_new
            res = pl.tile.add(pl.tile.log(l), m)
            out = pl.tile.store(res, [0, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[16, 128], pl.FP32]) -> pl.Tensor[[16, 1], pl.FP32]:
            out = pl.create_tensor([16, 1], dtype=pl.FP32)
            out = self.kernel(x, out)
            return out
    '''), inputs=lambda: {"x": uniform(26, (16, 128))},
     reference=lambda x: {"ret0": _lse(x)})


def _lse(x: Array) -> Array:
    m, l = online_softmax_cols(x, 4, 32)
    return f32(np.log(l.astype(F64)).astype(F32) + m)


case("swap_three_carries_rotating", text=program('''
    @pl.program
    class Rotate3:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[24, 32], pl.FP32], b: pl.Tensor[[24, 32], pl.FP32],
                   c: pl.Tensor[[24, 32], pl.FP32]) -> pl.Tensor[[24, 32], pl.FP32]:
            p0 = pl.muls(a, 1.0)
            q0 = pl.muls(b, 1.0)
            r0 = pl.muls(c, 1.0)
            for i, (p, q, r) in pl.range(4, init_values=(p0, q0, r0)):
                s = pl.sub(p, pl.muls(r, 0.5))
                p_out, q_out, r_out = pl.yield_(q, r, s)
            y = pl.add(pl.mul(p_out, q_out), r_out)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[24, 32], pl.FP32], b: pl.Tensor[[24, 32], pl.FP32],
                 c: pl.Tensor[[24, 32], pl.FP32]) -> pl.Tensor[[24, 32], pl.FP32]:
            y = self.kernel(a, b, c)
            return y
    '''), inputs=lambda: {"a": uniform(27, (24, 32)), "b": uniform(28, (24, 32)), "c": uniform(29, (24, 32))},
     reference=lambda a, b, c: {"ret0": _rotate3(a, b, c)})


def _rotate3(a: Array, b: Array, c: Array) -> Array:
    p, q, r = a, b, c
    for _ in range(4):
        p, q, r = q, r, f32(p - f32(r * F32(0.5)))
    return f32(f32(p * q) + r)


# (2) reshape of a Mat (NZ) tile feeding a matmul ---------------------------------------------------------

case("reshape_left_k96", text=program('''
    @pl.program
    class ReshapeLeftK96:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[96, 64], pl.FP16], b: pl.Tensor[[96, 32], pl.FP16]) -> pl.Tensor[[64, 32], pl.FP32]:
            c = pl.matmul(pl.reshape(a, [64, 96]), b, out_dtype=pl.FP32)
            return c

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[96, 64], pl.FP16], b: pl.Tensor[[96, 32], pl.FP16]) -> pl.Tensor[[64, 32], pl.FP32]:
            c = self.kernel(a, b)
            return c
    '''), inputs=lambda: {"a": uniform(30, (96, 64), -2, 2, F16), "b": uniform(31, (96, 32), -2, 2, F16)},
     reference=lambda a, b: {"ret0": matmul_ref(a.reshape(64, 96), b)})

case("reshape_right_k192", text=program('''
    @pl.program
    class ReshapeRightK192:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[32, 192], pl.FP16], b: pl.Tensor[[64, 192], pl.FP16]) -> pl.Tensor[[32, 64], pl.FP32]:
            c = pl.matmul(a, pl.reshape(b, [192, 64]), out_dtype=pl.FP32)
            return c

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[32, 192], pl.FP16], b: pl.Tensor[[64, 192], pl.FP16]) -> pl.Tensor[[32, 64], pl.FP32]:
            c = self.kernel(a, b)
            return c
    '''), inputs=lambda: {"a": uniform(32, (32, 192), -1, 1, F16), "b": uniform(33, (64, 192), -1, 1, F16)},
     reference=lambda a, b: {"ret0": matmul_ref(a, b.reshape(192, 64))})

case("reshape_bf16_k320", text=program('''
    @pl.program
    class ReshapeBF16K320:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[320, 16], pl.BF16], b: pl.Tensor[[320, 32], pl.BF16]) -> pl.Tensor[[16, 32], pl.FP32]:
            c = pl.matmul(pl.reshape(a, [16, 320]), b, out_dtype=pl.FP32)
            return c

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[320, 16], pl.BF16], b: pl.Tensor[[320, 32], pl.BF16]) -> pl.Tensor[[16, 32], pl.FP32]:
            c = self.kernel(a, b)
            return c
    '''), inputs=lambda: {"a": bf16(uniform(34, (320, 16), -1, 1)), "b": bf16(uniform(35, (320, 32), -1, 1))},
     reference=lambda a, b: {"ret0": matmul_ref(from_bf16(a).reshape(16, 320), from_bf16(b))})

case("reshape_in_loop_feeds_matmul_acc", text=program('''
    @pl.program
    class ReshapeLoop:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[128, 32], pl.FP16]) -> pl.Tensor[[32, 32], pl.FP32]:
            z = pl.full([32, 32], dtype=pl.FP32, value=0.0)
            for i, (acc,) in pl.range(2, init_values=(z,)):
                ai = pl.slice(a, [32, 64], [i * 32, 0])
                bi = pl.slice(b, [64, 32], [i * 64, 0])
                r = pl.matmul(pl.reshape(ai, [32, 64]), bi, out_dtype=pl.FP32)
                acc_new = pl.add(acc, r)
                acc_out = pl.yield_(acc_new)
            return acc_out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[128, 32], pl.FP16]) -> pl.Tensor[[32, 32], pl.FP32]:
            c = self.kernel(a, b)
            return c
    '''), inputs=lambda: {"a": uniform(36, (64, 64), -1, 1, F16), "b": uniform(37, (128, 32), -1, 1, F16)},
     reference=lambda a, b: {"ret0": f32(matmul_ref(a[:32], b[:64]) + matmul_ref(a[32:], b[64:]))})

case("jit_reshape_of_mat_tiles_rejected", text=program('''
    @pl.jit
    def reshaped(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]) -> pl.Tensor:
        with pl.at(level=pl.Level.CORE_GROUP):
            ta = pl.load(a, [0, 0], [32, 96], target_memory=pl.MemorySpace.Mat)
            tb = pl.load(b, [0, 0], [96, 64], target_memory=pl.MemorySpace.Mat)
            ra = pl.reshape(ta, [96, 32])  # <- here
            rb = pl.reshape(tb, [32, 192])
            acc = pl.matmul(pl.move(ra, target_memory=pl.MemorySpace.Left), pl.move(rb, target_memory=pl.MemorySpace.Right))
            pl.store(acc, [0, 0], c)
        return c
    '''), inputs=lambda: {"a": uniform(38, (32, 96), -1, 1, F16), "b": uniform(39, (96, 64), -1, 1, F16),
                          "c": np.zeros((96, 192), F32)}, reject="re-views `ta`")

case("tile_level_reshape_of_mat_tile_rejected", text=program('''
    @pl.program
    class TileReshapeMat:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[64, 32], pl.FP16], b: pl.Tensor[[64, 48], pl.FP16],
                   out: pl.Out[pl.Tensor[[32, 48], pl.FP32]]) -> pl.Tensor[[32, 48], pl.FP32]:
            ta = pl.tile.load(a, [0, 0], [64, 32], target_memory=pl.MemorySpace.Mat)
            tb = pl.tile.load(b, [0, 0], [64, 48], target_memory=pl.MemorySpace.Mat)
            ra = pl.tile.reshape(ta, [32, 64])  # <- here
            c = pl.tile.matmul(pl.tile.move(ra, target_memory=pl.MemorySpace.Left),
                               pl.tile.move(tb, target_memory=pl.MemorySpace.Right))
            out = pl.tile.store(c, [0, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[64, 32], pl.FP16], b: pl.Tensor[[64, 48], pl.FP16]) -> pl.Tensor[[32, 48], pl.FP32]:
            out = pl.create_tensor([32, 48], dtype=pl.FP32)
            out = self.kernel(a, b, out)
            return out
    '''), reject="Vec ND")


# (3) set_validshape on a slice view ---------------------------------------------------------------------

case("set_validshape_on_slice_in_loop", text=program('''
    @pl.program
    class SvsSliceLoop:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
            t = pl.muls(a, 2.0)
            z = pl.full([16, 64], dtype=pl.FP32, value=0.0)
            for i, (acc,) in pl.range(4, init_values=(z,)):
                s = pl.slice(t, [16, 64], [i * 16, 0])  # <- here
                v = pl.set_validshape(s, 12, 64)
                acc_new = pl.add(acc, v)
                acc_out = pl.yield_(acc_new)
            return acc_out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
            r = self.kernel(a)
            return r
    '''), reject="set_validshape")

case("set_validshape_on_tile_slice_jit", text=program('''
    @pl.jit
    def narrowed(x: pl.Tensor, y: pl.Out[pl.Tensor]) -> pl.Tensor:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0, 0], [32, 64])
            s = pl.tile.slice(t, [16, 64], [16, 0])  # <- here
            v = pl.tile.set_validshape(s, 10, 64)
            pl.store(pl.exp(v), [0, 0], y)
        return y
    '''), inputs=lambda: {"x": uniform(42, (32, 64)), "y": np.zeros((16, 64), F32)}, reject="set_validshape")

case("slice_with_valid_shape_rows48", text=program('''
    @pl.program
    class SliceValid:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[48, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32, pl.TensorView(valid_shape=[16, 40])]:
            t = pl.adds(a, 1.0)
            v = pl.slice(t, [16, 64], [32, 0], [16, 40])
            r = pl.muls(v, 3.0)
            return r

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[48, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32, pl.TensorView(valid_shape=[16, 40])]:
            r = self.kernel(a)
            return r
    '''), inputs=lambda: {"a": uniform(43, (48, 64))},
     reference=lambda a: {"ret0[:, :40]": f32(f32(a[32:, :40] + F32(1.0)) * F32(3.0))})


# (4) Python infix operators on tensors and tiles --------------------------------------------------------

case("infix_add_on_tensors", text=program('''
    @pl.program
    class InfixAdd:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
            t = pl.exp(a)
            c = t + b  # <- here
            return c

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
            c = self.kernel(a, b)
            return c
    '''), reject="pl.add")

case("infix_negate_tile_jit", text=program('''
    @pl.jit
    def negate(x: pl.Tensor, y: pl.Out[pl.Tensor]) -> pl.Tensor:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0, 0], [16, 64])
            n = -t  # <- here
            pl.store(n, [0, 0], y)
        return y
    '''), inputs=lambda: {"x": uniform(44, (16, 64)), "y": np.zeros((16, 64), F32)}, reject="pl.neg")

case("infix_scale_by_constant", text=program('''
    @pl.program
    class InfixScale:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[32, 32], pl.FP16]) -> pl.Tensor[[32, 32], pl.FP16]:
            c = a * 2  # <- here
            return c

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[32, 32], pl.FP16]) -> pl.Tensor[[32, 32], pl.FP16]:
            c = self.kernel(a)
            return c
    '''), reject="pl.mul")

case("infix_accumulate_in_loop", text=program('''
    @pl.program
    class InfixLoop:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[64, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
            acc = pl.full([16, 32], dtype=pl.FP32, value=0.0)
            for i in pl.range(4):
                blk = pl.slice(a, [16, 32], [i * 16, 0])
                acc = acc - blk  # <- here
            return acc

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[64, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
            r = self.kernel(a)
            return r
    '''), reject="pl.sub")

case("infix_tile_level_mul_jit", text=program('''
    @pl.jit
    def tmul(x: pl.Tensor, w: pl.Tensor, y: pl.Out[pl.Tensor]) -> pl.Tensor:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.tile.load(x, [0, 0], [16, 64])
            u = pl.tile.load(w, [0, 0], [16, 64])
            pl.tile.store(t * u, [0, 0], y)  # <- here
        return y
    '''), inputs=lambda: {"x": uniform(45, (16, 64)), "w": uniform(46, (16, 64)), "y": np.zeros((16, 64), F32)},
     reject="pl.mul")

case("infix_matmul_operator", text=program('''
    @pl.program
    class InfixMatmul:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16]) -> pl.Tensor[[16, 16], pl.FP32]:
            c = a @ b  # <- here
            return c

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16]) -> pl.Tensor[[16, 16], pl.FP32]:
            c = self.kernel(a, b)
            return c
    '''), reject="pl.matmul")

case("infix_compare_tiles", text=program('''
    @pl.program
    class InfixCompare:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
            ta = pl.exp(a)
            m = ta > b  # <- here
            return m

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
            c = self.kernel(a, b)
            return c
    '''), reject="pl.cmp")

case("scalar_infix_offsets_still_work", text=program('''
    @pl.program
    class ScalarInfix:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[96, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
            acc = pl.full([16, 32], dtype=pl.FP32, value=0.0)
            for i in pl.range(3):
                blk = pl.slice(a, [16, 32], [(i * 2 + 1) * 16 - 8 + 8, 0])
                acc = pl.add(acc, blk)
            return acc

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[96, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
            r = self.kernel(a)
            return r
    '''), inputs=lambda: {"a": uniform(47, (96, 32))},
     reference=lambda a: {"ret0": f32(f32(f32(np.zeros((16, 32), F32) + a[16:32]) + a[48:64]) + a[80:96])})


# (5) windows leaving their source inside constant-trip loops ---------------------------------------------

case("slice_leaves_rows100", text=program('''
    @pl.program
    class SliceRows100:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[100, 32], pl.FP32]) -> pl.Tensor[[32, 32], pl.FP32]:
            z = pl.full([32, 32], dtype=pl.FP32, value=0.0)
            for i, (acc,) in pl.range(4, init_values=(z,)):
                s = pl.slice(a, [32, 32], [i * 32, 0])  # <- here
                acc_new = pl.add(acc, s)
                acc_out = pl.yield_(acc_new)
            return acc_out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[100, 32], pl.FP32]) -> pl.Tensor[[32, 32], pl.FP32]:
            r = self.kernel(a)
            return r
    '''), reject="i = 3")

case("slice_leaves_in_nested_loops", text=program('''
    @pl.program
    class SliceNested:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
            acc = pl.full([16, 64], dtype=pl.FP32, value=0.0)
            for i in pl.range(2):
                for j in pl.range(3):
                    s = pl.slice(a, [16, 64], [i * 32 + j * 16, 0])  # <- here
                    acc = pl.add(acc, s)
            return acc

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
            r = self.kernel(a)
            return r
    '''), reject="j = 2")

case("slice_exact_fit_rows100", text=program('''
    @pl.program
    class SliceExact100:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[100, 32], pl.FP32]) -> pl.Tensor[[25, 32], pl.FP32]:
            z = pl.full([25, 32], dtype=pl.FP32, value=0.0)
            for i, (acc,) in pl.range(4, init_values=(z,)):
                s = pl.slice(a, [25, 32], [i * 25, 0])
                acc_new = pl.add(acc, s)
                acc_out = pl.yield_(acc_new)
            return acc_out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[100, 32], pl.FP32]) -> pl.Tensor[[25, 32], pl.FP32]:
            r = self.kernel(a)
            return r
    '''), inputs=lambda: {"a": uniform(48, (100, 32))},
     reference=lambda a: {"ret0": _blocks_sum(a, 25, 4)})


def _blocks_sum(a: Array, rows: int, n: int) -> Array:
    acc = np.zeros((rows, a.shape[1]), F32)
    for i in range(n):
        acc = f32(acc + a[i * rows:(i + 1) * rows])
    return acc


case("load_leaves_in_jit_loop", text=program('''
    @pl.jit
    def loads(x: pl.Tensor, y: pl.Out[pl.Tensor]) -> pl.Tensor:
        with pl.at(level=pl.Level.CORE_GROUP):
            acc = pl.tile.full([16, 48], dtype=pl.FP32, value=0.0)
            for i in pl.range(0, 5):
                t = pl.load(x, [0, i * 48], [16, 48])  # <- here
                acc = pl.add(acc, t)
            pl.store(acc, [0, 0], y)
        return y
    '''), inputs=lambda: {"x": uniform(49, (16, 192)), "y": np.zeros((16, 48), F32)}, reject="i = 4")

case("store_leaves_in_loop", text=program('''
    @pl.program
    class StoreLeaves:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[48, 32], pl.FP32]]) -> pl.Tensor[[48, 32], pl.FP32]:
            t = pl.tile.load(a, [0, 0], [16, 32])
            for i in pl.range(1, 4):
                u = pl.tile.muls(t, 2.0)
                out = pl.tile.store(u, [i * 16, 0], out)  # <- here
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[48, 32], pl.FP32]:
            out = pl.create_tensor([48, 32], dtype=pl.FP32)
            out = self.kernel(a, out)
            return out
    '''), reject="i = 3")

case("stepped_range_in_bounds", text=program('''
    @pl.program
    class Stepped:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[40, 96], pl.FP32]) -> pl.Tensor[[40, 32], pl.FP32]:
            acc = pl.full([40, 32], dtype=pl.FP32, value=1.0)
            for c in pl.range(0, 96, 32):
                s = pl.slice(a, [40, 32], [0, c])
                acc = pl.mul(acc, s)
            return acc

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[40, 96], pl.FP32]) -> pl.Tensor[[40, 32], pl.FP32]:
            r = self.kernel(a)
            return r
    '''), inputs=lambda: {"a": uniform(50, (40, 96))},
     reference=lambda a: {"ret0": f32(f32(f32(np.ones((40, 32), F32) * a[:, :32]) * a[:, 32:64]) * a[:, 64:])})


# (6) casts whose width or layout differs ------------------------------------------------------------------

case("cast_f32_to_bf16_source_dies", text=program('''
    @pl.program
    class CastBF16:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[48, 64], pl.FP32]) -> pl.Tensor[[48, 64], pl.BF16]:
            t = pl.muls(a, 1.5)
            h = pl.cast(t, pl.BF16, "rint")
            r = pl.mul(h, h)
            return r

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[48, 64], pl.FP32]) -> pl.Tensor[[48, 64], pl.BF16]:
            r = self.kernel(a)
            return r
    '''), inputs=lambda: {"a": uniform(51, (48, 64), -50, 50)},
     reference=lambda a: {"ret0": _bf16_square(a)})


def _bf16_square(a: Array) -> Array:
    h = from_bf16(bf16(f32(a * F32(1.5))))
    return bf16(f32(h * h))


case("cast_f16_to_f32_widening_source_dies", text=program('''
    @pl.program
    class CastWiden:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[32, 64], pl.FP16]) -> pl.Tensor[[32, 64], pl.FP32]:
            t = pl.adds(a, 1.0)
            w = pl.cast(t, pl.FP32)
            r = pl.muls(w, 0.125)
            return r

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[32, 64], pl.FP16]) -> pl.Tensor[[32, 64], pl.FP32]:
            r = self.kernel(a)
            return r
    '''), inputs=lambda: {"a": uniform(52, (32, 64), -100, 100, F16)},
     reference=lambda a: {"ret0": f32((a + F16(1.0)).astype(F16).astype(F32) * F32(0.125))})

case("cast_f32_to_i32_same_width", text=program('''
    @pl.program
    class CastI32:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.INT32]:
            t = pl.muls(a, 10.0)
            n = pl.cast(t, pl.INT32, "rint")
            r = pl.adds(n, 7)
            return r

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.INT32]:
            r = self.kernel(a)
            return r
    '''), inputs=lambda: {"a": uniform(53, (16, 64), -100, 100)},
     reference=lambda a: {"ret0": (np.rint(f32(a * F32(10.0))).astype(np.int32) + 7).astype(np.int32)})

case("cast_round_trip_in_loop", text=program('''
    @pl.program
    class CastLoop:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[16, 128], pl.FP16]) -> pl.Tensor[[16, 128], pl.FP16]:
            h0 = pl.adds(a, 0.0)
            for i, (h,) in pl.range(3, init_values=(h0,)):
                w = pl.cast(h, pl.FP32)
                w2 = pl.adds(pl.muls(w, 1.25), 0.5)
                h_new = pl.cast(w2, pl.FP16, "rint")
                h_out = pl.yield_(h_new)
            return h_out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[16, 128], pl.FP16]) -> pl.Tensor[[16, 128], pl.FP16]:
            r = self.kernel(a)
            return r
    '''), inputs=lambda: {"a": uniform(54, (16, 128), -8, 8, F16)},
     reference=lambda a: {"ret0": _cast_loop(a)})


def _cast_loop(a: Array) -> Array:
    h = a
    for _ in range(3):
        h = f32(f32(h.astype(F32) * F32(1.25)) + F32(0.5)).astype(F16)
    return h


case("cast_row_max_column_to_f16", text=program('''
    @pl.program
    class CastColumn:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[32, 64], pl.FP32], b: pl.Tensor[[32, 64], pl.FP16]) -> pl.Tensor[[32, 64], pl.FP16]:
            m = pl.row_max(a)
            mh = pl.cast(m, pl.FP16, "rint")
            r = pl.row_expand_sub(b, mh)
            return r

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[32, 64], pl.FP32], b: pl.Tensor[[32, 64], pl.FP16]) -> pl.Tensor[[32, 64], pl.FP16]:
            r = self.kernel(a, b)
            return r
    '''), inputs=lambda: {"a": uniform(55, (32, 64), -50, 50), "b": uniform(56, (32, 64), -50, 50, F16)},
     reference=lambda a, b: {"ret0": (b - row_max(a).astype(F16)).astype(F16)})


# (7) valid kernels that used to fail: decode attention, carried reductions --------------------------------

case("decode_attention_k96_n1152", text=program('''
    @pl.program
    class DecodeK96N1152:
        @pl.function(type=pl.FunctionType.InCore)
        def attn(self, q: pl.Tensor[[16, 96], pl.FP16], k: pl.Tensor[[1152, 96], pl.FP16]) -> pl.Tensor[[16, 1152], pl.FP32]:
            s = pl.matmul(q, k, b_trans=True, out_dtype=pl.FP32)
            m = pl.row_max(s)
            e = pl.exp(pl.row_expand_sub(s, m))
            p = pl.row_expand_div(e, pl.row_sum(e))
            return p

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, q: pl.Tensor[[16, 96], pl.FP16], k: pl.Tensor[[1152, 96], pl.FP16]) -> pl.Tensor[[16, 1152], pl.FP32]:
            p = self.attn(q, k)
            return p
    '''), inputs=lambda: {"q": uniform(57, (16, 96), -1, 1, F16), "k": uniform(58, (1152, 96), -1, 1, F16)},
     reference=lambda q, k: {"ret0": softmax(matmul_ref(q, np.ascontiguousarray(k.T)))})

case("decode_attention_bf16_k192_n896", text=program('''
    @pl.program
    class DecodeBF16:
        @pl.function(type=pl.FunctionType.InCore)
        def attn(self, q: pl.Tensor[[16, 192], pl.BF16], k: pl.Tensor[[896, 192], pl.BF16]) -> pl.Tensor[[16, 896], pl.FP32]:
            s = pl.matmul(q, k, b_trans=True, out_dtype=pl.FP32)
            m = pl.row_max(s)
            e = pl.exp(pl.row_expand_sub(s, m))
            p = pl.row_expand_div(e, pl.row_sum(e))
            return p

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, q: pl.Tensor[[16, 192], pl.BF16], k: pl.Tensor[[896, 192], pl.BF16]) -> pl.Tensor[[16, 896], pl.FP32]:
            p = self.attn(q, k)
            return p
    '''), inputs=lambda: {"q": bf16(uniform(59, (16, 192), -1, 1)), "k": bf16(uniform(60, (896, 192), -1, 1))},
     reference=lambda q, k: {"ret0": softmax(matmul_ref(from_bf16(q), np.ascontiguousarray(from_bf16(k).T)))})

case("decode_attention_with_values", text=program('''
    @pl.program
    class DecodePV:
        @pl.function(type=pl.FunctionType.InCore)
        def attn(self, q: pl.Tensor[[16, 128], pl.FP16], k: pl.Tensor[[512, 128], pl.FP16],
                 v: pl.Tensor[[512, 128], pl.FP16]) -> pl.Tensor[[16, 128], pl.FP32]:
            s = pl.matmul(q, k, b_trans=True, out_dtype=pl.FP32)
            m = pl.row_max(s)
            e = pl.exp(pl.row_expand_sub(s, m))
            t = pl.row_sum(e)
            o = pl.matmul(pl.cast(e, pl.FP16, "rint"), v, out_dtype=pl.FP32)
            r = pl.row_expand_div(o, t)
            return r

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, q: pl.Tensor[[16, 128], pl.FP16], k: pl.Tensor[[512, 128], pl.FP16],
                 v: pl.Tensor[[512, 128], pl.FP16]) -> pl.Tensor[[16, 128], pl.FP32]:
            r = self.attn(q, k, v)
            return r
    '''), inputs=lambda: {"q": uniform(61, (16, 128), -1, 1, F16), "k": uniform(62, (512, 128), -1, 1, F16),
                          "v": uniform(63, (512, 128), -1, 1, F16)},
     reference=lambda q, k, v: {"ret0": _decode_pv(q, k, v)})


def _decode_pv(q: Array, k: Array, v: Array) -> Array:
    s = matmul_ref(q, np.ascontiguousarray(k.T))
    e = exp(f32(s - row_max(s)))
    return f32(matmul_ref(e.astype(F16), v) / row_sum(e))


case("decode_attention_jit", text=program('''
    @pl.jit
    def decode(q: pl.Tensor, k: pl.Tensor, p: pl.Out[pl.Tensor]) -> pl.Tensor:
        with pl.at(level=pl.Level.CORE_GROUP):
            s = pl.matmul(q, k, b_trans=True, out_dtype=pl.FP32)
            m = pl.row_max(s)
            e = pl.exp(pl.row_expand_sub(s, m))
            r = pl.row_expand_div(e, pl.row_sum(e))
            p = pl.assemble(p, r, [0, 0])
        return p
    '''), inputs=lambda: {"q": uniform(64, (16, 128), -1, 1, F16), "k": uniform(65, (1152, 128), -1, 1, F16),
                          "p": np.zeros((16, 1152), F32)},
     reference=lambda q, k, p: {"p": softmax(matmul_ref(q, np.ascontiguousarray(k.T)))})


# several kernels in one orchestration ----------------------------------------------------------------------

case("two_kernels_gm_reread", text=program('''
    @pl.program
    class TwoKernels:
        @pl.function(type=pl.FunctionType.InCore)
        def scores(self, a: pl.Tensor[[48, 96], pl.FP16], b: pl.Tensor[[96, 64], pl.FP16]) -> pl.Tensor[[48, 64], pl.FP32]:
            s = pl.matmul(a, b, out_dtype=pl.FP32)
            return s

        @pl.function(type=pl.FunctionType.InCore)
        def normalize(self, s: pl.Tensor[[48, 64], pl.FP32], bias: pl.Tensor[[48, 64], pl.FP32]) -> pl.Tensor[[48, 64], pl.FP32]:
            t = pl.add(s, bias)
            m = pl.row_max(t)
            r = pl.exp(pl.row_expand_sub(t, m))
            return r

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[48, 96], pl.FP16], b: pl.Tensor[[96, 64], pl.FP16],
                 bias: pl.Tensor[[48, 64], pl.FP32]) -> tuple[pl.Tensor[[48, 64], pl.FP32], pl.Tensor[[48, 64], pl.FP32]]:
            s = self.scores(a, b)
            r = self.normalize(s, bias)
            r2 = self.normalize(r, s)
            return r, r2
    '''), inputs=lambda: {"a": uniform(66, (48, 96), -1, 1, F16), "b": uniform(67, (96, 64), -1, 1, F16),
                          "bias": uniform(68, (48, 64))},
     reference=lambda a, b, bias: dict(zip(("ret0", "ret1"), _two_kernels(a, b, bias))))


def _two_kernels(a: Array, b: Array, bias: Array) -> tuple[Array, Array]:
    def norm(s: Array, x: Array) -> Array:
        t = f32(s + x)
        return exp(f32(t - row_max(t)))
    s = matmul_ref(a, b)
    r = norm(s, bias)
    return r, norm(r, s)


case("inout_updated_by_three_calls", text=program('''
    @pl.program
    class InOutThree:
        @pl.function(type=pl.FunctionType.InCore)
        def step(self, x: pl.Tensor[[32, 64], pl.FP32], acc: pl.InOut[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
            t = pl.tile.load(acc, [0, 0], [32, 64])
            u = pl.tile.load(x, [0, 0], [32, 64])
            n = pl.tile.add(pl.tile.muls(t, 0.5), u)
            acc = pl.tile.store(n, [0, 0], acc)
            return acc

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[32, 64], pl.FP32], acc: pl.InOut[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
            acc = self.step(x, acc)
            acc = self.step(acc, acc)
            acc = self.step(x, acc)
            return acc
    '''), inputs=lambda: {"x": uniform(69, (32, 64)), "acc": uniform(70, (32, 64))},
     reference=lambda x, acc: {"acc": _inout_three(x, acc)})


def _inout_three(x: Array, acc: Array) -> Array:
    a = f32(f32(acc * F32(0.5)) + x)
    a = f32(f32(a * F32(0.5)) + a)
    return f32(f32(a * F32(0.5)) + x)


case("jit_two_incore_deps_softmax_then_matmul", text=program('''
    @pl.jit.incore
    def row_softmax(x: pl.Tensor, out: pl.Out[pl.Tensor]) -> pl.Tensor:
        t = pl.load(x, [0, 0], [48, 64])
        m = pl.row_max(t)
        e = pl.exp(pl.row_expand_sub(t, m))
        r = pl.row_expand_div(e, pl.row_sum(e))
        pl.store(pl.cast(r, pl.FP16, "rint"), [0, 0], out)
        return out


    @pl.jit.incore
    def project(p: pl.Tensor, w: pl.Tensor, out: pl.Out[pl.Tensor]) -> pl.Tensor:
        tp = pl.load(p, [0, 0], [48, 64], target_memory=pl.MemorySpace.Mat)
        tw = pl.load(w, [0, 0], [64, 32], target_memory=pl.MemorySpace.Mat)
        acc = pl.matmul(pl.move(tp, target_memory=pl.MemorySpace.Left), pl.move(tw, target_memory=pl.MemorySpace.Right))
        pl.store(acc, [0, 0], out)
        return out


    @pl.jit
    def attend(x: pl.Tensor, w: pl.Tensor, y: pl.Out[pl.Tensor]) -> pl.Tensor:
        p = pl.create_tensor([48, 64], dtype=pl.FP16)
        p = row_softmax(x, p)
        y = project(p, w, y)
        return y
    '''), inputs=lambda: {"x": uniform(71, (48, 64)), "w": uniform(72, (64, 32), -1, 1, F16),
                          "y": np.zeros((48, 32), F32)},
     reference=lambda x, w, y: {"y": matmul_ref(softmax(x).astype(F16), w)})

case("loop_if_chooses_matmul_operand", text=program('''
    @pl.program
    class LoopIfMatmul:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[64, 32], pl.FP16],
                   c: pl.Tensor[[64, 32], pl.FP16]) -> pl.Tensor[[32, 32], pl.FP32]:
            z = pl.full([32, 32], dtype=pl.FP32, value=0.0)
            for i, (acc,) in pl.range(3, init_values=(z,)):
                if i == 1:
                    r = pl.matmul(a, c, out_dtype=pl.FP32)
                    phi = pl.yield_(r)
                else:
                    r2 = pl.matmul(a, b, out_dtype=pl.FP32)
                    phi = pl.yield_(r2)
                acc_new = pl.add(pl.muls(acc, 0.5), phi)
                acc_out = pl.yield_(acc_new)
            return acc_out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[64, 32], pl.FP16],
                 c: pl.Tensor[[64, 32], pl.FP16]) -> pl.Tensor[[32, 32], pl.FP32]:
            r = self.kernel(a, b, c)
            return r
    '''), inputs=lambda: {"a": uniform(73, (32, 64), -1, 1, F16), "b": uniform(74, (64, 32), -1, 1, F16),
                          "c": uniform(75, (64, 32), -1, 1, F16)},
     reference=lambda a, b, c: {"ret0": _loop_if_matmul(a, b, c)})


def _loop_if_matmul(a: Array, b: Array, c: Array) -> Array:
    acc = np.zeros((32, 32), F32)
    for i in range(3):
        acc = f32(f32(acc * F32(0.5)) + matmul_ref(a, c if i == 1 else b))
    return acc


case("matmul_rows100_softmax_fp16_out", text=program('''
    @pl.program
    class Rows100Softmax:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[100, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16]) -> pl.Tensor[[100, 64], pl.FP16]:
            s = pl.matmul(a, b, out_dtype=pl.FP32)
            m = pl.row_max(s)
            e = pl.exp(pl.row_expand_sub(s, m))
            p = pl.row_expand_div(e, pl.row_sum(e))
            h = pl.cast(p, pl.FP16, "rint")
            return h

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[100, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16]) -> pl.Tensor[[100, 64], pl.FP16]:
            h = self.kernel(a, b)
            return h
    '''), inputs=lambda: {"a": uniform(76, (100, 64), -1, 1, F16), "b": uniform(77, (64, 64), -1, 1, F16)},
     reference=lambda a, b: {"ret0": softmax(matmul_ref(a, b)).astype(F16)})


# more held-out kernels: two-level attention, causal masks, views, orchestration loops ------------------------

case("flash_attention_two_level_loops_store_per_block", text=program('''
    @pl.program
    class FlashTwoLevel:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, q: pl.Tensor[[48, 64], pl.FP16], k: pl.Tensor[[64, 64], pl.FP16], v: pl.Tensor[[64, 64], pl.FP16],
                   out: pl.Out[pl.Tensor[[48, 64], pl.FP32]]) -> pl.Tensor[[48, 64], pl.FP32]:
            for qi in pl.range(3):
                qb = pl.slice(q, [16, 64], [qi * 16, 0])
                m0 = pl.full([16, 1], dtype=pl.FP32, value=-30000.0)
                l0 = pl.full([16, 1], dtype=pl.FP32, value=0.0)
                o0 = pl.full([16, 64], dtype=pl.FP32, value=0.0)
                for j, (m, l, o) in pl.range(2, init_values=(m0, l0, o0)):
                    kb = pl.slice(k, [32, 64], [j * 32, 0])
                    vb = pl.slice(v, [32, 64], [j * 32, 0])
                    s = pl.matmul(qb, kb, b_trans=True, out_dtype=pl.FP32)
                    m_new = pl.maximum(m, pl.row_max(s))
                    alpha = pl.exp(pl.sub(m, m_new))
                    p = pl.exp(pl.row_expand_sub(s, m_new))
                    l_new = pl.add(pl.mul(l, alpha), pl.row_sum(p))
                    pv = pl.matmul(pl.cast(p, pl.FP16, "rint"), vb, out_dtype=pl.FP32)
                    o_new = pl.add(pl.row_expand_mul(o, alpha), pv)
                    m_out, l_out, o_out = pl.yield_(m_new, l_new, o_new)
                r = pl.row_expand_div(o_out, l_out)
                out = pl.assemble(out, r, [qi * 16, 0])
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, q: pl.Tensor[[48, 64], pl.FP16], k: pl.Tensor[[64, 64], pl.FP16],
                 v: pl.Tensor[[64, 64], pl.FP16]) -> pl.Tensor[[48, 64], pl.FP32]:
            out = pl.create_tensor([48, 64], dtype=pl.FP32)
            out = self.kernel(q, k, v, out)
            return out
    '''), inputs=lambda: {"q": uniform(86, (48, 64), -1, 1, F16), "k": uniform(87, (64, 64), -1, 1, F16),
                          "v": uniform(88, (64, 64), -1, 1, F16)},
     reference=lambda q, k, v: {"ret0": np.concatenate([flash(q[16 * i:16 * i + 16], k, v, 32, lambda p: p.astype(F16),
                                                              lambda t: t) for i in range(3)])})

case("causal_online_softmax_if_in_loop", text=program('''
    @pl.program
    class Causal:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, s: pl.Tensor[[16, 128], pl.FP32], limit: pl.Scalar[pl.INDEX]) -> tuple[pl.Tensor[[16, 1], pl.FP32], pl.Tensor[[16, 1], pl.FP32]]:
            m0 = pl.full([16, 1], dtype=pl.FP32, value=-1e30)
            l0 = pl.full([16, 1], dtype=pl.FP32, value=0.0)
            for j, (m, l) in pl.range(4, init_values=(m0, l0)):
                if j < limit:
                    blk = pl.slice(s, [16, 32], [0, j * 32])
                    m_new = pl.maximum(m, pl.row_max(blk))
                    alpha = pl.exp(pl.sub(m, m_new))
                    p = pl.exp(pl.row_expand_sub(blk, m_new))
                    l_new = pl.add(pl.mul(l, alpha), pl.row_sum(p))
                    m_phi, l_phi = pl.yield_(m_new, l_new)
                else:
                    m_phi, l_phi = pl.yield_(m, l)
                m_out, l_out = pl.yield_(m_phi, l_phi)
            return m_out, l_out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, s: pl.Tensor[[16, 128], pl.FP32], limit: pl.Scalar[pl.INDEX]) -> tuple[pl.Tensor[[16, 1], pl.FP32], pl.Tensor[[16, 1], pl.FP32]]:
            m, l = self.kernel(s, limit)
            return m, l
    '''), inputs=lambda: {"s": uniform(89, (16, 128)), "limit": np.array(3, np.int64)},
     reference=lambda s, limit: dict(zip(("ret0", "ret1"), online_softmax_cols(s[:, :96], 3, 32))))

case("online_softmax_rows100_fp16_scores", text=program('''
    @pl.program
    class Rows100:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, x: pl.Tensor[[100, 96], pl.FP16]) -> tuple[pl.Tensor[[100, 1], pl.FP32], pl.Tensor[[100, 1], pl.FP32]]:
            m0 = pl.full([100, 1], dtype=pl.FP32, value=-1e30)
            l0 = pl.full([100, 1], dtype=pl.FP32, value=0.0)
            for i, (m, l) in pl.range(3, init_values=(m0, l0)):
                h = pl.slice(x, [100, 32], [0, i * 32])
                s = pl.cast(h, pl.FP32)
                m_new = pl.maximum(m, pl.row_max(s))
                alpha = pl.exp(pl.sub(m, m_new))
                p = pl.exp(pl.row_expand_sub(s, m_new))
                l_new = pl.add(pl.mul(l, alpha), pl.row_sum(p))
                m_out, l_out = pl.yield_(m_new, l_new)
            return m_out, l_out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[100, 96], pl.FP16]) -> tuple[pl.Tensor[[100, 1], pl.FP32], pl.Tensor[[100, 1], pl.FP32]]:
            m, l = self.kernel(x)
            return m, l
    '''), inputs=lambda: {"x": uniform(90, (100, 96), -4, 4, F16)},
     reference=lambda x: dict(zip(("ret0", "ret1"), online_softmax_cols(x.astype(F32), 3, 32))))

case("lse_second_output_uses_final_max", text=program('''
    @pl.program
    class Lse:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, q: pl.Tensor[[48, 96], pl.FP16], k: pl.Tensor[[96, 96], pl.FP16],
                   v: pl.Tensor[[96, 32], pl.FP16]) -> tuple[pl.Tensor[[48, 32], pl.FP32], pl.Tensor[[48, 1], pl.FP32]]:
            m0 = pl.full([48, 1], dtype=pl.FP32, value=-30000.0)
            l0 = pl.full([48, 1], dtype=pl.FP32, value=0.0)
            o0 = pl.full([48, 32], dtype=pl.FP32, value=0.0)
            for i, (m, l, o) in pl.range(3, init_values=(m0, l0, o0)):
                kb = pl.slice(k, [32, 96], [i * 32, 0])
                vb = pl.slice(v, [32, 32], [i * 32, 0])
                s = pl.matmul(q, kb, b_trans=True, out_dtype=pl.FP32)
                m_new = pl.maximum(m, pl.row_max(s))
                alpha = pl.exp(pl.sub(m, m_new))
                p = pl.exp(pl.row_expand_sub(s, m_new))
                l_new = pl.add(pl.mul(l, alpha), pl.row_sum(p))
                pv = pl.matmul(pl.cast(p, pl.FP16, "rint"), vb, out_dtype=pl.FP32)
                o_new = pl.add(pl.row_expand_mul(o, alpha), pv)
                m_out, l_out, o_out = pl.yield_(m_new, l_new, o_new)
            r = pl.row_expand_div(o_out, l_out)
            lse = pl.add(pl.log(l_out), m_out)
            return r, lse

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, q: pl.Tensor[[48, 96], pl.FP16], k: pl.Tensor[[96, 96], pl.FP16],
                 v: pl.Tensor[[96, 32], pl.FP16]) -> tuple[pl.Tensor[[48, 32], pl.FP32], pl.Tensor[[48, 1], pl.FP32]]:
            r, lse = self.kernel(q, k, v)
            return r, lse
    '''), inputs=lambda: {"q": uniform(91, (48, 96), -1, 1, F16), "k": uniform(92, (96, 96), -1, 1, F16),
                          "v": uniform(93, (96, 32), -1, 1, F16)},
     reference=lambda q, k, v: dict(zip(("ret0", "ret1"), _lse_flash(q, k, v))))


def _lse_flash(q: Array, k: Array, v: Array) -> tuple[Array, Array]:
    m, l, o = np.full((48, 1), -30000.0, F32), np.zeros((48, 1), F32), np.zeros((48, 32), F32)
    for i in range(3):
        s = matmul_ref(q, np.ascontiguousarray(k[32 * i:32 * i + 32].T))
        m_new = vmax(m, row_max(s))
        alpha = exp(f32(m - m_new))
        p = exp(f32(s - m_new))
        l = f32(f32(l * alpha) + row_sum(p))
        o = f32(f32(o * alpha) + matmul_ref(p.astype(F16), v[32 * i:32 * i + 32]))
        m = m_new
    return f32(o / l), f32(np.log(l.astype(F64)).astype(F32) + m)


case("set_validshape_on_plain_tile_then_reduce", text=program('''
    @pl.program
    class SvsPlain:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
            t = pl.tile.load(x, [0, 0], [16, 64])
            u = pl.tile.muls(t, 2.0)
            v = pl.tile.set_validshape(u, 16, 40)
            r = pl.tile.row_sum(v, pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec))
            out = pl.tile.store(r, [0, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 1], pl.FP32]:
            out = pl.create_tensor([16, 1], dtype=pl.FP32)
            out = self.kernel(x, out)
            return out
    '''), inputs=lambda: {"x": uniform(94, (16, 64))},
     reference=lambda x: {"ret0": row_sum(f32(x[:, :40] * F32(2.0)))})

case("set_validshape_on_reshape_view_rejected", text=program('''
    @pl.program
    class SvsReshape:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
            t = pl.tile.load(x, [0, 0], [16, 64])
            r = pl.tile.reshape(t, [32, 32])
            v = pl.tile.set_validshape(r, 20, 32)  # <- here
            out = pl.tile.store(pl.tile.exp(v), [0, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[32, 32], pl.FP32]:
            out = pl.create_tensor([32, 32], dtype=pl.FP32)
            out = self.kernel(x, out)
            return out
    '''), reject="it is a view")

case("tile_slice_of_slice_leaves_inner_view", text=program('''
    @pl.program
    class SliceOfSlice:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
            t = pl.tile.load(x, [0, 0], [64, 64])
            half = pl.tile.slice(t, [32, 64], [32, 0])
            acc = pl.tile.full([16, 64], dtype=pl.FP32, value=0.0)
            for i in pl.range(3):
                part = pl.tile.slice(half, [16, 64], [i * 16, 0])  # <- here
                acc = pl.tile.add(acc, part)
            out = pl.tile.store(acc, [0, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
            out = pl.create_tensor([16, 64], dtype=pl.FP32)
            out = self.kernel(x, out)
            return out
    '''), reject="i = 2")

case("row_stat_reshaped_for_scalar_ops_in_loop", text=program('''
    @pl.jit
    def rms_steps(x: pl.Tensor, y: pl.Out[pl.Tensor]) -> pl.Tensor:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0, 0], [32, 64])
            scratch = pl.create_tile([32, 64], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
            for i in pl.range(2):
                ss: pl.Tile[[32, 1], pl.FP32] = pl.row_sum(pl.mul(t, t), scratch)
                ms = pl.reshape(ss, [1, 32])
                ms = pl.add(pl.mul(ms, 0.015625), 1e-6)
                rms = pl.reshape(pl.sqrt(ms), [32, 1])
                t = pl.row_expand_div(t, rms)
            pl.store(t, [0, 0], y)
        return y
    '''), inputs=lambda: {"x": uniform(95, (32, 64)), "y": np.zeros((32, 64), F32)},
     reference=lambda x, y: {"y": _rms_steps(x)})


def _rms_steps(x: Array) -> Array:
    t = x
    for _ in range(2):
        ms = f32(f32(row_sum(f32(t * t)) * F32(0.015625)) + F32(1e-6))
        t = f32(t / np.sqrt(ms))
    return t


case("orchestration_row_block_views", text=program('''
    @pl.program
    class OrchLoop:
        @pl.function(type=pl.FunctionType.InCore)
        def block(self, x: pl.Tensor[[16, 64], pl.FP32], w: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
            m = pl.row_max(x)
            y = pl.mul(pl.exp(pl.row_expand_sub(x, m)), w)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[64, 64], pl.FP32], w: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
            out = pl.create_tensor([64, 64], dtype=pl.FP32)
            for i in pl.range(4):
                xb = pl.slice(x, [16, 64], [i * 16, 0])
                yb = self.block(xb, w)
                out = pl.assemble(out, yb, [i * 16, 0])
            return out
    '''), inputs=lambda: {"x": uniform(3, (64, 64)), "w": uniform(4, (16, 64))},
     # tests/regressions/orchestration_views_kernel_call.py (fixed by agent-r: the kernel reads and
     # writes the row blocks in place)
     reference=lambda x, w: {"ret0": np.concatenate([
         f32(exp(f32(x[i * 16:(i + 1) * 16] - row_max(x[i * 16:(i + 1) * 16]))) * w) for i in range(4)])})

case("matmul_m100_k320_n48_bias", text=program('''
    @pl.program
    class M100K320:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[100, 320], pl.FP16], b: pl.Tensor[[320, 48], pl.FP16],
                   bias: pl.Tensor[[1, 48], pl.FP32]) -> pl.Tensor[[100, 48], pl.FP32]:
            c = pl.matmul(a, b, out_dtype=pl.FP32)
            r = pl.relu(pl.col_expand_add(c, bias))
            return r

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[100, 320], pl.FP16], b: pl.Tensor[[320, 48], pl.FP16],
                 bias: pl.Tensor[[1, 48], pl.FP32]) -> pl.Tensor[[100, 48], pl.FP32]:
            r = self.kernel(a, b, bias)
            return r
    '''), inputs=lambda: {"a": uniform(98, (100, 320), -1, 1, F16), "b": uniform(99, (320, 48), -1, 1, F16),
                          "bias": uniform(100, (1, 48))},
     reference=lambda a, b, bias: {"ret0": np.maximum(f32(matmul_ref(a, b) + bias), F32(0))})

case("bf16_elementwise_recurrence_carried", text=program('''
    @pl.program
    class BF16Carry:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[32, 64], pl.BF16], b: pl.Tensor[[32, 64], pl.BF16]) -> pl.Tensor[[32, 64], pl.BF16]:
            h0 = pl.muls(a, 1.0)
            for i, (h,) in pl.range(3, init_values=(h0,)):
                h_new = pl.add(pl.mul(h, b), a)
                h_out = pl.yield_(h_new)
            r = pl.maximum(h_out, a)
            return r

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[32, 64], pl.BF16], b: pl.Tensor[[32, 64], pl.BF16]) -> pl.Tensor[[32, 64], pl.BF16]:
            r = self.kernel(a, b)
            return r
    '''), inputs=lambda: {"a": bf16(uniform(101, (32, 64), -2, 2)), "b": bf16(uniform(102, (32, 64), -1, 1))},
     reference=lambda a, b: {"ret0": _bf16_carry(a, b)})


def _bf16_carry(a: Array, b: Array) -> Array:
    af, bf = from_bf16(a), from_bf16(b)
    h = from_bf16(bf16(f32(af * F32(1.0))))
    for _ in range(3):
        h = from_bf16(bf16(f32(from_bf16(bf16(f32(h * bf))) + af)))
    return bf16(vmax(h, af))


case("infix_add_in_orchestration", text=program('''
    @pl.program
    class OrchInfix:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
            r = pl.exp(a)
            return r

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
            e = self.kernel(a)
            c = e + b  # <- here
            return c
    '''), reject="pl.add(e, b)")

case("infix_in_jit_orchestration_outside_scope", text=program('''
    @pl.jit
    def outside(x: pl.Tensor, y: pl.Out[pl.Tensor]) -> pl.Tensor:
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.exp(pl.load(x, [0, 0], [16, 64])), [0, 0], y)
        z = y * 2.0  # <- here
        return z
    '''), inputs=lambda: {"x": uniform(103, (16, 64)), "y": np.zeros((16, 64), F32)}, reject="pl.mul(y, 2.0)")

case("fp16_row_stat_reshaped_row_major", text=program('''
    @pl.jit
    def norm16(x: pl.Tensor, y: pl.Out[pl.Tensor]) -> pl.Tensor:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0, 0], [32, 64])
            scratch = pl.create_tile([32, 64], dtype=pl.FP16, target_memory=pl.MemorySpace.Vec)
            mx: pl.Tile[[32, 1], pl.FP16] = pl.row_max(t, scratch)
            row = pl.reshape(mx, [1, 32])
            row = pl.add(row, 1.0)
            col = pl.reshape(row, [32, 1])
            pl.store(pl.row_expand_sub(t, col), [0, 0], y)
        return y
    '''), inputs=lambda: {"x": uniform(104, (32, 64), -8, 8, F16), "y": np.zeros((32, 64), F16)},
     reference=lambda x, y: {"y": (x - (row_max(x) + F16(1.0)).astype(F16)).astype(F16)})

case("dynamic_trip_nested_loops_carry_reductions", text=program('''
    @pl.program
    class DynNested:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, x: pl.Tensor[[32, 256], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[32, 1], pl.FP32]:
            tot0 = pl.full([32, 1], dtype=pl.FP32, value=0.0)
            for i, (tot,) in pl.range(n, init_values=(tot0,)):
                mx0 = pl.full([32, 1], dtype=pl.FP32, value=-1e30)
                for j, (mx,) in pl.range(2, init_values=(mx0,)):
                    blk = pl.slice(x, [32, 32], [0, i * 64 + j * 32])
                    mx_new = pl.maximum(mx, pl.row_max(blk))
                    mx_out = pl.yield_(mx_new)
                tot_new = pl.add(tot, mx_out)
                tot_out = pl.yield_(tot_new)
            return tot_out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[32, 256], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[32, 1], pl.FP32]:
            r = self.kernel(x, n)
            return r
    '''), inputs=lambda: {"x": uniform(105, (32, 256)), "n": np.array(3, np.int64)},
     reference=lambda x, n: {"ret0": _dyn_nested(x, int(n))})


def _dyn_nested(x: Array, n: int) -> Array:
    tot = np.zeros((32, 1), F32)
    for i in range(n):
        tot = f32(tot + vmax(row_max(x[:, i * 64:i * 64 + 32]), row_max(x[:, i * 64 + 32:i * 64 + 64])))
    return tot


case("orchestration_loop_inout_accumulate", text=program('''
    @pl.program
    class OrchInOut:
        @pl.function(type=pl.FunctionType.InCore)
        def step(self, x: pl.Tensor[[16, 64], pl.FP32], acc: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
            t = pl.tile.load(acc, [0, 0], [16, 64])
            u = pl.tile.load(x, [0, 0], [16, 64])
            acc = pl.tile.store(pl.tile.add(pl.tile.mul(t, u), u), [0, 0], acc)
            return acc

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[16, 64], pl.FP32], acc: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
            for i in pl.range(3):
                acc = self.step(x, acc)
            return acc
    '''), inputs=lambda: {"x": uniform(106, (16, 64), -1, 1), "acc": uniform(107, (16, 64))},
     reference=lambda x, acc: {"acc": _orch_inout(x, acc)})


def _orch_inout(x: Array, acc: Array) -> Array:
    for _ in range(3):
        acc = f32(f32(acc * x) + x)
    return acc


case("two_loop_vars_stepped_offsets_in_bounds", text=program('''
    @pl.program
    class TwoVars:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, x: pl.Tensor[[64, 160], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
            acc = pl.full([16, 32], dtype=pl.FP32, value=0.0)
            for i in pl.range(0, 48, 16):
                for j in pl.range(1, 5, 2):
                    blk = pl.slice(x, [16, 32], [i + 16, j * 32 + 32])
                    acc = pl.add(acc, blk)
            return acc

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[64, 160], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
            r = self.kernel(x)
            return r
    '''), inputs=lambda: {"x": uniform(108, (64, 160))},
     reference=lambda x: {"ret0": _two_vars(x)})


def _two_vars(x: Array) -> Array:
    acc = np.zeros((16, 32), F32)
    for i in range(0, 48, 16):
        for j in range(1, 5, 2):
            acc = f32(acc + x[i + 16:i + 32, j * 32 + 32:j * 32 + 64])
    return acc


case("two_loop_vars_stepped_offsets_leave", text=program('''
    @pl.program
    class TwoVarsOut:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, x: pl.Tensor[[64, 160], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
            acc = pl.full([16, 32], dtype=pl.FP32, value=0.0)
            for i in pl.range(0, 64, 16):
                for j in pl.range(1, 5, 2):
                    blk = pl.slice(x, [16, 32], [i + 16, j * 32 + 32])  # <- here
                    acc = pl.add(acc, blk)
            return acc

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[64, 160], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
            r = self.kernel(x)
            return r
    '''), reject="i = 48")


case("same_value_yielded_into_two_carries", text=program('''
    @pl.program
    class YieldTwice:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
            inv = pl.muls(b, 0.5)
            p0 = pl.adds(a, 0.0)
            q0 = pl.adds(a, 1.0)
            for i, (p, q, r) in pl.range(4, init_values=(p0, q0, inv)):
                n = pl.add(pl.mul(p, inv), q)
                p_out, q_out, r_out = pl.yield_(n, n, p)
            y = pl.add(pl.sub(p_out, r_out), pl.mul(q_out, inv))
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
            y = self.kernel(a, b)
            return y
    '''), inputs=lambda: {"a": uniform(109, (16, 64), -1, 1), "b": uniform(110, (16, 64), -1, 1)},
     reference=lambda a, b: {"ret0": _yield_twice(a, b)})


def _yield_twice(a: Array, b: Array) -> Array:
    inv = f32(b * F32(0.5))
    p, q, r = f32(a + F32(0.0)), f32(a + F32(1.0)), inv
    for _ in range(4):
        n = f32(f32(p * inv) + q)
        p, q, r = n, n, p
    return f32(f32(p - r) + f32(q * inv))


case("loop_invariant_yielded_and_old_max_after_loop", text=program('''
    @pl.program
    class InvariantYield:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, s: pl.Tensor[[32, 128], pl.FP32]) -> tuple[pl.Tensor[[32, 1], pl.FP32], pl.Tensor[[32, 1], pl.FP32]]:
            base = pl.row_sum(pl.slice(s, [32, 32], [0, 0]))
            m0 = pl.full([32, 1], dtype=pl.FP32, value=-1e30)
            for i, (m, prev) in pl.range(4, init_values=(m0, base)):
                blk = pl.slice(s, [32, 32], [0, i * 32])
                m_new = pl.maximum(m, pl.row_max(blk))
                m_out, prev_out = pl.yield_(m_new, m)
            d = pl.sub(m_out, prev_out)
            e = pl.add(d, base)
            return d, e

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, s: pl.Tensor[[32, 128], pl.FP32]) -> tuple[pl.Tensor[[32, 1], pl.FP32], pl.Tensor[[32, 1], pl.FP32]]:
            d, e = self.kernel(s)
            return d, e
    '''), inputs=lambda: {"s": uniform(111, (32, 128), -10, 10)},
     reference=lambda s: dict(zip(("ret0", "ret1"), _invariant_yield(s))))


def _invariant_yield(s: Array) -> tuple[Array, Array]:
    base = row_sum(s[:, :32])
    m, prev = np.full((32, 1), -1e30, F32), base
    for i in range(4):
        m, prev = vmax(m, row_max(s[:, 32 * i:32 * i + 32])), m
    d = f32(m - prev)
    return d, f32(d + base)


case("reshape_of_matmul_result_then_vector", text=program('''
    @pl.program
    class ReshapeAcc:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16]) -> pl.Tensor[[64, 32], pl.FP32]:
            c = pl.matmul(a, b, out_dtype=pl.FP32)
            r = pl.reshape(c, [64, 32])
            y = pl.exp(pl.row_expand_sub(r, pl.row_max(r)))
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16]) -> pl.Tensor[[64, 32], pl.FP32]:
            y = self.kernel(a, b)
            return y
    '''), inputs=lambda: {"a": uniform(112, (32, 64), -1, 1, F16), "b": uniform(113, (64, 64), -1, 1, F16)},
     reference=lambda a, b: {"ret0": _reshape_acc(a, b)})


def _reshape_acc(a: Array, b: Array) -> Array:
    r = matmul_ref(a, b).reshape(64, 32)
    return exp(f32(r - row_max(r)))


case("reshape_right_operand_b_trans", text=program('''
    @pl.program
    class ReshapeBT:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[16, 96], pl.FP16], b: pl.Tensor[[24, 128], pl.FP16]) -> pl.Tensor[[16, 32], pl.FP32]:
            c = pl.matmul(a, pl.reshape(b, [32, 96]), b_trans=True, out_dtype=pl.FP32)
            return c

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[16, 96], pl.FP16], b: pl.Tensor[[24, 128], pl.FP16]) -> pl.Tensor[[16, 32], pl.FP32]:
            c = self.kernel(a, b)
            return c
    '''), inputs=lambda: {"a": uniform(114, (16, 96), -1, 1, F16), "b": uniform(115, (24, 128), -1, 1, F16)},
     reference=lambda a, b: {"ret0": matmul_ref(a, np.ascontiguousarray(b.reshape(32, 96).T))})

case("transpose_square_tile_source_dies", text=program('''
    @pl.jit
    def tr(x: pl.Tensor, y: pl.Out[pl.Tensor]) -> pl.Tensor:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0, 0], [32, 32])
            u = pl.tile.muls(t, 2.0)
            v = pl.tile.transpose(u, axis1=0, axis2=1)
            pl.store(pl.tile.adds(v, 1.0), [0, 0], y)
        return y
    '''), inputs=lambda: {"x": uniform(116, (32, 32)), "y": np.zeros((32, 32), F32)},
     reference=lambda x, y: {"y": f32(np.ascontiguousarray(f32(x * F32(2.0)).T) + F32(1.0))})

case("cast_int32_to_fp16_narrowing_dies", text=program('''
    @pl.program
    class CastI32F16:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[16, 64], pl.INT32]) -> pl.Tensor[[16, 64], pl.FP16]:
            t = pl.muls(a, 3)
            h = pl.cast(t, pl.FP16, "rint")
            r = pl.adds(h, 0.5)
            return r

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[16, 64], pl.INT32]) -> pl.Tensor[[16, 64], pl.FP16]:
            r = self.kernel(a)
            return r
    '''), inputs=lambda: {"a": np.random.default_rng(117).integers(-500, 500, (16, 64)).astype(np.int32)},
     reference=lambda a: {"ret0": ((a * 3).astype(np.float64).astype(F16) + F16(0.5)).astype(F16)})


GUARDED = '''
    @pl.program
    class Guarded:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[64, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
            z = pl.full([16, 32], dtype=pl.FP32, value=0.0)
            for i, (acc,) in pl.range(5, init_values=(z,)):
                if {cond}:
                    {then}
                else:
                    {other}
                acc_out = pl.yield_(phi)
            return acc_out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[64, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
            r = self.kernel(a)
            return r
    '''
_SLICE_ADD = "s = pl.slice(a, [16, 32], [i * 16, 0]){mark}\n                    n = pl.add(acc, s)\n                    phi = pl.yield_(n)"
_KEEP = "phi = pl.yield_(acc)"


def _guarded(cond: str, then: str, other: str) -> str:
    return program(GUARDED.replace("{cond}", cond).replace("{then}", then).replace("{other}", other))


case("slice_guarded_by_if_in_bounds", text=_guarded("i < 4", _SLICE_ADD.replace("{mark}", ""), _KEEP),
     inputs=lambda: {"a": uniform(118, (64, 32))}, reference=lambda a: {"ret0": _blocks_sum(a, 16, 4)})
case("slice_in_else_branch_in_bounds", text=_guarded("i >= 4", _KEEP, _SLICE_ADD.replace("{mark}", "")),
     inputs=lambda: {"a": uniform(119, (64, 32))}, reference=lambda a: {"ret0": _blocks_sum(a, 16, 4)})
case("slice_guard_too_weak_rejected", text=_guarded("i % 2 == 0", _SLICE_ADD.replace("{mark}", "  # <- here"), _KEEP),
     reject="i = 4")


case("carry_seeded_by_a_view_of_a_live_tile", text=program('''
    @pl.program
    class ViewSeed:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[32, 64], pl.FP32]) -> tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[32, 64], pl.FP32]]:
            x = pl.muls(a, 1.5)
            top = pl.slice(x, [16, 64], [0, 0])
            for i, (c,) in pl.range(3, init_values=(top,)):
                bottom = pl.slice(x, [16, 64], [16, 0])
                n = pl.add(pl.mul(c, bottom), top)
                c_out = pl.yield_(n)
            y = pl.adds(x, 1.0)
            return c_out, y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[32, 64], pl.FP32]) -> tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[32, 64], pl.FP32]]:
            c, y = self.kernel(a)
            return c, y
    '''), inputs=lambda: {"a": uniform(120, (32, 64), -1, 1)},
     reference=lambda a: dict(zip(("ret0", "ret1"), _view_seed(a))))


def _view_seed(a: Array) -> tuple[Array, Array]:
    x = f32(a * F32(1.5))
    c = x[:16]
    for _ in range(3):
        c = f32(f32(c * x[16:]) + x[:16])
    return c, f32(x + F32(1.0))


case("tile_level_carry_of_a_slice_written_in_place", text=program('''
    @pl.jit
    def viewcarry(x: pl.Tensor, y: pl.Out[pl.Tensor], z: pl.Out[pl.Tensor]) -> pl.Tensor:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0, 0], [32, 64])
            c = pl.tile.slice(t, [16, 64], [16, 0])
            for i in pl.range(3):
                c = pl.tile.add(pl.tile.muls(c, 0.5), t[0:16, 0:64])
            pl.store(c, [0, 0], y)
            pl.store(t, [0, 0], z)
        return y
    '''), inputs=lambda: {"x": uniform(121, (32, 64)), "y": np.zeros((16, 64), F32), "z": np.zeros((32, 64), F32)},
     reference=lambda x, y, z: {"y": _slice_carry(x), "z": x})


def _slice_carry(x: Array) -> Array:
    c = x[16:]
    for _ in range(3):
        c = f32(f32(c * F32(0.5)) + x[:16])
    return c


case("carried_col_sum_feeds_a_matmul", text=program('''
    @pl.program
    class ColSumMatmul:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, x: pl.Tensor[[64, 64], pl.FP16], w: pl.Tensor[[64, 32], pl.FP16]) -> pl.Tensor[[16, 32], pl.FP32]:
            c0 = pl.full([16, 64], dtype=pl.FP16, value=0.0)
            for i, (c,) in pl.range(4, init_values=(c0,)):
                blk = pl.slice(x, [16, 64], [i * 16, 0])
                c_new = pl.add(c, blk)
                c_out = pl.yield_(c_new)
            r = pl.matmul(c_out, w, out_dtype=pl.FP32)
            m = pl.row_max(r)
            y = pl.row_expand_sub(r, m)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[64, 64], pl.FP16], w: pl.Tensor[[64, 32], pl.FP16]) -> pl.Tensor[[16, 32], pl.FP32]:
            y = self.kernel(x, w)
            return y
    '''), inputs=lambda: {"x": uniform(122, (64, 64), -1, 1, F16), "w": uniform(123, (64, 32), -1, 1, F16)},
     reference=lambda x, w: {"ret0": _colsum_matmul(x, w)})


def _colsum_matmul(x: Array, w: Array) -> Array:
    c = np.zeros((16, 64), F16)
    for i in range(4):
        c = (c + x[16 * i:16 * i + 16]).astype(F16)
    r = matmul_ref(c, w)
    return f32(r - row_max(r))


case("matmul_carried_through_if_consumed_by_row_reduction", text=program('''
    @pl.program
    class IfMatmulReduce:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
                   flag: pl.Scalar[pl.INDEX]) -> pl.Tensor[[32, 1], pl.FP32]:
            s0 = pl.full([32, 1], dtype=pl.FP32, value=0.0)
            for i, (s,) in pl.range(2, init_values=(s0,)):
                if flag > i:
                    c = pl.matmul(a, b, out_dtype=pl.FP32)
                    c_phi = pl.yield_(c)
                else:
                    d = pl.matmul(a, b, out_dtype=pl.FP32)
                    e = pl.muls(d, -1.0)
                    c_phi = pl.yield_(e)
                s_new = pl.add(s, pl.row_sum(c_phi))
                s_out = pl.yield_(s_new)
            return s_out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
                 flag: pl.Scalar[pl.INDEX]) -> pl.Tensor[[32, 1], pl.FP32]:
            r = self.kernel(a, b, flag)
            return r
    '''), inputs=lambda: {"a": uniform(124, (32, 64), -1, 1, F16), "b": uniform(125, (64, 64), -1, 1, F16),
                          "flag": np.array(1, np.int64)},
     reference=lambda a, b, flag: {"ret0": _if_matmul_reduce(a, b, int(flag))})


def _if_matmul_reduce(a: Array, b: Array, flag: int) -> Array:
    s = np.zeros((32, 1), F32)
    c = matmul_ref(a, b)
    for i in range(2):
        s = f32(s + row_sum(c if flag > i else f32(c * F32(-1.0))))
    return s


case("reshape_to_unaligned_rows_feeds_the_cube", text=program('''
    @pl.program
    class ReshapeRows100:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[50, 64], pl.FP16], b: pl.Tensor[[32, 48], pl.FP16]) -> pl.Tensor[[100, 48], pl.FP32]:
            c = pl.matmul(pl.reshape(a, [100, 32]), b, out_dtype=pl.FP32)
            return c

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[50, 64], pl.FP16], b: pl.Tensor[[32, 48], pl.FP16]) -> pl.Tensor[[100, 48], pl.FP32]:
            c = self.kernel(a, b)
            return c
    '''), inputs=lambda: {"a": uniform(130, (50, 64), -1, 1, F16), "b": uniform(131, (32, 48), -1, 1, F16)},
     reference=lambda a, b: {"ret0": matmul_ref(a.reshape(100, 32), b)})  # the reshaped rows are boxed on chip

case("jit_tensor_level_reshape_feeds_matmul", text=program('''
    @pl.jit
    def rm(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]) -> pl.Tensor:
        with pl.at(level=pl.Level.CORE_GROUP):
            r = pl.reshape(a, [32, 192])
            c = pl.assemble(c, pl.matmul(r, b, out_dtype=pl.FP32), [0, 0])
        return c
    '''), inputs=lambda: {"a": uniform(128, (64, 96), -1, 1, F16), "b": uniform(129, (192, 64), -1, 1, F16),
                          "c": np.zeros((32, 64), F32)},
     reference=lambda a, b, c: {"c": matmul_ref(a.reshape(32, 192), b)})

case("decode_attention_eight_query_rows", text=program('''
    @pl.program
    class Decode8:
        @pl.function(type=pl.FunctionType.InCore)
        def attn(self, q: pl.Tensor[[8, 128], pl.FP16], k: pl.Tensor[[1152, 128], pl.FP16]) -> pl.Tensor[[8, 1152], pl.FP32]:
            s = pl.matmul(q, k, b_trans=True, out_dtype=pl.FP32)
            m = pl.row_max(s)
            e = pl.exp(pl.row_expand_sub(s, m))
            p = pl.row_expand_div(e, pl.row_sum(e))
            return p

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, q: pl.Tensor[[8, 128], pl.FP16], k: pl.Tensor[[1152, 128], pl.FP16]) -> pl.Tensor[[8, 1152], pl.FP32]:
            p = self.attn(q, k)
            return p
    '''), inputs=lambda: {"q": uniform(130, (8, 128), -1, 1, F16), "k": uniform(131, (1152, 128), -1, 1, F16)},
     reference=lambda q, k: {"ret0": softmax(matmul_ref(q, np.ascontiguousarray(k.T)))})

case("gemv_one_row_times_matrix", text=program('''
    @pl.program
    class Gemv1:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, x: pl.Tensor[[1, 192], pl.FP16], w: pl.Tensor[[192, 64], pl.FP16]) -> pl.Tensor[[1, 64], pl.FP32]:
            y = pl.matmul(x, w, out_dtype=pl.FP32)
            r = pl.relu(y)
            return r

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[1, 192], pl.FP16], w: pl.Tensor[[192, 64], pl.FP16]) -> pl.Tensor[[1, 64], pl.FP32]:
            r = self.kernel(x, w)
            return r
    '''), inputs=lambda: {"x": uniform(132, (1, 192), -1, 1, F16), "w": uniform(133, (192, 64), -1, 1, F16)},
     reference=lambda x, w: {"ret0": np.maximum(matmul_ref(x, w), F32(0))})

case("a_trans_matmul_k96_then_softmax", text=program('''
    @pl.program
    class ATrans:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[96, 32], pl.FP16], b: pl.Tensor[[96, 64], pl.FP16]) -> pl.Tensor[[32, 64], pl.FP32]:
            s = pl.matmul(a, b, a_trans=True, out_dtype=pl.FP32)
            m = pl.row_max(s)
            e = pl.exp(pl.row_expand_sub(s, m))
            p = pl.row_expand_div(e, pl.row_sum(e))
            return p

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[96, 32], pl.FP16], b: pl.Tensor[[96, 64], pl.FP16]) -> pl.Tensor[[32, 64], pl.FP32]:
            p = self.kernel(a, b)
            return p
    '''), inputs=lambda: {"a": uniform(134, (96, 32), -1, 1, F16), "b": uniform(135, (96, 64), -1, 1, F16)},
     reference=lambda a, b: {"ret0": softmax(matmul_ref(np.ascontiguousarray(a.T), b))})


case("nested_loops_under_vec_pressure", text=program('''
    @pl.program
    class Pressure:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[64, 160], pl.FP32], b: pl.Tensor[[64, 160], pl.FP32]) -> pl.Tensor[[64, 160], pl.FP32]:
            x = pl.muls(a, 0.5)
            acc = pl.adds(b, 0.0)
            for i in pl.range(2):
                y = pl.exp(pl.muls(acc, 0.125))
                for j in pl.range(2):
                    t = pl.mul(y, x)
                    acc = pl.add(acc, t)
                z = pl.sub(acc, y)
                acc = pl.muls(z, 0.5)
            r = pl.add(acc, x)
            return r

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[64, 160], pl.FP32], b: pl.Tensor[[64, 160], pl.FP32]) -> pl.Tensor[[64, 160], pl.FP32]:
            r = self.kernel(a, b)
            return r
    '''), inputs=lambda: {"a": uniform(136, (64, 160), -1, 1), "b": uniform(137, (64, 160), -1, 1)},
     reference=lambda a, b: {"ret0": _pressure(a, b)})


def _pressure(a: Array, b: Array) -> Array:
    x, acc = f32(a * F32(0.5)), f32(b + F32(0.0))
    for _ in range(2):
        y = exp(f32(acc * F32(0.125)))
        for _ in range(2):
            acc = f32(acc + f32(y * x))
        acc = f32(f32(acc - y) * F32(0.5))
    return f32(acc + x)


case("online_softmax_under_vec_pressure", text=program('''
    @pl.program
    class SoftmaxPressure:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, s: pl.Tensor[[64, 512], pl.FP32]) -> tuple[pl.Tensor[[64, 128], pl.FP32], pl.Tensor[[64, 1], pl.FP32]]:
            m0 = pl.full([64, 1], dtype=pl.FP32, value=-1e30)
            l0 = pl.full([64, 1], dtype=pl.FP32, value=0.0)
            o0 = pl.full([64, 128], dtype=pl.FP32, value=0.0)
            for i, (m, l, o) in pl.range(4, init_values=(m0, l0, o0)):
                blk = pl.slice(s, [64, 128], [0, i * 128])
                m_new = pl.maximum(m, pl.row_max(blk))
                alpha = pl.exp(pl.sub(m, m_new))
                p = pl.exp(pl.row_expand_sub(blk, m_new))
                l_new = pl.add(pl.mul(l, alpha), pl.row_sum(p))
                o_new = pl.add(pl.row_expand_mul(o, alpha), p)
                m_out, l_out, o_out = pl.yield_(m_new, l_new, o_new)
            r = pl.row_expand_div(o_out, l_out)
            return r, m_out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, s: pl.Tensor[[64, 512], pl.FP32]) -> tuple[pl.Tensor[[64, 128], pl.FP32], pl.Tensor[[64, 1], pl.FP32]]:
            r, m = self.kernel(s)
            return r, m
    '''), inputs=lambda: {"s": uniform(138, (64, 512), -6, 6)},
     reference=lambda s: dict(zip(("ret0", "ret1"), _softmax_pressure(s))))


def _softmax_pressure(s: Array) -> tuple[Array, Array]:
    m, l, o = np.full((64, 1), -1e30, F32), np.zeros((64, 1), F32), np.zeros((64, 128), F32)
    for i in range(4):
        blk = s[:, 128 * i:128 * i + 128]
        m_new = vmax(m, row_max(blk))
        alpha = exp(f32(m - m_new))
        p = exp(f32(blk - m_new))
        l = f32(f32(l * alpha) + row_sum(p))
        o = f32(f32(o * alpha) + p)
        m = m_new
    return f32(o / l), m


case("fp16_reductions_and_rounding_casts", text=program('''
    @pl.program
    class F16Reduce:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, x: pl.Tensor[[32, 96], pl.FP16]) -> tuple[pl.Tensor[[32, 1], pl.FP16], pl.Tensor[[1, 96], pl.FP16], pl.Tensor[[32, 96], pl.INT32]]:
            rs = pl.row_sum(x)
            cs = pl.col_sum(x)
            cm = pl.col_max(x)
            d = pl.col_expand_sub(x, cm)
            w = pl.cast(pl.muls(pl.cast(d, pl.FP32), 3.3), pl.INT32, "floor")
            return rs, pl.add(cs, cm), w

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[32, 96], pl.FP16]) -> tuple[pl.Tensor[[32, 1], pl.FP16], pl.Tensor[[1, 96], pl.FP16], pl.Tensor[[32, 96], pl.INT32]]:
            rs, cs, w = self.kernel(x)
            return rs, cs, w
    '''), inputs=lambda: {"x": uniform(139, (32, 96), -4, 4, F16)},
     reference=lambda x: dict(zip(("ret0", "ret1", "ret2"), _f16_reduce(x))))


def _col_max(x: Array) -> Array:
    acc = x[0].copy()
    for r in range(1, x.shape[0]):
        acc = np.where(x[r] > acc, x[r], acc)
    out: Array = acc[None, :]
    return out


def _f16_reduce(x: Array) -> tuple[Array, Array, Array]:
    rs = row_sum(x).astype(F16)
    cs, cm = col_sum(x), _col_max(x)
    d = (x - cm).astype(F16)
    w = np.floor(f32(d.astype(F32) * F32(3.3))).astype(np.int32)
    return rs, (cs + cm).astype(F16), w


case("cast_rounding_modes_in_loop", text=program('''
    @pl.program
    class CastModes:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, x: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.INT32]:
            acc = pl.full([16, 64], dtype=pl.INT32, value=0)
            for i in pl.range(3):
                t = pl.muls(x, 1.7)
                if i == 0:
                    c = pl.cast(t, pl.INT32, "ceil")
                elif i == 1:
                    c = pl.cast(t, pl.INT32, "trunc")
                else:
                    c = pl.cast(t, pl.INT32, "round")
                acc = pl.add(acc, c)
            return acc

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.INT32]:
            r = self.kernel(x)
            return r
    '''), inputs=lambda: {"x": uniform(140, (16, 64), -50, 50)},
     reference=lambda x: {"ret0": _cast_modes(x)})


def _cast_modes(x: Array) -> Array:
    t = f32(x * F32(1.7)).astype(F64)
    away = np.where(t >= 0, np.floor(t + 0.5), np.ceil(t - 0.5))  # "round": ties away from zero
    return (np.ceil(t).astype(np.int64) + np.trunc(t).astype(np.int64) + away.astype(np.int64)).astype(np.int32)


LOOP_KERNEL = '''
    @pl.program
    class Loop:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[64, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
            z = pl.full([16, 32], dtype=pl.FP32, value=0.0)
            {loop}
            return acc_out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[64, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
            r = self.kernel(a)
            return r
    '''


def _loop(loop: str) -> str:
    return program(LOOP_KERNEL.replace("{loop}", textwrap.indent(textwrap.dedent(loop), " " * 12).lstrip()))


case("yield_of_another_shape_than_the_carry", text=_loop('''
    for i, (acc,) in pl.range(3, init_values=(z,)):
        n = pl.row_sum(acc)
        acc_out = pl.yield_(n)  # <- here
    '''), reject="the loop carries `acc` as")
case("yield_of_more_values_than_carries", text=_loop('''
    for i, (acc,) in pl.range(3, init_values=(z,)):
        n = pl.adds(acc, 1.0)
        acc_out, other = pl.yield_(n, n)  # <- here
    '''), reject="but the loop carries 1")
case("loop_index_named_like_a_carry", text=_loop('''
    for i, (i,) in pl.range(3, init_values=(z,)):  # <- here
        acc_out = pl.yield_(i)
    '''), reject="names two of the loop's variables")
case("yield_of_another_dtype_than_the_carry", text=_loop('''
    for i, (acc,) in pl.range(3, init_values=(z,)):
        h = pl.cast(acc, pl.FP16, "rint")
        acc_out = pl.yield_(h)  # <- here
    '''), reject="FP16")


case("negative_step_range_not_supported_yet", text=_loop('''
    for i, (acc,) in pl.range(3, -1, -1, init_values=(z,)):  # <- here
        s = pl.slice(a, [16, 32], [i * 16, 0])
        n = pl.sub(s, acc)
        acc_out = pl.yield_(n)
    '''), reject="i = 3 - k")
case("zero_step_range_rejected", text=_loop('''
    for i, (acc,) in pl.range(0, 4, 0, init_values=(z,)):  # <- here
        acc_out = pl.yield_(acc)
    '''), reject="must not be zero")
case("counting_down_by_a_derived_index", text=_loop('''
    for k, (acc,) in pl.range(0, 4, 1, init_values=(z,)):
        i = 3 - k
        s = pl.slice(a, [16, 32], [i * 16, 0])
        n = pl.sub(s, acc)
        acc_out = pl.yield_(n)
    '''), inputs=lambda: {"a": uniform(141, (64, 32))}, reference=lambda a: {"ret0": _count_down(a)})


def _count_down(a: Array) -> Array:
    acc = np.zeros((16, 32), F32)
    for i in (3, 2, 1, 0):
        acc = f32(a[16 * i:16 * i + 16] - acc)
    return acc


case("if_branches_yield_different_shapes", text=_loop('''
    for i, (acc,) in pl.range(2, init_values=(z,)):
        if i == 0:
            x = pl.row_sum(acc)
            phi = pl.yield_(x)
        else:
            phi = pl.yield_(acc)  # <- here
        acc_out = pl.yield_(phi)
    '''), reject="the branches of the if yield `phi`")


case("same_width_cast_of_a_window_of_a_dying_tile", text=program('''
    @pl.jit
    def castwin(x: pl.Tensor, y: pl.Out[pl.Tensor]) -> pl.Tensor:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.tile.muls(pl.load(x, [0, 0], [16, 64]), 10.0)
            s = pl.tile.slice(t, [16, 32], [0, 32])
            n = pl.tile.cast(s, target_type=pl.INT32, mode="rint")
            pl.store(pl.tile.adds(n, 1), [0, 0], y)
        return y
    '''), inputs=lambda: {"x": uniform(142, (16, 64), -100, 100), "y": np.zeros((16, 32), np.int32)},
     reference=lambda x, y: {"y": (np.rint(f32(x * F32(10.0))[:, 32:]).astype(np.int32) + 1).astype(np.int32)})

case("same_width_cast_of_a_column_vector", text=program('''
    @pl.program
    class CastColumnI32:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[32, 64], pl.FP32]) -> pl.Tensor[[32, 64], pl.INT32]:
            m = pl.muls(pl.row_sum(a), 4.0)
            n = pl.cast(m, pl.INT32, "floor")
            x = pl.cast(pl.muls(a, 8.0), pl.INT32, "floor")
            r = pl.row_expand_sub(x, n)
            return r

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[32, 64], pl.FP32]) -> pl.Tensor[[32, 64], pl.INT32]:
            r = self.kernel(a)
            return r
    '''), inputs=lambda: {"a": uniform(143, (32, 64), -10, 10)},
     reference=lambda a: {"ret0": (np.floor(f32(a * F32(8.0))).astype(np.int32)
                                   - np.floor(f32(row_sum(a) * F32(4.0))).astype(np.int32)).astype(np.int32)})


# -- the run ----------------------------------------------------------------------------------------------


def _bits(array: Array) -> Array:
    a = np.ascontiguousarray(array)
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def run_case(name: str, backend: str, tmp_path: Path) -> tuple[int, str]:
    """Compile (and simulate) case `name` as the CLI does; the exit code and the whole log."""
    import contextlib
    import io

    c = CASES[name]
    path = tmp_path / f"{name}.py"
    path.write_text(c.text)
    args = [str(path), "--verify-all", "--backend", backend, "-o", str(tmp_path / "k.pto"), *c.extra]
    inputs = c.inputs()
    if inputs:
        np.savez(tmp_path / "in.npz", **inputs)  # type: ignore[arg-type]
        args += ["--inputs", str(tmp_path / "in.npz")]
    if not c.reject:
        args += ["--simulate", "--save-outputs", str(tmp_path / "out.npz")]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(args)
    return rc, out.getvalue() + err.getvalue()


def check_case(name: str, backend: str, tmp_path: Path) -> None:
    c = CASES[name]
    rc, log = run_case(name, backend, tmp_path)
    assert "Traceback" not in log and "internal compiler error" not in log and "fix the pass" not in log, log
    if c.reject:
        line = next(n for n, text in enumerate(c.text.splitlines(), 1) if HERE in text)
        assert rc == 1, log
        assert f"{name}.py:{line}:" in log, f"expected a diagnostic at line {line}:\n{log}"
        assert c.reject in log, log
        return
    assert rc == 0 and "bit-exact" in log, log
    assert c.reference is not None
    got = np.load(tmp_path / "out.npz")
    expected = c.reference(**c.inputs())
    for key, want in expected.items():
        base, _, cols = key.partition("[")
        have = got[base]
        if cols:
            have = have[:, :int(cols.split(":")[2].rstrip("]"))]
        assert have.shape == want.shape, (key, have.shape, want.shape)
        differ = np.argwhere(_bits(have.astype(want.dtype)) != _bits(want))
        assert len(differ) == 0, f"{key}: {len(differ)} of {want.size} elements differ from NumPy, first at " \
                                 f"{tuple(differ[0])}: {have[tuple(differ[0])]} vs {want[tuple(differ[0])]}"


PARAMS = [pytest.param(name, backend, id=f"{name}-{backend}") for name in CASES for backend in CASES[name].backends]


def test_there_are_forty_held_out_kernels() -> None:
    assert len(CASES) >= 40


@pytest.mark.parametrize(("name", "backend"), PARAMS)
def test_held_out_kernel(name: str, backend: str, tmp_path: Path) -> None:
    check_case(name, backend, tmp_path)


# -- operators with no scalar form, and operand errors located at the call ---------------------------------

OPERATOR_KERNEL = '''import pypto.language as pl


@pl.program
class Operators:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 64], pl.INT32], b: pl.Tensor[[16, 64], pl.INT32],
               s: pl.Scalar[pl.INT32]) -> pl.Tensor[[16, 64], pl.INT32]:
        t = pl.adds(a, 1)
        {stmt}
        return c
'''


@pytest.mark.parametrize(("stmt", "hint"), [
    ("c = t ** 2", "pl.mul(t, t)"), ("c = t & b", "pl.and_(t, b)"), ("c = t | b", "pl.or_(t, b)"),
    ("c = t ^ b", "pl.xor(t, b)"), ("c = t << 2", "pl.shl(t, 2)"), ("c = t >> s", "pl.shr(t, s)"),
    ("c = ~t", "pl.not_(t)"), ("c = +t", "drop the unary +"), ("c = s * t", "pl.mul(t, s)"),
    ("c = 3 - t", "pl.add(pl.neg(t), 3)"), ("c = t // b", "no floor division of tensors"),
])
def test_python_operators_without_a_scalar_form_name_the_pl_call(stmt: str, hint: str, tmp_path: Path) -> None:
    path = tmp_path / "ops.py"
    path.write_text(OPERATOR_KERNEL.replace("{stmt}", stmt))
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        rc = main([str(path), "--verify-all", "-o", str(tmp_path / "k.pto")])
    log = err.getvalue()
    assert rc == 1 and "Traceback" not in log, log
    assert "ops.py:10:13:" in log and "not a scalar" in log and hint in log, log


def test_an_operand_error_points_at_the_call_not_at_the_operands_definition(tmp_path: Path) -> None:
    # `s` is the kernel's parameter (line 8): the wrong call is on line 10.
    path = tmp_path / "ops.py"
    path.write_text(OPERATOR_KERNEL.replace("{stmt}", "c = pl.mul(s, t)"))
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        rc = main([str(path), "-o", str(tmp_path / "k.pto")])
    log = err.getvalue()
    assert rc == 1 and "ops.py:10:13:" in log and "operand 'lhs'" in log, log


# -- MovesOnDataPaths: a tile.move only along the target's data paths --------------------------------------

PLACED_MOVE = '''# nanopass.language: TilePlaced
import pypto.language as pl


@pl.program
class VecToLeft:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a_vec: pl.Tile[[16, 32], pl.FP16, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        {stage}
        b_mat: pl.Tile[[32, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [32, 16], target_memory=pl.Mem.Mat)
        b_right: pl.Tile[[32, 16], pl.FP16, pl.Mem.Right] = pl.tile.move(b_mat, target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a_left, b_right)
        out_store: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(c, [0, 0], out)
        return out_store
'''
DIRECT = "a_left: pl.Tile[[16, 32], pl.FP16, pl.Mem.Left] = pl.tile.move(a_vec, target_memory=pl.Mem.Left)"
STAGED = ("a_mat: pl.Tile[[16, 32], pl.FP16, pl.Mem.Mat] = pl.tile.move(a_vec, target_memory=pl.Mem.Mat)\n        "
          "a_left: pl.Tile[[16, 32], pl.FP16, pl.Mem.Left] = pl.tile.move(a_mat, target_memory=pl.Mem.Left)")


@pytest.mark.parametrize("backend", BOTH)
def test_moves_on_data_paths_rejects_a_vec_to_left_move(backend: str) -> None:
    from backend.targets.handlers import get_backend
    from languages.decls import TilePlaced
    from languages.pl_parser import parse_program
    from verifiers import moves_on_data_paths

    target = get_backend(backend)
    broken = parse_program(PLACED_MOVE.replace("{stage}", DIRECT), "k.py", language=TilePlaced)
    found = moves_on_data_paths.verify(broken, target)
    assert len(found) == 1 and "Vec to Left" in found[0].message and "through Mat" in found[0].hint, found
    assert found[0].span.line == 10
    staged = parse_program(PLACED_MOVE.replace("{stage}", STAGED), "k.py", language=TilePlaced)
    assert moves_on_data_paths.verify(staged, target) == []
    assert moves_on_data_paths.verify(broken) == []  # no target: nothing checked


def test_the_mat_stage_collapsed_mutant_is_caught_by_moves_on_data_paths(tmp_path: Path) -> None:
    from nanopass_pto.mutants import MUTANTS

    mutant = {m.name: m for m in MUTANTS}["mat-stage-collapsed"]
    with mutant.applied():
        rc, log = run_case("flash_attention_fp16_k96", "Ascend950", tmp_path)
    assert rc == 2 and "MovesOnDataPaths" in log and "auto-tile-matmul-l0" in log, log


@pytest.mark.parametrize("backend", BOTH)
def test_a_user_vec_to_left_move_is_staged_through_mat(backend: str, tmp_path: Path) -> None:
    # flash_attention_jit_tiles_rebinding without its explicit Mat stage: Ascend950's TMOV has no
    # Vec -> Left branch (it used to be emitted as is and copy nothing), Ascend910B refused it.
    c = CASES["flash_attention_jit_tiles_rebinding"]
    text = c.text.replace("            pm = pl.move(ph, target_memory=pl.MemorySpace.Mat)\n", "") \
        .replace("pl.move(pm, target_memory=pl.MemorySpace.Left)", "pl.move(ph, target_memory=pl.MemorySpace.Left)")
    assert text != c.text
    CASES["_vec_to_left"] = Case(text=text, inputs=c.inputs, reference=c.reference)
    try:
        check_case("_vec_to_left", backend, tmp_path)
        moves = [line.split("outs(") for line in (tmp_path / "k.pto").read_text().splitlines() if "pto.tmov" in line]
        assert not [m for m in moves if "loc=vec" in m[0] and "loc=left" in m[1]], moves
    finally:
        del CASES["_vec_to_left"]


def test_the_simulator_refuses_a_tmov_off_the_targets_data_paths(tmp_path: Path) -> None:
    # Without --verify-all the mutant's Vec -> Left pto.tmov reaches the simulator, which copied it
    # (agreeing bit for bit with the interpreter) where pto-isa's TMOV copies nothing.
    import contextlib
    import io

    from nanopass_pto.mutants import MUTANTS

    c = CASES["flash_attention_fp16_k96"]
    (tmp_path / "k.py").write_text(c.text)
    np.savez(tmp_path / "in.npz", **c.inputs())  # type: ignore[arg-type]
    mutant = {m.name: m for m in MUTANTS}["mat-stage-collapsed"]
    log = io.StringIO()
    with mutant.applied(), contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
        rc = main([str(tmp_path / "k.py"), "--backend", "Ascend950", "--simulate", "--inputs", str(tmp_path / "in.npz"),
                   "-o", str(tmp_path / "k.pto")])
    assert rc != 0 and "no Vec → Left data path" in log.getvalue(), log.getvalue()
