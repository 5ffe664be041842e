"""Parser of the `pl` text format (PyPTO's Python DSL) into a Program of any language.

The text is read with `ast` only (never executed). Nodes are built from the generated module
of the target language, so the result has that language's classes. The language is, in order:
the `language` argument, a `# nanopass.language: NAME` header comment (written by the
printer), or detection from the types in the text (a MemRef → Addressed; every tile placed →
TilePlaced; some placed → TileUnplaced; none → Tensor; a PTO view → PTO).

Every malformed input raises `CompileError` with rule "parse" and the `file:line:col` of the
offending construct; no other exception escapes.

PyPTO users reassign names (`x = pl.add(x, y)`; `acc = pl.matmul_acc(acc, a, b)` in a loop;
`y = ...` in if branches). The parser keeps the names as written: a reassignment is a second
assignment to a variable of the same name, a loop body or an if branch assigns the enclosing
function's variables, and only `init_values` / `pl.yield_` written by the user become iter args
and results. Only the DSL language admits that; the ConvertToSSA pass (passes/convert_to_ssa.py)
renames and builds the implicit loop carries and if merges, as PyPTO's parser and ConvertToSSA
split the work. User text without a language header that reassigns a name is therefore read as
DSL when its types are Tensor's; user text of a later language (a hand-written tile kernel) is
converted when parsed, by the same conversion (languages/ssa_conversion.py); text with a
language header (every printed program) must be in SSA form already.
What the parser still rejects, at the reading site naming the definition, are the values Python
would have but the structured IR cannot: a name first defined inside a loop body or in only one
branch of an if, and the loop variable after the loop.

Typing rules the text cannot spell (documented so IR builders can match them):
- a loop variable is `pl.Scalar[pl.INDEX]`; an iter-arg variable has its init value's type;
- a loop / if result has the type of its yielded value (then-branch for an if), unless the
  single-result form `x: T = pl.yield_(v)` annotates it;
- scalar operators: comparisons, `and`, `or`, `not` give BOOL; arithmetic and `-x` give the
  type of the left operand, or of the right one when the left is a bare INDEX literal
  (see `binop_type`);
- a call's type is its assignment's annotation; elsewhere (unannotated assignment, nested
  call, bare call statement) it is deduced by the op registry; a bare call statement whose op
  the registry cannot type gets `NoneType()`.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import keyword
import re
from collections import deque
from types import ModuleType
from typing import Any, Callable, Iterator, Mapping, NoReturn, Sequence, TypeAlias, TypeVar, Union, cast

from typing_extensions import override

import languages.gen.addressed as addressed_lang
import languages.gen.dsl as dsl_lang
import languages.gen.l0_tiled as l0_tiled_lang
import languages.gen.pto as pto_lang
import languages.gen.tensor as tensor_lang
import languages.gen.tile_placed as tile_placed_lang
import languages.gen.tile_unplaced as tile_unplaced_lang
from languages.decls import DSL, LANGUAGES, Addressed, PTO, Tensor, TilePlaced, TileUnplaced
from languages.functions import function_attr_problem
from languages.memory_space import MemorySpace
from languages.pl_printer import (
    FUNCTION_TYPES, CallSignature, call_signature, LOOP_ITERATORS, OPAQUE, expr_type, format_type, implicit_view_of,
)
from languages.types import (
    BLAYOUTS,
    PADS,
    SLAYOUTS,
    Attrs,
    AttrValue,
    DataType,
    Dims,
    Extent,
    MemRef,
    NoneType,
    ScalarType,
    SymbolicExtent,
    TensorType,
    TileType,
    TileView,
    TupleType,
    Type,
    ValidDims,
    ViewType,
    is_pitched_row_major,
    is_symbolic,
    packed_strides,
)
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.langdef import Language
from nanopass.node import NO_SPAN, Node, Span

AnyProgram: TypeAlias = Union[
    dsl_lang.Program,
    tensor_lang.Program,
    tile_unplaced_lang.Program,
    tile_placed_lang.Program,
    l0_tiled_lang.Program,
    addressed_lang.Program,
    pto_lang.Program,
]
ProgramT = TypeVar("ProgramT", bound=Node)

RULE = "parse"
BOOL_TYPE = ScalarType(DataType.BOOL)
INDEX_TYPE = ScalarType(DataType.INDEX)

_AST_BINOPS: dict[type[ast.operator], str] = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%", ast.Div: "/",
}
# Python operators the DSL has no scalar form of; on a Tensor / tile they name a pl.* call.
_TENSOR_ONLY_BINOPS: dict[type[ast.operator], str] = {
    ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>", ast.Pow: "**",
}
# Hints for the operators with no single pl.* call on a Tensor / tile.
_OPERATOR_ADVICE = {
    "//": "there is no floor division of tensors: divide with pl.div({a}, {b}) and round the quotient down into an "
          "integer dtype with pl.cast(..., pl.INT32, \"floor\")",
    "**": "there is no power operator on tensors: write pl.mul({a}, {a}) for a square, or pl.exp(pl.mul(pl.log({a}), "
          "{b}))",
    "+x": "drop the unary +: `{a}` is the value",
}
_AST_COMPARISONS: dict[type[ast.cmpop], str] = {
    ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
}
_AST_BOOLOPS: dict[type[ast.boolop], str] = {ast.And: "and", ast.Or: "or"}
_BOOL_RESULT_OPS = frozenset(_AST_COMPARISONS.values()) | {"and", "or", "not"}
# The pl.* call a Python operator on a Tensor / tile stands for (JIT_FRONTEND.md §4.5, Appendix B.1).
_OPERATOR_CALLS: dict[str, tuple[str, str]] = {  # operator -> (the call, its extra arguments)
    "+": ("pl.add", ""), "-": ("pl.sub", ""), "*": ("pl.mul", ""), "/": ("pl.div", ""), "@": ("pl.matmul", ""),
    "%": ("pl.fmod", ""), "-x": ("pl.neg", ""), "not": ("pl.not_", ""),
    "and": ("pl.and_", ""), "or": ("pl.or_", ""), "&": ("pl.and_", ""), "|": ("pl.or_", ""), "^": ("pl.xor", ""),
    "<<": ("pl.shl", ""), ">>": ("pl.shr", ""), "~x": ("pl.not_", ""),
    **{cmp: ("pl.cmp", f", cmp_type={code}") for code, cmp in enumerate(("==", "!=", "<", "<=", ">", ">="))},
}

# `pl.X(...)` spellings that are not operators, or that name one operator regardless of operands.
_FIXED_SUGAR = {
    "load": "tile.load", "store": "tile.store", "create_tensor": "tensor.create", "create_tile": "tile.create",
    "move": "tile.move",
}
# Unified `pl.X(lhs, rhs)` wrappers whose scalar-rhs form is another op (JIT_FRONTEND.md §4.2).
_SCALAR_RHS_OPS = {
    "add": "adds", "sub": "subs", "mul": "muls", "div": "divs", "maximum": "maximums", "minimum": "minimums",
    "and": "ands", "or": "ors", "xor": "xors", "shl": "shls", "shr": "shrs", "fmod": "fmods", "cmp": "cmps",
    "rem": "rems",
}
# The tensor path keeps one op for both rhs kinds (the conversion picks the scalar form later).
_TILE_ONLY_SCALAR_FORMS = frozenset({"maximum", "minimum", "cmp"})

# Language name → `pl.X` spellings with no tensor / tile operand to decide the namespace: in a
# Tensor-language program a value-creating `pl.full` can only mean the tensor op.
# PyPTO's top-level `pl.get_block_idx()` / `get_block_num()` / `get_subblock_idx()` are the
# tensor ops (JIT_FRONTEND.md 4.3); a kernel written at a tile level spells them as tile ops.
_SPMD_IDENTITY = ("get_block_idx", "get_block_num", "get_subblock_idx")
_OPERANDLESS_SUGAR = {
    "DSL": {name: f"tensor.{name}" for name in _SPMD_IDENTITY},
    "Tensor": {"full": "tensor.full", **{name: f"tensor.{name}" for name in _SPMD_IDENTITY}},
    **{level: {name: f"tile.{name}" for name in _SPMD_IDENTITY}
       for level in ("TileUnplaced", "TilePlaced", "L0Tiled", "Addressed")},
}
_NOT_CALLABLE = frozenset({
    "Tensor", "Tile", "Scalar", "Out", "InOut", "MemRef", "TileView", "TensorView", "Mem", "PtoView",
    "program", "function", "FunctionType",
})
_NON_FINITE = {"inf": float("inf"), "-inf": float("-inf"), "nan": float("nan"), "+inf": float("inf")}
_LANGUAGE_HEADER = re.compile(r"^#\s*nanopass\.language:\s*(\S*)\s*$")
_DTYPE_NAMES = ", ".join(dt.name for dt in DataType)
_SPACE_NAMES = ", ".join(s.name for s in MemorySpace)
_TENSOR_EXAMPLE = "pl.Tensor[[16, 32], pl.FP32]"


# --- public API ----------------------------------------------------------------------------


Constant = Union[int, float, bool]


def module_constants(module: ast.Module) -> dict[str, Constant]:
    """Module-level `NAME = <constant expression>` assignments (what the jit specializer inlines
    when the module is read without running it, e.g. by the CLI)."""
    constants: dict[str, Constant] = {}
    for stmt in module.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            value = fold_constant(stmt.value, constants)
            if value is not None:
                constants[stmt.targets[0].id] = value
            else:
                constants.pop(stmt.targets[0].id, None)
    return constants


_FOLD_BINOPS: dict[type[ast.operator], Any] = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b, ast.Div: lambda a, b: a / b,
    ast.Pow: lambda a, b: a ** b, ast.LShift: lambda a, b: a << b, ast.RShift: lambda a, b: a >> b,
}


def fold_constant(node: ast.expr, names: Mapping[str, Constant]) -> Constant | None:
    """The value of a constant int / float / bool expression over `names`, else None."""
    if isinstance(node, ast.Constant) and type(node.value) in (int, float, bool):
        return cast(Constant, node.value)
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = fold_constant(node.operand, names)
        if inner is None or isinstance(inner, bool):
            return None
        return -inner if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.BinOp) and type(node.op) in _FOLD_BINOPS:
        lhs, rhs = fold_constant(node.left, names), fold_constant(node.right, names)
        if lhs is None or rhs is None or isinstance(lhs, bool) or isinstance(rhs, bool):
            return None
        try:
            value = _FOLD_BINOPS[type(node.op)](lhs, rhs)
        except (ZeroDivisionError, OverflowError, ValueError):
            return None
        return value if type(value) in (int, float) else None
    return None


def binop_type(op: str, lhs_type: Type, rhs_type: Type, lhs_is_index_literal: bool = False) -> Type:
    """The type the parser gives a scalar BinOp (build IR with it to round-trip exactly)."""
    if op in _BOOL_RESULT_OPS:
        return BOOL_TYPE
    return rhs_type if lhs_is_index_literal else lhs_type


def language_named(name: str) -> Language:
    for lang in LANGUAGES:
        if lang.name == name:
            return lang
    raise KeyError(name)


def parse_program(text: str, filename: str = "<string>", language: Language | None = None,
                  program: str | None = None) -> AnyProgram:
    """Parse `pl` text into a Program of `language` (or of the language the text declares or
    implies); `program` names the `@pl.program` class when the file has several. Raises
    CompileError (rule "parse") on malformed input."""
    try:
        return _parse(text, filename, language, program)
    except CompileError:
        raise
    except RecursionError:
        raise _error(Span(filename, 1, 1), "the program is nested too deeply to parse") from None


def parse_program_as(text: str, program_class: type[ProgramT], filename: str = "<string>") -> ProgramT:
    """Parse into the language of `program_class` (e.g. `languages.gen.tile_placed.Program`),
    statically typed as that class."""
    program = parse_program(text, filename, language_named(program_class.LANGUAGE))
    assert isinstance(program, program_class)
    return program


def load_program(path: str, language: Language | None = None) -> AnyProgram:
    """Read and parse a `.py` file in the `pl` format."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise CompileError(Diagnostic(RULE, f"cannot read {path}: {exc}")) from None
    return parse_program(text, path, language)


# --- errors and spans ----------------------------------------------------------------------


def _error(span: Span, message: str, hint: str = "") -> CompileError:
    return CompileError(Diagnostic(RULE, message, span, hint))


def _span_of(filename: str, node: ast.AST) -> Span:
    line = getattr(node, "lineno", 1)
    col = getattr(node, "col_offset", 0) + 1
    end_line = getattr(node, "end_lineno", None) or line
    end_col = (getattr(node, "end_col_offset", None) or col - 1) + 1
    return Span(filename, line, col, end_line, end_col)


