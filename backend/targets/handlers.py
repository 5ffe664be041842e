"""Per-target backend handlers: every hardware number a pass may need (TARGET_FACTS.md).

Passes read these from the pass context; nothing else in the compiler hard-codes a capacity.
"""

from __future__ import annotations

from dataclasses import dataclass

from backend.numerics import DTYPES, byte_width
from languages.ops.assembler_element_types import WIDENED_TO_FP32
from languages.memory_space import MemorySpace

DEFAULT_BACKEND = "Ascend910B"

# Bytes one vector instruction repeat reads of a source (pto-isa REPEAT_BYTE, a5's CCE_VL).
VECTOR_REPEAT_BYTES = 256

# Formats backend/numerics.py has no arithmetic for (sub-byte and MX scale types) still need a
# storage width for capacity checks; byte width = ceil(bits / 8).
_EXTRA_DTYPE_BITS: dict[str, int] = {
    "INT4": 4, "UINT4": 4, "FP4": 4, "HF4": 4, "FP8E8M0": 8, "HF8": 8,
}


def dtype_byte_width(dtype: str) -> int:
    """Bytes one element of `dtype` occupies (sub-byte types round up to one byte)."""
    name = dtype.upper()
    if name in DTYPES:
        return byte_width(name)
    bits = _EXTRA_DTYPE_BITS.get(name)
    if bits is None:
        known = ", ".join(sorted([*DTYPES, *_EXTRA_DTYPE_BITS]))
        raise ValueError(f"unknown dtype {dtype!r}; known dtypes: {known}")
    return (bits + 7) // 8


