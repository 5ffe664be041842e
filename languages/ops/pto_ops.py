"""The PTO language's operators: `pto.*` instructions and the `arith.*` scalar ops they use.

The PTO language is the IR form of PTO-ISA MLIR text, designed so that printing it
(`backend.pto_text`) is a line-per-node translation and the simulator can execute it without
re-deriving anything. The shape of a PTO function body, in generation order
(spec pto_codegen.md, "Generation Order"):

1. constants      `c = arith.constant(ConstInt|ConstFloat|ConstBool)`; the Var is named by
                  `constant_name` (`c32_index`, `c8320_i64`, `true`, `cst_0`, ...).
2. tensor views   `v = pto.make_tensor_view(ptr_param, [shape consts], [stride consts],
                  layout="nd"|"dn")` : ViewType("tensor_view", tensor shape, dtype).
3. allocations    `t = pto.alloc_tile([addr_i64_const])` : TileType with space, view and MemRef;
                  the attrs repeat the buffer config (`alloc_attrs`) so the type is deducible.
4. the body       value ops `x = op(...)` (arith.*, pto.partition_view, pto.subview) and
                  destination-passing instructions `EvalStmt(pto.tX(*ins, out))` whose LAST
                  argument is the destination (`outs(...)`), all others are `ins(...)`;
                  `scf.for` / `scf.if` are ForStmt / IfStmt (results named `N` or `N#i`).

Every operand of a PTO op is a Var (or a list literal of Vars for offsets / shapes / strides):
constants are hoisted, index arithmetic is flattened into `arith.*` ops. Static sizes (of a
partition view or a subview) are attributes; their `%c<n>_index` constants are declared too.

Instruction semantics use the same keys as the tile operators (see languages/ops/__init__.py),
read on PTO operands: for a DPS instruction the inputs are `args[:-1]` and the result is
written into the buffer `args[-1]` over the destination's valid region.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from typing import Callable, Sequence

from languages.memory_space import MemorySpace
from languages.ops import AttrDecl, Deducer, DeductionError, OpDef, OperandDecl, describe, describe_type, type_of
from languages.types import (
    DYNAMIC_DIM,
    DYNAMIC_EXTENT,
    SymbolicExtent,
    ValidDims,
    is_symbolic,
    BOOL,
    AttrValue,
    Attrs,
    DataType,
    MemRef,
    NoneType,
    ScalarType,
    TensorType,
    TileType,
    TileView,
    Type,
    ViewType,
    attr,
)
from nanopass.node import Node

# -- naming of constants (shared by the codegen, the printer and the MLIR parser) -----------------


def constant_name(value: int | float | bool, dtype: DataType, float_index: int = 0) -> str:
    """SSA name of a hoisted constant, MLIR style: `c32_index`, `c-1_i32`, `true`, `cst`, `cst_0`."""
    if dtype is DataType.BOOL:
        return "true" if value else "false"
    if dtype.is_float:
        return "cst" if float_index == 0 else f"cst_{float_index - 1}"
    return f"c{int(value)}_{dtype.mlir}"


_FLOAT_BITS: dict[DataType, tuple[str, str, int]] = {
    DataType.FP32: ("<f", "<I", 8),
    DataType.FP16: ("<e", "<H", 4),
}


def float_literal(value: float, dtype: DataType) -> str:
    """An MLIR float literal that reads back to exactly `value`: the shortest decimal when it
    round-trips, else (inf / nan, or a dtype Python cannot pack) the hex bit pattern."""
    if math.isfinite(value):
        text = repr(float(value))
        mantissa, _, exponent = text.partition("e")
        if "." not in mantissa:
            mantissa += ".0"
        return mantissa + ("e" + exponent if exponent else "")
    return float_hex_bits(value, dtype)


def float_hex_bits(value: float, dtype: DataType) -> str:
    if dtype in _FLOAT_BITS:
        pack, unpack, digits = _FLOAT_BITS[dtype]
        (bits,) = struct.unpack(unpack, struct.pack(pack, value))
        return f"0x{bits:0{digits}X}"
    import ml_dtypes
    import numpy as np

    np_dtype = {DataType.BF16: ml_dtypes.bfloat16}.get(dtype, np.float64)
    raw = np.array([value], dtype=np_dtype).tobytes()
    return "0x" + raw[::-1].hex().upper()


# -- allocation attributes -------------------------------------------------------------------------

PAD_CODES: dict[str, int] = {"null": 0, "zero": 1, "max": 2, "min": 3}


def alloc_attrs(tile: TileType) -> Attrs:
    """The buffer configuration `pto.alloc_tile` carries (mirrors its TileType)."""
    if tile.memory_space is None or tile.view is None or tile.memref is None:
        raise ValueError("pto.alloc_tile needs a placed, addressed tile")
    view, memref = tile.view, tile.memref
    return (
        ("shape", tile.shape),
        ("dtype", tile.dtype),
        ("valid_shape", _valid_attr(tile.valid_shape)),
        ("loc", tile.memory_space),
        ("blayout", view.blayout),
        ("slayout", view.slayout),
        ("fractal", view.fractal),
        ("pad", view.pad),
        ("compact", view.compact),
        ("memref", memref.name),
        ("offset", memref.offset),
        ("size", memref.size),
    )


def alloc_operands(call: Node) -> tuple[Node | None, tuple[Node, ...]]:
    """`pto.alloc_tile`'s operands: the address (None under PTOAS's planner) and, for a handle
    with runtime valid extents (`v_row=?, v_col=?`), its initial valid row / col."""
    tile = getattr(call, "type", None)
    args: tuple[Node, ...] = tuple(getattr(call, "args"))
    valid = args[-2:] if isinstance(tile, TileType) and is_symbolic(tile.valid_shape) else ()
    rest = args[:len(args) - len(valid)]
    return (rest[0] if rest else None), valid


def _valid_attr(valid: ValidDims | None) -> tuple[int, ...] | None:
    """A handle's valid shape as an attribute: a runtime extent (`?`) is DYNAMIC_DIM."""
    if valid is None:
        return None
    return tuple(DYNAMIC_DIM if isinstance(e, SymbolicExtent) else e for e in valid)


def tile_from_alloc_attrs(attrs: Attrs) -> TileType:
    def get(name: str) -> AttrValue:
        return attr(attrs, name)

    shape, dtype, valid, loc = get("shape"), get("dtype"), get("valid_shape"), get("loc")
    if not isinstance(shape, tuple) or not isinstance(dtype, DataType) or not isinstance(loc, MemorySpace):
        raise DeductionError("pto.alloc_tile needs shape, dtype and loc attributes")
    if valid is not None and not isinstance(valid, tuple):
        raise DeductionError("pto.alloc_tile valid_shape must be a list of integers")
    view = TileView(str(get("blayout")), str(get("slayout")), _int(get("fractal")), str(get("pad")),
                    bool(get("compact")))
    memref = MemRef(str(get("memref")), loc, _int(get("offset")), _int(get("size")))
    extents = None if valid is None else tuple(DYNAMIC_EXTENT if e == DYNAMIC_DIM else e for e in valid)
    return TileType(shape, dtype, extents, loc, view, memref)


