"""Printer of the `pl` text format (PyPTO's Python DSL) for every language's Program.

All languages share node kind names and field names, so one printer serves them all: it
dispatches on `node.KIND` and reads fields through the Tensor language's classes (a static
view only; the runtime objects may belong to any language).

Canonical choices (the parser accepts more; printing what it parsed reproduces this text):
- a header `# pypto.program: NAME` plus `# nanopass.language: LANG`, so a dump re-parses into
  the language it was printed from (TilePlaced and L0Tiled look the same otherwise);
- every assignment is annotated with its target's type;
- lists `[a, b]` for tuple literals; `pl.range(stop)` / `pl.range(start, stop)` when the
  omitted bounds are the defaults;
- integers of dtype INDEX print bare (`3`, `-3`), others as `pl.const(3, pl.INT32)`; a
  negation of a bare literal prints `-pl.const(3, pl.INDEX)` so it does not re-read as `-3`;
- floats print as `pl.const(r, dtype)` with `r = repr(value)` (exact for every finite double),
  non-finite values as `float("inf")`, `float("-inf")`, `float("nan")`; float attributes use
  the same spelling without `pl.const`;
- `valid_shape` is printed whenever it is set (even when equal to the shape) so that
  parse(print(p)) == p; TileView fields are printed only where they differ from the implicit
  view of the tile's memory space.
"""

from __future__ import annotations

import importlib
import json
import keyword
import math
from dataclasses import dataclass
from typing import Callable, Sequence, cast

import languages.gen.tensor as T
from languages.memory_space import MemorySpace
from languages.types import (
    AttrValue,
    DataType,
    MemRef,
    NoneType,
    ScalarType,
    TensorType,
    TileType,
    TileView,
    TupleType,
    Type,
    ValidDims,
    ViewType,
)
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.node import Node

INDENT = "    "

# Function types printed as `@pl.function(type=pl.FunctionType.X)`; Opaque prints bare.
FUNCTION_TYPES = ("InCore", "Orchestration", "Opaque", "AIC", "AIV", "Group", "Spmd", "Inline")
OPAQUE = "Opaque"

# pl.SplitMode values by their int (the attribute PyPTO stores).
SPLIT_MODE_NAMES = {0: "NONE", 1: "UP_DOWN", 2: "LEFT_RIGHT"}

# Loop kinds and the `pl.*` iterator each prints as.
LOOP_ITERATORS = {"range": "range", "pipeline": "pipeline", "parallel": "parallel", "unroll": "unroll"}

# Python precedence levels of scalar operators (higher binds tighter).
PRECEDENCE: dict[str, int] = {
    "or": 1,
    "and": 2,
    "not": 3,
    "==": 4, "!=": 4, "<": 4, "<=": 4, ">": 4, ">=": 4,
    "+": 5, "-": 5,
    "*": 6, "/": 6, "//": 6, "%": 6,
    "neg": 7,
}
COMPARISONS = frozenset({"==", "!=", "<", "<=", ">", ">="})
ATOM = 10


# --- implicit tile views -------------------------------------------------------------------


def _fallback_implicit_view(space: MemorySpace, shape: Sequence[int]) -> TileView:
    """TARGET_FACTS.md "Memory spaces and implicit tile views" (used until languages.views
    provides the shared implementation)."""
    column_vector = len(shape) == 2 and shape[1] == 1 and shape[0] > 1
    shape_blayout = "col_major" if column_vector else "row_major"
    if space in (MemorySpace.Mat, MemorySpace.Left):
        return TileView("col_major", "row_major", 512)
    if space is MemorySpace.Right:
        return TileView(shape_blayout, "col_major", 512)
    if space is MemorySpace.Acc:
        return TileView("col_major", "row_major", 1024)
    return TileView(shape_blayout, "none_box", 512)


def implicit_view_of(space: MemorySpace, shape: Sequence[int]) -> TileView:
    """The implicit view of `space` for `shape`: languages.views.implicit_view when present."""
    try:
        views = importlib.import_module("languages.views")
    except ImportError:
        return _fallback_implicit_view(space, shape)
    shared = cast(Callable[[MemorySpace, tuple[int, ...]], TileView], views.implicit_view)
    return shared(space, tuple(shape))


# --- operator signatures (from the op registry, when it is importable) -----------------------


