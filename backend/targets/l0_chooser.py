"""ChooseL0Tile: exhaustive roofline search for the L0 GEMM tile (spec auto_tile_matmul_l0.md).

For every legal fractal-aligned (m, n, k) and design point (stationarity, dbC) the model
estimates wall-clock cycles from L1->L0 operand loads, cube MADs and the FIXPIPE drain
(formulas: TARGET_FACTS.md "Chooser formulas, exactly") and returns the minimum. The search is
vectorised over all candidates with numpy so it is cheap enough to run per matmul.

CLI: ``python -m backend.targets.l0_chooser M N K [--in-dtype bf16] [--backend Ascend910B] [--planner pypto]``
"""

from __future__ import annotations

import argparse
import enum
import functools
import sys
from dataclasses import dataclass, replace
from typing import Literal, Sequence

import numpy as np
import numpy.typing as npt

from backend.targets.handlers import DEFAULT_BACKEND, KNOWN_BACKEND_NAMES, BackendHandler, get_backend

Stationarity = Literal["output", "a", "b"]
Hold = Literal["a", "b"]
IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


class MemoryPlanner(enum.Enum):
    """Who assigns on-chip addresses; decides whether the dbC=2 design point is realizable."""

    PYPTO = "pypto"
    DSA_RP = "dsa_rp"
    PTOAS = "ptoas"


class BiasSource(enum.Enum):
    """Where a tile.matmul_bias bias row comes from (NONE for plain / accumulating matmul)."""

    NONE = "none"
    MAT = "mat"  # Mat-resident [1, N] load, reconstructed per N window inside an output grid
    BIAS_TABLE = "bias_table"  # already Bias-resident, defined outside the grid: one slot


@dataclass(frozen=True, slots=True)
class L0ChooserConfig:
    """Inputs of ChooseL0Tile; hashable so results are cached per distinct matmul."""

    M: int
    N: int
    K: int
    bytes_a: int
    bytes_b: int
    bytes_c: int
    backend: BackendHandler
    l0c_align_m: int
    box_align_m: int = 1
    box_align_n: int = 1
    # K-block granularity from the operands' boxes: an L0A/L0B tile's K extent must be a whole
    # number of 32-byte box columns (32 for INT8 on both operands), not only of the 16-wide fractal.
    box_align_k: int = 1
    allow_k_boundary: bool = False
    is_matmul_acc: bool = False
    bias_source: BiasSource = BiasSource.NONE
    planner: MemoryPlanner = MemoryPlanner.PYPTO
    allow_a_stationary: bool = True
    allow_b_stationary: bool = True
    enable_pypto_l0c_double_buffer: bool = False

    def __post_init__(self) -> None:
        for field_name in ("M", "N", "K", "bytes_a", "bytes_b", "bytes_c", "l0c_align_m",
                           "box_align_m", "box_align_n", "box_align_k"):
            value = getattr(self, field_name)
            if not isinstance(value, int) or value <= 0:
                raise ValueError(f"L0ChooserConfig.{field_name} must be a positive int, got {value!r}")

    @property
    def allow_double_buffer_c(self) -> bool:
        # Spec: dbC=2 "is enabled unconditionally for memory_planner=DSA_RP and
        # memory_planner=PTOAS"; the legacy PYPTO planner keeps it behind an opt-in (#1908).
        return self.planner is not MemoryPlanner.PYPTO or self.enable_pypto_l0c_double_buffer

    @staticmethod
    def for_dtypes(M: int, N: int, K: int, in_dtype: str, backend: BackendHandler,
                   **options: object) -> L0ChooserConfig:
        """Config for a cube matmul of `in_dtype` operands with the cube's natural accumulator."""
        bytes_in, acc_dtype = _CLI_IN_DTYPES[in_dtype.lower()]
        return L0ChooserConfig(
            M=M, N=N, K=K, bytes_a=bytes_in, bytes_b=bytes_in, bytes_c=4, backend=backend,
            l0c_align_m=backend.l0c_m_alignment(acc_dtype), **options,  # type: ignore[arg-type]
        )


@dataclass(frozen=True, slots=True)
class L0Choice:
    """The chosen L0 tile and design point with its modelled cost (cycles)."""

    m: int
    n: int
    k: int
    stationarity: Stationarity
    dbc: int
    wall: int
    # Operand whose [m, K] / [K, n] panel a full-K output grid keeps across the inner moving
    # loop (rows outer for "a", columns outer for "b"); None when split-K.
    hold: Hold | None
    padded_volume: int
    k_blocks: int
    c_load: float
    c_mad: float
    c_drain: float
    # Reported accumulator traffic (bytes): doubled by c_read = is_matmul_acc, never in the wall.
    c_traffic_bytes: int = 0
    perf_hint: str | None = None  # PH-AT-008: an axis smaller than one fractal, kept whole