def _int(value: AttrValue) -> int:
    if not isinstance(value, int):
        raise DeductionError(f"expected an integer attribute, got {value!r}")
    return value


# -- deducers --------------------------------------------------------------------------------------


def _no_result(args: Sequence[Node], attrs: Attrs) -> Type:
    return NoneType()


def _same_as_first(args: Sequence[Node], attrs: Attrs) -> Type:
    first = type_of(args[0])
    if not isinstance(first, ScalarType):
        raise DeductionError("expected a scalar operand", 0)
    return first


def _boolean(args: Sequence[Node], attrs: Attrs) -> Type:
    return BOOL


def _cast_scalar(args: Sequence[Node], attrs: Attrs) -> Type:
    dtype = attr(attrs, "dtype")
    if not isinstance(dtype, DataType):
        raise DeductionError("arith cast needs a dtype attribute")
    return ScalarType(dtype)


def _constant(args: Sequence[Node], attrs: Attrs) -> Type:
    ty = type_of(args[0])
    if not isinstance(ty, ScalarType):
        raise DeductionError("arith.constant takes one literal", 0)
    return ty


def _tensor_view(args: Sequence[Node], attrs: Attrs) -> Type:
    tensor = type_of(args[0])
    if not isinstance(tensor, TensorType):
        raise DeductionError("pto.make_tensor_view takes a tensor pointer", 0)
    return ViewType("tensor_view", tensor.shape, tensor.dtype)


def _partition_view(args: Sequence[Node], attrs: Attrs) -> Type:
    view = type_of(args[0])
    sizes = attr(attrs, "sizes")
    if not isinstance(view, ViewType) or not isinstance(sizes, tuple):
        raise DeductionError("pto.partition_view takes a tensor view and static sizes", 0)
    runtime = len(args) > 2
    if runtime != (DYNAMIC_DIM in sizes):
        raise DeductionError("pto.partition_view takes size operands exactly when a size is dynamic (`?`)", 0)
    if runtime and (args[2].KIND != "TupleExpr" or len(getattr(args[2], "elements")) != len(sizes)):
        raise DeductionError(f"pto.partition_view expected {len(sizes)} size operands", 2)
    return ViewType("partition_tensor_view", sizes, view.dtype)


def _subview(args: Sequence[Node], attrs: Attrs) -> Type:
    source = type_of(args[0])
    sizes, valid = attr(attrs, "sizes"), attr(attrs, "valid")
    if not isinstance(source, TileType) or not isinstance(sizes, tuple):
        raise DeductionError("pto.subview takes a tile buffer and static sizes", 0)
    narrowed: ValidDims | None = valid if isinstance(valid, tuple) and valid != sizes else None
    if (len(args) > 2) != (isinstance(narrowed, tuple) and DYNAMIC_DIM in narrowed):
        raise DeductionError("pto.subview takes valid-extent operands exactly when its valid shape is dynamic (`?`)")
    if narrowed is not None and DYNAMIC_DIM in narrowed:
        # The view carries the runtime values; PTOAS types each runtime one `?`.
        narrowed = tuple(DYNAMIC_EXTENT if e == DYNAMIC_DIM else e for e in narrowed)
    return TileType(sizes, source.dtype, narrowed, source.memory_space, source.view, source.memref)


def _alloc(args: Sequence[Node], attrs: Attrs) -> Type:
    return tile_from_alloc_attrs(attrs)


# -- declarations ----------------------------------------------------------------------------------

_ANY = (OperandDecl("operands", "any", variadic=True),)


def _op(name: str, family: str, semantics: tuple[str, ...], deduce: Deducer = _no_result,
        attrs: tuple[AttrDecl, ...] = (), doc: str = "") -> OpDef:
    return OpDef(name=name, operands=_ANY, deduce=deduce, semantics=semantics, family=family,
                 attrs=attrs, doc=doc)


def _dps(name: str, family: str, semantics: tuple[str, ...], attrs: tuple[AttrDecl, ...] = (),
         doc: str = "") -> OpDef:
    return _op(name, f"pto_{family}", semantics, _no_result, attrs,
               doc or f"{name} ins(args[:-1]) outs(args[-1])")


_BINARY = {"tadd": "add", "tsub": "sub", "tmul": "mul", "tdiv": "div", "tmax": "max", "tmin": "min",
           "trem": "rem", "tfmod": "fmod", "tand": "and", "tor": "or", "txor": "xor", "tshl": "shl", "tshr": "shr"}
_SCALAR = {"tadds": "add", "tsubs": "sub", "tmuls": "mul", "tdivs": "div", "tmaxs": "max", "tmins": "min",
           "trems": "rem", "tfmods": "fmod",
           "tands": "and", "tors": "or", "txors": "xor", "tshls": "shl", "tshrs": "shr"}
_FUSED = {"taddc": "addc", "tsubc": "subc", "taddsc": "addsc", "tsubsc": "subsc"}
_UNARY = {"texp": "exp", "tlog": "log", "tsqrt": "sqrt", "trsqrt": "rsqrt", "tabs": "abs", "tneg": "neg",
          "trecip": "rec", "trelu": "relu", "tnot": "not"}
_REDUCE_ROW = {"trowsum": "sum", "trowmax": "max", "trowmin": "min", "trowprod": "prod"}
_REDUCE_COL = {"tcolsum": "sum", "tcolmax": "max", "tcolmin": "min", "tcolprod": "prod"}
_ROW_EXPAND = {"trowexpandadd": "add", "trowexpandsub": "sub", "trowexpandmul": "mul",
               "trowexpanddiv": "div", "trowexpandmax": "max", "trowexpandmin": "min"}
_COL_EXPAND = {"tcolexpandadd": "add", "tcolexpandsub": "sub", "tcolexpandmul": "mul",
               "tcolexpanddiv": "div", "tcolexpandmax": "max", "tcolexpandmin": "min"}