def _dotted(node: ast.expr) -> list[str] | None:
    """`pl.tile.add` → ["pl", "tile", "add"]; None if not a plain dotted name."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    parts.reverse()
    return parts


def _syntax_error(text: str, filename: str) -> ast.Module:
    try:
        return ast.parse(text, filename=filename)
    except SyntaxError as exc:
        line = exc.lineno or 1
        col = exc.offset or 1
        raise _error(Span(filename, line, col), f"invalid Python syntax: {exc.msg}") from None
    except ValueError as exc:  # e.g. NUL bytes in the source
        raise _error(Span(filename, 1, 1), f"invalid source text: {exc}") from None


# --- types ---------------------------------------------------------------------------------


class _TypeReader:
    """Reads type annotations; independent of the target language (used for detection too)."""

    def __init__(self, filename: str, constants: Mapping[str, Constant] | None = None) -> None:
        self.filename = filename
        # Module-level constants (`ROWS = 128`): PyPTO resolves them, and folds constant arithmetic
        # over them and literals (`4 * ROWS`), wherever a shape or an integer attribute is read.
        self.constants: Mapping[str, Constant] = constants or {}
        self.dynamic: frozenset[str] = frozenset()  # module-level `M = pl.dynamic("M")` names
        # In user text a written valid shape equal to the shape states no narrowing (PyPTO prints
        # and compares the two alike); IR text (with its language header) is read verbatim.
        self.user_text = True

    def fail(self, node: ast.AST, message: str, hint: str = "") -> NoReturn:
        raise _error(_span_of(self.filename, node), message, hint)

    def dtype(self, node: ast.expr) -> DataType:
        parts = _dotted(node)
        if parts is None or len(parts) != 2 or parts[0] != "pl":
            self.fail(node, f"expected a dtype like pl.FP32, got `{ast.unparse(node)}`")
        if parts[1] not in DataType.__members__:
            self.fail(node, f"unknown dtype pl.{parts[1]} (known: {_DTYPE_NAMES})")
        return DataType[parts[1]]

    def memory_space(self, node: ast.expr) -> MemorySpace:
        parts = _dotted(node)
        if parts is None or len(parts) != 3 or parts[:2] not in (["pl", "Mem"], ["pl", "MemorySpace"]):
            self.fail(node, f"expected a memory space like pl.Mem.Vec, got `{ast.unparse(node)}`")
        if parts[2] not in MemorySpace.__members__:
            self.fail(node, f"unknown memory space pl.Mem.{parts[2]} (known: {_SPACE_NAMES})")
        return MemorySpace[parts[2]]

    def int_value(self, node: ast.expr, what: str) -> int:
        if node.__class__ is ast.Constant and type(node.value) is int:
            return node.value  # a literal: no name to look up, nothing to fold
        dynamic = next((n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in self.dynamic), None)
        if dynamic is not None:
            self.fail(node, f"not supported yet: the dynamic {what} `{ast.unparse(node)}` ({dynamic} is a "
                            "pl.dynamic dimension) in a @pl.program",
                      "give the dimension a constant size; @pl.jit kernels specialize pl.dynamic dimensions per call")
        value = fold_constant(node, self.constants)
        if type(value) is not int:
            self.fail(node, f"expected an integer {what}, got `{ast.unparse(node)}`",
                      "write an integer, a module-level integer constant, or constant arithmetic over them")
        return value

    def dims(self, node: ast.expr) -> tuple[int, ...]:
        if not isinstance(node, (ast.List, ast.Tuple)):
            self.fail(node, f"expected a shape like [16, 32], got `{ast.unparse(node)}`")
        dims = tuple(self.int_value(e, "dimension") for e in node.elts)
        for element, dim in zip(node.elts, dims):
            if dim < 0:
                self.fail(element, f"a dimension must not be negative, got {dim}")
        return dims

    def valid_dims(self, node: ast.expr) -> ValidDims:
        """A valid shape: constant extents, and names of the scalar variables holding runtime
        ones (`valid_shape=[rows, 16]`; the SymbolicExtentsBound verifier checks the names)."""
        if not isinstance(node, (ast.List, ast.Tuple)):
            self.fail(node, f"expected a valid shape like [16, rows], got `{ast.unparse(node)}`")
        extents: list[Extent] = []
        for element in node.elts:
            if isinstance(element, ast.Name) and element.id not in self.constants:
                extents.append(SymbolicExtent(element.id, _span_of(self.filename, element)))
                continue
            extent = self.int_value(element, "valid extent")
            if extent < 0:
                self.fail(element, f"a valid extent must not be negative, got {extent}")
            extents.append(extent)
        return tuple(extents)

    def type(self, node: ast.expr) -> Type:
        if isinstance(node, ast.Constant) and node.value is None:
            return NoneType()
        if not isinstance(node, ast.Subscript):
            self.fail(node, f"expected a type annotation like {_TENSOR_EXAMPLE}, got `{ast.unparse(node)}`")
        head = _dotted(node.value)
        items = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        if head and head[0] == "pld":
            self.fail(node, f"not supported yet: the distributed type `{ast.unparse(node.value)}` "
                            "(PyPTO's pypto.language.distributed)", "write a single-chip kernel over pl.Tensor")
        reader = _TYPE_FORMS.get(".".join(head) if head else "")
        if reader is None:
            self.fail(node, f"expected a type annotation like {_TENSOR_EXAMPLE}, got `{ast.unparse(node)}`",
                      "types are pl.Tensor[...], pl.Tile[...], pl.Scalar[...], tuple[...] or None")
        return reader(self, node, items)

    def scalar(self, node: ast.Subscript, items: list[ast.expr]) -> Type:
        if len(items) != 1:
            self.fail(node, "expected pl.Scalar[dtype], e.g. pl.Scalar[pl.INDEX]")
        return ScalarType(self.dtype(items[0]))

    def tuple_type(self, node: ast.Subscript, items: list[ast.expr]) -> Type:
        if isinstance(node.slice, ast.Tuple) and not node.slice.elts:
            return TupleType(())
        return TupleType(tuple(self.type(item) for item in items))

    def tensor(self, node: ast.Subscript, items: list[ast.expr]) -> Type:
        if len(items) not in (2, 3):
            self.fail(node, f"expected {_TENSOR_EXAMPLE} (optionally with pl.TensorView(valid_shape=[..]))")
        shape, dtype = self.dims(items[0]), self.dtype(items[1])
        valid: ValidDims | None = None
        if len(items) == 3 and not isinstance(items[2], ast.Call):
            self.layout(items[2], "a pl.Tensor annotation")
        elif len(items) == 3:
            fields = self.constructor_kwargs(items[2], "TensorView", {"valid_shape", "stride", "layout", "pad"})
            valid = self.narrower_than(self.valid_dims(fields["valid_shape"]), shape) if "valid_shape" in fields else None
            if set(fields) - {"valid_shape"} and "layout" not in fields:
                self.fail(items[2], "pl.TensorView needs layout= as soon as another field is given",
                          "add layout=pl.TensorLayout.ND")
            if "layout" in fields:
                self.layout(fields["layout"], "pl.TensorView", view=True)
            strides: Dims | None = None
            if "stride" in fields:
                strides = self.dims(fields["stride"])
                # Pitched row-major strides are those of a window of a wider tensor, which the
                # compiler gives the windows an orchestration passes to kernels (IR text); a user's
                # annotation names no wider tensor for them.
                if self.user_text and strides != packed_strides(shape) or not is_pitched_row_major(shape, strides):
                    self.fail(fields["stride"], f"not supported yet: the strided tensor view stride={list(strides)} "
                                                f"(a GM tensor of shape {list(shape)} is row-major, "
                                                f"stride={list(packed_strides(shape))})",
                              "pass a contiguous tensor, or call the kernel on a pl.slice of a wider tensor in the "
                              "orchestration function (the kernel then addresses it at that tensor's strides)")
            if "pad" in fields and _dotted(fields["pad"]) not in (["pl", "PadValue", "null"], ["PadValue", "null"]):
                self.fail(fields["pad"], "not supported yet: a padded tensor view (pl.TensorView(pad=...))",
                          "pad on chip: pl.fillpad(tile, pad_value=...) after the load")
            return TensorType(shape, dtype, valid, strides)
        return TensorType(shape, dtype, valid)

    def layout(self, node: ast.expr, where: str, view: bool = False) -> None:
        """A GM tensor layout: ND is the (only) one this compiler's tensors have. PyPTO rejects
        the DN shorthand in an annotation (JIT_FRONTEND.md §5: derive DN with a TensorView)."""
        parts = _dotted(node)
        member = parts[-1] if parts and parts[0] == "pl" and len(parts) in (2, 3) else None
        if parts is not None and len(parts) == 3 and parts[1] != "TensorLayout":
            member = None
        if member == "ND":
            return
        if member == "DN" and not view:
            self.fail(node, "pl.Tensor[..., pl.DN] is not supported: the DN layout-only shorthand is ambiguous "
                            "about strides", "write pl.TensorView(stride=[...], layout=pl.TensorLayout.DN), "
                                             "or transpose with pl.transpose(x, -2, -1)")
        if member in ("DN", "NZ", "MX_A_ZZ", "MX_B_NN"):
            self.fail(node, f"not supported yet: the {member} tensor layout in {where} (GM tensors are "
                            "row-major (ND) here)", "pass a row-major tensor and transpose it on chip")
        self.fail(node, f"expected a tensor layout like pl.TensorLayout.ND in {where}, got `{ast.unparse(node)}`")

    def tile(self, node: ast.Subscript, items: list[ast.expr]) -> Type:
        if len(items) < 2:
            self.fail(node, "expected pl.Tile[[rows, cols], dtype, (pl.MemRef(..),) (pl.Mem.X,) (pl.TileView(..))]")
        shape, dtype = self.dims(items[0]), self.dtype(items[1])
        space: MemorySpace | None = None
        memref_node: ast.Call | None = None
        view_node: ast.expr | None = None
        for item in items[2:]:
            parts = _dotted(item.func) if isinstance(item, ast.Call) else _dotted(item)
            if isinstance(item, ast.Call) and parts == ["pl", "MemRef"] and memref_node is None:
                memref_node = item
            elif isinstance(item, ast.Call) and parts == ["pl", "TileView"] and view_node is None:
                view_node = item
            elif parts is not None and len(parts) == 3 and parts[:2] in (["pl", "Mem"], ["pl", "MemorySpace"]) \
                    and space is None:
                space = self.memory_space(item)
            else:
                self.fail(item, f"unexpected `{ast.unparse(item)}` in a tile type",
                          "after shape and dtype come at most one pl.MemRef(..), one pl.Mem.X and one pl.TileView(..)")
        valid, view = self.tile_view(view_node, space, shape) if view_node is not None else (None, None)
        valid = self.narrower_than(valid, shape)
        if view is None and space is not None:
            view = implicit_view_of(space, shape)
        memref = self.memref(memref_node, space) if memref_node is not None else None
        return TileType(shape, dtype, valid, space, view, memref)

    def narrower_than(self, valid: ValidDims | None, shape: Sequence[object]) -> ValidDims | None:
        """A valid shape, or None where user text writes the whole shape (the fully valid type)."""
        return None if self.user_text and valid is not None and tuple(valid) == tuple(shape) else valid

    def tile_view(self, node: ast.expr, space: MemorySpace | None,
                  shape: tuple[int, ...]) -> tuple[ValidDims | None, TileView | None]:
        names = {"valid_shape", "blayout", "slayout", "fractal", "pad", "compact"}
        fields = self.constructor_kwargs(node, "TileView", names)
        valid = self.valid_dims(fields.pop("valid_shape")) if "valid_shape" in fields else None
        if space is None:
            if fields:
                self.fail(node, "a TileView's layout fields need the tile's memory space (pl.Mem.X)")
            return valid, None
        changes: dict[str, object] = {}
        for name, value in fields.items():
            changes[name] = self.view_field(name, value)
        return valid, dataclasses.replace(implicit_view_of(space, shape), **changes)  # type: ignore[arg-type]

    def view_field(self, name: str, node: ast.expr) -> object:
        choices = {"blayout": BLAYOUTS, "slayout": SLAYOUTS, "pad": PADS}.get(name)
        if choices is not None:
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                word = node.value
            else:
                parts = _dotted(node)
                word = parts[-1] if parts else ""
            if word not in choices:
                self.fail(node, f"unknown {name} `{ast.unparse(node)}` (known: {', '.join(choices)})")
            return word
        if name == "compact":
            if not isinstance(node, ast.Constant) or not isinstance(node.value, bool):
                self.fail(node, "compact must be True or False")
            return node.value
        return self.int_value(node, name)

    def memref(self, node: ast.Call, space: MemorySpace | None) -> MemRef:
        fields = self.constructor_kwargs(node, "MemRef", {"space"}, positional=3)
        args = node.args
        if len(args) != 3:
            self.fail(node, 'expected pl.MemRef("name", offset, size)')
        name_node = args[0]
        if not isinstance(name_node, ast.Constant) or not isinstance(name_node.value, str):
            self.fail(name_node, 'a MemRef name must be a string, e.g. pl.MemRef("mem_vec_0", 0, 4096)')
        if "space" in fields:
            space = self.memory_space(fields["space"])
        if space is None:
            self.fail(node, "a MemRef needs the tile's memory space (add pl.Mem.X after it)")
        return MemRef(name_node.value, space, self.int_value(args[1], "offset"), self.int_value(args[2], "size"))

    def constructor_kwargs(self, node: ast.expr, name: str, allowed: set[str],
                           positional: int = 0) -> dict[str, ast.expr]:
        if not isinstance(node, ast.Call) or _dotted(node.func) != ["pl", name]:
            self.fail(node, f"expected pl.{name}(...), got `{ast.unparse(node)}`")
        if len(node.args) > positional:
            self.fail(node, f"pl.{name} takes keyword arguments ({', '.join(sorted(allowed))})")
        fields: dict[str, ast.expr] = {}
        for kw in node.keywords:
            if kw.arg is None or kw.arg not in allowed:
                self.fail(kw.value, f"pl.{name} has no field {kw.arg!r} (known: {', '.join(sorted(allowed))})")
            fields[kw.arg] = kw.value
        return fields

    def view_type(self, node: ast.Subscript, items: list[ast.expr]) -> Type:
        if len(items) != 3 or not isinstance(items[2], ast.Constant) or not isinstance(items[2].value, str):
            self.fail(node, 'expected pl.PtoView[[shape], dtype, "tensor_view"]')
        return ViewType(items[2].value, self.dims(items[0]), self.dtype(items[1]))


_TYPE_FORMS: dict[str, Callable[[_TypeReader, ast.Subscript, list[ast.expr]], Type]] = {
    "pl.Scalar": _TypeReader.scalar,
    "pl.Tensor": _TypeReader.tensor,
    "pl.Tile": _TypeReader.tile,
    "tuple": _TypeReader.tuple_type,
    "pl.PtoView": _TypeReader.view_type,
}


def _param_annotation(reader: _TypeReader, node: ast.expr) -> tuple[Type, str]:
    if isinstance(node, ast.Subscript):
        head = _dotted(node.value)
        if head in (["pl", "Out"], ["pl", "InOut"]):
            assert head is not None
            return reader.type(node.slice), head[1]
    return reader.type(node), "In"


# --- language choice -----------------------------------------------------------------------




def _all_types(ty: Type) -> list[Type]:
    if isinstance(ty, TupleType):
        return [t for inner in ty.types for t in _all_types(inner)]
    return [ty]


def detect_language(types: Sequence[Type]) -> Language:
    """The least language whose type forms the given types need (TilePlaced for placed tiles:
    L0Tiled looks the same in text)."""
    flat = [t for ty in types for t in _all_types(ty)]
    if any(isinstance(t, ViewType) for t in flat):
        return PTO
    tiles = [t for t in flat if isinstance(t, TileType)]
    if any(t.memref is not None for t in tiles):
        return Addressed
    placed = [t.memory_space is not None for t in tiles]
    # TilePlaced tiles are 2-D (FlattenTileNdTo2D runs before placement): placed N-D tiles
    # enter where they are still flattened.
    if placed and all(placed) and all(len(t.shape) == 2 for t in tiles):
        return TilePlaced
    if any(placed):
        return TileUnplaced
    return Tensor


def _annotations(program: ast.ClassDef) -> list[ast.expr]:
    """Every annotation of the class, in `ast.walk` (breadth-first) order. Annotations sit on
    statements and parameters only -- an expression holds no statement, and a lambda's
    parameters cannot be annotated -- so the walk skips expression subtrees, which are most of
    the tree; skipping whole subtrees keeps the breadth-first order of what remains."""
    found: list[ast.expr] = []
    todo: deque[ast.AST] = deque([program])
    while todo:
        node = todo.popleft()
        todo.extend(child for child in ast.iter_child_nodes(node) if not isinstance(child, ast.expr))
        if isinstance(node, ast.arg) and node.annotation is not None:
            found.append(node.annotation)
        elif isinstance(node, ast.FunctionDef) and node.returns is not None:
            found.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            found.append(node.annotation)
    return found


def _header_language(text: str, filename: str) -> Language | None:
    """The language the leading comment block names (a fuzz regression file puts its own
    `# fuzz-regression:` header of ten lines or so before the program's)."""
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip() and not line.lstrip().startswith("#"):
            break
        match = _LANGUAGE_HEADER.match(line.strip())
        if match:
            try:
                return language_named(match.group(1))
            except KeyError:
                known = ", ".join(lang.name for lang in LANGUAGES)
                raise _error(Span(filename, number, 1), f"unknown language {match.group(1)!r} (known: {known})") from None
    return None


# --- the parser ----------------------------------------------------------------------------


class _Hidden:
    """Why a name the user assigned cannot be read here (a value Python would have but the
    structured IR cannot express, e.g. a name defined only inside a loop body)."""

    def __init__(self, node: ast.AST, message: str, hint: str) -> None:
        self.node = node
        self.message = message
        self.hint = hint


class _Scope:
    def __init__(self, parent: _Scope | None = None) -> None:
        self.parent = parent
        self.names: dict[str, Node] = {}
        self.hidden: dict[str, _Hidden] = {}

    def resolve(self, name: str) -> Node | _Hidden | None:
        """The innermost binding of `name`: its current SSA value, why it is unreadable, or None."""
        scope: _Scope | None = self
        while scope is not None:
            if name in scope.hidden:
                return scope.hidden[name]
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None

    def lookup(self, name: str) -> Node | None:
        found = self.resolve(name)
        return found if isinstance(found, Node) else None

    def bind(self, name: str, var: Node) -> None:
        self.hidden.pop(name, None)
        self.names[name] = var

    def hide(self, name: str, why: _Hidden) -> None:
        self.names.pop(name, None)
        self.hidden[name] = why


class _YieldTargets:
    """The `names = pl.yield_(values)` ending a loop body or an if branch."""

    def __init__(self, node: ast.stmt, names: list[tuple[str, ast.AST]], annotation: Type | None,
                 values: tuple[Node, ...]) -> None:
        self.node = node
        self.names = names
        self.annotation = annotation
        self.values = values


class _Parser:
    def __init__(self, filename: str, language: Language, constants: Mapping[str, Constant] | None = None) -> None:
        self.filename = filename
        self.language = language
        self.m: ModuleType = importlib.import_module(language.module)
        self.constants: Mapping[str, Constant] = constants or {}
        self.types = _TypeReader(filename, self.constants)
        # User text folds literal arithmetic (`4 * 16`) as PyPTO does; IR text (the printer's,
        # marked by its language header) is read verbatim, so print -> parse is the identity.
        self.fold_literals = True
        self.signatures: dict[str, tuple[Type, ...]] = {}
        # Every variable name the function being parsed defines so far (a language other than
        # DSL is in SSA form: a second definition is an error there).
        self.used_names: set[str] = set()
        # Every user name the function being parsed assigns → its first assignment (diagnostics).
        self.assigned_in_function: dict[str, ast.Name] = {}
        self.returns: tuple[Type, ...] = ()
        # From TilePlaced on, the registry places results whose space the op fixes.
        self.placed = bool({"tile-placed", "tile-addressed"} & language.type_forms)
        # Literals written as pl.const(v, dtype): their dtype is deliberate, never adopted.
        self.explicit_consts: set[int] = set()
        # The language the program's types and statements imply, which the operand-less sugar
        # reads: a Tensor program that reassigns names is parsed as DSL but spells Tensor ops.
        self.level = language.name
        # Set when a batched parse guessed the language (a redefinition then means it guessed wrong).
        self.batched_guess = False
        # User text (no language header) of a later language may reassign names as PyPTO does;
        # `redefined` records that it did, and the program is then converted to SSA form.
        self.user_text = True
        self.redefined = False
        # Where the last function parsed ends (the class's end when methods come in batches).
        self.last_end: tuple[int | None, int | None] = (None, None)

    # helpers

    def span(self, node: ast.AST) -> Span:
        return _span_of(self.filename, node)

    def fail(self, node: ast.AST, message: str, hint: str = "") -> NoReturn:
        raise _error(self.span(node), message, hint)

    def make(self, node_kind: str, node: ast.AST | None, /, **fields: Any) -> Node:
        cls = getattr(self.m, node_kind, None)
        if cls is None:
            assert node is not None
            self.fail(node, f"language {self.language.name} has no {node_kind} nodes")
        return cast(Node, cls(**fields, span=self.span(node) if node is not None else NO_SPAN))

    # program and functions

    def program(self, cls: ast.ClassDef, bodies: Iterator[ast.FunctionDef] | None = None) -> Node:
        """The Program of `cls`; `bodies`, when given, yields each method in full (the class then
        holds their headers only: a large file is parsed a batch of methods at a time)."""
        functions = [s for s in cls.body if isinstance(s, ast.FunctionDef)]
        for stmt in cls.body:
            if not isinstance(stmt, (ast.FunctionDef, ast.Pass)) and not _is_docstring(stmt):
                self.fail(stmt, "expected a @pl.function method in the @pl.program class")
        signatures: list[tuple[str, list[tuple[ast.arg, Type, str]], tuple[Type, ...]]] = []
        for func in functions:
            if func.name in self.signatures:
                self.fail(func, f"function {func.name!r} is defined twice")
            params, returns = self.signature(func)
            self.signatures[func.name] = returns
            signatures.append((func.name, params, returns))
        built = tuple(self.function(_full(func, bodies), params, returns)
                      for func, (_, params, returns) in zip(functions, signatures))
        if bodies is not None and functions:
            cls.end_lineno, cls.end_col_offset = self.last_end
        return self.make("Program", cls, name=cls.name, functions=built)

    def function_type(self, func: ast.FunctionDef) -> tuple[str, Attrs]:
        """The function's type and attributes, from its decorator."""
        if len(func.decorator_list) != 1:
            self.fail(func, "expected exactly one decorator: @pl.function or @pl.function(type=pl.FunctionType.X)")
        deco = func.decorator_list[0]
        if _dotted(deco) == ["pl", "function"]:
            return OPAQUE, ()
        if not isinstance(deco, ast.Call) or _dotted(deco.func) != ["pl", "function"]:
            self.fail(deco, "expected @pl.function or @pl.function(type=pl.FunctionType.X)")
        if deco.args:
            self.fail(deco.args[0], "@pl.function takes keyword arguments only (type=, level=, role=, attrs=, ...)")
        keywords = {kw.arg: kw for kw in deco.keywords}
        for name, kw in keywords.items():
            if name is None:
                self.fail(kw.value, "** arguments are not supported in @pl.function(...)")
            if name not in _FUNCTION_KEYWORDS:
                self.fail(kw, f"Unknown keyword argument `{name}` of @pl.function "
                              f"(known: {', '.join(_FUNCTION_KEYWORDS)})")
        func_type = OPAQUE
        if "type" in keywords:
            value = keywords["type"].value
            parts = _dotted(value)
            if parts is None or len(parts) != 3 or parts[:2] != ["pl", "FunctionType"] or parts[2] not in FUNCTION_TYPES:
                self.fail(value, f"unknown function type `{ast.unparse(value)}` "
                                 f"(known: {', '.join('pl.FunctionType.' + f for f in FUNCTION_TYPES)})")
            func_type = parts[2]
        for name in ("level", "role"):
            if name in keywords:
                self.check_derived(func, func_type, name, keywords[name].value)
        for name in ("auto_scope", "strict_ssa"):
            if name in keywords:
                value = keywords[name].value
                if not isinstance(value, ast.Constant) or not isinstance(value.value, bool):
                    self.fail(value, f"{name}= must be True or False")
                if name == "strict_ssa" and value.value:
                    self.fail(value, "not supported yet: @pl.function(strict_ssa=True) (reassignment is always "
                                     "accepted and converted to SSA)", "drop strict_ssa=True")
        attrs = self.function_attrs(keywords["attrs"].value, func_type) if "attrs" in keywords else ()
        return func_type, attrs

    def check_derived(self, func: ast.FunctionDef, func_type: str, name: str, value: ast.expr) -> None:
        """PyPTO derives level and role from the type (Function constructor); an explicit one
        must agree, and on Opaque / Inline functions one is kept (JIT_FRONTEND.md §3.1)."""
        enum = {"level": "Level", "role": "Role"}[name]
        parts = _dotted(value)
        if parts is None or len(parts) != 3 or parts[:2] != ["pl", enum]:
            self.fail(value, f"Expected pl.{enum}.<name>, got `{ast.unparse(value)}`")
        member = _LEVEL_ALIASES.get(parts[2], parts[2]) if name == "level" else parts[2]
        derived = _DERIVED_LEVEL_ROLE.get(func_type)
        if derived is None:
            return
        implied = derived[0 if name == "level" else 1]
        if member != implied:
            self.fail(value, f"Function '{func.name}' has func_type={func_type} which implies {name}={implied}, "
                             f"but explicit {name}={member} was provided",
                      f"drop {name}=: the function type fixes it")

    def function_attrs(self, node: ast.expr, func_type: str) -> Attrs:
        """`attrs=` (deprecated in PyPTO): a dict literal of string keys and constant values, in
        the order written; a pl.SplitMode value is stored as its int and SplitMode.NONE dropped
        (JIT_FRONTEND.md section 3.1). A key PyPTO's compiler reads and this one does not
        implement is rejected by name rather than dropped (languages/functions.py)."""
        if not isinstance(node, ast.Dict):
            self.fail(node, "attrs= must be a dict literal with string keys")
        attrs: list[tuple[str, AttrValue]] = []
        for key, value_node in zip(node.keys, node.values):
            if not isinstance(key, ast.Constant) or not isinstance(key.value, str):
                self.fail(key if key is not None else node, "attrs= keys must be string literals")
            if any(name == key.value for name, _ in attrs):
                self.fail(key, f"the function attribute {key.value!r} is given twice")
            value = self.function_attr_value(key.value, value_node)
            if value is None:
                continue  # `"split": pl.SplitMode.NONE` is no attribute (PyPTO drops it)
            problem = function_attr_problem(func_type, key.value, value)
            if problem is not None:
                self.fail(key, problem, "drop it from attrs=" if problem.startswith("not supported yet")
                          else "see JIT_FRONTEND.md section 3.1 for the function attributes")
            attrs.append((key.value, value))
        return tuple(attrs)

    def function_attr_value(self, key: str, node: ast.expr) -> AttrValue:
        parts = _dotted(node)
        if parts is not None and len(parts) == 3 and parts[:2] == ["pl", "SplitMode"]:
            if parts[2] not in SPLIT_MODES:
                self.fail(node, f"unknown split mode `{ast.unparse(node)}` "
                                f"(known: {', '.join('pl.SplitMode.' + m for m in SPLIT_MODES)})")
            return SPLIT_MODES[parts[2]] or None  # None: SplitMode.NONE
        if isinstance(node, ast.Name) and node.id in self.constants:
            node = ast.copy_location(ast.Constant(self.constants[node.id]), node)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
                and isinstance(node.operand.value, (int, float)) and not isinstance(node.operand.value, bool):
            return cast(AttrValue, -node.operand.value)
        if isinstance(node, ast.Constant) and isinstance(node.value, (bool, int, float, str)):
            return cast(AttrValue, node.value)
        self.fail(node, f"the function attribute {key!r} must be a constant (a bool, number, string or "
                        f"pl.SplitMode member), got `{ast.unparse(node)}`",
                  "PyPTO rejects an attribute value that references a variable")

    def signature(self, func: ast.FunctionDef) -> tuple[list[tuple[ast.arg, Type, str]], tuple[Type, ...]]:
        args = func.args
        if args.posonlyargs or args.vararg or args.kwonlyargs or args.kwarg or args.defaults:
            self.fail(func, "a pl.function takes plain parameters only (no defaults, *args, **kwargs or keyword-only)")
        if not args.args or args.args[0].arg != "self":
            self.fail(func, f"method {func.name!r} must take `self` as its first parameter")
        params: list[tuple[ast.arg, Type, str]] = []
        for arg in args.args[1:]:
            if arg.annotation is None:
                self.fail(arg, f"parameter {arg.arg!r}: expected a type annotation like {_TENSOR_EXAMPLE}")
            ty, direction = _param_annotation(self.types, arg.annotation)
            params.append((arg, ty, direction))
        returns: tuple[Type, ...] = ()
        if func.returns is not None:
            ret = self.types.type(func.returns)
            if isinstance(ret, TupleType):
                returns = ret.types
            elif not isinstance(ret, NoneType):  # `-> None`: no results
                returns = (ret,)
        return params, returns

    def function(self, func: ast.FunctionDef, params: list[tuple[ast.arg, Type, str]],
                 returns: tuple[Type, ...], func_type: str | None = None, attrs: Attrs = ()) -> Node:
        if func_type is None:
            func_type, attrs = self.function_type(func)
        scope = _Scope()
        built_params: list[Node] = []
        self.used_names = set()
        self.returns = returns
        func.body = _rewrite_subscript_stores(func.body)
        self.assigned_in_function = _assigned_names(func.body, include_trailing_yield=True)
        for arg, ty, direction in params:
            if arg.arg in scope.names:
                self.fail(arg, f"parameter {arg.arg!r} is declared twice")
            self.used_names.add(arg.arg)
            var = self.make("Var", arg, name=arg.arg, type=ty)
            scope.bind(arg.arg, var)
            built_params.append(self.make("Param", arg, var=var, direction=direction))
        body_ast = func.body[1:] if func.body and _is_docstring(func.body[0]) else func.body
        self.last_end = (func.end_lineno, func.end_col_offset)
        body, trailing = self.block(body_ast, scope)
        if trailing is not None:
            self.fail(trailing.node, "pl.yield_ ends a loop body or an if branch, not a function body")
        if func.returns is None:
            returns = _returned_types(body)
            self.signatures[func.name] = returns
        return self.make("Function", func, name=func.name, func_type=func_type, params=tuple(built_params),
                         return_types=returns, body=body, attrs=attrs)

    # statements

    def block(self, stmts: Sequence[ast.stmt], scope: _Scope) -> tuple[tuple[Node, ...], _YieldTargets | None]:
        out: list[Node] = []
        trailing: _YieldTargets | None = None
        for stmt in stmts:
            if trailing is not None:
                self.fail(trailing.node, "pl.yield_ must be the last statement of its loop body or if branch")
            yielded = self.yield_of(stmt, scope)
            if yielded is not None:
                trailing = yielded
                out.append(self.make("YieldStmt", stmt, values=yielded.values))
                continue
            out.extend(self.stmt(stmt, scope))
        return tuple(out), trailing

    def yield_of(self, stmt: ast.stmt, scope: _Scope) -> _YieldTargets | None:
        """A `[targets =] pl.yield_(values)` statement, or None if `stmt` is something else."""
        value = stmt.value if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.Expr)) else None
        if not (isinstance(value, ast.Call) and _dotted(value.func) == ["pl", "yield_"]):
            return None
        if value.keywords:
            self.fail(value, "pl.yield_ takes positional values only")
        values = tuple(self.expr(v, scope) for v in value.args)
        names: list[tuple[str, ast.AST]] = []
        annotation: Type | None = None
        if isinstance(stmt, ast.AnnAssign):
            if not isinstance(stmt.target, ast.Name):
                self.fail(stmt.target, "expected a variable name before the annotation")
            names = [(stmt.target.id, stmt.target)]
            annotation = self.types.type(stmt.annotation)
        elif isinstance(stmt, ast.Assign):
            if len(stmt.targets) != 1:
                self.fail(stmt, "expected one assignment target list: `a, b = pl.yield_(x, y)`")
            target = stmt.targets[0]
            elements = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
            for element in elements:
                if not isinstance(element, ast.Name):
                    self.fail(element, "expected a variable name as a pl.yield_ target")
                names.append((element.id, element))
        if names and len(names) != len(values):
            self.fail(stmt, f"pl.yield_ yields {len(values)} value(s) but {len(names)} name(s) are assigned")
        return _YieldTargets(stmt, names, annotation, values)

    def stmt(self, stmt: ast.stmt, scope: _Scope) -> list[Node]:
        handler = _STMT_HANDLERS.get(type(stmt))
        if type(stmt) in _NOT_YET_STATEMENTS:
            what, hint = _NOT_YET_STATEMENTS[type(stmt)]
            self.fail(stmt, f"not supported yet: `{_first_line(stmt)}` ({what})", hint)
        if isinstance(stmt, ast.AugAssign):
            self.fail(stmt, f"unsupported statement `{_first_line(stmt)}` (PyPTO has no augmented assignment)",
                      f"write `{ast.unparse(stmt.target)} = {ast.unparse(stmt.target)} "
                      f"{_AUG_OPERATORS.get(type(stmt.op), '+')} {ast.unparse(stmt.value)}`")
        if handler is None:
            self.fail(stmt, f"unsupported statement `{_first_line(stmt)}`",
                      "statements are annotated assignments, calls, for/if with pl.yield_, and return")
        return handler(self, stmt, scope)

    def define(self, scope: _Scope, node: ast.AST, name: str, ty: Type) -> Node:
        """Bind the user's `name` in `scope` to a variable of that name (a reassignment, PyPTO
        style, defines it again: only the DSL language admits that; ConvertToSSA renames)."""
        if name in ("pl", "self"):
            self.fail(node, f"{name!r} cannot be used as a variable name")
        if name in self.used_names and self.language is not DSL:
            if self.batched_guess:
                raise _NotBatchable  # reassignment: the file is DSL, which the whole-file parse detects
            if self.user_text:
                self.redefined = True  # converted to SSA form once parsed (languages/ssa_conversion.py)
                self.used_names.add(name)
                var = self.make("Var", node, name=name, type=ty)
                scope.bind(name, var)
                return var
            self.fail(node, f"`{name}` is defined twice: the {self.language.name} language is in SSA form "
                            "(each variable is defined once); reassignment is PyPTO DSL style",
                      f"give this definition a fresh name, or drop the `# nanopass.language: {self.language.name}` "
                      "header so that the text is read as DSL")
        self.used_names.add(name)
        var = self.make("Var", node, name=name, type=ty)
        scope.bind(name, var)
        return var

    def ann_assign(self, stmt: ast.stmt, scope: _Scope) -> list[Node]:
        assert isinstance(stmt, ast.AnnAssign)
        if not isinstance(stmt.target, ast.Name):
            self.fail(stmt.target, "expected a variable name before the annotation")
        if stmt.value is None:
            self.fail(stmt, f"`{stmt.target.id}` is declared but not assigned: expected `name: T = value`")
        ty = self.types.type(stmt.annotation)
        value = self.expr(stmt.value, scope, call_type=ty)
        if _is_unplaced_tile(ty):
            ty = expr_type(value)  # the call may have completed a space-less annotation
        if isinstance(ty, TileType) and not _writes_tile_view(stmt.annotation):
            value = self.complete_view(value, ty)
            ty = expr_type(value)
        completed = expr_type(value)
        if (isinstance(ty, (TileType, TensorType)) and ty.valid_shape is None and type(completed) is type(ty)
                and isinstance(completed, (TileType, TensorType)) and completed.valid_shape is not None
                and completed.shape == ty.shape):
            ty = dataclasses.replace(ty, valid_shape=completed.valid_shape)  # the call completed it
        target = self.define(scope, stmt.target, stmt.target.id, ty)
        return [self.make("AssignStmt", stmt, target=target, value=value)]

    def assign(self, stmt: ast.stmt, scope: _Scope) -> list[Node]:
        assert isinstance(stmt, ast.Assign)
        if len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple):
            return self.unpack_assign(stmt, stmt.targets[0], scope)
        if len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name):
            self.fail(stmt, "expected `name: T = value` (only pl.yield_ assigns several names)")
        name = stmt.targets[0].id
        value = self.expr(stmt.value, scope)
        ty = expr_type(value)
        target = self.define(scope, stmt.targets[0], name, ty)
        return [self.make("AssignStmt", stmt, target=target, value=value)]

    def unpack_assign(self, stmt: ast.Assign, target: ast.Tuple, scope: _Scope) -> list[Node]:
        """`a, b = f(...)` is sugar for a tuple-typed temporary and one TupleGetItem per name
        (the IR has single-target assignments only)."""
        names: list[ast.Name] = []
        for element in target.elts:
            if not isinstance(element, ast.Name):
                self.fail(element, "expected plain names on the left of a tuple assignment")
            names.append(element)
        value = self.expr(stmt.value, scope)
        ty = expr_type(value)
        if not isinstance(ty, TupleType):
            self.fail(stmt.value, f"`{ast.unparse(stmt.value)}` is not a tuple; it cannot be unpacked into "
                                  f"{len(names)} names")
        if len(ty.types) != len(names):
            self.fail(target, f"`{ast.unparse(stmt.value)}` returns {len(ty.types)} value(s) but "
                              f"{len(names)} name(s) are assigned")
        base = "_".join(n.id for n in names) + "_tuple"
        temp_name, suffix = base, 0
        while scope.lookup(temp_name) is not None:
            suffix += 1
            temp_name = f"{base}_{suffix}"
        temp = self.define(scope, target, temp_name, ty)
        out = [self.make("AssignStmt", stmt, target=temp, value=value)]
        for index, name in enumerate(names):
            item = self.make("TupleGetItem", name, value=temp, index=index, type=ty.types[index])
            var = self.define(scope, name, name.id, ty.types[index])
            out.append(self.make("AssignStmt", stmt, target=var, value=item))
        return out

    def eval_stmt(self, stmt: ast.stmt, scope: _Scope) -> list[Node]:
        assert isinstance(stmt, ast.Expr)
        if not isinstance(stmt.value, ast.Call):
            self.fail(stmt, "a bare expression statement must be a call, e.g. pl.tile.store(t, [0, 0], out)")
        value = self.expr(stmt.value, scope, statement_call=True)
        updated = self.updated_in_place(value) if self.user_text else None
        if updated is not None:
            # `pl.tile.write(t, [0, 0], v)` updates `t` itself (PyPTO's tiles are buffers): the IR
            # is in SSA form, so the name is rebound to the op's result, which *is* that buffer
            # (ReusesInput), and the code after it reads the updated tile rather than the old value.
            target = self.define(scope, stmt.value, updated, expr_type(value))
            return [self.make("AssignStmt", stmt, target=target, value=value)]
        return [self.make("EvalStmt", stmt, value=value)]

    def updated_in_place(self, value: Node) -> str | None:
        """The tile variable a statement call writes in place (its result reuses that operand's
        buffer and the operand's effect writes), or None."""
        if value.KIND != "Call":
            return None
        ops = importlib.import_module("languages.ops")
        op = str(getattr(value, "op"))
        if op not in ops.REGISTRY:
            return None
        opdef = ops.REGISTRY.get(op)
        reused = opdef.output_memory
        args = getattr(value, "args")
        if not isinstance(reused, ops.ReusesInput) or reused.index >= len(args):
            return None
        operand = args[reused.index]
        writes = opdef.effect_of(reused.index, getattr(value, "attrs")) & ops.WRITE
        if not writes or operand.KIND != "Var" or not isinstance(expr_type(operand), TileType):
            return None
        return str(getattr(operand, "name"))

    def return_stmt(self, stmt: ast.stmt, scope: _Scope) -> list[Node]:
        assert isinstance(stmt, ast.Return)
        if stmt.value is None:
            values: tuple[Node, ...] = ()
        elif isinstance(stmt.value, ast.Tuple):
            values = tuple(self.expr(v, scope) for v in stmt.value.elts)
        else:
            values = (self.expr(stmt.value, scope),)
        unpacked, values = self.unpack_returned_tuple(stmt, values, scope)
        self.check_returned_tensors(stmt, values)
        bindings, values = self.bind_returned_calls(stmt, values)
        return [*unpacked, *bindings, self.make("ReturnStmt", stmt, values=values)]

    def unpack_returned_tuple(self, stmt: ast.Return, values: tuple[Node, ...],
                              scope: _Scope) -> tuple[list[Node], tuple[Node, ...]]:
        """`return self.kernel(...)` where the kernel returns several tensors: the function
        returns each of them (a temporary and one TupleGetItem per value, as `a, b = f(...)`
        is read)."""
        ty = expr_type(values[0]) if len(values) == 1 else None
        if not isinstance(ty, TupleType) or len(ty.types) < 2:
            return [], values
        temp = self.define(scope, stmt, self.fresh_name("ret_tuple"), ty)
        out = [self.make("AssignStmt", stmt, target=temp, value=values[0])]
        items: list[Node] = []
        for index, item_type in enumerate(ty.types):
            item = self.define(scope, stmt, self.fresh_name(f"ret{index}"), item_type)
            out.append(self.make("AssignStmt", stmt, target=item,
                                 value=self.make("TupleGetItem", stmt, value=temp, index=index, type=item_type)))
            items.append(item)
        return out, tuple(items)

    def bind_returned_calls(self, stmt: ast.Return, values: tuple[Node, ...]) -> tuple[list[Node], tuple[Node, ...]]:
        """`return pl.store(t, [0, 0], out)` in a kernel written at a tile level: the languages
        from TileUnplaced on hold calls only as whole statements (NormalizedStmtStructure, which
        NormalizeStmtStructure establishes in Tensor, before these languages begin), so the
        returned call is bound to a fresh name first, as that pass would bind it."""
        if self.language in (DSL, Tensor):
            return [], values
        bindings: list[Node] = []
        bound: list[Node] = []
        for value in values:
            if getattr(value, "KIND", "") not in ("Call", "FuncCall"):
                bound.append(value)
                continue
            name = self.fresh_name("ret")
            self.used_names.add(name)
            var = self.make("Var", stmt, name=name, type=expr_type(value))
            bindings.append(self.make("AssignStmt", stmt, target=var, value=value))
            bound.append(var)
        return bindings, tuple(bound)

    def fresh_name(self, stem: str) -> str:
        """A variable name the function does not use yet: `stem`, `stem_1`, ..."""
        name, index = stem, 0
        while name in self.used_names or name in self.assigned_in_function:
            index += 1
            name = f"{stem}_{index}"
        return name

    def check_returned_tensors(self, stmt: ast.Return, values: tuple[Node, ...]) -> None:
        """A returned tensor must have the declared shape and dtype (the kernel's result buffer
        is allocated from the declaration, so a mismatch cannot be stored into it)."""
        if len(values) != len(self.returns):
            return  # the count is the TypeChecked / codegen business; the text format admits any
        for index, (value, declared) in enumerate(zip(values, self.returns)):
            if getattr(value, "KIND", "") == "Var":
                # A variable's type is its definition's annotation: TypeChecked reports a wrong
                # annotation at the annotation, and a wrong return there only when it is not that.
                continue
            actual = expr_type(value)
            if isinstance(actual, TensorType) and isinstance(declared, TensorType) and \
                    (actual.shape, actual.dtype) != (declared.shape, declared.dtype):
                self.fail(stmt, f"return value {index} is a {actual.dtype.pl_name} tensor of shape "
                                f"{list(actual.shape)}, but the function is declared to return a "
                                f"{declared.dtype.pl_name} tensor of shape {list(declared.shape)}",
                          "fix the return annotation, or cast / reshape the value before returning it")

    def pass_stmt(self, stmt: ast.stmt, scope: _Scope) -> list[Node]:
        return []

    def for_stmt(self, stmt: ast.stmt, scope: _Scope) -> list[Node]:
        assert isinstance(stmt, ast.For)
        if stmt.orelse:
            self.fail(stmt.orelse[0], "a for loop cannot have an else branch")
        call = stmt.iter
        parts = _dotted(call.func) if isinstance(call, ast.Call) else None
        if isinstance(call, ast.Call) and parts == ["pl", "while_"]:
            return self.while_iterator(stmt, call, scope)
        if isinstance(call, ast.Call) and parts == ["pl", "spmd"]:
            return self.spmd_loop(stmt, call, scope)
        if not isinstance(call, ast.Call) or parts is None or len(parts) != 2 or parts[0] != "pl" \
                or parts[1] not in LOOP_ITERATORS.values():
            if parts is not None and len(parts) == 2 and parts[0] == "pl" and parts[1] in _UNSUPPORTED_ITERATORS:
                self.fail(stmt.iter, f"not supported yet: `for ... in pl.{parts[1]}(...)` "
                                     f"({_UNSUPPORTED_ITERATORS[parts[1]]})",
                          _UNSUPPORTED_ITERATOR_HINTS.get(parts[1], "write the kernel in a pl.at(level=pl.Level."
                                                                    "CORE_GROUP) scope; mixed kernels are split "
                                                                    "automatically"))
            self.fail(stmt.iter, "For loop must use pl.range(), pl.parallel(), pl.unroll() or pl.pipeline()",
                      "a Python `range` or iterator is not unrolled: write pl.range(n), or pl.unroll(n) to unroll")
        kind = next(k for k, v in LOOP_ITERATORS.items() if v == parts[1])
        if not 1 <= len(call.args) <= 3:
            self.fail(call, f"pl.{parts[1]} takes 1 to 3 positional arguments (start, stop, step)")
        bounds = [self.expr(a, scope) for a in call.args]
        if kind == "unroll":
            self.check_unroll(call, bounds)
        if len(bounds) == 1:
            bounds.insert(0, self.make("ConstInt", None, value=0, dtype=DataType.INDEX))
        if len(bounds) == 2:
            bounds.append(self.make("ConstInt", None, value=1, dtype=DataType.INDEX))
        if self.user_text and len(call.args) == 3 and bounds[2].KIND == "ConstInt":
            self.check_step(call, int(getattr(bounds[2], "value")), parts[1])
        inits: list[Node] = []
        attrs: list[tuple[str, AttrValue]] = []
        for kw in call.keywords:
            if kw.arg is None:
                self.fail(kw.value, "** arguments are not supported")
            if kw.arg == "init_values":
                if not isinstance(kw.value, (ast.Tuple, ast.List)):
                    self.fail(kw.value, "init_values must be a tuple, e.g. init_values=(c0,)")
                inits = [self.expr(v, scope) for v in kw.value.elts]
            else:
                attrs.append((kw.arg, self.attr_value(kw.arg, kw.value, scope)))
        loop_name, carried = self.for_target(stmt.target, len(inits))
        body_scope = _Scope(scope)
        loop_var = self.define(body_scope, loop_name, loop_name.id, INDEX_TYPE)
        iter_args: list[Node] = []
        for name_node, init in zip(carried, inits):
            var = self.define(body_scope, name_node, name_node.id, expr_type(init))
            iter_args.append(self.make("IterArg", name_node, var=var, init=init))
        body, trailing = self.block(stmt.body, body_scope)
        if inits and (trailing is None or not trailing.names):
            self.fail(stmt, "a loop with init_values must end with `name = pl.yield_(value)` naming its results")
        if trailing is not None and self.user_text:  # (an IR dump is the verifiers' to check)
            self.check_carried_yield(trailing, carried, iter_args)
        results = self.results(trailing, scope)
        self.hide_loop_locals(stmt, scope, loop_name)
        return [self.make("ForStmt", stmt, loop_var=loop_var, start=bounds[0], stop=bounds[1], step=bounds[2],
                          iter_args=tuple(iter_args), body=body, results=results, kind=kind, attrs=tuple(attrs))]

    def check_step(self, call: ast.Call, step: int, iterator: str) -> None:
        """A loop steps forward: Python's range refuses step 0, and PTO's scf.for takes a positive
        step only (the compiled loop could not count down)."""
        if step == 0:
            self.fail(call.args[2], f"pl.{iterator} step must not be zero")
        if step < 0:
            start, stop = (ast.unparse(a) for a in call.args[:2])
            self.fail(call.args[2], f"not supported yet: pl.{iterator} with a negative step ({step}): PTO's scf.for "
                                    "counts up only",
                      f"count up and derive the index: `for k in pl.{iterator}(0, ({start}) - ({stop}), {-step}):` "
                      f"with `i = {start} - k`")

    def spmd_loop(self, stmt: ast.For, call: ast.Call, scope: _Scope) -> list[Node]:
        """`for i in pl.spmd(n):` is `with pl.spmd(n):` around a CORE_GROUP scope whose body
        starts with `i = pl.tile.get_block_idx()` (JIT_FRONTEND.md section 2.4, form 2)."""
        if stmt.orelse:
            self.fail(stmt.orelse[0], "a for loop cannot have an else branch")
        if not isinstance(stmt.target, ast.Name):
            self.fail(stmt.target, "expected `for i in pl.spmd(n):` with one name for the block index")
        scope_kind, name_hint, attrs = self.spmd_scope(call)
        if not hasattr(self.m, "ScopeStmt"):
            self.fail(stmt, f"`for ... in pl.spmd(...)` is a scope of the DSL language, and this program is parsed as "
                            f"{self.language.name}", "drop the `# nanopass.language:` header")
        block_idx = self.make("Call", stmt.target, op="tile.get_block_idx", args=(), attrs=(), type=INDEX_TYPE)
        index = self.define(scope, stmt.target, stmt.target.id, INDEX_TYPE)
        body, trailing = self.block(stmt.body, scope)
        if trailing is not None:
            self.fail(trailing.node, "pl.yield_ ends a loop body or an if branch, not a pl.spmd body")
        kernel = self.make("ScopeStmt", stmt, scope_kind="incore", name_hint=name_hint, attrs=(),
                           body=(self.make("AssignStmt", stmt.target, target=index, value=block_idx), *body))
        return [self.make("ScopeStmt", stmt, scope_kind=scope_kind, name_hint=name_hint, attrs=attrs, body=(kernel,))]

    def while_stmt(self, stmt: ast.stmt, scope: _Scope) -> list[Node]:
        """`while <bool scalar expr>:` (the natural form): a WhileStmt without iter args; the
        names its body reassigns are carried by ConvertToSSA (JIT_FRONTEND.md section 6)."""
        assert isinstance(stmt, ast.While)
        if stmt.orelse:
            self.fail(stmt.orelse[0], "a while loop cannot have an else branch")
        cond = self.while_condition(stmt.test, scope)
        body_scope = _Scope(scope)
        body, trailing = self.block(stmt.body, body_scope)
        if trailing is not None:
            self.fail(trailing.node, "pl.yield_ ends a pl.while_ loop body; a `while` loop carries the names its body "
                                     "reassigns by itself", "drop the pl.yield_, or write "
                                     "`for (x,) in pl.while_(init_values=(x0,)):` with pl.cond(...) first")
        self.hide_body_locals(stmt, scope)
        return [self.make("WhileStmt", stmt, cond=cond, iter_args=(), body=body, results=())]

    def while_iterator(self, stmt: ast.For, call: ast.Call, scope: _Scope) -> list[Node]:
        """`for (a, b) in pl.while_(init_values=(a0, b0)):` whose first statement is
        `pl.cond(<bool expr>)`, lifted onto the WhileStmt, and whose last names the results."""
        if call.args:
            self.fail(call.args[0], "pl.while_() takes no positional arguments: its condition is the body's first "
                                    "statement, pl.cond(...)")
        inits_node: ast.expr | None = None
        for kw in call.keywords:
            if kw.arg != "init_values":
                self.fail(kw, f"Unknown keyword argument `{kw.arg}` of pl.while_()")
            inits_node = kw.value
        if inits_node is None:
            self.fail(call, "while_() requires init_values to be specified",
                      "write pl.while_(init_values=(x0,)), or a plain `while cond:` loop")
        if not isinstance(inits_node, (ast.Tuple, ast.List)) or not inits_node.elts:
            self.fail(inits_node, "init_values must be a non-empty tuple, e.g. init_values=(c0,)")
        inits = [self.expr(v, scope) for v in inits_node.elts]
        target = stmt.target
        elements = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
        if len(elements) != len(inits) or not all(isinstance(e, ast.Name) for e in elements):
            self.fail(target, f"the loop carries {len(inits)} value(s): expected `for ({', '.join(['x'] * len(inits))},) "
                              "in pl.while_(...)` with one name per initial value")
        first = stmt.body[0] if stmt.body else None
        cond_call = first.value if isinstance(first, ast.Expr) else None
        if not (isinstance(cond_call, ast.Call) and _dotted(cond_call.func) == ["pl", "cond"]):
            self.fail(first if first is not None else stmt, "the first statement of a pl.while_ body must be "
                                                            "pl.cond(<bool expression>)")
        if len(cond_call.args) != 1 or cond_call.keywords:
            self.fail(cond_call, "pl.cond takes one bool expression")
        body_scope = _Scope(scope)
        iter_args: list[Node] = []
        for name_node, init in zip(cast(list[ast.Name], elements), inits):
            var = self.define(body_scope, name_node, name_node.id, expr_type(init))
            iter_args.append(self.make("IterArg", name_node, var=var, init=init))
        cond = self.while_condition(cond_call.args[0], body_scope)
        body, trailing = self.block(stmt.body[1:], body_scope)
        if trailing is None or not trailing.names:
            self.fail(stmt, "a pl.while_ loop must end with `name = pl.yield_(value)` naming its results")
        if len(trailing.values) != len(inits):
            self.fail(trailing.node, f"pl.while_ carries {len(inits)} value(s) but the body yields "
                                     f"{len(trailing.values)}")
        results = self.results(trailing, scope)
        self.hide_body_locals(stmt, scope)
        return [self.make("WhileStmt", stmt, cond=cond, iter_args=tuple(iter_args), body=body, results=results)]

    def while_condition(self, node: ast.expr, scope: _Scope) -> Node:
        cond = self.expr(node, scope)
        if expr_type(cond) != BOOL_TYPE:
            self.fail(node, f"while condition must be a Bool-typed scalar expression, got "
                            f"{format_type(expr_type(cond))}", "compare explicitly, e.g. `while n != 0:`")
        return cond

    def hide_body_locals(self, loop: ast.For | ast.While, scope: _Scope) -> None:
        """A name first defined inside a loop body has no value after a loop that runs zero times."""
        for name, node in _assigned_names(loop.body).items():
            if scope.resolve(name) is None:
                scope.hide(name, _Hidden(
                    node, f"`{name}` is defined only inside the loop at line {loop.lineno}, so it has no value "
                          "after the loop (the loop may run zero times)",
                    f"define `{name}` before the loop, so that the loop carries it"))

    def check_unroll(self, call: ast.Call, bounds: list[Node]) -> None:
        """pl.unroll needs constant integer bounds and no init_values (JIT_FRONTEND.md §6)."""
        for arg, bound in zip(call.args, bounds):
            if bound.KIND != "ConstInt":
                self.fail(arg, "pl.unroll() requires compile-time constant integer bounds",
                          "use pl.range for a loop whose bounds are only known at run time")
        if len(bounds) == 3 and cast(tensor_lang.ConstInt, bounds[2]).value == 0:
            self.fail(call.args[2], "pl.unroll() step must not be 0")
        for kw in call.keywords:
            if kw.arg == "init_values":
                self.fail(kw.value, "pl.unroll() cannot be combined with init_values",
                          "reassign the carried names in the body; each unrolled copy reads the previous one's")
            self.fail(kw, f"Unknown keyword argument `{kw.arg}` of pl.unroll()")

    def hide_loop_locals(self, loop: ast.For, scope: _Scope, loop_name: ast.Name) -> None:
        """A name first defined inside the loop body has no value after a loop that runs zero
        times, and the loop variable is not visible after the loop: reading either is an error
        that says why (rather than "unknown name", or silently reading an outer value)."""
        self.hide_body_locals(loop, scope)
        if loop_name.id in _trailing_yield_names(loop.body):
            return
        scope.hide(loop_name.id, _Hidden(
            loop_name, f"`{loop_name.id}` is the variable of the loop at line {loop.lineno} and is visible only "
                       "inside its body",
            "carry the value you need out of the loop with a reassigned name or pl.yield_"))

    def for_target(self, target: ast.expr, carried_count: int) -> tuple[ast.Name, list[ast.Name]]:
        if isinstance(target, ast.Name):
            if carried_count:
                self.fail(target, f"the loop carries {carried_count} value(s): expected `for i, (c,) in ...`")
            return target, []
        if not (isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[0], ast.Name)
                and isinstance(target.elts[1], (ast.Tuple, ast.List))):
            self.fail(target, "expected `for i in ...` or `for i, (c_iter,) in ...`")
        carried: list[ast.Name] = []
        for element in target.elts[1].elts:
            if not isinstance(element, ast.Name):
                self.fail(element, "expected a variable name for a loop-carried value")
            if element.id == target.elts[0].id or element.id in (c.id for c in carried):
                self.fail(element, f"`{element.id}` names two of the loop's variables (the loop index and the "
                                   "carried values each need a name of their own)")
            carried.append(element)
        if len(carried) != carried_count:
            self.fail(target, f"init_values has {carried_count} value(s) but the loop names {len(carried)} "
                              "carried variable(s)")
        return target.elts[0], carried

    def check_carried_yield(self, trailing: _YieldTargets, carried: Sequence[ast.Name],
                            iter_args: Sequence[Node]) -> None:
        """A loop body's pl.yield_ gives the next value of each carried variable: as many values
        as the loop carries, each of the carried variable's shape and dtype (the interpreter and
        the compiled loop would otherwise disagree on what the loop carries)."""
        if len(trailing.values) != len(carried):
            names = ", ".join(f"`{c.id}`" for c in carried) or "nothing"
            self.fail(trailing.node, f"pl.yield_ yields {len(trailing.values)} value(s) but the loop carries "
                                     f"{len(carried)} ({names})",
                      "yield one value per name in `for i, (...) in pl.range(..., init_values=(...))`")
        for index, (name, arg, value) in enumerate(zip(carried, iter_args, trailing.values)):
            want, got = expr_type(getattr(arg, "var")), expr_type(value)
            if not isinstance(want, (TensorType, TileType)) or not isinstance(got, (TensorType, TileType)):
                continue
            if want.dtype == got.dtype and _same_static_shape(want.shape, got.shape):
                continue
            self.fail(trailing.node, f"pl.yield_ value {index} is {format_type(got)}, but the loop carries "
                                     f"`{name.id}` as {format_type(want)} (its init_values entry)",
                      "yield a value of the carried shape and dtype, or seed the carry with one")

    def check_branch_yields(self, then_yield: _YieldTargets, else_yield: _YieldTargets) -> None:
        """The two branches of an if give each result one shape and dtype (the if's result
        would otherwise take the then-branch's type, and the mismatch surface far from here)."""
        for (name, _), a, b in zip(then_yield.names, then_yield.values, else_yield.values):
            ta, tb = expr_type(a), expr_type(b)
            if not isinstance(ta, (TensorType, TileType)) or not isinstance(tb, (TensorType, TileType)):
                continue
            if ta.dtype == tb.dtype and _same_static_shape(ta.shape, tb.shape):
                continue
            self.fail(else_yield.node, f"the branches of the if yield `{name}` as {format_type(ta)} (then-branch, "
                                       f"line {then_yield.node.lineno}) and {format_type(tb)} (else-branch)",
                      "yield one shape and dtype from both branches")

    def results(self, trailing: _YieldTargets | None, scope: _Scope) -> tuple[Node, ...]:
        if trailing is None:
            return ()
        out: list[Node] = []
        for (name, node), value in zip(trailing.names, trailing.values):
            ty = trailing.annotation if trailing.annotation is not None else expr_type(value)
            out.append(self.define(scope, node, name, ty))
        return tuple(out)

    def if_stmt(self, stmt: ast.stmt, scope: _Scope) -> list[Node]:
        assert isinstance(stmt, ast.If)
        cond = self.expr(stmt.test, scope)
        then_scope, else_scope = _Scope(scope), _Scope(scope)
        then_body, then_yield = self.block(stmt.body, then_scope)
        else_body, else_yield = self.block(stmt.orelse, else_scope)
        then_names = [n for n, _ in then_yield.names] if then_yield else []
        else_names = [n for n, _ in else_yield.names] if else_yield else []
        if then_names != else_names:
            where = else_yield.node if else_yield is not None else stmt
            self.fail(where, f"both branches of an if must yield the same names: then yields "
                             f"{then_names or 'nothing'}, else yields {else_names or 'nothing'}",
                      "end both branches with `x = pl.yield_(value)`")
        if then_yield is not None and else_yield is not None and self.user_text:
            self.check_branch_yields(then_yield, else_yield)
        self.merge_branches(stmt, scope, then_scope, else_scope, set(then_names))
        results = self.results(then_yield, scope)
        return [self.make("IfStmt", stmt, cond=cond, then_body=then_body, else_body=else_body, results=results)]

    def merge_branches(self, stmt: ast.If, scope: _Scope, then_scope: _Scope, else_scope: _Scope,
                       explicit: set[str]) -> None:
        """After the if, a name a branch assigns reads the branch's value (ConvertToSSA merges
        the two into an if result); one that only one branch defines has no value there."""
        then_assigned, else_assigned = _assigned_names(stmt.body), _assigned_names(stmt.orelse)
        for name, node in {**else_assigned, **then_assigned}.items():
            if name in explicit:
                continue
            then_value, else_value = then_scope.resolve(name), else_scope.resolve(name)
            if not isinstance(then_value, Node) or not isinstance(else_value, Node):
                scope.hide(name, self.not_merged(stmt, name, node, isinstance(then_value, Node),
                                                 isinstance(else_value, Node)))
            elif then_value is not else_value:
                scope.bind(name, then_value if then_value is not scope.lookup(name) else else_value)

    def not_merged(self, stmt: ast.If, name: str, node: ast.Name, then_defines: bool, else_defines: bool) -> _Hidden:
        hint = f"define `{name}` before the if, or in both branches"
        if then_defines == else_defines:  # neither: each branch defines it only in a nested block
            return _Hidden(node, f"`{name}` has no value after the if at line {stmt.lineno}", hint)
        branch, other = ("then", "else") if then_defines else ("else", "then")
        return _Hidden(node, f"`{name}` is defined only in the {branch}-branch of the if at line {stmt.lineno}, "
                             f"so it has no value after the if when the {other}-branch runs", hint)

    # scopes

    def with_stmt(self, stmt: ast.stmt, scope: _Scope) -> list[Node]:
        """`with pl.at(level=...)`, `pl.cluster()`, `pl.manual_scope()` / `pl.scope(...)`: a
        ScopeStmt of the DSL language whose body is parsed in the enclosing scope (its names
        stay visible after it, as in PyPTO)."""
        assert isinstance(stmt, ast.With)
        if len(stmt.items) != 1:
            self.fail(stmt, "a with statement opens one scope: write one `with pl.at(...):` per scope")
        item = stmt.items[0]
        call = item.context_expr
        parts = _dotted(call.func) if isinstance(call, ast.Call) else None
        reader = _SCOPE_READERS.get(".".join(parts) if parts else "")
        if not isinstance(call, ast.Call) or reader is None:
            self.fail(call, f"unsupported with statement `with {ast.unparse(call)}:`",
                      "scopes are pl.at(level=pl.Level.X), pl.cluster(), pl.manual_scope() and pl.scope(mode=...)")
        if item.optional_vars is not None:
            self.fail(item.optional_vars, f"not supported yet: `with {ast.unparse(call)} as "
                                          f"{ast.unparse(item.optional_vars)}` (scope task ids and pl.submit)",
                      "drop `as ...`; scopes run in program order here")
        scope_kind, name_hint, attrs = reader(self, call)
        if not hasattr(self.m, "ScopeStmt"):
            self.fail(stmt, f"`with {ast.unparse(call)}:` is a scope of the DSL language, and this program is "
                            f"parsed as {self.language.name}", "drop the `# nanopass.language:` header, or outline the scope")
        body, trailing = self.block(stmt.body, scope)
        if trailing is not None:
            self.fail(trailing.node, "pl.yield_ ends a loop body or an if branch, not a scope body")
        return [self.make("ScopeStmt", stmt, scope_kind=scope_kind, name_hint=name_hint, attrs=attrs, body=body)]

    def scope_keywords(self, call: ast.Call, allowed: dict[str, str]) -> dict[str, ast.expr]:
        """The keywords of a scope call, each checked against `allowed` (name -> what it
        takes, for the error); positional arguments bind in `allowed`'s order."""
        names = list(allowed)
        given: dict[str, ast.expr] = {}
        for index, arg in enumerate(call.args):
            if index >= len(names) or isinstance(arg, ast.Starred):
                self.fail(arg, f"`{_dotted_text(call.func)}` takes at most {len(names)} positional argument(s)")
            given[names[index]] = arg
        for kw in call.keywords:
            if kw.arg is None:
                self.fail(kw.value, "** arguments are not supported")
            if kw.arg not in allowed:
                self.fail(kw.value, f"Unknown keyword argument {kw.arg!r} of `{_dotted_text(call.func)}`",
                          "keywords: " + ", ".join(f"{k} ({v})" for k, v in allowed.items()))
            if kw.arg in given:
                self.fail(kw.value, f"argument {kw.arg!r} is given twice")
            given[kw.arg] = kw.value
        return given

    def enum_member(self, node: ast.expr, enum_names: tuple[str, ...], members: Sequence[str]) -> str:
        """A literal `pl.Enum.MEMBER` (or `Enum.MEMBER`) chain: PyPTO reads these at parse time."""
        parts = _dotted(node)
        if parts and parts[0] == "pl":
            parts = parts[1:]
        if parts is None or len(parts) != 2 or parts[0] not in enum_names or parts[1] not in members:
            self.fail(node, f"Expected pl.{enum_names[0]}.<name>, got `{ast.unparse(node)}`",
                      f"write the member literally, one of: {', '.join(members)}")
        return parts[1]

    def name_hint(self, node: ast.expr | None) -> str:
        if node is None:
            return ""
        if not isinstance(node, ast.Constant) or not isinstance(node.value, str):
            self.fail(node, "name_hint must be a string literal")
        if node.value and not node.value.isidentifier():
            self.fail(node, f"name_hint {node.value!r} is not a valid identifier")
        return node.value

    def bool_literal(self, node: ast.expr, what: str) -> bool:
        if not isinstance(node, ast.Constant) or not isinstance(node.value, bool):
            self.fail(node, f"{what} must be True or False (a literal)")
        return node.value

    def at_scope(self, call: ast.Call) -> tuple[str, str, Attrs]:
        given = self.scope_keywords(call, _AT_KEYWORDS)
        if "level" not in given:
            self.fail(call, "pl.at() needs a level, e.g. pl.at(level=pl.Level.CORE_GROUP)")
        level = LEVEL_ALIASES.get(self.enum_member(given["level"], ("Level",), tuple(LEVEL_ALIASES)), "")
        attrs: list[tuple[str, AttrValue]] = []
        for unsupported in ("deps", "no_dep_args", "dumps"):
            if unsupported in given:
                self.fail(given[unsupported], f"not supported yet: pl.at({unsupported}=...) (task dependencies "
                                              "and selective dumps)", "drop it; scopes run in program order here")
        if "allow_early_resolve" in given and self.bool_literal(given["allow_early_resolve"], "allow_early_resolve"):
            self.fail(given["allow_early_resolve"], "not supported yet: pl.at(allow_early_resolve=True)")
        if "role" in given and not (isinstance(given["role"], ast.Constant) and given["role"].value is None):
            role = self.enum_member(given["role"], ("Role",), ("Orchestrator", "SubWorker"))
            if level == "CORE_GROUP":
                self.fail(given["role"], "pl.at(level=pl.Level.CORE_GROUP) takes no role=",
                          "a role belongs to a hierarchy level (CHIP_DIE and above)")
            attrs.append(("role", role))
        if "optimizations" in given:
            attrs.extend(self.optimizations(given["optimizations"], level))
        if "windowize" in given:
            if self.bool_literal(given["windowize"], "windowize"):
                attrs.append(("windowize", True))
        hint = self.name_hint(given.get("name_hint"))
        if level == "CORE_GROUP":
            return "incore", hint, tuple(attrs)
        return "hierarchy", hint, (("level", level), *attrs)

    def optimizations(self, node: ast.expr, level: str) -> list[tuple[str, AttrValue]]:
        if not isinstance(node, ast.List):
            self.fail(node, "pl.at(optimizations=...) must be a list literal")
        attrs: list[tuple[str, AttrValue]] = []
        for entry in node.elts:
            parts = _dotted(entry.func) if isinstance(entry, ast.Call) else None
            if level != "CORE_GROUP":
                self.fail(entry, "optimizations=[pl.split(...)] / optimizations=[pl.cross_core_slot(...)] are only "
                                 "supported with level=pl.Level.CORE_GROUP")
            if isinstance(entry, ast.Call) and parts == ["pl", "split"]:
                if len(entry.args) != 1 or entry.keywords:
                    self.fail(entry, "expected pl.split(pl.SplitMode.X)")
                mode = self.enum_member(entry.args[0], ("SplitMode",), tuple(SPLIT_MODES))
                if mode != "NONE":
                    attrs.append(("split", SPLIT_MODES[mode]))
            elif isinstance(entry, ast.Call) and parts == ["pl", "cross_core_slot"]:
                if entry.args or [k.arg for k in entry.keywords] != ["slot_num"]:
                    self.fail(entry, "expected pl.cross_core_slot(slot_num=N)")
                slots = self.types.int_value(entry.keywords[0].value, "slot_num")
                if slots <= 0:
                    self.fail(entry.keywords[0].value, f"slot_num must be a positive integer, got {slots}")
                attrs.append(("slot_num", slots))
            else:
                self.fail(entry, f"unknown optimization `{ast.unparse(entry)}`",
                          "optimizations are pl.split(pl.SplitMode.X) and pl.cross_core_slot(slot_num=N)")
        return attrs

    def cluster_scope(self, call: ast.Call) -> tuple[str, str, Attrs]:
        given = self.scope_keywords(call, {"name_hint": "a string"})
        return "cluster", self.name_hint(given.get("name_hint")), ()

    def runtime_scope(self, call: ast.Call) -> tuple[str, str, Attrs]:
        """`pl.manual_scope()` / `pl.scope(mode=pl.ScopeMode.X)`: runtime dependency-tracking
        scopes of orchestration code; they change task dependencies, not values."""
        if _dotted(call.func) == ["pl", "manual_scope"]:
            self.scope_keywords(call, {})
            return "runtime", "", (("mode", "MANUAL"),)
        given = self.scope_keywords(call, {"mode": "pl.ScopeMode.AUTO or MANUAL"})
        mode = self.enum_member(given["mode"], ("ScopeMode",), ("AUTO", "MANUAL")) if "mode" in given else "AUTO"
        return "runtime", "", (("mode", mode),)

    def spmd_scope(self, call: ast.Call) -> tuple[str, str, Attrs]:
        """`with pl.spmd(core_num, sync_start=False, name_hint=""):` around one dispatch (a call
        of a kernel, or a pl.at(CORE_GROUP) scope OutlineIncoreScopes turns into one): the
        dispatch runs once per block (JIT_FRONTEND.md section 2.4; OutlineClusterScopes)."""
        given = self.scope_keywords(call, {"core_num": "a positive int", "sync_start": "True or False",
                                           "name_hint": "a string", "optimizations": "a list",
                                           "deps": "a list of task ids", "allow_early_resolve": "True or False",
                                           "predicate": "a comparison"})
        if "core_num" not in given:
            self.fail(call, "pl.spmd() needs core_num, the number of blocks: pl.spmd(4)")
        core_num = fold_constant(given["core_num"], self.constants)
        if not isinstance(core_num, int) or isinstance(core_num, bool) or core_num < 1:
            self.fail(given["core_num"], f"not supported yet: pl.spmd(core_num=`{ast.unparse(given['core_num'])}`) "
                                         "(core_num must be a positive compile-time integer here)",
                      "write an integer literal or a module-level integer constant")
        for unsupported, what in (("optimizations", "cross-core split options"), ("deps", "task dependencies"),
                                  ("allow_early_resolve", "early task resolution"), ("predicate", "predicated dispatch")):
            if unsupported in given:
                self.fail(given[unsupported], f"not supported yet: pl.spmd({unsupported}=...) ({what})")
        attrs: list[tuple[str, AttrValue]] = [("core_num", core_num)]
        # sync_start makes the blocks start together: a scheduling fact, no value depends on it
        # (blocks that wrote one element differently are a race either way: the interpreter says so).
        if "sync_start" in given and self.bool_literal(given["sync_start"], "sync_start"):
            attrs.append(("sync_start", True))
        return "spmd", self.name_hint(given.get("name_hint")), tuple(attrs)

    def unsupported_scope(self, call: ast.Call) -> tuple[str, str, Attrs]:
        self.fail(call, f"not supported yet: `with {ast.unparse(call)}:` (SPMD dispatch and manual AIV split regions)",
                  "write the kernel body in a pl.at(level=pl.Level.CORE_GROUP) scope")

    # expressions

    def expr(self, node: ast.expr, scope: _Scope, call_type: Type | None = None,
             statement_call: bool = False) -> Node:
        if isinstance(node, ast.Call):
            return self.call(node, scope, call_type, statement_call)
        handler = _EXPR_HANDLERS.get(type(node))
        if handler is None:
            self.fail(node, f"unsupported expression `{ast.unparse(node)}`")
        return handler(self, node, scope)

    def name(self, node: ast.expr, scope: _Scope) -> Node:
        assert isinstance(node, ast.Name)
        found = scope.resolve(node.id)
        if isinstance(found, _Hidden):
            self.fail(node, f"cannot read `{node.id}` here: {found.message} "
                            f"(assigned at {self.span(found.node)})", found.hint)
        if found is None:
            assignment = self.assigned_in_function.get(node.id)
            if assignment is not None:
                self.undefined_here(node, assignment)
            if node.id in self.constants:  # a module-level constant, read as its literal
                return self.literal(node, self.constants[node.id])
            self.fail(node, f"unknown name {node.id!r}")
        return found

    def undefined_here(self, node: ast.Name, assignment: ast.Name) -> NoReturn:
        where = self.span(assignment)
        if (assignment.lineno, assignment.col_offset) > (node.lineno, node.col_offset):
            self.fail(node, f"`{node.id}` is used before it is defined (first assigned at {where})",
                      "assign it before this use")
        self.fail(node, f"`{node.id}` is not defined here: it is assigned at {where}, in a loop body or if "
                        "branch that does not enclose this use", f"define `{node.id}` before that block")

    def constant(self, node: ast.expr, scope: _Scope) -> Node:
        assert isinstance(node, ast.Constant)
        return self.literal(node, node.value)

    def literal(self, node: ast.expr, value: object) -> Node:
        if isinstance(value, bool):
            return self.make("ConstBool", node, value=value)
        if isinstance(value, int):
            return self.make("ConstInt", node, value=value, dtype=DataType.INDEX)
        if isinstance(value, float):
            return self.make("ConstFloat", node, value=value, dtype=DataType.FP32)
        self.fail(node, f"unsupported constant `{ast.unparse(node)}` (expected a number or True/False)")

    def unary(self, node: ast.expr, scope: _Scope) -> Node:
        assert isinstance(node, ast.UnaryOp)
        operand_ast = node.operand
        if isinstance(node.op, ast.USub) and isinstance(operand_ast, ast.Constant):
            literal = operand_ast.value
            if type(literal) is int:
                return self.make("ConstInt", node, value=-literal, dtype=DataType.INDEX)
            if type(literal) is float:
                return self.make("ConstFloat", node, value=-literal, dtype=DataType.FP32)
        if isinstance(node.op, ast.USub):
            operand = self.expr(operand_ast, scope)
            self.require_scalar_operands(node, "-x", (operand,))
            return self.make("UnaryOp", node, op="-", operand=operand, type=expr_type(operand))
        if isinstance(node.op, ast.Not):
            operand = self.expr(operand_ast, scope)
            self.require_scalar_operands(node, "not", (operand,))
            return self.make("UnaryOp", node, op="not", operand=operand, type=BOOL_TYPE)
        if isinstance(node.op, (ast.Invert, ast.UAdd)):
            operand = self.expr(operand_ast, scope)
            self.require_scalar_operands(node, "~x" if isinstance(node.op, ast.Invert) else "+x", (operand,))
        self.fail(node, f"unsupported unary operator in `{ast.unparse(node)}` (supported: -x, not x)")

    def binop_node(self, node: ast.AST, op: str, lhs: Node, rhs: Node) -> Node:
        self.require_scalar_operands(node, op, (lhs, rhs))
        literal = lhs.KIND == "ConstInt" and cast(tensor_lang.ConstInt, lhs).dtype is DataType.INDEX
        ty = binop_type(op, expr_type(lhs), expr_type(rhs), literal)
        return self.make("BinOp", node, op=op, lhs=lhs, rhs=rhs, type=ty)

    def require_scalar_operands(self, node: ast.AST, op: str, operands: Sequence[Node]) -> None:
        """Python operators are scalar arithmetic (PyPTO's parse_binop builds scalar Exprs only):
        on a Tensor or a tile they are rejected here, at the operator, naming the pl.* call."""
        for operand in operands:
            ty = expr_type(operand)
            if isinstance(ty, ScalarType):
                continue
            spelled = ast.unparse(node) if isinstance(node, ast.expr) else op
            hint = "Python operators work on scalars only; " + _operator_hint(node, op, operands)
            self.fail(node, f"operator `{op}` in `{spelled}` is applied to a {_kind_word(ty)} "
                            f"(`{format_type(ty)}`), not a scalar", hint)

    def binop(self, node: ast.expr, scope: _Scope) -> Node:
        assert isinstance(node, ast.BinOp)
        folded = self.folded(node, scope)
        if folded is not None:
            return folded
        op = _AST_BINOPS.get(type(node.op))
        if op is None and isinstance(node.op, ast.MatMult):
            lhs, rhs = self.expr(node.left, scope), self.expr(node.right, scope)
            self.require_scalar_operands(node, "@", (lhs, rhs))
        if op is None and type(node.op) in _TENSOR_ONLY_BINOPS:
            lhs, rhs = self.expr(node.left, scope), self.expr(node.right, scope)
            self.require_scalar_operands(node, _TENSOR_ONLY_BINOPS[type(node.op)], (lhs, rhs))
        if op is None:
            self.fail(node, f"unsupported operator in `{ast.unparse(node)}` (supported: + - * / // %)",
                      "use // for integer division")
        lhs, rhs = self.expr(node.left, scope), self.expr(node.right, scope)
        if op == "/":
            self.require_float_division(node, lhs, rhs)
        return self.binop_node(node, op, lhs, rhs)

    def require_float_division(self, node: ast.AST, lhs: Node, rhs: Node) -> None:
        """`/` is PyPTO's FloatDiv: true division of float scalars (arith.divf). On integers the
        DSL has floor division `//`; a float quotient of integers needs an explicit pl.cast."""
        self.require_scalar_operands(node, "/", (lhs, rhs))
        for operand in (lhs, rhs):
            ty = expr_type(operand)
            if isinstance(ty, ScalarType) and not ty.dtype.is_float and operand.KIND != "ConstInt":
                self.fail(node, f"operator `/` in `{ast.unparse(node) if isinstance(node, ast.expr) else '/'}` "
                                f"divides a {ty.dtype.pl_name} scalar: `/` is float division",
                          "use // for integer (floor) division, or pl.cast the operands to a float type first")
        if all(operand.KIND == "ConstInt" for operand in (lhs, rhs)):
            self.fail(node, "operator `/` of two integer literals has no float type to divide in",
                      "write a float literal (e.g. 1.0 / 3), or use // for integer division")

    def folded(self, node: ast.BinOp, scope: _Scope) -> Node | None:
        """An arithmetic tree over literals and module constants is one literal (PyPTO's parser
        folds such subtrees first), so `[ROWS, 4 * 16]` is a static shape."""
        names = [n for n in ast.walk(node) if isinstance(n, ast.Name)]
        if any(scope.resolve(n.id) is not None for n in names) or (not names and not self.fold_literals):
            return None
        value = fold_constant(node, self.constants)
        if type(value) is int or (type(value) is float and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult))):
            return self.literal(node, value)
        return None

    def boolop(self, node: ast.expr, scope: _Scope) -> Node:
        assert isinstance(node, ast.BoolOp)
        op = _AST_BOOLOPS[type(node.op)]
        result = self.expr(node.values[0], scope)
        for value in node.values[1:]:
            # `a and b and c` reads as (a and b) and c; spans cover the whole chain so far.
            chain = ast.BoolOp(op=node.op, values=[])
            ast.copy_location(chain, node)
            chain.end_lineno, chain.end_col_offset = value.end_lineno, value.end_col_offset
            result = self.binop_node(chain, op, result, self.expr(value, scope))
        return result

    def compare(self, node: ast.expr, scope: _Scope) -> Node:
        assert isinstance(node, ast.Compare)
        if len(node.ops) != 1:
            self.fail(node, "chained comparisons are not supported", "write `a < b and b < c`")
        op = _AST_COMPARISONS.get(type(node.ops[0]))
        if op is None:
            self.fail(node, f"unsupported comparison in `{ast.unparse(node)}` (supported: == != < <= > >=)")
        return self.binop_node(node, op, self.expr(node.left, scope), self.expr(node.comparators[0], scope))

    def sequence(self, node: ast.expr, scope: _Scope) -> Node:
        assert isinstance(node, (ast.List, ast.Tuple))
        return self.make("TupleExpr", node, elements=tuple(self.expr(e, scope) for e in node.elts))

    def subscript(self, node: ast.expr, scope: _Scope) -> Node:
        assert isinstance(node, ast.Subscript)
        value = self.expr(node.value, scope)
        ty = expr_type(value)
        if isinstance(ty, (TensorType, TileType)):
            return self.call(self.subscript_call(node, ty, scope), scope, None, False)
        index = self.types.int_value(node.slice, "index")
        if not isinstance(ty, TupleType):
            self.fail(node, f"only tuple values can be indexed; `{ast.unparse(node.value)}` is not a tuple")
        if not 0 <= index < len(ty.types):
            self.fail(node.slice, f"index {index} is out of range for a tuple of {len(ty.types)} value(s)")
        return self.make("TupleGetItem", node, value=value, index=index, type=ty.types[index])

    def subscript_indices(self, node: ast.Subscript, rank: int) -> list[ast.expr]:
        """The index of each axis (numpy-like: missing trailing indices mean `:`)."""
        indices = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        if len(indices) > rank:
            self.fail(node.slice, f"{len(indices)} indices for a rank-{rank} value")
        for index in indices:
            if isinstance(index, ast.Slice) and index.step is not None:
                self.fail(index.step, "a slice step is not supported (PyPTO subscripts take no step)")
            if isinstance(index, ast.Starred) or (isinstance(index, ast.Constant) and index.value in (None, ...)):
                self.fail(index, f"`{ast.unparse(index)}` is not supported in a subscript (no ellipsis, None or *)")
        return indices + [ast.Slice(lower=None, upper=None, step=None)] * (rank - len(indices))

    def subscript_call(self, node: ast.Subscript, ty: TensorType | TileType, scope: _Scope) -> ast.Call:
        """`t[i, j]` (every axis a scalar) is pl.read(t, [i, j]); `t[a:b, :]` is
        pl.slice(t, [b - a, dim], [a, 0]), each extent a compile-time constant (JIT_FRONTEND.md §4.5)."""
        indices = self.subscript_indices(node, len(ty.shape))
        if not any(isinstance(i, ast.Slice) for i in indices):
            return _pl_call(node, "read", [node.value, _ast_list(node, indices)])
        if isinstance(ty, TileType) and len(indices) == 2 and not isinstance(indices[0], ast.Slice):
            # PyPTO drops the row axis and promotes the 1-D tile back to 2-D ([1, C]): the row as a
            # one-row slice.
            row = indices[0]
            upper: ast.expr = ast.copy_location(ast.BinOp(left=row, op=ast.Add(), right=ast.Constant(1)), row)
            indices[0] = ast.copy_location(ast.Slice(lower=row, upper=upper, step=None), row)
        scalar = next((i for i in indices if not isinstance(i, ast.Slice)), None)
        if scalar is not None:
            self.fail(scalar, f"not supported yet: the scalar index `{ast.unparse(scalar)}` in a slice (it drops "
                              "its axis)", f"write a one-wide slice instead: `{ast.unparse(scalar)}:"
                                           f"{ast.unparse(scalar)} + 1`, which keeps the axis")
        offsets: list[ast.expr] = []
        extents: list[ast.expr] = []
        for index, dim in zip(indices, ty.shape):
            assert isinstance(index, ast.Slice)
            lower = index.lower if index.lower is not None else ast.copy_location(ast.Constant(0), node)
            upper = index.upper if index.upper is not None else ast.copy_location(ast.Constant(dim), node)
            extent = self.constant_difference(upper, lower, scope)
            if extent is None:
                self.fail(index, f"the extent of the slice `{ast.unparse(index)}` is not a compile-time constant",
                          "slice extents are static (offsets may be dynamic): write `i * 16:i * 16 + 16`")
            if extent <= 0:
                self.fail(index, f"the slice `{ast.unparse(index)}` is empty or reversed (extent {extent})")
            offsets.append(lower)
            extents.append(ast.copy_location(ast.Constant(extent), index))
        return _pl_call(node, "slice", [node.value, _ast_list(node, extents), _ast_list(node, offsets)])

    def constant_difference(self, upper: ast.expr, lower: ast.expr, scope: _Scope) -> int | None:
        """`upper - lower` when it is a constant (both linear in the same runtime values)."""
        hi, lo = self.linear(upper, scope), self.linear(lower, scope)
        if hi is None or lo is None:
            return None
        diff = {k: hi.get(k, 0) - lo.get(k, 0) for k in {*hi, *lo}}
        if any(v for k, v in diff.items() if k):
            return None
        return diff.get("", 0)

    def linear(self, node: ast.expr, scope: _Scope) -> dict[str, int] | None:
        """An integer expression as {term: coefficient} ("" the constant); a runtime value or
        any other subexpression is a term of its own."""
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return {"": node.value}
        if isinstance(node, ast.Name) and scope.resolve(node.id) is None and type(self.constants.get(node.id)) is int:
            return {"": int(self.constants[node.id])}
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner = self.linear(node.operand, scope)
            return None if inner is None else {k: -v for k, v in inner.items()}
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            lhs, rhs = self.linear(node.left, scope), self.linear(node.right, scope)
            if lhs is None or rhs is None:
                return None
            sign = 1 if isinstance(node.op, ast.Add) else -1
            return {k: lhs.get(k, 0) + sign * rhs.get(k, 0) for k in {*lhs, *rhs}}
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            lhs, rhs = self.linear(node.left, scope), self.linear(node.right, scope)
            if lhs is None or rhs is None:
                return None
            for factor, other in ((lhs, rhs), (rhs, lhs)):
                if set(factor) <= {""}:
                    return {k: v * factor.get("", 0) for k, v in other.items()}
        return {ast.dump(node, annotate_fields=False): 1}

    def subscript_store(self, node: ast.expr, scope: _Scope) -> Node:
        """`dst[a:b, c] = v` is `dst = pl.assemble(dst, v, [a, c])` (PyPTO's sugar; rebinds dst)."""
        assert isinstance(node, _SubscriptStore)
        target = node.target
        if not isinstance(target.value, ast.Name):
            self.fail(target, "chained subscript stores (`C[i][j] = v`) are not supported",
                      "store into one subscript of a named tensor or tile: `C[i, j] = v`")
        ty = expr_type(self.expr(target.value, scope))
        if not isinstance(ty, (TensorType, TileType)):
            self.fail(target, f"`{target.value.id}` is a {_kind_word(ty)}: only a Tensor or a Tile takes "
                              "subscript stores")
        offsets = [_slice_lower(index, target) for index in self.subscript_indices(target, len(ty.shape))]
        call = _pl_call(target, "assemble", [target.value, node.value, _ast_list(target, offsets)])
        return self.call(call, scope, None, False)

    # calls

    def call(self, node: ast.Call, scope: _Scope, call_type: Type | None, statement_call: bool) -> Node:
        parts = _dotted(node.func)
        if parts is not None and parts[0] == "pld":
            self.fail(node.func, f"not supported yet: the distributed operation `{ast.unparse(node.func)}` "
                                 "(PyPTO's pypto.language.distributed)", "write a single-chip kernel")
        if parts in (["pl", "submit"], ["pl", "spmd_submit"]):
            self.fail(node.func, f"not supported yet: `{ast.unparse(node.func)}` (runtime task submission "
                                 "returning a task id, JIT_FRONTEND.md 2.6)",
                      "call the kernel directly, `out = self.kernel(...)`: calls run in program order")
        if parts is None or parts[0] not in ("pl", "self") or len(parts) < 2:
            self.fail(node.func, f"unknown callee `{ast.unparse(node.func)}`",
                      "call operators as pl.tile.add(...) / pl.add(...) and functions as self.f(...)")
        if parts[0] == "self":
            return self.func_call(node, parts, scope)
        if parts == ["pl", "const"]:
            return self.const_call(node)
        if parts[1] == "yield_":
            self.fail(node, "pl.yield_ is only allowed as the last statement of a loop body or if branch")
        if len(parts) == 2 and parts[1] in LOOP_ITERATORS.values():
            self.fail(node, f"pl.{parts[1]} is only allowed as the iterator of a for loop")
        if parts[1] in _NOT_CALLABLE or len(parts) > 3:
            self.fail(node.func, f"`{ast.unparse(node.func)}` is not an operator")
        positional = self.positional_arguments(node, scope)
        first = positional[0][1] if positional else None
        if parts == ["pl", "cast"] and first is not None and isinstance(expr_type(first), ScalarType):
            return self.scalar_cast(node, first)
        op = self.op_name(node, parts, [value for _, value in positional])
        # A dispatching DSL spelling (pl.tile.mrgsort, pl.arange) names one registered op.
        keywords = [kw.arg for kw in node.keywords if kw.arg is not None]
        registry = importlib.import_module("languages.ops").REGISTRY
        order = registry.spelling_order(op, keywords)
        op = registry.resolve_spelling(op, len(positional), keywords)
        if op == "tensor.create":
            node = self.without_nd_layout(node)
        signature = call_signature(op)
        if signature is not None and order is not None:
            signature = dataclasses.replace(signature, param_order=order)
        if signature is None:
            args, attrs = self.unbound_arguments(node, positional, scope)
        else:
            args, attrs = self.bound_arguments(node, op, signature, positional, scope)
            # Bare literals take the dtype the op's declaration gives them (the registry's rule).
            args = importlib.import_module("languages.ops").REGISTRY.adopt_literals(
                op, args, attrs, keep=lambda n: id(n) in self.explicit_consts)
        if isinstance(call_type, (TileType, TensorType)) and call_type.valid_shape is None:
            call_type = self.complete_valid(node, op, args, attrs, call_type)
        ty = call_type if call_type is not None else self.deduce(node, op, args, attrs, statement_call)
        if isinstance(call_type, TileType) and call_type.memory_space is None:
            ty = self.refine_unplaced(node, op, args, attrs, call_type)
        return self.make("Call", node, op=op, args=args, attrs=attrs, type=ty)

    def without_nd_layout(self, node: ast.Call) -> ast.Call:
        """`pl.create_tensor(..., layout=pl.TensorLayout.ND)`: ND is every GM tensor's layout here
        (the keyword is dropped); another layout is not supported yet."""
        keywords = []
        for kw in node.keywords:
            if kw.arg == "layout":
                self.types.layout(kw.value, "pl.create_tensor(layout=...)", view=True)
                continue
            keywords.append(kw)
        if len(keywords) == len(node.keywords):
            return node
        return ast.copy_location(ast.Call(func=node.func, args=node.args, keywords=keywords), node)

    def refine_unplaced(self, node: ast.Call, op: str, args: tuple[Node, ...], attrs: Attrs,
                        declared: TileType) -> Type:
        """`t: pl.Tile[[16, 64], pl.FP16] = pl.tile.load(..., target_memory=pl.Mem.Mat)`: the
        annotation leaves the space out but the call states it; the stated space (and its
        implicit view) completes the annotation rather than contradicting it."""
        try:
            deduced = self.deduce(node, op, args, attrs, False)
        except CompileError:
            return declared
        if (isinstance(deduced, TileType) and deduced.memory_space is not None
                and (deduced.shape, deduced.dtype, deduced.valid_shape)
                == (declared.shape, declared.dtype, declared.valid_shape)):
            return deduced
        return declared

    def complete_view(self, value: Node, declared: TileType) -> Node:
        """`t: pl.Tile[[16, 128], pl.BF16, pl.Mem.Left] = pl.tile.extract(...)`: an annotation
        without a pl.TileView states no layout (PyPTO checks an annotation's kind, dtype and
        dims only, JIT_FRONTEND.md 3.2), so the layout the op gives its result in that space
        (TEXTRACT's L0 format here) completes it rather than contradicting it.  In user text it
        states no valid shape either: `m: pl.Tile[[16, 32], pl.FP32] = pl.tile.tri(...,
        valid_shape=[9, 21])` is the partially valid tile the call makes (printed IR, with its
        language header, states every valid shape)."""
        if value.KIND != "Call":
            return value
        call: Any = value
        deduced, _ = _registry_deduce(call.op, call.args, call.attrs, self.placed, call)
        if not isinstance(deduced, TileType) or (deduced.shape, deduced.dtype) != (declared.shape, declared.dtype):
            return value
        if declared.memory_space is not None and deduced.memory_space is not declared.memory_space:
            return value
        new_view = deduced.view is not None and deduced.view != declared.view
        new_valid = self.user_text and deduced.valid_shape != declared.valid_shape
        if not (new_view or new_valid) or (not new_valid and deduced.valid_shape != declared.valid_shape):
            return value
        if declared.memory_space is None and deduced.memory_space is None and not new_valid:
            return value
        return cast(Node, dataclasses.replace(call, type=dataclasses.replace(deduced, memref=declared.memref)))

    def complete_valid(self, node: ast.Call, op: str, args: tuple[Node, ...], attrs: Attrs,
                       declared: Type) -> Type:
        """`narrowed: pl.Tile[[32, 32], pl.FP32] = pl.tile.set_validshape(t, rows, cols)`: an
        annotation without a valid shape states none (PyPTO checks only kind, dtype and shape
        against it, JIT_FRONTEND.md 3.2, and cannot spell a runtime extent it does not know
        yet); the deduced valid shape completes it. A written valid shape must still agree."""
        try:
            deduced = self.deduce(node, op, args, attrs, False)
        except CompileError:
            return declared
        if (isinstance(deduced, (TileType, TensorType)) and type(deduced) is type(declared)
                and deduced.valid_shape is not None):
            assert isinstance(declared, (TileType, TensorType))
            if (deduced.shape, deduced.dtype) == (declared.shape, declared.dtype):
                return dataclasses.replace(declared, valid_shape=deduced.valid_shape)
        return declared

    def func_call(self, node: ast.Call, parts: list[str], scope: _Scope) -> Node:
        if len(parts) != 2:
            self.fail(node.func, f"unknown callee `{ast.unparse(node.func)}`")
        if parts[1] not in self.signatures:
            known = ", ".join(self.signatures) or "none"
            self.fail(node.func, f"unknown function {parts[1]!r} (functions of this program: {known})")
        if node.keywords:
            self.fail(node, "calls of program functions take positional arguments only")
        returns = self.signatures[parts[1]]
        ty: Type = returns[0] if len(returns) == 1 else (TupleType(returns) if returns else NoneType())
        args = tuple(self.expr(a, scope) for a in node.args)
        return self.make("FuncCall", node, callee=parts[1], args=args, type=ty)

    def scalar_cast(self, node: ast.Call, operand: Node) -> Node:
        """`pl.cast(scalar, dtype)`: PyPTO's scalar Cast expression (JIT_FRONTEND.md 4.2, only the
        default mode). It is a UnaryOp `cast` whose type is the target scalar type."""
        target_node = node.args[1] if len(node.args) > 1 else None
        for kw in node.keywords:
            if kw.arg == "target_type" and target_node is None:
                target_node = kw.value
            elif kw.arg == "mode":
                if not (isinstance(kw.value, ast.Constant) and kw.value.value in ("round", 2)
                        and type(kw.value.value) is not bool):
                    self.fail(kw.value, f"a scalar pl.cast takes only the default mode, got `{ast.unparse(kw.value)}`",
                              "drop mode= (PyPTO's scalar Cast has no rounding modes), or cast a tile")
            else:
                self.fail(node, f"pl.cast of a scalar: unexpected argument "
                                f"{kw.arg if kw.arg is not None else '**'}", "write pl.cast(value, pl.DTYPE)")
        if target_node is None or len(node.args) > 2:
            self.fail(node, "expected pl.cast(value, target_type)", "e.g. pl.cast(i, pl.INT32)")
        target = self.types.dtype(target_node)
        source = cast(ScalarType, expr_type(operand)).dtype
        supported = importlib.import_module("languages.ops.pto_ops").SCALAR_CAST_TYPES
        for dtype in (source, target):
            if dtype not in supported:
                self.fail(node, f"not supported yet: a scalar pl.cast from or to {dtype.pl_name}",
                          "scalar casts convert between pl.INDEX, the 8- to 64-bit signed and unsigned "
                          "integers and FP16 / BF16 / FP32"
                          + ("; compare instead (`x != 0`)" if dtype is DataType.BOOL else ""))
        return self.make("UnaryOp", node, op="cast", operand=operand, type=ScalarType(target))

    def const_call(self, node: ast.Call) -> Node:
        if node.keywords and [k.arg for k in node.keywords] != ["dtype"]:
            self.fail(node, "expected pl.const(value, dtype)")
        dtype_node = node.keywords[0].value if node.keywords else (node.args[1] if len(node.args) == 2 else None)
        if len(node.args) + len(node.keywords) not in (1, 2) or (node.keywords and len(node.args) != 1):
            self.fail(node, "expected pl.const(value, dtype), e.g. pl.const(1.0, pl.FP32)")
        value = self.number(node.args[0])
        if dtype_node is None:
            dtype = DataType.FP32 if isinstance(value, float) else DataType.INDEX
        else:
            dtype = self.types.dtype(dtype_node)
        if dtype.is_float:
            return self.explicit(self.make("ConstFloat", node, value=float(value), dtype=dtype))
        if isinstance(value, float):
            self.fail(node.args[0], f"pl.const of integer dtype {dtype.pl_name} needs an integer value")
        if dtype is DataType.BOOL and value not in (0, 1):
            self.fail(node.args[0], "pl.const of pl.BOOL needs 0 or 1")
        return self.explicit(self.make("ConstInt", node, value=value, dtype=dtype))

    def explicit(self, const: Node) -> Node:
        self.explicit_consts.add(id(const))
        return const

    def number(self, node: ast.expr) -> int | float:
        """A signed int / float literal, or float("inf" | "-inf" | "nan")."""
        negative = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
        inner = node.operand if isinstance(node, ast.UnaryOp) and negative else node
        if isinstance(inner, ast.Constant) and type(inner.value) in (int, float):
            number = cast(Union[int, float], inner.value)
            return -number if negative else number
        if isinstance(node, ast.Call) and _dotted(node.func) == ["float"] and len(node.args) == 1 \
                and not node.keywords and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str) and node.args[0].value.strip().lower() in _NON_FINITE:
            return _NON_FINITE[node.args[0].value.strip().lower()]
        self.fail(node, f"expected a number literal, got `{ast.unparse(node)}`",
                  'non-finite values are spelled float("inf"), float("-inf"), float("nan")')

    def positional_arguments(self, node: ast.Call, scope: _Scope) -> list[tuple[ast.expr, Node | None]]:
        """Each positional argument with its expression, or None when it can only be an
        attribute (a dtype, a memory space, a string)."""
        out: list[tuple[ast.expr, Node | None]] = []
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                self.fail(arg, "*args are not supported")
            parts = _dotted(arg)
            attribute_like = (parts is not None and parts[0] == "pl") or \
                (isinstance(arg, ast.Constant) and isinstance(arg.value, str))
            out.append((arg, None if attribute_like else self.expr(arg, scope)))
        return out

    def unbound_arguments(self, node: ast.Call, positional: list[tuple[ast.expr, Node | None]],
                          scope: _Scope) -> tuple[tuple[Node, ...], tuple[tuple[str, AttrValue], ...]]:
        """Binding without the registry: positional expressions are operands; a positional
        dtype / memory space is the `dtype` / `target_memory` attribute; keywords are attributes."""
        args: list[Node] = []
        attrs: list[tuple[str, AttrValue]] = []
        for arg, value in positional:
            if value is not None:
                args.append(value)
                continue
            parts = _dotted(arg)
            if parts is not None and len(parts) == 2:
                attrs.append(("dtype", self.types.dtype(arg)))
            elif parts is not None and len(parts) == 3 and parts[1] in ("Mem", "MemorySpace"):
                attrs.append(("target_memory", self.types.memory_space(arg)))
            else:
                self.fail(arg, f"expected an expression, got `{ast.unparse(arg)}`",
                          "pass attributes as keyword arguments, e.g. mode=\"round\"")
        for kw in node.keywords:
            name = self.keyword_name(kw)
            if any(k == name for k, _ in attrs):
                self.fail(kw.value, f"attribute {name!r} is given twice")
            attrs.append((name, self.attr_value(name, kw.value, scope)))
        return tuple(args), tuple(attrs)

    def bound_arguments(self, node: ast.Call, op: str, signature: CallSignature,
                        positional: list[tuple[ast.expr, Node | None]],
                        scope: _Scope) -> tuple[tuple[Node, ...], tuple[tuple[str, AttrValue], ...]]:
        """Binding by the registry: positional arguments bind to the op's positional order,
        keywords by name; operands become arguments, everything else attributes."""
        names = signature.operand_names
        variadic_index = len(names) - 1 if signature.variadic else -1
        operands: dict[int, Node] = {}
        tail: list[Node] = []
        attrs: list[tuple[str, AttrValue]] = []

        def bind(name: str, arg: ast.expr, value: Node | None) -> None:
            if name not in names and name not in signature.param_order and isinstance(arg, ast.Name) \
                    and scope.lookup(arg.id) is not None:
                self.fail(arg, f"{op} has no operand {name!r}: it takes {', '.join(signature.param_order)}",
                          f"pass the operands {', '.join(names)} (positionally or by these names)")
            if name not in names:
                if any(k == name for k, _ in attrs):
                    self.fail(arg, f"{op}: attribute {name!r} is given twice")
                attrs.append((name, self.attr_value(name, arg, scope)))
                return
            index = names.index(name)
            expr = value if value is not None else self.expr(arg, scope)
            if index == variadic_index:
                tail.append(expr)
            elif index in operands:
                self.fail(arg, f"{op}: operand {name!r} is given twice")
            else:
                operands[index] = expr

        # Positional arguments fill the parameters no keyword names, in order: `pl.full(shape, 0.0,
        # dtype=pl.FP32)` binds 0.0 to `value` although the registry's order is (shape, dtype, value).
        keyword_names = {self.keyword_name(kw) for kw in node.keywords}
        order = tuple(name for name in signature.param_order if name not in keyword_names)
        for position, (arg, value) in enumerate(positional):
            if position < len(order):
                bind(order[position], arg, value)
            elif variadic_index >= 0:
                bind(names[variadic_index], arg, value)
            else:
                self.fail(arg, f"{op} takes at most {len(order)} positional argument(s) ({', '.join(order)})")
        for kw in node.keywords:
            bind(self.keyword_name(kw), kw.value, None)
        count = variadic_index if tail else len(operands)
        for index in range(count):
            if index not in operands:
                self.fail(node, f"{op}: operand {names[index]!r} is missing",
                          f"{op} takes its operands in the order {', '.join(names)}")
        if len(operands) > count:
            self.fail(node, f"{op}: operands must be given in order ({', '.join(names)}) without gaps")
        return tuple(operands[i] for i in range(count)) + tuple(tail), tuple(attrs)

    def keyword_name(self, kw: ast.keyword) -> str:
        if kw.arg is None:
            self.fail(kw.value, "** arguments are not supported")
        return kw.arg

    def attr_value(self, name: str, node: ast.expr, scope: _Scope) -> AttrValue:
        if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, (bool, str))):
            return cast(AttrValue, node.value)
        if isinstance(node, (ast.List, ast.Tuple)):
            return tuple(self.types.int_value(e, f"element of {name}") for e in node.elts)
        parts = _dotted(node)
        enums = importlib.import_module("languages.ops").ATTR_ENUMS
        if parts is not None and parts[0] == "pl" and len(parts) >= 3 and parts[-2] in enums:
            # pl.tile.MaskPattern.P0101, pl.PadValue.min: the registry's enum tables.
            members = enums[parts[-2]]
            if parts[-1] not in members:
                self.fail(node, f"`{ast.unparse(node)}` is not a {parts[-2]} (members: {', '.join(members)})")
            return cast(AttrValue, members[parts[-1]])
        if parts is not None and parts[0] == "pl" and len(parts) == 2:
            return self.types.dtype(node)
        if parts is not None and parts[0] == "pl" and len(parts) == 3:
            return self.types.memory_space(node)
        if isinstance(node, ast.Name) and node.id in MemorySpace.__members__ and scope.lookup(node.id) is None:
            return MemorySpace[node.id]
        if isinstance(node, (ast.Constant, ast.UnaryOp, ast.Call)):
            try:
                return self.number(node)
            except CompileError:
                pass
        self.fail(node, f"argument {name!r} must be a constant (number, string, bool, dtype, memory "
                        f"space or list of ints), got `{ast.unparse(node)}`",
                  "operands are expressions, attributes are constants")

    def op_name(self, node: ast.Call, parts: list[str], args: Sequence[Node | None]) -> str:
        leaf = parts[-1]
        if leaf.endswith("_") and keyword.iskeyword(leaf[:-1]):
            leaf = leaf[:-1]
        if len(parts) == 3:
            return f"{parts[1]}.{leaf}"
        if leaf in _FIXED_SUGAR:
            return _FIXED_SUGAR[leaf]
        kinds = [expr_type(a) for a in args if a is not None]
        namespaces = ["tensor" if isinstance(t, TensorType) else "tile" for t in kinds
                      if isinstance(t, (TensorType, TileType))]
        if namespaces:
            if len(set(namespaces)) > 1:
                self.fail(node, f"pl.{leaf}: cannot mix Tensor and Tile arguments "
                                f"({', '.join(_kind_word(t) for t in kinds)})",
                          "load the tensor into a tile first (pl.load), or store the tile (pl.store)")
            return self.unified_op(namespaces[0], leaf, args)
        if leaf in _OPERANDLESS_SUGAR.get(self.level, {}):
            return _OPERANDLESS_SUGAR[self.level][leaf]
        self.fail(node.func, f"cannot tell whether pl.{parts[1]} means pl.tensor.{parts[1]} or pl.tile.{parts[1]}: "
                             "it has no tensor or tile operand", "spell the namespace explicitly")

    def unified_op(self, namespace: str, leaf: str, args: Sequence[Node | None]) -> str:
        """PyPTO's dispatching wrappers (JIT_FRONTEND.md §4.2): a scalar second operand selects the
        tile-scalar (tensor-scalar) op, e.g. `pl.mul(tile, 2.0)` -> tile.muls."""
        scalar_form = _SCALAR_RHS_OPS.get(leaf)
        second = args[1] if len(args) > 1 else None
        if scalar_form is not None and second is not None and isinstance(expr_type(second), ScalarType):
            op = f"{namespace}.{scalar_form}"
            if namespace == "tile" or leaf not in _TILE_ONLY_SCALAR_FORMS:
                return op
        return f"{namespace}.{leaf}"

    def deduce(self, node: ast.Call, op: str, args: tuple[Node, ...], attrs: tuple[tuple[str, AttrValue], ...],
               statement_call: bool) -> Type:
        at = self.make("Call", node, op=op, args=args, attrs=attrs, type=NoneType())
        deduced, problem = _registry_deduce(op, args, attrs, self.placed, at)
        if deduced is not None:
            return deduced
        if problem is not None and not statement_call:
            raise problem
        if statement_call:
            # A bare call statement is kept even when untypable here: TypeChecked reports it.
            return NoneType()
        registry = importlib.import_module("languages.ops").REGISTRY
        if op not in registry:
            try:
                registry.get(op)
            except KeyError as err:
                self.fail(node.func, f"`{ast.unparse(node.func)}`: {err.args[0]}",
                          f"this compiler supports {len(registry)} operators; list them with "
                          "`python -c \"from languages.ops import REGISTRY; print(REGISTRY.names())\"`")
        self.fail(node, f"cannot deduce the type of `{ast.unparse(node)}`: the op registry does not know {op}",
                  "annotate the assignment: `x: pl.Tile[[16, 32], pl.FP32] = ...`")