# --------------------------------------------------------------------------- design points

@dataclass(frozen=True, slots=True)
class _Design:
    stationarity: Stationarity
    dbc: int

    @property
    def db_a(self) -> int:
        return 1 if self.stationarity == "a" else 2

    @property
    def db_b(self) -> int:
        return 1 if self.stationarity == "b" else 2


_BASE_DESIGN = _Design("output", 1)
# TARGET_FACTS "How PyPTO's ChooseL0Tile searches" point 4: the extra regimes are tried in this
# fixed order, each replacing the running best only with a strictly lower wall.
_EXTRA_DESIGNS = (
    _Design("output", 2), _Design("a", 1), _Design("a", 2), _Design("b", 1), _Design("b", 2),
)


def _bias_slots(cfg: L0ChooserConfig, stationarity: Stationarity, hold_a: BoolArray) -> IntArray:
    """Bias-table windows co-live in a full-K output grid (spec: schedule-aware caps).

    B-stationary keeps one slot, A-stationary and output-stationary with N outer use two,
    output-stationary with N in the inner pipeline (it holds A: rows outer) composes both
    pipelines and uses four. An already Bias-resident source is one slot whatever the schedule.
    """
    ones = np.ones(hold_a.shape, dtype=np.int64)
    if cfg.bias_source is not BiasSource.MAT or stationarity == "b":
        return ones
    if stationarity == "a":
        return 2 * ones
    return np.where(hold_a, 4, 2).astype(np.int64)


# --------------------------------------------------------------------------- candidates

@dataclass(frozen=True, slots=True)
class _Candidates:
    m: IntArray
    n: IntArray
    k: IntArray


def _axis_extents(extent: int, align: int) -> IntArray:
    """Tile sizes along one output axis: the aligned values up to the extent.

    An unaligned extent is never itself a candidate (PyPTO runs with allow_padding = false): the
    largest aligned value below it tiles the axis and a boundary tile takes the rest. Only an
    extent smaller than one fractal has no aligned value; it stays whole (PH-AT-008 fallback).
    """
    if extent < align:
        return np.asarray([extent], dtype=np.int64)
    return np.arange(align, extent + 1, align, dtype=np.int64)