# MLIR arith ops for scalar index / flag arithmetic: BinOp operator -> (int op, float op); ""
# where the operator has no such form: `/` is float division only (the parser rejects it on
# integers), and float `//` / `%` (floor division / modulo) have no exact arith op (arith's
# divf is true division, remf a truncated remainder), so PTOCodegen declines them.
ARITH_BINARY: dict[str, tuple[str, str]] = {
    "+": ("arith.addi", "arith.addf"),
    "-": ("arith.subi", "arith.subf"),
    "*": ("arith.muli", "arith.mulf"),
    "/": ("", "arith.divf"),
    "//": ("arith.floordivsi", ""),
    "%": ("arith.remsi", ""),
    "and": ("arith.andi", "arith.andi"),
    "or": ("arith.ori", "arith.ori"),
}
# Instructions whose scalar operand PTOAS types independently of the tile (TLReluOp's `F32:$slope`:
# "operand #1 must be 32-bit float, but got 'f16'"): the codegen converts the scalar (exactly, from
# a narrower float; pto-isa's TLRELU then narrows it back to the tile's type, giving the same value).
SCALAR_OPERAND_DTYPES: dict[str, DataType] = {"pto.tlrelu": DataType.FP32}
# The row broadcasts whose per-row operand (src1) PTOAS reads, when it is row-major, as one
# 32-byte block per row whose first element is the row's value (pto-isa's TRowExpand*: `vlds ...
# BLK` at row * block elements; TRowExpandAddOp / verifyTRowExpandReduceLikeOp: "expects row-major
# src1 valid_shape[1] to be 32/sizeof(dtype)"). A row-major [M, 1] tile (a [1, 1] one: only M > 1
# columns are column-major) has exactly that block as its padded row, so the codegen passes the
# [M, 32/sizeof] window of it.
ROW_BLOCK_OPERANDS: dict[str, int] = {f"pto.trowexpand{m}": 1 for m in
                                      ("add", "sub", "mul", "div", "max", "min", "expdif")}
# PTOAS 0.44's EmitC conversion registers arith.subf / mulf / divf but no arith.addf pattern
# ("failed to legalize operation 'arith.addf' that was explicitly marked illegal", on both
# targets), so a float `a + b` is spelled `a - (-0.0 - b)`: `-0.0 - b` negates b exactly (-0.0 -
# +0.0 = -0.0, -0.0 - -0.0 = +0.0) and passes a NaN through, and `x - y` is IEEE's `x + (-y)`, so
# the two subtractions give the bits `a + b` gives (signed zeros, infinities and NaN operands
# included: a NaN operand comes out as the NaN the addition would return).
FLOAT_ADD_AS_SUBTRACTIONS = True
# The integer forms that read their operands as unsigned, for unsigned scalars (MLIR's integers
# are signless: the operation, not the type, says how the bits are read). `//` and `%` on
# unsigned values are plain division and remainder (no negative quotient to floor).
ARITH_UNSIGNED: dict[str, str] = {"//": "arith.divui", "%": "arith.remui"}
ARITH_UNSIGNED_COMPARE: dict[str, str] = {"<": "ult", "<=": "ule", ">": "ugt", ">=": "uge"}
# Comparison BinOp operator -> (arith.cmpi predicate, arith.cmpf predicate).
ARITH_COMPARE: dict[str, tuple[str, str]] = {
    "==": ("eq", "oeq"), "!=": ("ne", "une"), "<": ("slt", "olt"), "<=": ("sle", "ole"),
    ">": ("sgt", "ogt"), ">=": ("sge", "oge"),
}


# MLIR arith's scalar conversions (each `%r = op %x : T0 to T1`, the target type in attribute
# `dtype`). The DSL's scalar `pl.cast(x, dtype)` (UnaryOp "cast") is spelled as the chain
# `scalar_conversion_chain` names; its semantics (backend.numerics.scalar_cast): int -> float and
# float -> float round to nearest even, float -> int truncates toward zero (saturating to the
# target's range, unsigned ones included: a negative float -> 0; NaN -> 0), int -> int wraps
# (modulo 2**width, read as the target's signedness).
SCALAR_CONVERSIONS: frozenset[str] = frozenset({
    "arith.index_cast", "arith.sitofp", "arith.uitofp", "arith.fptosi", "arith.fptoui",
    "arith.extsi", "arith.extui", "arith.trunci", "arith.extf", "arith.truncf", "arith.bitcast"})


def is_unsigned_int(dtype: DataType) -> bool:
    """UINT8 .. UINT64 (MLIR spells their scalars as the signless `iN` of their width)."""
    return dtype.is_int and not dtype.is_signed and dtype is not DataType.BOOL


def scalar_conversion_chain(source: DataType, target: DataType) -> tuple[tuple[str, DataType], ...]:
    """The arith conversions (op, result dtype) that turn a `source` scalar into a `target`
    one, in order; empty when the two are the same type. INDEX reaches or leaves a float
    through INT64 (arith has no index <-> float conversion).

    MLIR's integers are signless (an unsigned scalar is its width's `iN`), so the operation says
    how the bits are read: an unsigned source widens with `extui` and becomes a float with
    `uitofp`, a float becomes an unsigned integer with `fptoui` (saturating, as `fptosi`).
    Signed <-> unsigned of one width changes no bit: `arith.bitcast iN to iN` (PTOAS folds it
    away; the result's DSL type is what later operations read). An unsigned source narrower than
    64 bits reaches INDEX through `extui` to INT64: `arith.index_cast` sign-extends, and PTOAS
    0.44 emits `arith.index_castui` as a signed C cast, so it is not used.

    Open, in PTOAS 0.44's C++ (not in the MLIR this emits): `index` becomes `int32_t`, so an
    INDEX value outside the int32 range (an INT64 or unsigned one cast to INDEX) is truncated
    there; and a float -> int conversion folded into one expression with a later int -> float
    loses its parentheses (`(float) ((int16_t) v2 * v6)` for fptosi(v2 * 3.0), fptoui alike)."""
    if source is target:
        return ()
    if source is DataType.INDEX:
        if target.is_float:
            return (("arith.index_cast", DataType.INT64), ("arith.sitofp", target))
        return (("arith.index_cast", target),)
    unsigned = is_unsigned_int(source)
    if target is DataType.INDEX:
        if source.is_float:
            return (("arith.fptosi", DataType.INT64), ("arith.index_cast", DataType.INDEX))
        if unsigned and source.bits < 64:
            return (("arith.extui", DataType.INT64), ("arith.index_cast", DataType.INDEX))
        return (("arith.index_cast", DataType.INDEX),)
    if source.is_float and target.is_float:
        if source.bits == target.bits:  # FP16 <-> BF16: through FP32, each step exact or RNE
            return (("arith.extf", DataType.FP32), ("arith.truncf", target))
        return (("arith.extf" if target.bits > source.bits else "arith.truncf", target),)
    if target.is_float:
        return (("arith.uitofp" if unsigned else "arith.sitofp", target),)
    if source.is_float:
        return (("arith.fptoui" if is_unsigned_int(target) else "arith.fptosi", target),)
    if target.bits == source.bits:  # signed <-> unsigned: the same bits
        return (("arith.bitcast", target),)
    if target.bits > source.bits:
        return (("arith.extui" if unsigned else "arith.extsi", target),)
    return (("arith.trunci", target),)


# The scalar types a DSL `pl.cast(scalar, dtype)` converts between. Unsigned scalars are MLIR's
# signless integers; scalar_conversion_chain picks the conversions that read them as unsigned.
SCALAR_CAST_TYPES: frozenset[DataType] = frozenset({
    DataType.INDEX, DataType.INT8, DataType.INT16, DataType.INT32, DataType.INT64,
    DataType.UINT8, DataType.UINT16, DataType.UINT32, DataType.UINT64,
    DataType.FP16, DataType.BF16, DataType.FP32})


