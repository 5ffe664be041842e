"""The machine model of NUMERICS.md section 5: byte-array buffers per memory space.

One cube core (AIC) owns Mat (L1), Left (L0A), Right (L0B), Acc (L0C) and Bias; the vector
side is modelled as a single AIV lane with one Vec (UB) buffer, which is all a kernel without
`split_aiv` FIFOs can observe (the two lanes run the same code on disjoint data).  Global
memory holds one contiguous buffer per tensor argument (ND row-major, DN column-major).

Every buffer starts filled with the poison byte 0xFF (a NaN in every float format).  In
checked mode a bitmap per space records which bytes were written, and the first read of an
unwritten byte inside a valid region raises `PoisonRead` naming the instruction, the tile and
the element.  Tiles are read and written at their MemRef address through their physical
layout (`backend.sim.layouts`), so a wrong address, an overlap or a wrong pitch corrupts data
exactly as it would on the chip.
"""

from __future__ import annotations

import bisect
import importlib
import math
from dataclasses import dataclass, field, replace
from types import ModuleType
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from backend.buffers import POOL
from backend.targets.handlers import BackendHandler
from backend.numerics import POISON_BYTE, np_dtype
from backend.sim.layouts import IntArray, LayoutError, element_offsets, resolve_layout, offsets_of
from languages.memory_space import ON_CHIP_SPACES, MemorySpace
from languages.types import DataType, TileType, TileView, is_symbolic
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.node import NO_SPAN, Span

Array = npt.NDArray[Any]
Dims2 = tuple[int, int]


class SimulationError(CompileError):
    """A run-time fault of the simulated program (bad address, poison read, division by zero)."""

    def __init__(self, message: str, span: Span = NO_SPAN, hint: str = "") -> None:
        super().__init__(Diagnostic("Simulator", message, span, hint))
        self.message = message


class PoisonRead(SimulationError):
    """A read of a byte no instruction wrote, inside the valid region of a tile or tensor."""

    def __init__(self, instruction: str, tile: str, element: tuple[int, ...], span: Span = NO_SPAN,
                 buffer: str = "", out_param: bool = False) -> None:
        self.instruction = instruction
        self.tile = tile
        self.element = element
        where = f" (buffer {buffer})" if buffer and buffer != tile else ""
        if out_param:
            # An Out parameter bound over an earlier value (GmTensor.prior).
            super().__init__(
                f"{instruction} reads {tile}{list(element)}, an element of an Out parameter this kernel has not "
                "written (an Out parameter's earlier contents are not the kernel's input)",
                span, "declare the parameter pl.InOut if the kernel reads it, or write it before reading it")
            return
        super().__init__(
            f"{instruction} reads {tile}{list(element)}{where}, which no instruction has written "
            "(its bytes still hold the 0xFF poison pattern)",
            span,
            "the program reads uninitialised memory: a missing load, a wrong address, or "
            "padding consumed as data",
        )


def _dtype_name(dtype: DataType) -> str:
    return dtype.name


def np_dtype_of(dtype: DataType) -> np.dtype[Any]:
    return np_dtype(_dtype_name(dtype))


@dataclass
class TileHandle:
    """A tile as the running program sees it.

    `storage` is the allocated buffer (static shape, view, MemRef) that fixes the addressing;
    a view (`pto.subview`) addresses the window of `shape` at `origin` inside it.  `valid` is
    the current valid extent, which `pto.set_validshape` changes at run time.
    """

    name: str
    storage: TileType
    shape: Dims2
    valid: Dims2
    origin: Dims2 = (0, 0)
    buffer: str = ""  # the allocation's name when `name` is another SSA name for it

    @property
    def dtype(self) -> DataType:
        return self.storage.dtype

    @property
    def space(self) -> MemorySpace:
        if self.storage.memory_space is None:
            raise SimulationError(f"tile {self.name} has no memory space")
        return self.storage.memory_space

    @property
    def view(self) -> TileView:
        return self.storage.view if self.storage.view is not None else TileView()

    @property
    def is_view(self) -> bool:
        return self.shape != _dims2(self.storage.shape) or self.origin != (0, 0)

    def describe(self) -> str:
        mem = self.storage.memref
        addr = "?" if mem is None else str(mem.offset)
        return (f"{self.name} ({self.buffer_note}{self.space.name} @ {addr}, {list(self.shape)} "
                f"{self.dtype.name}, valid {list(self.valid)})")

    @property
    def buffer_note(self) -> str:
        return f"buffer {self.buffer}, " if self.buffer and self.buffer != self.name else ""


def _dims2(shape: tuple[int, ...]) -> Dims2:
    if len(shape) == 2:
        return (shape[0], shape[1])
    if len(shape) == 1:
        return (1, shape[0])
    if len(shape) == 0:
        return (1, 1)
    lead = 1
    for d in shape[:-1]:
        lead *= d
    return (lead, shape[-1])


def handle_for(name: str, tile: TileType) -> TileHandle:
    """The handle of a freshly allocated tile (`pto.alloc_tile`)."""
    shape = _dims2(tile.shape)
    # A dynamic handle (`v_row=?, v_col=?`) is valid nowhere until `pto.set_validshape` says
    # otherwise: code that read it first would compute on nothing, and mismatch the reference.
    valid = (0, 0) if is_symbolic(tile.valid_shape) else _dims2(tile.valid)
    return TileHandle(name, tile, shape, valid, buffer=name)


class KnownWritten:
    """Byte ranges of one buffer known to be fully written: the per-tile bookkeeping of the
    written flags. Every range here is written in the buffer's flags too (the flags stay the
    truth, and only ever go from 0 to 1 except where a move rewrites them, which forgets the
    ranges), so a read whose bytes lie in one range needs no flag check, and a write into one
    needs no flag marks. Kept as sorted, disjoint, non-adjacent [start, end) runs."""

    __slots__ = ("starts", "ends")

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def covers(self, start: int, end: int) -> bool:
        at = bisect.bisect_right(self.starts, start) - 1
        return at >= 0 and self.ends[at] >= end

    def add(self, start: int, end: int) -> None:
        if end <= start:
            return
        starts, ends = self.starts, self.ends
        lo = bisect.bisect_left(ends, start)  # first run that ends at or after `start`
        hi = bisect.bisect_right(starts, end)  # runs from lo to hi - 1 touch [start, end]
        if lo < hi:
            start = min(start, starts[lo])
            end = max(end, ends[hi - 1])
        starts[lo:hi] = [start]
        ends[lo:hi] = [end]

    def clear(self) -> None:
        self.starts.clear()
        self.ends.clear()


# A block's bytes: (first byte, one past the last, whether they are exactly the bytes between).
ByteSpan = tuple[int, int, bool]


def block_span(base: int, shape: tuple[int, int, int, int], strides: tuple[int, int, int, int],
               width: int) -> ByteSpan | None:
    """The byte hull of a 4-D block (byte strides, innermost axis contiguous: its stride is
    `width`) and whether the block fills it (its axes, sorted by stride, tile the hull); None
    for an empty block."""
    s0, s1, s2, s3 = shape
    if s0 <= 0 or s1 <= 0 or s2 <= 0 or s3 <= 0:
        return None
    t0, t1, t2 = strides[0], strides[1], strides[2]
    run = s3 * width
    if s0 == 1 and s2 == 1:  # a 2-D block (the common form): s1 runs of `run` bytes, t1 apart
        return base, base + (s1 - 1) * t1 + run, s1 == 1 or t1 == run
    end = base + (s0 - 1) * t0 + (s1 - 1) * t1 + (s2 - 1) * t2 + run
    axes = [(t, e) for t, e in ((t0, s0), (t1, s1), (t2, s2)) if e > 1]
    if len(axes) > 1:
        axes.sort()
    covered = run
    for stride, extent in axes:
        if stride != covered:
            return base, end, False
        covered *= extent
    return base, end, True


