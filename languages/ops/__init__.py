"""The op registry: every operator fact, stated once, as data (ARCHITECTURE.md section 4).

An `OpDef` declares an operator's operands (with their memory-space constraint and argument
effect), its attributes, its type deduction, where its result lives, whether source and result
may share an address, its reference semantics key, its tensor->tile conversion and the PTO
instructions it emits.  Passes, verifiers, the interpreter, the codegen and the simulator read
these declarations; none restates them.

Semantics keys (`OpDef.semantics`) name the value-level meaning the interpreter and the
simulator implement with `backend.numerics` (the arithmetic itself lives there):

- ("binary", op)         out = op(lhs, rhs) element-wise on same-shape operands (tensor ops
                          broadcast NumPy-style first); op in add sub mul div max min.
- ("scalar_binary", op)  out = op(x, scalar) element-wise, scalar converted to x's dtype first.
- ("unary", op)          out = op(x) element-wise; op in exp log sqrt rsqrt abs neg rec relu.
- ("reduce_row", kind)   out[..., i, 0] = kind over the valid columns of row i (kind sum max min).
- ("reduce_col", kind)   out[0, j] = kind over the valid rows of column j.
- ("row_expand", op)     out[i, j] = op(x[i, j], row[i, 0]).
- ("col_expand", op)     out[i, j] = op(x[i, j], col[0, j]).
- ("matmul",)            out = lhs @ rhs (after a_trans / b_trans), accumulated from +0.
- ("matmul_acc",)        out = acc + lhs @ rhs in place; with a true init_cond acc starts at +0.
- ("matmul_bias",)       out = lhs @ rhs accumulated from the bias row (broadcast over the rows).
- ("cast",)              out = cast(x, x.dtype -> dtype, mode).
- ("load",)              tile = tensor[offsets : offsets + valid] (pad outside the valid region).
- ("store",)             tensor[offsets : offsets + tile.valid] = tile; result is the tensor.
- ("move",)              out = x, copied into another buffer / memory space.
- ("extract",)           out = src[row : row + rows, col : col + cols] into another buffer.
- ("slice",)             out = src[offsets : offsets + shape] (a view, no copy).
- ("assemble",)          out = target with target[offsets : offsets + source.shape] = source.
- ("create",)            a fresh buffer of the shape; contents undefined.
- ("full",)              a fresh buffer filled with `value`.
- ("reshape",)           the same elements in row-major order under a new shape.
- ("transpose",)         out = swapaxes(x, axis1, axis2) (a copy).
- ("transpose_view",)    out = x.T over the same bytes (no copy).
- ("set_validshape",)    the same data with a new valid extent.
- ("read",)              scalar = x[indices].
- ("write",)             x[indices] = value; result is x.
- ("dim",)               scalar = x.shape[axis].

Call spelling: positional arguments of a call bind, in order, to `OpDef.param_order` (operand
names, then the attributes declared `positional`, unless `signature` orders them otherwise); a
keyword binds to the operand or attribute of that name.  Attributes are the keywords that are
not operands.
"""

from __future__ import annotations

import difflib
import enum
import importlib
from dataclasses import dataclass, replace
from typing import Callable, Hashable, Iterator, Sequence, TypeVar, Union

from languages.memory_space import MemorySpace
from languages.ops.target_rules import FlatRowMajor, TargetRule
from languages.types import (
    BOOL,
    SymbolicExtentUnsupported,
    AttrValue,
    Attrs,
    DataType,
    Dims,
    ScalarType,
    TensorType,
    TileType,
    NoneType,
    TupleType,
    TileView,
    Type,
    ViewType,
    known_extents,
)
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.node import NO_SPAN, Node, Span
from languages.views import make_tile_type


class Effect(enum.Flag):
    """What an operator does to an argument's storage (the spec's set_arg_effect)."""

    READ = 1
    WRITE = 2
    READ_WRITE = READ | WRITE


READ = Effect.READ
WRITE = Effect.WRITE
READ_WRITE = Effect.READ_WRITE

OPERAND_KINDS = frozenset({"tensor", "tile", "scalar", "tensor_or_tile", "tensor_or_scalar", "int_list", "any"})
ATTR_KINDS = frozenset({"int", "float", "number", "bool", "str", "dtype", "memory_space", "int_list"})


@dataclass(frozen=True)
class IndexDomain:
    """The values an index operand must hold for the op's result to be defined: positions in
    operand `into` -- flat element indices (`axis` None), indices along `axis`, or, with
    `block_bytes`, byte offsets of whole blocks of that many bytes (multiples of it, the block
    inside the operand).  `distinct`: no two indices (of one row, for axis -1) name the same
    place (a scatter writing one place twice depends on the order of its writes).  `when`
    restricts it to calls whose attributes have these values (mgather's coalesce mode).
    `pitched`: flat indices count a 2-D tile's Vec buffer, whose rows are padded to 32 bytes
    (`languages.layout.flat_index_pitch`: TGATHER / TSCATTER's index form), so the elements
    are the first `cols` positions of every pitch-long row.
    Random inputs (backend.arrays.random_inputs) and the generator read it."""

    into: int
    axis: int | None = None
    block_bytes: int = 0
    distinct: bool = False
    when: tuple[tuple[str, "AttrValue"], ...] = ()
    pitched: bool = False


@dataclass(frozen=True)
class OperandDecl:
    """One operand.

    `literal_dtype` says what a bare literal operand becomes (see `Registry.adopt_literals`).
    `input_memory` is the space the operator reads this operand from (set_input_memory): the
    only place such a constraint is stated.  `accepted_memory` lists the spaces the operand may
    sit in without a move when there is no single demanded space (e.g. tile.store reads Vec or
    Acc).  `variadic` is allowed on the last operand only.
    """

    name: str
    kind: str
    input_memory: MemorySpace | None = None
    accepted_memory: tuple[MemorySpace, ...] = ()
    effect: Effect = Effect.READ
    optional: bool = False
    variadic: bool = False
    # The dtype a bare literal given for this scalar operand adopts (spec: "a constant scalar
    # operand adopts the tile's element dtype"): an operand index (that value's element dtype),
    # an attribute name (tile.full's `dtype`), or a fixed dtype (tile.tri's INT32 diagonal).
    literal_dtype: int | str | DataType | None = None
    # The op rewrites this operand's tile handle in place (pto.set_validshape changes its
    # valid_row / valid_col): it must be an allocation, an `if` result or a pop slot, never a
    # view (`Registry.makes_view_handle`), which carries its valid extent in its own type.
    handle_only: bool = False
    # The positions an index operand's values must name (IndexDomain); empty for data.
    index_domain: tuple[IndexDomain, ...] = ()
    # Every core taking part updates this GM operand atomically (a soft barrier's counters):
    # the cores of a mixed kernel all write it, and by design that is not a race.
    shared_by_cores: bool = False

    def __post_init__(self) -> None:
        if self.kind not in OPERAND_KINDS:
            raise ValueError(f"operand {self.name!r}: unknown kind {self.kind!r}")

    @property
    def legal_spaces(self) -> tuple[MemorySpace, ...]:
        """Spaces in which the operator can read this operand directly (empty = any)."""
        if self.accepted_memory:
            return self.accepted_memory
        return (self.input_memory,) if self.input_memory is not None else ()


@dataclass(frozen=True)
class AttrDecl:
    """A keyword attribute; `choices` restricts its values, `positional` lets a call pass it
    positionally after the operands (e.g. `pl.tile.cast(x, pl.BF16)`)."""

    name: str
    kind: str
    default: AttrValue = None
    choices: tuple[AttrValue, ...] = ()
    positional: bool = False

    def __post_init__(self) -> None:
        if self.kind not in ATTR_KINDS:
            raise ValueError(f"attribute {self.name!r}: unknown kind {self.kind!r}")