def _arith_ops() -> list[OpDef]:
    ops = [_op("arith.constant", "arith", ("constant",), _constant, doc="a literal")]
    names = sorted({n for pair in ARITH_BINARY.values() for n in pair if n} | set(ARITH_UNSIGNED.values()))
    ops += [_op(n, "arith", ("scalar", n.split(".")[1]), _same_as_first) for n in names]
    ops += [_op("arith.negf", "arith", ("scalar", "negf"), _same_as_first)]
    predicate = (AttrDecl("predicate", "str"),)
    ops += [_op("arith.cmpi", "arith", ("compare",), _boolean, predicate),
            _op("arith.cmpf", "arith", ("compare",), _boolean, predicate)]
    ops += [_op(name, "arith", ("scalar_cast",), _cast_scalar, (AttrDecl("dtype", "dtype"),))
            for name in sorted(SCALAR_CONVERSIONS)]
    return ops


_ALLOC_ATTRS = (
    AttrDecl("shape", "int_list"), AttrDecl("dtype", "dtype"), AttrDecl("valid_shape", "int_list"),
    AttrDecl("loc", "memory_space"), AttrDecl("blayout", "str"), AttrDecl("slayout", "str"),
    AttrDecl("fractal", "int"), AttrDecl("pad", "str"), AttrDecl("compact", "bool"),
    AttrDecl("memref", "str"), AttrDecl("offset", "int"), AttrDecl("size", "int"),
)


def _pto_ops() -> list[OpDef]:
    ops = [
        _op("pto.make_tensor_view", "pto_view", ("tensor_view",), _tensor_view,
            (AttrDecl("layout", "str", "nd", ("nd", "dn")),),
            doc="(ptr, [shape], [strides]): a GM tensor seen through shape / strides / layout"),
        _op("pto.partition_view", "pto_view", ("partition_view",), _partition_view,
            (AttrDecl("sizes", "int_list"),), doc="(tensor_view, [offsets]): a static window of a tensor view"),
        _op("pto.alloc_tile", "pto_alloc", ("alloc",), _alloc, _ALLOC_ATTRS,
            doc="([addr_i64]): a tile buffer handle at byte offset addr of its space"),
        _op("pto.subview", "pto_view", ("slice",), _subview,
            (AttrDecl("sizes", "int_list"), AttrDecl("valid", "int_list")),
            doc="(src, [offsets]): a zero-copy window of a tile buffer"),
        _op("pto.set_validshape", "pto_meta", ("set_validshape",), _no_result,
            doc="(tile, valid_rows, valid_cols): update the handle's valid extent in place"),
        _dps("pto.tload", "memory", ("load",), doc="ins(partition_view) outs(tile): GM -> tile, valid region"),
        _dps("pto.tstore", "memory", ("store",), (AttrDecl("atomicType", "str", "atomic_none"),),
             doc="ins(tile) outs(partition_view): tile valid region -> GM (atomic_add accumulates)"),
        _dps("pto.tmov", "memory", ("move",)),
        _dps("pto.textract", "memory", ("extract",), doc="ins(src, row, col) outs(dst)"),
        _dps("pto.tinsert", "memory", ("assemble",), doc="ins(src, row, col) outs(dst)"),
        _dps("pto.ttrans", "memory", ("transpose",), doc="ins(src, tmp) outs(dst)"),
        _dps("pto.treshape", "memory", ("reshape",)),
        _dps("pto.texpands", "create", ("full",), doc="ins(scalar) outs(dst): fill"),
        _dps("pto.tfillpad", "memory", ("fillpad",)),
        _dps("pto.tmatmul", "matmul", ("matmul",), doc="ins(lhs, rhs) outs(acc): acc = lhs @ rhs"),
        _dps("pto.tmatmul.acc", "matmul", ("matmul_acc",),
             doc="ins(acc, lhs, rhs) outs(dst): dst = acc + lhs @ rhs (dst is acc's buffer)"),
        _dps("pto.tmatmul.bias", "matmul", ("matmul_bias",),
             doc="ins(lhs, rhs, bias) outs(acc): acc = bias row + lhs @ rhs"),
        _dps("pto.tgemv", "matmul", ("matmul",), doc="ins(lhs, rhs) outs(acc): one row; lhs valid rows == 1"),
        _dps("pto.tgemv.acc", "matmul", ("matmul_acc",), doc="ins(acc, lhs, rhs) outs(dst)"),
        _dps("pto.tgemv.bias", "matmul", ("matmul_bias",), doc="ins(lhs, rhs, bias) outs(acc)"),
        _dps("pto.tcvt", "cast", ("cast",), (AttrDecl("rmode", "str", "round"),)),
    ]
    ops += _catalog_pto_ops()
    tables: list[tuple[dict[str, str], str]] = [
        (_BINARY, "binary"), (_SCALAR, "scalar_binary"), (_FUSED, "fused"), (_UNARY, "unary"),
        (_REDUCE_ROW, "reduce_row"), (_REDUCE_COL, "reduce_col"), (_ROW_EXPAND, "row_expand"),
        (_COL_EXPAND, "col_expand"),
    ]
    for table, key in tables:
        ops += [_dps(f"pto.{name}", key, (key, meaning)) for name, meaning in table.items()]
    return ops


_PARTIAL = {"tpartadd": "add", "tpartmul": "mul", "tpartmax": "max", "tpartmin": "min"}
_CMP_MODE = (AttrDecl("cmpMode", "str", "eq"),)


