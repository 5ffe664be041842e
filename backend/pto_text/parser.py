"""Parse PTO-ISA MLIR text (what `backend.pto_text.printer` writes) back into the PTO language,
so `.pto` files round-trip, load through the CLI and run on the simulator."""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, NamedTuple, NoReturn, TypeVar

from backend.pto_text.printer import (
    FREE_OPS,
    KERNEL_KINDS,
    PIPE_INIT_OPERANDS,
    PIPE_INIT_OPS,
    POP_OPS,
    PUSH_OPS,
    SPMD_OPS,
    STATEMENT_PRINTERS,
    VALUE_PRINTERS,
    mlir_type,
)
from languages.gen import pto as P
from languages.layout import physical_2d
from languages.memory_space import MemorySpace
from languages.ops.pto_ops import (ENUM_ATTRS, OP_ENUM_ATTRS, PAD_CODES, PTO_SIGNATURES, SCALAR_CONVERSIONS, alloc_attrs,
                                     pto_operand_problem)
from languages.types import (
    BLAYOUTS,
    DYNAMIC_DIM,
    DYNAMIC_EXTENT,
    ValidDims,
    INDEX,
    SLAYOUTS,
    Attrs,
    AttrValue,
    DataType,
    MemRef,
    NoneType,
    ScalarType,
    TensorType,
    TileType,
    TileView,
    Type,
    ViewType,
)
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.node import NO_SPAN, Span

_T = TypeVar("_T")
#
# `parse_mlir` reads the text `print_mlir` writes back into the PTO language. The MLIR form drops
# a few facts the IR carries; the parser restores them as follows:
#
# * a tensor parameter's shape (its type prints as `!pto.ptr<dtype>`) is the constant shape of
#   its `pto.make_tensor_view`;
# * a parameter's direction is what the kernel does to it (pto.tload / tstore through its views,
#   pto.load_scalar / store_scalar on its pointer): stored and loaded -> InOut, only stored ->
#   Out, else In;
# * a tile's MemRef is named per distinct (space, address) of `pto.alloc_tile`, with the byte
#   size of the largest tile allocated there (Rows * Cols * element bytes: the backend-specific
#   L0C row padding is not in the text);
# * the program is named after the file, functions are "InCore" kernels, loops kind "range".
#
# The parse runs twice: the first run collects the facts that are only known after a use
# (tensor shapes, shared buffer sizes), the second builds every node with its final types.

