"""Planning for AutoTileMatmulL0: L0 footprints, the chooser call and the K / M-N tiling plan.

Pure arithmetic on shapes and backend numbers, no IR: the pass (passes/auto_tile_matmul_l0.py)
turns a plan into statements. Spec: ../shared/spec/auto_tile_matmul_l0.md.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from backend.targets.handlers import BackendHandler
from backend.targets.l0_chooser import BiasSource, L0Choice, L0ChooserConfig, MemoryPlanner, choose_l0_tile
from languages.types import DataType, TileType


def align_up(value: int, align: int) -> int:
    return -(-value // align) * align


def is_sub_byte(dtype: DataType) -> bool:
    """The cube path has no sub-byte operand formats (INT4, FP4, ...)."""
    return dtype.bits < 8


@dataclass(frozen=True, slots=True)
class MatmulDims:
    """Physical M, N, K of a 2-D matmul and the logical (valid) M and N."""

    M: int
    N: int
    K: int
    valid_m: int
    valid_n: int
    bytes_a: int
    bytes_b: int
    acc_dtype: DataType

    @staticmethod
    def of(lhs: TileType, rhs: TileType, acc_dtype: DataType) -> MatmulDims:
        return MatmulDims(
            M=lhs.shape[0], N=rhs.shape[1], K=lhs.shape[1],
            valid_m=lhs.valid[0], valid_n=rhs.valid[1],
            bytes_a=lhs.dtype.byte_width, bytes_b=rhs.dtype.byte_width, acc_dtype=acc_dtype,
        )


@dataclass(frozen=True, slots=True)
class ChooserGates:
    """The pipeline-wide settings AutoTileMatmulL0 configures ChooseL0Tile with (TARGET_FACTS
    "How PyPTO's ChooseL0Tile searches", points 6 and 7): the memory planner decides whether a
    double-buffered accumulator (dbC = 2) is realizable; PYPTO keeps it behind an opt-in."""

    planner: MemoryPlanner = MemoryPlanner.PYPTO
    enable_pypto_l0c_double_buffer: bool = False


def chooser_config(dims: MatmulDims, backend: BackendHandler, is_matmul_acc: bool,
                   gates: ChooserGates = ChooserGates(),
                   bias_source: BiasSource = BiasSource.NONE) -> L0ChooserConfig:
    """ChooseL0Tile inputs for one matmul, with the gates the pass sets: the pass peels a K
    boundary, so a non-divisor k is allowed; A- and B-stationary are open; dbC per planner."""
    return L0ChooserConfig(
        M=dims.M, N=dims.N, K=dims.K,
        bytes_a=dims.bytes_a, bytes_b=dims.bytes_b, bytes_c=dims.acc_dtype.byte_width,
        backend=backend, l0c_align_m=backend.l0c_m_alignment(dims.acc_dtype.name),
        box_align_k=k_box_alignment(dims),
        allow_k_boundary=True, is_matmul_acc=is_matmul_acc, bias_source=bias_source,
        planner=gates.planner, enable_pypto_l0c_double_buffer=gates.enable_pypto_l0c_double_buffer,
    )


# A fractal box row is 32 bytes wide, so K (the columns of Left, the rows of Right) must be a
# whole number of 32-byte boxes: 32 elements for INT8, which the 16-element fractal does not imply.
_BOX_ROW_BYTES = 32


def k_box_alignment(dims: MatmulDims) -> int:
    return max(_BOX_ROW_BYTES // dims.bytes_a, _BOX_ROW_BYTES // dims.bytes_b, 1)


def choose(dims: MatmulDims, backend: BackendHandler, is_matmul_acc: bool,
           gates: ChooserGates = ChooserGates(),
           bias_source: BiasSource = BiasSource.NONE) -> L0Choice | None:
    return choose_l0_tile(chooser_config(dims, backend, is_matmul_acc, gates, bias_source))


@dataclass(frozen=True, slots=True)
class PanelBoxes:
    """Mat-box granularity of the two axes a split-K output grid narrows: the left panel's
    rows (M) and the right panel's columns (N). A narrowed window is loaded at its boxed
    physical extent, so the chooser must charge that padding, not the logical tile."""

    m: int = 1
    n: int = 1


def split_k_chooser_config(dims: MatmulDims, backend: BackendHandler, boxes: PanelBoxes,
                           gates: ChooserGates = ChooserGates()) -> L0ChooserConfig:
    """ChooseL0Tile inputs for the output grid of a canonical split-K chain: `dims.K` is one
    iteration's K panel (the grid clones the whole K loop, so each narrowed call sees that K).
    The grid runs each window's whole reduction in turn, so output-stationary is forced."""
    return replace(chooser_config(dims, backend, is_matmul_acc=True, gates=gates),
                   box_align_m=boxes.m, box_align_n=boxes.n,
                   allow_a_stationary=False, allow_b_stationary=False)