def _align_up(x: IntArray, align: int) -> IntArray:
    return ((x + align - 1) // align) * align


def _physical_rows(cfg: L0ChooserConfig, m: IntArray) -> IntArray:
    frac = cfg.backend.l0_fractal_alignment
    return _align_up(_align_up(m, cfg.box_align_m), frac)


def _physical_cols(cfg: L0ChooserConfig, n: IntArray) -> IntArray:
    frac = cfg.backend.l0_fractal_alignment
    return _align_up(_align_up(n, cfg.box_align_n), frac)


def _legal_candidates(cfg: L0ChooserConfig, design: _Design, full_k_only: bool) -> _Candidates:
    handler = cfg.backend
    frac = handler.l0_fractal_alignment
    a_elems = handler.l0a_capacity_bytes // (cfg.bytes_a * design.db_a)
    b_elems = handler.l0b_capacity_bytes // (cfg.bytes_b * design.db_b)
    c_bytes = handler.l0c_capacity_bytes
    m_axis = _axis_extents(cfg.M, frac)
    n_axis = _axis_extents(cfg.N, frac)
    # k >= frac, so an axis extent whose smallest panel overflows its L0 buffer is never legal.
    m_axis = m_axis[_physical_rows(cfg, m_axis) * frac <= a_elems]
    n_axis = n_axis[_physical_cols(cfg, n_axis) * frac <= b_elems]
    m_grid, n_grid = (g.ravel() for g in np.meshgrid(m_axis, n_axis, indexing="ij"))
    m_phys = _physical_rows(cfg, m_grid)
    n_phys = _physical_cols(cfg, n_grid)
    acc_rows = _align_up(m_phys, cfg.l0c_align_m)
    fits_c = acc_rows * n_phys * cfg.bytes_c * design.dbc <= c_bytes
    m_grid, n_grid, m_phys, n_phys = m_grid[fits_c], n_grid[fits_c], m_phys[fits_c], n_phys[fits_c]
    k_max = np.minimum(np.minimum(a_elems // m_phys, b_elems // n_phys), cfg.K)
    if full_k_only:
        keep = k_max >= cfg.K
        k = np.full(int(keep.sum()), cfg.K, dtype=np.int64)
        return _Candidates(m_grid[keep], n_grid[keep], k)
    k_counts = k_max // frac
    total = int(k_counts.sum())
    starts = np.cumsum(k_counts) - k_counts
    k = (np.arange(total, dtype=np.int64) - np.repeat(starts, k_counts) + 1) * frac
    m_rep, n_rep = np.repeat(m_grid, k_counts), np.repeat(n_grid, k_counts)
    if cfg.box_align_k > 1:
        whole_boxes = k % cfg.box_align_k == 0
        m_rep, n_rep, k = m_rep[whole_boxes], n_rep[whole_boxes], k[whole_boxes]
    if not cfg.allow_k_boundary:
        divides = cfg.K % k == 0
        m_rep, n_rep, k = m_rep[divides], n_rep[divides], k[divides]
    return _Candidates(m_rep, n_rep, k)


# --------------------------------------------------------------------------- cost model

@dataclass(frozen=True, slots=True)
class _Scores:
    m: IntArray
    n: IntArray
    k: IntArray
    wall: IntArray
    padded_volume: IntArray
    k_blocks: IntArray
    c_load: FloatArray
    c_mad: FloatArray
    c_drain: FloatArray
    hold: npt.NDArray[np.int8]  # 0: split-K (no hold), 1: hold A, 2: hold B


def _ceil_div(x: IntArray | int, y: IntArray | int) -> IntArray:
    return np.asarray(-(-np.asarray(x) // y), dtype=np.int64)


def _odd_part(x: IntArray) -> IntArray:
    """x with every factor of 2 removed (FIXPIPE serializes the odd part of N1 into passes)."""
    return x // (x & -x)


def _score(cfg: L0ChooserConfig, design: _Design, cand: _Candidates) -> _Scores:
    cost = cfg.backend.l0_cost_model
    frac = cfg.backend.l0_fractal_alignment
    m, n, k = cand.m, cand.n, cand.k
    tiles_m, tiles_n = _ceil_div(cfg.M, m), _ceil_div(cfg.N, n)
    tiles = tiles_m * tiles_n
    k_blocks = _ceil_div(cfg.K, k)
    kt = cost.k_fractal(cfg.bytes_a)
    full_blocks = cfg.K // k
    k_fractals = full_blocks * _ceil_div(k, kt) + _ceil_div(cfg.K - full_blocks * k, kt)

    c_mad = tiles * (k_blocks * cost.mad_head_cycles
                     + cost.cycles_per_row(cfg.bytes_a)
                     * (_ceil_div(m, frac) * k_fractals * _ceil_div(n, frac)))

    c_load, hold, admissible = _load_by_orientation(cfg, design, cand, tiles_m, tiles_n)

    # No gamma_C term: c_read (is_matmul_acc) changes only the reported traffic, never the
    # wall (TARGET_FACTS "How PyPTO's ChooseL0Tile searches", point 6).
    n_fractals = _ceil_div(n, cost.drain_c0(cfg.bytes_c))
    per_row = (np.maximum(cost.drain_row_cycles, cfg.bytes_c * n / cost.bw_drain)
               + cost.drain_penalty_cycles * (_odd_part(n_fractals) - 1))
    c_drain = tiles * (cost.drain_fixed_cycles + m * per_row)

    compute = np.maximum(c_load, c_mad)
    if design.dbc == 1:
        wall = compute + c_drain
    else:
        wall = np.maximum(compute, c_drain) + np.minimum(compute, c_drain) / tiles
    keep = admissible
    wall_int = np.floor(wall[keep] + 0.5).astype(np.int64)  # rounded half up
    # The tie-break's K factor is whole k blocks: a peeled tail is charged a full block here
    # (point 2), although C_mad charges it at its own width.
    padded = (tiles_m * m) * (tiles_n * n) * (k_blocks * k)
    return _Scores(m[keep], n[keep], k[keep], wall_int, padded[keep], k_blocks[keep],
                   c_load[keep], c_mad[keep].astype(np.float64), c_drain[keep], hold[keep])


def _load_by_orientation(
    cfg: L0ChooserConfig, design: _Design, cand: _Candidates, tiles_m: IntArray, tiles_n: IntArray,
) -> tuple[FloatArray, npt.NDArray[np.int8], BoolArray]:
    """C_load, the held operand and admissibility per candidate.

    Split-K reloads both operands per output tile. Full-K holds one operand's panel across the
    inner loop: A- / B-stationary hold their own operand; output-stationary has exactly one
    orientation, holding A iff held-A <= held-B (point 5). The dbC = 2 and bias-slot rules are
    judged under that one orientation; a point failing them is rejected, not re-oriented.
    """
    cost = cfg.backend.l0_cost_model
    a_bytes, b_bytes = cfg.bytes_a * cfg.M * cfg.K, cfg.bytes_b * cfg.K * cfg.N
    load_split = a_bytes * tiles_n / cost.bw_l0a + b_bytes * tiles_m / cost.bw_l0b
    load_hold_a = a_bytes / cost.bw_l0a + b_bytes * tiles_m / cost.bw_l0b
    load_hold_b = a_bytes * tiles_n / cost.bw_l0a + b_bytes / cost.bw_l0b

    full_k = cand.k == cfg.K
    if design.stationarity == "output":
        hold_a = load_hold_a <= load_hold_b
    else:
        hold_a = np.full(cand.k.shape, design.stationarity == "a")
    held_load = np.where(hold_a, load_hold_a, load_hold_b)
    # The moving inner axis: N when A is held (rows outer), M when B is held (columns outer).
    moving_full_tiles = np.where(hold_a, cfg.N // cand.n, cfg.M // cand.m)
    grid = full_k & (tiles_m * tiles_n > 1)
    slots = np.where(grid, _bias_slots(cfg, design.stationarity, hold_a), 1)

    ok = np.ones(cand.k.shape, dtype=np.bool_)
    if cfg.bias_source is not BiasSource.NONE:
        ok &= cand.n * cfg.bytes_c * slots <= cfg.backend.bias_capacity_bytes
    if design.dbc == 2:
        # dbC = 2 needs two full tiles on the moving inner axis; a peeled partial boundary
        # is not a ping-pong stage.
        ok &= moving_full_tiles >= 2
    if design != _BASE_DESIGN:
        ok &= full_k
    c_load = np.where(full_k, held_load, load_split)
    hold_code = np.where(full_k, np.where(hold_a, 1, 2), 0).astype(np.int8)
    return c_load, hold_code, ok


# --------------------------------------------------------------------------- selection

_HOLD_NAMES: dict[int, Hold | None] = {0: None, 1: "a", 2: "b"}


def _best(cfg: L0ChooserConfig, design: _Design, full_k_only: bool) -> L0Choice | None:
    """The best point of one regime, ordered by (wall, padded volume, ⌈K/k⌉, C_load, -m·n, -k)."""
    scores = _score(cfg, design, _legal_candidates(cfg, design, full_k_only))
    if scores.wall.size == 0:
        return None
    mn = scores.m * scores.n
    # The key stops at -k; a remaining exact tie takes the smaller m, then the smaller n, as an
    # ascending enumeration keeping the first minimum would. lexsort's last key is primary.
    order = np.lexsort((scores.n, scores.m, -scores.k, -mn, scores.c_load, scores.k_blocks,
                        scores.padded_volume, scores.wall))
    i = int(order[0])
    return L0Choice(
        m=int(scores.m[i]), n=int(scores.n[i]), k=int(scores.k[i]),
        stationarity=design.stationarity, dbc=design.dbc, wall=int(scores.wall[i]),
        hold=_HOLD_NAMES[int(scores.hold[i])], padded_volume=int(scores.padded_volume[i]),
        k_blocks=int(scores.k_blocks[i]), c_load=float(scores.c_load[i]),
        c_mad=float(scores.c_mad[i]), c_drain=float(scores.c_drain[i]),
        c_traffic_bytes=_c_traffic_bytes(cfg),
    )


def _c_traffic_bytes(cfg: L0ChooserConfig) -> int:
    """Reported accumulator traffic: every C byte drained once, and read once more when the
    K loop threads a caller's accumulator (c_read = is_matmul_acc). Not part of the wall."""
    return cfg.bytes_c * cfg.M * cfg.N * (2 if cfg.is_matmul_acc else 1)


def _extra_designs(cfg: L0ChooserConfig) -> list[_Design]:
    gates = {"output": True, "a": cfg.allow_a_stationary, "b": cfg.allow_b_stationary}
    return [d for d in _EXTRA_DESIGNS
            if gates[d.stationarity] and (d.dbc == 1 or cfg.allow_double_buffer_c)]


def _fallback_hint(cfg: L0ChooserConfig) -> str | None:
    frac = cfg.backend.l0_fractal_alignment
    small = [f"{axis}={extent}" for axis, extent in (("M", cfg.M), ("N", cfg.N)) if extent < frac]
    if not small:
        return None
    return (f"PH-AT-008: {', '.join(small)} is smaller than the {frac}-element L0 fractal; "
            "that axis is kept whole and padded to the fractal")


@functools.lru_cache(maxsize=4096)
def choose_l0_tile(cfg: L0ChooserConfig) -> L0Choice | None:
    """ChooseL0Tile: the model-optimal L0 tile and design point, or None if nothing is legal.

    TARGET_FACTS "How PyPTO's ChooseL0Tile searches": the output-stationary dbC = 1 optimum over
    every legal (m, n, k) first; unless it is the whole problem, the enabled full-K regimes
    follow in their fixed order, each replacing the running best only with a strictly lower wall.
    """
    if cfg.K % cfg.backend.l0_fractal_alignment:
        return None
    best = _best(cfg, _BASE_DESIGN, full_k_only=False)
    if best is None:
        return None
    if (best.m, best.n, best.k) != (cfg.M, cfg.N, cfg.K):
        for design in _extra_designs(cfg):
            challenger = _best(cfg, design, full_k_only=True)
            if challenger is not None and challenger.wall < best.wall:
                best = challenger
    hint = _fallback_hint(cfg)
    if hint is not None:
        best = replace(best, perf_hint=hint)
    return best


def explain_rejection(cfg: L0ChooserConfig) -> str:
    """One-line PerfHint reason why choose_l0_tile(cfg) returned None."""
    handler = cfg.backend
    frac = handler.l0_fractal_alignment
    if cfg.K % frac:
        return (f"PH-AT-007: K={cfg.K} is not a multiple of the {frac}-element cube fractal; "
                "no fractal-aligned K tiling exists")
    m = int(_physical_rows(cfg, _axis_extents(cfg.M, frac)[:1])[0])
    n = int(_physical_cols(cfg, _axis_extents(cfg.N, frac)[:1])[0])
    acc_rows = -(-m // cfg.l0c_align_m) * cfg.l0c_align_m
    need = (f"smallest tile m={m} n={n} k={frac} needs L0A {m * frac * cfg.bytes_a * 2} B "
            f"(have {handler.l0a_capacity_bytes}), L0B {n * frac * cfg.bytes_b * 2} B "
            f"(have {handler.l0b_capacity_bytes}), L0C {acc_rows * n * cfg.bytes_c} B "
            f"(have {handler.l0c_capacity_bytes})")
    if cfg.bias_source is not BiasSource.NONE:
        need += f", Bias {n * cfg.bytes_c} B (have {handler.bias_capacity_bytes})"
    return f"PH-AT-005: ChooseL0Tile found no legal L0 tile for M={cfg.M} N={cfg.N} K={cfg.K}: {need}"


# --------------------------------------------------------------------------- CLI

# operand bytes and the cube accumulator dtype for each CLI input dtype
_CLI_IN_DTYPES: dict[str, tuple[int, str]] = {
    "bf16": (2, "FP32"), "fp16": (2, "FP32"), "fp32": (4, "FP32"), "int8": (1, "INT32"),
}


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _backend_arg(text: str) -> BackendHandler:
    try:
        return get_backend(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m backend.targets.l0_chooser",
        description="Print the L0 tile ChooseL0Tile picks for an M x N x K cube matmul.")
    parser.add_argument("M", type=_positive_int)
    parser.add_argument("N", type=_positive_int)
    parser.add_argument("K", type=_positive_int)
    parser.add_argument("--in-dtype", choices=sorted(_CLI_IN_DTYPES), default="bf16")
    parser.add_argument("--backend", type=_backend_arg, default=DEFAULT_BACKEND,
                        metavar="|".join(KNOWN_BACKEND_NAMES))
    parser.add_argument("--planner", choices=[p.value for p in MemoryPlanner],
                        default=MemoryPlanner.PYPTO.value)
    parser.add_argument("--no-k-boundary", action="store_true",
                        help="require k to divide K (no peeled K tail)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    cfg = L0ChooserConfig.for_dtypes(
        args.M, args.N, args.K, args.in_dtype, args.backend,
        allow_k_boundary=not args.no_k_boundary, planner=MemoryPlanner(args.planner))
    choice = choose_l0_tile(cfg)
    if choice is None:
        print(explain_rejection(cfg))
        return 1
    print(f"m={choice.m} n={choice.n} k={choice.k} stationarity={choice.stationarity} "
          f"dbc={choice.dbc} wall={choice.wall}")
    if choice.perf_hint:
        print(choice.perf_hint, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