def _returned_types(body: tuple[Node, ...]) -> tuple[Type, ...]:
    """The result types of a function written without `->`: what its body's return gives
    (PyPTO infers them from the return statement)."""
    for stmt in reversed(body):
        if getattr(stmt, "KIND", "") == "ReturnStmt":
            return tuple(expr_type(v) for v in getattr(stmt, "values"))
    return ()


def _writes_tile_view(annotation: ast.expr) -> bool:
    """Whether a type annotation spells out a pl.TileView(...)."""
    return any(isinstance(n, ast.Call) and _dotted(n.func) == ["pl", "TileView"] for n in ast.walk(annotation))


def _registry_deduce(op: str, args: tuple[Node, ...], attrs: tuple[tuple[str, AttrValue], ...],
                     placed: bool, at: Node) -> tuple[Type | None, CompileError | None]:
    """Ask the op registry (languages.ops) for a call's type: (type, None), or (None, error)
    when it cannot say; (None, None) when the registry is unavailable or does not know `op`."""
    if call_signature(op) is None:
        return None, None
    registry = importlib.import_module("languages.ops").REGISTRY
    try:
        return cast(Type, registry.deduce(op, args, attrs, placed=placed, at=at)), None
    except CompileError as exc:
        return None, exc


# --- assignment analysis (the diagnostics of names Python would bind but the IR cannot) ------