_TOKEN_PATTERNS: tuple[tuple[str, str], ...] = (
    ("string", r'"(?:[^"\\\n]|\\.)*"'),
    ("ssa", r"%[\w$.#-]+"),
    ("symbol", r"@[\w$.-]+"),
    ("alias", r"#[\w.]+"),
    ("type", r"![\w.]+"),
    ("hex", r"0x[0-9A-Fa-f]+\b"),
    ("shape", r"(?:(?:\d+|\?)x)+[A-Za-z]\w*"),
    ("number", r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\b"),
    ("word", r"[A-Za-z_][\w.$]*"),
    ("punct", r"->|[=,:()\[\]{}<>?]"),
)
_TOKEN_RE = re.compile("|".join(f"(?P<{kind}>{pattern})" for kind, pattern in _TOKEN_PATTERNS))
_SKIP_RE = re.compile(r"(?:\s+|//[^\n]*)+")

_DTYPES_BY_MLIR: dict[str, DataType] = {dt.mlir: dt for dt in DataType}
_SPACES_BY_PTO: dict[str, MemorySpace] = {space.pto_name: space for space in MemorySpace}
_PADS_BY_CODE: dict[int, str] = {code: pad for pad, code in PAD_CODES.items()}
_TILE_BUF_INT_KEYS = ("rows", "cols", "v_row", "v_col", "fractal", "pad")
_TILE_BUF_KEYS = ("loc", "dtype", "rows", "cols", "v_row", "v_col", "blayout", "slayout", "fractal", "pad")
_VIEW_KINDS = ("tensor_view", "partition_tensor_view")
# tile_buf field tokens -> the parsed type (bounded; types are immutable, so sharing is safe).
_TILE_BUFS: dict[tuple[tuple[str, str], ...], TileType] = {}
_TILE_BUF_MEMO = 4096
# eof tokens ending every token list: a peek a few tokens ahead needs no bounds check.
_LOOKAHEAD = 4
_COMPARE_OPS = frozenset({"arith.cmpi", "arith.cmpf"})
_KERNEL_FUNCTION_TYPE = "InCore"


class _Token(NamedTuple):
    """A token (a named tuple: the tokenizer makes one per word of every fuzzed kernel, and a
    frozen dataclass costs several times as much to build)."""

    kind: str  # one of _TOKEN_PATTERNS' kinds, or "eof"
    text: str
    line: int
    col: int

    def describe(self) -> str:
        return "end of input" if self.kind == "eof" else f"`{self.text}`"


# One scanner for whitespace / comments and every token kind, so a whole text is one finditer
# walk; positions are tracked incrementally (a parse of every fuzzed kernel makes this hot).
_SCAN_RE = re.compile(rf"(?P<skip>{_SKIP_RE.pattern})|{_TOKEN_RE.pattern}")


def _tokenize(text: str, filename: str) -> list[_Token]:
    tokens: list[_Token] = []
    line, line_start, offset = 1, 0, 0
    for match in _SCAN_RE.finditer(text):
        if match.start() != offset:
            break  # a character no token matches: reported below
        offset = match.end()
        kind = match.lastgroup
        if kind == "skip":
            newlines = match.group().count("\n")
            if newlines:
                line += newlines
                line_start = match.group().rindex("\n") + match.start() + 1
            continue
        assert kind is not None
        tokens.append(_Token(kind, match.group(), line, match.start() - line_start + 1))
    if offset < len(text):
        raise CompileError(Diagnostic("parse", f"unexpected character `{text[offset]}`",
                                      Span(filename, line, offset - line_start + 1),
                                      "this is not PTO-ISA MLIR syntax"))
    tokens.extend([_Token("eof", "", line, len(text) - line_start + 1)] * _LOOKAHEAD)
    return tokens


@dataclass
class _Facts:
    """What the first parse learns for the second (keys start with the function name)."""

    tensor_shapes: dict[tuple[str, str], tuple[int, ...]] = field(default_factory=dict)
    buffer_bytes: dict[tuple[str, MemorySpace, int], int] = field(default_factory=dict)


@dataclass
class _FunctionScope:
    name: str
    scopes: list[dict[str, P.Var]] = field(default_factory=lambda: [{}])
    constants: dict[str, int | float | bool] = field(default_factory=dict)
    buffers: dict[tuple[MemorySpace, int], str] = field(default_factory=dict)
    view_param: dict[str, str] = field(default_factory=dict)  # tensor / partition view -> parameter
    loaded: set[str] = field(default_factory=set)
    stored: set[str] = field(default_factory=set)


_ValueParser = Callable[["_MlirParser"], P.Call]


class _MlirParser:
    """Recursive descent over the token list; one method per construct of the printed form."""

    def __init__(self, tokens: list[_Token], filename: str, facts: _Facts) -> None:
        self.filename = filename
        self.tokens = tokens
        self.pos = 0
        self.facts = facts
        self.fn = _FunctionScope("")
        # The SSA operand tokens of the op being parsed, in text order (== argument order, list
        # elements included): where an operand-kind error points.
        self.uses: list[_Token] = []
        self.regions = 0  # scf regions open around the statement being parsed

    # -- token primitives ----------------------------------------------------------------------

    def peek(self, ahead: int = 0) -> _Token:
        try:  # the token list ends in eof tokens (see _LOOKAHEAD): no clamping per peek
            return self.tokens[self.pos + ahead]
        except IndexError:
            return self.tokens[-1]

    def at(self, text: str, ahead: int = 0) -> bool:
        token = self.peek(ahead)
        return token.kind != "string" and token.text == text

    def advance(self) -> _Token:
        token = self.tokens[self.pos]
        if token.kind != "eof":  # the first eof is where the position stops, as before
            self.pos += 1
        return token

    def span_of(self, token: _Token) -> Span:
        return Span(self.filename, token.line, token.col)

    def fail(self, message: str, token: _Token | None = None, hint: str = "") -> NoReturn:
        raise CompileError(Diagnostic("parse", message, self.span_of(token or self.peek()), hint))

    def expected(self, what: str, hint: str = "") -> NoReturn:
        self.fail(f"expected {what}, found {self.peek().describe()}", hint=hint)

    def expect(self, text: str, context: str = "") -> _Token:
        if not self.at(text):
            self.expected(f"`{text}`" + (f" {context}" if context else ""))
        return self.advance()

    def expect_kind(self, kind: str, what: str) -> _Token:
        if self.peek().kind != kind:
            self.expected(what)
        return self.advance()

    def accept(self, text: str) -> bool:
        if self.at(text):
            self.advance()
            return True
        return False

    def integer(self, what: str) -> int:
        token = self.peek()
        if token.kind != "number" or not re.fullmatch(r"-?\d+", token.text):
            self.expected(what)
        return int(self.advance().text)

    def word(self, what: str) -> str:
        return self.expect_kind("word", what).text

    # -- names ---------------------------------------------------------------------------------

    def lookup(self, token: _Token) -> P.Var:
        name = token.text[1:]
        for scope in reversed(self.fn.scopes):
            if name in scope:
                return scope[name]
        self.fail(f"`{token.text}` is used before it is defined", token,
                  "every SSA value must be defined above its use (a parameter, an op result, a loop value)")

    def operand(self) -> P.Var:
        token = self.expect_kind("ssa", "an SSA value such as `%0`")
        self.uses.append(token)
        return self.lookup(token)

    def define(self, token: _Token, ty: Type) -> P.Var:
        name = token.text[1:]
        if any(name in scope for scope in self.fn.scopes):
            self.fail(f"`{token.text}` is defined twice", token, "SSA values are defined exactly once")
        var = P.Var(name=name, type=ty, span=self.span_of(token))
        self.fn.scopes[-1][name] = var
        return var

    def operand_list(self) -> P.TupleExpr:
        self.expect("[", "opening an operand list")
        items: list[P.Var] = []
        while not self.at("]"):
            items.append(self.operand())
            if not self.accept(","):
                break
        self.expect("]", "closing the operand list")
        return P.TupleExpr(elements=tuple(items))

    def constant_ints(self, values: P.TupleExpr, what: str, token: _Token) -> tuple[int, ...]:
        out: list[int] = []
        for element in values.elements:
            assert isinstance(element, P.Var)
            value = self.fn.constants.get(element.name)
            if not isinstance(value, int) or isinstance(value, bool):
                self.fail(f"{what} must be integer constants, but `%{element.name}` is not one", token,
                          "define it with `arith.constant N : index` above")
            out.append(value)
        return tuple(out)

    def extents(self, values: P.TupleExpr) -> tuple[tuple[int, ...], bool]:
        """Size / valid-extent operands: each constant's value, DYNAMIC_DIM for a runtime one;
        and whether there is a runtime one (the operands are then kept)."""
        out: list[int] = []
        for element in values.elements:
            assert isinstance(element, P.Var)
            value = self.fn.constants.get(element.name)
            out.append(value if isinstance(value, int) and not isinstance(value, bool) else DYNAMIC_DIM)
        return tuple(out), DYNAMIC_DIM in out

    def int_list(self, what: str) -> tuple[int, ...]:
        self.expect("[", f"opening {what}")
        items: list[int] = []
        while not self.at("]"):
            items.append(self.integer(f"an integer in {what}"))
            if not self.accept(","):
                break
        self.expect("]", f"closing {what}")
        return tuple(items)

    # -- types ---------------------------------------------------------------------------------

    def dtype(self) -> DataType:
        token = self.peek()
        if token.kind != "word" or token.text not in _DTYPES_BY_MLIR:
            self.expected("an element type such as `f32`, `i32` or `index`")
        return _DTYPES_BY_MLIR[self.advance().text]

    def type(self) -> Type:
        token = self.peek()
        if token.kind == "word" and token.text == "vector":  # vector<4xi16> (TMRGSORT's counts)
            self.advance()
            self.expect("<", "after `vector`")
            vector = self.view_type("vector")
            self.expect(">", "closing `vector<`")
            return vector
        if token.kind == "word":
            return ScalarType(self.dtype())
        if token.kind != "type":
            self.expected("a type such as `index` or `!pto.tile_buf<...>`")
        self.advance()
        self.expect("<", f"after `{token.text}`")
        if token.text == "!pto.ptr":
            # The shape is the constant shape of the parameter's pto.make_tensor_view.
            ty: Type = TensorType((), self.dtype())
        elif token.text == "!pto.tile_buf":
            ty = self.tile_buf(token)
        elif token.text.removeprefix("!pto.") in _VIEW_KINDS:
            ty = self.view_type(token.text.removeprefix("!pto."))
        else:
            self.fail(f"unknown type `{token.text}`", token,
                      "PTO types are !pto.ptr, !pto.tile_buf, !pto.tensor_view, !pto.partition_tensor_view")
        self.expect(">", f"closing `{token.text}<...`")
        return ty

    def view_type(self, kind: str) -> ViewType:
        token = self.expect_kind("shape", "a shape such as `16x32xf32`")
        *dims, element = token.text.split("x")
        if element not in _DTYPES_BY_MLIR:
            self.fail(f"unknown element type `{element}`", token)
        if not all(d == "?" or d.isdigit() for d in dims):
            self.fail(f"malformed view shape `{token.text}` (expected dims such as `16x32xf32`)", token)
        if kind == "tensor_view":
            if any(d != "?" for d in dims):
                self.fail("a tensor view's dimensions print as `?`", token)
            return ViewType(kind, tuple(0 for _ in dims), _DTYPES_BY_MLIR[element])
        if kind != "partition_tensor_view" and any(d == "?" for d in dims):
            self.fail("this view's dimensions must be static", token)
        return ViewType(kind, tuple(DYNAMIC_DIM if d == "?" else int(d) for d in dims), _DTYPES_BY_MLIR[element])

    def tile_buf(self, start: _Token) -> TileType:
        """The fields of a `!pto.tile_buf<...>` up to (not including) its `>`. A text seen
        before gives the same type object back: kernels spell each buffer type at every use,
        and shared type objects are also what the verifiers' summaries and the simulator's
        access caches key on."""
        end = self.pos
        tokens = self.tokens
        while tokens[end].kind not in ("eof",) and tokens[end].text != ">":
            end += 1
        key = tuple((t.kind, t.text) for t in tokens[self.pos:end])
        known = _TILE_BUFS.get(key)
        if known is not None:
            self.pos = end
            return known
        parsed = self._tile_buf_fields(start)
        if self.pos == end:
            if len(_TILE_BUFS) >= _TILE_BUF_MEMO:
                _TILE_BUFS.clear()
            _TILE_BUFS[key] = parsed
        return parsed

    def _tile_buf_fields(self, start: _Token) -> TileType:
        fields: dict[str, _Token] = {}
        while not self.at(">"):
            key = self.expect_kind("word", "a tile_buf field such as `rows=16`")
            if key.text in fields:
                self.fail(f"tile_buf field `{key.text}` is given twice", key)
            self.expect("=", f"after `{key.text}`")
            fields[key.text] = self.advance()
            if not self.accept(","):
                break
        missing = [k for k in _TILE_BUF_KEYS if k not in fields]
        if missing:
            self.fail(f"`!pto.tile_buf` is missing {', '.join(k + '=' for k in missing)}", self.peek())
        unknown = sorted(set(fields) - set(_TILE_BUF_KEYS) - {"compact"})
        if unknown:
            self.fail(f"unknown tile_buf field `{unknown[0]}`", fields[unknown[0]])
        # A runtime valid extent prints `?` (the handle carries it).
        dynamic = {key for key in ("v_row", "v_col") if fields[key].text == "?"}
        ints = {key: self.field_int(fields[key], key) for key in _TILE_BUF_INT_KEYS if key not in dynamic}
        space = self.field_choice(fields["loc"], "loc", _SPACES_BY_PTO)
        dtype = self.field_choice(fields["dtype"], "dtype", _DTYPES_BY_MLIR)
        blayout = self.field_choice(fields["blayout"], "blayout", {b: b for b in BLAYOUTS})
        slayout = self.field_choice(fields["slayout"], "slayout", {s: s for s in SLAYOUTS})
        pad = self.field_choice(fields["pad"], "pad", {str(c): p for c, p in _PADS_BY_CODE.items()})
        compact = "compact" in fields and self.field_choice(fields["compact"], "compact", {"1": True, "0": False})
        shape = (ints["rows"], ints["cols"])
        valid: ValidDims = tuple(DYNAMIC_EXTENT if key in dynamic else ints[key] for key in ("v_row", "v_col"))
        view = TileView(blayout, slayout, ints["fractal"], pad, compact)
        return TileType(shape, dtype, None if valid == shape else valid, space, view, None)

    def field_int(self, token: _Token, key: str) -> int:
        if token.kind != "number" or not token.text.isdigit():
            self.fail(f"tile_buf field `{key}` must be a non-negative integer, found {token.describe()}", token)
        return int(token.text)

    def field_choice(self, token: _Token, key: str, choices: dict[str, _T]) -> _T:
        if token.text not in choices or token.kind == "string":
            self.fail(f"tile_buf field `{key}` must be one of {', '.join(choices)}, found {token.describe()}", token)
        return choices[token.text]

    def check_type(self, var: P.Var, printed: Type, token: _Token) -> None:
        """A use's printed type must be its definition's (memrefs and tensor shapes do not print)."""
        if var.type is printed:
            return
        if mlir_type(var.type) != mlir_type(printed):
            self.fail(f"`%{var.name}` has type {mlir_type(var.type)}, but is used here as {mlir_type(printed)}", token)

    def typed_operand(self) -> P.Var:
        token = self.peek()
        var = self.operand()
        self.expect(":", f"and the type of `{token.text}`")
        self.check_type(var, self.type(), token)
        return var

    # -- module / function ---------------------------------------------------------------------

    def program(self) -> P.Program:
        start = self.expect("module", "starting the PTO-ISA module")
        name = _program_name(self.filename)
        if self.peek().kind == "symbol":
            name = self.advance().text[1:]
        target_arch = ""
        if self.accept("attributes"):
            self.expect("{", "opening the module attributes")
            self.expect("pto.target_arch", "(the only module attribute)")
            self.expect("=", "after `pto.target_arch`")
            token = self.peek()
            if token.kind != "string":
                self.expected("the target architecture as a string (\"a5\")")
            target_arch = self.advance().text[1:-1]
            self.expect("}", "closing the module attributes")
        self.expect("{", "opening the module body")
        functions: list[P.Function] = []
        while self.at("func.func"):
            functions.append(self.function())
        self.expect("}", "closing the module (or `func.func`)")
        if self.peek().kind != "eof":
            self.expected("end of input after the module")
        return P.Program(name=name, functions=tuple(functions), target_arch=target_arch, span=self.span_of(start))

    def function(self) -> P.Function:
        start = self.advance()
        name = self.expect_kind("symbol", "a function name such as `@kernel`").text[1:]
        self.fn = _FunctionScope(name)
        self.expect("(", "opening the parameter list")
        params: list[P.Var] = []
        while not self.at(")"):
            token = self.expect_kind("ssa", "a parameter such as `%arg0`")
            self.expect(":", f"and the type of `{token.text}`")
            ty = self.type()
            if isinstance(ty, TensorType):
                ty = TensorType(self.facts.tensor_shapes.get((name, token.text[1:]), ()), ty.dtype)
            elif not isinstance(ty, ScalarType):
                self.fail("a kernel parameter is a tensor pointer or a scalar", token)
            params.append(self.define(token, ty))
            if not self.accept(","):
                break
        self.expect(")", "closing the parameter list")
        func_type = _KERNEL_FUNCTION_TYPE
        if self.accept("attributes"):
            func_type = self.kernel_kind()
        self.expect("{", "opening the function body")
        body = self.block()
        self.check_terminator(name, body, self.tokens[self.pos - 1])
        return P.Function(name=name, func_type=func_type,
                          params=tuple(P.Param(var=v, direction=self.direction(v), span=v.span) for v in params),
                          return_types=(), body=body, attrs=(), span=self.span_of(start))

    def check_terminator(self, name: str, body: tuple[P.Stmt, ...], closing: _Token) -> None:
        """A function body ends in `return` (func.func's terminator: MLIR has no implicit one)."""
        if not body or not isinstance(body[-1], P.ReturnStmt):
            self.fail(f"function @{name} has no terminator: its body must end with `return`", closing,
                      "add `return` as the last line of the function body")

    def region_terminator(self, what: str, body: tuple[P.Stmt, ...], count: int, closing: _Token) -> None:
        """A region that defines `count` results ends in an `scf.yield` of that many values."""
        last = body[-1] if body else None
        if count and not (isinstance(last, P.YieldStmt) and len(last.values) == count):
            given = f"ends in an scf.yield of {len(last.values)}" if isinstance(last, P.YieldStmt) else "has no scf.yield"
            self.fail(f"{what} defines {count} result(s) but its region {given}", closing,
                      f"end the region with `scf.yield` of {count} value(s) and their types")

    def kernel_kind(self) -> str:
        """`{pto.kernel_kind = #pto.kernel_kind<cube|vector>}`: the side of a mixed kernel."""
        self.expect("{", "opening the function attributes")
        self.expect("pto.kernel_kind", "(the only function attribute)")
        self.expect("=", "after `pto.kernel_kind`")
        token = self.peek()
        kind = _parse_enum(self, "kernel_kind")
        by_kind = {k: t for t, k in KERNEL_KINDS.items()}
        if kind not in by_kind:
            self.fail(f"unknown kernel kind `{kind}` (cube or vector)", token)
        self.expect("}", "closing the function attributes")
        return by_kind[kind]

    def direction(self, param: P.Var) -> str:
        if not isinstance(param.type, TensorType) or param.name not in self.fn.stored:
            return "In"
        return "InOut" if param.name in self.fn.loaded else "Out"

    # -- statements ----------------------------------------------------------------------------

    def block(self) -> tuple[P.Stmt, ...]:
        """Statements up to and including the closing `}`."""
        body: list[P.Stmt] = []
        while not self.accept("}"):
            body.append(self.statement())
        return tuple(body)

    def region(self, bindings: tuple[P.Var, ...]) -> tuple[P.Stmt, ...]:
        self.expect("{", "opening the region")
        self.fn.scopes.append({v.name: v for v in bindings})
        self.regions += 1
        try:
            return self.block()
        finally:
            self.fn.scopes.pop()
            self.regions -= 1

    def statement(self) -> P.Stmt:
        token = self.peek()
        if token.kind == "ssa":
            return self.assignment()
        if token.kind != "word":
            self.expected("an operation or `}`")
        if token.text == "scf.for":
            return self.for_stmt(None)
        if token.text == "scf.if":
            return self.if_stmt(None)
        if token.text == "scf.yield":
            return self.yield_stmt()
        if token.text == "return":
            if self.regions:
                self.fail("`return` inside a region: only a function body returns", token,
                          "end the scf region with `scf.yield` (or nothing), and return after it")
            self.advance()
            span = self.loc()
            if not self.at("}"):
                self.fail("`return` must be the last operation of the function body", self.peek(),
                          "remove the operations after `return`, or move `return` to the end")
            return P.ReturnStmt(values=(), span=span)
        return self.instruction()

    def loc(self) -> Span:
        """An optional trailing `loc("file":line:col)`; NO_SPAN when absent."""
        if not (self.at("loc") and self.at("(", 1)):
            return NO_SPAN
        self.advance()
        self.advance()
        file = self.expect_kind("string", 'a file name such as "kernel.py"').text[1:-1]
        self.expect(":", "after the file name")
        line = self.integer("a line number")
        self.expect(":", "after the line number")
        col = self.integer("a column number")
        self.expect(")", "closing `loc(`")
        return Span(file, line, col)

    def result_names(self) -> tuple[_Token, list[str]]:
        token = self.advance()
        count = 1
        if self.accept(":"):
            count = self.integer("the number of results")
            if count < 1:
                self.fail("a result group has at least one value", token)
        self.expect("=", f"after `{token.text}`")
        base = token.text[1:]
        return token, [base] if count == 1 else [f"{base}#{i}" for i in range(count)]

    def define_results(self, token: _Token, names: list[str], types: list[Type]) -> tuple[P.Var, ...]:
        if len(names) != len(types):
            self.fail(f"{len(names)} result names for {len(types)} region results", token)
        return tuple(self.define(_Token("ssa", "%" + n, token.line, token.col), t) for n, t in zip(names, types))

    def assignment(self) -> P.Stmt:
        token, names = self.result_names()
        if self.at("scf.for"):
            return self.for_stmt((token, names))
        if self.at("scf.if"):
            return self.if_stmt((token, names))
        if len(names) != 1:
            self.fail("only scf.for / scf.if define several results", token)
        op = self.expect_kind("word", "an operation name")
        signature = PTO_SIGNATURES.get(op.text)
        if signature is not None and signature.result is None:
            self.fail(f"{op.text} defines no value: write it as a statement, `{op.text} {signature.text}`", op,
                      "destination-passing instructions write into their outs() tile")
        parser = _VALUE_PARSERS.get(op.text)
        if parser is None:
            parser = _parse_arith if op.text.startswith("arith.") else _parse_generic_value
        self.uses = []
        call = parser(self)
        call = replace(call, op=op.text)
        self.check_operands(op, call.args, call.type)
        span = self.loc()
        if op.text == "arith.constant":
            span = self.span_of(token)  # constants never print a location
        else:
            # Without a loc(...), a check of a hand-written .pto points at its own line.
            span = span if span != NO_SPAN else self.span_of(token)
            call = replace(call, span=span)
        target = self.define(token, call.type)
        self.after_value(target, call)
        self.note_memory_access(call)
        return P.AssignStmt(target=target, value=call, span=span)

    def after_value(self, target: P.Var, call: P.Call) -> None:
        """Bookkeeping the restored facts need (constants, views of parameters)."""
        if call.op == "arith.constant":
            literal = call.args[0]
            if isinstance(literal, (P.ConstInt, P.ConstFloat, P.ConstBool)):
                self.fn.constants[target.name] = literal.value
        elif call.op in ("pto.make_tensor_view", "pto.partition_view"):
            source = call.args[0]
            assert isinstance(source, P.Var)
            self.fn.view_param[target.name] = self.fn.view_param.get(source.name, source.name)

    def instruction(self) -> P.Stmt:
        op = self.advance()
        signature = PTO_SIGNATURES.get(op.text)
        if signature is not None and signature.result is not None:
            self.fail(f"{op.text} defines a value: write `%name = {op.text} ...`", op,
                      f"its form is {op.text} {signature.text}")
        self.uses = []
        if op.text in PUSH_OPS:
            args, attrs = self.push_operands()
        elif op.text in FREE_OPS:
            args, attrs = (), self.attr_dict()
        elif op.text in _STATEMENT_PARSERS:
            # Before the generic ins/outs form: pto.tmrgsort's format 2 has two destinations.
            args, attrs = _STATEMENT_PARSERS[op.text](self)
        elif self.at("ins"):
            args, attrs = self.dps_operands()
        elif op.text == "pto.set_validshape":
            args, attrs = self.set_validshape(), ()
        else:
            args, attrs = self.generic_operands()
        self.check_operands(op, args, None)
        span = self.loc()
        call = P.Call(op=op.text, args=args, attrs=attrs, type=NoneType(), span=span)
        self.note_memory_access(call)
        return P.EvalStmt(value=call, span=span)

    def check_operands(self, op: _Token, args: tuple[P.Expr, ...], result: Type | None) -> None:
        """The op's operand and result kinds against its signature in the op registry, reported
        at the offending operand (at the op for a wrong count or result)."""
        found = pto_operand_problem(op.text, args, result)
        if found is None:
            return
        index, message = found
        self.fail(message, (self._operand_token(args, index) if index is not None else None) or op,
                  "PTO instructions read and write tiles in fixed memory spaces: move the value where the "
                  "instruction expects it (pto.tmov, pto.textract, pto.tload), or use the instruction for its space")

    def _operand_token(self, args: tuple[P.Expr, ...], index: int) -> _Token | None:
        position = 0
        for arg in args[:index]:
            position += len(arg.elements) if isinstance(arg, P.TupleExpr) else 1
        counted = sum(len(a.elements) if isinstance(a, P.TupleExpr) else 1 for a in args)
        return self.uses[position] if counted == len(self.uses) and position < len(self.uses) else None

    def grouped_operands(self, clause: str) -> tuple[list[P.Var], Attrs]:
        """`%a, %b[ {attrs}] : T0, T1` inside `ins(` / `outs(`: the operands, then their types."""
        tokens: list[_Token] = []
        values: list[P.Var] = []
        while self.peek().kind == "ssa":
            tokens.append(self.peek())
            values.append(self.operand())
            if not self.accept(","):
                break
        attrs = self.attr_dict()
        self.expect(":", f"and the types of the `{clause}(` operands")
        for index, (var, token) in enumerate(zip(values, tokens)):
            if index:
                self.expect(",", f"between the `{clause}(` types")
            self.check_type(var, self.type(), token)
        return values, attrs

    def dps_operands(self) -> tuple[tuple[P.Expr, ...], Attrs]:
        self.expect("ins")
        self.expect("(", "after `ins`")
        ins, operand_attrs = self.grouped_operands("ins")
        self.expect(")", "closing `ins(`")
        self.expect("outs", "after `ins(...)`")
        self.expect("(", "after `outs`")
        outs, _ = self.grouped_operands("outs")
        if len(outs) != 1:
            self.fail("one destination in `outs(`", self.peek())
        self.expect(")", "closing `outs(` (one destination)")
        return (*ins, *outs), (*operand_attrs, *self.attr_dict())

    def push_operands(self) -> tuple[tuple[P.Expr, ...], Attrs]:
        """`(%tile : T) {[id = I, ]split = N}` of a cross-core push (no outs)."""
        self.expect("(", "opening the pushed tile")
        tile = self.typed_operand()
        self.expect(")", "closing the pushed tile (one tile)")
        return (tile,), self.attr_dict()

    def set_validshape(self) -> tuple[P.Expr, ...]:
        token = self.peek()
        tile = self.operand()
        self.expect(",", "after the tile")
        rows = self.operand()
        self.expect(",", "after the valid rows")
        cols = self.operand()
        self.expect(":", "and the tile type")
        self.check_type(tile, self.type(), token)
        return (tile, rows, cols)

    def generic_operands(self) -> tuple[tuple[P.Expr, ...], Attrs]:
        args: list[P.Var] = []
        while self.peek().kind == "ssa":
            args.append(self.typed_operand())
            if not self.accept(","):
                break
        return tuple(args), self.attr_dict()

    def note_memory_access(self, call: P.Call) -> None:
        if call.op == "pto.tload" and call.args and isinstance(call.args[0], P.Var):
            self.fn.loaded.add(self.fn.view_param.get(call.args[0].name, ""))
        elif call.op == "pto.tstore" and call.args and isinstance(call.args[-1], P.Var):
            self.fn.stored.add(self.fn.view_param.get(call.args[-1].name, ""))
        # Scalar access addresses the parameter's pointer itself (no tensor view).
        elif call.op == "pto.load_scalar" and call.args and isinstance(call.args[0], P.Var):
            self.fn.loaded.add(call.args[0].name)
        elif call.op == "pto.store_scalar" and len(call.args) > 1 and isinstance(call.args[1], P.Var):
            self.fn.stored.add(call.args[1].name)

    # -- attributes ----------------------------------------------------------------------------

    def attr_dict(self) -> Attrs:
        if not self.at("{"):
            return ()
        self.advance()
        attrs: list[tuple[str, AttrValue]] = []
        while not self.at("}"):
            key = self.word("an attribute name")
            self.expect("=", f"after attribute `{key}`")
            attrs.append((key, self.attr_value()))
            if not self.accept(","):
                break
        self.expect("}", "closing the attribute dictionary")
        return tuple(attrs)

    def attr_value(self) -> AttrValue:
        token = self.peek()
        if token.kind == "string":
            return self.advance().text[1:-1]
        if token.kind == "number":
            text = self.advance().text
            if self.accept(":"):  # a typed integer attribute (`1 : i32`, TYPED_INT_ATTRS)
                self.word("an integer type")
            return int(text) if re.fullmatch(r"-?\d+", text) else float(text)
        if token.text == "[":
            return self.int_list("an integer list attribute")
        if token.kind == "alias":
            return self.enum_attr()
        if token.kind == "symbol":
            return self.advance().text[1:]
        if token.kind == "word":
            if token.text in ("true", "false"):
                return self.advance().text == "true"
            if token.text in _DTYPES_BY_MLIR:
                return self.dtype()
            if token.text.startswith("MemorySpace."):
                space = token.text.removeprefix("MemorySpace.")
                if space in MemorySpace.__members__:
                    self.advance()
                    return MemorySpace[space]
        self.expected("an attribute value (a string, number, boolean, integer list or element type)")

    def enum_attr(self) -> AttrValue:
        """`#pto<round_mode ROUND>` (read back as the IR's lower-case mode),
        `#pto.address_space<vec>` (a memory space) or `#pto.<kind><value>` (its value)."""
        alias = self.advance()
        self.expect("<", f"after `{alias.text}`")
        if alias.text == "#pto":
            enum = self.word("an enum name such as `round_mode`")
            if enum not in ENUM_ATTRS.values() and enum not in OP_ENUM_ATTRS.values():
                self.fail(f"unknown PTO enum `{enum}`", alias)
            value: AttrValue = self.word(f"a {enum} value").lower()
        else:
            kind = alias.text.removeprefix("#pto.")
            word = self.word(f"a {kind} value")
            value = _SPACES_BY_PTO[word] if kind == "address_space" and word in _SPACES_BY_PTO else word
        self.expect(">", f"closing `{alias.text}<`")
        return value

    # -- regions -------------------------------------------------------------------------------

    def region_types(self) -> list[Type]:
        self.expect("->", "before the result types")
        self.expect("(", "opening the result types")
        types: list[Type] = []
        while not self.at(")"):
            types.append(self.type())
            if not self.accept(","):
                break
        self.expect(")", "closing the result types")
        return types

    def for_stmt(self, results: tuple[_Token, list[str]] | None) -> P.ForStmt:
        self.advance()
        loop_token = self.expect_kind("ssa", "the loop variable")
        self.expect("=", "after the loop variable")
        start = self.operand()
        self.expect("to", "after the lower bound")
        stop = self.operand()
        self.expect("step", "after the upper bound")
        step = self.operand()
        carried: list[tuple[_Token, P.Var]] = []
        types: list[Type] = []
        if self.accept("iter_args"):
            self.expect("(", "after `iter_args`")
            while not self.at(")"):
                name = self.expect_kind("ssa", "a loop-carried value")
                self.expect("=", f"after `{name.text}`")
                carried.append((name, self.operand()))
                if not self.accept(","):
                    break
            self.expect(")", "closing `iter_args(`")
            types = self.region_types()
            if len(types) != len(carried):
                self.fail(f"{len(carried)} iter_args but {len(types)} result types", loop_token)
            types = [self.carried_type(init, ty, name) for (name, init), ty in zip(carried, types)]
        self.fn.scopes.append({})
        try:
            loop_var = self.define(loop_token, INDEX)
            iter_args = tuple(P.IterArg(var=self.define(name, ty), init=init, span=self.span_of(name))
                              for (name, init), ty in zip(carried, types))
            self.expect("{", "opening the loop body")
            self.regions += 1
            body = self.block()
            self.region_terminator("scf.for", body, len(carried), self.tokens[self.pos - 1])
        finally:
            self.fn.scopes.pop()
            self.regions -= 1
        span = self.loc()
        defined = self.define_results(results[0], results[1], types) if results else ()
        return P.ForStmt(loop_var=loop_var, start=start, stop=stop, step=step, iter_args=iter_args, body=body,
                         results=defined, kind="range", attrs=(), span=span)

    def if_stmt(self, results: tuple[_Token, list[str]] | None) -> P.IfStmt:
        self.advance()
        cond = self.operand()
        types = self.region_types() if self.at("->") else []
        then_body = self.region(())
        self.region_terminator("scf.if", then_body, len(types), self.tokens[self.pos - 1])
        else_body: tuple[P.Stmt, ...] = ()
        if self.accept("else"):
            else_body = self.region(())
            self.region_terminator("scf.if's else", else_body, len(types), self.tokens[self.pos - 1])
        elif types:
            self.fail(f"scf.if defines {len(types)} result(s) but has no else region", self.peek(),
                      "an scf.if with results yields them from both regions: add `else { scf.yield ... }`")
        span = self.loc()
        last = then_body[-1] if then_body else None
        if isinstance(last, P.YieldStmt) and len(last.values) == len(types):
            types = [self.carried_type(value, ty, results[0] if results else self.peek())
                     for value, ty in zip(last.values, types)]
        defined = self.define_results(results[0], results[1], types) if results else ()
        return P.IfStmt(cond=cond, then_body=then_body, else_body=else_body, results=defined, span=span)

    def carried_type(self, value: P.Expr, printed: Type, token: _Token) -> Type:
        """A region value is the buffer it is initialised from / yields (the MemRef does not print)."""
        assert isinstance(value, P.Var)
        self.check_type(value, printed, token)
        return value.type

    def yield_stmt(self) -> P.YieldStmt:
        start = self.advance()
        values: list[P.Var] = []
        tokens: list[_Token] = []
        while self.peek().kind == "ssa":
            tokens.append(self.peek())
            values.append(self.operand())
            if not self.accept(","):
                break
        if values:
            self.expect(":", "and the yielded types")
            for index, (var, token) in enumerate(zip(values, tokens)):
                if index:
                    self.expect(",", "between the yielded types")
                self.check_type(var, self.type(), token)
        return P.YieldStmt(values=tuple(values), span=self.span_of(start))

    # -- buffers -------------------------------------------------------------------------------

    def memref(self, tile: TileType, offset: int) -> MemRef:
        """Tiles allocated at one (space, address) share a MemRef, sized for the largest."""
        assert tile.memory_space is not None
        key = (tile.memory_space, offset)
        own = physical_2d(tile.shape)[0] * tile.shape[-1] * tile.dtype.byte_width
        fact = (self.fn.name, tile.memory_space, offset)
        size = max(own, self.facts.buffer_bytes.get(fact, 0))
        self.facts.buffer_bytes[fact] = size
        name = self.fn.buffers.setdefault(key, f"mem_{tile.memory_space.name.lower()}_{len(self.fn.buffers)}")
        return MemRef(name, tile.memory_space, offset, size)



def _program_name(filename: str) -> str:
    stem = Path(filename).stem
    return stem if stem and not filename.startswith("<") else "module"


# -- value ops: one parser per printed form (the same keys as VALUE_PRINTERS) ---------------------


def _parse_constant(p: _MlirParser) -> P.Call:
    token = p.peek()
    literal: P.Expr
    if token.kind == "word" and token.text in ("true", "false"):
        p.advance()
        literal = P.ConstBool(value=token.text == "true")
        return P.Call(op="", args=(literal,), attrs=(), type=ScalarType(DataType.BOOL))
    if token.kind == "word" and token.text == "dense":  # a splat vector: dense<N> : vector<..>
        p.advance()
        p.expect("<", "after `dense`")
        value = p.integer("the splat value")
        p.expect(">", "closing `dense<`")
        p.expect(":", "and the vector type")
        vector = p.type()
        if not isinstance(vector, ViewType) or vector.kind != "vector":
            p.fail("a dense constant is a vector", token)
        return P.Call(op="", args=(P.ConstInt(value=value, dtype=vector.dtype),), attrs=(), type=vector)
    if token.kind not in ("number", "hex"):
        p.expected("a literal (an integer, a float, `true` or `false`)")
    p.advance()
    p.expect(":", "and the constant's type")
    dtype = p.dtype()
    if dtype.is_float:
        literal = P.ConstFloat(value=_float_value(token.text, dtype), dtype=dtype)
    elif token.kind == "number" and re.fullmatch(r"-?\d+", token.text):
        literal = P.ConstInt(value=int(token.text), dtype=dtype)
    else:
        p.fail(f"an integer constant of type {dtype.mlir} cannot be {token.describe()}", token)
    return P.Call(op="", args=(literal,), attrs=(), type=ScalarType(dtype))


def _float_value(text: str, dtype: DataType) -> float:
    """The inverse of `float_literal`: a decimal, or the dtype's bit pattern in hex."""
    if not text.startswith("0x"):
        return float(text)
    bits = int(text, 16)
    if dtype is DataType.FP32:
        return float(struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0])
    if dtype is DataType.FP16:
        return float(struct.unpack("<e", struct.pack("<H", bits & 0xFFFF))[0])
    if dtype is DataType.BF16:
        return float(struct.unpack("<f", struct.pack("<I", (bits & 0xFFFF) << 16))[0])
    return float(struct.unpack("<d", struct.pack("<Q", bits & 0xFFFFFFFFFFFFFFFF))[0])


