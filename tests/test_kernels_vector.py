"""Independently written vector kernels (tests/kernels/vector/*.py), compiled the way a user
runs them: `python -m nanopass.pipeline KERNEL --verify-all --simulate --inputs in.npz
--save-outputs out.npz --backend B`, on both backends.  Each run must report `bit-exact`
(simulator vs reference interpreter) and the saved outputs must equal, bit for bit, a NumPy
reference written here from NUMERICS.md alone (float64 + one rounding, sequential loops for
reductions, explicit neighbour selection for directed casts) -- not from backend/numerics.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import ml_dtypes
import numpy as np
import numpy.typing as npt
import pytest

from nanopass.pipeline import main

Array = npt.NDArray[Any]
Inputs = dict[str, Array]
Reference = Callable[[Inputs], dict[str, Array]]

KERNELS = Path(__file__).resolve().parent / "kernels" / "vector"
BACKENDS = ("Ascend910B", "Ascend950")
F32, F16, F64 = np.float32, np.float16, np.float64
BF16 = np.dtype(ml_dtypes.bfloat16)
UINT_OF_WIDTH = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


# -- reference building blocks (NUMERICS.md, written independently) --------------------------------


def rng_for(name: str) -> np.random.Generator:
    return np.random.default_rng(sum(map(ord, name)))


def uniform(name: str, shape: tuple[int, ...], low: float = -4.0, high: float = 4.0, dtype: Any = F32) -> Array:
    return rng_for(name + str(shape)).uniform(low, high, shape).astype(dtype)


def bits(array: Array) -> Array:
    a = np.ascontiguousarray(array)
    return a.view(UINT_OF_WIDTH[a.dtype.itemsize])


def vmax(a: Array, b: Array) -> Array:
    """max(a, b) = b if b > a else a."""
    return np.where(b > a, b, a)


def vmin(a: Array, b: Array) -> Array:
    return np.where(b < a, b, a)


def f64_then(dtype: Any, fn: Callable[[Array], Array]) -> Callable[[Array], Array]:
    """RNE_T(f(float64(x)))."""
    return lambda x: fn(x.astype(F64)).astype(dtype)


def seq_row(x: Array, op: str, acc_dtype: Any = F32) -> Array:
    """Sequential row reduction: sum from +0 (accumulator acc_dtype), max/min from element 0."""
    rows = x.reshape(-1, x.shape[-1])
    out = []
    for row in rows:
        if op == "sum":
            acc = acc_dtype(0.0)
            for v in row:
                acc = acc_dtype(acc + acc_dtype(v))
        else:
            acc = row[0]
            for v in row[1:]:
                if (v > acc) if op == "max" else (v < acc):
                    acc = v
        out.append(acc)
    return np.array(out).astype(x.dtype).reshape(x.shape[:-1] + (1,))


def seq_col(x: Array, op: str) -> Array:
    return seq_row(np.ascontiguousarray(x.T), op, acc_dtype=x.dtype.type).reshape(1, -1)


def float_neighbours(x64: Array, dtype: Any) -> tuple[Array, Array]:
    """The two `dtype` values bracketing exact float64 values (lo <= x <= hi), by bit stepping."""
    nearest = x64.astype(dtype)
    width = np.dtype(dtype).itemsize
    step_up = np.where(nearest.astype(F64) < x64, 1, 0)
    step_down = np.where(nearest.astype(F64) > x64, 1, 0)
    raw = bits(nearest).astype(np.int64)
    negative = np.signbit(nearest.astype(F64))

    def stepped(up: Array) -> Array:
        # Moving up in value: +1 on the magnitude bits of a positive value, -1 of a negative one.
        delta = np.where(negative, -up, up)
        zero_neg = (raw == (1 << (8 * width - 1))) & (up > 0)
        moved = np.where(zero_neg, 1, raw + delta)
        return moved.astype(UINT_OF_WIDTH[width]).view(dtype)

    hi = np.where(step_up == 1, stepped(np.ones_like(raw)), nearest)
    lo_raw = np.where(step_down == 1, stepped(-np.ones_like(raw)), nearest)
    return lo_raw.astype(dtype), hi.astype(dtype)


def cast_float(x: Array, dtype: Any, mode: str) -> Array:
    """Float -> narrower float under a rounding mode (no overflow in these inputs)."""
    x64 = x.astype(F64)
    lo, hi = float_neighbours(x64, dtype)
    exact = lo.astype(F64) == hi.astype(F64)
    if mode == "rint":
        return x64.astype(dtype)
    if mode == "floor":
        return lo
    if mode == "ceil":
        return hi
    if mode == "trunc":
        return np.where(x64 >= 0, lo, hi)
    if mode == "round":
        d_lo, d_hi = x64 - lo.astype(F64), hi.astype(F64) - x64
        tie_away = np.where(x64 >= 0, hi, lo)
        return np.where(d_lo < d_hi, lo, np.where(d_hi < d_lo, hi, tie_away))
    assert mode == "odd"
    odd_lo = (bits(lo) & 1) == 1
    return np.where(exact, lo, np.where(odd_lo, lo, hi))


INT_ROUNDERS: dict[str, Callable[[Array], Array]] = {
    "rint": np.rint, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc,
    "round": lambda v: np.sign(v) * np.floor(np.abs(v) + 0.5),
}


def cast_int(x: Array, dtype: Any, mode: str) -> Array:
    info = np.iinfo(dtype)
    return np.clip(INT_ROUNDERS[mode](x.astype(F64)), info.min, info.max).astype(dtype)


# -- per-kernel inputs and references ----------------------------------------------------------------


def ref_binary(i: Inputs) -> dict[str, Array]:
    a, b = i["a"], i["b"]
    return {"ret0": a + b, "ret1": a - b, "ret2": a * b, "ret3": a / b, "ret4": vmax(a, b), "ret5": vmin(a, b)}


def ref_broadcast(i: Inputs) -> dict[str, Array]:
    x, col, row = i["x"], i["col"], i["row"]
    y = x + col
    z = y * row
    w = z - col
    return {"ret0": w / row}


def ref_lhs_broadcast(i: Inputs) -> dict[str, Array]:
    x, col, row, one = i["x"], i["col"], i["row"], i["one"]
    a = col - x
    b = row / a
    c = vmax(b, np.broadcast_to(col, b.shape))
    d = vmin(c, np.broadcast_to(row, c.shape))
    return {"ret0": d + one}


def ref_scalar(i: Inputs) -> dict[str, Array]:
    x = i["x"]
    e = vmax((((x + F32(2.0)) * F32(0.5)) - F32(1.25)) / F32(3.0), np.full_like(x, -0.5))
    f = vmin(e, np.full_like(x, 0.75))
    return {"ret0": (f + F32(1.0)) * F32(3.0)}


def ref_unary(i: Inputs) -> dict[str, Array]:
    x = i["x"]
    ax = np.abs(x)
    e = f64_then(F32, np.exp)(x)
    lg = f64_then(F32, np.log)(ax)
    sq = f64_then(F32, np.sqrt)(ax)
    rs = f64_then(F32, lambda v: 1.0 / np.sqrt(v))(ax)
    r = F32(1.0) / x
    rl = vmax(x, np.zeros_like(x))
    return {"ret0": e, "ret1": lg + sq, "ret2": rs + (-x), "ret3": r - rl}


def softmax_rows(x: Array) -> Array:
    m = seq_row(x, "max")
    e = f64_then(F32, np.exp)(x - m)
    return e / seq_row(e, "sum")


def ref_softmax(i: Inputs) -> dict[str, Array]:
    return {"ret0": softmax_rows(i["x"])}


def ref_log_softmax(i: Inputs) -> dict[str, Array]:
    x = i["x"]
    shifted = x - seq_row(x, "max")
    s = seq_row(f64_then(F32, np.exp)(shifted), "sum")
    return {"ret0": shifted - f64_then(F32, np.log)(s)}


def ref_layernorm(i: Inputs) -> dict[str, Array]:
    x, gamma, beta = i["x"], i["gamma"], i["beta"]
    mean = seq_row(x, "sum") * F32(0.015625)
    centered = x - mean
    var = seq_row(centered * centered, "sum") * F32(0.015625)
    inv = f64_then(F32, lambda v: 1.0 / np.sqrt(v))(var + F32(1e-5))
    return {"ret0": (centered * inv) * gamma + beta}


def ref_reductions(i: Inputs) -> dict[str, Array]:
    x = i["x"]
    return {"ret0": seq_row(x, "sum"), "ret1": seq_row(x, "max"), "ret2": seq_row(x, "min"),
            "ret3": seq_col(x, "sum"), "ret4": seq_col(x, "max"), "ret5": seq_col(x, "min")}


def ref_casts_f32(i: Inputs) -> dict[str, Array]:
    x = i["x"]
    modes = ("rint", "round", "floor", "ceil", "trunc", "odd")
    out = {f"ret{k}": cast_float(x, F16, m) for k, m in enumerate(modes)}
    out.update(ret6=cast_float(x, BF16, "rint"), ret7=cast_float(x, BF16, "floor"), ret8=cast_float(x, BF16, "round"))
    return out


def ref_casts_int(i: Inputs) -> dict[str, Array]:
    x, h, n = i["x"], i["h"], i["n"]
    out = {f"ret{k}": cast_int(x, np.int32, m) for k, m in enumerate(("rint", "round", "floor", "ceil", "trunc"))}
    out.update(ret5=cast_int(h, np.int8, "round"), ret6=n.astype(F32), ret7=h.astype(F32),
               ret8=n.astype(F64).astype(F16))
    return out


def ref_softmax_bf16(i: Inputs) -> dict[str, Array]:
    return {"ret0": softmax_rows(i["x"].astype(F32)).astype(BF16)}


def ref_elementwise_f16(i: Inputs) -> dict[str, Array]:
    a, b, r = (i[k].astype(F32) for k in ("a", "b", "r"))

    def h(v: Array) -> Array:
        return v.astype(F16).astype(F32)

    s = h(h(a + b) * h(a - b))
    t = h(s / h(np.abs(b) + F32(1.0)))
    u = h(f64_then(F16, np.exp)(h(t * F32(0.125))).astype(F32) * r)
    relu = vmax(u, np.zeros_like(u))
    return {"ret0": relu.astype(F16), "ret1": seq_row(u, "sum").astype(F16)}


def ref_elementwise_bf16(i: Inputs) -> dict[str, Array]:
    a, b = (i[k].astype(F32) for k in ("a", "b"))

    def r(v: Array) -> Array:
        return v.astype(BF16).astype(F32)

    c = r(r(a * b) + F32(0.5))
    d = vmax(c, b)
    e = f64_then(BF16, np.sqrt)(np.abs(d))
    return {"ret0": (-e.astype(F32)).astype(BF16)}


def ref_odd_shape(i: Inputs) -> dict[str, Array]:
    c = i["a"] + i["b"]
    return {"ret0": c, "ret1": seq_row(c, "sum")}


def ref_row_vector(i: Inputs) -> dict[str, Array]:
    a, b = i["a"], i["b"]
    return {"ret0": (a * b) - seq_row(a, "max")}


def ref_col_vector(i: Inputs) -> dict[str, Array]:
    return {"ret0": f64_then(F32, np.exp)(i["a"] - i["b"]) * F32(2.0)}


def ref_vector_1d(i: Inputs) -> dict[str, Array]:
    return {"ret0": (i["a"] + i["b"]) * F32(3.0)}


def ref_tensor_3d(i: Inputs) -> dict[str, Array]:
    c = i["a"] - i["b"]
    m = seq_row(c, "max")
    return {"ret0": c - m, "ret1": m}


def ref_chained(i: Inputs) -> dict[str, Array]:
    c = i["x"] * F32(0.25) + i["y"] * F32(0.25)
    return {"ret0": c, "ret1": seq_row(c, "max")}


def ref_row_block_loop(i: Inputs) -> dict[str, Array]:
    x = i["x"]
    return {"ret0": np.concatenate([softmax_rows(x[r:r + 16]) for r in range(0, 64, 16)])}


def ref_out_param(i: Inputs) -> dict[str, Array]:
    return {"ret0": i["a"] * i["b"]}


def ref_out_param_halves(i: Inputs) -> dict[str, Array]:
    top, bottom = i["a"][:16], i["a"][16:]
    return {"ret0": np.concatenate([top + bottom, top - bottom])}


def nonzero(name: str, shape: tuple[int, ...], dtype: Any = F32) -> Array:
    """Values away from zero (divisors)."""
    v = uniform(name, shape, 0.5, 4.0)
    sign = np.where(rng_for(name + "sign").random(shape) < 0.5, -1.0, 1.0)
    return (v * sign).astype(dtype)


CASES: dict[str, tuple[Callable[[], Inputs], Reference]] = {
    "binary_f32": (lambda: {"a": uniform("a", (16, 64)), "b": nonzero("b", (16, 64))}, ref_binary),
    "broadcast_f32": (lambda: {"x": uniform("x", (16, 64)), "col": uniform("c", (16, 1)),
                               "row": nonzero("r", (1, 64))}, ref_broadcast),
    "lhs_broadcast_f32": (lambda: {"x": uniform("x", (8, 32)), "col": uniform("c", (8, 1)) + F32(9.0),
                                   "row": uniform("r", (1, 32)), "one": uniform("o", (1, 1))}, ref_lhs_broadcast),
    "scalar_f32": (lambda: {"x": uniform("x", (8, 32))}, ref_scalar),
    "unary_f32": (lambda: {"x": nonzero("x", (8, 64))}, ref_unary),
    "softmax_spec": (lambda: {"x": uniform("x", (16, 64), -8, 8)}, ref_softmax),
    "log_softmax_f32": (lambda: {"x": uniform("x", (16, 32), -8, 8)}, ref_log_softmax),
    "layernorm_f32": (lambda: {"x": uniform("x", (8, 64)), "gamma": uniform("g", (1, 64)),
                               "beta": uniform("b", (1, 64))}, ref_layernorm),
    "reductions_f32": (lambda: {"x": uniform("x", (16, 64))}, ref_reductions),
    "casts_f32": (lambda: {"x": uniform("x", (8, 32), -70000.0, 70000.0) * F32(1e-3)}, ref_casts_f32),
    "casts_int": (lambda: {"x": np.concatenate([uniform("x", (4, 32), -1000, 1000),
                                                np.tile(np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, -3.5], F32), (4, 4))]),
                           "h": uniform("h", (8, 32), -140, 140, F16),
                           "n": rng_for("n").integers(-60000, 60000, (8, 32)).astype(np.int32)}, ref_casts_int),
    "softmax_bf16": (lambda: {"x": uniform("x", (16, 64), -8, 8, BF16)}, ref_softmax_bf16),
    "elementwise_f16": (lambda: {"a": uniform("a", (16, 64), -2, 2, F16), "b": uniform("b", (16, 64), -2, 2, F16),
                                 "r": uniform("r", (16, 1), -2, 2, F16)}, ref_elementwise_f16),
    "elementwise_bf16": (lambda: {"a": uniform("a", (16, 32), dtype=BF16), "b": uniform("b", (16, 32), dtype=BF16)},
                         ref_elementwise_bf16),
    "odd_shape_7x13": (lambda: {"a": uniform("a", (7, 13)), "b": uniform("b", (7, 13))}, ref_odd_shape),
    "row_vector_1xn": (lambda: {"a": uniform("a", (1, 64)), "b": uniform("b", (1, 64))}, ref_row_vector),
    "col_vector_nx1": (lambda: {"a": uniform("a", (32, 1)), "b": uniform("b", (32, 1))}, ref_col_vector),
    "vector_1d": (lambda: {"a": uniform("a", (64,)), "b": uniform("b", (64,))}, ref_vector_1d),
    "tensor_3d": (lambda: {"a": uniform("a", (2, 8, 32)), "b": uniform("b", (2, 8, 32))}, ref_tensor_3d),
    "chained_kernels": (lambda: {"x": uniform("x", (16, 32)), "y": uniform("y", (16, 32))}, ref_chained),
    "row_block_loop": (lambda: {"x": uniform("x", (64, 32), -8, 8)}, ref_row_block_loop),
    "out_param": (lambda: {"a": uniform("a", (16, 64)), "b": uniform("b", (16, 64))}, ref_out_param),
    "out_param_halves": (lambda: {"a": uniform("a", (32, 32))}, ref_out_param_halves),
}


def storable(array: Array) -> Array:
    """npz cannot name bf16: such inputs travel as their bit patterns."""
    return bits(array) if array.dtype == BF16 else array


def run_kernel(name: str, backend: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
               inputs: Inputs) -> tuple[int, str, dict[str, Array]]:
    in_path, out_path = tmp_path / "in.npz", tmp_path / "out.npz"
    arrays: dict[str, Any] = {k: storable(v) for k, v in inputs.items()}
    np.savez(in_path, **arrays)
    code = main([str(KERNELS / f"{name}.py"), "--verify-all", "--simulate", "--backend", backend,
                 "--inputs", str(in_path), "--save-outputs", str(out_path)])
    captured = capsys.readouterr()
    text = captured.out + captured.err  # IR on stdout, the simulation report on stderr
    outputs: dict[str, Array] = {}
    if out_path.exists():
        with np.load(out_path) as saved:
            outputs = {k: saved[k] for k in saved.files}
    return code, text, outputs


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_kernel_is_bit_exact_against_numpy(name: str, backend: str, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    make_inputs, reference = CASES[name]
    inputs = make_inputs()
    code, text, outputs = run_kernel(name, backend, tmp_path, capsys, inputs)
    assert code == 0, text
    assert "MISMATCH" not in text and "bit-exact" in text, text
    expected = reference(inputs)
    assert sorted(outputs) == sorted(expected), text
    for key, want in expected.items():
        got = outputs[key]
        want = np.ascontiguousarray(want)
        assert got.shape == want.shape, f"{key}: shape {got.shape} != {want.shape}"
        differ = bits(got) != bits(want)
        if np.any(differ):
            first = tuple(np.argwhere(differ)[0])
            pytest.fail(f"{name} {key} on {backend}: {int(differ.sum())} of {differ.size} elements differ; first "
                        f"at {list(first)}: compiled {got[first]!r} (0x{int(bits(got)[first]):x}), reference "
                        f"{want[first]!r} (0x{int(bits(want)[first]):x})")


def test_vec_overflow_names_the_space_and_the_fix(capsys: pytest.CaptureFixture[str]) -> None:
    code = main([str(KERNELS / "vec_overflow.py"), "--verify-all"])
    err = capsys.readouterr().err
    assert code != 0
    assert "Traceback" not in err
    assert "vec_overflow.py:8:" in err and "Vec usage" in err and "188416" in err
    # One [256, 256] FP32 tile is over Vec on its own: smaller tiles are the fix (splitting the
    # kernel is offered where several tiles only together overflow, tests/test_kernels_matmul.py).
    assert "alone is [256, 256] FP32, 262144 bytes" in err and "smaller tiles" in err