def strided_span(base: int, shape: tuple[int, ...], strides: tuple[int, ...], width: int) -> ByteSpan | None:
    """`block_span` of any strided window (byte base and strides, elements of `width` bytes):
    its byte hull and whether its elements tile the hull exactly."""
    if any(extent <= 0 for extent in shape):
        return None
    end = base + width + sum((extent - 1) * stride for extent, stride in zip(shape, strides))
    covered = width
    for stride, extent in sorted((st, e) for st, e in zip(strides, shape) if e > 1):
        if stride != covered:
            return base, end, False
        covered *= extent
    return base, end, covered == end - base


@dataclass
class GmTensor:
    """One tensor argument in global memory: a contiguous byte buffer plus its written map."""

    name: str
    shape: tuple[int, ...]
    dtype: DataType
    layout: str  # "nd" (row-major) or "dn" (column-major, 2-D only)
    data: npt.NDArray[np.uint8]
    # Per byte, whether it was written; None until first asked for: then every byte is written
    # when `known` covers the buffer, none otherwise (the state a tensor is bound in).
    _written: npt.NDArray[np.bool_] | None
    _views: tuple[str, Array, npt.NDArray[np.bool_]] | None = field(default=None, repr=False, compare=False)
    # Element strides the kernel's pto.make_tensor_view declares, when they differ from the row-
    # major strides of the buffer the host handed over: element (i0, i1, ...) is then read and
    # written at sum(i_k * strides_k) of that buffer, exactly as the hardware addresses it, so a
    # wrong stride in the emitted view changes which elements the kernel sees.
    strides: tuple[int, ...] | None = None
    # The byte ranges known to be written (see KnownWritten).
    known: KnownWritten = field(default_factory=KnownWritten, repr=False, compare=False)
    width: int = field(default=0, repr=False, compare=False)  # the element's bytes
    # Whether `data` is a read-only view of the caller's input array (bound without a copy):
    # the first write makes the buffer the machine's own (`own`).
    shared: bool = field(default=False, repr=False, compare=False)
    # An Out parameter bound over the caller's earlier value: its bytes hold that value but
    # count as unwritten (a kernel reading an Out parameter reads undefined memory), except
    # for the read-modify-write of an atomic store, which accumulates into it.
    prior: bool = field(default=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.width = self.dtype.byte_width

    def own(self) -> None:
        """Copy a shared input buffer before anything writes it (copy on write)."""
        if self.shared:
            self.data = self.data.copy()
            self.shared = False
            self._views = None

    @property
    def written(self) -> npt.NDArray[np.bool_]:
        if self._written is None:
            # Until first asked for, the known ranges are the whole truth (a block write of a
            # tensor without flags records only its range: `Machine._gm_flags_to_mark`).
            whole = self.known.covers(0, self.data.size) if self.data.size else False
            flags = POOL.take(self.data.size, np.bool_, 1 if whole else 0)
            if not whole:
                for start, end in zip(self.known.starts, self.known.ends):
                    flags[start:end] = True
            self._written = flags
        return self._written

    def set_view(self, shape: tuple[int, ...], strides: tuple[int, ...], layout: str) -> None:
        """Address the tensor through a `pto.make_tensor_view(shape, strides)` of the host's
        row-major buffer."""
        if tuple(shape) != tuple(self.shape):
            raise SimulationError(f"tensor {self.name}: the tensor view's shape {list(shape)} is not the "
                                  f"tensor's {list(self.shape)}")
        if len(strides) != len(shape) or any(st < 0 for st in strides):
            raise SimulationError(f"tensor {self.name}: tensor view strides {list(strides)} do not fit "
                                  f"shape {list(shape)}")
        # The buffer's elements: the tensor's, or those the host handed over for a window of a
        # wider tensor (its first element through its last, at the wider tensor's strides).
        elements = self.data.size // self.width if self.shape else 1
        reach = sum((d - 1) * st for d, st in zip(shape, strides) if d > 0)
        if elements and reach >= elements:
            raise SimulationError(f"tensor {self.name}: tensor view strides {list(strides)} reach element "
                                  f"{reach}, beyond its {elements} elements")
        canonical = tuple(math.prod(shape[k + 1:]) for k in range(len(shape)))
        whole = elements == (math.prod(self.shape) if self.shape else 1)  # not a window's bytes
        if whole and all(st == c for st, c, d in zip(strides, canonical, shape) if d > 1):
            self.set_layout(layout if len(shape) == 2 and shape[1] == 1 else "nd")
            self.strides = None
            return
        self.layout = "nd"
        self.strides = tuple(int(st) for st in strides)
        self._views = None

    def element_offsets(self, index: tuple[Array, ...]) -> IntArray:
        """Element offsets of logical multi-indices (one index array per tensor axis)."""
        if self.strides is not None:
            total = np.zeros(np.shape(index[0]), dtype=np.int64)
            for axis, stride in zip(index, self.strides):
                total = total + np.asarray(axis, dtype=np.int64) * stride
            return total
        if self.layout == "dn" and len(self.shape) == 2:
            return np.asarray(index[1] * self.shape[0] + index[0], dtype=np.int64)
        flat = np.ravel_multi_index(tuple(np.asarray(i, dtype=np.int64) for i in index), self.shape)
        return np.asarray(flat, dtype=np.int64)

    def written_elements(self) -> npt.NDArray[np.bool_]:
        """Per element in logical index order, whether all of its bytes were written (a new
        array): the flags read a whole element at a time, not reduced over the width axis."""
        if self.data.size and self.known.covers(0, self.data.size):  # the ranges are written flags
            return np.ones(self.shape, dtype=np.bool_)
        width = self.dtype.byte_width
        # A byte flag is 0 or 1: an element is written when its flag bytes read as 0x0101...
        per_element = self.written.view(np.uint8).view(_FLAG_WORD[width]) == _ALL_WRITTEN[width]
        return np.ascontiguousarray(self._in_logical_order(per_element))

    def _in_logical_order(self, elements: Array) -> Array:
        """A flat per-element array of the buffer seen in logical index order (a view)."""
        if self.strides is not None:
            item = elements.itemsize
            return np.lib.stride_tricks.as_strided(elements, self.shape, tuple(st * item for st in self.strides))
        if self.layout == "dn" and len(self.shape) == 2:
            rows, cols = self.shape
            return elements.reshape(cols, rows).T
        return elements.reshape(self.shape)

    def logical(self) -> tuple[Array, npt.NDArray[np.bool_]]:
        """Views of the buffer in logical index order: the values and, per element, its bytes'
        written flags (a trailing axis of the element width). Not copies: writes go through."""
        if self._views is None or self._views[0] != self.layout:
            width = self.dtype.byte_width
            elements = self.data.view(np_dtype_of(self.dtype))
            if self.strides is not None:
                item = elements.itemsize
                values = np.lib.stride_tricks.as_strided(
                    elements, self.shape, tuple(st * item for st in self.strides))
                flags = np.lib.stride_tricks.as_strided(
                    self.written, (*self.shape, width), (*(st * width for st in self.strides), 1))
            elif self.layout == "dn" and len(self.shape) == 2:
                rows, cols = self.shape
                values = elements.reshape(cols, rows).T
                flags = self.written.reshape(cols, rows, width).transpose(1, 0, 2)
            else:
                values = elements.reshape(self.shape)
                flags = self.written.reshape(*self.shape, width)
            self._views = (self.layout, values, flags)
        return self._views[1], self._views[2]

    def logical_values(self) -> Array:
        """`logical()`'s values alone (the flags are not made for it)."""
        if self.strides is None and (self.layout != "dn" or len(self.shape) != 2):
            return self.data.view(np_dtype_of(self.dtype)).reshape(self.shape)
        return self.logical()[0]

    def block(self, start: Dims2, region: Dims2) -> tuple[Array, npt.NDArray[np.bool_]] | None:
        """The [rows, cols] window at logical `start` of a 1-D (seen as [1, n]) or 2-D tensor,
        as views (None for other ranks: the caller indexes element by element)."""
        if len(self.shape) not in (1, 2):
            return None
        values, flags = self.logical()
        if len(self.shape) == 1:
            if start[0] != 0 or region[0] > 1:
                return None
            values, flags = values.reshape(1, -1), flags.reshape(1, *flags.shape)
        rows = slice(start[0], start[0] + region[0])
        cols = slice(start[1], start[1] + region[1])
        return values[rows, cols], flags[rows, cols]

    def byte_block(self, start: Dims2, region: Dims2) -> tuple[int, tuple[int, int, int, int],
                                                               tuple[int, int, int, int]] | None:
        """The window as a byte block of contiguous rows (row-major tensors of rank 1 or 2
        whose window lies inside them), for the compiled block moves; None otherwise."""
        if self.strides is not None or (self.layout == "dn" and len(self.shape) == 2):
            return None
        if len(self.shape) == 2:
            rows, cols = self.shape
        elif len(self.shape) == 1 and start[0] == 0 and region[0] <= 1:
            rows, cols = 1, self.shape[0]
        else:
            return None
        if start[0] < 0 or start[1] < 0 or start[0] + region[0] > rows or start[1] + region[1] > cols:
            return None
        width = self.width
        return ((start[0] * cols + start[1]) * width, (1, region[0], 1, region[1]), (0, cols * width, 0, width))

    def values(self) -> Array:
        """The whole tensor as a logical array (poison bytes included)."""
        if self.strides is not None:
            return self.logical()[0].copy()
        elements = self.data.view(np_dtype_of(self.dtype))
        if self.layout == "dn" and len(self.shape) == 2:
            return elements.reshape(self.shape[1], self.shape[0]).T.copy()
        return elements.reshape(self.shape).copy()

    def set_layout(self, layout: str) -> None:
        """Store the tensor as `layout` from now on, keeping its logical contents (the host
        hands the kernel a buffer already in the layout its tensor view declares)."""
        if layout not in ("nd", "dn"):
            raise SimulationError(f"tensor {self.name}: unknown layout {layout!r} (expected nd or dn)")
        if layout == self.layout or len(self.shape) != 2:
            self.layout = layout
            return
        self.own()
        flags = self.written  # (made from the known ranges before they are forgotten)
        if not self.known.covers(0, self.data.size):
            self.known.clear()  # the move below rewrites the flags
        index = tuple(i.reshape(-1) for i in np.indices(self.shape))
        before = self.element_offsets(index)
        self.layout = layout
        after = self.element_offsets(index)
        width = self.dtype.byte_width
        for buffer in (self.data, flags):
            rows = buffer.reshape(-1, width)
            moved = rows.copy()
            moved[after] = rows[before]
            rows[...] = moved


def _load_blocks() -> ModuleType | None:
    """The compiled block moves (backend/_mad.c), or None (then NumPy strided views run)."""
    try:
        return importlib.import_module("backend._mad")
    except ImportError:
        return None


_BLOCKS = _load_blocks()
# Whether the loaded extension's move_block accepts None for the destination flags (a build
# from before that, still in place until the next `pip install -e .`, needs them every time).
_MOVE_WITHOUT_FLAGS = _BLOCKS is not None and hasattr(_BLOCKS, "mad_tiles")  # (mad_tiles came later)
# The MAD chain on tile windows (a build from before it has none: the matmul reads the tiles).
_MAD_TILES = getattr(_BLOCKS, "mad_tiles", None)
# How `mad_tiles` reads float operands: float32 itself, or FP16 / BF16 bit patterns.
_MAD_TILE_KINDS: Final = {DataType.FP32: 0, DataType.FP16: 1, DataType.BF16: 2}

# Window offsets and their strided plan by window content (storage type, handle extents,
# region, pitch, origin): the same for every machine, so each launch of a kernel reuses them.
# (And the offsets' largest, for the bounds check of every machine's views.)
_PLANS: dict[tuple[object, ...], tuple[IntArray, tuple[int, tuple[int, ...], tuple[int, ...]] | None, int]] = {}

# Whether the machine keeps the known-written ranges (tests switch it off to compare with the
# flag-by-flag checks).
_TRACK_RANGES = True

_FLAG_WORD: Final[dict[int, type[np.unsignedinteger[Any]]]] = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_ALL_WRITTEN: Final[dict[int, int]] = {width: int.from_bytes(b"\x01" * width, "little") for width in _FLAG_WORD}


@dataclass(frozen=True)
class _TileAccess:
    """One tile window's addressing: element offsets (read-only, for messages) and either
    strided views of the space's values and written flags (the fast path: whole-tile NumPy
    operations) or, for windows that are not affine per axis, the byte index to gather."""

    offsets: IntArray
    byte_index_or_none: IntArray | None
    values: Array | None
    flags: Array | None
    all_written: int = 0  # the flags word of a fully written element
    # The same window as a 4-D byte block with a contiguous innermost run, for the compiled
    # block moves (backend/_mad.c): (byte base, shape, byte strides), or None.
    block: tuple[int, tuple[int, int, int, int], tuple[int, int, int, int]] | None = None
    span: ByteSpan | None = None  # the block's bytes (block_span), for the known-written ranges
    # The space's bytes, flags and known ranges, and the element width (one lookup per access).
    width: int = 0
    memory: npt.NDArray[np.uint8] | None = None
    written: npt.NDArray[np.bool_] | None = None
    known: KnownWritten | None = None

    def fully_written(self) -> bool:
        assert self.flags is not None
        return self.flags.size == 0 or int(self.flags.min()) == self.all_written

    @property
    def byte_index(self) -> IntArray:
        if self.byte_index_or_none is None:
            raise AssertionError("a strided access has no byte index")
        return self.byte_index_or_none


def strided_plan(offsets: IntArray, box: Dims2) -> tuple[int, tuple[int, ...], tuple[int, ...]] | None:
    """(base, shape, element strides) such that a strided view with them holds exactly the
    elements at `offsets` ([h, w]) in logical order -- [h, w] when the offsets are affine in
    (r, c), [h/IR, IR, w/IC, IC] when they are affine per box coordinate -- or None."""
    if offsets.ndim != 2 or offsets.size == 0:
        return None
    h, w = offsets.shape
    candidates: list[tuple[int, int]] = [(h, w)]
    if box != (1, 1) and h % box[0] == 0 and w % box[1] == 0:
        candidates.append(box)
    for box_rows, box_cols in candidates:
        shape = (h // box_rows, box_rows, w // box_cols, box_cols)
        grid = offsets.reshape(shape)
        base = int(grid[0, 0, 0, 0])
        strides = []
        for axis, extent in enumerate(shape):
            if extent == 1:
                strides.append(0)
                continue
            index = [0, 0, 0, 0]
            index[axis] = 1
            strides.append(int(grid[tuple(index)]) - base)
        if min(strides) < 0:
            continue
        expected = base + sum(np.arange(extent, dtype=np.int64).reshape(
            [extent if a == axis else 1 for a in range(4)]) * stride for axis, (extent, stride) in
            enumerate(zip(shape, strides)))
        if not np.array_equal(grid, expected):
            continue
        if (box_rows, box_cols) == (h, w):
            return base, (h, w), (strides[1], strides[3])
        return base, shape, tuple(strides)
    return None


class _LazySpaces(dict[MemorySpace, npt.NDArray[Any]]):
    """Per memory space, its buffer (filled with `fill`), allocated on first access."""

    def __init__(self, capacities: dict[MemorySpace, int], fill: int, dtype: type[np.generic]) -> None:
        super().__init__()
        self.capacities = capacities
        self.fill = fill
        self.dtype = dtype

    def __missing__(self, space: MemorySpace) -> npt.NDArray[Any]:
        if space not in self.capacities:
            raise KeyError(space)
        buffer = self[space] = POOL.take(self.capacities[space], self.dtype, self.fill)
        return buffer


# Per target handler (immutable; the entry keeps it alive, so its id is not reused), the
# capacities of its on-chip spaces: asked by every launch's machine.
_CAPACITIES: dict[int, tuple[BackendHandler, dict[MemorySpace, int]]] = {}


@dataclass
class Machine:
    """Byte-array memories of one AIC + one AIV lane, and the GM tensors of one kernel launch."""

    handler: BackendHandler
    checked: bool = True
    memory: dict[MemorySpace, npt.NDArray[Any]] = field(default_factory=dict)
    written: dict[MemorySpace, npt.NDArray[Any]] = field(default_factory=dict)
    gm: dict[str, GmTensor] = field(default_factory=dict)
    # How to reach tile windows (`_TileAccess`): pure functions of the tile's type and the
    # window, while every instruction of a loop body re-reads the same few windows.
    _access_cache: dict[tuple[object, ...], tuple[TileType, _TileAccess]] = field(
        default_factory=dict, repr=False, compare=False)
    # `_plain_access`'s memo: per handle id, the handle, the fields its window depends on and
    # the access.
    _plain_cache: dict[int, tuple[TileHandle, TileType, Dims2, Dims2, Dims2, Dims2, _TileAccess]] = field(
        default_factory=dict, repr=False, compare=False)
    # Each space's bytes seen as each element type (views, made once).
    _typed: dict[tuple[MemorySpace, DataType], Array] = field(default_factory=dict, repr=False, compare=False)
    # Per space, the byte ranges known to be written (KnownWritten): whole-tile bookkeeping.
    known: dict[MemorySpace, KnownWritten] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        # A space's bytes are made when first touched: a vector kernel never pays for L1 and
        # L0, a cube kernel never for UB (every launch starts a fresh machine).
        known = _CAPACITIES.get(id(self.handler))
        if known is None or known[0] is not self.handler:
            known = _CAPACITIES[id(self.handler)] = (
                self.handler, {space: self.handler.capacity(space) for space in ON_CHIP_SPACES})
        capacities = known[1]
        self.memory = _LazySpaces(capacities, POISON_BYTE, np.uint8)
        self.written = _LazySpaces(capacities, 0, np.bool_)
        self.known = {space: KnownWritten() for space in ON_CHIP_SPACES}

    def release(self) -> None:
        """The launch is over and nothing it made is referenced any more but its results
        (copied out already): its spaces and GM flags go back to the pool, and the machine is
        empty."""
        for spaces in (self.memory, self.written):
            for buffer in spaces.values():
                POOL.give(buffer)
            spaces.clear()
        for tensor in self.gm.values():
            if tensor._written is not None:
                POOL.give(tensor._written)
                tensor._written = None
                tensor._views = None
        self.gm.clear()
        self._access_cache.clear()
        self._plain_cache.clear()
        self._typed.clear()

    def forget_written(self, space: MemorySpace) -> None:
        """The space's flags were rewritten other than by marking (a byte move of flags)."""
        self.known[space].clear()

    def release_bytes(self, space: MemorySpace, offset: int, size: int) -> None:
        """Bytes [offset, offset + size) of `space` hold no data any more (a released pipe slot):
        poison values, unwritten flags, and no known-written range over them."""
        if offset < 0 or size <= 0:
            return
        self.memory[space][offset:offset + size] = POISON_BYTE
        self.written[space][offset:offset + size] = False
        self.forget_written(space)

    @staticmethod
    def _span_written(flags: npt.NDArray[np.bool_], known: KnownWritten, span: ByteSpan | None,
                      block: tuple[int, tuple[int, int, int, int], tuple[int, int, int, int]], width: int) -> bool:
        """Whether every byte of `block` is written: by the known ranges, else by the flags
        (a dense block found written becomes a known range)."""
        if span is None:
            return True  # an empty block
        if known.covers(span[0], span[1]):
            return True
        assert _BLOCKS is not None
        if not _BLOCKS.all_written(flags, block[0], block[1], block[2], width):
            return False
        if span[2] and _TRACK_RANGES:
            known.add(span[0], span[1])
        return True

    @staticmethod
    def _flags_to_mark(flags: npt.NDArray[np.bool_], known: KnownWritten,
                       span: ByteSpan | None) -> npt.NDArray[np.bool_] | None:
        """The flags a block write must mark, or None where its bytes are known written already;
        the block becomes a known range (the write is about to mark it)."""
        if span is None or not _TRACK_RANGES:
            return flags
        if known.covers(span[0], span[1]):
            return None
        if span[2]:
            known.add(span[0], span[1])
        return flags

    # -- global memory -----------------------------------------------------------------------

    def bind_window(self, name: str, shape: tuple[int, ...], dtype: DataType, window: npt.NDArray[np.uint8],
                    holds_values: bool) -> GmTensor:
        """Bind tensor argument `name` over the caller's memory for a window of a wider tensor:
        `window` is the bytes from the window's first element through its last (a view of the
        caller's buffer), which the kernel addresses at the strides of its tensor view, reading
        and writing the caller's elements in place. `holds_values`: an In / InOut window (its
        bytes are the caller's values; an In one is copied before any write); an Out window's
        bytes count as unwritten (only an atomic store reads them, as for GmTensor.prior)."""
        nbytes = int(window.size)
        if holds_values:
            tensor = GmTensor(name, tuple(shape), dtype, "nd", window, None, shared=not window.flags.writeable)
            tensor.known.add(0, nbytes)
        else:
            tensor = GmTensor(name, tuple(shape), dtype, "nd", window, np.zeros(nbytes, dtype=np.bool_), prior=True)
        # Packed until the kernel's tensor view says otherwise (the bytes may be more than the
        # tensor's: a window's rows lie as far apart as the wider tensor's).
        tensor.strides = tuple(int(np.prod(shape[k + 1:])) for k in range(len(shape)))
        self.gm[name] = tensor
        return tensor

    def bind_tensor(self, name: str, shape: tuple[int, ...], dtype: DataType, values: Array | None = None,
                    layout: str = "nd", buffer: Array | None = None, prior: bool = False) -> GmTensor:
        """Create the GM buffer of tensor argument `name`; `values` (logical) initialise it, or
        it stays poisoned (an output the kernel must write). `buffer` (no `values`): a
        C-contiguous array of the tensor's shape and dtype holding only poison bytes, which
        becomes the GM buffer itself (the kernel writes straight into the caller's array).
        `prior`: `values` are an Out parameter's earlier contents (see GmTensor.prior)."""
        count = int(np.prod(shape, dtype=np.int64)) if shape else 1
        nbytes = count * dtype.byte_width
        if prior and values is not None:
            earlier = _coerce(np.asarray(values), dtype, name)
            if tuple(earlier.shape) != tuple(shape):
                raise SimulationError(
                    f"input {name!r} has shape {list(earlier.shape)}, but the kernel parameter is {list(shape)}")
            tensor = GmTensor(name, tuple(shape), dtype, layout, np.empty(nbytes, dtype=np.uint8),
                              np.zeros(nbytes, dtype=np.bool_), prior=True)
            tensor.logical_values()[...] = earlier
            self.gm[name] = tensor
            return tensor
        if buffer is not None and values is None and self._adoptable(buffer, shape, dtype):
            tensor = GmTensor(name, tuple(shape), dtype, layout, buffer.reshape(-1).view(np.uint8), None)
            self.gm[name] = tensor
            return tensor
        arr: Array | None = None
        if values is not None:
            arr = np.asarray(values)
            if tuple(arr.shape) != tuple(shape):
                raise SimulationError(
                    f"input {name!r} has shape {list(arr.shape)}, but the kernel parameter is {list(shape)}")
            arr = _coerce(arr, dtype, name)
        whole = arr is not None and bool(shape)  # every byte is about to be written
        if whole and _TRACK_RANGES and arr is not None and self._shareable(arr, shape, dtype):
            # The input's bytes as they are, read-only: copied only if the kernel writes them.
            data = arr.reshape(-1).view(np.uint8).view()
            data.flags.writeable = False
            tensor = GmTensor(name, tuple(shape), dtype, layout, data, None, shared=True)
            tensor.known.add(0, nbytes)
            self.gm[name] = tensor
            return tensor
        tensor = GmTensor(name, tuple(shape), dtype, layout,
                          np.empty(nbytes, dtype=np.uint8) if whole else np.full(nbytes, POISON_BYTE, dtype=np.uint8),
                          None if whole and _TRACK_RANGES else np.full(nbytes, whole, dtype=np.bool_))
        if whole and _TRACK_RANGES:
            tensor.known.add(0, nbytes)
        if arr is not None:
            if shape:
                tensor.logical_values()[...] = arr
            else:
                self._scatter(tensor.data, tensor.written, np.zeros(1, dtype=np.int64), arr.reshape(-1), dtype)
        self.gm[name] = tensor
        return tensor

    @staticmethod
    def _shareable(arr: Array, shape: tuple[int, ...], dtype: DataType) -> bool:
        return (arr.flags.c_contiguous and tuple(arr.shape) == tuple(shape) and arr.dtype == np_dtype_of(dtype)
                and arr.dtype.byteorder in "=|")

    @staticmethod
    def _adoptable(buffer: Array, shape: tuple[int, ...], dtype: DataType) -> bool:
        return (bool(shape) and buffer.flags.c_contiguous and buffer.flags.writeable
                and tuple(buffer.shape) == tuple(shape) and buffer.dtype == np_dtype_of(dtype))

    def _gm_written(self, tensor: GmTensor, raw: tuple[int, tuple[int, int, int, int], tuple[int, int, int, int]],
                    width: int) -> bool:
        span = block_span(*raw, width)
        if span is None or tensor.known.covers(span[0], span[1]):
            return True
        return self._span_written(tensor.written, tensor.known, span, raw, width)

    def _gm_flags_to_mark(self, tensor: GmTensor, span: ByteSpan | None) -> npt.NDArray[np.bool_] | None:
        if span is not None and _TRACK_RANGES and tensor.known.covers(span[0], span[1]):
            return None
        if span is not None and span[2] and _TRACK_RANGES and tensor._written is None:
            # No flags made yet: the dense block's range is all the bookkeeping (the flags, if
            # ever asked for, are made from the ranges) -- an output written by whole blocks
            # never has its per-byte flags filled or marked.
            tensor.known.add(span[0], span[1])
            return None
        return self._flags_to_mark(tensor.written, tensor.known, span)

    def read_gm(self, tensor: GmTensor, index: tuple[Array, ...], instruction: str, span: Span = NO_SPAN,
                check: bool = True) -> Array:
        """Elements of `tensor` at logical multi-indices (arrays of one shape); `check=False`
        reads bytes not written (an atomic store's read of an Out parameter's prior value)."""
        offsets = tensor.element_offsets(index)
        self._check_gm_range(tensor, offsets, instruction, span)
        if self.checked and check:
            self._check_written(tensor.written, offsets, tensor.dtype, instruction, tensor.name, index, span,
                                out_param=tensor.prior)
        return self._gather(tensor.data, offsets, tensor.dtype)

    def write_gm(self, tensor: GmTensor, index: tuple[Array, ...], values: Array, instruction: str,
                 span: Span = NO_SPAN) -> None:
        offsets = tensor.element_offsets(index)
        self._check_gm_range(tensor, offsets, instruction, span)
        tensor.own()
        self._scatter(tensor.data, tensor.written, offsets, np.asarray(values), tensor.dtype)

    def read_gm_block(self, tensor: GmTensor, start: Dims2, region: Dims2, instruction: str,
                      span: Span = NO_SPAN, check: bool = True) -> Array | None:
        """The [rows, cols] window at `start` of a 1-D / 2-D tensor (a new array), checked as
        `read_gm` does but with whole-window operations; None where `GmTensor.block` is."""
        raw = tensor.byte_block(start, region)
        if raw is not None and _BLOCKS is not None:
            base, shape, strides = raw
            width = tensor.dtype.byte_width
            if not self.checked or not check or self._gm_written(tensor, raw, width):
                out = np.empty(region, dtype=np_dtype_of(tensor.dtype))
                _BLOCKS.gather(tensor.data, base, shape, strides, width, out)
                return out
        block = tensor.block(start, region)
        if block is None or block[0].shape != region:
            return None
        values, flags = block
        if self.checked and check and not flags.all():
            r, c = np.meshgrid(np.arange(region[0]) + start[0], np.arange(region[1]) + start[1], indexing="ij")
            index = (r, c) if len(tensor.shape) == 2 else (c,)
            self._check_written(tensor.written, tensor.element_offsets(index), tensor.dtype, instruction,
                                tensor.name, index, span, out_param=tensor.prior)
        return values.copy()

    def write_gm_block(self, tensor: GmTensor, start: Dims2, values: Array) -> bool:
        """Write a [rows, cols] window at `start` (False, writing nothing, where `block` is None)."""
        arr = np.asarray(values)
        tensor.own()
        raw = tensor.byte_block(start, (arr.shape[0], arr.shape[1]))
        if raw is not None and _BLOCKS is not None:
            typed = np.ascontiguousarray(arr.astype(np_dtype_of(tensor.dtype), copy=False))
            width = tensor.dtype.byte_width
            flags = self._gm_flags_to_mark(tensor, block_span(*raw, width))
            _BLOCKS.scatter(tensor.data, raw[0], raw[1], raw[2], width, typed, flags)
            return True
        block = tensor.block(start, (arr.shape[0], arr.shape[1]))
        if block is None or block[0].shape != arr.shape:
            return False
        block[0][...] = arr.astype(np_dtype_of(tensor.dtype), copy=False)
        block[1][...] = True
        return True

    @staticmethod
    def _check_gm_range(tensor: GmTensor, offsets: IntArray, instruction: str, span: Span) -> None:
        count = tensor.data.size // tensor.dtype.byte_width
        if offsets.size and (int(offsets.min()) < 0 or int(offsets.max()) >= count):
            raise SimulationError(
                f"{instruction} accesses tensor {tensor.name} {list(tensor.shape)} outside its bounds", span)

    # -- on-chip tiles -----------------------------------------------------------------------

    def tile_offsets(self, tile: TileHandle, region: Dims2, instruction: str, span: Span = NO_SPAN,
                     pitch: int | None = None, origin: Dims2 = (0, 0)) -> IntArray:
        """Byte-free element offsets (from the start of the space) of the `region` window at
        `origin` of `tile`, through the storage's layout."""
        storage = tile.storage
        shape = _dims2(storage.shape)
        try:
            layout = resolve_layout(tile.view, shape, storage.dtype, self._pitch_valid(tile), pitch)
        except LayoutError as err:
            raise SimulationError(f"{instruction}: tile {tile.describe()}: {err}", span) from None
        r, c = np.meshgrid(np.arange(region[0]), np.arange(region[1]), indexing="ij")
        rows = r + tile.origin[0] + origin[0]
        cols = c + tile.origin[1] + origin[1]
        if region[0] and region[1] and (int(rows.max()) >= shape[0] or int(cols.max()) >= shape[1]):
            raise SimulationError(
                f"{instruction}: window {list(region)} at {[tile.origin[0] + origin[0], tile.origin[1] + origin[1]]} "
                f"exceeds tile {tile.describe()}", span)
        base = self._base_element(tile, instruction, span)
        return base + offsets_of(layout, rows, cols)

    @staticmethod
    def _pitch_valid(tile: TileHandle) -> Dims2:
        # A compact reader derives its pitch from the valid extent of the handle it reads through.
        return tile.valid if not tile.is_view else _dims2(tile.storage.valid)

    def _base_element(self, tile: TileHandle, instruction: str, span: Span) -> int:
        memref = tile.storage.memref
        if memref is None:
            raise SimulationError(f"{instruction}: tile {tile.name} has no address (no MemRef)", span)
        width = tile.dtype.byte_width
        capacity = self.handler.capacity(tile.space)
        size = tile.storage.nbytes
        if memref.offset < 0 or memref.offset + size > capacity:
            raise SimulationError(
                f"{instruction}: tile {tile.name} in {tile.space.name} at addr {memref.offset} with size "
                f"{size} bytes exceeds the {tile.space.name} capacity of {capacity} bytes", span,
                "the address plan places this buffer outside the memory space")
        if memref.offset % width:
            raise SimulationError(
                f"{instruction}: tile {tile.name} address {memref.offset} is not aligned to its "
                f"{width}-byte element", span)
        return memref.offset // width

    def check_window(self, tile: TileHandle, region: Dims2, instruction: str, span: Span = NO_SPAN,
                     pitch: int | None = None, origin: Dims2 = (0, 0)) -> None:
        """Raise what an access of the window would raise (bounds, address, layout)."""
        self._tile_access(tile, region, instruction, span, pitch, origin)

    def gather_written(self, tile: TileHandle, region: Dims2, instruction: str, span: Span = NO_SPAN,
                       pitch: int | None = None) -> Array | None:
        """`read_tile` of the top-left `region` as one compiled gather, or None (reporting
        nothing) where there is no block form or a byte of it is unwritten."""
        access = self._tile_access(tile, region, instruction, span, pitch, (0, 0))
        block = access.block
        if block is None or _BLOCKS is None or access.values is None:
            return None
        if self.checked and not self._access_written(access):
            return None
        out = np.empty(region, dtype=access.values.dtype)
        _BLOCKS.gather(access.memory, block[0], block[1], block[2], access.width, out)
        return out

    def read_written(self, tile: TileHandle, region: Dims2, instruction: str, span: Span = NO_SPAN,
                     pitch: int | None = None) -> Array | None:
        """`read_tile` of the top-left `region` through the block or strided-view forms, or
        None (reporting nothing) where neither applies or a byte is unwritten."""
        gathered = self.gather_written(tile, region, instruction, span, pitch)
        if gathered is not None:
            return gathered
        access = self._tile_access(tile, region, instruction, span, pitch, (0, 0))
        if access.values is None or access.flags is None or (self.checked and not self._access_written(access)):
            return None
        return access.values.copy().reshape(region)

    def read_tile(self, tile: TileHandle, instruction: str, span: Span = NO_SPAN, region: Dims2 | None = None,
                  origin: Dims2 = (0, 0), pitch: int | None = None) -> Array:
        """The logical values of `region` (default: the valid region) of `tile` (a new array)."""
        window = tile.valid if region is None else region
        access = self._tile_access(tile, window, instruction, span, pitch, origin)
        block = access.block
        if block is not None and _BLOCKS is not None:
            base, shape, strides = block
            width = tile.dtype.byte_width
            if self.checked and not self._span_written(self.written[tile.space], self.known[tile.space], access.span,
                                                       block, width):
                self._report_unwritten(tile, access, window, origin, instruction, span)
            out = np.empty(window, dtype=np_dtype_of(tile.dtype))
            _BLOCKS.gather(self.memory[tile.space], base, shape, strides, width, out)
            return out
        if access.values is not None and access.flags is not None:
            # Strided views over the buffer: one vectorized check and one copy for the tile.
            if self.checked and not self._access_written(access):
                self._report_unwritten(tile, access, window, origin, instruction, span)
            return access.values.copy().reshape(window)
        memory = self.memory[tile.space]
        byte_index = access.byte_index
        if self.checked and not self.written[tile.space][byte_index].all():
            self._report_unwritten(tile, access, window, origin, instruction, span)
        raw = memory[byte_index]
        return np.ascontiguousarray(raw).view(np_dtype_of(tile.dtype)).reshape(access.offsets.shape)

    def _report_unwritten(self, tile: TileHandle, access: _TileAccess, window: Dims2, origin: Dims2,
                          instruction: str, span: Span) -> None:
        r, c = np.meshgrid(np.arange(window[0]) + origin[0], np.arange(window[1]) + origin[1], indexing="ij")
        self._check_written(self.written[tile.space], access.offsets, tile.dtype, instruction, tile.name, (r, c), span,
                            tile.buffer)

    def write_tile(self, tile: TileHandle, values: Array, instruction: str, span: Span = NO_SPAN,
                   origin: Dims2 = (0, 0), pitch: int | None = None) -> None:
        """Write logical `values` ([h, w]) into `tile` at `origin` (default: its top-left)."""
        arr = np.asarray(values)
        if arr.ndim != 2:
            arr = arr.reshape(_dims2(arr.shape))
        region = (arr.shape[0], arr.shape[1])
        access = self._tile_access(tile, region, instruction, span, pitch, origin)
        dtype = np_dtype_of(tile.dtype)
        block = access.block
        if block is not None and _BLOCKS is not None:
            base, shape, strides = block
            typed = np.ascontiguousarray(arr.astype(dtype, copy=False))
            flags = self._flags_to_mark(self.written[tile.space], self.known[tile.space], access.span)
            _BLOCKS.scatter(self.memory[tile.space], base, shape, strides, tile.dtype.byte_width, typed, flags)
            return
        if access.values is not None and access.flags is not None:
            # NumPy copies through a buffer when `arr` overlaps the destination bytes.
            access.values[...] = arr.astype(dtype, copy=False).reshape(access.values.shape)
            assert access.written is not None and access.known is not None
            if self._flags_to_mark(access.written, access.known, access.span) is not None:
                access.flags[...] = access.all_written
            return
        typed = np.ascontiguousarray(arr.reshape(region).astype(dtype, copy=False))
        index = access.byte_index.reshape(-1, tile.dtype.byte_width)
        self.memory[tile.space][index] = typed.reshape(-1).view(np.uint8).reshape(index.shape)
        self.written[tile.space][index] = True

    def load_block(self, tensor: GmTensor, start: Dims2, tile: TileHandle, instruction: str,
                   span: Span = NO_SPAN) -> bool:
        """TLOAD of the tile's valid region from `tensor` at `start` straight from GM bytes into
        the tile's bytes (one compiled block move, same dtype). False, having done nothing, where
        that does not apply (no block form, or a poisoned source the caller must report)."""
        region = tile.valid
        raw = tensor.byte_block(start, region)
        if raw is None or _BLOCKS is None or tensor.dtype is not tile.storage.dtype:
            return False
        access = self._plain_access(tile, region, instruction, span)
        if access.block is None:
            return False
        width = access.width
        if self.checked and not self._gm_written(tensor, raw, width):
            return False
        return self._move(tensor.data, raw, access)

    def _move(self, src: npt.NDArray[np.uint8], src_block: tuple[int, tuple[int, int, int, int],
                                                                  tuple[int, int, int, int]],
              target: _TileAccess) -> bool:
        """One compiled block move into `target` (a tile window), marking what it writes."""
        assert _BLOCKS is not None and target.block is not None and target.known is not None
        known, span = target.known, target.span
        covered = span is None or known.covers(span[0], span[1])
        base, shape, strides = target.block
        moved = bool(_BLOCKS.move_block(src, src_block[0], src_block[1], src_block[2], target.memory, base,
                                        shape, strides, target.width,
                                        None if covered and _MOVE_WITHOUT_FLAGS else target.written))
        if moved and not covered and span is not None and span[2] and _TRACK_RANGES:
            known.add(span[0], span[1])
        return moved

    def move_block(self, src: TileHandle, region: Dims2, dst: TileHandle, instruction: str, span: Span = NO_SPAN,
                   origin: Dims2 = (0, 0), pitch: int | None = None) -> bool:
        """A same-dtype tile-to-tile copy of `region` (at `origin` / `pitch` of the source, to the
        destination's top-left) as one compiled block move; False where it does not apply (as
        `load_block`, and when the two windows' bytes may overlap)."""
        if _BLOCKS is None or src.dtype is not dst.dtype:
            return False
        source = self._tile_access(src, region, instruction, span, pitch, origin)
        target = self._tile_access(dst, region, instruction, span, None, (0, 0))
        if source.block is None or target.block is None:
            return self._move_strided(src, source, dst, target, region)
        if self.checked and not self._access_written(source):
            return False
        assert source.memory is not None
        return self._move(source.memory, source.block, target)

    def _move_strided(self, src: TileHandle, source: _TileAccess, dst: TileHandle, target: _TileAccess,
                      region: Dims2) -> bool:
        """A same-dtype move between two spaces whose windows are strided views but not both
        block forms (Mat Nz -> Right Zn: the boxes' inner order transposes): one NumPy strided
        copy, the written flags marked per tile. False, having done nothing, where that does not
        apply or a source byte is unwritten (the caller's general path reports it)."""
        if src.space is dst.space:  # one buffer: overlapping windows are the general path's
            return False
        values, into = source.values, target.values
        if values is None or into is None or source.flags is None or target.flags is None:
            return False
        if self.checked and not self._access_written(source):
            return False
        if values.shape == into.shape:
            into[...] = values
        else:  # other boxes: both views read in logical (row-major) order at [rows, cols]
            into[...] = values.reshape(region).reshape(into.shape)
        assert target.written is not None and target.known is not None and target.flags is not None
        if self._flags_to_mark(target.written, target.known, target.span) is not None:
            target.flags[...] = target.all_written
        return True

    def store_block(self, tile: TileHandle, tensor: GmTensor, start: Dims2, instruction: str,
                    span: Span = NO_SPAN) -> bool:
        """TSTORE of the tile's valid region into `tensor` at `start` as one compiled block
        move (same dtype, not from Acc); False, having done nothing, where that does not apply
        (no block form, a poisoned source the caller must report)."""
        region = tile.valid
        raw = tensor.byte_block(start, region)
        if raw is None or _BLOCKS is None or tensor.dtype is not tile.storage.dtype:
            return False
        access = self._plain_access(tile, region, instruction, span)
        block = access.block
        if block is None:
            return False
        if self.checked and not self._access_written(access):
            return False
        tensor.own()
        flags = self._gm_flags_to_mark(tensor, block_span(*raw, access.width))
        if flags is None and not _MOVE_WITHOUT_FLAGS:
            flags = tensor.written
        return bool(_BLOCKS.move_block(access.memory, block[0], block[1], block[2], tensor.data, raw[0], raw[1],
                                       raw[2], access.width, flags))

    def mad_tiles(self, lhs: TileHandle, rhs: TileHandle, acc: TileHandle | None, dst: TileHandle, pitch: int,
                  instruction: str, span: Span = NO_SPAN) -> bool:
        """TMATMUL (`acc` None: the chain starts at +0) / TMATMUL_ACC of float operands in one
        compiled call on the tiles' strided windows (backend/_mad.c `mad_tiles`): Left's [M, K],
        Right's [K, N], the accumulator's and the destination's [M, N] at `pitch`. False, having
        written nothing, where that does not apply: a window without a strided view, an
        unwritten operand byte, an integer chain, or an output that came out NaN (the caller's
        path recomputes NaN payloads by the reference chain)."""
        kind = _MAD_TILE_KINDS.get(lhs.storage.dtype)
        if kind is None or _MAD_TILES is None or rhs.storage.dtype is not lhs.storage.dtype:
            return False
        m, k = lhs.valid
        n = rhs.valid[1]
        left = self._tile_access(lhs, (m, k), instruction, span, None, (0, 0))
        right = self._tile_access(rhs, (k, n), instruction, span, None, (0, 0))
        start = None if acc is None else self._tile_access(acc, (m, n), instruction, span, pitch, (0, 0))
        target = self._tile_access(dst, (m, n), instruction, span, pitch, (0, 0))
        operands = (left, right) if start is None else (left, right, start)
        if any(a.values is None or a.flags is None for a in (*operands, target)):
            return False
        assert left.values is not None and right.values is not None and target.values is not None
        if target.values.dtype != np.float32 or (start is not None and start.values is not None
                                                 and start.values.dtype != np.float32):
            return False
        if self.checked and not all(self._access_written(a) for a in operands):
            return False
        a_view, b_view = (left.values, right.values) if kind == 0 else (left.values.view(np.uint16),
                                                                         right.values.view(np.uint16))
        nans = _MAD_TILES(a_view, b_view, None if start is None else start.values, target.values, m, k, n, kind)
        if nans:
            return False
        assert target.written is not None and target.known is not None and target.flags is not None
        if self._flags_to_mark(target.written, target.known, target.span) is not None:
            target.flags[...] = target.all_written
        return True

    def _access_written(self, access: _TileAccess) -> bool:
        """Whether every byte of a strided tile window is written (known ranges, then flags)."""
        block = access.block
        known, span = access.known, access.span
        assert access.written is not None and known is not None
        if block is not None and _BLOCKS is not None:
            return self._span_written(access.written, known, span, block, access.width)
        if span is None or known.covers(span[0], span[1]):
            return True
        if not access.fully_written():
            return False
        if span[2] and _TRACK_RANGES:
            known.add(span[0], span[1])
        return True

    def tile_values(self, tile: TileHandle, region: Dims2, instruction: str, span: Span = NO_SPAN) -> Array | None:
        """The top-left `region` of `tile` as a 2-D strided view of the space's bytes (not a
        copy: the caller only reads it, before anything writes), or None where there is no
        such view or a byte of it is unwritten (the caller's general path reports that)."""
        access = self._plain_access(tile, region, instruction, span)
        values = access.values
        if values is None or values.ndim != 2:
            return None
        if self.checked and not self._access_written(access):
            return None
        return values

    def tile_target(self, tile: TileHandle, region: Dims2, instruction: str,
                    span: Span = NO_SPAN) -> tuple[Array, _TileAccess] | None:
        """A writable 2-D view of the top-left `region` of `tile` for an instruction to compute
        into, with its access for `mark_target` afterwards; None where there is no such view."""
        access = self._plain_access(tile, region, instruction, span)
        if access.values is None or access.values.ndim != 2:
            return None
        return access.values, access

    def mark_target(self, access: _TileAccess) -> None:
        """Record that an instruction wrote every byte of a `tile_target` view."""
        flags = access.flags
        assert flags is not None and access.written is not None and access.known is not None
        if access.block is not None and self._flags_to_mark(access.written, access.known, access.span) is None:
            return
        flags[...] = access.all_written

    _ACCESS_CACHE_CAPACITY = 4096

    def _plain_access(self, tile: TileHandle, region: Dims2, instruction: str, span: Span) -> _TileAccess:
        """`_tile_access(tile, region, ..., pitch None, origin (0, 0))` -- an instruction's
        top-left window of its tile -- memoized per handle: a loop body reaches the same few
        handles every iteration, and comparing the handle's fields with the ones recorded is
        cheaper than hashing the general key. Every field the general key holds is compared."""
        hit = self._plain_cache.get(id(tile))
        if (hit is not None and hit[0] is tile and hit[1] is tile.storage and hit[2] == region
                and hit[3] == tile.valid and hit[4] == tile.shape and hit[5] == tile.origin):
            return hit[6]
        access = self._tile_access(tile, region, instruction, span, None, (0, 0))
        if len(self._plain_cache) >= self._ACCESS_CACHE_CAPACITY:
            self._plain_cache.clear()
        # The entry holds the handle, so its id is not reused while the entry lives.
        self._plain_cache[id(tile)] = (tile, tile.storage, region, tile.valid, tile.shape, tile.origin, access)
        return access

    def _tile_access(self, tile: TileHandle, region: Dims2, instruction: str, span: Span, pitch: int | None,
                     origin: Dims2) -> _TileAccess:
        """How to reach the `region` window of `tile`, memoized: everything it depends on is in
        the key (the storage type holds shape, dtype, view and address; the handle's shape,
        origin and valid extent fix the window and a compact pitch). A failing access raises
        before anything is cached, so its error is reported every time, with its own span."""
        storage = tile.storage
        # By the storage's identity first (hashing a TileType is a Python-level walk over its
        # fields); the entry keeps the storage alive, so the id cannot be reused meanwhile.
        key = (id(storage), tile.shape, tile.origin, tile.valid, region, pitch, origin)
        hit = self._access_cache.get(key)
        if hit is not None and hit[0] is storage:
            return hit[1]
        content_key = (storage, *key[1:])
        plan = _PLANS.get(content_key)
        if plan is None:
            offsets = np.asarray(self.tile_offsets(tile, region, instruction, span, pitch, origin), dtype=np.int64)
            offsets.flags.writeable = False
            plan = (offsets, strided_plan(offsets, self._box_of(tile, pitch)), int(offsets.max(initial=-1)))
            if len(_PLANS) >= self._ACCESS_CACHE_CAPACITY:
                _PLANS.clear()
            _PLANS[content_key] = plan
        access = self._strided_access(tile.space, tile.dtype, plan[0], plan[1], plan[2])
        if len(self._access_cache) >= self._ACCESS_CACHE_CAPACITY:
            self._access_cache.clear()
        self._access_cache[key] = (storage, access)
        return access

    def _box_of(self, tile: TileHandle, pitch: int | None) -> Dims2:
        shape = _dims2(tile.storage.shape)
        layout = resolve_layout(tile.view, shape, tile.storage.dtype, self._pitch_valid(tile), pitch)
        return (layout.box_rows, layout.box_cols)

    def _typed_memory(self, space: MemorySpace, dtype: DataType) -> Array:
        key = (space, dtype)
        typed = self._typed.get(key)
        if typed is None:
            typed = self._typed[key] = self.memory[space].view(np_dtype_of(dtype))
        return typed

    def _strided_access(self, space: MemorySpace, dtype: DataType, offsets: IntArray,
                        plan: tuple[int, tuple[int, ...], tuple[int, ...]] | None, largest: int) -> _TileAccess:
        """Views of the window as strided arrays over the space's bytes when its offsets are
        affine per axis (`strided_plan`: 2-D, or 4-D over the layout's boxes); the byte index
        otherwise."""
        width = dtype.byte_width
        if plan is None:
            byte_index = self._byte_index(offsets, width)
            byte_index.flags.writeable = False
            return _TileAccess(offsets, byte_index, None, None)
        base, shape, strides = plan
        typed = self._typed_memory(space, dtype)
        if largest >= typed.size or base < 0:  # (`largest`: offsets.max(), kept in the plan)
            raise AssertionError("tile window outside its space after the bounds checks")
        byte_strides = tuple(s * width for s in strides)
        # (The ndarray constructor checks the view lies inside its buffer; as_strided does not,
        # and costs ~20x more.)
        values = np.ndarray(shape, typed.dtype, typed, base * width, byte_strides)
        # The written flags of an element's bytes read as one unsigned integer: 0x01...01
        # exactly when every byte was written (flags are 0 / 1), so one min() checks a tile.
        flag_words = self.written[space].view(np.uint8).view(_FLAG_WORD[width])
        flags = np.ndarray(shape, flag_words.dtype, flag_words, base * width, byte_strides)
        shape4, strides4 = ((1, shape[0], 1, shape[1]), (0, byte_strides[0], 0, byte_strides[1])) if len(shape) == 2 \
            else (shape, byte_strides)
        block = None
        span = strided_span(base * width, tuple(shape), byte_strides, width)
        if strides4[3] == width or shape4[3] == 1:
            inner = (*strides4[:3], width)
            block = (base * width, (shape4[0], shape4[1], shape4[2], shape4[3]), (inner[0], inner[1], inner[2], inner[3]))
            span = block_span(*block, width)
        return _TileAccess(offsets, None, values, flags, _ALL_WRITTEN[width], block, span, width, self.memory[space],
                           self.written[space], self.known[space])

    # -- byte-level access -------------------------------------------------------------------

    @staticmethod
    def _byte_index(offsets: IntArray, width: int) -> IntArray:
        return np.asarray(offsets[..., None] * width + np.arange(width, dtype=np.int64), dtype=np.int64)

    def _gather(self, memory: npt.NDArray[np.uint8], offsets: IntArray, dtype: DataType) -> Array:
        width = dtype.byte_width
        raw = memory[self._byte_index(offsets, width)]
        return np.ascontiguousarray(raw).view(np_dtype_of(dtype)).reshape(offsets.shape)

    @staticmethod
    def _scatter(memory: npt.NDArray[np.uint8], written: npt.NDArray[np.bool_], offsets: IntArray, values: Array,
                 dtype: DataType) -> None:
        width = dtype.byte_width
        typed = np.ascontiguousarray(np.asarray(values).astype(np_dtype_of(dtype), copy=False))
        raw = typed.reshape(-1).view(np.uint8).reshape(-1, width)
        index = Machine._byte_index(offsets.reshape(-1), width)
        memory[index] = raw
        written[index] = True

    def _check_written(self, written: npt.NDArray[np.bool_], offsets: IntArray, dtype: DataType, instruction: str,
                       name: str, index: tuple[Array, ...], span: Span, buffer: str = "",
                       out_param: bool = False) -> None:
        width = dtype.byte_width
        ok = written[self._byte_index(offsets, width)].all(axis=-1)
        if ok.all():
            return
        first = np.unravel_index(int(np.flatnonzero(~ok.reshape(-1))[0]), ok.shape)
        element = tuple(int(np.asarray(i)[first]) for i in index)
        raise PoisonRead(instruction, name, element, span, buffer, out_param)

    # -- helpers used by tests and the executor ----------------------------------------------

    def tile_bytes(self, tile: TileType) -> npt.NDArray[np.uint8]:
        """The raw bytes of `tile`'s allocation (a copy)."""
        if tile.memref is None or tile.memory_space is None:
            raise SimulationError("tile_bytes needs a placed, addressed tile")
        start = tile.memref.offset
        return self.memory[tile.memory_space][start:start + tile.nbytes].copy()


def _coerce(values: Array, dtype: DataType, name: str) -> Array:
    """Accept inputs as the dtype itself or as same-width raw bit patterns (npz cannot name bf16)."""
    target = np_dtype_of(dtype)
    if values.dtype == target:
        return values
    if values.dtype.itemsize == target.itemsize and values.dtype.kind in "uV":
        return np.ascontiguousarray(values).view(target)
    raise SimulationError(
        f"input {name!r} has dtype {values.dtype}, but the kernel parameter is {dtype.name}",
        hint=f"pass a {dtype.name} array (or its {target.itemsize}-byte bit patterns)")


def with_valid(tile: TileHandle, valid: Dims2) -> TileHandle:
    """A copy of `tile` with a new valid extent (metadata only)."""
    return replace(tile, valid=valid)


__all__ = [
    "GmTensor",
    "Machine",
    "PoisonRead",
    "SimulationError",
    "TileHandle",
    "element_offsets",
    "handle_for",
    "with_valid",
]