def _parse_make_tensor_view(p: _MlirParser) -> P.Call:
    token = p.peek()
    pointer = p.operand()
    if not isinstance(pointer.type, TensorType):
        p.fail(f"pto.make_tensor_view takes a tensor pointer parameter, `{token.text}` is not one", token)
    p.expect(",", "after the pointer")
    p.expect("shape", "(the view's shape operands)")
    p.expect("=", "after `shape`")
    shape = p.operand_list()
    p.expect(",", "after the shape")
    p.expect("strides", "(the view's stride operands)")
    p.expect("=", "after `strides`")
    strides = p.operand_list()
    if len(strides.elements) != len(shape.elements):
        p.fail("a tensor view has one stride per dimension", token)
    p.expect("{", "opening the layout attribute")
    p.expect("layout", "(the only attribute of pto.make_tensor_view)")
    p.expect("=", "after `layout`")
    p.expect_kind("alias", "`#pto.layout<nd>` or `#pto.layout<dn>`")
    p.expect("<", "after `#pto.layout`")
    layout = p.word("a layout (`nd` or `dn`)")
    if layout not in ("nd", "dn"):
        p.fail(f"unknown tensor layout `{layout}` (nd or dn)", p.tokens[p.pos - 1])
    p.expect(">", "closing `#pto.layout<`")
    p.expect("}", "closing the attribute dictionary")
    p.expect(":", "and the view type")
    printed = p.type()
    dims = p.constant_ints(shape, "tensor view shapes", token)
    view = ViewType("tensor_view", dims, pointer.type.dtype)
    if not isinstance(printed, ViewType) or mlir_type(printed) != mlir_type(view):
        p.fail(f"pto.make_tensor_view of `{token.text}` has type {mlir_type(view)}", token)
    p.facts.tensor_shapes[(p.fn.name, pointer.name)] = dims
    pointer = P.Var(name=pointer.name, type=TensorType(dims, pointer.type.dtype), span=pointer.span)
    return P.Call(op="", args=(pointer, shape, strides), attrs=(("layout", layout),), type=view)