def _is_yield(stmt: ast.stmt) -> bool:
    value = stmt.value if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.Expr)) else None
    return isinstance(value, ast.Call) and _dotted(value.func) == ["pl", "yield_"]


def _target_names(stmt: ast.stmt) -> list[ast.Name]:
    """The names an assignment statement binds (a nested loop's variables are not rebindings)."""
    if isinstance(stmt, ast.AnnAssign):
        return [stmt.target] if isinstance(stmt.target, ast.Name) else []
    if not isinstance(stmt, ast.Assign):
        return []
    names: list[ast.Name] = []
    for target in stmt.targets:
        elements = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
        names.extend(e for e in elements if isinstance(e, ast.Name))
    return names


def _trailing_yield_names(stmts: Sequence[ast.stmt]) -> set[str]:
    """Names bound by the `pl.yield_` ending a block (bound after the loop / if, not inside)."""
    return {n.id for n in _target_names(stmts[-1])} if stmts and _is_yield(stmts[-1]) else set()


def _assigned_names(stmts: Sequence[ast.stmt], include_trailing_yield: bool = False) -> dict[str, ast.Name]:
    """Each name assigned in `stmts` or their nested blocks → its first assignment, in source
    order; the block's own trailing `pl.yield_` binds outside it and is left out unless asked."""
    found: dict[str, ast.Name] = {}

    def visit(block: Sequence[ast.stmt], own: bool) -> None:
        for index, stmt in enumerate(block):
            if not (own and index == len(block) - 1 and _is_yield(stmt)):
                for name in _target_names(stmt):
                    found.setdefault(name.id, name)
            if isinstance(stmt, (ast.For, ast.While, ast.If)):
                visit(stmt.body, False)
                visit(stmt.orelse, False)
            elif isinstance(stmt, ast.With):
                visit(stmt.body, False)

    visit(stmts, not include_trailing_yield)
    return found


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _first_line(node: ast.AST) -> str:
    return ast.unparse(node).splitlines()[0] if ast.unparse(node) else type(node).__name__