@dataclass(frozen=True, slots=True)
class KBlocks:
    """How K is cut: `full_blocks` blocks of `k` (a pipelined loop when there are at least two),
    then a peeled tail of `tail` columns at offset full_blocks·k (0 = no tail)."""

    K: int
    k: int

    @property
    def full_blocks(self) -> int:
        return self.K // self.k

    @property
    def main_extent(self) -> int:
        return self.full_blocks * self.k

    @property
    def tail(self) -> int:
        return self.K - self.main_extent

    @property
    def needs_loop(self) -> bool:
        # A one-trip pipeline is degenerate: a single full block is emitted straight-line.
        return self.full_blocks >= 2


@dataclass(frozen=True, slots=True)
class SubTile:
    """One [rows, cols] output sub-tile at (row, col) and its valid extent inside it."""

    index: int
    row: int
    col: int
    rows: int
    cols: int
    valid_rows: int
    valid_cols: int

    @property
    def narrowed(self) -> bool:
        return (self.valid_rows, self.valid_cols) != (self.rows, self.cols)


def output_grid(dims: MatmulDims, m: int, n: int) -> list[SubTile]:
    """The ⌈M/m⌉ × ⌈N/n⌉ grid, M fastest (the spec's example numbers the sub-tile at
    (mi=256, ni=0) of a 2×2 grid `t1`); boundary tiles are partial. Tiles lying wholly in the
    box padding beyond the valid extent compute nothing the store would keep and are dropped."""
    tiles: list[SubTile] = []
    for col in range(0, dims.N, n):
        for row in range(0, dims.M, m):
            rows, cols = min(m, dims.M - row), min(n, dims.N - col)
            valid_rows = max(0, min(rows, dims.valid_m - row))
            valid_cols = max(0, min(cols, dims.valid_n - col))
            if valid_rows and valid_cols:
                tiles.append(SubTile(len(tiles), row, col, rows, cols, valid_rows, valid_cols))
    return tiles


def mad_pitch(valid_rows: int, box_rows: int) -> int:
    """Row pitch at which MAD lays the product out in L0C: ⌈validRow/box⌉·box (pto-isa TMatmul)."""
    return align_up(valid_rows, box_rows)


def split_k_windows(dims: MatmulDims, m: int, n: int, boxes: PanelBoxes) -> list[SubTile]:
    """The output windows of a split-K grid over the valid [M, N] extent, M fastest. Each window's
    physical extent is its valid extent rounded up to the panel boxes: the narrowed loads
    transfer only the valid window, and their boxed padding (which may overhang the tensor)
    is never stored."""
    tiles: list[SubTile] = []
    for col in range(0, dims.valid_n, n):
        for row in range(0, dims.valid_m, m):
            valid_rows, valid_cols = min(m, dims.valid_m - row), min(n, dims.valid_n - col)
            tiles.append(SubTile(len(tiles), row, col, align_up(valid_rows, boxes.m),
                                 align_up(valid_cols, boxes.n), valid_rows, valid_cols))
    return tiles