def _parse_partition_view(p: _MlirParser) -> P.Call:
    token = p.peek()
    view = p.operand()
    p.expect(",", "after the tensor view")
    p.expect("offsets", "(the window's offset operands)")
    p.expect("=", "after `offsets`")
    offsets = p.operand_list()
    p.expect(",", "after the offsets")
    p.expect("sizes", "(the window's size constants)")
    p.expect("=", "after `sizes`")
    size_operands = p.operand_list()
    sizes, runtime = p.extents(size_operands)
    p.expect(":", "and the source view type")
    p.check_type(view, p.type(), token)
    p.expect("->", "before the partition view type")
    printed = p.type()
    if not isinstance(view.type, ViewType) or len(sizes) != len(offsets.elements):
        p.fail("pto.partition_view takes a tensor view and one offset per size", token)
    result = ViewType("partition_tensor_view", sizes, view.type.dtype)
    if mlir_type(printed) != mlir_type(result):
        p.fail(f"this partition view has type {mlir_type(result)}, not {mlir_type(printed)}", token)
    args: tuple[P.Expr, ...] = (view, offsets, size_operands) if runtime else (view, offsets)
    return P.Call(op="", args=args, attrs=(("sizes", sizes),), type=result)


def _parse_alloc_tile(p: _MlirParser) -> P.Call:
    args: tuple[P.Expr, ...] = ()
    offset = 0
    if p.accept("addr"):
        p.expect("=", "after `addr`")
        token = p.peek()
        address = p.operand()
        value = p.fn.constants.get(address.name)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            p.fail(f"the tile address `{token.text}` must be a non-negative integer constant", token)
        args, offset = (address,), value
    for key in ("valid_row", "valid_col"):  # a `?` handle's initial valid extents
        if p.accept(key):
            p.expect("=", f"after `{key}`")
            args += (p.operand(),)
    p.expect(":", "and the tile buffer type")
    token = p.peek()
    tile = p.type()
    if not isinstance(tile, TileType):
        p.fail("pto.alloc_tile defines a `!pto.tile_buf<...>`", token)
    tile = replace(tile, memref=p.memref(tile, offset))
    return P.Call(op="", args=args, attrs=alloc_attrs(tile), type=tile)