@dataclass(frozen=True)
class CallSignature:
    """How a call's arguments bind (languages.ops: positional arguments bind to `param_order`,
    keywords by name; operands are the names in `operand_names`)."""

    operand_names: tuple[str, ...]
    param_order: tuple[str, ...]
    variadic: bool  # the last operand takes every remaining positional argument


def call_signature(op: str) -> CallSignature | None:
    """The registry's binding rule for `op`, or None when the registry is unavailable or does
    not know `op` (then: positional = operands, keywords = attributes)."""
    try:
        registry = importlib.import_module("languages.ops").REGISTRY
        if op not in registry:
            return None
        op_def = registry.get(op)
        operands = tuple(op_def.operands)
        return CallSignature(
            operand_names=tuple(str(n) for n in op_def.operand_names),
            param_order=tuple(str(n) for n in op_def.param_order),
            variadic=bool(operands) and bool(operands[-1].variadic),
        )
    except Exception:  # a registry still being built must not break printing or parsing
        return None


# --- types -----------------------------------------------------------------------------------


def format_dims(dims: Sequence[int]) -> str:
    return "[" + ", ".join(str(d) for d in dims) + "]"


def format_extents(dims: ValidDims) -> str:
    """A valid shape: constants and the names of the variables holding runtime extents."""
    return "[" + ", ".join(str(d) for d in dims) + "]"


def format_string(text: str) -> str:
    """A double-quoted Python string literal (JSON escapes are valid Python escapes)."""
    return json.dumps(text)


def format_memref(memref: MemRef, space: MemorySpace | None) -> str:
    args = [format_string(memref.name), str(memref.offset), str(memref.size)]
    if memref.space is not space:
        args.append(f"space=pl.Mem.{memref.space.pl_name}")
    return f"pl.MemRef({', '.join(args)})"


_VIEW_ENUMS = {"blayout": "pl.TileLayout.", "slayout": "pl.TileLayout.", "pad": "pl.TilePad."}


def format_view_fields(view: TileView, implicit: TileView | None) -> list[str]:
    fields: list[str] = []
    for name in ("blayout", "slayout", "fractal", "pad", "compact"):
        value = getattr(view, name)
        if implicit is not None and value == getattr(implicit, name):
            continue
        if implicit is None and value == getattr(TileView(), name):
            continue
        prefix = _VIEW_ENUMS.get(name)
        fields.append(f"{name}={prefix}{value}" if prefix else f"{name}={value!r}")
    return fields


def format_tile_type(tile: TileType) -> str:
    parts = [format_dims(tile.shape), tile.dtype.pl_name]
    if tile.memref is not None:
        parts.append(format_memref(tile.memref, tile.memory_space))
    if tile.memory_space is not None:
        parts.append(f"pl.Mem.{tile.memory_space.pl_name}")
    view_fields: list[str] = []
    if tile.valid_shape is not None:
        view_fields.append(f"valid_shape={format_extents(tile.valid_shape)}")
    if tile.view is not None:
        implicit = implicit_view_of(tile.memory_space, tile.shape) if tile.memory_space is not None else None
        view_fields.extend(format_view_fields(tile.view, implicit))
    if view_fields:
        parts.append(f"pl.TileView({', '.join(view_fields)})")
    return f"pl.Tile[{', '.join(parts)}]"


def format_type(ty: Type) -> str:
    if isinstance(ty, ScalarType):
        return f"pl.Scalar[{ty.dtype.pl_name}]"
    if isinstance(ty, TensorType):
        parts = [format_dims(ty.shape), ty.dtype.pl_name]
        fields = [f"valid_shape={format_extents(ty.valid_shape)}"] if ty.valid_shape is not None else []
        if ty.strides is not None:
            fields += [f"stride={format_dims(ty.strides)}", "layout=pl.TensorLayout.ND"]
        if fields:
            parts.append(f"pl.TensorView({', '.join(fields)})")
        return f"pl.Tensor[{', '.join(parts)}]"
    if isinstance(ty, TileType):
        return format_tile_type(ty)
    if isinstance(ty, TupleType):
        if not ty.types:
            return "tuple[()]"
        return f"tuple[{', '.join(format_type(t) for t in ty.types)}]"
    if isinstance(ty, NoneType):
        return "None"
    if isinstance(ty, ViewType):
        return f"pl.PtoView[{format_dims(ty.shape)}, {ty.dtype.pl_name}, {format_string(ty.kind)}]"
    raise _print_error(f"cannot print type {ty!r}")