# Statements PyPTO's parser accepts that this compiler does not lower yet (JIT_FRONTEND.md §6).
_NOT_YET_STATEMENTS: dict[type[ast.stmt], tuple[str, str]] = {
    ast.Break: ("break", "bound the loop instead, or guard the rest of the body with an if"),
    ast.Continue: ("continue", "guard the rest of the body with an if"),
}
_AUG_OPERATORS: dict[type[ast.operator], str] = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%", ast.Div: "/",
}

_STMT_HANDLERS: dict[type[ast.stmt], Callable[[_Parser, ast.stmt, _Scope], list[Node]]] = {
    ast.AnnAssign: _Parser.ann_assign,
    ast.Assign: _Parser.assign,
    ast.Expr: _Parser.eval_stmt,
    ast.Return: _Parser.return_stmt,
    ast.Pass: _Parser.pass_stmt,
    ast.For: _Parser.for_stmt,
    ast.While: _Parser.while_stmt,
    ast.If: _Parser.if_stmt,
    ast.With: _Parser.with_stmt,
}

class _SubscriptStore(ast.expr):
    """The value of `dst[...] = v` rewritten to `dst = <this>` before parsing, so the name
    analyses see the store rebind `dst` (the parser turns it into pl.assemble)."""

    _fields = ("target", "value")

    def __init__(self, target: ast.Subscript, value: ast.expr) -> None:
        super().__init__()
        self.target = target
        self.value = value