# -- where a result lives ------------------------------------------------------------------------


@dataclass(frozen=True)
class Fixed:
    """The result always lives in `space` (e.g. element-wise ops -> Vec, matmul -> Acc)."""

    space: MemorySpace


@dataclass(frozen=True)
class FromAttr:
    """The result lives where the named attribute says (tile.load / create / move / extract)."""

    name: str = "target_memory"


@dataclass(frozen=True)
class InheritInput:
    """The result lives in the same space as operand `index` (a fresh buffer there)."""

    index: int


@dataclass(frozen=True)
class ReusesInput:
    """The result *is* operand `index`'s buffer (matmul_acc's accumulator, store's tensor)."""

    index: int


OutputMemory = Union[Fixed, FromAttr, InheritInput, ReusesInput, None]


# -- tensor -> tile conversion ------------------------------------------------------------------


@dataclass(frozen=True)
class TileInput:
    """A tensor-op operand that must reach the converter as a tile.

    The space it is loaded into is *derived*, never written here: `space_of` names every tile op
    that can consume it and `consumer_arg` the operand position there; the registry reads those
    ops' `input_memory` (BridgeSpaceOf) and stages it through `staging_space_for_load`.  An empty
    `space_of` demands nothing (the load follows downstream demand or InferTileMemorySpace).
    `transpose_attr` names the tensor-op attribute that makes the operand a zero-copy
    `tile.transpose_view` of its natural load; `cube_m_axis` / `cube_n_axis` ask for the axis
    carrying M / N to be boxed (physical extent rounded up, true extent in valid_shape);
    `aligned_n` says the conversion does not box this operand's N axis, so an N that is not a
    whole number of its boxes is declined (spec, "The N granularity": a matmul_acc's accumulator
    must agree with the product on physical N, and nothing boxes the tile that allocates it).
    """

    arg: int
    space_of: tuple[str, ...] = ()
    consumer_arg: int | None = None
    transpose_attr: str | None = None
    cube_m_axis: bool = False
    cube_n_axis: bool = False
    aligned_n: bool = False

    @property
    def consumer_index(self) -> int:
        return self.arg if self.consumer_arg is None else self.consumer_arg


@dataclass(frozen=True)
class TileConversion:
    """How ConvertTensorToTileOps lowers a tensor op.

    `tile_op` is the tile op it becomes; `tile_inputs` the operands bridged into tiles;
    `self_loading` ops (slice, assemble, create, ...) build their own loads/stores because the
    offsets and shapes are part of the lowering; `scalar_rhs_op` is the tile op used when operand 1
    is a scalar; `row_broadcast_op` the one used when operand 1 is a [.., 1] row broadcast of
    operand 0, `col_broadcast_op` when it is a [1, n] column broadcast of a 2-D operand 0;
    `scratch_like` asks for a synthesized scratch operand.  Attributes the tile op declares
    under the same name are forwarded.
    """

    tile_op: str
    tile_inputs: tuple[TileInput, ...] = ()
    self_loading: bool = False
    scalar_rhs_op: str | None = None
    row_broadcast_op: str | None = None
    col_broadcast_op: str | None = None
    # The tile op takes a trailing scratch tile the tensor op does not (pto.txor's tmp): the
    # converter allocates one of operand `scratch_like`'s shape and dtype in the same space.
    scratch_like: int | None = None
    # The tile op for operands of rank > 2 (tensor.matmul -> tile.batch_matmul).
    batched_op: str | None = None
    # A boolean attribute of the tensor op that the scratch depends on: the scratch is only
    # synthesized while it is true (tensor.rsqrt(high_precision=True) -> tile.rsqrt(x, tmp)).
    scratch_when: str | None = None
    # Tile ops a self-loading lowering emits on the tensor op's data besides `tile_op` (the
    # scatter update's sel blend): their target rules bind the tensor op too.
    lowered_with: tuple[str, ...] = ()

    @property
    def target_ops(self) -> tuple[str, ...]:
        extra = (self.scalar_rhs_op, self.row_broadcast_op, self.col_broadcast_op, self.batched_op)
        return (self.tile_op, *(op for op in extra if op is not None), *self.lowered_with)