@dataclass(frozen=True, slots=True)
class L0CostModel:
    """Roofline coefficients of ChooseL0Tile, fitted from on-device sweeps (cycles, bytes)."""

    bw_l0a: float  # L1 -> L0A bytes per cycle (MTE1)
    bw_l0b: float  # L1 -> L0B bytes per cycle (MTE1)
    bw_drain: float  # L0C -> out FIXPIPE bytes per cycle
    drain_fixed_cycles: float  # per drained output tile
    drain_row_cycles: float  # per-M-row burst-issue floor
    drain_penalty_cycles: float  # per M-row per extra odd N-fractal pass
    drain_c0_bytes: int  # N0 = drain_c0_bytes / bytes_c
    mad_head_cycles: int  # per TMATMUL issue
    mad_k_fractal_bytes: int  # kt = mad_k_fractal_bytes / bytes_a
    mad_fp32_passes: int  # cycles-per-row factor for 4-byte operands

    def k_fractal(self, bytes_a: int) -> int:
        """K elements the cube consumes per MAD fractal step."""
        return max(1, self.mad_k_fractal_bytes // bytes_a)

    def cycles_per_row(self, bytes_a: int) -> float:
        """MAD cycles per 16-row fractal step: FP32 runs as multiple passes on the cube."""
        if bytes_a == 4:
            return float(self.mad_fp32_passes)
        return max(1.0, bytes_a / 2)

    def drain_c0(self, bytes_c: int) -> int:
        """N0: accumulator elements per FRACTAL_NZ row segment."""
        return max(1, self.drain_c0_bytes // bytes_c)


_Move = tuple[MemorySpace, MemorySpace]


@dataclass(frozen=True, slots=True)
class BackendHandler:
    """Hardware facts of one Ascend target."""

    name: str
    arch: str
    l0a_capacity_bytes: int
    l0b_capacity_bytes: int
    l0c_capacity_bytes: int
    bias_capacity_bytes: int
    mat_capacity_bytes: int
    vec_capacity_bytes: int  # usable bytes (910B reserves the top 8 KiB of its 192 KiB UB)
    space_alignment_bytes: tuple[tuple[MemorySpace, int], ...]
    l0_fractal_alignment: int
    min_l0_tile_dim: int
    int32_l0c_m_alignment: int  # physical L0C row granularity of an INT32 accumulator
    allowed_moves: frozenset[_Move]
    acc_to_gm_store_dtypes: frozenset[str]
    mat_to_bias_dtype_pairs: frozenset[tuple[str, str]]
    needs_low_precision_mat_scratch: bool  # chained matmul intermediate must be bf16/f16 in Mat
    l0_cost_model: L0CostModel
    # The cube <-> vector pipe moves its slots through a GM buffer (a2/a3: PTOAS requires the
    # pipe's gm_slot_buffer) rather than core to core.
    gm_pipe_slots: bool = False
    # Vector instructions PTOAS rejects on BF16 tiles on this target (its verifiers' "expects
    # ... element type to be i32/i16/f16/f32"): LegalizeVecDtypes computes them in FP32.
    fp32_only_vec_instructions: frozenset[str] = frozenset()
    # TCMP / TCMPS store a mask row in whole granules of compared elements (pto-isa TCmp.hpp /
    # TCmps.hpp): a2a3's vcmpv one 256-byte repeat of the source (64 FP32 elements: 8 mask
    # bytes), a5's psts a predicate register's packed bits (at least 128 elements: 16 bytes).
    compare_min_granule_elements: int = 0
    # a2a3 computes NE as EQ, then inverts (vnot) every byte of the mask's valid rows.
    compare_ne_inverts_valid_rows: bool = False

    def compare_mask_row_bytes(self, source_byte_width: int, cols: int) -> int:
        """Bytes of one mask row TCMP / TCMPS write for `cols` compared elements of
        `source_byte_width` bytes: whole granules, so ceil(cols / 8) bytes hold the compared
        bits and the rest of the granule bytes derived from no compared element (undefined)."""
        granule = max(VECTOR_REPEAT_BYTES // source_byte_width, self.compare_min_granule_elements)
        return -(-cols // granule) * granule // 8

    def capacity(self, space: MemorySpace) -> int:
        """On-chip bytes of `space`; global memory has no fixed capacity."""
        capacities = {
            MemorySpace.Left: self.l0a_capacity_bytes,
            MemorySpace.Right: self.l0b_capacity_bytes,
            MemorySpace.Acc: self.l0c_capacity_bytes,
            MemorySpace.Bias: self.bias_capacity_bytes,
            MemorySpace.Mat: self.mat_capacity_bytes,
            MemorySpace.Vec: self.vec_capacity_bytes,
        }
        if space not in capacities:
            raise ValueError(f"{self.name}: memory space {space.pl_name} has no on-chip capacity")
        return capacities[space]

    def alignment(self, space: MemorySpace) -> int:
        """Required start-address alignment (bytes) of a buffer in `space`."""
        for table_space, align in self.space_alignment_bytes:
            if table_space is space:
                return align
        raise ValueError(f"{self.name}: memory space {space.pl_name} has no address alignment rule")

    def l0c_m_alignment(self, acc_dtype: str) -> int:
        """Physical row granularity of an L0C accumulator of `acc_dtype`."""
        if acc_dtype.upper() == "INT32":
            return self.int32_l0c_m_alignment
        return self.l0_fractal_alignment

    def can_move(self, src: MemorySpace, dst: MemorySpace) -> bool:
        """Whether a data-move engine connects `src` to `dst` on this target."""
        return (src, dst) in self.allowed_moves

    def supports_acc_store_dtype(self, dtype: str) -> bool:
        """Whether FIXPIPE can write an Acc tile to GM as `dtype`."""
        return dtype.upper() in self.acc_to_gm_store_dtypes

    def supports_mat_to_bias_move(self, src_dtype: str, bias_dtype: str) -> bool:
        """Whether a Mat tile of `src_dtype` can be moved into the Bias table as `bias_dtype`."""
        return (src_dtype.upper(), bias_dtype.upper()) in self.mat_to_bias_dtype_pairs


def _moves(table: dict[MemorySpace, tuple[MemorySpace, ...]]) -> frozenset[_Move]:
    return frozenset((src, dst) for src, dsts in table.items() for dst in dsts)


_M = MemorySpace


_SPACE_ALIGNMENT = (
    (_M.Mat, 128), (_M.Left, 64), (_M.Right, 64), (_M.Acc, 128), (_M.Bias, 64), (_M.Vec, 128),
)
_ACC_STORE_DTYPES = frozenset({"INT32", "FP32", "FP16", "BF16"})

ASCEND_910B = BackendHandler(
    name="Ascend910B",
    arch="a2a3",
    l0a_capacity_bytes=65536,
    l0b_capacity_bytes=65536,
    l0c_capacity_bytes=131072,
    bias_capacity_bytes=1024,
    mat_capacity_bytes=524288,
    vec_capacity_bytes=188416,
    space_alignment_bytes=_SPACE_ALIGNMENT,
    l0_fractal_alignment=16,
    min_l0_tile_dim=16,
    int32_l0c_m_alignment=32,
    allowed_moves=_moves({
        _M.DDR: (_M.Vec, _M.Mat),
        _M.Vec: (_M.Vec, _M.DDR),  # UB -> UB: pto-isa's TMOV between two Vec tiles (TMovToVec)
        _M.Mat: (_M.Left, _M.Right, _M.Bias),
        _M.Acc: (_M.Mat, _M.DDR),
    }),
    acc_to_gm_store_dtypes=_ACC_STORE_DTYPES,
    mat_to_bias_dtype_pairs=frozenset({("INT32", "INT32"), ("FP32", "FP32"), ("FP16", "FP32")}),
    needs_low_precision_mat_scratch=True,
    gm_pipe_slots=True,
    fp32_only_vec_instructions=WIDENED_TO_FP32["a2a3"],
    compare_ne_inverts_valid_rows=True,
    l0_cost_model=L0CostModel(
        bw_l0a=129.7, bw_l0b=85.4, bw_drain=118.0, drain_fixed_cycles=164.0,
        drain_row_cycles=4.45, drain_penalty_cycles=2.6, drain_c0_bytes=32,
        mad_head_cycles=21, mad_k_fractal_bytes=32, mad_fp32_passes=2,
    ),
)

ASCEND_950 = BackendHandler(
    name="Ascend950",
    arch="a5",
    l0a_capacity_bytes=65536,
    l0b_capacity_bytes=65536,
    l0c_capacity_bytes=262144,
    bias_capacity_bytes=4096,
    mat_capacity_bytes=524288,
    vec_capacity_bytes=245760,
    space_alignment_bytes=_SPACE_ALIGNMENT,
    l0_fractal_alignment=16,
    min_l0_tile_dim=16,
    int32_l0c_m_alignment=16,
    allowed_moves=_moves({
        _M.DDR: (_M.Vec, _M.Mat),
        _M.Vec: (_M.Vec, _M.Mat, _M.DDR),  # UB -> UB: TMovVecToVec
        _M.Mat: (_M.Left, _M.Right, _M.Bias),
        _M.Acc: (_M.Vec, _M.Mat, _M.DDR),
    }),
    acc_to_gm_store_dtypes=_ACC_STORE_DTYPES,
    mat_to_bias_dtype_pairs=frozenset({
        ("INT32", "INT32"), ("FP32", "FP32"), ("FP16", "FP32"), ("BF16", "FP32"),
    }),
    needs_low_precision_mat_scratch=False,
    fp32_only_vec_instructions=WIDENED_TO_FP32["a5"],
    compare_min_granule_elements=128,
    l0_cost_model=L0CostModel(
        bw_l0a=206.3, bw_l0b=223.8, bw_drain=30.0, drain_fixed_cycles=343.4,
        drain_row_cycles=4.59, drain_penalty_cycles=0.26, drain_c0_bytes=32,
        mad_head_cycles=25, mad_k_fractal_bytes=32, mad_fp32_passes=8,
    ),
)

_BACKENDS_BY_ALIAS: dict[str, BackendHandler] = {
    alias.lower(): handler
    for handler, aliases in (
        (ASCEND_910B, ("Ascend910B", "910B", "a2a3")),
        (ASCEND_950, ("Ascend950", "950", "a5")),
    )
    for alias in aliases
}

KNOWN_BACKEND_NAMES: tuple[str, ...] = ("Ascend910B", "910B", "a2a3", "Ascend950", "950", "a5")


def get_backend(name: str) -> BackendHandler:
    """Handler for a target name or alias (case-insensitive)."""
    handler = _BACKENDS_BY_ALIAS.get(name.strip().lower())
    if handler is None:
        raise ValueError(
            f"unknown backend {name!r}; known backends: {', '.join(KNOWN_BACKEND_NAMES)}"
        )
    return handler
