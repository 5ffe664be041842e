"""`tile.*` operators: on-chip compute (Vec in, Vec out; the cube's Left x Right -> Acc), the
GM bridges (load / store), moves between buffers, views and creation.

Shape, dtype and valid-shape rules shared with the tensor ops come from tensor_ops.py; what is
tile-specific here is where operands and results live and which PTO instruction each op emits.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Sequence

from languages.memory_space import COMPACT_SPACES, ON_CHIP_SPACES, MemorySpace
from languages.ops import (
    READ_WRITE,
    WRITE,
    AttrDecl,
    Deducer,
    DeductionError,
    Fixed,
    FromAttr,
    InheritInput,
    OpDef,
    OperandDecl,
    ReusesInput,
    ViewValid,
    Window,
    describe,
    static_int,
    static_ints,
    type_of,
)
from languages.types import known_extents
from languages.ops.tensor_ops import (
    atomic_add_rules,
    HIGH_PRECISION_OPS,
    ASSEMBLE_WINDOW,
    ELEMENT_WINDOW,
    SLICE_WINDOW,
    CAST_MODES,
    MATMUL_ACCUMULATOR,
    RESHAPE_VALID,
    SET_VALIDSHAPE_VALID,
    SLICE_VALID,
    UNARY_FUNCTIONS,
    check_accumulator,
    check_rank,
    check_valid_within,
    check_window,
    deduce_assemble,
    deduce_cast,
    deduce_col_expand,
    deduce_read,
    deduce_reduce_col,
    deduce_reduce_row,
    deduce_reshape,
    deduce_row_expand,
    deduce_scalar,
    deduce_set_validshape,
    deduce_slice,
    deduce_transpose,
    deduce_write,
    dims_at,
    optional_extents,
    dtype_attr,
    list_len,
    make_binary,
    make_unary,
    batched_matmul_dims,
    matmul_dims,
    matmul_valid,
    scalar_at,
    tensor_at,
)
from languages.types import BOOL, AttrValue, Attrs, DataType, Dims, NoneType, TileType, TileView, Type, attr
from languages.views import extract_view, implicit_view, make_tile_type, move_view, transposed_view
from nanopass.node import Node

VEC = MemorySpace.Vec
_ON_CHIP: tuple[MemorySpace, ...] = ON_CHIP_SPACES

# FIXPIPE narrows an FP32 accumulator on its way out of L0C (TARGET_FACTS "Acc->GM store dtypes").
_FIXPIPE_STORE_DTYPES = {DataType.FP32: (DataType.FP16, DataType.BF16)}


# The axis of a cube operand tile that is K (the reduction), by the L0 space it is extracted
# into: a Left tile is [M, K], a Right one [K, N]. The cube sums over the left operand's valid K
# (`cube_extents`), so an L0 block cut from a source narrowed on K must stay inside that valid
# K: a block valid over its whole width past it would have the source's columns past the valid
# K summed (StaticBounds checks it).
CUBE_K_AXIS: dict[MemorySpace, int] = {MemorySpace.Left: 1, MemorySpace.Right: 0}

def tile_at(args: Sequence[Node], index: int) -> TileType:
    ty = type_of(args[index])
    if not isinstance(ty, TileType):
        raise DeductionError(f"expected a tile, got {describe(args[index])}", index)
    return ty


def target_space(attrs: Attrs, op: str) -> MemorySpace:
    space = attr(attrs, "target_memory")
    if not isinstance(space, MemorySpace):
        raise DeductionError(f"attribute 'target_memory' is required by {op}",
                             hint="e.g. target_memory=pl.Mem.Left")
    return space


# -- cube ------------------------------------------------------------------------------------------


def deduce_matmul(args: Sequence[Node], attrs: Attrs) -> Type:
    lhs, rhs = tile_at(args, 0), tile_at(args, 1)
    m, n, _ = matmul_dims(lhs, rhs, False, False)
    return make_tile_type((m, n), MATMUL_ACCUMULATOR[lhs.dtype], matmul_valid(lhs, rhs, False, False))


def matmul_result_view(result: TileType, args: Sequence[Node], space: MemorySpace) -> TileView:
    """MAD lays the product out at pitch ceil(validRow/16)*16 of the Left operand's valid rows;
    a reader walks it at that pitch only if the accumulator is compact, so a row-narrowed left
    operand yields a compact accumulator (StampCompactForNarrowedAccRows)."""
    lhs = type_of(args[0])
    narrowed = isinstance(lhs, TileType) and lhs.valid[0] != lhs.shape[0]
    return replace(implicit_view(space, result.shape), compact=narrowed)


def deduce_matmul_acc(args: Sequence[Node], attrs: Attrs) -> Type:
    acc, lhs, rhs = tile_at(args, 0), tile_at(args, 1), tile_at(args, 2)
    m, n, _ = matmul_dims(lhs, rhs, False, False)
    check_accumulator(acc, MATMUL_ACCUMULATOR[lhs.dtype], (m, n), 0)
    if len(args) > 3 and scalar_at(args, 3) != BOOL:
        raise DeductionError(f"expected a BOOL scalar, got {describe(args[3])}", 3)
    # The result is the accumulator's buffer (and so its view, compact mode included); its
    # valid extent is the product's.
    valid = matmul_valid(lhs, rhs, False, False)
    return replace(make_tile_type(acc.shape, acc.dtype, valid), memory_space=acc.memory_space, view=acc.view)


def deduce_matmul_bias(args: Sequence[Node], attrs: Attrs) -> Type:
    """lhs @ rhs started from the bias row: the bias is one row of the accumulator's dtype
    holding N values (pto-isa CheckBiasValid: Bias space, Rows == 1, the Acc's dtype)."""
    lhs, rhs, bias = tile_at(args, 0), tile_at(args, 1), tile_at(args, 2)
    m, n, _ = matmul_dims(lhs, rhs, False, False)
    accumulator = MATMUL_ACCUMULATOR[lhs.dtype]
    if bias.dtype != accumulator:
        raise DeductionError(f"expected dtype {accumulator.name} (the accumulator's), got {bias.dtype.name}", 2,
                             hint="the bias initialises L0C, so it has the accumulator's dtype")
    if len(bias.shape) != 2 or bias.shape[0] != 1 or bias.shape[1] != n:
        raise DeductionError(f"expected shape [1, {n}] (one bias value per output column), got {list(bias.shape)}", 2)
    return make_tile_type((m, n), accumulator, matmul_valid(lhs, rhs, False, False))


def _one_row(deduce: Deducer, lhs_index: int) -> Deducer:
    """The gemv forms: the matmul rule of `deduce` for a left operand of exactly one valid row
    (pto.tgemv: lhs and dst valid_shape[0] == 1)."""

    def deduce_gemv(args: Sequence[Node], attrs: Attrs) -> Type:
        lhs = tile_at(args, lhs_index)
        if lhs.valid[0] != 1:
            raise DeductionError(f"expected one valid row (a vector), got valid shape {list(lhs.valid)}", lhs_index,
                                 hint="gemv multiplies a [1, K] row by a [K, N] matrix; use tile.matmul for more rows")
        return deduce(args, attrs)

    return deduce_gemv


def deduce_batch_matmul(args: Sequence[Node], attrs: Attrs) -> Type:
    """[..., M, K] x [..., K, N] -> [..., M, N], the batch dims broadcast (a rank-2 operand is
    one matrix for every batch); FlattenTileNdTo2D unrolls it into 2-D matmuls."""
    lhs, rhs = tile_at(args, 0), tile_at(args, 1)
    batch, m, n, _ = batched_matmul_dims(lhs, rhs, False, False)
    valid = (*batch, *matmul_valid(_last_two(lhs), _last_two(rhs), False, False))
    return make_tile_type((*batch, m, n), MATMUL_ACCUMULATOR[lhs.dtype], valid)


def deduce_batch_matmul_acc(args: Sequence[Node], attrs: Attrs) -> Type:
    acc, lhs, rhs = tile_at(args, 0), tile_at(args, 1), tile_at(args, 2)
    batch, m, n, _ = batched_matmul_dims(lhs, rhs, False, False)
    check_accumulator(acc, MATMUL_ACCUMULATOR[lhs.dtype], (*batch, m, n), 0)
    valid = (*batch, *matmul_valid(_last_two(lhs), _last_two(rhs), False, False))
    return replace(make_tile_type(acc.shape, acc.dtype, valid), memory_space=acc.memory_space, view=acc.view)


def _last_two(tile: TileType) -> TileType:
    return make_tile_type(tile.shape[-2:], tile.dtype, tile.valid[-2:])


# -- GM bridges --------------------------------------------------------------------------------------


def packed_2d(shape: Dims) -> Dims:
    """The row-packed 2-D form of an N-D extent ([n] -> [1, n]; [a, b, c] -> [a * b, c]): PTO
    tile buffers are rows x cols, and packing keeps the row-major element order."""
    if len(shape) == 2:
        return tuple(shape)
    if len(shape) == 1:
        return (1, shape[0])
    rows = 1
    for extent in shape[:-1]:
        rows *= extent
    return (rows, shape[-1])


def packed_valid_2d(shape: Dims, valid: Dims) -> Dims | None:
    """The packed valid region, or None when it is not a row prefix of the packing."""
    if len(shape) <= 2:
        return packed_2d(valid)
    if tuple(valid[1:-1]) != tuple(shape[1:-1]):
        return None
    middle = 1
    for extent in shape[1:-1]:
        middle *= extent
    return (valid[0] * middle, valid[-1])


def deduce_load(args: Sequence[Node], attrs: Attrs) -> Type:
    result = _deduce_window_load(args, attrs)
    if not attr(attrs, "packed", False) or len(result.shape) == 2:
        return result
    valid = packed_valid_2d(result.shape, result.valid)
    if valid is None:
        raise DeductionError(f"a window valid in {list(result.valid)} of {list(result.shape)} cannot be packed into "
                             "2-D rows (a middle axis is only partly valid)", 3)
    return make_tile_type(packed_2d(result.shape), result.dtype, valid)


def _deduce_window_load(args: Sequence[Node], attrs: Attrs) -> TileType:
    tensor = tensor_at(args, 0)
    rank = len(tensor.shape)
    check_rank(args[1], list_len(args[1]), rank, 1, "offsets")
    shapes = dims_at(args, 2, "shapes")
    check_rank(args[2], len(shapes), rank, 2, "shapes")
    valid = optional_extents(args, 3, "valid_shape")
    if valid is not None:
        check_valid_within(valid, shapes, 3, "valid_shape (within shapes)")
    # Only the valid extent is transferred, so a boxed (rounded-up) physical shape may overhang
    # the tensor while the valid window may not.
    check_window(static_ints(args[1]), known_extents(valid) if valid else shapes, tensor.shape, 1,
                 "the loaded window")
    return make_tile_type(shapes, tensor.dtype, valid)


def deduce_store(args: Sequence[Node], attrs: Attrs) -> Type:
    tile = tile_at(args, 0)
    tensor = tensor_at(args, 2)
    check_rank(args[1], list_len(args[1]), len(tensor.shape), 1, "offsets")
    window = attr(attrs, "window")
    if isinstance(window, tuple) or len(tile.shape) != len(tensor.shape):
        stored = tile.valid  # a packed window is static (a runtime extent is declined here)
    else:
        stored = known_extents(tile.valid_extents)  # a runtime extent is checked when it is known
    if isinstance(window, tuple):
        # A row-packed 2-D tile filling an N-D window of the tensor (FlattenTileNdTo2D).
        check_rank(args[1], len(window), len(tensor.shape), 1, "window")
        if packed_2d(window) != tile.valid:
            raise DeductionError(f"expected a tile valid in {list(packed_2d(window))} (the packed window "
                                 f"{list(window)}), got valid {list(tile.valid)}", 0)
        stored = window
    elif len(tile.shape) != len(tensor.shape):
        raise DeductionError(f"expected rank {len(tensor.shape)} (the tensor's), got rank {len(tile.shape)}", 0)
    narrowing = tensor.dtype in _FIXPIPE_STORE_DTYPES.get(tile.dtype, ()) and tile.memory_space in (None, MemorySpace.Acc)
    if tile.dtype != tensor.dtype and not narrowing:
        raise DeductionError(f"expected dtype {tensor.dtype.name} (the tensor's), got {tile.dtype.name}", 0,
                             hint="only an FP32 Acc tile may be stored into an FP16/BF16 tensor")
    check_window(static_ints(args[1]), stored, tensor.shape, 1, "the stored valid region")
    return tensor


# -- moves and creation --------------------------------------------------------------------------------


def deduce_move(args: Sequence[Node], attrs: Attrs) -> Type:
    source = tile_at(args, 0)
    space = target_space(attrs, "tile.move")
    if attr(attrs, "cross_core", False):
        # A cross-core hop is a FIFO pop on the consumer core: a fresh buffer in the target
        # space's own layout (the FIFO carries a row-major rectangle, not the source's boxes).
        if source.memory_space is not None and not is_cross_core_transfer(source.memory_space, space):
            legal = ", ".join(f"{a.name} -> {b.name}" for a, b in CROSS_CORE_TRANSFERS)
            raise DeductionError(f"no cross-core transfer {source.memory_space.name} -> {space.name} "
                                 f"(cross-core FIFOs carry {legal})", 0,
                                 hint="move a matmul result (Acc) to Vec or a Vec tile to Mat across the cores; "
                                      "within one core, move without cross_core")
        return make_tile_type(source.shape, source.dtype, source.valid_shape, space, implicit_view(space, source.shape))
    return make_tile_type(source.shape, source.dtype, source.valid_shape, space, move_view(source, space))


def _clamped_extent(offset: int | None, extent: int, src_valid: int, src_shape: int) -> int:
    if offset is None:
        return extent if src_valid == src_shape else min(extent, src_valid)
    return max(0, min(extent, src_valid - offset))


def deduce_extract(args: Sequence[Node], attrs: Attrs) -> Type:
    source = tile_at(args, 0)
    if len(source.shape) != 2:
        raise DeductionError(f"expected a 2-D tile, got rank {len(source.shape)}", 0)
    for index in (1, 2):
        scalar_at(args, index)
    shape = dims_at(args, 3, "shape")
    check_rank(args[3], len(shape), 2, 3, "shape")
    offsets = (static_int(args[1]), static_int(args[2]))
    if all(o is not None for o in offsets):
        check_window(tuple(o for o in offsets if o is not None), shape, source.shape, 1, "the extracted window")
    valid = tuple(_clamped_extent(o, e, v, s) for o, e, v, s in zip(offsets, shape, source.valid, source.shape))
    space = target_space(attrs, "tile.extract")
    if space is MemorySpace.Mat:
        # PTOAS's textract writes an L0 buffer (or Vec); FIXPIPE's Acc -> Mat path is
        # tile.move / tile.assemble, and nothing copies a Mat window into another Mat tile.
        raise DeductionError("not supported yet: tile.extract into Mat (PTO's textract writes Left or Right)",
                             hint="extract straight into the cube buffer the window feeds (target_memory="
                                  "pl.MemorySpace.Left or Right); to bring a whole accumulator to Mat use "
                                  "pl.move(acc, target_memory=pl.MemorySpace.Mat)")
    return make_tile_type(shape, source.dtype, valid, space, extract_view(space, shape))


def deduce_create(args: Sequence[Node], attrs: Attrs) -> Type:
    shape = dims_at(args, 0, "shape")
    dtype = dtype_attr(attrs, "dtype")
    space = attr(attrs, "target_memory")
    compact = bool(attr(attrs, "compact", False))
    if not isinstance(space, MemorySpace):
        if compact:
            raise DeductionError("attribute 'compact' needs a target_memory (compact is an Acc/L0 layout)")
        return make_tile_type(shape, dtype)
    if compact and space not in COMPACT_SPACES:
        raise DeductionError(f"attribute 'compact' needs an L0 target_memory (Left, Right or Acc), got {space.name}",
                             hint="drop compact=True: only L0 buffers have a valid-row pitch")
    return make_tile_type(shape, dtype, None, space, replace(implicit_view(space, shape), compact=compact))


def deduce_full(args: Sequence[Node], attrs: Attrs) -> Type:
    scalar_at(args, 1)
    return make_tile_type(dims_at(args, 0, "shape"), dtype_attr(attrs, "dtype"))


# -- views ------------------------------------------------------------------------------------------------


def deduce_tile_reshape(args: Sequence[Node], attrs: Attrs) -> Type:
    source = tile_at(args, 0)
    result = deduce_reshape(args, attrs)
    assert isinstance(result, TileType)
    if source.memory_space is None:
        return result
    # An identity reshape keeps the source's layout: re-deriving it would lose an Acc box.
    view = source.view if result.shape == source.shape else implicit_view(source.memory_space, result.shape)
    return replace(result, memory_space=source.memory_space, view=view)


def deduce_transpose_view(args: Sequence[Node], attrs: Attrs) -> Type:
    """The last two axes swapped (an N-D tile is a batch of matrices, each read transposed: the
    a_trans / b_trans operand of tile.batch_matmul). A flat tile of [1, 1] matrices is its own
    transpose: the type is the source's (`languages.views.transposed_view`)."""
    source = tile_at(args, 0)
    if len(source.shape) < 2:
        raise DeductionError(f"expected a tile of rank >= 2, got rank {len(source.shape)}", 0)
    shape: Dims = (*source.shape[:-2], source.shape[-1], source.shape[-2])
    valid: Dims = (*source.valid[:-2], source.valid[-1], source.valid[-2])
    if source.view is None:
        return make_tile_type(shape, source.dtype, valid)
    return make_tile_type(shape, source.dtype, valid, source.memory_space, transposed_view(source.view, shape))


def transposed_source_region(source: Type, view: Type, args: Sequence[Node], attrs: Attrs,
                             wanted: tuple[int, ...]) -> tuple[int, ...] | None:
    """A transpose view valid over `wanted` is its source valid over `wanted`'s last two axes
    swapped (deduce_transpose_view)."""
    if len(wanted) < 2:
        return None
    return (*wanted[:-2], wanted[-1], wanted[-2])


TRANSPOSE_VIEW_VALID = ViewValid((), transposed_source_region)


def deduce_tile_slice(args: Sequence[Node], attrs: Attrs) -> Type:
    return deduce_slice(args, attrs)


# -- the tile op table -------------------------------------------------------------------------------------

_TILE = "tile"


def _vec(name: str) -> OperandDecl:
    return OperandDecl(name, _TILE, input_memory=VEC)


_X = _vec("x")
_TMP = OperandDecl("tmp", _TILE, input_memory=VEC, effect=WRITE, optional=True)
# PTOAS (a3) requires these instructions' source and destination to be different buffers.
_DISTINCT_STORAGE_UNARY = frozenset({"recip"})
# (tile op, semantics, PTO instruction) of the tile-scalar forms (PyPTO: tile.maximums -> TMAXS).
_SCALAR_FORMS = (("adds", "add", "tadds"), ("subs", "sub", "tsubs"), ("muls", "mul", "tmuls"), ("divs", "div", "tdivs"),
                 ("maximums", "max", "tmaxs"), ("minimums", "min", "tmins"))
_PTO_BINARY = {"add": "tadd", "sub": "tsub", "mul": "tmul", "div": "tdiv", "maximum": "tmax", "minimum": "tmin"}
_SEMANTIC_BINARY = {"add": "add", "sub": "sub", "mul": "mul", "div": "div", "maximum": "max", "minimum": "min"}


def _precision(declared: bool) -> dict[str, Any]:
    """The `high_precision=` flag of tile.div / log / recip: PTO's precisionType (the
    instruction's high-precision algorithm). NUMERICS already rounds these correctly, so the flag
    changes the instruction, not the bits."""
    if not declared:
        return {}
    return {"attrs": (AttrDecl("high_precision", "bool", False),), "pto_attrs": (("high_precision", "precisionType"),)}


def _compute_ops() -> list[OpDef]:
    vec_out = Fixed(VEC)
    ops = [
        OpDef(f"tile.{name}", (_vec("lhs"), _vec("rhs")), make_binary(broadcast=False), ("binary", _SEMANTIC_BINARY[name]),
              "elementwise_binary", output_memory=vec_out, pto=(f"pto.{_PTO_BINARY[name]}",),
              **_precision(name in HIGH_PRECISION_OPS))
        for name in _PTO_BINARY
    ]
    ops += [
        OpDef(f"tile.{name}", (_X, OperandDecl("scalar", "scalar", literal_dtype=0)), deduce_scalar, ("scalar_binary", meaning),
              "elementwise_scalar", output_memory=vec_out, pto=(f"pto.{instruction}",))
        for name, meaning, instruction in _SCALAR_FORMS
    ]
    ops += [
        OpDef(f"tile.{name}", (_X,), make_unary(function), ("unary", function), "unary", output_memory=vec_out,
              pto=(f"pto.t{name}",), in_place_safe=False if name in _DISTINCT_STORAGE_UNARY else None,
              **_precision(name in HIGH_PRECISION_OPS))
        for name, function in UNARY_FUNCTIONS.items() if name != "rsqrt"
    ]
    # PyPTO's high-precision rsqrt is the tmp form (pl.tile.rsqrt(t, tmp)): pto.trsqrt's
    # high-precision algorithm needs the workspace, so the operand's presence selects it.
    ops.append(OpDef("tile.rsqrt", (_X, _TMP), make_unary("rsqrt"), ("unary", "rsqrt"), "unary", output_memory=vec_out,
                     pto=("pto.trsqrt",), pto_operand_attrs=((1, "precisionType", True),),
                     doc="With tmp: the high-precision algorithm (same bits in this model: NUMERICS rounds "
                         "1/sqrt(x) correctly either way)."))
    for direction, deduce in (("row", deduce_reduce_row), ("col", deduce_reduce_col)):
        for kind in ("sum", "max", "min"):
            # PTOAS's trow* take their tmp as a second ins() operand (required); tcolmax /
            # tcolmin have none, and tcolsum's optional one comes with `isBinary`, selecting
            # pto-isa's binary-tree sum, whose FP32 rounding is not the sequential column order
            # NUMERICS.md states (isBinary = false is the sequential sum without a tmp): a tmp
            # given to a column reduction is no operand.
            ops.append(OpDef(f"tile.{direction}_{kind}", (_X, _TMP), deduce, (f"reduce_{direction}", kind),
                             f"reduce_{direction}", output_memory=vec_out, pto=(f"pto.t{direction}{kind}",),
                             pto_ins=(0,) if direction == "col" else None))
    for op in ("add", "sub", "mul", "div", "max", "min"):
        # PyPTO's row_expand_add takes an optional tmp (pto-isa's A2/A3 workspace overload);
        # PTOAS 0.44's trowexpandadd has only the two-source form, so tmp is no ins() operand.
        with_tmp = op == "add"
        ops.append(OpDef(f"tile.row_expand_{op}", (_X, _vec("row"), *((_TMP,) if with_tmp else ())), deduce_row_expand,
                         ("row_expand", op), "row_expand", output_memory=vec_out, pto=(f"pto.trowexpand{op}",),
                         pto_ins=(0, 1) if with_tmp else None))
        ops.append(OpDef(f"tile.col_expand_{op}", (_X, _vec("col")), deduce_col_expand, ("col_expand", op), "col_expand",
                         output_memory=vec_out, pto=(f"pto.tcolexpand{op}",)))
    ops.append(OpDef("tile.cast", (_X,), deduce_cast, ("cast",), "cast", output_memory=vec_out, pto=("pto.tcvt",),
                     pto_attrs=(("mode", "rmode"),),
                     attrs=(AttrDecl("target_type", "dtype", positional=True),
                            AttrDecl("mode", "str", "round", CAST_MODES, positional=True))))
    ops.append(OpDef("tile.transpose", (_X, _TMP), deduce_transpose, ("transpose",), "transpose", output_memory=vec_out,
                     attrs=(AttrDecl("axis1", "int", positional=True), AttrDecl("axis2", "int", positional=True)),
                     signature=("x", "axis1", "axis2", "tmp"), pto=("pto.ttrans",),
                     doc="The optional tmp is the ttrans workspace FlattenTileNdTo2D materializes."))
    return ops


def _cube_ops() -> list[OpDef]:
    left = OperandDecl("lhs", _TILE, input_memory=MemorySpace.Left)
    right = OperandDecl("rhs", _TILE, input_memory=MemorySpace.Right)
    bias = OperandDecl("bias", _TILE, input_memory=MemorySpace.Bias)
    return [
        OpDef("tile.matmul", (left, right), deduce_matmul, ("matmul",), "matmul", output_memory=Fixed(MemorySpace.Acc),
              result_view=matmul_result_view, pto=("pto.tmatmul",)),
        OpDef("tile.matmul_acc",
              (OperandDecl("acc", _TILE, input_memory=MemorySpace.Acc, effect=READ_WRITE), left, right,
               OperandDecl("init_cond", "scalar", optional=True)),
              deduce_matmul_acc, ("matmul_acc",), "matmul", output_memory=ReusesInput(0),
              pto=("pto.tmatmul.acc", "pto.tmatmul"),
              doc="init_cond true overwrites the accumulator (pto.tmatmul); false or absent accumulates."),
        OpDef("tile.batch_matmul", (left, right), deduce_batch_matmul, ("batch_matmul",), "matmul",
              output_memory=Fixed(MemorySpace.Acc), result_view=matmul_result_view, pto=("pto.tmatmul",),
              doc="A matmul per batch (broadcast batch dims); FlattenTileNdTo2D unrolls it into 2-D matmuls."),
        OpDef("tile.batch_matmul_acc",
              (OperandDecl("acc", _TILE, input_memory=MemorySpace.Acc, effect=READ_WRITE), left, right),
              deduce_batch_matmul_acc, ("batch_matmul_acc",), "matmul", output_memory=ReusesInput(0),
              pto=("pto.tmatmul.acc",), doc="A matmul_acc per batch; unrolled by FlattenTileNdTo2D."),
        OpDef("tile.matmul_bias", (left, right, bias),
              deduce_matmul_bias, ("matmul_bias",), "matmul", output_memory=Fixed(MemorySpace.Acc),
              result_view=matmul_result_view, pto=("pto.tmatmul.bias",),
              doc="acc = bias (broadcast over the rows) + lhs @ rhs: the bias row initialises L0C."),
        # Matrix-vector forms: the same MAD chain over K for the one row (NUMERICS.md section 1).
        OpDef("tile.gemv", (left, right), _one_row(deduce_matmul, 0), ("matmul",), "matmul",
              attrs=_ACC_PHASE, pto_attrs=_ACC_PHASE_PTO, output_memory=Fixed(MemorySpace.Acc),
              result_view=matmul_result_view, pto=("pto.tgemv",), doc=_GEMV_DOC),
        OpDef("tile.gemv_acc", (OperandDecl("acc", _TILE, input_memory=MemorySpace.Acc, effect=READ_WRITE), left, right),
              _one_row(deduce_matmul_acc, 1), ("matmul_acc",), "matmul", attrs=_ACC_PHASE, pto_attrs=_ACC_PHASE_PTO,
              output_memory=ReusesInput(0), pto=("pto.tgemv.acc",), doc=_GEMV_DOC),
        OpDef("tile.gemv_bias", (left, right, bias), _one_row(deduce_matmul_bias, 0), ("matmul_bias",), "matmul",
              attrs=_ACC_PHASE, pto_attrs=_ACC_PHASE_PTO, output_memory=Fixed(MemorySpace.Acc),
              result_view=matmul_result_view, pto=("pto.tgemv.bias",), doc=_GEMV_DOC),
    ]


# pto.tgemv's accPhase (PyPTO acc_phase=): which template of the instruction is emitted for a K
# loop's middle (partial) or last (final) step; the accumulated values are the same.
_ACC_PHASE = (AttrDecl("acc_phase", "str", "unspecified", ("unspecified", "partial", "final")),)
_ACC_PHASE_PTO = (("acc_phase", "accPhase"),)
_GEMV_DOC = "A [1, K] row times a [K, N] matrix; acc_phase picks the instruction template, not the values."


# PyPTO's AtomicType of a store (pl.AtomicType.None_ / Add): "add" accumulates into GM.
ATOMIC = AttrDecl("atomic", "str", "none", ("none", "add"))


def _memory_ops() -> list[OpDef]:
    target = AttrDecl("target_memory", "memory_space", None, _ON_CHIP)
    return [
        OpDef("tile.load", (OperandDecl("tensor", "tensor"), OperandDecl("offsets", "int_list"),
                            OperandDecl("shapes", "int_list"), OperandDecl("valid_shape", "int_list", optional=True)),
              deduce_load, ("load",), "memory", output_memory=FromAttr(),
              window=Window(0, 1, (("list", 3), ("list", 2))),
              attrs=(AttrDecl("target_memory", "memory_space", None, (VEC, MemorySpace.Mat)), AttrDecl("cache", "str"),
                     AttrDecl("packed", "bool", False)),
              pto=("pto.partition_view", "pto.tload"),
              doc="`shapes` is the physical (possibly boxed) extent, `valid_shape` the logical one; "
                  "`packed` loads an N-D window into its row-packed 2-D tile."),
        OpDef("tile.store", (OperandDecl("tile", _TILE, accepted_memory=(VEC, MemorySpace.Acc)),
                             OperandDecl("offsets", "int_list"), OperandDecl("output_tensor", "tensor", effect=WRITE)),
              deduce_store, ("store",), "memory", output_memory=ReusesInput(2),
              window=Window(2, 1, (("attr", "window"), ("valid", 0))),
              attrs=(AttrDecl("window", "int_list"), ATOMIC),
              effect_when=(("atomic", "add", 2, READ_WRITE),), target_rules=atomic_add_rules(2),
              doc="`window` (N-D) is the tensor window a row-packed 2-D tile fills; atomic='add' "
                  "accumulates into GM (the destination is read as well as written).",
              pto=("pto.partition_view", "pto.tstore"), pto_attrs=(("atomic", "atomicType"),)),
        OpDef("tile.move", (OperandDecl("x", _TILE),), deduce_move, ("move",), "memory",
              attrs=(target, AttrDecl("cross_core", "bool", False)),
              output_memory=FromAttr(), in_place_safe=False, pto=("pto.tmov",),
              doc="`cross_core` marks a cube<->vector hop the backend has no data path for: "
                  "ExpandMixedKernel lowers it to a tpush on the producer core and a tpop on the consumer."),
        # textract reads Mat (an accumulator reaches Mat first through FIXPIPE's tile.move).
        OpDef("tile.extract", (OperandDecl("src", _TILE, input_memory=MemorySpace.Mat),
                               OperandDecl("row", "scalar"), OperandDecl("col", "scalar"),
                               OperandDecl("shape", "int_list")),
              deduce_extract, ("extract",), "memory", output_memory=FromAttr(), in_place_safe=False,
              window=Window(0, (1, 2), (("list", 3),)),
              attrs=(AttrDecl("target_memory", "memory_space", None, (MemorySpace.Left, MemorySpace.Right, MemorySpace.Mat)),),
              pto=("pto.textract",)),
        OpDef("tile.create", (OperandDecl("shape", "int_list"),), deduce_create, ("create",), "create",
              attrs=(AttrDecl("dtype", "dtype", positional=True), target, AttrDecl("compact", "bool", False)),
              output_memory=FromAttr(), pto=("pto.alloc_tile",)),
        OpDef("tile.full", (OperandDecl("shape", "int_list"), OperandDecl("value", "scalar", literal_dtype="dtype")), deduce_full, ("full",),
              "create", attrs=(AttrDecl("dtype", "dtype"),), signature=("shape", "dtype", "value"),
              output_memory=Fixed(VEC), pto=("pto.alloc_tile", "pto.texpands")),
        # TGETVAL / TSETVAL reach a tile through the scalar unit, which sees only UB (Vec).
        OpDef("tile.read", (OperandDecl("x", _TILE, input_memory=VEC), OperandDecl("indices", "int_list")),
              deduce_read, ("read",),
              "scalar_access", pto=("pto.tgetval",), window=ELEMENT_WINDOW,
              doc="One element of an on-chip tile (TGETVAL, through the scalar unit)."),
        OpDef("tile.write", (OperandDecl("x", _TILE, input_memory=VEC, effect=WRITE), OperandDecl("indices", "int_list"),
                             OperandDecl("value", "scalar", literal_dtype=0)),
              deduce_write, ("write",), "scalar_access", output_memory=ReusesInput(0), pto=("pto.tsetval",),
              window=ELEMENT_WINDOW,
              doc="One element of an on-chip tile set in place (TSETVAL); the result is the tile."),
    ]


def _view_ops() -> list[OpDef]:
    x = OperandDecl("x", _TILE)
    inherit = InheritInput(0)
    return [
        OpDef("tile.slice", (x, OperandDecl("shape", "int_list"), OperandDecl("offsets", "int_list"),
                             OperandDecl("valid_shape", "int_list", optional=True)),
              deduce_tile_slice, ("slice",), "view", output_memory=inherit, pto=("pto.subview",), window=SLICE_WINDOW,
              view_valid=SLICE_VALID,
              doc="A zero-copy window; the result keeps the source's view (pto.subview requires it)."),
        OpDef("tile.assemble", (OperandDecl("target", _TILE), OperandDecl("source", _TILE), OperandDecl("offsets", "int_list")),
              deduce_assemble, ("assemble",), "memory", output_memory=inherit, in_place_safe=True,
              in_place_operands=(0,),
              window=ASSEMBLE_WINDOW,
              pto=("pto.subview", "pto.tmov", "pto.tinsert"),
              doc="In place over `target` (same layout): only the window is written, nothing else moves "
                  "(pto.tinsert between row-major Vec tiles, else pto.subview + pto.tmov)."),
        OpDef("tile.reshape", (x, OperandDecl("shape", "int_list"), OperandDecl("valid_shape", "int_list", optional=True)),
              deduce_tile_reshape, ("reshape",), "view",
              output_memory=inherit, pto=("pto.treshape",), view_valid=RESHAPE_VALID),
        OpDef("tile.transpose_view", (x,), deduce_transpose_view, ("transpose_view",), "view", output_memory=inherit,
              view_valid=TRANSPOSE_VIEW_VALID, pto=("pto.treshape",), doc="Zero-copy: swaps shape and valid shape and flips the layouts (a flat tile of "
                  "[1, 1] matrices is its own transpose and keeps its layout)."),
        OpDef("tile.set_validshape", (OperandDecl("x", _TILE, handle_only=True), OperandDecl("rows", "scalar"),
                                      OperandDecl("cols", "scalar")),
              deduce_set_validshape, ("set_validshape",), "view", output_memory=ReusesInput(0),
              pto=("pto.set_validshape",), view_valid=SET_VALIDSHAPE_VALID),
    ]


# -- cross-core FIFOs (mixed cube/vector kernels, ExpandMixedKernel) ---------------------------------
#
# The cube core (AIC) and the vector cores (AIV) are separate cores with separate buffers; where the
# backend has no direct data path between them, a tile crosses through a FIFO in GM: the producer
# pushes its valid rectangle, the consumer pops it into a buffer of its own.

AIC, AIV = "AIC", "AIV"
# The core owning each on-chip buffer (TARGET_FACTS glossary: L1 / L0A / L0B / L0C / Bias belong
# to the cube, UB to the vector core).
CORE_OF_SPACE: dict[MemorySpace, str] = {
    MemorySpace.Mat: AIC, MemorySpace.Left: AIC, MemorySpace.Right: AIC, MemorySpace.Acc: AIC,
    MemorySpace.Bias: AIC, MemorySpace.Vec: AIV,
}

# (source space, destination space) -> (push op on the producer, pop op on the consumer).  The
# cube drains L0C into the FIFO through FIXPIPE (TPUSH runs TStoreAccNz2nd) and the vector core
# pops into UB; the vector core pushes UB and the cube pops into L1, the only cube buffer MTE2
# fills.
CROSS_CORE_TRANSFERS: dict[tuple[MemorySpace, MemorySpace], tuple[str, str]] = {
    (MemorySpace.Acc, MemorySpace.Vec): ("tile.tpush_to_aiv", "tile.tpop_from_aic"),
    (MemorySpace.Vec, MemorySpace.Mat): ("tile.tpush_to_aic", "tile.tpop_from_aiv"),
}

# pto-isa TileSplitAxis: 0 no split, 1 / 2 up-down / left-right, 3 / 4 their odd forms.
SPLIT_CODES: tuple[AttrValue, ...] = (0, 1, 2, 3, 4)


def _fifo_attrs() -> tuple[AttrDecl, ...]:
    return (AttrDecl("split", "int", 0, SPLIT_CODES), AttrDecl("id", "int"))


def _deduce_push(args: Sequence[Node], attrs: Attrs) -> Type:
    tile_at(args, 0)
    return NoneType()


def deduce_pop(args: Sequence[Node], attrs: Attrs) -> Type:
    shape = dims_at(args, 0, "shape")
    check_rank(args[0], len(shape), 2, 0, "shape")
    valid = dims_at(args, 1, "valid_shape") if len(args) > 1 else None
    if valid is not None:
        check_valid_within(valid, shape, 1, "valid_shape (within shape)")
    return make_tile_type(shape, dtype_attr(attrs, "dtype"), valid)


def is_cross_core_transfer(source: MemorySpace | None, target: MemorySpace | None) -> bool:
    """Whether a `tile.move(..., cross_core=True)` from `source` to `target` is one of the FIFO
    transfers (CROSS_CORE_TRANSFERS). A tile not placed yet (None) is not known to be one: its
    placement decides, and a move from where it lands may have no FIFO (a loaded tile lands in
    Vec, and no FIFO carries Vec -> Vec)."""
    return source is not None and (source, target) in CROSS_CORE_TRANSFERS


def _cross_core_ops() -> list[OpDef]:
    ops: list[OpDef] = []
    for (source, destination), (push, pop) in CROSS_CORE_TRANSFERS.items():
        towards = push.rsplit("_", 1)[1]  # "aiv" / "aic"
        ops.append(OpDef(push, (OperandDecl("tile", _TILE, accepted_memory=(source,)),), _deduce_push,
                         ("tpush", towards), "cross_core", attrs=_fifo_attrs(), pto=(f"pto.{push[5:]}",),
                         doc=f"Push the tile's valid rectangle ({source.name}) into the FIFO towards the {towards.upper()}."))
        ops.append(OpDef(pop, (OperandDecl("shape", "int_list"), OperandDecl("valid_shape", "int_list", optional=True)),
                         deduce_pop, ("tpop", towards), "cross_core",
                         attrs=(AttrDecl("dtype", "dtype"), *_fifo_attrs()), output_memory=Fixed(destination),
                         pto=(f"pto.{pop[5:]}",),
                         doc=f"Pop the next tile from the FIFO into a fresh {destination.name} buffer of this shape."))
    return ops


OPS: tuple[OpDef, ...] = tuple(_compute_ops() + _cube_ops() + _memory_ops() + _view_ops() + _cross_core_ops())

__all__ = ["AIC", "AIV", "CORE_OF_SPACE", "CROSS_CORE_TRANSFERS", "OPS", "deduce_pop", "is_cross_core_transfer"]