class DeductionError(Exception):
    """Raised by a deducer: `operand` is the index of the offending operand, if any."""

    def __init__(self, message: str, operand: int | None = None, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.operand = operand
        self.hint = hint


@dataclass(frozen=True)
class Window:
    """A window the op reads or writes inside operand `source` (a tensor or a tile): it starts at
    `offsets` (an int-list operand index, or a tuple of scalar operand indices, one per axis)
    and spans the first extent of `extent` that the call provides, each one of
    ("list", i): the int-list operand i; ("valid", i): operand i's valid shape;
    ("shape", i): operand i's shape; ("attr", name): an int-list attribute; ("ones",): 1 per axis.
    The static-bounds verifier checks it over every iteration of the enclosing loops; the
    generator reads it to keep windows inside their sources."""

    source: int
    offsets: int | tuple[int, ...]
    extent: tuple[tuple[str | int, ...], ...]


def window_extent(window: Window, call: Node, rank: int) -> tuple[int, ...] | None:
    """The extents of `call`'s window (`Window.extent`, the first source the call provides),
    a runtime extent counting as 0; None when the call states none of them."""
    args: tuple[Node, ...] = getattr(call, "args")
    for source in window.extent:
        kind = source[0]
        if kind == "ones":
            return (1,) * rank
        if kind == "attr":
            value = dict(getattr(call, "attrs")).get(str(source[1]))
            if isinstance(value, tuple):
                return tuple(int(v) for v in value)
            continue
        index = int(source[1])
        if index >= len(args):
            continue
        if kind == "list":
            return _list_extents(args[index])
        ty = getattr(args[index], "type", None)
        if isinstance(ty, (TensorType, TileType)):
            return known_extents(ty.valid_extents) if kind == "valid" else ty.shape
    return None


def _list_extents(node: Node) -> tuple[int, ...] | None:
    """A list operand's extents; a runtime extent (a variable) counts as 0: like an offset that
    depends on a parameter, it is left to run time."""
    found = static_ints(node)
    if found is not None or node.KIND != "TupleExpr":
        return found
    extents: list[int] = []
    for element in getattr(node, "elements"):
        constant = static_int(element)
        if constant is None and element.KIND != "Var":
            return None
        extents.append(0 if constant is None else constant)
    return tuple(extents)


def window_offsets(window: Window, call: Node) -> tuple[Node, ...] | None:
    """The offset expressions of `call`'s window, one per axis (None: not written as a list)."""
    args: tuple[Node, ...] = getattr(call, "args")
    if isinstance(window.offsets, tuple):
        return tuple(args[i] for i in window.offsets) if max(window.offsets) < len(args) else None
    if window.offsets >= len(args) or args[window.offsets].KIND != "TupleExpr":
        return None
    return tuple(getattr(args[window.offsets], "elements"))


Deducer = Callable[[Sequence[Node], Attrs], Type]


@dataclass(frozen=True)
class CompletedBy:
    """A call of the op is made whole by a lowering pass, not by an instruction of its own:
    `pass_name` expands it into other ops (tile.scatter_mask: the flat index and tile.scatter) or
    adds operands the call leaves implicit (a soft syncall's on-chip workspaces). `gap(args,
    attrs)` says what a call as written still lacks ("" when it is complete), so a program that
    enters the pipeline after that pass (written at `after` or a later language) and has such a
    call is refused at it (the grammar's operand form `completed-calls`; `fix` says how)."""

    pass_name: str
    after: str
    gap: Callable[[Sequence[Node], Attrs], str]
    fix: str


# An expression node of whichever language a pass rewrites (a view's arguments taken again).
N = TypeVar("N")
# The region of a view's source that must be valid for the view to be valid over `wanted`:
# (source type, view type, the view call's arguments, its attributes, wanted) -> the region, or
# None when no region of the source gives exactly `wanted` (a reinterpretation splitting an
# element, a reshape box that maps to no box of the source).
SourceRegion = Callable[[Type, Type, Sequence[Node], Attrs, tuple[int, ...]], "tuple[int, ...] | None"]


@dataclass(frozen=True)
class ViewValid:
    """How a view's valid region is made (an op of family "view"), so that a consumer reading the
    view past its valid region -- where DefinedReads proved its source's bytes hold data -- can
    take it again over the region read (a view handle takes no set_validshape, and PTOAS wants
    an element-wise instruction's sources valid over one region).

    `operands`: the operands stating the view's valid region themselves, either one int-list
    operand (a window's or a reshape's optional valid_shape, appended when absent) or one scalar
    operand per axis (set_validshape); () when the view's valid region is derived from its
    source's (a reinterpretation, a transpose view). `source_region`: the region of the source
    that must be valid for the view taken again to be valid over a wanted region (the source's
    own valid region when the view needs nothing more of it)."""

    operands: tuple[int, ...]
    source_region: SourceRegion

    def source_fits(self, source_valid: Sequence[object], needed: Sequence[int]) -> bool:
        """Whether a source valid over `source_valid` serves the view taken again over a region
        needing `needed` of it: a view stating its own valid region needs the source valid over at
        least `needed`, one deriving it from its source's needs the source valid over exactly it."""
        if self.operands:
            return all(isinstance(v, int) and v >= n for v, n in zip(source_valid, needed))
        return tuple(source_valid) == tuple(needed)

    def stated(self, args: Sequence[N], wanted: Sequence[int], as_list: Callable[[Sequence[int]], N],
               as_index: Callable[[int], N]) -> tuple[N, ...] | None:
        """The view's arguments `args` (its source first, as it is to be) stating the valid region
        `wanted`: its int-list operand replaced (or appended when the optional operand is absent), or
        its per-axis scalar operands; `args` as they are for a view stating none. None: the
        arguments do not fit the fact."""
        out = list(args)
        if not self.operands:
            return tuple(out)
        if len(self.operands) == 1:
            index = self.operands[0]
            if index < len(out):
                out[index] = as_list(wanted)
            elif index == len(out):
                out.append(as_list(wanted))
            else:
                return None
            return tuple(out)
        if len(self.operands) != len(wanted) or max(self.operands) >= len(out):
            return None
        for index, extent in zip(self.operands, wanted):
            out[index] = as_index(extent)
        return tuple(out)
# Chooses the view of a result the registry places in `space` (default: the implicit view).
ViewRule = Callable[[TileType, Sequence[Node], MemorySpace], TileView]


@dataclass(frozen=True)
class OpDef:
    name: str
    operands: tuple[OperandDecl, ...]
    deduce: Deducer
    semantics: tuple[str, ...]
    family: str
    attrs: tuple[AttrDecl, ...] = ()
    output_memory: OutputMemory = None
    # None: the family's default (IN_PLACE_SAFE_FAMILIES); see `may_write_over`.
    in_place_safe: bool | None = None
    # The operands an in-place-safe op may write its result over (None: every operand it reads).
    # tile.assemble writes in place over its target only: its emitted form first copies the
    # target into the result's buffer, so a result sharing the source's buffer would overwrite
    # the source before reading it.
    in_place_operands: tuple[int, ...] | None = None
    to_tile: TileConversion | None = None
    pto: tuple[str, ...] = ()
    signature: tuple[str, ...] | None = None
    result_view: ViewRule | None = None
    window: Window | None = None
    doc: str = ""
    # A view's valid region as a function of its operands (family "view" tile ops): `ViewValid`.
    view_valid: ViewValid | None = None
    # Constraints the op has on some targets only (dtype per target, scratch operands that must
    # not share bytes with others, scratch sizes): data the TargetOpRules verifier checks.
    target_rules: tuple[TargetRule, ...] = ()
    # PTO emission beyond the instruction name: the call arguments that are the instruction's
    # ins() operands, in order (None: every non-list argument), and the attributes it carries
    # as (source attribute, PTO attribute) pairs.
    pto_ins: tuple[int, ...] | None = None
    pto_attrs: tuple[tuple[str, str], ...] = ()
    # PTO attributes an optional operand's presence implies: (operand, PTO attribute, value)
    # (tile.rsqrt's tmp selects pto.trsqrt's high-precision algorithm, which needs it).
    pto_operand_attrs: tuple[tuple[int, str, AttrValue], ...] = ()
    # Kwarg-dependent argument effects (the spec's atomic store): (attribute, value, operand,
    # effect) -- while the attribute has that value the operand's effect is `effect`.
    effect_when: tuple[tuple[str, AttrValue, int, Effect], ...] = ()
    # A lowering pass that completes the op's calls (None: they reach PTO codegen as written).
    completed_by: CompletedBy | None = None

    def __post_init__(self) -> None:
        if self.in_place_safe is None:
            object.__setattr__(self, "in_place_safe", self.family in IN_PLACE_SAFE_FAMILIES)
        for decl in self.operands[:-1]:
            if decl.variadic:
                raise ValueError(f"{self.name}: only the last operand may be variadic")
        seen: set[str] = set()
        for name in (*self.operand_names, *self.attr_names):
            if name in seen:
                raise ValueError(f"{self.name}: parameter {name!r} declared twice")
            seen.add(name)

    @property
    def prefix(self) -> str:
        return self.name.split(".", 1)[0]

    @property
    def operand_names(self) -> tuple[str, ...]:
        return tuple(d.name for d in self.operands)

    @property
    def attr_names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.attrs)

    @property
    def param_order(self) -> tuple[str, ...]:
        """Names bound by positional call arguments, in order."""
        if self.signature is not None:
            return self.signature
        return self.operand_names + tuple(a.name for a in self.attrs if a.positional)

    @property
    def min_arity(self) -> int:
        return sum(1 for d in self.operands if not d.optional and not d.variadic)

    @property
    def max_arity(self) -> int | None:
        if self.operands and self.operands[-1].variadic:
            return None
        return len(self.operands)

    @property
    def effects(self) -> tuple[Effect, ...]:
        return tuple(d.effect for d in self.operands)

    def operand_decl(self, index: int) -> OperandDecl:
        """The declaration governing argument `index` (variadic tail included)."""
        if index < len(self.operands):
            return self.operands[index]
        if self.operands and self.operands[-1].variadic:
            return self.operands[-1]
        raise IndexError(f"{self.name} has no operand {index}")

    def operand_index(self, name: str) -> int:
        return self.operand_names.index(name)

    def may_write_over(self, index: int, result: TileType, operand: TileType, attrs: Attrs = ()) -> bool:
        """Whether the op may write its result into the bytes of argument `index` while
        computing it, the two tiles starting at one address (a buffer handed over in place).

        Only an in-place-safe op (`in_place_safe`: element i of the result depends on element i
        of the operand alone, and the unit reads it before writing it), only over an operand it
        merely reads, and only when both tiles place the same elements at the same bytes: the
        same shape, element width and layout. Anything else (a width-changing or layout-changing
        cast, a reduction's [rows, 1] over [rows, cols], a move) overwrites elements it has not
        read yet (NUMERICS.md section 7: pto-isa converts element by element in place)."""
        if not self.in_place_safe or self.effect_of(index, attrs) is not Effect.READ:
            return False
        if self.in_place_operands is not None and index not in self.in_place_operands:
            return False
        if tuple(result.shape) != tuple(operand.shape) or result.dtype.bits != operand.dtype.bits:
            return False
        if result.memory_space is not operand.memory_space:
            return False
        return _layout_key(result.view) == _layout_key(operand.view)

    def effect_of(self, index: int, attrs: Attrs = ()) -> Effect:
        """Argument `index`'s effect for a call with `attrs`: the declared one, unless a
        kwarg-dependent effect applies (an atomic store reads what it accumulates into)."""
        given = dict(attrs)
        for name, value, operand, effect in self.effect_when:
            if operand == index and given.get(name, self._default(name)) == value:
                return effect
        return self.operand_decl(index).effect

    def _default(self, name: str) -> AttrValue:
        decl = self.attr_decl(name)
        return decl.default if decl is not None else None

    def attr_decl(self, name: str) -> AttrDecl | None:
        for decl in self.attrs:
            if decl.name == name:
                return decl
        return None

    def with_defaults(self, attrs: Attrs) -> Attrs:
        """`attrs` with every declared attribute present (missing ones at their default)."""
        given = dict(attrs)
        return tuple((a.name, given.get(a.name, a.default)) for a in self.attrs) + tuple(
            (k, v) for k, v in attrs if self.attr_decl(k) is None
        )

    @property
    def is_compute(self) -> bool:
        """A tile op doing arithmetic (as opposed to data movement / views / metadata)."""
        return self.family in COMPUTE_FAMILIES