# --- values ----------------------------------------------------------------------------------


def format_float(value: float) -> str:
    """A lossless spelling of a double: repr for finite values, float("...") otherwise."""
    if math.isnan(value):
        return 'float("nan")'
    if math.isinf(value):
        return 'float("inf")' if value > 0 else 'float("-inf")'
    return repr(value)


def format_attr_value(value: AttrValue) -> str:
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, MemorySpace):  # before int: MemorySpace is an IntEnum
        return f"pl.Mem.{value.pl_name}"
    if isinstance(value, DataType):
        return value.pl_name
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format_float(value)
    if isinstance(value, str):
        return format_string(value)
    return format_dims(value)


def op_spelling(op: str) -> str:
    """`tensor.and` prints as `pl.tensor.and_`: a Python keyword leaf gets a trailing `_`."""
    namespace, _, leaf = op.rpartition(".")
    if keyword.iskeyword(leaf):
        leaf += "_"
    return f"pl.{namespace}.{leaf}" if namespace else f"pl.{leaf}"


def _print_error(message: str, node: Node | None = None) -> CompileError:
    if node is not None:
        return CompileError(Diagnostic.at(node, "print", message))
    return CompileError(Diagnostic("print", message))


# --- expressions -----------------------------------------------------------------------------


def _is_bare_literal(node: Node) -> bool:
    return node.KIND == "ConstInt" and cast(T.ConstInt, node).dtype is DataType.INDEX


def format_expr(node: Node) -> str:
    return _expr(node)[0]


def _expr(node: Node) -> tuple[str, int]:
    """The text of an expression and its precedence (for minimal parentheses)."""
    printer = _EXPR_PRINTERS.get(node.KIND)
    if printer is None:
        raise _print_error(f"cannot print a {node.KIND} as an expression", node)
    return printer(node)


def _var(node: Node) -> tuple[str, int]:
    return cast(T.Var, node).name, ATOM


def _const_int(node: Node) -> tuple[str, int]:
    const = cast(T.ConstInt, node)
    if const.dtype is DataType.INDEX:
        return str(const.value), (PRECEDENCE["neg"] if const.value < 0 else ATOM)
    return f"pl.const({const.value}, {const.dtype.pl_name})", ATOM


def _const_float(node: Node) -> tuple[str, int]:
    const = cast(T.ConstFloat, node)
    return f"pl.const({format_float(const.value)}, {const.dtype.pl_name})", ATOM


def _const_bool(node: Node) -> tuple[str, int]:
    return repr(cast(T.ConstBool, node).value), ATOM


def _call_arguments(args: Sequence[Node], attrs: Sequence[tuple[str, AttrValue]] = ()) -> str:
    parts = [format_expr(a) for a in args]
    parts.extend(f"{key}={format_attr_value(value)}" for key, value in attrs)
    return ", ".join(parts)


def _call(node: Node) -> tuple[str, int]:
    call = cast(T.Call, node)
    positional = _positional_operand_count(call.op, len(call.args))
    parts = [_operand_text(call.op, i, a) for i, a in enumerate(call.args[:positional])]
    if positional < len(call.args):
        # The registry's signature orders an attribute before these operands: name them.
        names = cast(CallSignature, call_signature(call.op)).operand_names
        parts.extend(f"{names[i]}={format_expr(a)}" for i, a in enumerate(call.args) if i >= positional)
    parts.extend(f"{key}={format_attr_value(value)}" for key, value in call.attrs)
    return f"{op_spelling(call.op)}({', '.join(parts)})", ATOM


def _operand_text(op: str, index: int, arg: Node) -> str:
    """A bare INDEX literal where the op's registry declaration makes literals adopt a dtype
    prints as `pl.const(v, pl.INDEX)`, so it re-reads as the same INDEX constant."""
    if _is_bare_literal(arg) and _adopts_literal(op, index):
        return f"pl.const({cast(T.ConstInt, arg).value}, pl.INDEX)"
    return format_expr(arg)


def _adopts_literal(op: str, index: int) -> bool:
    try:
        return bool(importlib.import_module("languages.ops").REGISTRY.adopts_literal(op, index))
    except Exception:  # a registry still being built must not break printing
        return False


def _positional_operand_count(op: str, count: int) -> int:
    """How many leading operands print positionally: those whose position in the registry's
    positional order is their operand position."""
    signature = call_signature(op)
    if signature is None or signature.variadic or count > len(signature.operand_names):
        return count
    n = 0
    order, names = signature.param_order, signature.operand_names
    while n < count and n < len(order) and order[n] == names[n]:
        n += 1
    return n


