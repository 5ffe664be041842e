"""The element types the PTO assembler accepts per vector instruction and target.

PTOAS verifies each vector instruction's element type per architecture and rejects the rest
(`'pto.tabs' op expects element type to be f16 or f32`, `'pto.tmul' op expects A2/A3 tmul
element type to be i32/i16/f16/f32`). The table below states those facts once, transcribed from
the verifiers of PTOAS 0.44 (`lib/PTO/IR/PTO.cpp`, the `verify()` of each op and the
`verify*WithArchDispatch` helpers they call). PTOAS tests widths, not signedness
(`Type::isInteger(16)` holds for i16 and ui16), so `iN` admits INTN and UINTN.

`instruction_rules` turns the table into `DtypeIn` target rules on every op whose PTO emission names
such an instruction -- the tile op itself, and a tensor op through the tile ops it lowers to --
so the TargetOpRules verifier rejects the call at the user's line, and the program generator
draws only what the assembler accepts. The instructions in `INSTRUCTION_LEVEL` (pto.tinsert) are
the exception: their rules sit on the PTO instruction's own OpDef, checked on the PTO program,
since the passes copy the other types as bits of one the instruction takes.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from languages.ops.target_rules import RESULT, DtypeIn, TargetRule
from languages.types import DataType


@dataclass(frozen=True)
class AssemblerDtypeIn(DtypeIn):
    """A `DtypeIn` derived from the table below (every reader of DtypeIn treats it as one)."""


_ARCH_NAMES = {"a2a3": "A2/A3", "a5": "Ascend950"}

# instruction -> (the operand the type is checked on, {arch: accepted types}). "result": the
# instruction checks src, scalar and dst (or all operands) have one element type, so the call's
# result stands for them; "first": the compared inputs (tcmp's dst is a mask of its own type).
ACCEPTED: dict[str, tuple[str, dict[str, str]]] = {
    "pto.tabs": ("result", {"a2a3": "f16/f32", "a5": "f16/f32"}),
    "pto.tadd": ("result", {"a2a3": "i32/i16/f16/f32", "a5": "i32/i16/i8/f16/bf16/f32"}),
    "pto.tadds": ("result", {"a2a3": "i32/i16/f16/f32", "a5": "i32/i16/i8/f16/bf16/f32"}),
    "pto.tand": ("result", {"a2a3": "i8/i16", "a5": "i8/i16/i32"}),
    "pto.tands": ("result", {"a2a3": "i8/i16", "a5": "i8/i16/i32"}),
    "pto.tor": ("result", {"a2a3": "i8/i16", "a5": "i8/i16/i32"}),
    "pto.txor": ("result", {"a2a3": "i8/i16", "a5": "i8/i16/i32"}),
    "pto.tors": ("result", {"a2a3": "i8/i16", "a5": "i8/i16/i32"}),
    "pto.txors": ("result", {"a2a3": "i8/i16", "a5": "i8/i16/i32"}),
    "pto.tshrs": ("result", {"a2a3": "i16/i32", "a5": "i8/i16/i32"}),
    "pto.tshl": ("result", {"a2a3": "i8/i16/i32", "a5": "i8/i16/i32"}),
    "pto.tshr": ("result", {"a2a3": "i8/i16/i32", "a5": "i8/i16/i32"}),
    "pto.tcmp": ("first", {"a2a3": "i32/f16/f32", "a5": "i8/i16/i32/f16/bf16/f32"}),
    "pto.tcmps": ("first", {"a2a3": "i16/i32/f16/f32", "a5": "i8/i16/i32/f16/f32"}),
    "pto.tcolmax": ("result", {"a2a3": "f16/f32/i16/i32", "a5": "i8/i16/i32/f16/bf16/f32"}),
    "pto.tcolmin": ("result", {"a2a3": "f16/f32/i16/i32", "a5": "i8/i16/i32/f16/bf16/f32"}),
    "pto.tcolprod": ("result", {"a2a3": "f16/f32/i16/i32", "a5": "i16/ui16/i32/ui32/f16/bf16/f32"}),
    "pto.tcolsum": ("result", {"a2a3": "f16/f32/i16/i32", "a5": "i8/i16/i32/f16/bf16/f32"}),
    "pto.tdiv": ("result", {"a2a3": "f16/f32", "a5": "i32/i16/f16/f32"}),
    "pto.tdivs": ("result", {"a2a3": "i32/i16/f16/f32", "a5": "i32/i16/i8/f16/f32"}),
    "pto.tfmod": ("result", {"a2a3": "i32/i16/f16/f32", "a5": "i32/i16/f16/f32"}),
    "pto.tfmods": ("result", {"a2a3": "i32/i16/f16/f32", "a5": "i32/i16/f16/f32"}),
    "pto.tlrelu": ("result", {"a2a3": "f16/f32", "a5": "f16/f32"}),
    "pto.tmax": ("result", {"a2a3": "i32/i16/f16/f32", "a5": "i32/i16/i8/f16/f32"}),
    "pto.tmaxs": ("result", {"a2a3": "i32/i16/f16/f32", "a5": "i32/i16/i8/f16/bf16/f32"}),
    "pto.tmin": ("result", {"a2a3": "i32/i16/f16/f32", "a5": "i32/i16/i8/f16/bf16/f32"}),
    "pto.tmins": ("result", {"a2a3": "i32/i16/f16/f32", "a5": "i32/i16/i8/f16/bf16/f32"}),
    "pto.tmul": ("result", {"a2a3": "i32/i16/f16/f32", "a5": "i32/i16/f16/f32"}),
    "pto.tmuls": ("result", {"a2a3": "i32/i16/f16/f32", "a5": "i32/i16/i8/f16/bf16/f32"}),
    "pto.tneg": ("result", {"a2a3": "i16/i32/f16/f32", "a5": "i8/i16/i32/f16/f32/bf16"}),
    "pto.tnot": ("result", {"a2a3": "i16", "a5": "i8/i16/i32"}),
    "pto.tpartadd": ("result", {"a2a3": "i32/i16/f16/f32", "a5": "i32/i16/i8/f16/bf16/f32"}),
    "pto.tpartmax": ("result", {"a2a3": "i32/i16/f16/f32", "a5": "i32/i16/i8/f16/bf16/f32"}),
    "pto.tpartmin": ("result", {"a2a3": "i32/i16/f16/f32", "a5": "i32/i16/i8/f16/bf16/f32"}),
    "pto.tpartmul": ("result", {"a2a3": "i32/i16/f16/f32", "a5": "i32/i16/i8/f16/bf16/f32"}),
    "pto.trelu": ("result", {"a2a3": "i32/f16/f32", "a5": "i32/f16/f32"}),
    "pto.trem": ("result", {"a2a3": "i32/f32", "a5": "i32/i16/f16/f32"}),
    "pto.trems": ("result", {"a2a3": "i32/f32", "a5": "i32/i16/f16/f32"}),
    "pto.trowexpandadd": ("result", {"a2a3": "i16/i32/f16/f32", "a5": "i8/i16/i32/f16/f32"}),
    "pto.trowexpanddiv": ("result", {"a5": "i8/i16/i32/f16/f32"}),
    "pto.trowexpandmul": ("result", {"a2a3": "i16/i32/f16/f32", "a5": "i8/i16/i32/f16/f32"}),
    "pto.trowexpandsub": ("result", {"a2a3": "i16/i32/f16/f32", "a5": "i8/i16/i32/f16/f32"}),
    # verifyTRowExpandReduceLikeOp: max / min take integers (i8 on A5 only), expdif f16 / f32.
    "pto.trowexpandmax": ("result", {"a2a3": "i16/i32/f16/f32", "a5": "i8/i16/i32/f16/f32"}),
    "pto.trowexpandmin": ("result", {"a2a3": "i16/i32/f16/f32", "a5": "i8/i16/i32/f16/f32"}),
    "pto.trowexpandexpdif": ("result", {"a2a3": "f16/f32", "a5": "f16/f32"}),
    "pto.trowprod": ("result", {"a2a3": "i16/i32/f16/f32", "a5": "i16/i32/f16/f32"}),
    "pto.tsel": ("result", {"a2a3": "i16/i32/f16/bf16/f32", "a5": "i8/i16/i32/f16/bf16/f32"}),
    "pto.tsub": ("result", {"a2a3": "i32/i16/f16/f32", "a5": "i32/i16/i8/f16/f32"}),
    "pto.tsubs": ("result", {"a2a3": "i32/i16/f16/f32", "a5": "i32/i16/i8/f16/bf16/f32"}),
    # Row reductions (verifyTRowReduction*Common): one list on both targets, no BF16.
    "pto.trowsum": ("result", {"a2a3": "i16/i32/f16/f32", "a5": "i16/i32/f16/f32"}),
    "pto.trowmax": ("result", {"a2a3": "i16/i32/f16/f32", "a5": "i16/i32/f16/f32"}),
    "pto.trowmin": ("result", {"a2a3": "i16/i32/f16/f32", "a5": "i16/i32/f16/f32"}),
    # Transcendentals and roots (verifyVecTileUnaryOp with allowBf16 = false, then f16 / f32).
    "pto.texp": ("result", {"a2a3": "f16/f32", "a5": "f16/f32"}),
    "pto.tlog": ("result", {"a2a3": "f16/f32", "a5": "f16/f32"}),
    "pto.tsqrt": ("result", {"a2a3": "f16/f32", "a5": "f16/f32"}),
    "pto.trsqrt": ("result", {"a2a3": "f16/f32", "a5": "f16/f32"}),
    "pto.trecip": ("result", {"a2a3": "f16/f32", "a5": "f16/f32"}),
    # Column broadcasts: tcolexpand takes every vector type (isSupportedVecElemType with BF16 and
    # INT8); the binary forms share verifyTColExpandBinaryLikeOp (integers but INT8 only on A5,
    # tcolexpanddiv integers only on A5, tcolexpandexpdif floats only).
    "pto.tcolexpand": ("result", {"a2a3": "i8/i16/i32/f16/bf16/f32", "a5": "i8/i16/i32/f16/bf16/f32"}),
    "pto.tcolexpandadd": ("result", {"a2a3": "i16/i32/f16/f32", "a5": "i8/i16/i32/f16/f32"}),
    "pto.tcolexpandsub": ("result", {"a2a3": "i16/i32/f16/f32", "a5": "i8/i16/i32/f16/f32"}),
    "pto.tcolexpandmul": ("result", {"a2a3": "i16/i32/f16/f32", "a5": "i8/i16/i32/f16/f32"}),
    "pto.tcolexpandmax": ("result", {"a2a3": "i16/i32/f16/f32", "a5": "i8/i16/i32/f16/f32"}),
    "pto.tcolexpandmin": ("result", {"a2a3": "i16/i32/f16/f32", "a5": "i8/i16/i32/f16/f32"}),
    "pto.tcolexpanddiv": ("result", {"a2a3": "f16/f32", "a5": "i8/i16/i32/f16/f32"}),
    "pto.tcolexpandexpdif": ("result", {"a2a3": "f16/f32", "a5": "f16/f32"}),
    # taxpy (src and dst), texpands (dst), textract (A5: the fp8 / f16 / bf16 / f32 / int8 family).
    "pto.taxpy": ("result", {"a2a3": "f16/f32", "a5": "f16/bf16/f32"}),
    "pto.texpands": ("result", {"a2a3": "i16/i32/f16/bf16/f32", "a5": "i8/i16/i32/f16/bf16/f32"}),
    # tgetval: "expects dst type to match src element type", and its dst is a signless ScalarType.
    "pto.tgetval": ("operand", {"a2a3": "i8/i16/i32/i64/f16/bf16/f32", "a5": "i8/i16/i32/i64/f16/bf16/f32"}),
    "pto.textract": ("result", {"a2a3": "i8/f16/bf16/f32",
                                "a5": "i8/f16/bf16/f32/f8E4M3FN/f8E5M2/f8E8M0FNU/hf8"}),
    # tinsert between Vec tiles (TInsertOp: isA2A3VecInsertElemType; A5's isA5SupportedVecElemType,
    # any 8- or 32-bit integer and the 8-bit floats, f16, bf16, f32), src and dst of one type. It
    # is an instruction-level rule (INSTRUCTION_LEVEL below): the tile ops that emit it copy the
    # other types as bits (`vec_insert_type`).
    "pto.tinsert": ("first", {"a2a3": "i8/f16/bf16/f32", "a5": "i8/i32/f16/bf16/f32/f8E4M3FN/f8E5M2/f8E8M0FNU"}),
}

# Instructions whose element types are a rule of the PTO instruction itself (`pto.tinsert`'s
# OpDef, which TargetOpRules checks on the PTO program), not of the tile ops that emit it: a Vec
# window copy (tile.move) or window write (tile.assemble) is a pto.tinsert only between row-major
# Vec tiles (`languages.views.is_vec_insert`), and LegalizeVecLayouts copies a type the
# instruction does not take as the bits of one it takes (`vec_insert_type`), so every 8-, 16- and
# 32-bit tile is admitted at the user's line.
INSTRUCTION_LEVEL: frozenset[str] = frozenset({"pto.tinsert"})


# Instructions whose scalar operand PTOAS types as a signless `ScalarType` and also wants equal
# to the tile's element type (TExpandsOp "expects scalar type == dst element type", TRemSOp and
# TFModSOp "... to match the tile element type", TAxpyOp "... to match src element type", TGetValOp
# "expects dst type to match src element type"): no
# unsigned tile can satisfy both, so their `iN` admits INTN only.
# (pto.texpands has the same verifier, but the passes fill unsigned tiles themselves, e.g.
# scatter_update's zero base: refusing it would blame a pass. Its unsigned fills stay an open
# PTOAS rejection until LegalizeVecDtypes fills the signed twin and reinterprets the bits.)
SCALAR_TYPED_AS_ELEMENTS: frozenset[str] = frozenset({"pto.trems", "pto.tfmods", "pto.taxpy", "pto.tgetval"})


def tile_element_unreadable(dtype: DataType) -> bool:
    """No element of a tile of `dtype` can be read into a scalar (pto.tgetval, above): the
    unsigned integers. A GM element (pto.load_scalar) can."""
    return dtype.is_int and not dtype.is_signed


def _bf16_widened(*names: str) -> frozenset[str]:
    return frozenset(f"pto.t{name}" for name in names + ("abs", "sqrt", "recip"))


# The instructions LegalizeVecDtypes computes in FP32 for BF16 tiles, per target: PTOAS 0.44
# takes no BF16 there, and the FP32 form, carried to and from FP32 as `fp32_route` says, gives
# the BF16 rule's bits (the argument is in passes/legalize_vec_dtypes.py); the row / column
# broadcasts are the same single operations against a broadcast operand. The unary ones are
# those PTOAS rejects on BF16 on every target (`expects element type to be f16 or f32`). The
# backend reads it (`BackendHandler.fp32_only_vec_instructions`); a BF16 call of one of them is
# admitted.
WIDENED_TO_FP32: dict[str, frozenset[str]] = {
    "a2a3": _bf16_widened(
        "add", "adds", "sub", "subs", "mul", "muls", "div", "divs", "max", "maxs", "min", "mins", "neg", "relu",
        "lrelu", "fmod", "fmods", "partadd", "partmax", "partmin", "partmul", "rowexpandadd", "rowexpandsub",
        "rowexpandmul", "rowexpandmax", "rowexpandmin", "colmax", "colmin", "colexpandadd", "colexpandsub",
        "colexpandmul", "colexpanddiv", "colexpandmax", "colexpandmin"),
    "a5": _bf16_widened(
        "sub", "mul", "div", "divs", "max", "relu", "lrelu", "fmod", "fmods", "rowexpandadd", "rowexpandsub",
        "rowexpandmul", "rowexpanddiv", "rowexpandmax", "rowexpandmin", "colexpandadd", "colexpandsub",
        "colexpandmul", "colexpanddiv", "colexpandmax", "colexpandmin"),
}


class Fp32Route(Enum):
    """How LegalizeVecDtypes carries a widened instruction's BF16 operands to FP32 and its FP32
    result back to BF16."""

    # tcvt both ways: every result element is an arithmetic result rounded once (a NaN result
    # is quiet in the BF16 rule as well).
    CONVERTED = "converted"
    # The BF16 bits as the upper half of an FP32 word, and the upper half back: every result
    # element is an operand's value, possibly with its sign changed, or a constant BF16 holds,
    # so its bits -- a signalling NaN's included, which tcvt would quiet -- survive.
    BITS = "bits"
    # In as BITS; out rounding the FP32 bits to nearest-even as an integer: the result is
    # rounded where both operands are valid and an operand's bits where only one is.
    BITS_ROUNDED = "bits_rounded"


# The widened instructions that select values (abs / neg change the sign bit only; max / min,
# their tile-scalar, part, column-reduction and broadcast forms and relu return an operand, the
# part ops' region that neither operand covers is +0).
BF16_VALUE_SELECTING: frozenset[str] = frozenset(
    f"pto.t{name}" for name in ("abs", "neg", "relu", "max", "maxs", "min", "mins", "partmax", "partmin", "colmax",
                                "colmin", "rowexpandmax", "rowexpandmin", "colexpandmax", "colexpandmin"))
# The part ops that compute where both operands are valid and copy an operand elsewhere.
BF16_PART_ARITHMETIC: frozenset[str] = frozenset({"pto.tpartadd", "pto.tpartmul"})


def fp32_route(instruction: str) -> Fp32Route:
    """How a BF16 computation of the widened `instruction` goes through FP32."""
    if instruction in BF16_VALUE_SELECTING:
        return Fp32Route.BITS
    if instruction in BF16_PART_ARITHMETIC:
        return Fp32Route.BITS_ROUNDED
    return Fp32Route.CONVERTED


def _types(spelled: str, signed_only: bool = False) -> frozenset[DataType]:
    """`i32/i16/f16` -> the DataTypes PTOAS admits (iN: either signedness, or INTN alone when
    `signed_only`; uiN: unsigned)."""
    admitted: set[DataType] = set()
    for name in spelled.split("/"):
        if name.startswith("ui"):
            admitted.add(DataType[f"UINT{name[2:]}"])
        elif name.startswith("i"):
            admitted.add(DataType[f"INT{name[1:]}"])
            if not signed_only:
                admitted.add(DataType[f"UINT{name[1:]}"])
        else:
            admitted.add(DataType.parse(name))
    return frozenset(admitted)


def _names(dtypes: frozenset[DataType]) -> str:
    return " / ".join(sorted(d.pl_name.removeprefix("pl.") for d in dtypes))


def instruction_rules(instruction: str, first_operand: int) -> tuple[TargetRule, ...]:
    """The DtypeIn rules PTOAS's verifier of `instruction` imposes, one per target it accepts;
    `first_operand` is the call-argument index of the instruction's first compared input."""
    entry = ACCEPTED.get(instruction)
    if entry is None:
        return ()
    where, per_arch = entry
    operand = RESULT if where == "result" else first_operand
    bare = instruction.removeprefix("pto.")
    rules: list[TargetRule] = []
    for arch, spelled in sorted(per_arch.items()):
        dtypes = _types(spelled, instruction in SCALAR_TYPED_AS_ELEMENTS)
        widened = instruction in WIDENED_TO_FP32.get(arch, frozenset()) and DataType.FP32 in dtypes
        because = f"PTOAS's {bare} takes {_names(dtypes)} elements on {_ARCH_NAMES[arch]}"
        if widened:
            dtypes |= {DataType.BF16}
            because += " (BF16 runs in FP32: LegalizeVecDtypes)"
        if instruction in SCALAR_TYPED_AS_ELEMENTS:
            because += " (its scalar is a signless MLIR integer that must equal the element type, so no unsigned one)"
        fix = f"compute in one of those types (pl.cast before and after){_elsewhere(instruction, arch, dtypes)}"
        if instruction in INSTRUCTION_LEVEL:
            fix = ("copy the tiles as the bits of a type of their width it takes (the buffers re-viewed in that "
                   "type: LegalizeVecLayouts does so for the copies and window writes it is given)")
        rules.append(AssemblerDtypeIn(frozenset({arch}), because, fix, operand=operand, dtypes=dtypes))
    return tuple(rules)