def never_loaded(opdef: OpDef, index: int) -> str:
    """Why operand `index` of tensor op `opdef` cannot be a GM tensor ("" when it can): its tile
    conversion neither bridges it (`TileConversion.tile_inputs`: loaded where it is read) nor
    loads it itself (`self_loading`), so it must already be a tile on chip. tensor.matmul_acc's
    accumulator is the case: it lives in Acc, which nothing but the cube unit writes (no GM ->
    Acc load on any target; spec, "Acc: not loadable; an accumulator must be created in L0C").
    ConvertTensorToTileOps declines such a call at the user's line, and the generator never draws
    a GM tensor there."""
    conversion = opdef.to_tile
    if opdef.prefix != "tensor" or conversion is None or conversion.self_loading or index >= len(opdef.operands):
        return ""
    decl = opdef.operand_decl(index)
    if decl.kind not in ("tensor", "tensor_or_tile", "tensor_or_scalar", "any"):
        return ""
    if any(tile_input.arg == index for tile_input in conversion.tile_inputs):
        return ""
    if opdef.output_memory == ReusesInput(index):
        return (f"`{decl.name}` is the on-chip buffer `{conversion.tile_op}` writes its result into, which "
                "no load from GM can fill")
    return f"`{decl.name}` is read on chip as it is, and the conversion does not load it from GM"


def _layout_key(view: TileView | None) -> tuple[object, ...] | None:
    # The pad value only says what a load fills outside the valid region: not where bytes go.
    return None if view is None else (view.blayout, view.slayout, view.fractal, view.compact)


# Families whose result element i depends on operand element i alone (plus per-row / per-column
# or scalar operands), so writing the result over an operand of the same layout is safe. Every
# other op (data movement, transposes, reductions, sorts, gathers, ...) is not in-place safe
# unless its declaration says so.
IN_PLACE_SAFE_FAMILIES = frozenset(
    {"elementwise_binary", "elementwise_scalar", "unary", "cast", "row_expand", "col_expand"}
)


# -- which elements an op reads and writes (the DefinedReads verifier and the generator) ----------

# Semantics kinds (`OpDef.semantics[0]`) whose result element at a position is computed from
# each operand's element at that same position (a scalar or a per-row / per-column operand
# aside): such an op reads an operand of the result's shape over the *result's* valid region.
# The result of operands with different valid regions is full-shape (spec: the exact-region rule
# covers equal regions only), so the op then reads the narrower operand's padding, which must
# hold data. The part_* ops ("partial") read each operand over its own valid region, and so does
# a compare: its result is a packed mask whose columns are words of bits, not the operand's
# elements (TCMP / TCMPS loop over src0's valid rows and columns; tile.cmp's two operands have one
# valid region), so a mask as wide as its operand (FP32 [16, 32] -> UINT8 [16, 32]) does not make
# the mask's region the operand's.
READS_OVER_RESULT_REGION = frozenset({
    "binary", "fused", "prelu", "scalar_binary", "unary", "cast", "select",
    "row_expand", "row_expdif", "col_expand", "col_expdif",
    # tensor.expand_clone loads its source whole (PyPTO's lowering: a load of src's region, the
    # broadcast, a store over the target), NumPy's broadcast_to of its data: past a narrowed
    # valid region too (finding b3fe3e1a0b).
    "expand_clone",
})

# Semantics kinds whose result holds data in its whole buffer, not only in its valid region:
# fills, generators and a window extract (which copies its whole extent).
# tri is not one: pto-isa's TTRI (include/pto/npu/a2a3/TTri.hpp, TTRI_IMPL) writes the dst's
# validRow x validCol only, as the interpreter's tri does.
WRITES_WHOLE_RESULT = frozenset({"full", "expands", "ci", "random", "fillpad", "extract"})

# Semantics kinds whose result holds no data at all until an op writes it: tensor.create /
# tile.create allocate a buffer whose contents are undefined (PyPTO: uninitialised; the
# interpreter and the simulator: the 0xFF poison). An accumulator or output buffer is created
# to be written -- a matmul_acc with a true init_cond, a store, an assemble, a kernel call's Out
# argument -- and a read of what no op wrote reads garbage on chip.
HOLDS_NO_DATA = frozenset({"create"})

# Semantics kinds whose in-place target's elements are carried into the result, not computed
# from: an assemble copies its target and writes the source's window, a scatter writes the
# indexed elements. The target's elements are read by the result's consumers, not by the op.
CARRIES_TARGET = frozenset({"assemble", "scatter", "scatter_mask"})

# Semantics kinds whose last argument is a scratch the instruction writes and never reads:
# tile.mrgsort_format2's trailing row (TMRGSORT's tmp; ConvertTensorToTileOps supplies it as a
# tile.create for tensor.mrgsort_format2), so a created scratch holding no data is read by nobody.
TRAILING_SCRATCH = frozenset({"mrgsort2"})

# Semantics kinds whose operand 0 gives the result its shape and type only: expands fills a
# fresh result with its scalar (TEXPANDS writes dst), so the target's elements are not read.
SHAPE_ONLY_TARGET = frozenset({"expands"})

# Semantics kinds that read operand 0 as a packed predicate mask: result row r reads mask row r,
# bit c % w of its word c // w (w: the mask's element width; numerics.unpack_mask, TSEL/TSELS).
# Its extent follows the result's valid region, whatever the mask's own shape.
PACKED_MASK_OPERAND = frozenset({"select"})

# Semantics kinds whose operand 1 is a vector spread over the result: one value per result row
# (column 0 of rows [0, valid rows)) or one per result column (row 0 of columns [0, valid
# columns)), whatever that operand's own valid region (TROWEXPAND* / TCOLEXPAND*).
PER_ROW_OPERAND = frozenset({"row_expand", "row_expdif", "row_broadcast"})
PER_COLUMN_OPERAND = frozenset({"col_expand", "col_expdif", "col_broadcast"})

# View kinds: the result is the operand's bytes (re-viewed), so its data is the operand's.
# set_validshape keeps the buffer as it is; a slice is the window at its offsets; the others
# re-view the whole buffer in another shape or dtype.
SAME_BYTES_VIEWS = frozenset({"set_validshape", "slice", "reshape", "reinterpret", "view", "transpose_view"})


COMPUTE_FAMILIES = frozenset(
    {"elementwise_binary", "elementwise_scalar", "unary", "reduce_row", "reduce_col", "row_expand", "matmul", "cast"}
)