def _func_call(node: Node) -> tuple[str, int]:
    call = cast(T.FuncCall, node)
    return f"self.{call.callee}({_call_arguments(call.args)})", ATOM


def _operand(node: Node, minimum: int) -> str:
    text, level = _expr(node)
    return f"({text})" if level < minimum else text


def _bin_op(node: Node) -> tuple[str, int]:
    binop = cast(T.BinOp, node)
    level = PRECEDENCE.get(binop.op)
    if level is None or binop.op in ("not", "neg"):
        raise _print_error(f"unknown scalar operator {binop.op!r}", node)
    # Comparisons chain in Python (`a < b < c`), so a comparison operand is always wrapped;
    # other operators are left-associative: only the right operand needs a tighter level.
    left_min = level + 1 if binop.op in COMPARISONS else level
    lhs = _operand(binop.lhs, left_min)
    rhs = _operand(binop.rhs, level + 1)
    return f"{lhs} {binop.op} {rhs}", level


def _unary_op(node: Node) -> tuple[str, int]:
    unary = cast(T.UnaryOp, node)
    if unary.op == "not":
        return f"not {_operand(unary.operand, PRECEDENCE['not'])}", PRECEDENCE["not"]
    if unary.op == "cast":
        # PyPTO's scalar Cast: the target dtype is the node's type.
        target = cast(ScalarType, unary.type).dtype
        return f"pl.cast({_operand(unary.operand, 0)}, {target.pl_name})", ATOM
    if unary.op != "-":
        raise _print_error(f"unknown unary operator {unary.op!r}", node)
    operand = unary.operand
    if _is_bare_literal(operand):
        value = cast(T.ConstInt, operand).value
        return f"-pl.const({value}, pl.INDEX)", PRECEDENCE["neg"]
    return f"-{_operand(operand, PRECEDENCE['neg'])}", PRECEDENCE["neg"]


def _tuple_expr(node: Node) -> tuple[str, int]:
    return "[" + ", ".join(format_expr(e) for e in cast(T.TupleExpr, node).elements) + "]", ATOM


def _tuple_get_item(node: Node) -> tuple[str, int]:
    item = cast(T.TupleGetItem, node)
    return f"{_operand(item.value, ATOM)}[{item.index}]", ATOM


_EXPR_PRINTERS: dict[str, Callable[[Node], tuple[str, int]]] = {
    "Var": _var,
    "ConstInt": _const_int,
    "ConstFloat": _const_float,
    "ConstBool": _const_bool,
    "Call": _call,
    "FuncCall": _func_call,
    "BinOp": _bin_op,
    "UnaryOp": _unary_op,
    "TupleExpr": _tuple_expr,
    "TupleGetItem": _tuple_get_item,
}


# --- statements ------------------------------------------------------------------------------