def _parse_subview(p: _MlirParser) -> P.Call:
    token = p.peek()
    source = p.operand()
    offsets = p.operand_list()
    p.expect("sizes", "after the offsets")
    sizes = p.int_list("the window sizes")
    attrs: Attrs = (("sizes", sizes),)
    runtime: tuple[P.Expr, ...] = ()
    if p.accept("valid"):
        valid_operands = p.operand_list()
        valid, dynamic = p.extents(valid_operands)
        attrs += (("valid", valid),)
        runtime = (valid_operands,) if dynamic else ()
    p.expect(":", "and the source tile type")
    p.check_type(source, p.type(), token)
    p.expect("->", "before the window type")
    window = p.type()
    if not isinstance(source.type, TileType) or not isinstance(window, TileType):
        p.fail("pto.subview takes and defines tile buffers", token)
    if window.shape != sizes:
        p.fail(f"the window type's shape {list(window.shape)} is not its sizes {list(sizes)}", token)
    # A window reads its source's bytes: it lives in the source's buffer.
    return P.Call(op="", args=(source, offsets, *runtime), attrs=attrs,
                  type=replace(window, memref=source.type.memref))


def _parse_arith(p: _MlirParser) -> P.Call:
    op = p.tokens[p.pos - 1].text
    attrs: Attrs = ()
    if op in _COMPARE_OPS:
        attrs = (("predicate", p.word("a comparison predicate such as `eq`")),)
        p.expect(",", "after the predicate")
    token = p.peek()
    args = [p.operand()]
    while p.accept(","):
        args.append(p.operand())
    p.expect(":", "and the operand type")
    operand_type = p.type()
    p.check_type(args[0], operand_type, token)
    result = operand_type
    if op in _COMPARE_OPS:
        result = ScalarType(DataType.BOOL)
    elif op in SCALAR_CONVERSIONS:
        p.expect("to", "and the result type")
        result = p.type()
        if not isinstance(result, ScalarType):
            p.fail(f"{op} converts to a scalar type", token)
        attrs = (("dtype", result.dtype),)
    return P.Call(op="", args=tuple(args), attrs=attrs, type=result)