# -- reading expressions, language-agnostically --------------------------------------------------

_TYPE_CLASSES = (ScalarType, TensorType, TileType, TupleType, NoneType, ViewType)


def type_of(node: Node) -> Type | None:
    """The type of an expression node of any language (None for a tuple literal)."""
    kind = node.KIND
    if kind in ("ConstInt", "ConstFloat"):
        dtype = getattr(node, "dtype")
        assert isinstance(dtype, DataType)
        return ScalarType(dtype)
    if kind == "ConstBool":
        return BOOL
    if kind == "TupleExpr":
        return None
    value = getattr(node, "type", None)
    return value if isinstance(value, _TYPE_CLASSES) else None


def static_int(node: Node) -> int | None:
    """The value of a constant integer expression (a literal or its negation), else None."""
    if node.KIND == "ConstInt":
        value = getattr(node, "value")
        return int(value)
    if node.KIND == "UnaryOp" and getattr(node, "op") == "-":
        inner = static_int(getattr(node, "operand"))
        return None if inner is None else -inner
    return None


def static_ints(node: Node) -> tuple[int, ...] | None:
    """Constant integers of a list literal `[a, b]` (or of one constant integer), else None."""
    if node.KIND == "TupleExpr":
        values = [static_int(e) for e in getattr(node, "elements")]
        if any(v is None for v in values):
            return None
        return tuple(v for v in values if v is not None)
    single = static_int(node)
    return None if single is None else (single,)


def list_length(node: Node) -> int | None:
    """Number of elements of a list literal (constant or not)."""
    if node.KIND == "TupleExpr":
        return len(getattr(node, "elements"))
    return None


# -- memory staging --------------------------------------------------------------------------------

# MTE2 fills only Vec and Mat: an operand constrained to an L0 buffer (or Bias) is loaded into Mat
# and hopped on by a tile.move; nothing but the cube unit writes Acc, so Acc is not loadable.
_STAGING_SPACE: dict[MemorySpace, MemorySpace] = {
    MemorySpace.Vec: MemorySpace.Vec,
    MemorySpace.Mat: MemorySpace.Mat,
    MemorySpace.Left: MemorySpace.Mat,
    MemorySpace.Right: MemorySpace.Mat,
    MemorySpace.Bias: MemorySpace.Mat,
}


def staging_space_for_load(constraint: MemorySpace) -> MemorySpace:
    """Where a tile.load must land for an operand constrained to `constraint` (StagingSpaceForLoad)."""
    if constraint not in _STAGING_SPACE:
        raise ValueError(f"an operand constrained to {constraint.name} cannot be loaded; it must be created on chip")
    return _STAGING_SPACE[constraint]


# -- the registry ----------------------------------------------------------------------------------


def _within(inner: Span, outer: Span) -> bool:
    """Whether `inner` lies on the lines of `outer` (a span without an end covers its line)."""
    if not inner.known or not outer.known:
        return not outer.known
    return outer.line <= inner.line <= max(outer.line, outer.end_line)


def _kind_matches(kind: str, node: Node, ty: Type | None) -> bool:
    if kind == "any":
        return True
    if kind == "int_list":
        return node.KIND == "TupleExpr"
    accepted = {
        "tensor": (TensorType,),
        "tile": (TileType,),
        "scalar": (ScalarType,),
        "tensor_or_tile": (TensorType, TileType),
        "tensor_or_scalar": (TensorType, ScalarType),
    }[kind]
    return isinstance(ty, accepted)


_KIND_WORDS = {
    "tensor": "a tensor",
    "tile": "a tile",
    "scalar": "a scalar",
    "tensor_or_tile": "a tensor or a tile",
    "tensor_or_scalar": "a tensor or a scalar",
    "int_list": "a list literal such as [0, 0]",
    "any": "any value",
}


def describe(node: Node) -> str:
    """A short description of an argument for error messages."""
    ty = type_of(node)
    if ty is None:
        return "a list literal" if node.KIND == "TupleExpr" else node.KIND
    return describe_type(ty)


def describe_type(ty: Type) -> str:
    if isinstance(ty, TensorType):
        valid = "" if ty.valid_shape is None else f" valid {list(ty.valid_shape)}"
        return f"Tensor[{list(ty.shape)}, {ty.dtype.name}{valid}]"
    if isinstance(ty, TileType):
        valid = "" if ty.valid_shape is None else f" valid {list(ty.valid_shape)}"
        space = "" if ty.memory_space is None else f", {ty.memory_space.name}"
        return f"Tile[{list(ty.shape)}, {ty.dtype.name}{space}{valid}]"
    if isinstance(ty, ScalarType):
        return f"Scalar[{ty.dtype.name}]"
    return type(ty).__name__


def _attr_value_ok(kind: str, value: AttrValue) -> bool:
    if value is None:
        return True
    checks: dict[str, Callable[[AttrValue], bool]] = {
        "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "float": lambda v: isinstance(v, float),
        "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
        "bool": lambda v: isinstance(v, bool),
        "str": lambda v: isinstance(v, str),
        "dtype": lambda v: isinstance(v, DataType),
        "memory_space": lambda v: isinstance(v, MemorySpace),
        "int_list": lambda v: isinstance(v, tuple) and all(isinstance(x, int) for x in v),
    }
    return checks[kind](value)


# -- the deduction memo ----------------------------------------------------------------------------
#
# A deducer (and the registry around it: arity, operand kinds, placement, result views) reads an
# argument only through `node.KIND`, `type_of`, `static_int` / `static_ints` and `list_length`
# (`describe` too, but only to word an error, and errors are never memoized), and the attributes
# only by name and value.  So two calls whose arguments agree on exactly those facts, with equal
# attributes of the same classes, deduce the same type: the memo key is those facts.  A deducer
# that reads an argument any other way must extend `_argument_facts`.

_DEDUCED_CAPACITY = 8192


def _argument_facts(node: Node) -> Hashable:
    kind = node.KIND
    if kind == "Var":  # the common case: a Var's only fact is its type
        var_type: Hashable = getattr(node, "type")
        # ... and a scalar's name, which a runtime valid extent in the result type refers to.
        return (var_type, getattr(node, "name")) if var_type.__class__ is ScalarType else var_type
    if kind == "TupleExpr":
        names = tuple(getattr(e, "name", None) for e in getattr(node, "elements"))
        return (kind, type_of(node), static_ints(node), list_length(node), names)
    return (kind, type_of(node), static_ints(node), list_length(node))


def _attribute_facts(attrs: Attrs) -> Hashable:
    # Values keyed with their classes: 1 == True == 1.0 as dict keys, but an "int" attribute
    # rejects True and a deducer may keep the value it reads.
    return tuple(
        (name, value.__class__, tuple(x.__class__ for x in value) if value.__class__ is tuple else (), value)
        for name, value in attrs
    )


def deduction_key(op: str, args: Sequence[Node], attrs: Attrs, placed: bool) -> Hashable:
    """What `Registry.deduce` reads of a call, as a dict key (hashing it raises TypeError when an
    attribute value is unhashable)."""
    return (op, placed, tuple([_argument_facts(a) for a in args]), _attribute_facts(attrs) if attrs else ())


def _check_flat_row_major(opdef: OpDef, args: Sequence[Node]) -> None:
    """An operand the instruction walks flat (`FlatRowMajor`, on every target) laid out otherwise
    is refused where the layout is first known: at the user's line when the program states it,
    else when placement gives the tile its view (a transpose_view of an unplaced tile)."""
    for rule in opdef.target_rules:
        if isinstance(rule, FlatRowMajor) and rule.operand < len(args):
            ty = type_of(args[rule.operand])
            gap = rule.gap(ty) if isinstance(ty, TileType) else None
            if gap is not None:
                raise DeductionError(f"{gap}; {rule.because}", operand=rule.operand, hint=rule.fix)