def _catalog_pto_ops() -> list[OpDef]:
    """The instructions of the vector, sort and gather families (spellings as PTOAS parses them;
    the attribute forms are in PTO_ATTR_FORMS)."""
    return [
        _dps("pto.tcmp", "compare", ("compare",), _CMP_MODE, doc="ins(a, b {cmpMode}) outs(mask)"),
        _dps("pto.tcmps", "compare", ("compare",), _CMP_MODE, doc="ins(a, scalar {cmpMode}) outs(mask)"),
        _dps("pto.tsel", "select", ("select",), doc="ins(mask, a, b, tmp) outs(dst)"),
        _dps("pto.tsels", "select", ("select",), doc="ins(mask, src, tmp, scalar) outs(dst)"),
        _dps("pto.tprelu", "prelu", ("prelu",), doc="ins(x, slope, tmp) outs(dst)"),
        _dps("pto.tlrelu", "prelu", ("prelu",), doc="ins(x, slope scalar) outs(dst)"),
        *[_dps(f"pto.{name}", "partial", ("partial", meaning), doc="ins(a, b) outs(dst) over the union")
          for name, meaning in _PARTIAL.items()],
        _dps("pto.tci", "create", ("ci",), (AttrDecl("descending", "bool", False),), doc="ins(start) outs(dst)"),
        _dps("pto.trandom", "create", ("random",), (AttrDecl("rounds", "int", 10),),
             doc="ins(key0, key1, counter0..3 {rounds = R : i32}) outs(dst)"),
        _dps("pto.ttri", "create", ("tri",), (AttrDecl("upperOrLower", "int", 0),), doc="ins(diagonal) outs(dst)"),
        _dps("pto.trowexpand", "row_broadcast", ("row_broadcast", "copy"), doc="ins(col vector) outs(dst)"),
        _dps("pto.tcolexpand", "col_broadcast", ("col_broadcast", "copy"), doc="ins(row vector) outs(dst)"),
        _dps("pto.trowexpandexpdif", "row_expdif", ("row_expdif",), doc="ins(x, col vector) outs(dst)"),
        _dps("pto.tcolexpandexpdif", "col_expdif", ("col_expdif",), doc="ins(x, row vector) outs(dst)"),
        _dps("pto.tconcat", "memory", ("concat",), doc="ins(a, b) outs(dst): [a | b]"),
        _dps("pto.tfillpad_expand", "memory", ("fillpad",), doc="ins(src) outs(larger dst)"),
        _dps("pto.tsort32", "sort32", ("sort32",), doc="ins(src, idx[, tmp]) outs(dst pairs)"),
        _op("pto.tmrgsort", "pto_sort", ("mrgsort",), attrs=(AttrDecl("exhausted", "bool", False),),
            doc="format 1: (src, block_len, dst); format 2: (src0..srcN, tmp, dst, executed counts)"),
        _dps("pto.tgather", "gather", ("gather",), (AttrDecl("maskPattern", "str"),),
             doc="ins(src, idx, tmp) outs(dst) (index form); ins(src {maskPattern}) outs(dst) (mask form)"),
        _dps("pto.tgatherb", "gather", ("gatherb",), doc="ins(src, byte offsets) outs(dst)"),
        _dps("pto.tscatter", "scatter", ("scatter",), doc="ins(src, indexes) outs(dst): dst.flat[indexes] = src"),
        _dps("pto.mgather", "gather", ("mgather",), (AttrDecl("gatherOob", "str"),),
             doc="ins(GM partition, idx) outs(dst)"),
    ]


def _scalar_result(args: Sequence[Node], attrs: Attrs) -> Type:
    dtype = attr(attrs, "dtype")
    if not isinstance(dtype, DataType):
        raise DeductionError("a scalar-producing PTO op needs its result dtype")
    return ScalarType(dtype)


def _i64(args: Sequence[Node], attrs: Attrs) -> Type:
    return ScalarType(DataType.INT64)


def _index(args: Sequence[Node], attrs: Attrs) -> Type:
    return ScalarType(DataType.INDEX)


def _scalar_access_pto_ops() -> list[OpDef]:
    """Scalar access and SPMD identity (spec pto_codegen.md; forms as PTOAS parses them):

    %v = pto.load_scalar %ptr[%off] : !pto.ptr<T> -> T          (a GM element, D-cache)
    pto.store_scalar %v, %ptr[%off] : !pto.ptr<T>, T
    %v = pto.tgetval ins(%tile, %off : TILE, index) outs : T    (an on-chip element)
    pto.tsetval ins(%off, %v : index, T) outs(%tile : TILE)
    %d = pto.get_tensor_view_dim %view, %axis : VIEW -> index
    %b = pto.get_block_idx / get_block_num / get_subblock_idx   (an i64)

    Offsets are element offsets: from the pointer for GM (the tensor's strides), into the
    tile's rows x cols in row-major order for a tile."""
    dtype = (AttrDecl("dtype", "dtype"),)
    return [
        _op("pto.load_scalar", "pto_scalar", ("load_scalar",), _scalar_result, dtype,
            doc="(ptr, offset) -> one GM element"),
        _op("pto.store_scalar", "pto_scalar", ("store_scalar",), doc="(value, ptr, offset)"),
        _op("pto.tgetval", "pto_scalar", ("tgetval",), _scalar_result, dtype, doc="(tile, offset) -> one element"),
        _dps("pto.tsetval", "setval", ("tsetval",), doc="ins(offset, value) outs(tile): set one element"),
        _op("pto.get_tensor_view_dim", "pto_scalar", ("view_dim",), _index, doc="(tensor view, axis) -> index"),
        _op("pto.get_block_idx", "pto_scalar", ("spmd", "get_block_idx"), _i64),
        _op("pto.get_block_num", "pto_scalar", ("spmd", "get_block_num"), _i64),
        _op("pto.get_subblock_idx", "pto_scalar", ("spmd", "get_subblock_idx"), _i64),
        _op("pto.syncall", "pto_sync", ("barrier",),
            attrs=(AttrDecl("mode", "str", "hard"), AttrDecl("core_type", "str", "aiv_only")),
            doc="(workspace operands) mode = #pto.sync_all_mode<M>, core_type = #pto.sync_core_type<C>"),
        _op("pto.barrier", "pto_sync", ("barrier",), attrs=(AttrDecl("pipe", "str", "PIPE_ALL"),),
            doc="<PIPE>: wait for the pipe to drain"),
        _op("pto.sync.set", "pto_sync", ("barrier",),
            attrs=(AttrDecl("pipe", "str", "PIPE_ALL"), AttrDecl("event_id", "int"), AttrDecl("ffts_mode", "int")),
            doc="<PIPE>, EVENT [{ffts_mode = M : i32}] or <PIPE>, %event: set a cross-core flag"),
        _op("pto.sync.wait", "pto_sync", ("barrier",),
            attrs=(AttrDecl("pipe", "str", "PIPE_ALL"), AttrDecl("event_id", "int")),
            doc="<PIPE>, EVENT or <PIPE>, %event: wait for a cross-core flag"),
        _op("pto.set_ffts", "pto_sync", ("barrier",), doc="%workspace : memref<Nxi64>: the FFTS flag base"),
    ]


# The module attribute naming the target (`module attributes {pto.target_arch = "a5"}`), per
# BackendHandler.arch: PTOAS's parser verifies A5-only instructions (pto.mgather) against it,
# and takes a module without one as A2/A3, its default.
PTO_TARGET_ARCH: dict[str, str] = {"a5": "a5"}


# How a PTO instruction spells its attributes (PTOAS's parsers; the printer and the MLIR parser
# read these tables): attributes written inside the ins() clause after the operands, attributes
# that are PTO enums (key -> enum mnemonic: `#pto<round_mode ROUND>`, `#pto<cmp lt>`), the
# enums spelled in lower case, and integer attributes that carry an explicit type.
OPERAND_ATTRS: dict[str, tuple[str, ...]] = {
    "pto.tcvt": ("rmode",), "pto.tgather": ("maskPattern",),
    "pto.tcmp": ("cmpMode",), "pto.tcmps": ("cmpMode",),
    "pto.tci": ("descending",), "pto.ttri": ("upperOrLower",), "pto.trandom": ("rounds",),
}
# The ops whose operand attributes follow a comma (`ins(%src, {maskPattern = ..} : T)`).
COMMA_BEFORE_OPERAND_ATTRS = frozenset({"pto.tgather", "pto.tscatter"})
ENUM_ATTRS: dict[str, str] = {"rmode": "round_mode", "cmpMode": "cmp", "atomicType": "atomic_type",
                              "accPhase": "acc_phase", "gatherOob": "gather_oob"}