class _RewriteSubscriptStores(ast.NodeTransformer):
    @override
    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        target = node.targets[0] if len(node.targets) == 1 else None
        if not isinstance(target, ast.Subscript):
            return node
        load = ast.Subscript(value=_as_load(target.value), slice=target.slice, ctx=ast.Load())
        ast.copy_location(load, target)
        value = ast.copy_location(_SubscriptStore(load, node.value), node.value)
        name = target.value.id if isinstance(target.value, ast.Name) else "_"
        store = ast.copy_location(ast.Name(id=name, ctx=ast.Store()), target)
        return ast.copy_location(ast.Assign(targets=[store], value=value), node)


def _slice_lower(index: ast.expr, at: ast.AST) -> ast.expr:
    """Where an axis index starts: a slice's lower bound (0 when omitted), or the index itself."""
    if not isinstance(index, ast.Slice):
        return index
    return index.lower if index.lower is not None else ast.copy_location(ast.Constant(0), at)


def _as_load(node: ast.expr) -> ast.expr:
    if isinstance(node, ast.Name):
        return ast.copy_location(ast.Name(id=node.id, ctx=ast.Load()), node)
    return node


def _rewrite_subscript_stores(body: list[ast.stmt]) -> list[ast.stmt]:
    """`_rewrite_subscript_stores_reference` visiting statements only: an assignment is a
    statement and no expression holds one, so the NodeTransformer's walk through every
    expression (a third of parsing a long function) finds nothing there."""
    rewriter = _RewriteSubscriptStores()
    return [cast(ast.stmt, _rewrite_stores_in(stmt, rewriter)) for stmt in body]


