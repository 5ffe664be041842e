"""ChooseL0Tile against an independent brute-force re-enumeration, plus handler facts and CLI."""

from __future__ import annotations

import math
import re
import subprocess
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backend.targets.handlers import (
    ASCEND_910B,
    ASCEND_950,
    DEFAULT_BACKEND,
    BackendHandler,
    dtype_byte_width,
    get_backend,
)
from backend.targets.l0_chooser import (
    BiasSource,
    L0ChooserConfig,
    L0Choice,
    MemoryPlanner,
    choose_l0_tile,
    explain_rejection,
)
from languages.memory_space import MemorySpace

REPO = Path(__file__).resolve().parent.parent


# ----------------------------------------------------------------------------- reference

@dataclass(frozen=True)
class RefPoint:
    m: int
    n: int
    k: int
    stationarity: str
    dbc: int
    wall: int
    hold: str | None
    padded: int
    k_blocks: int
    c_load: float

    def key(self) -> tuple[int, int, int, float, int, int, int]:
        return (self.wall, self.padded, self.k_blocks, self.c_load, -self.m * self.n, -self.k,
                self.m)


def _up(x: int, a: int) -> int:
    return -(-x // a) * a


def _cdiv(x: int, y: int) -> int:
    return -(-x // y)


def _odd(x: int) -> int:
    while x % 2 == 0:
        x //= 2
    return x


def _ref_point(cfg: L0ChooserConfig, m: int, n: int, k: int, stat: str, dbc: int) -> RefPoint | None:
    """Score one design point straight from TARGET_FACTS' formulas; None when illegal."""
    h = cfg.backend
    cm = h.l0_cost_model
    dba = 1 if stat == "a" else 2
    dbb = 1 if stat == "b" else 2
    mb, nb = _up(_up(m, cfg.box_align_m), 16), _up(_up(n, cfg.box_align_n), 16)
    if _up(mb, cfg.l0c_align_m) * nb * cfg.bytes_c * dbc > h.l0c_capacity_bytes:
        return None
    if mb * k * cfg.bytes_a * dba > h.l0a_capacity_bytes:
        return None
    if nb * k * cfg.bytes_b * dbb > h.l0b_capacity_bytes:
        return None
    M, N, K = cfg.M, cfg.N, cfg.K
    tm, tn = _cdiv(M, m), _cdiv(N, n)
    T = tm * tn
    kt = 32 // cfg.bytes_a
    cpr = 2.0 if cfg.bytes_a == 4 and h.arch == "a2a3" else 8.0 if cfg.bytes_a == 4 else 1.0
    kf = K // k
    kfrac = kf * _cdiv(k, kt) + _cdiv(K - kf * k, kt)
    c_mad = T * (_cdiv(K, k) * cm.mad_head_cycles + cpr * (_cdiv(m, 16) * kfrac * _cdiv(n, 16)))
    a_bytes, b_bytes = cfg.bytes_a * M * K, cfg.bytes_b * K * N
    held = {"a": a_bytes / cm.bw_l0a + b_bytes * tm / cm.bw_l0b,
            "b": a_bytes * tn / cm.bw_l0a + b_bytes / cm.bw_l0b}
    grid = k == K and T > 1

    def bias_ok(slots: int) -> bool:
        return cfg.bias_source is BiasSource.NONE or n * cfg.bytes_c * slots <= h.bias_capacity_bytes

    hold: str | None
    if k < K:
        if stat != "output" or dbc != 1 or not bias_ok(1):
            return None
        c_load, hold = a_bytes * tn / cm.bw_l0a + b_bytes * tm / cm.bw_l0b, None
    else:
        options = []
        for hold_name, moving_full in (("a", N // n), ("b", M // m)):
            if stat not in ("output", hold_name):
                continue
            slots = 1
            if grid and cfg.bias_source is BiasSource.MAT:
                slots = {"b": 1, "a": 2}.get(stat, 4 if hold_name == "a" else 2)
            if not bias_ok(slots) or (dbc == 2 and moving_full < 2):
                continue
            options.append((held[hold_name], hold_name))
        if not options:
            return None
        c_load, hold = min(options)
    gamma = 2 if cfg.is_matmul_acc else 1
    n1 = _cdiv(n, 32 // cfg.bytes_c)
    per_row = (max(cm.drain_row_cycles, cfg.bytes_c * n * gamma / cm.bw_drain)
               + cm.drain_penalty_cycles * (_odd(n1) - 1))
    c_drain = T * (cm.drain_fixed_cycles + m * per_row)
    compute = max(c_load, c_mad)
    wall = compute + c_drain if dbc == 1 else max(compute, c_drain) + min(compute, c_drain) / T
    padded = tm * m * tn * n * kfrac * kt
    return RefPoint(m, n, k, stat, dbc, math.floor(wall + 0.5), hold, padded, _cdiv(K, k), c_load)


def _axis(extent: int) -> list[int]:
    return list(range(16, extent + 1, 16)) if extent % 16 == 0 else [extent]


def reference_choose(cfg: L0ChooserConfig) -> RefPoint | None:
    if cfg.K % 16:
        return None
    ks = [k for k in range(16, cfg.K + 1, 16) if cfg.allow_k_boundary or cfg.K % k == 0]
    base = [p for m in _axis(cfg.M) for n in _axis(cfg.N) for k in ks
            if (p := _ref_point(cfg, m, n, k, "output", 1))]
    if not base:
        return None
    best = min(base, key=RefPoint.key)
    if _cdiv(cfg.M, best.m) * _cdiv(cfg.N, best.n) == 1:
        return best
    dbc2 = cfg.planner is not MemoryPlanner.PYPTO or cfg.enable_pypto_l0c_double_buffer
    designs = [("output", 2), ("a", 1), ("a", 2), ("b", 1), ("b", 2)]
    designs = [(s, d) for s, d in designs
               if (d == 1 or dbc2) and (s != "a" or cfg.allow_a_stationary)
               and (s != "b" or cfg.allow_b_stationary)]
    extras = [(p.key(), rank, p) for rank, (s, d) in enumerate(designs)
              for m in _axis(cfg.M) for n in _axis(cfg.N)
              if (p := _ref_point(cfg, m, n, cfg.K, s, d))]
    if extras:
        challenger = min(extras, key=lambda e: (e[0], e[1]))[2]
        if challenger.wall < best.wall:
            return challenger
    return best


def _summary(choice: L0Choice | RefPoint | None) -> tuple[object, ...] | None:
    if choice is None:
        return None
    return (choice.m, choice.n, choice.k, choice.stationarity, choice.dbc, choice.wall,
            choice.hold, choice.k_blocks, choice.c_load)


def _cfg(M: int, N: int, K: int, dtype: str = "bf16", backend: str = "910B",
         **options: object) -> L0ChooserConfig:
    return L0ChooserConfig.for_dtypes(M, N, K, dtype, get_backend(backend), **options)


# ----------------------------------------------------------------------------- chooser == reference

_dims = st.one_of(st.integers(1, 16).map(lambda i: 16 * i), st.sampled_from([8, 40]))


@given(
    M=_dims, N=_dims, K=st.integers(1, 16).map(lambda i: 16 * i),
    dtype=st.sampled_from(["bf16", "fp32", "int8"]),
    backend=st.sampled_from(["910B", "950"]),
    planner=st.sampled_from(list(MemoryPlanner)),
    allow_k_boundary=st.booleans(), is_matmul_acc=st.booleans(),
    bias_source=st.sampled_from(list(BiasSource)),
    box_align_m=st.sampled_from([1, 16, 32]), box_align_n=st.sampled_from([1, 8, 32]),
    allow_a=st.booleans(), allow_b=st.booleans(),
)
def test_chooser_matches_brute_force(
    M: int, N: int, K: int, dtype: str, backend: str, planner: MemoryPlanner,
    allow_k_boundary: bool, is_matmul_acc: bool, bias_source: BiasSource, box_align_m: int,
    box_align_n: int, allow_a: bool, allow_b: bool,
) -> None:
    cfg = _cfg(M, N, K, dtype, backend, planner=planner, allow_k_boundary=allow_k_boundary,
               is_matmul_acc=is_matmul_acc, bias_source=bias_source, box_align_m=box_align_m,
               box_align_n=box_align_n, allow_a_stationary=allow_a, allow_b_stationary=allow_b)
    assert _summary(choose_l0_tile(cfg)) == _summary(reference_choose(cfg))


@pytest.mark.parametrize("shape", [(128, 512, 64), (512, 512, 128), (320, 320, 320), (64, 1024, 256)])
@pytest.mark.parametrize("dtype", ["bf16", "fp32", "int8"])
@pytest.mark.parametrize("backend", ["910B", "950"])
def test_design_space_shapes_match_brute_force(shape: tuple[int, int, int], dtype: str,
                                               backend: str) -> None:
    cfg = _cfg(*shape, dtype, backend, planner=MemoryPlanner.PTOAS, allow_k_boundary=True)
    assert _summary(choose_l0_tile(cfg)) == _summary(reference_choose(cfg))


# ----------------------------------------------------------------------------- spec examples

def test_spec_examples() -> None:
    # "M = N = 128, K = 256 ... chooser picks m = 128, n = 128, k = 64" (FP32 operands).
    c = choose_l0_tile(_cfg(128, 128, 256, "fp32"))
    assert c is not None and (c.m, c.n, c.k) == (128, 128, 64)
    # "320×320 lands an aligned (160,128,64) instead of the drain-bound 160×80".
    c = choose_l0_tile(_cfg(320, 320, 64, "bf16", allow_k_boundary=True))
    assert c is not None and (c.m, c.n, c.k) == (160, 128, 64)
    # Issue #2232: INT32 [16, 1152] is 144 KiB physically on 910B (32 rows), so N is split.
    c = choose_l0_tile(_cfg(16, 1152, 512, "int8", allow_k_boundary=True))
    assert c is not None and c.m == 16 and c.n < 1152


# ----------------------------------------------------------------------------- tie-break

def test_tie_break_prefers_larger_k_then_divisor_when_peel_disallowed() -> None:
    # K=320: k=96 (3 blocks + 32 tail) and k=80 (4 blocks) tie on wall, padded volume, ceil(K/k)
    # and C_load; -k then prefers 96. Without the peel only divisors are legal.
    cfg = _cfg(320, 320, 320, allow_k_boundary=True)
    pts = {k: _ref_point(cfg, 160, 128, k, "output", 1) for k in (80, 96)}
    p80, p96 = pts[80], pts[96]
    assert p80 is not None and p96 is not None
    assert p80.key()[:5] == p96.key()[:5]
    c = choose_l0_tile(cfg)
    assert c is not None and (c.m, c.n, c.k) == (160, 128, 96)
    c = choose_l0_tile(_cfg(320, 320, 320, allow_k_boundary=False))
    assert c is not None and (c.m, c.n, c.k) == (160, 128, 80)


def test_tie_break_order_among_equal_walls() -> None:
    cfg = _cfg(320, 320, 320, allow_k_boundary=True)
    pts = [p for m in _axis(320) for n in _axis(320) for k in range(16, 321, 16)
           if (p := _ref_point(cfg, m, n, k, "output", 1))]
    best_wall = min(p.wall for p in pts)
    tied = [p for p in pts if p.wall == best_wall]
    assert len(tied) > 1
    winner = min(tied, key=RefPoint.key)
    c = choose_l0_tile(cfg)
    assert c is not None and (c.m, c.n, c.k) == (winner.m, winner.n, winner.k)


# ----------------------------------------------------------------------------- design-point gates

def test_stationary_dbc2_taken_when_strictly_better() -> None:
    cfg = _cfg(128, 512, 64, planner=MemoryPlanner.PTOAS)
    c = choose_l0_tile(cfg)
    base = reference_choose(_cfg(128, 512, 64, planner=MemoryPlanner.PYPTO,
                                 allow_a_stationary=False, allow_b_stationary=False))
    assert c is not None and base is not None
    assert (c.stationarity, c.dbc, c.hold, c.k) == ("b", 2, "b", 64)
    assert c.wall < base.wall and base.stationarity == "output"


def test_dbc2_gated_by_planner_and_opt_in() -> None:
    c = choose_l0_tile(_cfg(128, 512, 64, planner=MemoryPlanner.PYPTO))
    assert c is not None and c.dbc == 1
    c = choose_l0_tile(_cfg(128, 512, 64, planner=MemoryPlanner.PYPTO,
                            enable_pypto_l0c_double_buffer=True))
    assert c is not None and c.dbc == 2
    c = choose_l0_tile(_cfg(128, 512, 64, planner=MemoryPlanner.DSA_RP,
                            allow_b_stationary=False))
    assert c is not None and c.stationarity != "b"


def test_no_extra_design_points_when_output_fits_one_tile() -> None:
    # (m, n) == (M, N): nothing tiles, so stationarity and dbC=2 are never searched.
    c = choose_l0_tile(_cfg(128, 128, 256, planner=MemoryPlanner.PTOAS))
    assert c is not None and (c.m, c.n) == (128, 128)
    assert (c.stationarity, c.dbc) == ("output", 1)


def test_dbc2_needs_two_full_moving_tiles() -> None:
    for M, N, K, dtype, backend in [(128, 512, 64, "bf16", "910B"), (256, 512, 128, "bf16", "950"),
                                    (64, 1024, 256, "fp32", "910B"), (512, 512, 128, "int8", "950")]:
        c = choose_l0_tile(_cfg(M, N, K, dtype, backend, planner=MemoryPlanner.PTOAS))
        assert c is not None
        if c.dbc == 2:
            assert c.k == K
            moving_full = N // c.n if c.hold == "a" else M // c.m
            assert moving_full >= 2


# ----------------------------------------------------------------------------- legality

@given(M=st.integers(1, 64).map(lambda i: 16 * i), N=st.integers(1, 64).map(lambda i: 16 * i),
       K=st.integers(1, 64).map(lambda i: 16 * i), dtype=st.sampled_from(["bf16", "fp32", "int8"]),
       backend=st.sampled_from(["910B", "950"]), planner=st.sampled_from(list(MemoryPlanner)),
       allow_k_boundary=st.booleans())
def test_choice_respects_budgets(M: int, N: int, K: int, dtype: str, backend: str,
                                 planner: MemoryPlanner, allow_k_boundary: bool) -> None:
    cfg = _cfg(M, N, K, dtype, backend, planner=planner, allow_k_boundary=allow_k_boundary)
    h = cfg.backend
    c = choose_l0_tile(cfg)
    assert c is not None
    assert c.m % 16 == c.n % 16 == c.k % 16 == 0 and c.m <= M and c.n <= N and c.k <= K
    dba = 1 if c.stationarity == "a" else 2
    dbb = 1 if c.stationarity == "b" else 2
    assert c.m * c.k * cfg.bytes_a * dba <= h.l0a_capacity_bytes
    assert c.n * c.k * cfg.bytes_b * dbb <= h.l0b_capacity_bytes
    assert _up(c.m, cfg.l0c_align_m) * c.n * cfg.bytes_c * c.dbc <= h.l0c_capacity_bytes
    assert allow_k_boundary or K % c.k == 0
    assert c.stationarity == "output" or c.k == K


def test_int32_accumulator_rows_align_to_32_on_910b() -> None:
    assert _cfg(16, 1152, 64, "int8", "910B").l0c_align_m == 32
    assert _cfg(16, 1152, 64, "bf16", "910B").l0c_align_m == 16
    assert _cfg(16, 1152, 64, "int8", "950").l0c_align_m == 16
    # 32 physical rows x 1024 x 4 B = 128 KiB fills the 910B L0C exactly; 1152 would not fit.
    c = choose_l0_tile(_cfg(16, 1152, 64, "int8", "910B"))
    assert c is not None and 32 * c.n * 4 <= 131072
    narrow = _cfg(16, 1152, 64, "int8", "910B")
    assert _ref_point(narrow, 16, 1152, 16, "output", 1) is None  # 147456 B > 131072 B
    assert _ref_point(narrow, 16, 1024, 16, "output", 1) is not None


def test_bias_table_caps_n() -> None:
    plain = choose_l0_tile(_cfg(64, 1024, 64, "bf16", "910B"))
    biased = choose_l0_tile(_cfg(64, 1024, 64, "bf16", "910B", bias_source=BiasSource.BIAS_TABLE))
    assert plain is not None and biased is not None
    assert biased.n * 4 <= 1024 < plain.n * 4


def test_box_alignment_charges_padded_panels() -> None:
    # An L0B panel of n=48 boxed to 64 columns costs 64 columns of budget.
    cfg = _cfg(64, 48, 1024, "bf16", "910B", box_align_n=64, allow_k_boundary=True)
    c = choose_l0_tile(cfg)
    assert c is not None and 64 * c.k * 2 * 2 <= 65536
    assert _summary(c) == _summary(reference_choose(cfg))


def test_non_16_aligned_k_has_no_candidate() -> None:
    cfg = _cfg(128, 128, 100)
    assert choose_l0_tile(cfg) is None
    assert explain_rejection(cfg).startswith("PH-AT-007")


def test_k_boundary_peel_allowed_vs_not() -> None:
    # K = 16 * 37: the only divisors are 16 and 592, and 592 exceeds L0A for m >= 32.
    peel = choose_l0_tile(_cfg(256, 256, 592, allow_k_boundary=True))
    strict = choose_l0_tile(_cfg(256, 256, 592, allow_k_boundary=False))
    assert peel is not None and strict is not None
    assert 592 % peel.k != 0 and peel.k > 16
    assert strict.k in (16, 592)
    assert peel.wall < strict.wall


def test_unaligned_output_axis_is_a_flagged_fallback() -> None:
    c = choose_l0_tile(_cfg(128, 8, 64, "fp32"))
    assert c is not None and c.n == 8 and c.perf_hint is not None
    assert c.perf_hint.startswith("PH-AT-008")


def test_rejection_names_budgets() -> None:
    tiny = L0ChooserConfig(M=16, N=16, K=16, bytes_a=4, bytes_b=4, bytes_c=4,
                           backend=_tiny_backend(), l0c_align_m=16)
    assert choose_l0_tile(tiny) is None
    msg = explain_rejection(tiny)
    assert msg.startswith("PH-AT-005") and "L0A 2048 B (have 1024)" in msg


def _tiny_backend() -> BackendHandler:
    from dataclasses import replace
    return replace(ASCEND_910B, name="tiny", l0a_capacity_bytes=1024)


def test_config_rejects_nonpositive_fields() -> None:
    with pytest.raises(ValueError, match="M must be a positive int"):
        _cfg(0, 16, 16)


def test_fast_for_large_shapes() -> None:
    uncached = choose_l0_tile.__wrapped__
    for dtype in ("bf16", "int8"):
        cfg = _cfg(4096, 4096, 4096, dtype, "950", planner=MemoryPlanner.PTOAS,
                   allow_k_boundary=True)
        start = time.perf_counter()
        assert uncached(cfg) is not None
        assert time.perf_counter() - start < 0.25  # target 50 ms; slack for loaded CI cores


# ----------------------------------------------------------------------------- CLI

def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "backend.targets.l0_chooser", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=60)


def test_cli_prints_one_line() -> None:
    result = _cli("128", "512", "64", "--planner", "ptoas", "--backend", "a2a3")
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    assert re.fullmatch(r"m=\d+ n=\d+ k=\d+ stationarity=(output|a|b) dbc=[12] wall=\d+", lines[0])
    c = choose_l0_tile(_cfg(128, 512, 64, planner=MemoryPlanner.PTOAS, allow_k_boundary=True))
    assert c is not None
    assert lines[0] == (f"m={c.m} n={c.n} k={c.k} stationarity={c.stationarity} dbc={c.dbc} "
                        f"wall={c.wall}")


def test_cli_rejection_and_bad_arguments() -> None:
    result = _cli("128", "128", "100")
    assert result.returncode == 1 and result.stdout.startswith("PH-AT-007")
    for bad in (["12x", "1", "1"], ["16", "16", "16", "--backend", "Ascend310"],
                ["16", "16", "16", "--in-dtype", "fp64"], ["16", "16"]):
        result = _cli(*bad)
        assert result.returncode == 2
        assert "Traceback" not in result.stderr and "error:" in result.stderr


# ----------------------------------------------------------------------------- handler facts

def test_handler_capacities() -> None:
    b, a5 = ASCEND_910B, ASCEND_950
    assert (b.name, b.arch, a5.name, a5.arch) == ("Ascend910B", "a2a3", "Ascend950", "a5")
    expected = {
        MemorySpace.Left: (65536, 65536), MemorySpace.Right: (65536, 65536),
        MemorySpace.Acc: (131072, 262144), MemorySpace.Bias: (1024, 4096),
        MemorySpace.Mat: (524288, 524288), MemorySpace.Vec: (188416, 245760),
    }
    for space, (cap_b, cap_a5) in expected.items():
        assert (b.capacity(space), a5.capacity(space)) == (cap_b, cap_a5)
    aligns = {MemorySpace.Mat: 128, MemorySpace.Left: 64, MemorySpace.Right: 64,
              MemorySpace.Acc: 128, MemorySpace.Bias: 64, MemorySpace.Vec: 128}
    for space, align in aligns.items():
        assert b.alignment(space) == a5.alignment(space) == align
    with pytest.raises(ValueError, match="DDR"):
        b.capacity(MemorySpace.DDR)
    assert b.l0_fractal_alignment == b.min_l0_tile_dim == 16
    assert (b.l0c_m_alignment("INT32"), b.l0c_m_alignment("FP32")) == (32, 16)
    assert (a5.l0c_m_alignment("INT32"), a5.l0c_m_alignment("FP32")) == (16, 16)
    assert b.needs_low_precision_mat_scratch and not a5.needs_low_precision_mat_scratch
    assert b.l0_cost_model.bw_l0b == 85.4 and a5.l0_cost_model.mad_fp32_passes == 8


def test_handler_moves_and_dtype_tables() -> None:
    D, V, M, L, R, A, B = (MemorySpace.DDR, MemorySpace.Vec, MemorySpace.Mat, MemorySpace.Left,
                           MemorySpace.Right, MemorySpace.Acc, MemorySpace.Bias)
    common = {(D, V), (D, M), (V, V), (V, D), (M, L), (M, R), (M, B), (A, M), (A, D)}
    assert ASCEND_910B.allowed_moves == common
    assert ASCEND_950.allowed_moves == common | {(V, M), (A, V)}
    assert not ASCEND_910B.can_move(V, M) and ASCEND_950.can_move(V, M)
    assert not ASCEND_910B.can_move(A, V) and ASCEND_950.can_move(A, V)
    assert not ASCEND_950.can_move(L, A)
    for h in (ASCEND_910B, ASCEND_950):
        assert all(h.supports_acc_store_dtype(d) for d in ("INT32", "FP32", "FP16", "BF16"))
        assert not h.supports_acc_store_dtype("INT8")
        assert h.supports_mat_to_bias_move("FP16", "FP32")
        assert not h.supports_mat_to_bias_move("FP16", "FP16")
    assert not ASCEND_910B.supports_mat_to_bias_move("BF16", "FP32")
    assert ASCEND_950.supports_mat_to_bias_move("BF16", "FP32")


@pytest.mark.parametrize("alias,name", [("Ascend910B", "Ascend910B"), ("910b", "Ascend910B"),
                                        ("A2A3", "Ascend910B"), ("ascend950", "Ascend950"),
                                        ("950", "Ascend950"), ("a5", "Ascend950")])
def test_get_backend_aliases(alias: str, name: str) -> None:
    assert get_backend(alias).name == name


def test_get_backend_unknown_lists_names() -> None:
    with pytest.raises(ValueError, match="known backends: Ascend910B.*Ascend950"):
        get_backend("Ascend310")
    assert get_backend(DEFAULT_BACKEND) is ASCEND_910B


def test_memory_space_names_and_byte_widths() -> None:
    assert [s.value for s in MemorySpace] == list(range(7))
    assert [s.pto_name for s in MemorySpace] == ["gm", "vec", "mat", "left", "right", "acc", "bias"]
    assert MemorySpace.DDR.pl_name == "DDR" and MemorySpace.Acc.pl_name == "Acc"
    widths = [dtype_byte_width(d) for d in ("FP32", "bf16", "INT8", "INT4", "INDEX", "FP8E8M0")]
    assert widths == [4, 2, 1, 1, 8, 1]
    with pytest.raises(ValueError, match="unknown dtype"):
        dtype_byte_width("FP128")


def test_box_align_k_keeps_int8_k_blocks_whole_boxes() -> None:
    # INT8 boxes are 32 elements wide: a 16-wide K block would not be a whole box on L0A/L0B.
    base = L0ChooserConfig.for_dtypes(16, 1152, 128, "int8", get_backend("Ascend950"), allow_k_boundary=True)
    unaligned = choose_l0_tile(base)
    aligned = choose_l0_tile(replace(base, box_align_k=32))
    assert unaligned is not None and aligned is not None
    assert unaligned.k % 32 != 0  # what the fractal alone allows
    assert aligned.k % 32 == 0


def test_the_pass_asks_for_whole_k_boxes() -> None:
    from languages.types import DataType
    from passes.analysis.matmul_tiling import MatmulDims, chooser_config

    def dims(bytes_ab: int) -> MatmulDims:
        return MatmulDims(M=16, N=1152, K=128, valid_m=16, valid_n=1152, bytes_a=bytes_ab, bytes_b=bytes_ab,
                          acc_dtype=DataType.INT32 if bytes_ab == 1 else DataType.FP32)

    backend = get_backend("Ascend950")
    assert chooser_config(dims(1), backend, False).box_align_k == 32
    assert chooser_config(dims(2), backend, False).box_align_k == 16
