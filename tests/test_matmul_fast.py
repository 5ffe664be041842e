"""The fast MAD kernel (`numerics.matmul_fast`: backend/_mad.c, or its NumPy stand-ins) against
the step-by-step rule (`numerics.matmul_reference`), bit for bit, for every operand dtype on
random and corner inputs: ties to even, subnormal operands and results, +-0, inf / NaN
(payloads included), overflow, and INT8 wrap-around."""

from __future__ import annotations

import os
from typing import Any, Iterator

import ml_dtypes
import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backend import numerics

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NaN / overflow corner inputs

Array = npt.NDArray[Any]
FLOAT_INPUTS = ("FP16", "BF16", "FP32")

# Bit patterns that sit on the rules' edges, per operand format.
_CORNERS: dict[str, tuple[int, ...]] = {
    # +-0, 1, tie-making powers of two (2**-12 * 2**-12 = half an ulp of 1.0 in FP32), the
    # smallest / largest subnormal, the smallest normal, max finite, +-inf, quiet and
    # signalling NaNs with payloads, negative NaN.
    "FP16": (0x0000, 0x8000, 0x3C00, 0xBC00, 0x0C00, 0x8C00, 0x0001, 0x8001, 0x03FF, 0x0400, 0x7BFF, 0xFBFF,
             0x7C00, 0xFC00, 0x7E00, 0x7D01, 0xFE42, 0x3C01, 0x4000),
    # BF16 shares FP32's exponent range: products of two tiny values underflow FP32 (only a
    # real fma rounds them right), products of two huge ones overflow it.
    "BF16": (0x0000, 0x8000, 0x3F80, 0xBF80, 0x3380, 0x0001, 0x8001, 0x007F, 0x0080, 0x1F80, 0x7F7F, 0xFF7F,
             0x7F80, 0xFF80, 0x7FC0, 0x7F81, 0xFFC1, 0x3F81),
    "FP32": (0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x33800000, 0x39800000, 0x00000001, 0x80000001,
             0x007FFFFF, 0x00800000, 0x1F800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000,
             0x7F800001, 0xFFC12345, 0x3F800001, 0x2A800000),
}
_ACC_CORNERS: tuple[int, ...] = (0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x00000001, 0x80800000,
                                 0x7F7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00001, 0x4B800000)


def _bits_to(values: Array, dtype: str) -> Array:
    return numerics.from_bits(values.astype(np.uint64), dtype)


def _corner_operands(rng: np.random.Generator, dtype: str, m: int, k: int, n: int,
                     corner_share: float) -> tuple[Array, Array, Array]:
    """Random normal operands with a share of corner patterns mixed in."""
    def operand(shape: tuple[int, int]) -> Array:
        values = rng.standard_normal(shape).astype(numerics.np_dtype(dtype))
        mask = rng.random(shape) < corner_share
        corners = _bits_to(rng.choice(np.array(_CORNERS[dtype], dtype=np.uint64), shape), dtype)
        return np.where(mask, corners, values)

    start = rng.standard_normal((m, n)).astype(np.float32)
    mask = rng.random((m, n)) < corner_share
    start = np.where(mask, _bits_to(rng.choice(np.array(_ACC_CORNERS, dtype=np.uint64), (m, n)), "FP32"), start)
    return operand((m, k)), operand((k, n)), start


def _same_bits(x: Array, y: Array) -> bool:
    return x.dtype == y.dtype and x.shape == y.shape and np.array_equal(numerics.to_bits(x), numerics.to_bits(y))


_SHAPES = ((1, 1, 1), (16, 16, 16), (7, 33, 19), (6, 5, 16), (13, 40, 17), (100, 64, 45), (64, 128, 33),
           (13, 24, 96))


def _cases() -> Iterator[tuple[str, tuple[int, int, int], float]]:
    for dtype in FLOAT_INPUTS:
        for shape in _SHAPES:
            for share in (0.0, 0.05, 0.5):
                yield dtype, shape, share


# The compiled float kernels this CPU runs (each MR x NR register block width: scalar fmaf,
# AVX2 and AVX-512); every bit test below runs under each of them.
_WIDEST_KERNEL = "avx512f"


def _float_kernels() -> list[str]:
    kernel = numerics._mad_kernel
    if kernel is None or not hasattr(kernel, "use_kernel"):
        return ["as built"]
    names = [name for name in ("scalar-fmaf", "avx2-fma", _WIDEST_KERNEL) if kernel.use_kernel(name) == name]
    kernel.use_kernel(_WIDEST_KERNEL)
    return names


