"""Terminal types shared by every language: data types, tensor / tile / scalar types, views, MemRefs.

Types are terminals of the grammar (immutable values compared structurally); what a language
admits of them is stated by its *type forms* (see `languages.type_forms`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TypeAlias, Union

from languages.memory_space import MemorySpace


class DataType(enum.Enum):
    """Element types: value = (bits, MLIR spelling, is_float, is_signed)."""

    BOOL = (1, "i1", False, False)
    INT4 = (4, "i4", False, True)
    INT8 = (8, "i8", False, True)
    INT16 = (16, "i16", False, True)
    INT32 = (32, "i32", False, True)
    INT64 = (64, "i64", False, True)
    INDEX = (64, "index", False, True)
    UINT4 = (4, "ui4", False, False)
    UINT8 = (8, "ui8", False, False)
    UINT16 = (16, "ui16", False, False)
    UINT32 = (32, "ui32", False, False)
    UINT64 = (64, "ui64", False, False)
    FP4 = (4, "f4E2M1FN", True, True)
    FP8E4M3FN = (8, "f8E4M3FN", True, True)
    FP8E5M2 = (8, "f8E5M2", True, True)
    FP16 = (16, "f16", True, True)
    FP32 = (32, "f32", True, True)
    FP8E8M0 = (8, "f8E8M0FNU", True, False)
    BF16 = (16, "bf16", True, True)
    HF4 = (4, "hf4", True, True)
    HF8 = (8, "hf8", True, True)

    @property
    def bits(self) -> int:
        return self.value[0]

    @property
    def mlir(self) -> str:
        return self.value[1]

    @property
    def is_float(self) -> bool:
        return self.value[2]

    @property
    def is_signed(self) -> bool:
        return self.value[3]

    @property
    def is_int(self) -> bool:
        return not self.value[2] and self is not DataType.BOOL

    @property
    def byte_width(self) -> int:
        return (self.bits + 7) // 8

    @property
    def pl_name(self) -> str:
        return f"pl.{self.name}"

    @classmethod
    def parse(cls, name: str) -> DataType:
        """From 'FP32', 'pl.FP32', 'f32' or 'fp32'."""
        key = name.removeprefix("pl.")
        if key.upper() in cls.__members__:
            return cls[key.upper()]
        for dt in cls:
            if dt.mlir == key:
                return dt
        raise KeyError(name)


# Layout vocabulary of a TileView (TARGET_FACTS.md "Memory spaces and implicit tile views").
BLAYOUTS = ("row_major", "col_major")
SLAYOUTS = ("none_box", "row_major", "col_major")
PADS = ("null", "zero", "max", "min")

Dims: TypeAlias = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class TileView:
    """Physical organisation of a tile: box layout, inner layout, fractal bytes, pad, compact."""

    blayout: str = "row_major"
    slayout: str = "none_box"
    fractal: int = 512
    pad: str = "null"
    compact: bool = False


@dataclass(frozen=True, slots=True)
class MemRef:
    """A buffer in one memory space: `name` identifies it (aliases share the name),
    `offset` is its byte address inside the space, `size` its byte size."""

    name: str
    space: MemorySpace
    offset: int
    size: int


@dataclass(frozen=True, slots=True)
class ScalarType:
    dtype: DataType


@dataclass(frozen=True, slots=True)
class TensorType:
    """A GM tensor. `valid_shape` None means the whole shape is valid."""

    shape: Dims
    dtype: DataType
    valid_shape: Dims | None = None

    @property
    def valid(self) -> Dims:
        return self.shape if self.valid_shape is None else self.valid_shape


@dataclass(frozen=True, slots=True)
class TileType:
    """An on-chip tile. `memory_space` None = not placed yet; `view` None = the implicit view
    of its space (resolved by InferTileMemorySpace); `memref` set from InitMemRef on."""

    shape: Dims
    dtype: DataType
    valid_shape: Dims | None = None
    memory_space: MemorySpace | None = None
    view: TileView | None = None
    memref: MemRef | None = None

    @property
    def valid(self) -> Dims:
        return self.shape if self.valid_shape is None else self.valid_shape

    @property
    def nbytes(self) -> int:
        n = self.dtype.byte_width
        for d in self.shape:
            n *= d
        return n


@dataclass(frozen=True, slots=True)
class TupleType:
    types: tuple[Type, ...] = field(default=())


@dataclass(frozen=True, slots=True)
class NoneType:
    """The type of a call that yields no value."""


@dataclass(frozen=True, slots=True)
class ViewType:
    """PTO only: a `!pto.tensor_view` (kind "tensor_view") or `!pto.partition_tensor_view`
    (kind "partition_tensor_view") over GM."""

    kind: str
    shape: Dims
    dtype: DataType


Type: TypeAlias = Union[ScalarType, TensorType, TileType, TupleType, NoneType, ViewType]

# A keyword attribute value on a call: `target_memory=pl.Mem.Mat`, `compact=True`, `mode="round"`.
AttrValue: TypeAlias = Union[int, float, bool, str, DataType, MemorySpace, tuple[int, ...], None]
Attrs: TypeAlias = tuple[tuple[str, AttrValue], ...]

INDEX = ScalarType(DataType.INDEX)
BOOL = ScalarType(DataType.BOOL)


def attr(attrs: Attrs, name: str, default: AttrValue = None) -> AttrValue:
    for key, value in attrs:
        if key == name:
            return value
    return default


def with_attr(attrs: Attrs, name: str, value: AttrValue) -> Attrs:
    """Return attrs with `name` set (replaced in place, or appended)."""
    out = [(k, value if k == name else v) for k, v in attrs]
    if all(k != name for k, _ in attrs):
        out.append((name, value))
    return tuple(out)