# Attributes printed as a PTO attribute of their own (`#pto.mask_pattern<P0101>`): key -> mnemonic.
DIALECT_ATTRS: dict[str, str] = {"maskPattern": "mask_pattern"}
# Enums whose name depends on the instruction: (instruction, attribute) -> enum
# (`{precisionType = #pto<div_precision high_precision>}` on pto.tdiv).
OP_ENUM_ATTRS: dict[tuple[str, str], str] = {
    (f"pto.t{op}", "precisionType"): f"{op}_precision" for op in ("div", "log", "recip", "rsqrt")}
LOWER_CASE_ENUMS = frozenset({"cmp", "atomic_type", "acc_phase", "gather_oob", *OP_ENUM_ATTRS.values()})
TYPED_INT_ATTRS: dict[str, str] = {"upperOrLower": "i32", "rounds": "i32"}
CMP_MODE_NAMES = ("eq", "ne", "lt", "le", "gt", "ge")


def _cmp_mode_name(code: AttrValue) -> AttrValue:
    return CMP_MODE_NAMES[code] if isinstance(code, int) and not isinstance(code, bool) else code


def _as_int(flag: AttrValue) -> AttrValue:
    return int(flag) if isinstance(flag, bool) else flag


# Source-attribute value -> PTO attribute value, for the PTO attributes whose spelling differs
# from the tile op's (a cmp_type code is a compare-mode name; `upper` is TTRI's 0 / 1).
def _mask_pattern_name(value: AttrValue) -> AttrValue:
    from languages.ops.index_ops import MASK_PATTERNS

    return MASK_PATTERNS[value][0] if isinstance(value, int) and value in MASK_PATTERNS else value


def _atomic_type(value: AttrValue) -> AttrValue:
    return f"atomic_{value}" if isinstance(value, str) and not value.startswith("atomic_") else value


def _precision_type(high: AttrValue) -> AttrValue:
    """high_precision=True -> the high-precision algorithm; the default mode is left unwritten."""
    return "high_precision" if high is True else None


def _acc_phase(phase: AttrValue) -> AttrValue:
    """The unspecified phase is the instruction's plain form: left unwritten."""
    return None if phase == "unspecified" else phase


PTO_ATTR_VALUES: dict[str, Callable[[AttrValue], AttrValue]] = {
    "precisionType": _precision_type,
    "accPhase": _acc_phase,
    "atomicType": _atomic_type,
    "cmpMode": _cmp_mode_name,
    "maskPattern": _mask_pattern_name,
    "upperOrLower": _as_int,
}


def _cross_core_pto_ops() -> list[OpDef]:
    """Cross-core FIFO endpoints (spec "Cross-Core Operations"): `pto.tpush_to_aiv ins(%t : T)
    {split = N}` is a statement; `%buf = pto.tpop_from_aic {split = N} -> T` binds the popped
    buffer (its type is the result's). Semantics keys as the tile ops': (kind, consuming core)."""
    fifo = (AttrDecl("id", "int"), AttrDecl("split", "int", 0))
    return [
        _op("pto.tpush_to_aiv", "pto_fifo", ("tpush", "aiv"), attrs=fifo, doc="ins(tile): cube -> vector push"),
        _op("pto.tpush_to_aic", "pto_fifo", ("tpush", "aic"), attrs=fifo, doc="ins(tile): vector -> cube push"),
        _op("pto.tpop_from_aic", "pto_fifo", ("tpop", "aiv"), attrs=fifo, doc="-> tile: pop on the vector core"),
        _op("pto.tpop_from_aiv", "pto_fifo", ("tpop", "aic"), attrs=fifo, doc="-> tile: pop on the cube core"),
    ]


def _i32(args: Sequence[Node], attrs: Attrs) -> Type:
    return ScalarType(DataType.INT32)


def _pipe_pto_ops() -> list[OpDef]:
    """The pipe's set-up and slot release (spec "Cross-Core Operations"):

    %r = pto.reserve_buffer {name = "N", size = S, location = #pto.address_space<loc>,
                             auto = false, base = B} -> i32        (auto = true and no base
                                                                    under the PTOAS planner)
    %r = pto.import_reserved_buffer {name = "N", peer_func = @F} -> i32
    pto.aic_initialize_pipe {dir_mask = D, slot_size = S, slot_num = N}
        ([gm_slot_buffer = %gm : !pto.ptr<f32>, ]c2v_consumer_buf = %a : i32, v2c_consumer_buf = %b : i32)
    pto.tfree_from_aic {split = N}                                 (and the _aiv forms)"""
    region = (AttrDecl("name", "str"), AttrDecl("size", "int"), AttrDecl("location", "memory_space"),
              AttrDecl("auto", "bool", False), AttrDecl("base", "int"))
    pipe = (AttrDecl("id", "int"), AttrDecl("dir_mask", "int"), AttrDecl("slot_size", "int"),
            AttrDecl("slot_num", "int"))
    fifo = (AttrDecl("id", "int"), AttrDecl("split", "int", 0))
    return [
        _op("pto.reserve_buffer", "pto_pipe", ("pipe_buffer",), _i32, region, doc="-> i32: the reserved region"),
        _op("pto.import_reserved_buffer", "pto_pipe", ("pipe_buffer",), _i32,
            (AttrDecl("name", "str"), AttrDecl("peer_func", "str")), doc="-> i32: the peer's region"),
        _op("pto.aic_initialize_pipe", "pto_pipe", ("pipe_init",), attrs=pipe,
            doc="(c2v_consumer_buf, v2c_consumer_buf[, gm_slot_buffer])"),
        _op("pto.aiv_initialize_pipe", "pto_pipe", ("pipe_init",), attrs=pipe,
            doc="(c2v_consumer_buf, v2c_consumer_buf[, gm_slot_buffer])"),
        _op("pto.tfree_from_aic", "pto_fifo", ("tfree", "aiv"), attrs=fifo, doc="release a slot popped from the AIC"),
        _op("pto.tfree_from_aiv", "pto_fifo", ("tfree", "aic"), attrs=fifo, doc="release a slot popped from the AIV"),
    ]


OPS: tuple[OpDef, ...] = tuple(_arith_ops() + _pto_ops() + _scalar_access_pto_ops() + _cross_core_pto_ops()
                               + _pipe_pto_ops())

# Instructions written in destination-passing style: `EvalStmt(op(*ins, out))`.
_NOT_DPS_FAMILIES = frozenset({"arith", "pto_view", "pto_alloc", "pto_meta", "pto_fifo", "pto_scalar", "pto_sync",
                               "pto_sort", "pto_pipe"})
DPS_OPS: frozenset[str] = frozenset(o.name for o in OPS if o.family not in _NOT_DPS_FAMILIES)