def _parse_generic_value(p: _MlirParser) -> P.Call:
    args: list[P.Var] = []
    while p.peek().kind == "ssa":
        args.append(p.operand())
        if not p.accept(","):
            break
    p.expect(":", "and the result type")
    return P.Call(op="", args=tuple(args), attrs=(), type=p.type())


def _parse_tpop(p: _MlirParser) -> P.Call:
    token = p.peek()
    valid: tuple[P.Expr, ...] = ()
    if p.accept("("):
        rows = p.operand()
        p.expect(",", "between the popped tile's valid rows and columns")
        valid = (rows, p.operand())
        p.expect(")", "closing the valid extent")
    attrs = p.attr_dict()
    p.expect("->", "before the popped tile type")
    tile = p.type()
    if not isinstance(tile, TileType) or tile.memory_space is None:
        p.fail("a pop defines a `!pto.tile_buf<...>`", token)
    # The text does not say where the consumer's FIFO slot lives: the tile has no address
    # (UNASSIGNED), and the simulator refuses to run it rather than guess one.
    size = physical_2d(tile.shape)[0] * tile.shape[-1] * tile.dtype.byte_width
    slot = MemRef(f"fifo_slot_{tile.memory_space.name.lower()}", tile.memory_space, -1, size)
    return P.Call(op="", args=valid, attrs=attrs, type=replace(tile, memref=slot))