class Registry:
    """Name -> OpDef, plus the queries passes and verifiers make of it."""

    def __init__(self) -> None:
        self._ops: dict[str, OpDef] = {}
        # Deduced result types by `deduction_key`: a verifier re-deduces every call after every
        # pass, and nearly all of them repeat an earlier (op, operand types, attributes).
        self._deduced: dict[Hashable, Type] = {}

    def register(self, op: OpDef) -> OpDef:
        if op.name in self._ops:
            raise ValueError(f"operator {op.name} registered twice")
        self._ops[op.name] = op
        return op

    def add_target_rules(self, name: str, rules: Sequence[TargetRule]) -> None:
        """Extend a registered op's target rules (derived facts, e.g. the assembler's element
        types per instruction, attached once every op is registered)."""
        if rules:
            op = self.get(name)
            self._ops[name] = replace(op, target_rules=(*op.target_rules, *rules))

    def get(self, name: str) -> OpDef:
        op = self._ops.get(name)
        if op is None:
            raise KeyError(self.unknown_message(name))
        return op

    def unknown_message(self, name: str) -> str:
        """Why `name` is not an operator here: a PyPTO operator this compiler does not support
        yet (named as such), or a misspelling (with the closest names)."""
        from languages.ops.pypto_names import NOT_YET_BECAUSE, PYPTO_OPERATORS

        if name in PYPTO_OPERATORS:
            because = f": {NOT_YET_BECAUSE[name]}" if name in NOT_YET_BECAUSE else ""
            return (f"operator {name!r} is a PyPTO operator this compiler does not support yet "
                    f"({PYPTO_OPERATORS[name]}){because}")
        close = difflib.get_close_matches(name, list(self._ops), n=3)
        suggestion = f"; did you mean {', '.join(close)}?" if close else ""
        return f"unknown operator {name!r}{suggestion}"

    def resolve_spelling(self, name: str, positional: int, keywords: Sequence[str]) -> str:
        """The registered op a PyPTO dispatching spelling names (pl.tile.mrgsort -> format 1 or
        2 by its operands; pl.arange -> ci; tensor.scatter(mask_pattern=) -> scatter_mask); any
        other name unchanged."""
        from languages.ops.index_ops import keyword_spelling, resolve_spelling

        if name in self._ops and keyword_spelling(name, keywords) is None:
            return name

        return resolve_spelling(name, positional, keywords)

    def spelling_order(self, name: str, keywords: Sequence[str]) -> tuple[str, ...] | None:
        """The positional order of a keyword-dispatched spelling (None: the op's own)."""
        from languages.ops.index_ops import keyword_spelling

        spelled = keyword_spelling(name, keywords)
        return None if spelled is None else spelled[1]

    def __contains__(self, name: object) -> bool:
        return name in self._ops

    def __iter__(self) -> Iterator[OpDef]:
        return iter(self._ops.values())

    def __len__(self) -> int:
        return len(self._ops)

    def names(self) -> tuple[str, ...]:
        return tuple(sorted(self._ops))

    # -- scalar literals ---------------------------------------------------------------------------

    def adopts_literal(self, op: str, index: int) -> bool:
        """Whether a bare literal at argument `index` of `op` adopts a declared dtype."""
        opdef = self._ops.get(op)
        if opdef is None or (index >= len(opdef.operands) and not (opdef.operands and opdef.operands[-1].variadic)):
            return False
        return opdef.operand_decl(index).literal_dtype is not None

    def adopt_literals(self, op: str, args: Sequence[Node], attrs: Attrs = (),
                       keep: Callable[[Node], bool] = lambda node: False) -> tuple[Node, ...]:
        """`args` with every bare literal of a scalar operand retyped as its declaration says:
        an INDEX integer or an FP32 float literal takes the adopted dtype (an integer literal on
        a float value becomes that float), except that a float literal on an integer value keeps
        FP32, so promotion is preserved. Other expressions, and literals `keep` names (the
        parser's explicit pl.const(v, dtype)), are left as they are."""
        if op not in self._ops:
            return tuple(args)
        opdef = self._ops[op]
        out = list(args)
        for index, node in enumerate(args):
            if index >= len(opdef.operands) and not (opdef.operands and opdef.operands[-1].variadic):
                break
            rule = opdef.operand_decl(index).literal_dtype
            if rule is None or node.KIND not in ("ConstInt", "ConstFloat") or keep(node):
                continue
            target = self._literal_target(rule, args, opdef.with_defaults(attrs))
            if target is not None:
                out[index] = _retyped_literal(node, target)
        return tuple(out)

    @staticmethod
    def _literal_target(rule: int | str | DataType, args: Sequence[Node], attrs: Attrs) -> DataType | None:
        if isinstance(rule, DataType):
            return rule
        if isinstance(rule, str):
            value = dict(attrs).get(rule)
            return value if isinstance(value, DataType) else None
        if rule >= len(args):
            return None
        ty = type_of(args[rule])
        return ty.dtype if isinstance(ty, (TensorType, TileType)) else None

    # -- type deduction --------------------------------------------------------------------------

    def deduce(self, op: str, args: Sequence[Node], attrs: Attrs = (), *, placed: bool = False,
               at: Node | None = None) -> Type:
        """The result type of `op(args, attrs)`.

        `placed` (TilePlaced and later) also places results whose space is Fixed by the op (e.g.
        element-wise -> Vec, matmul -> Acc); before placement such results stay unplaced, as
        InferTileMemorySpace decides them.  Result types never carry a MemRef.  An ill-typed
        call raises CompileError (rule "TypeDeduction") at the offending argument, or at `at`.
        """
        key: Hashable | None = deduction_key(op, args, attrs, placed)
        try:
            hit = self._deduced.get(key)
        except TypeError:  # an unhashable attribute value: deduce without the memo
            key = hit = None
        if hit is not None:
            return hit
        result = self._deduce_uncached(op, args, attrs, placed, at)
        if key is not None:
            if len(self._deduced) >= _DEDUCED_CAPACITY:
                self._deduced.clear()
            self._deduced[key] = result
        return result

    def _deduce_uncached(self, op: str, args: Sequence[Node], attrs: Attrs, placed: bool, at: Node | None) -> Type:
        opdef = self._lookup_for_call(op, at)
        try:
            self._check_arity(opdef, args)
            self._check_kinds(opdef, args)
            full_attrs = self._check_attrs(opdef, attrs)
            result = opdef.deduce(args, full_attrs)
            _check_flat_row_major(opdef, args)
        except DeductionError as err:
            raise self._error(opdef, err, args, at) from None
        except SymbolicExtentUnsupported as err:
            # A deducer that needs constant valid extents declines a runtime one by name.
            declined = DeductionError(f"not supported yet: {op} of a value whose valid shape holds {err}",
                                      hint="give the operand a constant valid shape (or pass the runtime extent "
                                           "only to loads, slices, set_validshape and element-wise ops)")
            raise self._error(opdef, declined, args, at) from None
        return self._place(opdef, result, args, full_attrs, placed)

    def output_space(self, op: str, args: Sequence[Node], attrs: Attrs = ()) -> MemorySpace | None:
        """The space the op's result lives in once placed (None if it depends on unplaced input)."""
        return self._resolve_space(self.get(op), args, self.get(op).with_defaults(attrs), placed=True)

    def producible_spaces(self, op: str) -> frozenset[MemorySpace]:
        """Every space `op`'s result can be placed in: the op's Fixed space, its
        `target_memory` choices (any space when the attribute lists none), or -- for a result
        that follows an operand -- any space (the operand's placement decides)."""
        if op not in self:
            return frozenset()
        rule = self.get(op).output_memory
        if isinstance(rule, Fixed):
            return frozenset((rule.space,))
        if isinstance(rule, FromAttr):
            decl = self.get(op).attr_decl(rule.name)
            if decl is not None and decl.choices:
                return frozenset(c for c in decl.choices if isinstance(c, MemorySpace))
        return frozenset(MemorySpace)

    def _lookup_for_call(self, op: str, at: Node | None) -> OpDef:
        try:
            return self.get(op)
        except KeyError as err:
            diag = Diagnostic("TypeDeduction", str(err.args[0]), at.node_span if at is not None else NO_SPAN, node=at)
            raise CompileError(diag) from None

    @staticmethod
    def _check_arity(opdef: OpDef, args: Sequence[Node]) -> None:
        low, high = opdef.min_arity, opdef.max_arity
        if len(args) < low or (high is not None and len(args) > high):
            expected = f"{low}" if high == low else f"{low} to {high if high is not None else 'any'}"
            names = ", ".join(opdef.operand_names)
            raise DeductionError(f"expected {expected} operands ({names}), got {len(args)}")

    @staticmethod
    def _check_kinds(opdef: OpDef, args: Sequence[Node]) -> None:
        for index, node in enumerate(args):
            decl = opdef.operand_decl(index)
            if not _kind_matches(decl.kind, node, type_of(node)):
                raise DeductionError(
                    f"expected {_KIND_WORDS[decl.kind]}, got {describe(node)}", index)

    @staticmethod
    def _check_attrs(opdef: OpDef, attrs: Attrs) -> Attrs:
        for name, value in attrs:
            decl = opdef.attr_decl(name)
            if decl is None:
                known = ", ".join(opdef.attr_names) or "none"
                raise DeductionError(f"unknown attribute {name!r} (declared: {known})")
            if not _attr_value_ok(decl.kind, value):
                raise DeductionError(f"attribute {name!r} expected a {decl.kind} value, got {value!r}")
            if decl.choices and value is not None and value not in decl.choices:
                choices = ", ".join(repr(c) for c in decl.choices)
                raise DeductionError(f"attribute {name!r} expected one of {choices}, got {value!r}")
        return opdef.with_defaults(attrs)

    @staticmethod
    def _error(opdef: OpDef, err: DeductionError, args: Sequence[Node], at: Node | None) -> CompileError:
        node = at
        message = f"{opdef.name}: {err.message}"
        if err.operand is not None and err.operand < len(args):
            name = opdef.operand_decl(err.operand).name
            message = f"{opdef.name}: operand {name!r} (argument {err.operand}) {err.message}"
            operand = args[err.operand]
            # A variable's span is its definition's: when that lies outside the call, the error
            # is the call's (the line that passes it), not the line that defined the value.
            outside = node is not None and not _within(operand.node_span, node.node_span)
            if (operand.node_span.known or node is None) and not (operand.KIND == "Var" and outside):
                node = operand
        if node is None:
            return CompileError(Diagnostic("TypeDeduction", message, hint=err.hint))
        return CompileError(Diagnostic.at(node, "TypeDeduction", message, err.hint))

    def _resolve_space(self, opdef: OpDef, args: Sequence[Node], attrs: Attrs, placed: bool) -> MemorySpace | None:
        rule = opdef.output_memory
        if isinstance(rule, Fixed):
            return rule.space if placed else None
        if isinstance(rule, FromAttr):
            value = dict(attrs).get(rule.name)
            return value if isinstance(value, MemorySpace) else None
        if isinstance(rule, (InheritInput, ReusesInput)) and rule.index < len(args):
            source = type_of(args[rule.index])
            return source.memory_space if isinstance(source, TileType) else None
        return None

    def _place(self, opdef: OpDef, result: Type, args: Sequence[Node], attrs: Attrs, placed: bool) -> Type:
        if not isinstance(result, TileType) or result.memory_space is not None:
            return result
        space = self._resolve_space(opdef, args, attrs, placed)
        if space is None:
            return result
        view = opdef.result_view(result, args, space) if opdef.result_view is not None else None
        return make_tile_type(result.shape, result.dtype, result.valid_shape, space, view)

    # -- memory-space facts ------------------------------------------------------------------------

    def is_view(self, op: str) -> bool:
        """Whether `op` is a zero-copy view (registry family "view"): its result reads its first
        operand's bytes and writes nothing."""
        return op in self and self.get(op).family == "view"

    def makes_view_handle(self, op: str) -> bool:
        """Whether `op`'s PTO result is a view of another tile's buffer (pto.subview, pto.treshape:
        tile.slice, tile.reshape, tile.transpose_view) rather than a handle of its own."""
        return self.is_view(op) and self.get(op).pto[:1] in (("pto.subview",), ("pto.treshape",))

    def re_views_from_base(self, op: str) -> bool:
        """Whether `op` is a view lowered to a pto.treshape: a handle on its operand's whole buffer
        from the buffer's first byte (tile.reshape, tile.reinterpret_view, tile.transpose_view),
        so of a window (a subview at an offset and its source's row pitch) it would read the
        source's first bytes instead of the window's elements."""
        return self.is_view(op) and self.get(op).pto[:1] == ("pto.treshape",)

    def is_reshape(self, op: str) -> bool:
        """Whether `op` is a zero-copy reshape: the same bytes read under another shape, which
        holds only where both shapes keep their elements in row-major order
        (languages.layout.is_row_major_linear)."""
        return self.is_view(op) and self.get(op).semantics[:1] == ("reshape",)

    def is_window_view(self, op: str) -> bool:
        """Whether `op` is a view of a window of its source (tile.slice): its elements sit at an
        offset inside the source's bytes and at the source's row pitch, not where a fresh tile of
        the result's type would put them, so nothing may be written over it in place."""
        return self.is_view(op) and self.get(op).semantics[:1] == ("slice",)

    def is_cube_matmul(self, op: str) -> bool:
        """Whether `op` runs on the cube: a registered tile-level op of the matmul family."""
        return op.startswith("tile.") and op in self and self.get(op).family == "matmul"

    def operand_space(self, op: str, arg: int) -> MemorySpace | None:
        """The space `op` reads argument `arg` from (its set_input_memory), or None."""
        return self.get(op).operand_decl(arg).input_memory

    def bridge_space_of(self, consumers: Sequence[str], arg: int) -> MemorySpace:
        """The single input constraint all `consumers` declare for operand `arg` (BridgeSpaceOf).
        Raises ValueError if one is unregistered, declares none, or they disagree."""
        spaces: set[MemorySpace] = set()
        for name in consumers:
            if name not in self:
                raise ValueError(f"bridge names unregistered operator {name!r}")
            space = self.operand_space(name, arg)
            if space is None:
                raise ValueError(f"{name} declares no input memory for operand {arg}")
            spaces.add(space)
        if len(spaces) != 1:
            raise ValueError(f"operators {list(consumers)} disagree on operand {arg}'s space: {sorted(s.name for s in spaces)}")
        return spaces.pop()

    def demanded_space(self, tile_input: TileInput) -> MemorySpace | None:
        """Where a bridged tile.load for `tile_input` lands (None: no demand)."""
        if not tile_input.space_of:
            return None
        return staging_space_for_load(self.bridge_space_of(tile_input.space_of, tile_input.consumer_index))

    # -- languages ----------------------------------------------------------------------------------

    def languages_admitting(self, op: str) -> tuple[str, ...]:
        """Names of the languages whose op patterns admit `op` (declared in languages/decls.py)."""
        from languages.decls import LANGUAGES

        self.get(op)
        return tuple(lang.name for lang in LANGUAGES if lang.admits_op(op))

    # -- self-consistency ---------------------------------------------------------------------------

    def validate(self) -> None:
        """Check cross-references between declarations; raises ValueError on the first problem."""
        for opdef in self:
            conversion = opdef.to_tile
            if conversion is None:
                continue
            for target in conversion.target_ops:
                if target not in self:
                    raise ValueError(f"{opdef.name} converts to unregistered {target}")
            if conversion.scratch_like is not None and conversion.scratch_like >= len(opdef.operands):
                raise ValueError(f"{opdef.name}: scratch_like {conversion.scratch_like} out of range")
            for tile_input in conversion.tile_inputs:
                if tile_input.arg >= len(opdef.operands):
                    raise ValueError(f"{opdef.name}: tile input {tile_input.arg} out of range")
                if tile_input.transpose_attr is not None and opdef.attr_decl(tile_input.transpose_attr) is None:
                    raise ValueError(f"{opdef.name}: unknown transpose attribute {tile_input.transpose_attr}")
                self.demanded_space(tile_input)