# -- operand and result kinds ------------------------------------------------------------------
#
# What each PTO instruction takes and gives, as PTO-ISA states it (PTOAS's op verifiers: a
# vector instruction reads and writes `loc=vec` tiles, pto.tload fills a Vec or Mat tile from a
# partition view, pto.tmatmul reads Left x Right into Acc, ...). Written as the instruction is
# spelled: `ins(A, B) outs(D)` for a destination-passing instruction (`args[:-1]`, `args[-1]`),
# `(A, B) -> R` for a value op, `(A, B)` for a statement without a destination. An operand is
# `|`-separated alternatives of: a memory space (`vec`, `mat`, `left`, `right`, `acc`, `bias`:
# a tile there), `tile` (a tile anywhere), `scalar`, `tensor` (a kernel's GM pointer),
# `tensor_view`, `partition_view`, `list` (an operand list `[%a, %b]`); `?` marks an optional
# trailing operand, `...` a variadic last one. The PTO parser (backend.pto_text.parser) checks
# every parsed op against these; an instruction's family states the common form once, an op
# states its own where it differs. Space *pairs* (which tmov routes exist) are not stated here.

_FAMILY_OPERANDS: dict[str, str] = {
    "pto_binary": "ins(vec, vec, vec?) outs(vec)",            # trem / txor take a tmp
    "pto_scalar_binary": "ins(vec, scalar, vec?) outs(vec)",
    "pto_fused": "ins(vec, vec|scalar, vec) outs(vec)",        # taddc (a, b, c); taddsc (a, s, c)
    "pto_unary": "ins(vec, vec?) outs(vec)",
    "pto_reduce_row": "ins(vec, vec?) outs(vec)",             # (src, tmp)
    "pto_reduce_col": "ins(vec, vec?) outs(vec)",
    "pto_row_expand": "ins(vec, vec) outs(vec)",
    "pto_col_expand": "ins(vec, vec) outs(vec)",
    "pto_partial": "ins(vec, vec) outs(vec)",
    "pto_row_broadcast": "ins(vec) outs(vec)",
    "pto_col_broadcast": "ins(vec) outs(vec)",
    "pto_row_expdif": "ins(vec, vec) outs(vec)",
    "pto_col_expdif": "ins(vec, vec) outs(vec)",
    "pto_sort32": "ins(vec, vec, vec?) outs(vec)",           # (src, idx[, tmp])
    "pto_scatter": "ins(vec, vec) outs(vec)",
    "pto_cast": "ins(vec, vec?) outs(vec)",
    "pto_setval": "ins(scalar, scalar) outs(vec)",           # (offset, value)
}

_OP_OPERANDS: dict[str, str] = {
    "pto.make_tensor_view": "(tensor, list, list) -> tensor_view",
    "pto.partition_view": "(tensor_view, list, list?) -> partition_view",  # (view, offsets[, runtime sizes])
    "pto.alloc_tile": "(scalar?, scalar?, scalar?) -> tile",  # ([addr][, valid_row, valid_col] of a `?` handle)
    "pto.subview": "(tile, list, list?) -> tile",  # (source, offsets[, runtime valid extents])
    "pto.set_validshape": "(tile, scalar, scalar)",
    "pto.tload": "ins(partition_view) outs(vec|mat)",
    "pto.tstore": "ins(vec|mat|acc) outs(partition_view)",
    "pto.tmov": "ins(vec|mat|acc) outs(vec|mat|left|right|bias)",
    "pto.textract": "ins(mat|vec, scalar, scalar) outs(left|right|vec)",
    "pto.tinsert": "ins(acc|vec, scalar, scalar) outs(mat|vec)",
    "pto.ttrans": "ins(vec, vec?) outs(vec)",
    "pto.treshape": "(tile) -> tile",
    "pto.texpands": "ins(scalar) outs(vec|mat)",
    "pto.tfillpad": "ins(vec) outs(vec)",
    "pto.tfillpad_expand": "ins(vec) outs(vec)",
    "pto.tconcat": "ins(vec, vec) outs(vec)",
    "pto.tmatmul": "ins(left, right) outs(acc)",
    "pto.tmatmul.acc": "ins(acc, left, right) outs(acc)",
    "pto.tmatmul.bias": "ins(left, right, bias) outs(acc)",
    "pto.tgemv": "ins(left, right) outs(acc)",                 # the one-row cube forms: as tmatmul
    "pto.tgemv.acc": "ins(acc, left, right) outs(acc)",
    "pto.tgemv.bias": "ins(left, right, bias) outs(acc)",
    "pto.tcmp": "ins(vec, vec) outs(vec)",
    "pto.tcmps": "ins(vec, scalar) outs(vec)",
    "pto.tsel": "ins(vec, vec, vec, vec?) outs(vec)",         # (mask, a, b[, tmp])
    "pto.tsels": "ins(vec, vec, vec|scalar, scalar?) outs(vec)",  # (mask, src, tmp, scalar)
    "pto.tprelu": "ins(vec, vec, vec?) outs(vec)",
    "pto.tlrelu": "ins(vec, scalar) outs(vec)",
    "pto.tci": "ins(scalar) outs(vec)",
    "pto.ttri": "ins(scalar) outs(vec)",
    "pto.trandom": "ins(scalar, scalar, scalar, scalar, scalar, scalar) outs(vec)",
    "pto.tmrgsort": "(vec, vec|scalar|vector...)",            # format 1 (src, len, dst); 2 (srcs.., tmp, dst, counts)
    "pto.tgather": "ins(vec, vec?, vec?) outs(vec)",          # index form (src, idx, tmp); mask form (src)
    "pto.tgatherb": "ins(vec, vec) outs(vec)",
    "pto.mgather": "ins(partition_view, vec) outs(vec)",
    "pto.load_scalar": "(tensor, scalar) -> scalar",
    "pto.store_scalar": "(scalar, tensor, scalar)",
    "pto.tgetval": "(vec, scalar) -> scalar",
    "pto.get_tensor_view_dim": "(tensor_view, scalar) -> scalar",
    "pto.get_block_idx": "() -> scalar",
    "pto.get_block_num": "() -> scalar",
    "pto.get_subblock_idx": "() -> scalar",
    "pto.syncall": "(partition_view?, vec|mat?, mat|scalar?, scalar?)",  # gm, ub | l1, l1 | used, used
    "pto.barrier": "()",
    "pto.sync.set": "(scalar?)",
    "pto.sync.wait": "(scalar?)",
    "pto.set_ffts": "(tensor)",
    "pto.tpush_to_aiv": "(acc|mat)",                          # the cube side pushes
    "pto.tpush_to_aic": "(vec)",                              # the vector side pushes
    "pto.tpop_from_aic": "(scalar?, scalar?) -> vec",         # popped on the vector core
    "pto.tpop_from_aiv": "(scalar?, scalar?) -> mat",         # popped on the cube core
    "pto.tfree_from_aic": "()",                               # the split names the slot, no operand
    "pto.tfree_from_aiv": "()",
    "pto.reserve_buffer": "() -> scalar",                     # the region's i32 address
    "pto.import_reserved_buffer": "() -> scalar",
    "pto.aic_initialize_pipe": "(scalar, scalar, tensor?)",   # (c2v_consumer_buf, v2c_consumer_buf[, gm_slot_buffer])
    "pto.aiv_initialize_pipe": "(scalar, scalar, tensor?)",
}