def _parse_load_scalar(p: _MlirParser) -> P.Call:
    """`%ptr[%off] : !pto.ptr<T> -> T`."""
    token = p.peek()
    pointer = p.operand()
    p.expect("[", "before the element offset")
    offset = p.operand()
    p.expect("]", "after the element offset")
    p.expect(":", "and the pointer type")
    p.type()
    p.expect("->", "before the element type")
    result = p.type()
    if not isinstance(result, ScalarType):
        p.fail("pto.load_scalar loads a scalar", token)
    return P.Call(op="", args=(pointer, offset), attrs=(("dtype", result.dtype),), type=result)


def _parse_tgetval(p: _MlirParser) -> P.Call:
    """`ins(%tile, %off : TILE, index) outs : T`."""
    token = p.peek()
    p.expect("ins")
    p.expect("(", "after `ins`")
    tile = p.operand()
    p.expect(",", "after the tile")
    offset = p.operand()
    p.expect(":", "and the operand types")
    p.check_type(tile, p.type(), token)
    p.expect(",", "between the operand types")
    p.type()
    p.expect(")", "closing `ins(`")
    p.expect("outs", "after `ins(...)`")
    p.expect(":", "and the element type")
    result = p.type()
    if not isinstance(result, ScalarType):
        p.fail("pto.tgetval reads a scalar", token)
    return P.Call(op="", args=(tile, offset), attrs=(("dtype", result.dtype),), type=result)


def _parse_view_dim(p: _MlirParser) -> P.Call:
    view = p.operand()
    p.expect(",", "after the tensor view")
    axis = p.operand()
    p.expect(":", "and the view type")
    p.type()
    p.expect("->", "before the result type")
    return P.Call(op="", args=(view, axis), attrs=(), type=p.type())


def _parse_nullary(p: _MlirParser) -> P.Call:
    return P.Call(op="", args=(), attrs=(), type=ScalarType(DataType.INT64))