class _Printer:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def emit(self, depth: int, text: str) -> None:
        self.lines.append(INDENT * depth + text)

    def block(self, depth: int, stmts: Sequence[Node], results: Sequence[Node] = ()) -> None:
        """A loop body or branch; a trailing yield binds `results`."""
        if not stmts:
            self.emit(depth, "pass")
        for stmt in stmts:
            if stmt.KIND == "YieldStmt":
                self.yield_stmt(depth, cast(T.YieldStmt, stmt), results)
            else:
                self.stmt(depth, stmt)

    def stmt(self, depth: int, stmt: Node) -> None:
        kind = stmt.KIND
        if kind == "AssignStmt":
            assign = cast(T.AssignStmt, stmt)
            target = assign.target
            self.emit(depth, f"{target.name}: {format_type(target.type)} = {format_expr(assign.value)}")
        elif kind == "EvalStmt":
            self.emit(depth, format_expr(cast(T.EvalStmt, stmt).value))
        elif kind == "ReturnStmt":
            values = cast(T.ReturnStmt, stmt).values
            self.emit(depth, ("return " + ", ".join(format_expr(v) for v in values)).rstrip())
        elif kind == "YieldStmt":
            self.yield_stmt(depth, cast(T.YieldStmt, stmt), ())
        elif kind == "ForStmt":
            self.for_stmt(depth, cast(T.ForStmt, stmt))
        elif kind == "WhileStmt":
            self.while_stmt(depth, cast(T.WhileStmt, stmt))
        elif kind == "IfStmt":
            self.if_stmt(depth, cast(T.IfStmt, stmt))
        elif kind == "ScopeStmt":
            self.scope_stmt(depth, stmt)
        else:
            raise _print_error(f"cannot print a {kind} as a statement", stmt)

    def yield_stmt(self, depth: int, stmt: T.YieldStmt, results: Sequence[Node]) -> None:
        call = f"pl.yield_({', '.join(format_expr(v) for v in stmt.values)})"
        result_vars = [cast(T.Var, r) for r in results]
        if not result_vars:
            self.emit(depth, call)
            return
        if len(result_vars) == 1 and len(stmt.values) == 1:
            # The result's type is re-read from the yielded value; annotate only when they differ.
            result = result_vars[0]
            if result.type != _expr_type(stmt.values[0]):
                self.emit(depth, f"{result.name}: {format_type(result.type)} = {call}")
                return
        self.emit(depth, f"{', '.join(r.name for r in result_vars)} = {call}")

    def for_stmt(self, depth: int, loop: T.ForStmt) -> None:
        iterator = LOOP_ITERATORS.get(loop.kind)
        if iterator is None:
            raise _print_error(f"unknown loop kind {loop.kind!r} (known: {', '.join(LOOP_ITERATORS)})", loop)
        bounds = [loop.start, loop.stop, loop.step]
        if _is_index_literal(loop.step, 1):
            bounds.pop()
            if _is_index_literal(loop.start, 0):
                bounds.pop(0)
        args = [format_expr(b) for b in bounds]
        target = loop.loop_var.name
        if loop.iter_args:
            carried = ", ".join(a.var.name for a in loop.iter_args)
            inits = ", ".join(format_expr(a.init) for a in loop.iter_args)
            target = f"{target}, ({carried},)"
            args.append(f"init_values=({inits},)")
        args.extend(f"{k}={format_attr_value(v)}" for k, v in loop.attrs)
        self.emit(depth, f"for {target} in pl.{iterator}({', '.join(args)}):")
        self.block(depth + 1, loop.body, loop.results)

    def while_stmt(self, depth: int, loop: T.WhileStmt) -> None:
        """PyPTO's two spellings: `pl.while_` with its lifted `pl.cond` when the loop carries
        values, `while cond:` (DSL text before ConvertToSSA) when it does not."""
        if not loop.iter_args:
            self.emit(depth, f"while {format_expr(loop.cond)}:")
            self.block(depth + 1, loop.body, loop.results)
            return
        carried = ", ".join(a.var.name for a in loop.iter_args)
        inits = ", ".join(format_expr(a.init) for a in loop.iter_args)
        self.emit(depth, f"for ({carried},) in pl.while_(init_values=({inits},)):")
        self.emit(depth + 1, f"pl.cond({format_expr(loop.cond)})")
        self.block(depth + 1, loop.body, loop.results)

    def if_stmt(self, depth: int, branch: T.IfStmt) -> None:
        self.emit(depth, f"if {format_expr(branch.cond)}:")
        self.block(depth + 1, branch.then_body, branch.results)
        if branch.else_body:
            self.emit(depth, "else:")
            self.block(depth + 1, branch.else_body, branch.results)

    def scope_stmt(self, depth: int, scope: Node) -> None:
        """A DSL scope, spelled as PyPTO's `with` statement it was parsed from."""
        kind = str(getattr(scope, "scope_kind"))
        attrs = dict(getattr(scope, "attrs"))
        hint = str(getattr(scope, "name_hint"))
        if kind in ("incore", "hierarchy"):
            level = "CORE_GROUP" if kind == "incore" else str(attrs.pop("level"))
            args = [f"level=pl.Level.{level}"]
            if "role" in attrs:
                args.append(f"role=pl.Role.{attrs.pop('role')}")
            optimizations = []
            if "split" in attrs:
                optimizations.append(f"pl.split(pl.SplitMode.{SPLIT_MODE_NAMES[int(cast(int, attrs.pop('split')))]})")
            if "slot_num" in attrs:
                optimizations.append(f"pl.cross_core_slot(slot_num={attrs.pop('slot_num')})")
            if optimizations:
                args.append(f"optimizations=[{', '.join(optimizations)}]")
            if attrs.pop("windowize", False):
                args.append("windowize=True")
            if hint:
                args.append(f"name_hint={format_string(hint)}")
            head = f"pl.at({', '.join(args)})"
        elif kind == "cluster":
            head = f"pl.cluster(name_hint={format_string(hint)})" if hint else "pl.cluster()"
        elif kind == "runtime":
            head = f"pl.scope(mode=pl.ScopeMode.{attrs.pop('mode', 'AUTO')})"
        elif kind == "spmd":
            args = [str(attrs.pop("core_num"))]
            if attrs.pop("sync_start", False):
                args.append("sync_start=True")
            if hint:
                args.append(f"name_hint={format_string(hint)}")
            head = f"pl.spmd({', '.join(args)})"
        else:
            raise _print_error(f"unknown scope kind {kind!r} (known: incore, hierarchy, cluster, runtime, spmd)", scope)
        self.emit(depth, f"with {head}:")
        self.block(depth + 1, getattr(scope, "body"))

    def function(self, func: T.Function) -> None:
        if func.func_type not in FUNCTION_TYPES:
            raise _print_error(f"unknown function type {func.func_type!r} (known: {', '.join(FUNCTION_TYPES)})", func)
        keywords = [] if func.func_type == OPAQUE else [f"type=pl.FunctionType.{func.func_type}"]
        if func.attrs:
            entries = ", ".join(f"{key!r}: {value!r}" for key, value in func.attrs)
            keywords.append(f"attrs={{{entries}}}")
        self.emit(1, f"@pl.function({', '.join(keywords)})" if keywords else "@pl.function")
        params = ["self"] + [_format_param(p) for p in func.params]
        head = f"def {func.name}({', '.join(params)})"
        head += format_returns(func.return_types)
        self.emit(1, head + ":")
        self.block(2, func.body)

    def program(self, program: T.Program) -> str:
        self.lines = [
            f"# pypto.program: {program.name}",
            f"# nanopass.language: {program.LANGUAGE}",
            "import pypto.language as pl",
            "",
            "",
            "@pl.program",
            f"class {program.name}:",
        ]
        if not program.functions:
            self.emit(1, "pass")
        for index, func in enumerate(program.functions):
            if index:
                self.lines.append("")
            self.function(func)
        return "\n".join(self.lines) + "\n"