# The AST nodes whose list fields hold statements (bodies of compound statements, handlers, cases).
_STATEMENT_HOLDERS = (ast.stmt, ast.excepthandler, ast.match_case)


def _rewrite_stores_in(node: ast.AST, rewriter: _RewriteSubscriptStores) -> ast.AST:
    if node.__class__ is ast.Assign:
        return rewriter.visit_Assign(node)
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, list) and value and isinstance(value[0], _STATEMENT_HOLDERS):
            value[:] = [_rewrite_stores_in(item, rewriter) for item in value]  # in place, as NodeTransformer
    return node


def _rewrite_subscript_stores_reference(body: list[ast.stmt]) -> list[ast.stmt]:
    """The definition (tests compare it with `_rewrite_subscript_stores`)."""
    rewriter = _RewriteSubscriptStores()
    return [cast(ast.stmt, rewriter.visit(stmt)) for stmt in body]


def _pl_call(at: ast.AST, name: str, args: list[ast.expr]) -> ast.Call:
    func = ast.copy_location(ast.Attribute(value=ast.copy_location(ast.Name(id="pl", ctx=ast.Load()), at),
                                           attr=name, ctx=ast.Load()), at)
    return ast.copy_location(ast.Call(func=func, args=args, keywords=[]), at)


def _ast_list(at: ast.AST, elements: list[ast.expr]) -> ast.List:
    return ast.copy_location(ast.List(elts=elements, ctx=ast.Load()), at)


_UNSUPPORTED_ITERATORS = {"split_aiv": "manual AIV split regions"}
_UNSUPPORTED_ITERATOR_HINTS: dict[str, str] = {}
_FUNCTION_KEYWORDS = ("type", "level", "role", "attrs", "auto_scope", "strict_ssa")
# The level and role PyPTO's Function constructor derives from the type (include/pypto/ir/function.h).
_DERIVED_LEVEL_ROLE = {
    "InCore": ("CHIP_DIE", "SubWorker"), "AIC": ("AIC", "SubWorker"), "AIV": ("AIV", "SubWorker"),
    "Group": ("CORE_GROUP", "SubWorker"), "Orchestration": ("CHIP", "Orchestrator"),
    "Graph": ("CHIP", "Orchestrator"),
}
_LEVEL_ALIASES = {"L2CACHE": "CHIP_DIE", "PROCESSOR": "CHIP", "UMA": "CHIP", "NODE": "HOST", "POD": "CLUSTER_0",
                  "CLOS1": "CLUSTER_1", "CLOS2": "CLUSTER_2"}

