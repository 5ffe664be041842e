"""Which elements of a value hold data, and which elements of an operand an op reads.

An op writes its result's valid region only: the rest of a fresh buffer (its padding) holds no
data (the simulator's 0xFF poison). Padding is read legitimately where bytes are there -- a tile
loaded whole and then narrowed by set_validshape, a fill, a load with a pad value -- and is
undefined where they are not. These facts, read from the op registry's declarations, are shared
by the DefinedReads verifier (which walks programs with them) and the fuzzer's generator (which
does not draw a call that reads no data).

A tensor.create / tile.create buffer holds no data at all (`HOLDS_NO_DATA`: every axis 0, as
does a view of it) until an op writes it; a matmul_acc whose init_cond may be true does not read
its accumulator.

A value's data extent is the rectangle [0, w) per axis known to hold data (`Written`); None
(`WHOLE`) for a value whose whole buffer holds data or about which nothing is known (a parameter,
a loop-carried value), and a None axis for a runtime extent: only what is proven is refused.

A packed predicate mask is counted in elements too, exactly: its column extent may be a
fraction of an element (`Fraction`), the compared bits over the bits of a word. TCMP / TCMPS
write, per valid row of their source, the bits of its valid columns (`cols / 8` bytes of the
UINT8 mask) and nothing defined past them (pto-isa a2a3 / a5: whole store granules whose other
bits come from the source's padding, or a predicate register's inactive lanes); a select reads
`cols / w` words of its mask (the bits of the columns it selects), and every other reader whole
elements. So a select over the compared columns reads data, and a mask returned, stored or
computed with past its last whole compared byte is refused.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Optional, Sequence, Union

from languages.ops import (
    CARRIES_TARGET, HOLDS_NO_DATA, SHAPE_ONLY_TARGET, TRAILING_SCRATCH, PACKED_MASK_OPERAND, PER_COLUMN_OPERAND, PER_ROW_OPERAND, READS_OVER_RESULT_REGION, SAME_BYTES_VIEWS, WRITES_WHOLE_RESULT, Effect, OpDef, ReusesInput, static_int,
    type_of,
)
from languages.ops.tensor_ops import computed_batch, cube_extents, reshape_valid
from languages.types import Attrs, SymbolicExtent, TensorType, TileType, Type, ValidDims
from nanopass.node import Node

# An axis extent: whole elements, or a fraction of an element on a packed mask's column axis.
Extent = Union[int, Fraction]
Extents = tuple[Optional[Extent], ...]
Written = Optional[Extents]
WHOLE: Written = None


def nothing_written(ty: TensorType | TileType) -> Extents:
    """The data extent of a buffer no op has written (a fresh tensor.create / tile.create)."""
    return tuple(0 for _ in ty.shape)


def holds_nothing(written: Written) -> bool:
    """Whether `written` is the extent of a buffer no op has written."""
    return written is not None and bool(written) and all(e == 0 for e in written)


def views_nothing(opdef: OpDef, index: int, written: Written) -> bool:
    """Whether argument `index` (its data extent `written`) is a buffer no op wrote that the op
    only re-views (a reshape / view / slice of a created scratch): that reads nothing, and the
    view holds nothing either (`result_data`), so its readers are the ones checked."""
    return index == 0 and holds_nothing(written) and bool(opdef.semantics) and opdef.semantics[0] in SAME_BYTES_VIEWS


def _may_start_afresh(opdef: OpDef, args: Sequence[Node]) -> bool:
    """Whether a matmul_acc's init_cond may be true, starting the sum at +0 over the accumulator
    (not reading it): anything but an absent or a literal false init_cond (a runtime one is not
    proven false, and only what is proven is refused)."""
    at = next((i for i, d in enumerate(opdef.operands) if d.name == "init_cond"), None)
    if at is None or at >= len(args):
        return False
    cond = args[at]
    if cond.KIND in ("ConstBool", "ConstInt"):
        return bool(getattr(cond, "value"))
    return True


def extents(valid: ValidDims) -> Extents:
    """`valid` with its runtime extents as None."""
    return tuple(None if isinstance(e, SymbolicExtent) else int(e) for e in valid)


def array_type(node: Node) -> TensorType | TileType | None:
    ty = type_of(node)
    return ty if isinstance(ty, (TensorType, TileType)) else None


# Views whose data extent follows their source's exactly (`result_data`): they read nothing
# themselves, and a read past the data through them is their consumer's (tensor.window: host
# code's no-copy window of a GM tensor a kernel is called on).
_WINDOW_VIEWS = frozenset({("set_validshape",), ("slice",), ("window",)})


def read_extent(opdef: OpDef, index: int, operand: TensorType | TileType, result: Type,
                attrs: Attrs = (), args: Sequence[Node] = ()) -> Extents | None:
    """The region of argument `index` the op reads (None: it does not read the argument's
    elements): an element-wise op's same-shape operand over the result's valid region
    (`READS_OVER_RESULT_REGION`), a matmul_acc's accumulator over the product's region (given
    the call's `args`: the rest of it is left as it is, not read), any other read operand over
    its own valid region."""
    try:
        effect = opdef.effect_of(index, attrs)
    except IndexError:
        return None
    if not effect & Effect.READ or opdef.semantics[:1] in _WINDOW_VIEWS:
        return None  # a re-labelled buffer or a window of it: its consumers read what it shows
    kind = opdef.semantics[0] if opdef.semantics else ""
    if (kind in CARRIES_TARGET and index == in_place_target(opdef)) or (kind in SHAPE_ONLY_TARGET and index == 0):
        return None  # its elements are carried into the result (or only its shape is taken)
    if kind in TRAILING_SCRATCH and args and index == len(args) - 1:
        return None  # the instruction's scratch: written, never read
    if index == 0 and kind in _ACCUMULATING and args:
        if _may_start_afresh(opdef, args):
            return None  # a true init_cond starts the sum at +0: the accumulator is not read
        region = _product_region(opdef, args, _PRODUCT_LHS[kind], attrs)
        if region is not None and len(region) == len(operand.shape):
            own = extents(operand.valid_extents)
            return (*own[:-2], _least(own[-2], region[-2]), _least(own[-1], region[-1]))
    if index == 0 and opdef.semantics[:1] and opdef.semantics[0] in PACKED_MASK_OPERAND \
            and isinstance(result, (TensorType, TileType)) and len(result.shape) == len(operand.shape) == 2:
        return _mask_words(operand, result)
    spread = _spread_vector(opdef, index, operand, result)
    if spread is not None:
        return spread
    over = (bool(opdef.semantics) and opdef.semantics[0] in READS_OVER_RESULT_REGION
            and isinstance(result, (TensorType, TileType)))
    read = _broadcast_read(operand, result) if over and isinstance(result, (TensorType, TileType)) else None
    if read is None:
        read = extents(operand.valid_extents)
    block = _block_bytes_into(opdef, index)
    if block and operand.shape:
        # Addressed by byte offsets of whole blocks anywhere in it (gatherb; its index domain):
        # any block of its buffer may be read, and every block is `block` bytes, so a row
        # narrower than a block is read past its end whatever the offsets.
        per_block = max(block // max(operand.dtype.byte_width, 1), 1)
        read = (*operand.shape[:-1], max(operand.shape[-1], per_block))
    return read


def _broadcast_read(operand: TensorType | TileType, result: TensorType | TileType) -> Extents | None:
    """The part of an element-wise op's operand it reads over the result's valid region, under
    NumPy broadcasting (trailing axes aligned): on an axis as long as the result's, the result's
    valid extent; on a unit axis spread along a longer one, the operand's own (its element 0).
    So a same-shape operand is read over the result's region, and so is an [n] operand of an
    [m, n] result along its columns. None: the operand does not broadcast to the result."""
    shape, target = tuple(operand.shape), tuple(result.shape)
    if len(shape) > len(target):
        return None
    aligned = target[len(target) - len(shape):]
    if any(s != t and s != 1 for s, t in zip(shape, aligned)):
        return None
    own, over = extents(operand.valid_extents), extents(result.valid_extents)[len(target) - len(shape):]
    return tuple(o if s == t else w for s, t, o, w in zip(shape, aligned, over, own))


def _spread_vector(opdef: OpDef, index: int, operand: TensorType | TileType, result: Type) -> Extents | None:
    """The part of a row / column broadcast's vector operand it reads: column 0 of the result's
    valid rows, or row 0 of its valid columns (None: not such an operand)."""
    kind = opdef.semantics[0] if opdef.semantics else ""
    if index != 1 or kind not in PER_ROW_OPERAND | PER_COLUMN_OPERAND or not isinstance(result, (TensorType, TileType)) \
            or len(result.shape) != 2 or len(operand.shape) != 2 or tuple(operand.shape) == tuple(result.shape):
        return None
    rows, cols = extents(result.valid_extents)
    return (rows, 1) if kind in PER_ROW_OPERAND else (1, cols)


def _mask_words(mask: TensorType | TileType, result: TensorType | TileType) -> Extents:
    """The [rows, words] of a packed mask a select reads: one mask row per result row, and the
    bits of the result's valid columns (a fraction of a word past the last whole one)."""
    rows, cols = extents(result.valid_extents)
    return (rows, None if cols is None else bits_in_words(int(cols), 8 * max(mask.dtype.byte_width, 1)))


def bits_in_words(bits: int, width: int) -> Extent:
    """`bits` bits as a count of `width`-bit words: an int when whole, else the exact fraction."""
    whole, rest = divmod(bits, width)
    return whole if not rest else Fraction(bits, width)


def _compared_bits(args: Sequence[Node], result: TensorType | TileType, own: Extents) -> Extents:
    """A compare's mask data: its valid rows, and the bits of its first operand's valid columns
    (TCMP / TCMPS define nothing else of the mask, see the module docstring)."""
    source = array_type(args[0]) if args else None
    if source is None or len(source.shape) != 2 or len(own) != 2:
        return own
    rows, cols = extents(source.valid_extents)
    width = 8 * max(result.dtype.byte_width, 1)
    return (own[0] if rows is None or own[0] is None else min(own[0], rows),
            None if cols is None else bits_in_words(int(cols), width))


def block_bytes(opdef: OpDef, index: int) -> int:
    """The block size in which the op reads operand `index` (0: element by element)."""
    return _block_bytes_into(opdef, index)


def _block_bytes_into(opdef: OpDef, index: int) -> int:
    """The block size of the byte-offset index domain another operand has into operand `index`."""
    for decl in opdef.operands:
        for domain in decl.index_domain:
            if domain.into == index and domain.block_bytes:
                return domain.block_bytes
    return 0


def describe(extents_: Extents, element_bits: int) -> str:
    """`extents_` for a message: a fraction of an element (a packed mask's partial word) as its
    value and its bits, e.g. `[4, 1.25 (10 bits)]` of UINT8 words."""
    shown = [str(e) if not isinstance(e, Fraction) else f"{float(e):g} ({int(e * element_bits)} bits)"
             for e in extents_]
    return f"[{', '.join(shown)}]"


def reads_past(read: Extents, written: Written) -> bool:
    """Whether a read of [0, read) reaches elements outside the data extent `written` (a read of
    part of an element -- a select's bits of a mask word -- reaches past a data extent that
    ends at a smaller part of it)."""
    if written is None or len(read) != len(written):
        return False
    return any(r is not None and w is not None and r > w for r, w in zip(read, written))


def reads_past_valid(opdef: OpDef, index: int, operand: TensorType | TileType, result: Type,
                     attrs: Attrs = ()) -> bool:
    """Whether the op reads argument `index` past the argument's own valid region (an
    element-wise op whose result is valid wider than this operand): the question LegalizeVecDtypes'
    widening, LegalizeVecLayouts' row views and the generator's padding-read tag ask."""
    read = read_extent(opdef, index, operand, result, attrs)
    return read is not None and reads_past(read, extents(operand.valid_extents))


def _join(a: Written, b: Written) -> Written:
    if a is None or b is None or len(a) != len(b):
        return WHOLE
    return tuple(None if x is None or y is None else max(x, y) for x, y in zip(a, b))


def in_place_target(opdef: OpDef) -> int | None:
    """The operand whose buffer (and data) the result continues, if any."""
    if isinstance(opdef.output_memory, ReusesInput):
        return opdef.output_memory.index
    if opdef.semantics[:1] == ("assemble",):
        return 0  # tile.assemble copies its target, then writes the source's window into it
    return None


def result_data(opdef: OpDef, args: Sequence[Node], result: TensorType | TileType,
                operands: Sequence[Written], source_in_gm: bool = False, attrs: Attrs = ()) -> Written:
    """The data extent of a call's result, given its operands' (`operands[i]` for `args[i]`);
    `source_in_gm`: its first operand is a GM tensor (a kernel's parameter or a view of one),
    whose slice is a load of its valid region only (ConvertTensorToTileOps: tile.load with the
    slice's valid_shape), not a view of bytes on chip."""
    kind = opdef.semantics[0] if opdef.semantics else ""
    own = extents(result.valid_extents)
    if kind in WRITES_WHOLE_RESULT:
        return WHOLE
    if kind in HOLDS_NO_DATA or (kind in SAME_BYTES_VIEWS and operands and holds_nothing(operands[0])):
        return nothing_written(result)  # a created buffer, or a view of one no op wrote
    if kind == "load" and isinstance(result, TileType) and result.view is not None and result.view.pad != "null":
        return WHOLE  # the load fills the padding with the pad value
    if kind == "slice" and source_in_gm:
        return own
    if kind in SAME_BYTES_VIEWS and operands:
        source = operands[0]
        if source is None or kind == "set_validshape":
            return source
        if kind == "slice":
            return _sliced(opdef, args, source, result)
        if kind == "reinterpret" and args and _same_grid(args[0], result):
            # The same elements at the same places, read as another type of one width (the BITS
            # route's BF16 view of INT16 bits): the source's data, its padding included.
            return source
        if kind in ("reshape", "view") and args:
            # tensor.view is the same zero-copy re-view of the bytes as a reshape (on chip it is
            # one: ConvertTensorToTileOps), so it keeps its source's data past its valid region.
            return _reshaped(args[0], source, result, own)
        return own
    product = _PRODUCT_LHS.get(kind)
    if product is not None:
        computed = _product_data(opdef, args, own, operands, product, attrs)
        # A matmul_acc leaves its accumulator's elements outside the product untouched.
        return _join(operands[0], computed) if kind in _ACCUMULATING and operands else computed
    target = in_place_target(opdef)
    if target is not None and target < len(operands):
        return _join(operands[target], own)
    if kind == "compare":
        return _compared_bits(args, result, own)
    return own


# The cube's semantics kinds, and the index of their left operand (the right one follows it).
_PRODUCT_LHS = {"matmul": 0, "matmul_bias": 0, "batch_matmul": 0, "matmul_acc": 1, "batch_matmul_acc": 1}
_ACCUMULATING = frozenset({"matmul_acc", "batch_matmul_acc"})
PRODUCT_KINDS = frozenset((kind,) for kind in _PRODUCT_LHS)  # as `OpDef.semantics[:1]`


def _product_data(opdef: OpDef, args: Sequence[Node], own: Extents, operands: Sequence[Written], lhs_at: int,
                  attrs: Attrs) -> Extents:
    """A product's data: the region the cube computes (`cube_extents`: the left operand's valid
    M rows by the right's valid N columns, on every batch index), and within it row i where the
    lhs's row i holds data, column j where the rhs's column j does (out[i, j] reads lhs row i
    and rhs column j, after a_trans / b_trans). tensor.matmul's result is typed whole whatever
    its operands' valid regions (PyPTO drops them), so its valid region does not say this."""
    region = _product_region(opdef, args, lhs_at, attrs)
    if len(own) < 2 or region is None or len(operands) < lhs_at + 2:
        return own
    rows, cols = region
    settings = dict(opdef.with_defaults(attrs))
    a_trans, b_trans = bool(settings.get("a_trans")), bool(settings.get("b_trans"))
    lhs, rhs = operands[lhs_at], operands[lhs_at + 1]
    if lhs is not None and len(lhs) >= 2:
        rows = _least(rows, cube_extents(lhs, lhs, a_trans, False)[0])
    if rhs is not None and len(rhs) >= 2:
        cols = _least(cols, cube_extents(rhs, rhs, False, b_trans)[2])
    batch = _computed_batch(args, lhs_at, own)
    return (*(_least(o, b) for o, b in zip(own[:-2], batch)), _least(own[-2], rows), _least(own[-1], cols))


def _computed_batch(args: Sequence[Node], lhs_at: int, own: Extents) -> Extents:
    """A batched product's batch extents (`computed_batch`)."""
    lhs_ty, rhs_ty = array_type(args[lhs_at]), array_type(args[lhs_at + 1])
    if len(own) <= 2 or lhs_ty is None or rhs_ty is None:
        return own[:-2]
    batch = tuple(int(e) if isinstance(e, int) else 0 for e in own[:-2])
    valid = [tuple(None if isinstance(e, Fraction) else e for e in extents(t.valid_extents)) for t in (lhs_ty, rhs_ty)]
    computed = computed_batch(batch, tuple(lhs_ty.shape), valid[0], tuple(rhs_ty.shape), valid[1])
    return tuple(None if o is None else c for o, c in zip(own[:-2], computed))


def _product_region(opdef: OpDef, args: Sequence[Node], lhs_at: int, attrs: Attrs) -> Extents | None:
    """The [M, N] a matmul computes from its operands' valid regions (`cube_extents`; None:
    its operands are not matrices)."""
    if len(args) < lhs_at + 2:
        return None
    lhs_ty, rhs_ty = array_type(args[lhs_at]), array_type(args[lhs_at + 1])
    if lhs_ty is None or rhs_ty is None or len(lhs_ty.shape) < 2 or len(rhs_ty.shape) < 2:
        return None
    settings = dict(opdef.with_defaults(attrs))
    a_trans, b_trans = bool(settings.get("a_trans")), bool(settings.get("b_trans"))
    rows, _, cols = cube_extents(extents(lhs_ty.valid_extents), extents(rhs_ty.valid_extents), a_trans, b_trans)
    return (rows, cols)


def _least(a: Optional[Extent], b: Optional[Extent]) -> Optional[Extent]:
    """The smaller of two extents, a None (a runtime extent) being no bound."""
    return a if b is None else b if a is None else min(a, b)


def _reshaped(operand: Node, source: Extents, result: TensorType | TileType, own: Extents) -> Written:
    """A reshape's data: the same bytes under another shape, so its source's data box carried
    into the new shape by the reshape rule (`reshape_valid`), whatever valid shape the reshape
    narrows its result to (tensor.reshape's third operand only narrows the valid region; the
    elements past it still hold the source's data). Its own valid region when the data box of a
    runtime extent, or one the new shape cannot spell as a box, cannot be carried."""
    ty = array_type(operand)
    if ty is None or len(source) != len(ty.shape) or any(e is None for e in source):
        return own
    mapped = reshape_valid(tuple(ty.shape), tuple(int(e) for e in source if e is not None), tuple(result.shape))
    return own if mapped is None else _join(mapped, own)


def _same_grid(operand: Node, result: TensorType | TileType) -> bool:
    """Whether `result` re-views `operand`'s elements one for one: one shape, one element width."""
    ty = array_type(operand)
    return ty is not None and tuple(ty.shape) == tuple(result.shape) and ty.dtype.bits == result.dtype.bits


def _sliced(opdef: OpDef, args: Sequence[Node], source: Extents, result: TensorType | TileType) -> Written:
    """A slice's data: its source's data extent shifted by the (constant) window offsets."""
    own = extents(result.valid_extents)
    window = opdef.window
    if window is None or isinstance(window.offsets, tuple) or window.offsets >= len(args) \
            or args[window.offsets].KIND != "TupleExpr":
        return own
    offsets: tuple[Node, ...] = getattr(args[window.offsets], "elements")
    if len(offsets) != len(source) or len(own) != len(source):
        return own
    written: list[Extent | None] = []
    for offset, extent, size in zip(offsets, source, result.shape):
        start = static_int(offset)
        written.append(None if start is None or extent is None else max(0, min(extent - start, size)))
    return tuple(written)