def format_returns(returns: Sequence[Type]) -> str:
    """` -> T` / ` -> tuple[T1, T2]`; nothing for no results. A single result that is itself a
    tuple or None is wrapped (`tuple[None]`) so that it does not read as several / no results."""
    if not returns:
        return ""
    if len(returns) == 1 and not isinstance(returns[0], (TupleType, NoneType)):
        return f" -> {format_type(returns[0])}"
    return f" -> tuple[{', '.join(format_type(t) for t in returns)}]"


def _format_param(param: T.Param) -> str:
    text = format_type(param.var.type)
    if param.direction in ("Out", "InOut"):
        text = f"pl.{param.direction}[{text}]"
    elif param.direction != "In":
        raise _print_error(f"unknown parameter direction {param.direction!r} (known: In, Out, InOut)", param)
    return f"{param.var.name}: {text}"


def _is_index_literal(node: Node, value: int) -> bool:
    return _is_bare_literal(node) and cast(T.ConstInt, node).value == value


def _expr_type(node: Node) -> Type:
    """The type an expression has (as the parser re-derives it for yielded results)."""
    kind = node.KIND
    if kind in ("ConstInt", "ConstFloat"):
        return ScalarType(cast(T.ConstInt, node).dtype)
    if kind == "ConstBool":
        return ScalarType(DataType.BOOL)
    if kind == "TupleExpr":
        return TupleType(tuple(_expr_type(e) for e in cast(T.TupleExpr, node).elements))
    ty = getattr(node, "type", None)
    return ty if ty is not None else NoneType()


def expr_type(node: Node) -> Type:
    """The type of any expression node of any language."""
    return _expr_type(node)


def print_program(program: Node) -> str:
    """The `pl` text of a Program of any language (PTO's MLIR form is printed elsewhere)."""
    if program.KIND != "Program":
        raise _print_error(f"print_program expects a Program, got a {program.KIND}", program)
    return _Printer().program(cast(T.Program, program))


def print_function(function: Node) -> str:
    """The `pl` text of one function (indented as inside its program class)."""
    printer = _Printer()
    printer.function(cast(T.Function, function))
    return "\n".join(printer.lines) + "\n"