@pytest.fixture(params=_float_kernels())
def float_kernel(request: pytest.FixtureRequest) -> Iterator[str]:
    kernel = numerics._mad_kernel
    if kernel is not None and hasattr(kernel, "use_kernel"):
        assert kernel.use_kernel(request.param) == request.param
    try:
        yield str(request.param)
    finally:
        if kernel is not None and hasattr(kernel, "use_kernel"):
            kernel.use_kernel(_WIDEST_KERNEL)


@pytest.mark.usefixtures("float_kernel")
@pytest.mark.parametrize(("dtype", "shape", "share"), list(_cases()))
def test_fast_matmul_matches_the_rule_bit_for_bit(dtype: str, shape: tuple[int, int, int], share: float) -> None:
    rng = np.random.default_rng([FLOAT_INPUTS.index(dtype), *shape, int(share * 100)])
    a, b, start = _corner_operands(rng, dtype, *shape, corner_share=share)
    with np.errstate(all="ignore"):
        expected = numerics.matmul_reference(a, b, start, dtype)
    assert _same_bits(numerics.matmul_fast(a, b, start, dtype), expected)


def test_ties_round_to_even_and_products_stay_exact() -> None:
    # 1 + 2**-24 is a tie between 1 and 1 + 2**-23: to even (1.0); 1 + 2**-23 + 2**-24 goes up.
    a = np.array([[2.0**-12]], dtype=np.float16)
    for start, expected in ((1.0, 0x3F800000), (1.0 + 2.0**-23, 0x3F800002)):
        acc = np.array([[start]], dtype=np.float32)
        got = numerics.matmul_fast(a, a, acc, "FP16")
        assert int(got.view(np.uint32)[0, 0]) == expected
        assert _same_bits(got, numerics.matmul_reference(a, a, acc, "FP16"))


def test_bf16_products_below_fp32_range_round_once() -> None:
    # 2**-70 * 2**-70 = 2**-140, an FP32 subnormal (2**9 times the smallest, 2**-149): exact only with a fused step;
    # 2**-76 * 2**-76 = 2**-152 is below half the smallest subnormal: +0, and -0 with a sign.
    tiny = np.array([[2.0**-70, -(2.0**-76)]], dtype=ml_dtypes.bfloat16)
    b = np.array([[2.0**-70], [2.0**-76]], dtype=ml_dtypes.bfloat16)
    zero = np.zeros((1, 1), dtype=np.float32)
    got = numerics.matmul_fast(tiny[:, :1], b[:1], zero, "BF16")
    assert int(got.view(np.uint32)[0, 0]) == 1 << 9
    neg = numerics.matmul_fast(tiny[:, 1:], b[1:], np.full((1, 1), -0.0, np.float32), "BF16")
    assert int(neg.view(np.uint32)[0, 0]) == 0x80000000
    assert _same_bits(numerics.matmul_fast(tiny, b, zero, "BF16"), numerics.matmul_reference(tiny, b, zero, "BF16"))


def test_nan_outputs_carry_the_reference_payload() -> None:
    # Which NaN an fma instruction returns depends on operand order; the rule's does not.
    a = numerics.from_bits(np.array([[0x7F812345, 0x3F800000]], dtype=np.uint64), "FP32")
    b = numerics.from_bits(np.array([[0x3F800000], [0xFFC00042]], dtype=np.uint64), "FP32")
    start = numerics.from_bits(np.array([[0x7FC00777]], dtype=np.uint64), "FP32")
    with np.errstate(all="ignore"):
        expected = numerics.matmul_reference(a, b, start, "FP32")
    assert _same_bits(numerics.matmul_fast(a, b, start, "FP32"), expected)


@pytest.mark.parametrize("k", [1, 37, 1024, 1025, 1500])
def test_int8_wraps_like_the_sequential_chain(k: int) -> None:
    rng = np.random.default_rng(k)
    a = rng.choice(np.array([-128, 127, -1, 0, 1], dtype=np.int8), (9, k))
    b = rng.choice(np.array([-128, 127, -1, 0, 1], dtype=np.int8), (k, 11))
    start = rng.choice(np.array([2**31 - 1, -(2**31), 0, 12345], dtype=np.int32), (9, 11))
    got = numerics.matmul_fast(a, b, start, "INT8")
    assert got.dtype == np.int32 and np.array_equal(got, numerics.matmul_reference(a, b, start, "INT8"))
    assert np.array_equal(got.astype(np.int64), (start.astype(np.int64) + a.astype(np.int64) @ b.astype(np.int64)
                                                 + 2**31) % 2**32 - 2**31)


