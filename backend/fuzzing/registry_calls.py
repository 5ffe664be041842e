"""Calls of registered operators, derived from their declarations in the op registry.

The generator does not list operators: it asks the registry which ops exist and reads each
one's declaration to build a call (a new op shows up in campaigns with no edit here):

* `OpDef.operands`: each operand's kind (tensor / tile / scalar / int_list), whether it is
  optional, its memory-space constraint (`input_memory`, `accepted_memory`: where a tile
  operand is taken from) and `literal_dtype` (the dtype a constant scalar adopts);
* `OpDef.attrs`: choices, kinds and defaults (a dtype attribute draws from the element types the
  numerics implement, a memory-space attribute from its choices, an int from small values);
* `OpDef.window`: which operands are the offsets / extent of a window inside which operand, so
  windows are drawn inside their sources;
* `OpDef.family` / `semantics`: only to recognise views (a reshape keeps the element count)
  and the ops whose frame the generator builds itself (loads, stores, cross-core FIFOs);
* `OpDef.target_rules`: what the campaign's backend (`Pool.arch`) admits -- an operand's element
  types (`DtypeIn`: a scratch or an operand is drawn of an admitted type), a compare scratch's
  extent (`MaskScratch`: the scratch is drawn that big), operands that must not share bytes
  (`Disjoint`: a drawn call naming one value, or one buffer through views, twice is redrawn),
  operands that must own their rows (`WholeRows`: no column window of a wider tile), results of
  rows of whole 32-byte blocks (`UnpaddedRows`: a gather's index is drawn with such rows, and a
  drawn call whose result rows are not whole is redrawn);
* `Registry.deduce`: the final word. A drawn call is kept only when the registry's own type
  deduction accepts it; otherwise another draw is tried (a few attempts, then the op is left
  for another step).

Int-list operands are told apart by their conventional names (what PyPTO calls them): `shape` /
`shapes` (a sub-window of the source for a windowed op, an equal-count shape for a reshape, a
fresh shape for a creation op), `valid_shape(s)` (within the shape drawn before it), `offsets`
(the window's), `indices` (inside the source). A new op needs nothing more as long as it uses
these names; an operand the generator cannot fill makes it skip the op (and the coverage table
shows it as not exercised).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Collection, Iterable, Sequence

from backend.targets.handlers import get_backend
from languages.cube_boxing import declines_boxed_column, unaligned_k, unaligned_n, unboxed_batched_axis
from languages.gen import tensor as T
from languages.layout import (assembler_checked_box, box_shape, physical_2d, reshape_is_reinterpretation,
                              row_major_vec_tiles)
from languages.memory_space import MemorySpace
from languages.ops import (REGISTRY, AttrDecl, Effect, IndexDomain, OpDef, OperandDecl, ReusesInput, Window, never_loaded,
                           static_ints)
from languages.ops.assembler_element_types import tile_element_unreadable
from languages.ops.column_twins import twin_refusal
from languages.ops.index_ops import (GATHER_DTYPES, MRGSORT_BLOCK_LEN_MULTIPLE, MRGSORT_MAX_GROUPS, SORT_DTYPES,
                                    scatter_update_flat_gap)
from languages.ops.system_ops import SYNCALL_COUNTER_DTYPE, SYNCALL_MIN_COUNTERS
from languages.ops.target_rules import (RESULT, Disjoint, DtypeIn, FlatRowMajor, MaskScratch, PipeIn, TargetRule,
                                       Unavailable, UnpaddedRows, WholeRows)
from languages.ops.tile_ops import is_cross_core_transfer, packed_valid_2d
from languages.ops.vector_ops import compares_fewer_rows, mask_cols, reinterpret_on_chip_gap
from languages.types import INDEX, AttrValue, DataType, ScalarType, TensorType, TileType, Type
from languages.views import assemble_window_gap, flat_reshape_gap, implicit_view, reshape_into_boxes_gap
from nanopass.diagnostics import CompileError
from nanopass.node import Node

# An integer in [low, high] (Hypothesis's draw in a campaign; shrinks toward `low`).
IntDraw = Callable[[int, int], int]

# Element types the numerics implement and the generator draws from (shrinking toward FP32).
FLOAT_TYPES = (DataType.FP32, DataType.FP16, DataType.BF16)
INT_TYPES = (DataType.INT32, DataType.INT16, DataType.INT8, DataType.UINT8, DataType.UINT16, DataType.UINT32)
ELEMENT_TYPES = FLOAT_TYPES + INT_TYPES
FLOAT_SCALARS = (0.5, 2.0, -1.5, 3.0, 0.1, -0.0, 1e-3, 65504.0)
INT_SCALARS = (1, 3, 2, 7, 5, -1, 0)  # shift counts stay small; -1 / 0 only where the op allows

_SHAPE_NAMES = frozenset({"shape", "shapes"})
_RESHAPING = frozenset({("reshape",), ("reinterpret",), ("view",), ("transpose",)})
_VALID_NAMES = frozenset({"valid_shape", "valid_shapes"})
# Operands holding element indices (sort32's idx, gathers' index, scatters' indexes): integers.
_INDEX_NAMES = frozenset({"idx", "index", "indexes"})
_INDEX_DTYPES = (DataType.INT32, DataType.UINT32)
_FRAME_SEMANTICS = frozenset({"load", "store", "tpush", "tpop"})
_TRIES = 6


# Ops the pipeline declines on operands of a given rank, by name, with the pass that says so:
# the generator keeps to what is supported (each rejection is located and names the op).
RANK_LIMITS: dict[str, tuple[int, str]] = {
    "scalar_access": (2, "FlattenTileNdTo2D: scalar access on an N-D tile is not supported"),
    "transpose": (2, "FlattenTileNdTo2D: a transpose of an N-D tile is not flattened yet"),
}


def emission_gap(opdef: OpDef) -> str:
    """Why `opdef` cannot reach PTO yet, from the registry alone ("" when it can): an op (or the
    tile op a tensor op lowers to) naming a PTO instruction that is not a registered pto.* op."""
    tile_op = opdef
    if opdef.prefix == "tensor" and opdef.to_tile is not None and opdef.to_tile.tile_op in REGISTRY:
        tile_op = REGISTRY.get(opdef.to_tile.tile_op)
    missing = [name for name in tile_op.pto if name.startswith("pto.") and name not in REGISTRY]
    if missing:
        return f"emits {', '.join(missing)}, which is not a registered PTO op"
    return ""


def unavailable_somewhere(opdef: OpDef, arch: str = "") -> str:
    """Why `opdef` cannot compile on `arch` at all (an `Unavailable` rule: TRANDOM on A2/A3,
    cross-core flags without an FFTS base); with no arch, on some target (programs drawn for no
    particular target leave such an op out). "" when it compiles there."""
    for rule in opdef.target_rules:
        if isinstance(rule, Unavailable) and (not arch or arch in rule.archs):
            return f"{rule.what} on {'/'.join(sorted(rule.archs))}: {rule.because}"
    return ""


def seeded_on_chip(opdef: OpDef) -> str:
    """Why a kernel step does not call `opdef` ("" when it may): an operand no GM tensor can be
    (`never_loaded`, the registry's fact ConvertTensorToTileOps declines by) that is also the
    buffer the op writes in place. A step's on-chip values are live after it (an in-place write
    over one is kept off, `writes_on_chip_tensor`), so only a recipe seeding that buffer itself
    calls it: tensor.matmul_acc's accumulator is a matmul result or a zero `tensor.full` in the
    cube recipes (cube_kernel, user_k_loop)."""
    for index in range(len(opdef.operands)):
        gap = never_loaded(opdef, index)
        if gap and opdef.output_memory == ReusesInput(index):
            return f"operand {index} takes no GM tensor ({gap}): drawn by the cube recipes, which seed it"
    return ""


def generatable(opdef: OpDef, arch: str = "") -> bool:
    """Whether a generated kernel for `arch` ("": any target) may call `opdef` as a step: tensor
    ops with a tile lowering (or scalar access) and tile ops, but not the ones whose frame the
    generator (loads / stores of a hand-written tile kernel) or a pass (cross-core FIFOs) writes,
    nor ones with no PTO emission yet (`emission_gap`: the campaign's coverage table names them),
    nor ones the target does not have (an A5-only op is drawn for A5 programs)."""
    if emission_gap(opdef) or opdef.family in UNCONDITIONED_FAMILIES or opdef.name in KNOWN_OPEN:
        return False
    if seeded_on_chip(opdef):
        return False
    if unavailable_somewhere(opdef, arch):
        return False
    if opdef.prefix == "tensor":
        return opdef.to_tile is not None or opdef.family == "scalar_access"
    if opdef.prefix == "tile":
        return bool(opdef.semantics) and opdef.semantics[0] not in _FRAME_SEMANTICS and opdef.family != "cross_core"
    if opdef.prefix == "system":
        return opdef.semantics[:1] == ("barrier",)  # a statement of its own (EvalStmt)
    return False


# Families whose operand *contents* must satisfy a contract the generator cannot draw yet (it
# draws values, and conditions integer divisors / shift counts only): a scatter faults on an
# index outside its destination and leaves duplicate indices' order to the hardware.
UNCONDITIONED_FAMILIES: dict[str, str] = {}


# Ops the generator found miscompiled or mis-emitted and that are not fixed yet: kept off so a
# campaign reports new bugs, each named here with what goes wrong (issue 8's closing report).
KNOWN_OPEN: dict[str, str] = {
    "tile.mrgsort_format2": "not drawn yet: the PTO text parser now reads its two-destination form (which PTOAS "
                            "accepts), but drawing it is not yet checked against the campaign tests",
    "tensor.mrgsort_format2": "lowers to tile.mrgsort_format2 (see there)",
}


# PTO-level ops PTOCodegen never emits, so no generated program reaches them, with why. The
# registry keeps them for the PTO text PyPTO emits (the text parser reads them).
NEVER_EMITTED: dict[str, str] = {
    "arith.addf": "never emitted: a float scalar `a + b` reaches PTO as `a - (-0.0 - b)` "
                  "(languages.ops.pto_ops.FLOAT_ADD_AS_SUBTRACTIONS: PTOAS 0.44 has no arith.addf lowering)",
    "pto.treshape": "never emitted: PTOCodegen spells a same-address re-view as a pto.alloc_tile of the view's type at "
                    "the shared address (passes/pto_codegen.py, _HELPER_INSTRUCTIONS)",
    "pto.set_ffts": "never emitted: system.set_ffts, its only source, is not supported yet (PTOAS wants a "
                    "memref<..xi64> FFTS workspace parameter, which this compiler does not emit)",
}


# The same, on one target only (op, arch): the op is drawn for the other targets.
KNOWN_OPEN_ON: dict[tuple[str, str], str] = {
    ("tile.prelu", "a2a3"): "PTOAS 0.44 wants TPRELU's tmp the same shape as src and dst, while pto-isa's A2/A3 "
                            "TPRELU uses one row of tmp past the result's (MaskScratch): no tmp satisfies both "
                            "yet (PTOAS rejects what the target rule asks for)",
}


# Attribute choices a step never draws, with why: the pipeline declines the choice ("not supported
# yet", located), or the choice leaves the result to index contents the generator draws at random
# (an out-of-range row index faults under gather_oob="undefined", the default, so a defined mode is
# always drawn).
EXCLUDED_CHOICES: dict[tuple[str, str], dict[AttrValue, str]] = {
    ("tile.mgather", "coalesce"): {"elem": "PTOCodegen declines it: PTOAS's element gather needs a GM scratch tensor"},
    ("tile.mgather", "gather_oob"): {"undefined": "random row indices fall outside the tensor (a fault)"},
}


# Operands a kernel step never gives a GM tensor, with why: the pipeline declines the call there
# ("not supported yet", located at the call).
ON_CHIP_OPERANDS: dict[tuple[str, int], str] = {
    ("tensor.view", 0): "ConvertTensorToTileOps declines a second tensor view of a GM tensor inside an InCore "
                        "function (its view would alias the parameter's base pointer)",
}

# Operands that name a workspace of a fixed type rather than data (a soft syncall's GM counters,
# as languages/ops/system_ops.py states them): always a fresh parameter of that type.
WORKSPACE_OPERANDS: dict[tuple[str, int], TensorType] = {
    ("system.syncall", 0): TensorType((SYNCALL_MIN_COUNTERS,), SYNCALL_COUNTER_DTYPE),
}


def _handle_only(opdef: OpDef, index: int) -> bool:
    """Whether operand `index` must be a buffer's own handle, never a view (`OperandDecl.handle_only`):
    of the op itself, or of the tile op a tensor op lowers to (tensor.set_validshape of a slice is
    refused by ConvertTensorToTileOps because tile.set_validshape's operand is handle-only)."""
    if index < len(opdef.operands) and opdef.operand_decl(index).handle_only:
        return True
    conversion = opdef.to_tile
    if conversion is None or conversion.tile_op not in REGISTRY:
        return False
    tile_op = REGISTRY.get(conversion.tile_op)
    return index < len(tile_op.operands) and tile_op.operand_decl(index).handle_only


def boxed_extent_gap(ty: Type) -> bool:
    """Whether a tile result lies in a boxed space (Acc, Mat's NZ, L0) without being a whole number
    of its fractal boxes (languages.layout's assembler box; one-row tiles are exempt on rows):
    such a tile has no PTO address, which PTOCodegen reports as the user's error."""
    if not isinstance(ty, TileType) or ty.view is None or ty.memory_space in (None, MemorySpace.Vec):
        return False
    box = assembler_checked_box(ty.view, ty.dtype)
    if box is None:
        return False
    rows, cols = physical_2d(ty.shape)
    return (rows != 1 and rows % box[0] != 0) or cols % box[1] != 0


def on_chip_view_gap(opdef: OpDef, args: Sequence[T.Expr], attrs: Sequence[tuple[str, AttrValue]], result: Type,
                     in_gm: bool) -> str:
    """Why a zero-copy reshape / reinterpret call has no on-chip form ("" when it has), from the
    facts the pipeline refuses it by: a reshape between Vec tiles whose padded rows keep elements
    out of row-major order (`languages.views.flat_reshape_gap`, InferTileMemorySpace; placed
    tiles: `reshape_is_reinterpretation`, the ViewLegality verifier), a tensor reinterpret of a
    column-major [N, 1] column (`reinterpret_on_chip_gap`, ConvertTensorToTileOps). A
    `tensor.view` of a GM tensor stays a view in GM and is not affected."""
    source = getattr(args[0], "type", None) if args else None  # a Var, or a call written in place
    if not isinstance(source, (TensorType, TileType)) or not isinstance(result, (TensorType, TileType)):
        return ""
    tile_op = opdef.name
    if opdef.prefix == "tensor":
        if opdef.to_tile is None or opdef.to_tile.tile_op not in REGISTRY:
            return ""
        tile_op = opdef.to_tile.tile_op
    if REGISTRY.get(tile_op).semantics[:1] == ("reinterpret",) and isinstance(source, TensorType):
        shape = dict(attrs).get("shape")
        return reinterpret_on_chip_gap(source, result.dtype, tuple(shape) if isinstance(shape, tuple) else None)
    if not REGISTRY.is_reshape(tile_op) or (opdef.semantics[:1] == ("view",) and in_gm):
        return ""
    if isinstance(source, TileType) and isinstance(result, TileType) and source.view is not None \
            and result.view is not None:
        return "" if reshape_is_reinterpretation(source, result) else "the placed tiles' bytes differ in order"
    return flat_reshape_gap(source.shape, result.shape, source.dtype)


def on_chip_assemble_gap(opdef: OpDef, args: Sequence[T.Expr], arch: str, in_gm: bool) -> str:
    """Why an assemble into an on-chip value has no PTO window write ("" when it has): the
    fact LegalizeVecLayouts refuses it by (`languages.views.assemble_window_gap`), applied to the
    tiles the operands become (their implicit Vec views). An assemble into a GM tensor is a store."""
    # ConvertTensorToTileOps (convert_assemble) turns an on-chip tensor.assemble into tile.assemble.
    if opdef.name not in ("tensor.assemble", "tile.assemble") or in_gm or len(args) < 3:
        return ""
    target, source = (getattr(a, "type", None) for a in args[:2])
    if not all(isinstance(t, (TensorType, TileType)) for t in (target, source)):
        return ""
    assert isinstance(target, (TensorType, TileType)) and isinstance(source, (TensorType, TileType))
    tiles = [t if isinstance(t, TileType) else TileType(t.shape, t.dtype) for t in (target, source)]
    if any(t.memory_space not in (None, MemorySpace.Vec) for t in tiles):
        return ""
    shapes = [physical_2d(t.shape) for t in tiles]
    flat = [replace(t, shape=shape, valid_shape=None) for t, shape in zip(tiles, shapes)]
    offsets = static_ints(args[2])
    if offsets is not None and len(offsets) not in (1, 2):
        offsets = None  # an N-D window's rows in the packed 2-D tile: not worked out, taken as unknown
    return assemble_window_gap(flat[0], flat[1], offsets, arch)


def on_chip_read_gap(opdef: OpDef, index: int, operand: Type | None, in_gm: bool) -> str:
    """Why operand `index` of `opdef` cannot be `operand` ("" when it can): a tensor-level element
    read (tensor.read) of a value that is not a GM tensor reads a tile, which ConvertTensorToTileOps
    lowers to tile.read (pto.tgetval), and no element of a tile of an unsigned type can be read
    (`tile_element_unreadable`, the fact that pass refuses it by, "not supported yet"). A value the
    kernel computed lives on chip whatever op made it (tensor.divs of a UINT8 parameter is a UINT8
    tile); a GM tensor's element is read by pto.load_scalar, which takes any type."""
    if opdef.prefix != "tensor" or opdef.semantics[:1] != ("read",) or index != 0 or in_gm \
            or not isinstance(operand, (TensorType, TileType)) or not tile_element_unreadable(operand.dtype):
        return ""
    return (f"{opdef.name} of an on-chip {operand.dtype.pl_name} value is a tgetval of an unsigned tile "
            "(ConvertTensorToTileOps: not supported yet)")


def packs_into_rows(ty: Type) -> bool:
    """Whether an N-D value's valid region is a row prefix of its 2-D packing
    (`languages.ops.tile_ops.packed_valid_2d`, the fact the packed load and FlattenTileNdTo2D
    refuse the others by): a middle axis only partly valid leaves holes no 2-D valid shape has."""
    if not isinstance(ty, (TensorType, TileType)) or len(ty.shape) <= 2 or ty.valid_shape is None:
        return True
    extents = ty.valid_extents
    static = tuple(e for e in extents if isinstance(e, int))
    if len(static) != len(extents):  # a runtime leading / trailing extent packs; a middle one does not
        return all(isinstance(e, int) and e == d for e, d in zip(extents[1:-1], ty.shape[1:-1]))
    return packed_valid_2d(ty.shape, static) is not None


def not_generated_reason(opdef: OpDef, arch: str = "") -> str:
    """Why a kernel step for `arch` never calls `opdef` itself ("" when `generatable`): every
    registered op is either drawn by a step or has a stated reason here, which the coverage test
    checks."""
    if generatable(opdef, arch):
        return ""
    gap = (emission_gap(opdef) or UNCONDITIONED_FAMILIES.get(opdef.family, "") or KNOWN_OPEN.get(opdef.name, "")
           or NEVER_EMITTED.get(opdef.name, "") or seeded_on_chip(opdef) or unavailable_somewhere(opdef, arch))
    if gap:
        return gap
    if opdef.prefix in ("pto", "arith"):
        return "the PTO language: emitted by PTOCodegen from the ops a step draws, never written in the DSL"
    if opdef.semantics[:1] in (("load",), ("store",)):
        return "the frame of every tile kernel: the recipes load their parameters and store their results"
    if opdef.semantics[:1] == ("marker",):
        return "a host-side marker (pl.dump_tag) of Orchestration functions: no kernel admits it"
    if opdef.semantics[:1] == ("window",):
        return ("host code only: the orchestration's pl.slice of a GM tensor a kernel is called on, made by "
                "ConvertTensorToTileOps from the windowed calls `main` draws (construct:orchestration-windows)")
    if opdef.family == "cross_core":
        return "inserted by ExpandMixedKernel between the cube and vector halves of a mixed kernel the recipes draw"
    if opdef.family == "pipe":
        return ("the cross-core pipe's set-up and slot release (reserve / import the slot regions, initialise an "
                "end, free a popped slot): inserted by ExpandMixedKernel around the transfers of a mixed kernel the "
                "recipes draw")
    return ""


# Semantics keys whose second operand must lie in a domain on integer data (the registry's
# semantics list, languages/ops/__init__.py): integer division by zero is an error, and a shift
# count must be smaller than the element width (NUMERICS.md section 2).
_DOMAINS = {"div": "nonzero", "fmod": "nonzero", "rem": "nonzero", "shl": "shift", "shr": "shift"}


# The semantics forms whose second operand is the divisor / shift count: element-wise, tile-scalar,
# and the row / column broadcasts (row_expand_div divides each row by its row's value).
_DOMAIN_FORMS = ("binary", "scalar_binary", "row_expand", "col_expand")


def operand_domain(opdef: OpDef, index: int) -> str:
    """"nonzero" / "shift" when operand `index` of `opdef` must be conditioned on integer data."""
    if index != 1 or len(opdef.semantics) < 2 or opdef.semantics[0] not in _DOMAIN_FORMS:
        return ""
    return _DOMAINS.get(str(opdef.semantics[1]), "")


# -- the target's rules (OpDef.target_rules), read as drawing constraints ------------------------


def rules_on(opdef: OpDef, arch: str, attrs: Sequence[tuple[str, AttrValue]] | None = None) -> list[TargetRule]:
    """The rules of `opdef` that hold on `arch` for a call with `attrs` (None: before attributes
    are drawn, so only the rules no attribute conditions)."""
    if not arch:
        return []
    values = dict(opdef.with_defaults(tuple(attrs))) if attrs is not None else None
    return [rule for rule in opdef.target_rules if arch in rule.archs
            and (not rule.when if values is None else all(values.get(k) == v for k, v in rule.when))]


def admitted_dtypes(rules: Sequence[TargetRule], index: int) -> frozenset[DataType] | None:
    """The element types operand `index` may have under `rules` (None: any)."""
    admitted: frozenset[DataType] | None = None
    for rule in rules:
        if isinstance(rule, DtypeIn) and rule.operand == index:
            admitted = rule.dtypes if admitted is None else admitted & rule.dtypes
    return admitted


def _preferred(dtypes: frozenset[DataType]) -> DataType:
    """One admitted element type, the same one every time (the generator's own order first)."""
    for dtype in ELEMENT_TYPES:
        if dtype in dtypes:
            return dtype
    return min(dtypes, key=lambda d: d.name)


def scratch_type(opdef: OpDef, arch: str, index: int, first: TensorType | TileType) -> Type | None:
    """The scratch operand `index` of a call whose first value operand is `first`: `first`'s
    shape and type, unless the target's rules say otherwise -- an admitted element type
    (`DtypeIn`), room for a compare's packed mask plus the rows it uses after it (`MaskScratch`).
    None when no scratch fits (a mask scratch of a result that is not 2-D)."""
    rules = rules_on(opdef, arch)
    dtypes = admitted_dtypes(rules, index)
    dtype = first.dtype if dtypes is None or first.dtype in dtypes else _preferred(dtypes)
    shape = tuple(first.shape)
    for rule in rules:
        if isinstance(rule, MaskScratch) and rule.operand == index:
            if len(shape) != 2:
                return None
            shape = (shape[0] + rule.extra_rows, max(1, mask_cols(shape[1]) * 8 // dtype.bits))
    return _like(first, shape, type(first), dtype)


def _valid_2d(ty: TileType | TensorType) -> tuple[int, int]:
    return int(ty.valid[0]), int(ty.valid[-1])


def _product(values: Iterable[int]) -> int:
    out = 1
    for value in values:
        out *= value
    return out


def target_violation(opdef: OpDef, arch: str, args: Sequence[T.Expr], attrs: Sequence[tuple[str, AttrValue]],
                     result: Type, roots: dict[str, str], column_windows: Collection[str] = ()) -> str:
    """Why the call breaks one of `opdef`'s rules on `arch` ("" when it keeps them all): the
    generator's own reading of the registry's rules, so a drawn call that breaks one is redrawn
    instead of reaching the TargetOpRules verifier as a generator bug."""

    def operand_type(index: int) -> Type | None:
        if index == RESULT:
            return result
        return _value_type(args[index]) if index < len(args) else None

    def root(index: int) -> str | None:
        if index == RESULT or index >= len(args) or not isinstance(args[index], T.Var):
            return None  # the result is a fresh value: its buffer is the pipeline's to place
        name = str(getattr(args[index], "name"))
        return roots.get(name, name)

    if arch and isinstance(result, TileType) and result.memory_space not in (None, MemorySpace.DDR) \
            and all(isinstance(d, int) for d in result.shape):
        # A tile placed by hand in a space it does not fit: AllocateMemoryAddr refuses the kernel
        # (a [16, 32] FP32 Bias tile is 2048 bytes, Ascend910B's Bias 1024: finding 218561ee07).
        size = result.dtype.byte_width * _product(int(d) for d in result.shape)
        if size > get_backend(arch).capacity(result.memory_space):
            return f"a {size}-byte tile over the {result.memory_space.pl_name} capacity"
    first = operand_type(0)
    folded = physical_2d(first.shape) if isinstance(first, (TileType, TensorType)) and first.shape \
        and all(isinstance(d, int) for d in first.shape) else None
    if folded is not None and folded[1] == 1 and folded[0] > 1:
        # An [N, 1] column (an N-D value folding into one: [2, 1, 1] is the [2, 1] column once
        # FlattenTileNdTo2D has run, finding d80de42e82) runs as its row's column twin
        # (LegalizeVecLayouts), whose instruction must take these element types too.
        dtypes = [getattr(operand_type(i), "dtype", None) for i in range(len(args))]
        refusal = twin_refusal(opdef, arch, dtypes, getattr(result, "dtype", None))
        if refusal:
            return f"its column twin {refusal}"
    for rule in rules_on(opdef, arch, attrs):
        if isinstance(rule, Unavailable):
            return f"{opdef.name} is {rule.what}"
        if isinstance(rule, PipeIn) and dict(opdef.with_defaults(tuple(attrs))).get("pipe") not in rule.pipes:
            return "the pipe is not one the target's instruction takes"
        ty = operand_type(rule.operand) if isinstance(rule, (DtypeIn, MaskScratch)) else None
        if isinstance(rule, DtypeIn) and isinstance(ty, (TileType, TensorType)) and ty.dtype not in rule.dtypes:
            return f"operand {rule.operand} is {ty.dtype.name}, not one of the target's types"
        if isinstance(rule, MaskScratch) and isinstance(ty, TileType) and isinstance(result, TileType):
            if len(result.shape) != 2 or len(ty.shape) != 2:
                return "a mask scratch of a result that is not 2-D"
            rows, cols = _valid_2d(result)
            tmp_rows, tmp_cols = _valid_2d(ty)
            if tmp_rows < rows + rule.extra_rows or tmp_cols < mask_cols(cols) * 8 // ty.dtype.bits:
                return f"operand {rule.operand} has no room for the mask"
        if isinstance(rule, WholeRows) and rule.operand < len(args) and isinstance(args[rule.operand], T.Var) \
                and getattr(args[rule.operand], "name") in column_windows:
            return f"operand {rule.operand} is a column window, which the instruction indexes at the wrong pitch"
        if isinstance(rule, Disjoint):
            mine = root(rule.operand)
            if mine is not None and any(root(other) == mine for other in rule.others):
                return f"operand {rule.operand} shares its buffer with another operand the rule keeps apart"
        if isinstance(rule, FlatRowMajor):
            ty = operand_type(rule.operand)
            gap = rule.gap(ty, f"operand {rule.operand}") if isinstance(ty, TileType) else None
            if gap is not None:
                return gap
        if isinstance(rule, UnpaddedRows):
            ty = operand_type(rule.operand)
            gap = rule.gap(tuple(ty.shape), ty.dtype, view=ty.view if isinstance(ty, TileType) else None) \
                if isinstance(ty, (TileType, TensorType)) else None
            if gap is not None:
                return gap
    return ""


def merge_block_lens(source: TensorType | TileType) -> tuple[int, ...]:
    """The block lengths a format-1 merge of `source`'s row takes: positive multiples of
    MRGSORT_BLOCK_LEN_MULTIPLE whose groups of four blocks divide the row's valid columns (at
    most MRGSORT_MAX_GROUPS of them); the smallest multiple when none does (the deduction refuses
    the call and it is redrawn)."""
    cols = source.valid[-1] if source.valid else source.shape[-1]
    multiple = MRGSORT_BLOCK_LEN_MULTIPLE
    fitting = tuple(n * multiple for n in range(1, cols // (4 * multiple) + 1)
                    if cols % (4 * n * multiple) == 0 and cols // (4 * n * multiple) <= MRGSORT_MAX_GROUPS)
    return fitting or (multiple,)


def _value_type(node: Node) -> Type | None:
    return getattr(node, "type", None) if node.KIND == "Var" else None


def _kind_of(decl: OperandDecl) -> str:
    return decl.kind


@dataclass
class Pool:
    """The values in scope at one point of a kernel, and how to make more.

    `fresh_value(type)` makes a new value of a type (a parameter, or a loaded tile), `scratch(type)`
    a buffer whose contents do not matter (a `tmp` operand the op writes), `condition(value,
    domain)` a value of the domain an operand needs (an integer divisor made nonzero, a shift
    count made smaller than the width); each returns None when it cannot."""

    values: list[T.Var]
    fresh_value: Callable[[Type], T.Var | None]
    scratch: Callable[[Type], T.Var | None] = lambda ty: None
    condition: Callable[[T.Var, str], T.Var | None] = lambda value, domain: None
    # Values that lower to a zero-copy view of another tile (a reshape, an on-chip slice): never
    # given to a `handle_only` operand (the registry: set_validshape cannot narrow a view).
    views: set[str] = field(default_factory=set)
    # Cube results (and values computed from them) whose M / N was rounded up to a fractal box:
    # their tiles are bigger than their logical shape, which a reshape cannot re-view (the
    # pipeline declines it, "not supported yet").
    boxed: set[str] = field(default_factory=set)
    # GM tensors (parameters and writes into them): what a tile or system op's `tensor` operand
    # names (a GM workspace, mgather's source); an on-chip tensor value is a tile there.
    gm: set[str] = field(default_factory=set)
    # Values the first operand is drawn from when it can be (a step aimed at a partially valid
    # value: what reads its valid extent).
    prefer: set[str] = field(default_factory=set)
    # The target architecture the program is compiled for (`BackendHandler.arch`; "" for none):
    # which of the ops' `target_rules` a call must satisfy.
    arch: str = ""
    # The buffer a view's elements live in (view name -> the root value it re-views): operands a
    # `Disjoint` rule keeps apart must not reach one root.
    roots: dict[str, str] = field(default_factory=dict)
    # A new parameter (a loaded tile of one, for tile ops) feeding an index operand with a data
    # contract (IndexDomain: a scatter's distinct, in-range positions): random inputs condition
    # its values, and the orchestration never feeds it a computed tensor.
    fresh_index: Callable[[Type], T.Var | None] = lambda ty: None
    # Transposed views (tile.transpose_view results): column-major before placement gives them
    # a TileView, so a row-major-only operand keeps off them (see column_major_view).
    # Reshaped values (a reshape / view / reinterpret result): flat data, which the cube takes
    # only when already a whole number of its boxes (languages.views.reshape_into_boxes_gap).
    reshaped: set[str] = field(default_factory=set)
    transposed: set[str] = field(default_factory=set)
    # Views of some columns of a wider tile: no `WholeRows` operand (gather / scatter's index form).
    column_windows: set[str] = field(default_factory=set)

    def of_kind(self, kind: str) -> list[T.Var]:
        wanted: tuple[type, ...] = {
            "tensor": (TensorType,), "tile": (TileType,), "tensor_or_tile": (TensorType, TileType),
            "tensor_or_scalar": (TensorType,), "any": (TensorType, TileType),
        }.get(kind, ())
        return [v for v in self.values if isinstance(v.type, wanted)]


@dataclass
class DrawnCall:
    op: str
    args: tuple[T.Expr, ...]
    attrs: tuple[tuple[str, AttrValue], ...]
    type: Type
    tags: set[str] = field(default_factory=set)


def _const(value: int, dtype: DataType = INDEX.dtype) -> T.ConstInt:
    return T.ConstInt(value, dtype)


def _dims(values: Sequence[int]) -> T.TupleExpr:
    return T.TupleExpr(tuple(_const(v) for v in values))


class _Drawer:
    def __init__(self, draw: IntDraw, opdef: OpDef, pool: Pool) -> None:
        self.draw = draw
        self.opdef = opdef
        self.pool = pool
        self.args: dict[int, T.Expr] = {}
        self.tags_drawn: set[str] = set()  # construct tags of how the operands were drawn

    def pick(self, options: Sequence[Any]) -> Any:
        return options[self.draw(0, len(options) - 1)]

    def pick_var(self, options: Sequence[T.Var]) -> T.Var:
        return options[self.draw(0, len(options) - 1)]

    def chance(self, percent: int) -> bool:
        return bool(self.draw(0, 99) < percent)

    # -- operands ------------------------------------------------------------------------------

    def source_type(self) -> TensorType | TileType | None:
        for index in sorted(self.args):
            ty = _value_type(self.args[index])
            if isinstance(ty, (TensorType, TileType)):
                return ty
        return None

    def value_operand(self, index: int, decl: OperandDecl) -> T.Expr | None:
        value = self.admitted(index, decl, self._merge_row_source(index) or self._padded_rows_source(index)
                              or self._value_operand(index, decl))
        domain = operand_domain(self.opdef, index)
        ty = _value_type(value) if value is not None else None
        if value is not None and domain and isinstance(value, T.Var) and isinstance(ty, (TensorType, TileType)) \
                and not ty.dtype.is_float:
            return self.pool.condition(value, domain)
        return value

    def _merge_row_source(self, index: int) -> T.Var | None:
        """Usually a fresh row for a format-1 merge (an op with a `block_len`): one row of a
        multiple of 4 * 64 elements, whole groups of four blocks of the 64-element multiple
        TMRGSORT's block length is (MRGSORT_BLOCK_LEN_MULTIPLE); few values of the pool are."""
        if index != 0 or not any(d.name == "block_len" for d in self.opdef.operands) or not self.chance(80):
            return None
        decl = self.opdef.operands[index]
        kind = TileType if decl.kind == "tile" else TensorType
        cols = 4 * MRGSORT_BLOCK_LEN_MULTIPLE * self.pick((1, 2))
        return self.pool.fresh_value(kind((1, cols), self.pick(SORT_DTYPES)))

    def _padded_rows_source(self, index: int) -> T.Var | None:
        """Sometimes a fresh source of several padded rows (12 columns: 48 bytes of FP32, 24 of
        FP16) for an op that indexes operand `index` flat: the shape where a flat element index
        and the Vec buffer's flat position part (TGATHER counts the buffer's padded rows)."""
        if not any(domain.into == index and domain.axis is None and not domain.block_bytes
                   for decl in self.opdef.operands for domain in decl.index_domain) or not self.chance(60):
            return None
        decl = self.opdef.operands[index]
        windows = [v for v in self.pool.of_kind(_kind_of(decl)) if v.name in self.pool.column_windows
                   and _reaches(v, decl) and getattr(v.type, "dtype", None) in GATHER_DTYPES]
        if windows and self.chance(60):
            # A column window of a wider value: its rows lie the parent's pitch apart (a tile op
            # refuses it, the tensor op's lowering copies it first).
            self.tags_drawn.add("construct:padded-index-rows")
            return self.pick_var(windows)
        kind = TileType if decl.kind == "tile" else TensorType
        dtype = self.pick(sorted(GATHER_DTYPES, key=lambda d: d.name))
        made = self.pool.fresh_value(kind((self.pick((16, 3, 8)), 12), dtype))
        if made is not None:
            self.tags_drawn.add("construct:padded-index-rows")
        return made

    def admitted(self, index: int, decl: OperandDecl, value: T.Expr | None) -> T.Expr | None:
        """`value`, or one of an element type the target admits for operand `index` (a value of
        the pool with `value`'s shape, else a fresh one) when its own is not (`DtypeIn`)."""
        ty = _value_type(value) if value is not None else None
        dtypes = admitted_dtypes(rules_on(self.opdef, self.pool.arch), index)
        if dtypes is None or not isinstance(ty, (TensorType, TileType)) or ty.dtype in dtypes:
            return value
        shape = tuple(ty.shape)
        matching = [v for v in self.pool.of_kind(_kind_of(decl)) if _reaches(v, decl)
                    and getattr(v.type, "dtype", None) in dtypes and tuple(getattr(v.type, "shape", ())) == shape
                    and not (declines_boxed_column(self.opdef, index) and v.name in self.pool.boxed
                             and _is_column(v))]
        if matching and self.chance(70):
            return self.pick_var(matching)
        return self.pool.fresh_value(_like(ty, shape, type(ty), self.pick(sorted(dtypes, key=lambda d: d.name))))

    def _value_operand(self, index: int, decl: OperandDecl) -> T.Expr | None:
        workspace = WORKSPACE_OPERANDS.get((self.opdef.name, index))
        if workspace is not None:
            return self.pool.fresh_value(workspace)
        candidates = [v for v in self.pool.of_kind(_kind_of(decl)) if _reaches(v, decl)]
        if decl.kind == "tensor" and self.opdef.prefix != "tensor":
            candidates = [v for v in candidates if v.name in self.pool.gm]
        if (self.opdef.name, index) in ON_CHIP_OPERANDS:
            candidates = [v for v in candidates if v.name not in self.pool.gm]
        candidates = [v for v in candidates
                      if not on_chip_read_gap(self.opdef, index, v.type, v.name in self.pool.gm)]
        if _row_major_only(self.opdef, decl):
            candidates = [v for v in candidates if not column_major_view(v)
                          and not (v.name in self.pool.transposed and not _is_column(v))]
        if index == 0 and self.opdef.semantics[:1] in _RESHAPING:
            candidates = [v for v in candidates if v.name not in self.pool.boxed]
        if index == 0 and self.opdef.semantics[:1] in (("reinterpret",), ("reshape",), ("view",)):
            # A column-major (transposed) tile's bytes are in another order than a re-read of
            # another width or shape sees (languages.layout.reinterpret_keeps_order): TypeDeduction
            # refuses a reinterpret once placement gives the tile its layout, InferTileMemorySpace a
            # reshape (campaign findings 5f3efc54f4, 7bf8208bc5).
            candidates = [v for v in candidates if not column_major_view(v)
                          and not (v.name in self.pool.transposed and not _is_column(v))]
        if declines_boxed_column(self.opdef, index):
            candidates = [v for v in candidates if not (v.name in self.pool.boxed and _is_column(v))]
        if index == 0 and self.opdef.prefix == "tensor" and self.opdef.semantics[:1] == ("compare",):
            candidates = [v for v in candidates if not compares_fewer_rows(v.type)]
        handle_only = _handle_only(self.opdef, index)
        if handle_only:
            candidates = [v for v in candidates if v.name not in self.pool.views]
        if self.opdef.family == "matmul" and index < 2 and self.opdef.prefix == "tile":
            # A tensor matmul boxes an operand computed on chip (ConvertTensorToTileOps'
            # _boxed_on_chip); a tile matmul takes its Mat tiles as they are.
            candidates = [v for v in candidates if not (v.name in self.pool.reshaped and _unboxed_flat(v))]
        first = self.source_type()
        if decl.name == "tmp" and decl.effect is not Effect.READ and first is not None:
            scratch = scratch_type(self.opdef, self.pool.arch, index, first)
            return self.pool.scratch(scratch) if scratch is not None else None
        if decl.kind == "tensor_or_scalar" and (first is None or self.chance(30)):
            return self.scalar_operand(index, decl)
        if index == 0 and self.opdef.semantics[:1] in _RESHAPING and not candidates:
            return None
        if first is not None and (decl.name in _INDEX_NAMES or decl.index_domain):
            # By name, or by the registry's domain (tile.gather's `indices`, gatherb's offsets).
            return self.index_operand(first, candidates, decl)
        if first is not None:
            # Later operands: usually one matching the first (same shape and dtype), else a
            # per-row / per-column one, else anything; a fresh value when the pool has none.
            shapes = [tuple(first.shape)]
            if len(first.shape) == 2:
                shapes += [(first.shape[0], 1), (1, first.shape[1])]
            wanted = self.pick(shapes) if self.chance(85) else None
            matching = [v for v in candidates if wanted is None or
                        (tuple(getattr(v.type, "shape")) == wanted and getattr(v.type, "dtype") == first.dtype)]
            if handle_only:
                matching = [v for v in matching if v.name not in self.pool.views]
            if matching and self.chance(85):
                return self.pick_var(matching)
            if wanted is not None and self.chance(70):
                kind = TileType if isinstance(first, TileType) else TensorType
                made = self.pool.fresh_value(_like(first, wanted, kind))
                if made is not None:
                    return made
        preferred = [v for v in candidates if v.name in self.pool.prefer]
        if first is None and preferred and self.chance(80):
            return self.pick_var(preferred)
        if not candidates and first is None and decl.kind == "tensor":
            # A tile op reading GM directly (mgather's `mem`): a fresh tensor parameter.
            return self.pool.fresh_value(TensorType((self.pick((16, 8, 32)), self.pick((16, 32, 8))),
                                                    self.pick(FLOAT_TYPES)))
        return self.pick_var(candidates) if candidates else None

    def _drawable(self, domain: IndexDomain) -> bool:
        """Whether a call drawn here may be one the domain binds: its `when` names no attribute
        value the generator never draws (mgather's gather_oob="undefined")."""
        return not any(value in EXCLUDED_CHOICES.get((self.opdef.name, key), {}) for key, value in domain.when)

    def index_operand(self, first: TensorType | TileType, candidates: Sequence[T.Var], decl: OperandDecl) -> T.Expr | None:
        """An index operand (sort / gather / scatter): an integer value (INT32, or UINT32 for the
        sort indices) of the source's shape, or of the 32-byte-aligned row a flat gather wants;
        the registry's deduction keeps the right one."""
        dtype = self.pick(_INDEX_DTYPES)
        shapes = [tuple(first.shape)]
        if len(first.shape) == 2:
            align = max(1, 32 // first.dtype.byte_width)
            shapes += [(first.shape[0], align), (1, first.shape[0]), (first.shape[0], 1)]
        whole = [rule for rule in rules_on(self.opdef, self.pool.arch)
                 if isinstance(rule, UnpaddedRows) and rule.operand == RESULT]
        if whole:
            # The index gives the result its shape, the source its element type (tile.gather):
            # an index whose rows the rule keeps whole (a narrower one is a set_validshape of it).
            shapes = [s for s in shapes if all(rule.gap(s, first.dtype) is None for rule in whole)] or shapes
        shape = self.pick(shapes)
        tile = decl.kind == "tile" or (decl.kind != "tensor" and isinstance(first, TileType))
        if any(self._drawable(domain) for domain in decl.index_domain):
            # In-range (and distinct) positions are a contract on the data: only conditioned
            # inputs keep it (a computed index tensor may repeat or leave the source).
            return self.pool.fresh_index(_like(first, shape, TileType if tile else TensorType, dtype))
        matching = [v for v in candidates if getattr(v.type, "dtype", None) == dtype
                    and tuple(getattr(v.type, "shape", ())) == shape]
        if matching and self.chance(50):
            return self.pick_var(matching)
        return self.pool.fresh_value(_like(first, shape, TileType if tile else TensorType, dtype))

    def scalar_operand(self, index: int, decl: OperandDecl) -> T.Expr:
        dtype = self.literal_dtype(decl)
        if dtype is DataType.BOOL:
            return T.ConstBool(self.chance(50))
        source = self.source_type()
        if decl.name == "block_len" and source is not None and source.dtype in SORT_DTYPES and dtype is not None:
            # A merge block is a positive multiple of 64 elements (the deduction's rule, PTOAS's
            # and pto-isa's) that divides the row into whole groups of four blocks.
            return T.ConstInt(self.pick(merge_block_lens(source)), dtype)
        if dtype is None or dtype is INDEX.dtype:
            source = self.source_type()
            if decl.name in ("rows", "cols") and source is not None and len(source.shape) == 2:
                axis = 0 if decl.name == "rows" else 1
                return _const(self.draw(1, max(1, source.valid[axis])))
            return _const(self.pick((1, 2, 0, 3)))
        if dtype.is_float:
            return T.ConstFloat(self.pick(FLOAT_SCALARS), dtype)
        domain = operand_domain(self.opdef, index)
        if domain == "shift":
            return T.ConstInt(self.draw(0, dtype.bits - 1), dtype)
        value = self.pick(INT_SCALARS)
        if not dtype.is_signed:
            value = abs(value)
        if domain == "nonzero" and value == 0:
            value = 1
        return T.ConstInt(value, dtype)

    def literal_dtype(self, decl: OperandDecl) -> DataType | None:
        rule = decl.literal_dtype
        if isinstance(rule, DataType):
            return rule
        if isinstance(rule, int) and rule in self.args:
            ty = _value_type(self.args[rule])
            return getattr(ty, "dtype", None)
        if isinstance(rule, str):
            return None  # an attribute's dtype: resolved once attributes are drawn
        if decl.name in ("init_cond", "cond", "descending", "upper"):
            return DataType.BOOL
        if decl.name in ("rows", "cols"):
            return None  # an extent: an index constant inside the source
        first = self.source_type()
        return first.dtype if first is not None else None

    def list_operand(self, index: int, decl: OperandDecl, attrs: dict[str, AttrValue]) -> T.Expr | None:
        source = self.source_type()
        window = self.opdef.window
        if window is not None and index == window.offsets:
            return None  # drawn last, once the extent is known
        if decl.name in _SHAPE_NAMES:
            return _dims(self.shape_for(source, window, index))
        if decl.name in _VALID_NAMES:
            shape = self.drawn_shape(index)
            if shape is None:
                return None
            return _dims(tuple(self.draw(1, d) if d > 0 else 0 for d in shape))
        if decl.name == "indices" and source is not None:
            return _dims(tuple(self.draw(0, max(0, d - 1)) for d in source.valid))
        if decl.name == "offsets" and source is not None:
            return _dims((0,) * len(source.shape))
        return None

    def drawn_shape(self, valid_index: int) -> tuple[int, ...] | None:
        """The shape list drawn just before a valid-shape operand (else the source's shape)."""
        for index in range(valid_index - 1, -1, -1):
            arg = self.args.get(index)
            if arg is not None and arg.KIND == "TupleExpr" and self.opdef.operand_decl(index).name in _SHAPE_NAMES:
                return tuple(int(getattr(e, "value")) for e in getattr(arg, "elements"))
        source = self.source_type()
        return tuple(source.shape) if source is not None else None

    def shape_for(self, source: TensorType | TileType | None, window: Window | None, index: int) -> tuple[int, ...]:
        if source is None:
            return (self.pick((16, 1, 8, 32)), self.pick((16, 32, 8, 64)))
        shape = tuple(source.shape)
        if REGISTRY.is_reshape(self.opdef.name):
            options = _reshapes(shape)
            return options[self.draw(0, len(options) - 1)]
        if window is not None and ("list", index) in window.extent:
            # A sub-window of the source, inside its valid region.
            return tuple(self.draw(1, max(1, v)) for v in source.valid)
        if self.chance(50):
            return shape
        return tuple(d + self.pick((0, 8, 16)) for d in shape)

    def offsets(self, extent: Sequence[int], bound: Sequence[int]) -> tuple[int, ...]:
        return tuple(self.draw(0, max(0, b - e)) for e, b in zip(extent, bound))

    # -- attributes ----------------------------------------------------------------------------

    def attr(self, decl: AttrDecl, source: TensorType | TileType | None) -> AttrValue | None:
        """A value for `decl`, or None to leave it at its default."""
        if decl.choices:
            excluded = EXCLUDED_CHOICES.get((self.opdef.name, decl.name), {})
            if decl.default is not None and decl.default not in excluded and self.chance(40):
                return None
            value: AttrValue = self.pick([c for c in decl.choices if c not in excluded])
            return value
        if decl.kind == "dtype":
            if decl.default is not None and self.chance(50):
                return None
            dtype: DataType = self.pick(ELEMENT_TYPES)
            return dtype
        if decl.kind == "bool":
            return self.chance(30) if decl.default is not None else (self.chance(50) or None)
        if decl.kind == "int":
            if decl.default is not None:
                return None
            if self.chance(30):
                # An int attribute without a default may be absent, a form of its own (a gather
                # without `dim` is flat); where the op needs it, the deduction refuses the draw.
                return None
            rank = len(source.shape) if source is not None else 2
            return int(self.draw(0, max(0, rank - 1)))
        if decl.kind == "int_list" and source is not None:
            if self.chance(50):
                return None
            return tuple(self.pick(_reshapes(tuple(source.shape))))
        return None

    # -- the call ------------------------------------------------------------------------------

    def call(self) -> DrawnCall | None:
        opdef = self.opdef
        limit = RANK_LIMITS.get(opdef.family)
        operands = opdef.operands
        # Optional operands are dropped from the tail (a scratch `tmp` is the pass's to add).
        count = len(operands)
        while count > 0 and operands[count - 1].optional and (self.chance(70) or operands[count - 1].name == "tmp"):
            count -= 1
        value_kinds = ("tensor", "tile", "tensor_or_tile", "any", "tensor_or_scalar")
        for index in range(count):
            decl = operands[index]
            if decl.kind in value_kinds:
                value = self.value_operand(index, decl)
                if value is None:
                    return None
                self.args[index] = value
        source = self.source_type()
        if limit is not None and source is not None and len(source.shape) != limit[0]:
            return None
        if opdef.window is not None and source is not None and len(source.shape) > 2:
            return None  # FlattenTileNdTo2D packs rank-1 windows only ("not supported" past that)
        attrs: dict[str, AttrValue] = {}
        for attr_decl in opdef.attrs:
            attr_value = self.attr(attr_decl, source)
            if attr_value is not None:
                attrs[attr_decl.name] = attr_value
        for index in range(count):
            decl = operands[index]
            if decl.kind == "int_list":
                made = self.list_operand(index, decl, attrs)
                if made is not None:
                    self.args[index] = made
            elif decl.kind == "scalar":
                self.args[index] = self.scalar_operand(index, decl) if not isinstance(decl.literal_dtype, str) \
                    else self.attr_scalar(decl, attrs)
        if not self.place_window(count):
            return None
        if sorted(self.args) != list(range(count)):
            return None
        args = tuple(self.args[i] for i in range(count))
        attr_items = tuple(attrs.items())
        try:
            ty = REGISTRY.deduce(opdef.name, args, attr_items)
            if attrs.get("cross_core") and isinstance(ty, TileType) and args \
                    and not is_cross_core_transfer(getattr(_value_type(args[0]), "memory_space", None), ty.memory_space):
                # A cross-core move whose source is not placed yet deduces, but its placement may
                # leave no FIFO for it (tile_ops.is_cross_core_transfer): drawn as a plain move.
                attr_items = tuple((k, v) for k, v in attr_items if k != "cross_core")
                ty = REGISTRY.deduce(opdef.name, args, attr_items)
        except CompileError:
            return None
        if self.transposed_on_chip_k_gap(opdef, args, dict(attr_items)):
            return None  # ConvertTensorToTileOps declines it (its K takes no padding in Mat's box)
        if self.unconnected_move(opdef, args, dict(attr_items), ty):
            return None
        if target_violation(opdef, self.pool.arch, args, attr_items, ty, self.pool.roots,
                            self.pool.column_windows) or boxed_extent_gap(ty):
            return None
        in_gm = bool(args) and isinstance(args[0], T.Var) and args[0].name in self.pool.gm
        if on_chip_view_gap(opdef, args, attr_items, ty, in_gm):
            return None  # the pipeline refuses it: no zero-copy form on chip
        if on_chip_assemble_gap(opdef, args, self.pool.arch, in_gm):
            return None  # LegalizeVecLayouts refuses it: no window write between these layouts
        if opdef.semantics[:1] == ("scatter_update",) and len(args) >= 3 \
                and scatter_update_flat_gap(*(getattr(a, "type", None) for a in args[:3])):
            return None  # ConvertTensorToTileOps refuses it: its flat rows are no zero-copy view
        if not packs_into_rows(ty):
            return None  # FlattenTileNdTo2D: an N-D region partial in a middle axis has no 2-D form
        if opdef.to_tile is not None and (unaligned_n(args, attr_items, opdef.to_tile) is not None
                                          or unaligned_k(args, attr_items, opdef.to_tile) is not None
                                          or unboxed_batched_axis(args, attr_items, opdef.to_tile) is not None):
            # The conversion declines a K it never pads, an N it does not box (TileInput.aligned_n),
            # a batched matmul whose batches' matrices are not whole boxes.
            return None
        tags = self.tags(args, ty)
        for attr_name, attr_value in attr_items:
            chosen = opdef.attr_decl(attr_name)
            if chosen is not None and chosen.choices:
                tags.add(f"{opdef.name}:{attr_name}={attr_value}")
        if isinstance(ty, (TensorType, TileType)) and ty.valid_shape is not None:
            tags.add("valid:partial")
        return DrawnCall(opdef.name, args, attr_items, ty, tags)

    def transposed_on_chip_k_gap(self, opdef: OpDef, args: tuple[T.Expr, ...], attrs: dict[str, AttrValue]) -> bool:
        """A tensor matmul whose right operand is computed on chip and transposed (b_trans) with a
        K short of Mat's box rows: its transpose moves into Mat, where K takes no padding."""
        names = opdef.operand_names
        if opdef.prefix != "tensor" or opdef.family != "matmul" or not attrs.get("b_trans") or "rhs" not in names \
                or names.index("rhs") >= len(args):
            return False
        rhs = args[names.index("rhs")]
        ty = _value_type(rhs)
        if not isinstance(rhs, T.Var) or rhs.name in self.pool.gm or not isinstance(ty, TensorType) or len(ty.shape) != 2:
            return False
        k = int(ty.shape[1])
        box = box_shape(implicit_view(MemorySpace.Mat, (k, int(ty.shape[0]))), ty.dtype)
        return box is not None and k % box[0] != 0

    def unconnected_move(self, opdef: OpDef, args: tuple[T.Expr, ...], attrs: dict[str, AttrValue], ty: Type) -> bool:
        """A plain (not cross-core) move between two known spaces that no chain of the target's
        data-move engines (`BackendHandler.can_move`) and cross-core FIFOs (CROSS_CORE_TRANSFERS)
        connects, e.g. Vec -> Acc (nothing but the cube writes Acc): no pass can stage it
        (ExpandMixedKernel refuses the value computed on one core and used on the other). A
        move the chain connects (Vec -> Left: across to Mat, then extracted) is drawn."""
        if opdef.semantics[:1] != ("move",) or attrs.get("cross_core") or not self.pool.arch or not args:
            return False
        source = getattr(_value_type(args[0]), "memory_space", None)
        target = getattr(ty, "memory_space", None)
        if target is None:
            return False
        # An unplaced source is placed where its producer and users put it: Vec for the vector
        # unit, or Mat for a load a cube operand demands (a move of an unplaced load to Acc on
        # Ascend910B reaches from neither: a campaign's finding, ffcfbacb8f).
        sources = (source,) if source is not None else (MemorySpace.Vec, MemorySpace.Mat)
        return all(target not in _reachable(self.pool.arch, space) for space in sources)

    def attr_scalar(self, decl: OperandDecl, attrs: dict[str, AttrValue]) -> T.Expr:
        named = attrs.get(str(decl.literal_dtype))
        if named is None:
            default = self.opdef.attr_decl(str(decl.literal_dtype))
            named = default.default if default is not None else None
        if not isinstance(named, DataType):
            named = DataType.FP32
            attrs[str(decl.literal_dtype)] = named
        if named.is_float:
            return T.ConstFloat(self.pick(FLOAT_SCALARS), named)
        return T.ConstInt(abs(self.pick(INT_SCALARS)), named)

    def place_window(self, count: int) -> bool:
        window = self.opdef.window
        if window is None:
            return True
        source = _value_type(self.args.get(window.source, T.ConstInt(0, INDEX.dtype)))
        if not isinstance(source, (TensorType, TileType)):
            return False
        extent = self.extent(window, source)
        if extent is None:
            return False
        # The offsets keep the widest extent the call names inside the source (a slice's whole
        # shape, not only its valid part: an on-chip slice is a view of all of it).
        for other in self.extents(window, source):
            extent = tuple(max(a, b) for a, b in zip(extent, other))
        offsets = self.offsets(extent, source.shape)
        if isinstance(window.offsets, tuple):
            for index, value in zip(window.offsets, offsets):
                if index < count:
                    self.args[index] = _const(value)
        elif window.offsets < count:
            self.args[window.offsets] = _dims(offsets)
        return True

    def extent(self, window: Window, source: TensorType | TileType) -> tuple[int, ...] | None:
        found = self.extents(window, source)
        return found[0] if found else None

    def extents(self, window: Window, source: TensorType | TileType) -> list[tuple[int, ...]]:
        found: list[tuple[int, ...]] = []
        for spec in window.extent:
            kind = spec[0]
            if kind == "ones":
                found.append((1,) * len(source.shape))
                continue
            if kind == "attr":
                continue
            index = int(spec[1])
            arg = self.args.get(index)
            if arg is None:
                continue
            if kind == "list" and arg.KIND == "TupleExpr":
                found.append(tuple(int(getattr(e, "value")) for e in getattr(arg, "elements")))
                continue
            ty = _value_type(arg)
            if isinstance(ty, (TensorType, TileType)):
                found.append(tuple(ty.valid if kind == "valid" else ty.shape))
        return [e for e in found if len(e) == len(source.shape)]

    def tags(self, args: Sequence[T.Expr], ty: Type) -> set[str]:
        op = self.opdef.name
        tags = {op, *self.tags_drawn}
        dtypes = {getattr(_value_type(a), "dtype", None) for a in args} - {None}
        for dtype in dtypes:
            tags.add(f"{op}/{getattr(dtype, 'name', dtype)}")
        for index, arg in enumerate(args):
            space = getattr(_value_type(arg), "memory_space", None)
            if isinstance(space, MemorySpace):
                tags.add(f"{op}:{self.opdef.operand_decl(index).name}@{space.name}")
        return tags


# Spaces a value can be brought to by placement before the op reads it: where MTE2 loads land
# (Vec, Mat) and the matmul operands L0 tiling hops out of Mat. Acc is written by the cube alone.
_PLACEABLE = {MemorySpace.Vec: (None, MemorySpace.Vec), MemorySpace.Mat: (None, MemorySpace.Mat),
              MemorySpace.Left: (MemorySpace.Mat, MemorySpace.Left), MemorySpace.Right: (MemorySpace.Mat, MemorySpace.Right)}


def _row_major_only(opdef: OpDef, decl: OperandDecl) -> bool:
    """Whether the vector unit needs operand `decl` of `opdef` row-major (PTOAS; LegalizeVecLayouts
    gives [N, 1] columns their row view and declines any other column-major tile), or the
    instruction walks its buffer flat (a `FlatRowMajor` rule: TGATHER / TSCATTER's operands)."""
    return decl.name in (row_major_vec_tiles(opdef.family, opdef.pto, opdef.operand_names) or ()) \
        or any(isinstance(rule, FlatRowMajor) and rule.operand < len(opdef.operand_names)
               and opdef.operand_names[rule.operand] == decl.name for rule in opdef.target_rules)


def column_major_view(value: T.Var) -> bool:
    """A column-major tile other than an [N, 1] column (a transpose_view's result): an [N, 1]
    column has its zero-copy row view, a column broadcast's included (LegalizeVecLayouts)."""
    ty = value.type
    return isinstance(ty, TileType) and ty.view is not None and ty.view.blayout == "col_major" \
        and not (len(ty.shape) == 2 and ty.shape[1] == 1)


def _is_column(value: T.Var) -> bool:
    shape: tuple[int, ...] = tuple(getattr(value.type, "shape", ()))
    return len(shape) == 2 and shape[1] == 1


def _reaches(value: T.Var, decl: OperandDecl) -> bool:
    """Whether `value` can be operand `decl` (its declared memory space, `input_memory` /
    `accepted_memory`, reachable from where `value` lives without a missing data path)."""
    ty = value.type
    if not isinstance(ty, TileType) or not decl.legal_spaces:
        return True
    # An unplaced tile computed by the vector unit lands in Vec (its op's Fixed output space).
    space = ty.memory_space or MemorySpace.Vec
    if space in decl.legal_spaces:
        return True
    return any(space in _PLACEABLE.get(legal, ()) for legal in decl.legal_spaces)


@functools.lru_cache(maxsize=None)
def _reachable(arch: str, source: MemorySpace) -> frozenset[MemorySpace]:
    """The spaces a tile in `source` can be brought to on `arch` by data moves and FIFO crossings."""
    backend = get_backend(arch)
    seen, todo = {source}, [source]
    while todo:
        here = todo.pop()
        for space in MemorySpace:
            if space not in seen and (backend.can_move(here, space) or is_cross_core_transfer(here, space)):
                seen.add(space)
                todo.append(space)
    return frozenset(seen)


def _unboxed_flat(value: T.Var) -> bool:
    """A flat (reshaped) value the cube cannot take as it is: not a whole number of Mat boxes."""
    ty = value.type
    return isinstance(ty, (TensorType, TileType)) and len(ty.shape) == 2 and all(isinstance(d, int) for d in ty.shape) \
        and reshape_into_boxes_gap(MemorySpace.Mat, tuple(int(d) for d in ty.shape), ty.dtype) is not None


def _reshapes(shape: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Shapes with the same element count: the flat row, a [n, 1] column, halved / doubled rows."""
    total = 1
    for d in shape:
        total *= d
    options = [shape, (1, total), (total, 1)]
    if len(shape) == 2 and shape[0] % 2 == 0:
        options.append((shape[0] // 2, shape[1] * 2))
    if len(shape) == 2 and shape[1] % 2 == 0:
        options.append((shape[0] * 2, shape[1] // 2))
    return options


def _like(template: TensorType | TileType, shape: tuple[int, ...], kind: type, dtype: DataType | None = None) -> Type:
    if kind is TileType:
        return TileType(shape, dtype or template.dtype)
    return TensorType(shape, dtype or template.dtype)


def draw_call(draw: IntDraw, opdef: OpDef, pool: Pool) -> DrawnCall | None:
    """A call of `opdef` over values of `pool` that the registry's deduction accepts, or None."""
    if (opdef.name, pool.arch) in KNOWN_OPEN_ON:
        return None
    for _ in range(_TRIES):
        drawn = _Drawer(draw, opdef, pool).call()
        if drawn is not None:
            return drawn
    return None


def reaching_ops(name: str, arch: str = "") -> list[str]:
    """The ops a kernel step may call to exercise `name` (a registered op a campaign has not
    reached): `name` itself when a step draws it, else the tile ops whose PTO emission is `name`
    and the tensor ops lowering to those (a pto.* instruction is reached through its DSL op).
    Ops the target's rules or KNOWN_OPEN_ON keep off `arch` are left out; [] when none is left."""
    if name not in REGISTRY:
        return []
    opdef = REGISTRY.get(name)
    if generatable(opdef, arch):
        reaching = [opdef]
    else:
        tile_ops = {op.name for op in REGISTRY if op.prefix == "tile" and name in op.pto and generatable(op, arch)}
        reaching = [op for op in REGISTRY if op.name in tile_ops or (
            op.prefix == "tensor" and generatable(op, arch) and op.to_tile is not None
            and tile_ops & {op.to_tile.tile_op, op.to_tile.scalar_rhs_op, op.to_tile.row_broadcast_op,
                            op.to_tile.col_broadcast_op})]
    # (`generatable(op, arch)` already leaves out what the target's Unavailable rules forbid.)
    return sorted(op.name for op in reaching if (op.name, arch) not in KNOWN_OPEN_ON)


def steering_focus(universe: Sequence[str], exercised: Collection[str], arch: str = "") -> list[str]:
    """The generatable ops that reach the ops of `universe` a campaign has not `exercised` yet
    (`reaching_ops`), each once, in the universe's order: what a steered chunk draws for."""
    focus: list[str] = []
    for name in universe:
        if name in exercised:
            continue
        for op in reaching_ops(name, arch):
            if op not in focus:
                focus.append(op)
    return focus


# (prefix, arch, number of registered ops) -> generatable_ops' answer. Every fact it reads is a
# fact of the registry (ops are registered, never removed or changed) or a module constant, so
# the answer changes only when an op is registered; a kernel step asked it ~10 times per
# program (~5 % of a fuzz campaign).
_GENERATABLE: dict[tuple[str, str, int], tuple[OpDef, ...]] = {}


def generatable_ops(prefix: str, arch: str = "") -> list[OpDef]:
    """The registered ops of `prefix` ("tensor" / "tile") a kernel for `arch` may call, in name order."""
    key = (prefix, arch, len(REGISTRY))
    ops = _GENERATABLE.get(key)
    if ops is None:
        ops = _GENERATABLE[key] = tuple(sorted((op for op in REGISTRY if op.prefix == prefix and generatable(op, arch)),
                                               key=lambda o: o.name))
    return list(ops)


__all__ = ["reaching_ops", "steering_focus", "admitted_dtypes", "rules_on", "unavailable_somewhere", "scratch_type", "target_violation", "emission_gap", "not_generated_reason", "DrawnCall", "ELEMENT_TYPES", "FLOAT_TYPES", "INT_TYPES", "Pool", "draw_call", "generatable", "column_major_view",
           "generatable_ops", "operand_domain"]