def _retyped_literal(node: Node, target: DataType) -> Node:
    dtype = getattr(node, "dtype")
    value = getattr(node, "value")
    if node.KIND == "ConstInt" and dtype is not DataType.INDEX:
        return node  # already typed (pl.const)
    if node.KIND == "ConstFloat" and (dtype is not DataType.FP32 or not target.is_float):
        return node  # typed, or a float literal on an integer value: FP32 keeps the promotion
    if target.is_float:
        if node.KIND == "ConstFloat":
            return replace(node, dtype=target)  # type: ignore[type-var]
        float_class = type(node).__module__
        module = importlib.import_module(float_class)
        return module.ConstFloat(float(value), target, span=node.node_span)  # type: ignore[no-any-return]
    if target is DataType.BOOL or not target.is_int:
        return node
    return replace(node, dtype=target)  # type: ignore[type-var]


def matches_deduced(declared: Type, deduced: Type) -> bool:
    """Whether a declared result type agrees with the deduction: MemRefs are ignored (deduction
    never binds buffers), and a result the deduction leaves unplaced may be declared in any
    space (placement is InferTileMemorySpace's decision, or the author's)."""
    if isinstance(declared, TileType) and isinstance(deduced, TileType):
        declared = replace(declared, memref=None)
        if deduced.memory_space is None:
            return (declared.shape, declared.dtype, declared.valid_shape) == (
                deduced.shape, deduced.dtype, deduced.valid_shape)
    return declared == deduced