@pytest.mark.parametrize("dtype", [*FLOAT_INPUTS, "INT8"])
def test_numpy_fallbacks_without_the_compiled_kernel(dtype: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(numerics, "_mad_kernel", None)
    rng = np.random.default_rng(7)
    if dtype == "INT8":
        a = rng.integers(-128, 128, (5, 1100)).astype(np.int8)
        b = rng.integers(-128, 128, (1100, 6)).astype(np.int8)
        start = rng.integers(-(2**31), 2**31, (5, 6)).astype(np.int32)
    else:
        a, b, start = _corner_operands(rng, dtype, 12, 20, 9, corner_share=0.2)
    with np.errstate(all="ignore"):
        expected = numerics.matmul_reference(a, b, start, dtype)
        assert _same_bits(numerics.matmul_fast(a, b, start, dtype), expected)


def test_the_compiled_kernel_is_built() -> None:
    # The install builds it (setup.py); a silent fallback would cost 20-1000x in every run.
    # A worktree installed before the extension existed lacks it until `pip install -e .`
    # runs again, so only CI (a fresh install) insists on the built module itself.
    if numerics._mad_kernel is None and not os.environ.get("CI"):
        pytest.skip("backend._mad is not built here: run `pip install -e .` again to build it")
    assert numerics._mad_kernel is not None, "backend._mad is missing: reinstall with a C compiler"


def test_setup_declares_the_compiled_kernel() -> None:
    # The skip above must not hide a setup.py that stopped building the extension (it once
    # did: a rewrite of setup.py for the .pth dropped ext_modules, and every fresh install ran
    # the NumPy stand-ins silently).
    import ast
    from pathlib import Path

    setup_py = Path(__file__).resolve().parent.parent / "setup.py"
    tree = ast.parse(setup_py.read_text())
    extensions = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
                  and isinstance(node.func, ast.Name) and node.func.id == "Extension"]
    names = [ast.literal_eval(call.args[0]) for call in extensions if call.args]
    assert "backend._mad" in names, "setup.py no longer builds backend._mad"
    setups = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
              and isinstance(node.func, ast.Name) and node.func.id == "setup"]
    assert any(keyword.arg == "ext_modules" for call in setups for keyword in call.keywords)


@pytest.mark.usefixtures("float_kernel")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(FLOAT_INPUTS), st.integers(1, 13), st.integers(1, 24), st.integers(1, 70),
       st.integers(0, 2**32 - 1))
