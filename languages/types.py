"""Terminal types shared by every language: data types, tensor / tile / scalar types, views, MemRefs.

Types are terminals of the grammar (immutable values compared structurally); what a language
admits of them is stated by its *type forms* (see `languages.type_forms`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace as _replace
from typing import Callable, TypeAlias, Union

from typing_extensions import override

from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.node import NO_SPAN, Span

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


@dataclass(frozen=True, slots=True, repr=False)
class SymbolicExtent:
    """A valid extent known only at run time: the value of the INDEX scalar variable `name`
    (PyPTO keeps `valid_shape=[rows, 16]` on a load, a slice or `set_validshape` symbolic).
    The variable is in scope wherever a type carrying the extent is (the SymbolicExtentsBound
    verifier); `span` is where it is defined, for diagnostics only (not part of the identity)."""

    name: str
    span: object = field(default=None, compare=False, hash=False, repr=False)

    @override
    def __str__(self) -> str:
        return self.name

    @override
    def __repr__(self) -> str:  # as the DSL spells it: `valid_shape=[rows, 16]`
        return self.name


# PTO's spelling of a runtime extent (`v_row=?`): the tile_buf handle carries the value, which
# `pto.set_validshape` sets; a `ViewType` dimension of -1 (MLIR's dynamic size) is printed `?`.
DYNAMIC_EXTENT = SymbolicExtent("?")
DYNAMIC_DIM = -1

# One valid extent: a constant, or a runtime value (a `SymbolicExtent`).
Extent: TypeAlias = Union[int, SymbolicExtent]
ValidDims: TypeAlias = tuple[Extent, ...]


class SymbolicExtentUnsupported(CompileError):
    """Raised by `.valid` when the valid shape holds a runtime extent: code that reads `.valid`
    needs constant extents and has not been taught the symbolic case (it reads `.valid_extents`
    when it has). A user-facing "not supported yet", located where the extent was written; the
    op registry rewords it at the call when a deducer raises it."""

    def __init__(self, extent: SymbolicExtent) -> None:
        self.extent = extent
        span = extent.span if isinstance(extent.span, Span) else NO_SPAN
        super().__init__(Diagnostic(
            "SymbolicValidShape",
            f"not supported yet: the runtime valid extent `{extent.name}` reaches a step that needs a "
            "constant valid shape", span,
            "runtime valid extents flow through loads, slices, set_validshape, element-wise ops and "
            "stores; give the other operations a constant valid shape"))

    @override
    def __str__(self) -> str:
        return f"the runtime valid extent `{self.extent.name}`"


def static_valid(valid: ValidDims) -> Dims:
    """`valid` as constant extents, or SymbolicExtentUnsupported naming its first runtime one."""
    for extent in valid:
        if isinstance(extent, SymbolicExtent):
            raise SymbolicExtentUnsupported(extent)
    return valid  # type: ignore[return-value]  # every extent is an int (checked above)


def packed_strides(shape: Dims) -> Dims:
    """The element strides of a contiguous row-major (ND) tensor of `shape`."""
    strides: list[int] = []
    step = 1
    for dim in reversed(shape):
        strides.append(step)
        step *= dim if isinstance(dim, int) else 1
    return tuple(reversed(strides))


def is_pitched_row_major(shape: Dims, strides: Dims) -> bool:
    """Whether `strides` lay `shape` out row-major with rows possibly further apart than packed
    (the strides of a window of a wider row-major tensor): the last axis is unit-stride and each
    axis steps over at least the whole of the next one."""
    if len(strides) != len(shape) or not shape or strides[-1] != 1:
        return False
    return all(strides[k] >= strides[k + 1] * shape[k + 1] for k in range(len(shape) - 1))


def known_extents(valid: ValidDims) -> Dims:
    """The extents a static check can rely on: a runtime extent counts as 0 (it is only known
    to lie within its bound, which deduction states and the interpreter / simulator check)."""
    return tuple(0 if isinstance(e, SymbolicExtent) else e for e in valid)


def is_symbolic(valid: ValidDims | None) -> bool:
    return valid is not None and any(isinstance(e, SymbolicExtent) for e in valid)


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
    """A GM tensor. `valid_shape` None means the whole shape is valid. `strides` are its element
    strides in GM when they are not the packed row-major ones of `shape` (a window of a wider
    tensor: a column block of [64, 64] is [64, 16] at strides [64, 1]); None means packed, and a
    packed stride tuple is stored as None so that equal layouts compare equal."""

    shape: Dims
    dtype: DataType
    valid_shape: ValidDims | None = None
    strides: Dims | None = None

    def __post_init__(self) -> None:
        if self.strides is not None and tuple(self.strides) == packed_strides(self.shape):
            object.__setattr__(self, "strides", None)

    @property
    def element_strides(self) -> Dims:
        """The element strides in GM: the declared ones, else the packed row-major ones."""
        return self.strides if self.strides is not None else packed_strides(self.shape)

    @property
    def valid(self) -> Dims:
        """The constant valid extents (SymbolicExtentUnsupported if one is a runtime value)."""
        return self.shape if self.valid_shape is None else static_valid(self.valid_shape)

    @property
    def valid_extents(self) -> ValidDims:
        """The valid extents, runtime ones included."""
        return self.shape if self.valid_shape is None else self.valid_shape


@dataclass(frozen=True, slots=True)
class TileType:
    """An on-chip tile. `memory_space` None = not placed yet; `view` None = the implicit view
    of its space (resolved by InferTileMemorySpace); `memref` set from InitMemRef on."""

    shape: Dims
    dtype: DataType
    valid_shape: ValidDims | None = None
    memory_space: MemorySpace | None = None
    view: TileView | None = None
    memref: MemRef | None = None

    @property
    def valid(self) -> Dims:
        """The constant valid extents (SymbolicExtentUnsupported if one is a runtime value)."""
        return self.shape if self.valid_shape is None else static_valid(self.valid_shape)

    @property
    def valid_extents(self) -> ValidDims:
        """The valid extents, runtime ones included."""
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


def map_extents(ty: Type, resolve: "Callable[[SymbolicExtent], Extent]") -> Type:
    """`ty` with every runtime valid extent replaced by `resolve(extent)` (a renamed variable,
    or the constant it is known to be); a valid shape that becomes the full shape is dropped."""
    if isinstance(ty, TupleType):
        return TupleType(tuple(map_extents(t, resolve) for t in ty.types))
    if not isinstance(ty, (TensorType, TileType)) or not is_symbolic(ty.valid_shape):
        return ty
    assert ty.valid_shape is not None
    valid = tuple(resolve(e) if isinstance(e, SymbolicExtent) else e for e in ty.valid_shape)
    return _replace(ty, valid_shape=None if valid == ty.shape else valid)


def symbolic_extents(ty: Type) -> tuple[SymbolicExtent, ...]:
    """The runtime valid extents `ty` mentions (tuple elements included)."""
    if isinstance(ty, TupleType):
        return tuple(e for t in ty.types for e in symbolic_extents(t))
    if isinstance(ty, (TensorType, TileType)) and ty.valid_shape is not None:
        return tuple(e for e in ty.valid_shape if isinstance(e, SymbolicExtent))
    return ()


def equal_but_memrefs(a: object, b: object) -> bool:
    """Whether two field values are equal once the MemRefs in them are disregarded: two tile
    types that differ only in their buffers (or tuples of such types) are. The "memrefs"
    aspect of the compiler plugin: MemoryReuse and AllocateMemoryAddr rebuild every function
    but change only these."""
    if isinstance(a, TileType) and isinstance(b, TileType):
        return (a.shape == b.shape and a.dtype == b.dtype and a.valid_shape == b.valid_shape
                and a.memory_space == b.memory_space and a.view == b.view)
    if isinstance(a, TupleType) and isinstance(b, TupleType):
        return len(a.types) == len(b.types) and all(
            x is y or equal_but_memrefs(x, y) for x, y in zip(a.types, b.types))
    return a == b