def _parse_store_scalar(p: _MlirParser) -> tuple[tuple[P.Expr, ...], Attrs]:
    value = p.operand()
    p.expect(",", "after the stored value")
    pointer = p.operand()
    p.expect("[", "before the element offset")
    offset = p.operand()
    p.expect("]", "after the element offset")
    p.expect(":", "and the pointer type")
    p.type()
    p.expect(",", "between the types")
    p.type()
    return (value, pointer, offset), ()


def _parse_enum(p: _MlirParser, mnemonic: str) -> str:
    token = p.advance()
    prefix = f"#pto.{mnemonic}"
    if token.text != prefix:
        p.fail(f"expected {prefix}<...>", token)
    p.expect("<")
    value = p.word("an enum value")
    p.expect(">")
    return value


def _parse_syncall(p: _MlirParser) -> tuple[tuple[P.Expr, ...], Attrs]:
    p.expect("(", "after pto.syncall")
    operands: list[P.Var] = []
    while p.peek().kind == "ssa":
        operands.append(p.operand())
        if not p.accept(","):
            break
    if operands:
        p.expect(":", "and the operand types")
        for index in range(len(operands)):
            if index:
                p.expect(",", "between the operand types")
            p.type()
    p.expect(")", "closing the syncall operands")
    p.expect("mode")
    p.expect("=")
    mode = _parse_enum(p, "sync_all_mode")
    p.expect(",", "after the mode")
    p.expect("core_type")
    p.expect("=")
    core_type = _parse_enum(p, "sync_core_type")
    return tuple(operands), (("mode", mode), ("core_type", core_type))


def _parse_mrgsort(p: _MlirParser) -> tuple[tuple[P.Expr, ...], Attrs]:
    p.expect("ins")
    p.expect("(", "after `ins`")
    ins: list[P.Var] = [p.operand()]
    while p.accept(","):
        ins.append(p.operand())
    attrs = p.attr_dict()
    p.expect(":", "and the operand types")
    for index in range(len(ins)):
        if index:
            p.expect(",", "between the operand types")
        p.type()
    p.expect(")", "closing `ins(`")
    p.expect("outs", "after `ins(...)`")
    p.expect("(", "after `outs`")
    outs: list[P.Var] = [p.operand()]
    while p.accept(","):
        outs.append(p.operand())
    p.expect(":", "and the destination types")
    for index in range(len(outs)):
        if index:
            p.expect(",", "between the destination types")
        p.type()
    p.expect(")", "closing `outs(`")
    return (*ins, *outs), attrs


def _parse_barrier(p: _MlirParser) -> tuple[tuple[P.Expr, ...], Attrs]:
    p.expect("<", "before the pipe")
    pipe = p.word("a pipe such as PIPE_V")
    p.expect(">", "after the pipe")
    return (), (("pipe", pipe),)


def _parse_sync_event(p: _MlirParser) -> tuple[tuple[P.Expr, ...], Attrs]:
    """`<PIPE>, EVENT [{ffts_mode = M : i32}]` or `<PIPE>, %event`."""
    p.expect("<", "before the pipe")
    pipe = p.word("a pipe such as PIPE_MTE3")
    p.expect(">", "after the pipe")
    p.expect(",", "between the pipe and the event id")
    attrs: list[tuple[str, AttrValue]] = [("pipe", pipe)]
    operands: tuple[P.Expr, ...] = ()
    if p.peek().kind == "ssa":
        operands = (p.operand(),)
    else:
        attrs.append(("event_id", p.integer("an event id")))
    if p.at("{"):
        attrs.extend(p.attr_dict())
    return operands, tuple(attrs)


def _parse_initialize_pipe(p: _MlirParser) -> tuple[tuple[P.Expr, ...], Attrs]:
    attrs = p.attr_dict()
    p.expect("(", "opening the pipe's buffers")
    named: dict[str, P.Var] = {}
    while not p.at(")"):
        key = p.word("a pipe buffer such as `c2v_consumer_buf`")
        if key not in PIPE_INIT_OPERANDS:
            p.fail(f"unknown pipe buffer `{key}` ({', '.join(PIPE_INIT_OPERANDS)})", p.tokens[p.pos - 1])
        p.expect("=", f"after `{key}`")
        named[key] = p.typed_operand()
        if not p.accept(","):
            break
    p.expect(")", "closing the pipe's buffers")
    if "c2v_consumer_buf" not in named or "v2c_consumer_buf" not in named:
        p.expected("both c2v_consumer_buf and v2c_consumer_buf")
    return tuple(named[k] for k in PIPE_INIT_OPERANDS if k in named), attrs


def _parse_reserve_buffer(p: _MlirParser) -> P.Call:
    attrs = p.attr_dict()
    p.expect("->", "before the address type")
    return P.Call(op="", args=(), attrs=attrs, type=p.type())


_STATEMENT_PARSERS: dict[str, Callable[[_MlirParser], tuple[tuple[P.Expr, ...], Attrs]]] = {
    "pto.store_scalar": _parse_store_scalar,
    "pto.syncall": _parse_syncall,
    "pto.barrier": _parse_barrier,
    "pto.sync.set": _parse_sync_event,
    "pto.sync.wait": _parse_sync_event,
    "pto.tmrgsort": _parse_mrgsort,
    **{op: _parse_initialize_pipe for op in PIPE_INIT_OPS},
}
assert _STATEMENT_PARSERS.keys() == STATEMENT_PRINTERS.keys(), "every custom printed statement needs its parser"

_VALUE_PARSERS: dict[str, _ValueParser] = {
    **{op: _parse_tpop for op in POP_OPS},
    "arith.constant": _parse_constant,
    "pto.make_tensor_view": _parse_make_tensor_view,
    "pto.partition_view": _parse_partition_view,
    "pto.alloc_tile": _parse_alloc_tile,
    "pto.subview": _parse_subview,
    "pto.load_scalar": _parse_load_scalar,
    "pto.tgetval": _parse_tgetval,
    "pto.get_tensor_view_dim": _parse_view_dim,
    **{op: _parse_nullary for op in SPMD_OPS},
    "pto.reserve_buffer": _parse_reserve_buffer,
    "pto.import_reserved_buffer": _parse_reserve_buffer,
}
assert _VALUE_PARSERS.keys() == VALUE_PRINTERS.keys(), "every custom printed form needs its parser"


def parse_mlir(text: str, filename: str = "<string>") -> P.Program:
    """The PTO-language program of PTO-ISA MLIR `text` (as `print_mlir` writes it).

    Malformed text raises `CompileError` (rule "parse") at the offending `file:line:col`.
    """
    facts = _Facts()
    tokens = _tokenize(text, filename)
    _parse_once(tokens, filename, facts)  # learns tensor shapes and shared buffer sizes
    return _parse_once(tokens, filename, facts)


def _parse_once(tokens: list[_Token], filename: str, facts: _Facts) -> P.Program:
    parser: _MlirParser | None = None
    try:
        parser = _MlirParser(tokens, filename, facts)
        return parser.program()
    except CompileError:
        raise
    except (ValueError, TypeError, KeyError, IndexError, AssertionError, RecursionError, OverflowError) as exc:
        token = parser.peek() if parser is not None else _Token("eof", "", 1, 1)
        raise CompileError(Diagnostic(
            "parse", f"internal parser error: {type(exc).__name__}: {exc}",
            Span(filename, token.line, token.col))) from exc