def test_random_bit_patterns(dtype: str, m: int, k: int, n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    width = numerics.byte_width(dtype) * 8
    a = _bits_to(rng.integers(0, 2**width, (m, k), dtype=np.uint64), dtype)
    b = _bits_to(rng.integers(0, 2**width, (k, n), dtype=np.uint64), dtype)
    start = _bits_to(rng.integers(0, 2**32, (m, n), dtype=np.uint64), "FP32")
    with np.errstate(all="ignore"):
        expected = numerics.matmul_reference(a, b, start, dtype)
        assert _same_bits(numerics.matmul_fast(a, b, start, dtype), expected)


# -- the simulator's MAD on tile windows (Machine.mad_tiles) ------------------------------------

def _mad_tile_operands(dtype: str, m: int, k: int, n: int) -> tuple[Any, ...]:
    """Left [M, K] (Nz), Right [K, N] (Zn) and Acc [M, N] tiles sized up to whole boxes."""
    from backend.sim.machine import handle_for, with_valid
    from languages.memory_space import MemorySpace
    from languages.types import DataType, MemRef, TileType, TileView

    def up(x: int, box: int) -> int:
        return -(-x // box) * box

    def tile(name: str, space: MemorySpace, view: TileView, dt: DataType, shape: tuple[int, int],
             valid: tuple[int, int]) -> Any:
        nbytes = shape[0] * shape[1] * dt.byte_width
        return with_valid(handle_for(name, TileType(shape, dt, shape, space, view, MemRef(name, space, 0, nbytes))),
                          valid)

    dt = DataType[dtype]
    inner = 32 // dt.byte_width  # a box row holds 32 bytes
    left = tile("a", MemorySpace.Left, TileView("col_major", "row_major", 512), dt, (up(m, 16), up(k, inner)), (m, k))
    right = tile("b", MemorySpace.Right, TileView("row_major", "col_major", 512), dt, (up(k, inner), up(n, 16)),
                 (k, n))
    acc = tile("c", MemorySpace.Acc, TileView("col_major", "row_major", 1024), DataType.FP32, (up(m, 16), up(n, 16)),
               (m, n))
    return left, right, acc


@pytest.mark.usefixtures("float_kernel")
@pytest.mark.parametrize("dtype", FLOAT_INPUTS)
@pytest.mark.parametrize("accumulate", [False, True], ids=["tmatmul", "tmatmul_acc"])
@pytest.mark.parametrize("shape", [(16, 16, 16), (20, 40, 24), (128, 64, 128)], ids=lambda s: "x".join(map(str, s)))
def test_mad_on_tile_windows_writes_the_rules_bits(dtype: str, accumulate: bool, shape: tuple[int, int, int]) -> None:
    """`Machine.mad_tiles` (one compiled call on the Left / Right / Acc windows) leaves exactly
    the bytes and written flags of reading the tiles, running the step-by-step rule and writing
    the result; an output that comes out NaN, or a window of partial boxes (no strided view),
    makes it decline before writing anything (the caller's path then takes over)."""
    from backend.sim import machine as machine_module
    from backend.sim.machine import Machine
    from backend.targets.handlers import get_backend
    from languages.memory_space import MemorySpace
    from nanopass.node import NO_SPAN
    if machine_module._MAD_TILES is None:
        pytest.skip("backend._mad is not built here")
    m, k, n = shape
    rng = np.random.default_rng(m * 7 + k * 3 + n)
    left, right, acc = _mad_tile_operands(dtype, m, k, n)
    pitch = -(-m // 16) * 16
    outcomes = set()
    # At 0.15 nearly every output chain meets a NaN (both outcomes happen); the finite corners
    # (subnormals, +-0, ties, max finite) mostly leave the chains NaN-free.
    for share, finite in ((0.0, False), (0.15, False), (0.05, True)):
        a, b, start = _corner_operands(rng, dtype, m, k, n, share)
        if finite:
            a, b, start = (np.where(np.isfinite(x), x, x.dtype.type(1)) for x in (a, b, start))

        def machine_with_operands() -> Machine:
            machine = Machine(get_backend("Ascend910B"))
            machine.write_tile(left, a, "test.write")
            machine.write_tile(right, b, "test.write")
            if accumulate:
                machine.write_tile(acc, start, "test.write", pitch=pitch)
            return machine

        fast = machine_with_operands()
        before = fast.memory[MemorySpace.Acc].copy(), fast.written[MemorySpace.Acc].copy()
        done = fast.mad_tiles(left, right, acc if accumulate else None, acc, pitch, "test.mad")
        rule = numerics.matmul_reference(a, b, start if accumulate else np.zeros((m, n), np.float32), dtype)
        windows = [fast._tile_access(tile, region, "t", NO_SPAN, p, (0, 0)).values for tile, region, p in
                   ((left, (m, k), None), (right, (k, n), None), (acc, (m, n), pitch))]
        if np.isnan(rule).any() or any(w is None for w in windows):  # partial boxes: no strided window
            assert not done
            assert np.array_equal(fast.memory[MemorySpace.Acc], before[0])
            assert np.array_equal(fast.written[MemorySpace.Acc], before[1])
            outcomes.add(False)
            continue
        assert done
        outcomes.add(True)
        reference = machine_with_operands()
        reference.write_tile(acc, rule, "test.write", pitch=pitch)
        assert np.array_equal(fast.memory[MemorySpace.Acc], reference.memory[MemorySpace.Acc])
        assert np.array_equal(fast.written[MemorySpace.Acc], reference.written[MemorySpace.Acc])
    assert outcomes == ({False} if m % 16 or n % 16 or k % 16 else {True, False})


def test_mad_on_tile_windows_declines_unwritten_operands_and_integers() -> None:
    from backend.sim import machine as machine_module
    from backend.sim.machine import Machine
    from backend.targets.handlers import get_backend
    from languages.memory_space import MemorySpace
    if machine_module._MAD_TILES is None:
        pytest.skip("backend._mad is not built here")
    left, right, acc = _mad_tile_operands("FP16", 16, 16, 16)
    machine = Machine(get_backend("Ascend910B"))
    machine.write_tile(left, np.ones((16, 16), np.float16), "test.write")
    assert not machine.mad_tiles(left, right, None, acc, 16, "test.mad")  # Right never written
    assert not machine.written[MemorySpace.Acc].any()
    i8_left, i8_right, i32_acc = _mad_tile_operands("INT8", 16, 32, 16)
    machine.write_tile(i8_left, np.ones((16, 32), np.int8), "test.write")
    machine.write_tile(i8_right, np.ones((32, 16), np.int8), "test.write")
    assert not machine.mad_tiles(i8_left, i8_right, None, i32_acc, 16, "test.mad")  # INT8: the integer path