_EXPR_HANDLERS: dict[type[ast.expr], Callable[[_Parser, ast.expr, _Scope], Node]] = {
    _SubscriptStore: _Parser.subscript_store,
    ast.Name: _Parser.name,
    ast.Constant: _Parser.constant,
    ast.UnaryOp: _Parser.unary,
    ast.BinOp: _Parser.binop,
    ast.BoolOp: _Parser.boolop,
    ast.Compare: _Parser.compare,
    ast.List: _Parser.sequence,
    ast.Tuple: _Parser.sequence,
    ast.Subscript: _Parser.subscript,
}


# pl.at keywords (PyPTO's `pl.at(level, role=None, *, optimizations=None, deps=None, ...)`).
_AT_KEYWORDS = {
    "level": "pl.Level.X", "role": "pl.Role.X", "optimizations": "a list of pl.split / pl.cross_core_slot",
    "deps": "task ids", "no_dep_args": "tensors", "dumps": "tensors", "allow_early_resolve": "a bool literal",
    "name_hint": "an identifier string", "windowize": "a bool literal",
}
# pl.Level members and aliases -> the canonical name.
LEVEL_ALIASES = {
    "AIV": "AIV", "AIC": "AIC", "CORE_GROUP": "CORE_GROUP", "CHIP_DIE": "CHIP_DIE", "L2CACHE": "CHIP_DIE",
    "CHIP": "CHIP", "PROCESSOR": "CHIP", "UMA": "CHIP", "HOST": "HOST", "NODE": "HOST",
    "CLUSTER_0": "CLUSTER_0", "POD": "CLUSTER_0", "CLUSTER_1": "CLUSTER_1", "CLOS1": "CLUSTER_1",
    "CLUSTER_2": "CLUSTER_2", "CLOS2": "CLUSTER_2", "GLOBAL": "GLOBAL",
}
SPLIT_MODES = {"NONE": 0, "UP_DOWN": 1, "LEFT_RIGHT": 2}

_SCOPE_READERS: dict[str, Callable[[_Parser, ast.Call], tuple[str, str, Attrs]]] = {
    "pl.at": _Parser.at_scope,
    "pl.cluster": _Parser.cluster_scope,
    "pl.manual_scope": _Parser.runtime_scope,
    "pl.scope": _Parser.runtime_scope,
    "pl.spmd": _Parser.spmd_scope,
    "pl.split_aiv": _Parser.unsupported_scope,
}


def _dotted_text(node: ast.expr) -> str:
    return ast.unparse(node)


# --- driver --------------------------------------------------------------------------------


def _program_class(module: ast.Module, filename: str, name: str | None = None) -> ast.ClassDef:
    """The file's `@pl.program` class (the one named `name` when there are several); other
    top-level code (helpers, `if __name__ == "__main__":` drivers) is not the program's."""
    found: list[ast.ClassDef] = []
    for stmt in module.body:
        if isinstance(stmt, ast.ClassDef) and any(_dotted(d.func if isinstance(d, ast.Call) else d) == ["pl", "program"]
                                                  for d in stmt.decorator_list):
            if stmt.bases or stmt.keywords:
                raise _error(_span_of(filename, stmt), "a @pl.program class takes no base classes")
            found.append(stmt)
    if name is not None:
        for cls in found:
            if cls.name == name:
                return cls
        raise _error(Span(filename, 1, 1), f"no @pl.program class {name!r} in {filename}")
    if not found:
        raise _error(Span(filename, 1, 1), "no @pl.program class found",
                     "a program file is `import pypto.language as pl` then `@pl.program class NAME:` "
                     "(or @pl.jit functions)")
    if len(found) > 1:
        raise _error(_span_of(filename, found[1]), f"a file holds one @pl.program class; found {len(found)} "
                                                   f"({', '.join(c.name for c in found)})")
    return found[0]


def _parse(text: str, filename: str, language: Language | None, program: str | None = None) -> AnyProgram:
    if len(text) >= _BATCHED_FROM_BYTES:
        batched = _parse_batched(text, filename, language, program)
        if batched is not None:
            return batched
    module = _syntax_error(text, filename)
    if program is None and language is None and _is_jit_module(module):
        from languages.pl_jit import parse_jit_file

        return parse_jit_file(text, filename)
    cls = _program_class(module, filename, program)
    header = _header_language(text, filename)
    if language is None:
        language = header
    constants = module_constants(module)
    level = ""
    dynamic = frozenset(
        stmt.targets[0].id for stmt in module.body
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
        and isinstance(stmt.value, ast.Call) and _dotted(stmt.value.func) == ["pl", "dynamic"])
    if language is None:
        reader = _TypeReader(filename, constants)
        reader.dynamic = dynamic
        types: list[Type] = []
        for annotation in _annotations(cls):
            types.append(_param_annotation(reader, annotation)[0])
        language = detect_language(types)
        if language in (TileUnplaced, TilePlaced) and _calls_tensor_compute(cls, language):
            # Tile annotations with a tensor op the tile languages do not admit (a kernel on
            # tiles beside one on tensors): the program enters where that op is lowered.
            language = Tensor
        if language is Tensor:
            scopes = _has_scopes(cls)
            if scopes or _reassigns(cls):
                level = "DSL" if scopes else "Tensor"
                language = DSL
    parser = _Parser(filename, language, constants)
    parser.level = level or language.name
    parser.fold_literals = parser.user_text = parser.types.user_text = header is None
    parser.types.dynamic = dynamic
    try:
        return _in_ssa_form(parser, parser.program(cls))
    except CompileError:
        raise
    except RecursionError:
        raise
    except Exception as exc:  # a parser bug must still surface as a diagnostic, never a traceback
        raise _error(_span_of(filename, cls), f"internal parser error: {type(exc).__name__}: {exc}") from exc


# A large file's Python AST is ~6.6 KB per op (the IR it becomes is ~0.9 KB): from this size on,
# the class is parsed with its method bodies blanked out, and the methods a batch at a time,
# each batch's AST dropped once its functions are built.
_BATCHED_FROM_BYTES = 1 << 20
_BATCH_LINES = 4000
_CLASS_LEVEL = re.compile(r"    (?=[^ \t#\r\n])")


class _NotBatchable(Exception):
    """The file's layout is not the plain one the batched parse relies on (it then parses whole)."""


def _full(func: ast.FunctionDef, bodies: Iterator[ast.FunctionDef] | None) -> ast.FunctionDef:
    if bodies is None:
        return func
    full = next(bodies, None)
    if full is None or full.name != func.name or full.lineno != func.lineno:
        raise _NotBatchable
    return full


def _method_starts(lines: list[str], class_line: int) -> list[int] | None:
    """The first line (decorator or def) of each method of the class that starts at
    `class_line`, or None when anything but methods (and a leading docstring / comments) sits at
    class level, or any code sits at module level after the class."""
    starts: list[int] = []
    after_decorator = False
    for index in range(class_line + 1, len(lines)):
        line = lines[index]
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line.startswith(" "):
            return None  # module-level code after the class
        if not _CLASS_LEVEL.match(line):
            continue
        body = line[4:]
        is_head = body.startswith("@") or body.startswith("def ")
        if is_head and not after_decorator:
            starts.append(index)
        elif not is_head and starts:
            return None
        after_decorator = body.startswith("@")
    return starts


def _header_end(lines: list[str], start: int, stop: int, filename: str) -> int:
    """The index after the last line of the `def` header of the method at `start` (its
    decorators first); the method must have a body line after it."""
    define = next((i for i in range(start, stop) if lines[i].startswith("    def ")), None)
    if define is None:
        raise _NotBatchable
    for end in range(define + 1, min(stop, define + 40)):
        try:
            ast.parse("class _:\n" + "".join(lines[start:end]) + "        ...\n", filename=filename)
        except (SyntaxError, ValueError):
            continue
        return end
    raise _NotBatchable


def _batched_bodies(lines: list[str], starts: list[int], filename: str) -> Iterator[ast.FunctionDef]:
    """Each method in full, parsed `_BATCH_LINES` at a time, at its own line numbers (blank
    lines stand in for the rest of the file)."""
    bounds = [*starts, len(lines)]
    first = 0
    while first < len(starts):
        last = first + 1
        while last < len(starts) and bounds[last] - bounds[first] < _BATCH_LINES:
            last += 1
        source = "\n" * (bounds[first] - 1) + "class _:\n" + "".join(lines[bounds[first]:bounds[last]])
        try:
            tree = ast.parse(source, filename=filename)
        except (SyntaxError, ValueError):
            raise _NotBatchable from None
        methods = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
        if len(methods) != last - first or not all(isinstance(m, ast.FunctionDef) for m in methods):
            raise _NotBatchable
        del tree, source
        for method in methods:
            assert isinstance(method, ast.FunctionDef)
            yield method
        del methods
        first = last


def _parse_batched(text: str, filename: str, language: Language | None, program: str | None) -> AnyProgram | None:
    """`_parse` of a large single-class file with the methods' ASTs alive one batch at a time;
    None when the file is not laid out plainly enough for that (then it is parsed whole)."""
    lines = text.splitlines(keepends=True)
    if not lines or not lines[-1].endswith("\n"):
        lines.append("\n")
    classes = [i for i, line in enumerate(lines) if line.startswith("class ")]
    if len(classes) != 1 or classes[0] == 0:
        return None
    starts = _method_starts(lines, classes[0])
    if not starts:
        return None
    if language is None:
        language = _header_language(text, filename)
    guessed = language is None
    if language is None:
        # Detection reads every annotation; without tiles, views or scopes it is Tensor.
        if any(word in text for word in ("Tile", "View", "MemRef", "with ", "Inline", "jit")):
            return None
        language = Tensor
    try:
        skeleton = lines[:starts[0]]
        for start, stop in zip(starts, [*starts[1:], len(lines)]):
            end = _header_end(lines, start, stop, filename)
            skeleton += lines[start:end] + ["        ...\n"] + ["\n"] * (stop - end - 1)
        try:
            module = ast.parse("".join(skeleton), filename=filename)
        except (SyntaxError, ValueError):
            return None
        del skeleton
        cls = _program_class(module, filename, program)
        parser = _Parser(filename, language)
        parser.batched_guess = guessed
        parser.user_text = parser.types.user_text = _header_language(text, filename) is None
        return _in_ssa_form(parser, parser.program(cls, _batched_bodies(lines, starts, filename)))
    except _NotBatchable:
        return None
    except (CompileError, RecursionError):
        raise
    except Exception as exc:  # a parser bug must still surface as a diagnostic, never a traceback
        raise _error(Span(filename, classes[0] + 1, 1), f"internal parser error: {type(exc).__name__}: {exc}") from exc


def _in_ssa_form(parser: _Parser, program: Node) -> AnyProgram:
    """The parsed program; user text of a later language that reassigns names is converted to
    SSA form here (that language admits no redefinition; the DSL language is converted by the
    ConvertToSSA pass)."""
    if parser.redefined:
        from languages.ssa_conversion import convert_program

        program = convert_program(program)
    return cast(AnyProgram, program)


def _is_jit_module(module: ast.Module) -> bool:
    """A file of `@pl.jit` kernels and no `@pl.program` class."""
    decorated = [_dotted(d.func if isinstance(d, ast.Call) else d) or [] for s in module.body
                 if isinstance(s, (ast.FunctionDef, ast.ClassDef)) for d in s.decorator_list]
    return any(parts[:2] == ["pl", "jit"] for parts in decorated) and ["pl", "program"] not in decorated


def _calls_tensor_compute(program: ast.ClassDef, language: Language) -> bool:
    """Whether the class calls a `pl.tensor.*` op that `language` does not admit."""
    for node in ast.walk(program):
        if isinstance(node, ast.Call):
            dotted = _dotted(node.func)
            if dotted is not None and len(dotted) == 3 and dotted[:2] == ["pl", "tensor"] \
                    and not language.admits_op(f"tensor.{dotted[2]}"):
                return True
    return False


def _has_scopes(program: ast.ClassDef) -> bool:
    """Whether a program uses what only the DSL language has (scopes, Inline functions, unroll
    loops). One stack walk over the class's nodes: `ast.walk` (a generator per node's children)
    made this and `_reassigns` a third of parsing a large program."""
    stack: list[ast.AST] = [program]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        cls = node.__class__
        if cls is ast.With:
            return True
        if cls is ast.For:
            loop = cast(ast.For, node)
            if isinstance(loop.iter, ast.Call) and _dotted(loop.iter.func) == ["pl", "unroll"]:
                return True
        elif cls is ast.Attribute and cast(ast.Attribute, node).attr == "Inline" \
                and _dotted(cast(ast.Attribute, node)) == ["pl", "FunctionType", "Inline"]:
            return True
        _push_ast_children(node, push)
    return False


def _push_ast_children(node: ast.AST, push: Callable[[ast.AST], None]) -> None:
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, list):
            for item in value:
                if isinstance(item, ast.AST):
                    push(item)
        elif isinstance(value, ast.AST):
            push(value)


def _reassigns(program: ast.ClassDef) -> bool:
    """Whether a method of the class binds a name twice (PyPTO-style reassignment, a subscript
    store into a tensor, two loops over one variable name): only the DSL language admits that.
    One stack walk per method, carrying whether the node lies in the final yield of an if's
    else-branch (both branches yield into the if's one set of results: those yield targets are
    not second definitions)."""
    for func in program.body:
        if not isinstance(func, ast.FunctionDef):
            continue
        bound = [a.arg for a in func.args.args]
        stack: list[tuple[ast.AST, bool]] = [(func, False)]
        pop = stack.pop
        while stack:
            node, merged = pop()
            cls = node.__class__
            if not merged:
                if cls is ast.Name:
                    if isinstance(cast(ast.Name, node).ctx, ast.Store):
                        bound.append(cast(ast.Name, node).id)
                elif cls is ast.Assign:
                    bound.extend(t.value.id for t in cast(ast.Assign, node).targets
                                 if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name))
            if cls is ast.If:
                branch = cast(ast.If, node)
                final_yield = branch.orelse[-1] if branch.orelse and _is_yield(branch.orelse[-1]) else None
                for name in node._fields:
                    value = getattr(node, name, None)
                    for item in value if isinstance(value, list) else (value,):
                        if isinstance(item, ast.AST):
                            stack.append((item, merged or item is final_yield))
                continue
            for name in node._fields:
                value = getattr(node, name, None)
                if isinstance(value, list):
                    for item in value:
                        if isinstance(item, ast.AST):
                            stack.append((item, merged))
                elif isinstance(value, ast.AST):
                    stack.append((value, merged))
        if len(bound) != len(set(bound)):
            return True
    return False


def _has_scopes_reference(program: ast.ClassDef) -> bool:
    """`_has_scopes` by `ast.walk` (the definition; tests compare the two)."""
    for node in ast.walk(program):
        if isinstance(node, ast.With):
            return True
        if isinstance(node, ast.For) and isinstance(node.iter, ast.Call) and _dotted(node.iter.func) == ["pl", "unroll"]:
            return True
        if isinstance(node, ast.Attribute) and node.attr == "Inline" and _dotted(node) == ["pl", "FunctionType", "Inline"]:
            return True
    return False


def _reassigns_reference(program: ast.ClassDef) -> bool:
    """`_reassigns` by `ast.walk` (the definition; tests compare the two)."""
    for func in program.body:
        if not isinstance(func, ast.FunctionDef):
            continue
        bound = [a.arg for a in func.args.args]
        # Both branches of an if yield into its one set of results: the else-branch's yield
        # targets are not second definitions.
        merged = {id(n) for stmt in ast.walk(func) if isinstance(stmt, ast.If) and stmt.orelse
                  and _is_yield(stmt.orelse[-1]) for n in ast.walk(stmt.orelse[-1])}
        for node in ast.walk(func):
            if id(node) in merged:
                continue
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                bound.append(node.id)
            elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Subscript) for t in node.targets):
                bound.extend(t.value.id for t in node.targets
                             if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name))
        if len(bound) != len(set(bound)):
            return True
    return False


def _same_static_shape(a: Sequence[object], b: Sequence[object]) -> bool:
    """Whether two shapes agree wherever both are static (a dynamic extent matches anything)."""
    if len(a) != len(b):
        return False
    return all(x == y or not isinstance(x, int) or not isinstance(y, int) for x, y in zip(a, b))


def _operator_hint(node: ast.AST, op: str, operands: Sequence[Node]) -> str:
    """The pl.* spelling of a Python operator applied to a Tensor / tile (the operands in the
    user's words). A pl.* call takes the tensor first: `2.0 * t` is pl.mul(t, 2.0), `2.0 - t`
    pl.add(pl.neg(t), 2.0)."""
    texts = _operand_text(node).split(", ", 1) if isinstance(node, (ast.BinOp, ast.Compare)) else [_operand_text(node)]
    a, b = texts[0], texts[-1]
    if op in _OPERATOR_ADVICE:
        return _OPERATOR_ADVICE[op].format(a=a, b=b)
    callee, extra = _OPERATOR_CALLS.get(op, ("", ""))
    if not callee:
        return "use the pl.* operator calls for tensors and tiles"
    scalar_first = len(operands) == 2 and isinstance(expr_type(operands[0]), ScalarType)
    if scalar_first and op in ("+", "*"):
        return f"write {callee}({b}, {a}) (the tensor first)"
    if scalar_first and op == "-":
        return f"write pl.add(pl.neg({b}), {a}) (a pl.* call takes the tensor first)"
    if scalar_first and op in ("/", "%"):
        return f"a pl.* call takes the tensor first: fill a tensor with `{a}` (pl.full) and write {callee}(filled, {b})"
    return f"write {callee}({_operand_text(node)}{extra})"


def _operand_text(node: ast.AST) -> str:
    """The operands of an operator expression, as call arguments (`a, b` of `a + b`)."""
    if isinstance(node, ast.BinOp):
        return f"{ast.unparse(node.left)}, {ast.unparse(node.right)}"
    if isinstance(node, ast.Compare):
        return f"{ast.unparse(node.left)}, {ast.unparse(node.comparators[0])}"
    if isinstance(node, ast.UnaryOp):
        return ast.unparse(node.operand)
    if isinstance(node, ast.BoolOp):
        return ", ".join(ast.unparse(v) for v in node.values) or "a, b"
    return "..."


def _kind_word(ty: Type) -> str:
    return {TensorType: "Tensor", TileType: "Tile", ScalarType: "Scalar", TupleType: "tuple"}.get(
        type(ty), type(ty).__name__)


def _is_unplaced_tile(ty: Type | None) -> bool:
    return isinstance(ty, TileType) and ty.memory_space is None