def _elsewhere(instruction: str, arch: str, dtypes: frozenset[DataType]) -> str:
    """", or compile for ..." when the other target's instruction takes more types."""
    for other, spelled in ACCEPTED[instruction][1].items():
        if other != arch and _types(spelled, instruction in SCALAR_TYPED_AS_ELEMENTS) > dtypes:
            return f", or compile for {'Ascend950' if other == 'a5' else 'Ascend910B'}"
    return ""


# The same-width types a bit copy prefers: an integer where the instruction takes one, else a float
# (a copy moves bytes on the hardware and in the simulator, a NaN's bits included).
_BIT_COPY_ORDER = (DataType.INT8, DataType.INT32, DataType.FP16, DataType.BF16, DataType.FP32,
                   DataType.UINT8, DataType.UINT32)


def vec_insert_types(arch: str) -> frozenset[DataType]:
    """The element types a Vec -> Vec pto.tinsert takes on `arch` (its src and dst: one type)."""
    return _types(ACCEPTED["pto.tinsert"][1][arch])


def vec_insert_type(dtype: DataType, arch: str) -> DataType | None:
    """The element type a Vec -> Vec pto.tinsert copies `dtype` tiles as on `arch`: `dtype` itself
    when the instruction takes it, else a type of the same width it takes, whose bits the copy
    moves unchanged (INT16 / UINT16 as FP16, INT32 / UINT32 as FP32 on A2/A3, an FP8 as INT8 on
    A2/A3); None when it takes no type of that width (64-bit, sub-byte)."""
    accepted = vec_insert_types(arch)
    if dtype in accepted:
        return dtype
    return next((d for d in _BIT_COPY_ORDER if d in accepted and d.bits == dtype.bits), None)