_SPACE_WORDS: dict[str, MemorySpace] = {space.pto_name: space for space in MemorySpace if space is not MemorySpace.DDR}
_KIND_WORDS = frozenset({"tile", "scalar", "tensor", "tensor_view", "partition_view", "vector", "list"})
_KIND_DESCRIPTIONS = {
    "tile": "a tile", "scalar": "a scalar", "tensor": "a tensor pointer (a kernel parameter)",
    "tensor_view": "a tensor view (!pto.tensor_view)", "partition_view": "a partition view (!pto.partition_tensor_view)",
    "vector": "a vector value (tmrgsort's executed counts, vector<4xi16>)", "list": "an operand list",
}


@dataclass(frozen=True)
class PtoOperand:
    """One operand (or result) form: the kinds it accepts, as the signature words say."""

    accepts: tuple[str, ...]
    optional: bool = False
    variadic: bool = False

    def admits(self, node: Node) -> bool:
        return self.admits_type(type_of(node), is_list=node.KIND == "TupleExpr")

    def admits_type(self, ty: Type | None, is_list: bool = False) -> bool:
        for word in self.accepts:
            if word in _SPACE_WORDS:
                if isinstance(ty, TileType) and ty.memory_space is _SPACE_WORDS[word]:
                    return True
            elif word == "tile" and isinstance(ty, TileType):
                return True
            elif word == "scalar" and isinstance(ty, ScalarType):
                return True
            elif word == "tensor" and isinstance(ty, TensorType):
                return True
            elif word in ("tensor_view", "partition_view") and isinstance(ty, ViewType):
                if ty.kind == ("tensor_view" if word == "tensor_view" else "partition_tensor_view"):
                    return True
            elif word == "vector" and isinstance(ty, ViewType) and ty.kind == "vector":
                return True
            elif word == "list" and is_list:
                return True
        return False

    def describe(self) -> str:
        spaces = [_SPACE_WORDS[w].name for w in self.accepts if w in _SPACE_WORDS]
        words = [f"a {' or '.join(spaces)} tile"] if spaces else []
        words += [_KIND_DESCRIPTIONS[w] for w in self.accepts if w in _KIND_DESCRIPTIONS]
        return " or ".join(words)


@dataclass(frozen=True)
class PtoSignature:
    """An instruction's operand and result forms (`text` as written in _OP_OPERANDS)."""

    text: str
    operands: tuple[PtoOperand, ...]
    destination: PtoOperand | None = None   # a destination-passing instruction's outs()
    result: PtoOperand | None = None        # a value op's result

    def problem(self, args: Sequence[Node], result: Type | None = None) -> tuple[int | None, str] | None:
        """The first way `args` (and the value op's `result` type) break this signature: the
        argument index (None for the result) and what was expected; None when they fit."""
        ins = list(args)
        if self.destination is not None:
            if not ins:
                return None, f"expected operands {self.text}, got none"
            ins.pop()
        arity = self._arity_problem(len(ins))
        if arity is not None:
            return None, arity
        for index, node in enumerate(ins):
            form = self.operands[min(index, len(self.operands) - 1)]
            if not form.admits(node):
                return index, f"operand {index} is {describe(node)}, expected {form.describe()}"
        if self.destination is not None and not self.destination.admits(args[-1]):
            return len(args) - 1, (f"the destination (outs) is {describe(args[-1])}, "
                                   f"expected {self.destination.describe()}")
        if self.result is not None and result is not None and not self.result.admits_type(result):
            return None, f"the result is {describe_type(result)}, expected {self.result.describe()}"
        return None

    def _arity_problem(self, count: int) -> str | None:
        required = sum(1 for o in self.operands if not o.optional and not o.variadic)
        variadic = bool(self.operands) and self.operands[-1].variadic
        if count < required or (not variadic and count > len(self.operands)):
            clause = "ins() operands" if self.destination is not None else "operands"
            wanted = f"{required}" if required == len(self.operands) else \
                f"{required} or more" if variadic else f"{required} to {len(self.operands)}"
            return f"expected {wanted} {clause} ({self.text}), got {count}"
        return None


def _operand_form(word: str, text: str) -> PtoOperand:
    optional, variadic = word.endswith("?"), word.endswith("...")
    accepts = tuple(word.removesuffix("?").removesuffix("...").split("|"))
    for kind in accepts:
        if kind not in _SPACE_WORDS and kind not in _KIND_WORDS:
            raise ValueError(f"PTO signature {text!r}: unknown operand kind {kind!r}")
    return PtoOperand(accepts, optional, variadic)


def _forms(inside: str, text: str) -> tuple[PtoOperand, ...]:
    return tuple(_operand_form(w.strip(), text) for w in inside.split(",") if w.strip())


def _parse_signature(text: str) -> PtoSignature:
    if text.startswith("ins("):
        ins, _, rest = text[len("ins("):].partition(") outs(")
        if not rest.endswith(")"):
            raise ValueError(f"PTO signature {text!r}: expected `ins(...) outs(...)`")
        return PtoSignature(text, _forms(ins, text), _operand_form(rest[:-1].strip(), text))
    operands, arrow, result = text.partition("->")
    operands = operands.strip()
    if not (operands.startswith("(") and operands.endswith(")")):
        raise ValueError(f"PTO signature {text!r}: expected `(operands)[ -> result]`")
    return PtoSignature(text, _forms(operands[1:-1], text),
                        result=_operand_form(result.strip(), text) if arrow else None)


def _signatures() -> dict[str, PtoSignature]:
    signatures: dict[str, PtoSignature] = {}
    for opdef in OPS:
        if opdef.family == "arith":
            continue  # scalar arithmetic: its operand types are the parser's (`: index`, `: f32`)
        text = _OP_OPERANDS.get(opdef.name) or _FAMILY_OPERANDS.get(opdef.family)
        if text is None:
            raise ValueError(f"{opdef.name}: no PTO operand signature (add it to _OP_OPERANDS)")
        signatures[opdef.name] = _parse_signature(text)
    return signatures


PTO_SIGNATURES: dict[str, PtoSignature] = _signatures()


def pto_operand_problem(op: str, args: Sequence[Node], result: Type | None = None) -> tuple[int | None, str] | None:
    """Why a PTO op's operands (and a value op's result type) do not fit its signature, or None:
    (the argument index, or None for the arity / the result; a message naming what was expected)."""
    signature = PTO_SIGNATURES.get(op)
    if signature is None:
        return None
    found = signature.problem(args, result)
    if found is None:
        return None
    index, message = found
    return index, f"{op}: {message} (form: {op} {signature.text})"