def expect_dims(values: Dims | None, what: str, operand: int | None) -> Dims:
    """`values` or a DeductionError explaining that `what` must be a constant list."""
    if values is None:
        raise DeductionError(f"{what} must be a list of constant integers", operand,
                             hint="shapes and valid shapes are static; offsets may be dynamic")
    return values


# Enumerations whose members attributes take (`mask_pattern=pl.tile.MaskPattern.P0101`,
# `pad_value=pl.PadValue.min`): enum name -> member -> attribute value.
ATTR_ENUMS: dict[str, dict[str, AttrValue]] = {
    "MaskPattern": {"P0101": 1, "P1010": 2, "P0001": 3, "P0010": 4, "P0100": 5, "P1000": 6, "P1111": 7},
    "PadValue": {"zero": "zero", "max": "max", "min": "min", "null": "null"},
    "PipeType": {name: f"PIPE_{name}" for name in ("S", "V", "M", "MTE1", "MTE2", "MTE3", "ALL", "FIX")},
    "AtomicType": {"None_": "none", "Add": "add"},
}

REGISTRY = Registry()

# Registration happens below the definitions above, which the op modules import.
from languages.ops import index_ops, pipe_ops, pto_ops, system_ops, tensor_ops, tile_ops, vector_ops  # noqa: E402

for _module in (tile_ops, tensor_ops, vector_ops, index_ops, system_ops, pipe_ops, pto_ops):
    for _op in _module.OPS:
        REGISTRY.register(_op)


def _assembler_rules(opdef: OpDef) -> tuple[TargetRule, ...]:
    """The assembler's element-type rules on `opdef`: those of the instructions it emits (a
    tensor op: those its tile forms emit), checked on its first operand or its result; an
    instruction-level rule (`INSTRUCTION_LEVEL`: pto.tinsert) sits on the PTO instruction itself."""
    from languages.ops.assembler_element_types import INSTRUCTION_LEVEL, instruction_rules

    if opdef.prefix == "tile":
        instructions = opdef.pto
    elif opdef.prefix == "tensor" and opdef.to_tile is not None:
        instructions = tuple(name for tile_op in opdef.to_tile.target_ops if tile_op in REGISTRY
                             for name in REGISTRY.get(tile_op).pto)
    elif opdef.prefix == "pto":
        return (*(instruction_rules(opdef.name, 0) if opdef.name in INSTRUCTION_LEVEL else ()),
                *_shape_match_rules(opdef.name))
    else:
        return ()
    return tuple(rule for name in dict.fromkeys(instructions) if name not in INSTRUCTION_LEVEL
                 for rule in instruction_rules(name, 0))


def _shape_match_rules(instruction: str) -> tuple[TargetRule, ...]:
    """PTOAS's declared-shape comparison of `instruction`'s tiles
    (`languages.layout.SHAPE_MATCHED_INSTRUCTIONS`) or its valid-shape one
    (`VALID_SHAPE_MATCHED_INSTRUCTIONS`), a rule of the PTO instruction itself: the tile ops that
    emit it meet it by the window copies LegalizeVecLayouts makes and the operands
    RevalidateReadOperands re-validates."""
    from languages.layout import SHAPE_MATCHED_INSTRUCTIONS, VALID_SHAPE_MATCHED_INSTRUCTIONS
    from languages.ops.target_rules import SameDeclaredShape, SameValidShape

    bare = instruction.removeprefix("pto.")
    valid_matched = VALID_SHAPE_MATCHED_INSTRUCTIONS.get(instruction)
    if valid_matched is not None:
        return (SameValidShape(
            frozenset({"a2a3", "a5"}), f"PTOAS's {bare} wants its sources and dst valid over one region",
            "re-validate an operand the op reads past its valid region over the region read (set_validshape; "
            "RevalidateReadOperands does so)", operands=valid_matched),)
    match = SHAPE_MATCHED_INSTRUCTIONS.get(instruction)
    if match is None or match.open_because:
        return ()
    return (SameDeclaredShape(
        match.archs, f"PTOAS's {bare} wants these tiles declared of one shape (a subview by its sizes, a tile at its "
        "padded extent), and again as the buffers they cut (a subview as its source's whole buffer)",
        "copy a window operand into a tile of its own first (LegalizeVecLayouts does so for the instructions of "
        "languages.layout.SHAPE_MATCHED_INSTRUCTIONS)", operands=match.operands),)


for _op in list(REGISTRY):
    REGISTRY.add_target_rules(_op.name, _assembler_rules(_op))
REGISTRY.validate()

__all__ = [
    "ATTR_ENUMS",
    "AttrDecl",
    "DeductionError",
    "Effect",
    "Fixed",
    "FromAttr",
    "InheritInput",
    "IndexDomain",
    "window_extent",
    "window_offsets",
    "OpDef",
    "OperandDecl",
    "OutputMemory",
    "READ",
    "READ_WRITE",
    "REGISTRY",
    "Registry",
    "ReusesInput",
    "TileConversion",
    "TileInput",
    "WRITE",
    "ViewValid",
    "Window",
    "describe",
    "describe_type",
    "list_length",
    "matches_deduced",
    "never_loaded",
    "staging_space_for_load",
    "static_int",
    "static_ints",
    "type_of",
]
