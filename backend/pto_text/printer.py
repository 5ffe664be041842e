"""Print a PTO-language program as PTO-ISA MLIR text (spec pto_codegen.md), and parse that
text back (`parse_mlir`, below the printer: `.pto` files round-trip and can be simulated).

The PTO language is designed so that this is a line-per-node translation (see
languages/ops/pto_ops.py for its shape): every operand is a Var printed as `%name`, constants
are already hoisted and named, and every op carries its source span, printed as a trailing
`loc("file":line:col)` unless `emit_loc` is off. Constants and region structure carry no
location (loc(...) is legal only at the end of a complete operation, and a deduplicated
constant has no single span).
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, NoReturn, TypeVar, cast

from languages.gen import pto as P
from languages.memory_space import MemorySpace
from languages.ops.pto_ops import (
    COMMA_BEFORE_OPERAND_ATTRS, DIALECT_ATTRS, DPS_OPS, ENUM_ATTRS, LOWER_CASE_ENUMS, OP_ENUM_ATTRS, OPERAND_ATTRS,
    PAD_CODES, SCALAR_CONVERSIONS, TYPED_INT_ATTRS, alloc_attrs, alloc_operands,
    constant_name, float_literal,
)
from languages.types import (
    BLAYOUTS,
    DYNAMIC_DIM,
    is_symbolic,
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
    TupleType,
    Type,
    ViewType,
    attr,
)
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.node import NO_SPAN, Span

INDENT = "  "
_T = TypeVar("_T")


# -- types -----------------------------------------------------------------------------------------


def tile_buf_type(tile: TileType) -> str:
    """`!pto.tile_buf<loc=.., dtype=.., rows=.., cols=.., v_row=.., v_col=.., blayout=..,
    slayout=.., fractal=.., pad=..[, compact=1]>`; a tile without a view gets the defaults."""
    rows, cols = _rows_cols(tile.shape)
    # A runtime valid extent is `?` (a 2-D handle: codegen declines other ranks).
    v_rows, v_cols = ((str(e) if isinstance(e, int) else "?" for e in tile.valid_extents[-2:])
                      if is_symbolic(tile.valid_shape) else _rows_cols(tile.valid))
    view = tile.view
    blayout = view.blayout if view else "row_major"
    slayout = view.slayout if view else "none_box"
    fractal = view.fractal if view else 512
    pad = PAD_CODES[view.pad] if view else 0
    loc = tile.memory_space.pto_name if tile.memory_space is not None else "vec"
    compact = ", compact=1" if view is not None and view.compact else ""
    return (f"!pto.tile_buf<loc={loc}, dtype={tile.dtype.mlir}, rows={rows}, cols={cols}, "
            f"v_row={v_rows}, v_col={v_cols}, blayout={blayout}, slayout={slayout}, "
            f"fractal={fractal}, pad={pad}{compact}>")


def _rows_cols(dims: tuple[int, ...]) -> tuple[int, int]:
    if len(dims) == 1:
        return (1, dims[0])
    rows = 1
    for dim in dims[:-1]:
        rows *= dim
    return (rows, dims[-1])


# Spellings by type object: a kernel's few buffer types are printed at every operand, and
# formatting a tile_buf is ~20 fields. Types are immutable; an entry keeps its type alive, so
# the id is not reused while the entry exists (bounded: cleared when full).
_SPELLINGS: dict[int, tuple[Type, str]] = {}
_SPELLINGS_CAPACITY = 8192


def mlir_type(ty: Type) -> str:
    """MLIR spelling of a PTO-language type (a tensor is its GM pointer)."""
    hit = _SPELLINGS.get(id(ty))
    if hit is not None and hit[0] is ty:
        return hit[1]
    text = _spell(ty)
    if len(_SPELLINGS) >= _SPELLINGS_CAPACITY:
        _SPELLINGS.clear()
    _SPELLINGS[id(ty)] = (ty, text)
    return text


def scalar_mlir(dtype: DataType) -> str:
    """A scalar's (and a GM element's) MLIR type: MLIR's integer scalars are signless
    (`'arith.constant' op integer return type must be signless`), so an unsigned one is its
    width's `iN`; the operation says how its bits are read (divui, cmpi ult, uitofp, ...), and a
    GM pointer / view matches the scalars loaded from it (`'pto.load_scalar' op expects result
    type to match ptr element type`). Tiles keep `uiN`: their vector instructions read it."""
    if dtype.is_int and not dtype.is_signed and dtype is not DataType.BOOL:
        return f"i{dtype.bits}"
    return dtype.mlir


def _spell(ty: Type) -> str:
    if isinstance(ty, ScalarType):
        return scalar_mlir(ty.dtype)
    if isinstance(ty, TensorType):  # GM elements are signless too: the tiles they load say how to read them
        return f"!pto.ptr<{scalar_mlir(ty.dtype)}>"
    if isinstance(ty, TileType):
        return tile_buf_type(ty)
    if isinstance(ty, ViewType):
        if ty.kind == "vector":  # an MLIR vector (TMRGSORT's executed counts)
            return f"vector<{'x'.join(str(d) for d in ty.shape)}x{ty.dtype.mlir}>"
        if ty.kind == "tensor_view":
            return f"!pto.tensor_view<{'x'.join('?' for _ in ty.shape)}x{scalar_mlir(ty.dtype)}>"
        return (f"!pto.{ty.kind}<{'x'.join('?' if d == DYNAMIC_DIM else str(d) for d in ty.shape)}"
                f"x{scalar_mlir(ty.dtype)}>")
    if isinstance(ty, TupleType):
        return "(" + ", ".join(mlir_type(t) for t in ty.types) + ")"
    assert isinstance(ty, NoneType)
    return "()"


def _type_of(expr: P.Expr) -> Type:
    if isinstance(expr, (P.Var, P.Call, P.BinOp, P.UnaryOp, P.TupleGetItem)):
        return expr.type
    if isinstance(expr, (P.ConstInt, P.ConstFloat)):
        return ScalarType(expr.dtype)
    if isinstance(expr, P.ConstBool):
        return ScalarType(DataType.BOOL)
    return NoneType()


# -- operands --------------------------------------------------------------------------------------


def ssa(expr: P.Expr) -> str:
    """`%name` of an operand (every PTO operand is a Var)."""
    if isinstance(expr, P.Var):
        return "%" + expr.name
    raise ValueError(f"PTO operand is not an SSA value: {expr!r}")


def ssa_list(expr: P.Expr) -> str:
    if isinstance(expr, P.TupleExpr):
        return "[" + ", ".join(ssa(e) for e in expr.elements) + "]"
    return "[" + ssa(expr) + "]"


def typed(expr: P.Expr) -> str:
    return f"{ssa(expr)} : {mlir_type(_type_of(expr))}"


def grouped(operands: P.Expr | list[P.Expr], attrs: dict[str, AttrValue] | None = None, comma: bool = False) -> str:
    """PTOAS's operand clause: the operands, then their types (`%a, %b : T0, T1`); an operand
    attribute dictionary (tcvt's rounding mode) sits between them, after a comma for the ops
    that parse it so (COMMA_BEFORE_OPERAND_ATTRS: tgather's mask form)."""
    items = operands if isinstance(operands, list) else [operands]
    names = ", ".join(ssa(a) for a in items)
    types = ", ".join(mlir_type(_type_of(a)) for a in items)
    attr_text = _attr_dict(tuple(attrs.items())) if attrs else ""
    return f"{names}{',' if comma and attr_text else ''}{attr_text} : {types}"


def loc(span: Span) -> str:
    if not span.known or not span.file or span.file.startswith("<unknown"):
        return ""
    return f' loc("{span.file}":{span.line}:{span.col})'


def _dims(value: AttrValue) -> str:
    assert isinstance(value, tuple)
    return "[" + ", ".join(str(v) for v in value) + "]"


# -- statements ------------------------------------------------------------------------------------


class MlirPrinter:
    def __init__(self, emit_loc: bool = True) -> None:
        self.emit_loc = emit_loc
        self.lines: list[str] = []

    def loc(self, span: Span) -> str:
        return loc(span) if self.emit_loc else ""

    def program(self, program: P.Program) -> str:
        attributes = f' attributes {{pto.target_arch = "{program.target_arch}"}}' if program.target_arch else ""
        self.lines = [f"module{attributes} {{"]
        for function in program.functions:
            self.function(function)
        self.lines.append("}")
        return "\n".join(self.lines) + "\n"

    def function(self, function: P.Function) -> None:
        params = ", ".join(f"%{p.var.name}: {mlir_type(p.var.type)}" for p in function.params)
        kind = KERNEL_KINDS.get(function.func_type)
        attributes = f" attributes {{pto.kernel_kind = #pto.kernel_kind<{kind}>}}" if kind else ""
        self.lines.append(f"{INDENT}func.func @{function.name}({params}){attributes} {{")
        self.block(function.body, 2)
        self.lines.append(f"{INDENT}}}")

    def block(self, body: tuple[P.Stmt, ...], depth: int) -> None:
        for stmt in body:
            self.stmt(stmt, depth)

    def emit(self, depth: int, text: str) -> None:
        self.lines.append(INDENT * depth + text)

    def stmt(self, stmt: P.Stmt, depth: int) -> None:
        if isinstance(stmt, P.AssignStmt):
            assert isinstance(stmt.value, P.Call), "PTO assignments bind op results"
            self.emit(depth, f"%{stmt.target.name} = {self.value_op(stmt.value, stmt.target)}"
                      + ("" if stmt.value.op == "arith.constant" else self.loc(stmt.span)))
        elif isinstance(stmt, P.EvalStmt):
            assert isinstance(stmt.value, P.Call), "PTO statements are instructions"
            self.emit(depth, self.instruction(stmt.value) + self.loc(stmt.span))
        elif isinstance(stmt, P.ForStmt):
            self.for_stmt(stmt, depth)
        elif isinstance(stmt, P.IfStmt):
            self.if_stmt(stmt, depth)
        elif isinstance(stmt, P.YieldStmt):
            if stmt.values:
                values = ", ".join(ssa(v) for v in stmt.values)
                types = ", ".join(mlir_type(_type_of(v)) for v in stmt.values)
                self.emit(depth, f"scf.yield {values} : {types}")
        else:
            self.emit(depth, "return" + self.loc(stmt.span))

    # -- value ops -----------------------------------------------------------------------------

    def value_op(self, call: P.Call, target: P.Var) -> str:
        printer = VALUE_PRINTERS.get(call.op)
        if printer is not None:
            return printer(call, target)
        if call.op.startswith("arith."):
            return _arith(call, target)
        args = ", ".join(ssa(a) for a in call.args)
        return f"{call.op} {args} : {mlir_type(target.type)}"

    # -- instructions --------------------------------------------------------------------------

    def instruction(self, call: P.Call) -> str:
        if call.op in DPS_OPS:
            *ins, out = call.args
            operand_attrs = {k: v for k, v in call.attrs if k in OPERAND_ATTRS.get(call.op, ())}
            trailing = tuple((k, v) for k, v in call.attrs if k not in operand_attrs)
            comma = call.op in COMMA_BEFORE_OPERAND_ATTRS
            return f"{call.op} ins({grouped(ins, operand_attrs, comma)}) outs({grouped(out)}){_attr_dict(trailing, call.op)}"
        if call.op in PUSH_OPS:
            (tile,) = call.args
            return f"{call.op}({typed(tile)}) {_fifo_attr_dict(call.attrs)}"
        if call.op in FREE_OPS:
            return f"{call.op} {_fifo_attr_dict(call.attrs)}"
        if call.op in STATEMENT_PRINTERS:
            return STATEMENT_PRINTERS[call.op](call)
        if call.op == "pto.set_validshape":
            tile, rows, cols = call.args
            return f"pto.set_validshape {ssa(tile)}, {ssa(rows)}, {ssa(cols)} : {mlir_type(_type_of(tile))}"
        args = ", ".join(typed(a) for a in call.args)
        return f"{call.op} {args}{_attr_dict(call.attrs)}"

    # -- regions -------------------------------------------------------------------------------

    def results_prefix(self, results: tuple[P.Var, ...]) -> str:
        if not results:
            return ""
        if len(results) == 1:
            return f"%{results[0].name} = "
        base = results[0].name.split("#")[0]
        return f"%{base}:{len(results)} = "

    def for_stmt(self, stmt: P.ForStmt, depth: int) -> None:
        head = (f"{self.results_prefix(stmt.results)}scf.for %{stmt.loop_var.name} = {ssa(stmt.start)} "
                f"to {ssa(stmt.stop)} step {ssa(stmt.step)}")
        if stmt.iter_args:
            inits = ", ".join(f"%{it.var.name} = {ssa(it.init)}" for it in stmt.iter_args)
            types = ", ".join(mlir_type(it.var.type) for it in stmt.iter_args)
            head += f" iter_args({inits}) -> ({types})"
        self.emit(depth, head + " {")
        self.block(stmt.body, depth + 1)
        self.emit(depth, "}" + self.loc(stmt.span))

    def if_stmt(self, stmt: P.IfStmt, depth: int) -> None:
        head = f"{self.results_prefix(stmt.results)}scf.if {ssa(stmt.cond)}"
        if stmt.results:
            head += " -> (" + ", ".join(mlir_type(r.type) for r in stmt.results) + ")"
        self.emit(depth, head + " {")
        self.block(stmt.then_body, depth + 1)
        if stmt.else_body:
            self.emit(depth, "} else {")
            self.block(stmt.else_body, depth + 1)
        self.emit(depth, "}" + self.loc(stmt.span))


def _attr_text(value: AttrValue, key: str = "", op: str = "") -> str:
    enum = OP_ENUM_ATTRS.get((op, key), ENUM_ATTRS.get(key))
    if enum is not None and isinstance(value, str):
        return f"#pto<{enum} {value if enum in LOWER_CASE_ENUMS else value.upper()}>"
    dialect = DIALECT_ATTRS.get(key)
    if dialect is not None and isinstance(value, str):
        return f"#pto.{dialect}<{value}>"
    typed_int = TYPED_INT_ATTRS.get(key)
    if typed_int is not None and isinstance(value, int):
        return f"{int(value)} : {typed_int}"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, tuple):
        return _dims(value)
    if isinstance(value, DataType):
        return value.mlir
    return str(value)


def _attr_dict(attrs: tuple[tuple[str, AttrValue], ...], op: str = "") -> str:
    shown = [(k, v) for k, v in attrs if v is not None]
    if not shown:
        return ""
    return " {" + ", ".join(f"{k} = {_attr_text(v, k, op)}" for k, v in shown) + "}"


def _fifo_attr_dict(attrs: Attrs) -> str:
    """A FIFO endpoint's `{[id = I, ]split = N}` (PTOAS's fixed order)."""
    pipe, split = attr(attrs, "id"), attr(attrs, "split", 0)
    return "{" + (f"id = {pipe}, " if pipe is not None else "") + f"split = {split}}}"


def _constant(call: P.Call, target: P.Var) -> str:
    literal = call.args[0]
    if isinstance(literal, P.ConstBool):
        return f"arith.constant {'true' if literal.value else 'false'}"
    if isinstance(literal, P.ConstFloat):
        return f"arith.constant {float_literal(literal.value, literal.dtype)} : {literal.dtype.mlir}"
    assert isinstance(literal, P.ConstInt)
    if isinstance(target.type, ViewType):  # a splat vector constant
        return f"arith.constant dense<{literal.value}> : {mlir_type(target.type)}"
    return f"arith.constant {literal.value} : {scalar_mlir(literal.dtype)}"


def _arith(call: P.Call, target: P.Var) -> str:
    operands = ", ".join(ssa(a) for a in call.args)
    operand_type = mlir_type(_type_of(call.args[0]))
    predicate = attr(call.attrs, "predicate")
    if predicate is not None:
        return f"{call.op} {predicate}, {operands} : {operand_type}"
    if call.op in SCALAR_CONVERSIONS:
        return f"{call.op} {operands} : {operand_type} to {mlir_type(target.type)}"
    return f"{call.op} {operands} : {operand_type}"


def _make_tensor_view(call: P.Call, target: P.Var) -> str:
    pointer, shape, strides = call.args
    layout = attr(call.attrs, "layout", "nd")
    return (f"pto.make_tensor_view {ssa(pointer)}, shape = {ssa_list(shape)}, strides = {ssa_list(strides)} "
            f"{{layout = #pto.layout<{layout}>}} : {mlir_type(target.type)}")


def _partition_view(call: P.Call, target: P.Var) -> str:
    view, offsets = call.args[0], call.args[1]
    sizes = attr(call.attrs, "sizes")
    assert isinstance(sizes, tuple)
    # Runtime sizes (a runtime valid extent) are operands; constant ones name their constants.
    size_names = (ssa_list(call.args[2]) if len(call.args) > 2
                  else "[" + ", ".join(f"%c{s}_index" for s in sizes) + "]")
    return (f"pto.partition_view {ssa(view)}, offsets = {ssa_list(offsets)}, sizes = {size_names} "
            f": {mlir_type(_type_of(view))} -> {mlir_type(target.type)}")


def _alloc_tile(call: P.Call, target: P.Var) -> str:
    address, valid = alloc_operands(call)
    addr = f" addr = {ssa(cast(P.Expr, address))}" if address is not None else ""
    extents = "".join(f" {key} = {ssa(cast(P.Expr, v))}" for key, v in zip(("valid_row", "valid_col"), valid))
    return f"pto.alloc_tile{addr}{extents} : {mlir_type(target.type)}"


def _subview(call: P.Call, target: P.Var) -> str:
    source, offsets = call.args[0], call.args[1]
    valid = attr(call.attrs, "valid")
    # PTOAS takes the valid extents as index SSA values (`valid [%c1_index, %c8_index]`); codegen
    # defines an index constant for each, or passes the runtime values as operands.
    valid_text = ""
    if len(call.args) > 2:
        valid_text = " valid " + ssa_list(call.args[2])
    elif isinstance(valid, tuple):
        valid_text = " valid [" + ", ".join(f"%{constant_name(int(v), DataType.INDEX)}" for v in valid) + "]"
    return (f"pto.subview {ssa(source)}{ssa_list(offsets)} sizes {_dims(attr(call.attrs, 'sizes'))}{valid_text} "
            f": {mlir_type(_type_of(source))} -> {mlir_type(target.type)}")


def _tpop(call: P.Call, target: P.Var) -> str:
    """`pto.tpop_from_aic[(%vr, %vc)] {split = N} -> !pto.tile_buf<...>` (spec "Cross-Core
    Operations"; the valid-extent operands when the popped tile's valid shape is partial)."""
    valid = f"({ssa(call.args[0])}, {ssa(call.args[1])}) " if call.args else ""
    return f"{call.op}{' ' if not valid else ''}{valid}{_fifo_attr_dict(call.attrs)} -> {mlir_type(target.type)}"


def _load_scalar(call: P.Call, target: P.Var) -> str:
    """`pto.load_scalar %ptr[%off] : !pto.ptr<T> -> T`."""
    pointer, offset = call.args
    return f"pto.load_scalar {ssa(pointer)}[{ssa(offset)}] : {mlir_type(_type_of(pointer))} -> {mlir_type(target.type)}"


def _tgetval(call: P.Call, target: P.Var) -> str:
    """`pto.tgetval ins(%tile, %off : TILE, index) outs : T`."""
    tile, offset = call.args
    return (f"pto.tgetval ins({ssa(tile)}, {ssa(offset)} : {mlir_type(_type_of(tile))}, index) "
            f"outs : {mlir_type(target.type)}")


def _view_dim(call: P.Call, target: P.Var) -> str:
    view, axis = call.args
    return f"pto.get_tensor_view_dim {ssa(view)}, {ssa(axis)} : {mlir_type(_type_of(view))} -> index"


def _nullary(call: P.Call, target: P.Var) -> str:
    """`pto.get_block_idx` & co.: the i64 result type is implied."""
    return call.op


def _store_scalar(call: P.Call) -> str:
    """`pto.store_scalar %v, %ptr[%off] : !pto.ptr<T>, T`."""
    value, pointer, offset = call.args
    return (f"pto.store_scalar {ssa(value)}, {ssa(pointer)}[{ssa(offset)}] : {mlir_type(_type_of(pointer))}, "
            f"{mlir_type(_type_of(value))}")


def _syncall(call: P.Call) -> str:
    """`pto.syncall([operands : types]) mode = #pto.sync_all_mode<M>, core_type = #pto.sync_core_type<C>`."""
    operands = ", ".join(ssa(a) for a in call.args)
    types = ", ".join(mlir_type(_type_of(a)) for a in call.args)
    inside = f"{operands} : {types}" if call.args else ""
    return (f"pto.syncall({inside}) mode = #pto.sync_all_mode<{attr(call.attrs, 'mode', 'hard')}>, "
            f"core_type = #pto.sync_core_type<{attr(call.attrs, 'core_type', 'aiv_only')}>")


def _mrgsort(call: P.Call) -> str:
    """Format 1 `pto.tmrgsort ins(%src, %bl : T, i32) outs(%dst : T)`; format 2 `pto.tmrgsort
    ins(%s0, .., %tmp {exhausted = B} : ..) outs(%dst, %ex : T, vector<4xi16>)`."""
    if isinstance(_type_of(call.args[-1]), ViewType):
        *ins, out, counts = call.args
        exhausted = "true" if attr(call.attrs, "exhausted", False) else "false"
        names = ", ".join(ssa(a) for a in ins)
        types = ", ".join(mlir_type(_type_of(a)) for a in ins)
        return (f"pto.tmrgsort ins({names} {{exhausted = {exhausted}}} : {types}) "
                f"outs({ssa(out)}, {ssa(counts)} : {mlir_type(_type_of(out))}, {mlir_type(_type_of(counts))})")
    src, block_len, out = call.args
    return f"pto.tmrgsort ins({grouped([src, block_len])}) outs({grouped(out)})"


def _sync_event(call: P.Call) -> str:
    """`pto.sync.set <PIPE>, 3 {ffts_mode = 1 : i32}` / `pto.sync.wait <PIPE>, %event`."""
    event = ssa(call.args[0]) if call.args else str(attr(call.attrs, "event_id", 0))
    mode = attr(call.attrs, "ffts_mode")
    extra = f" {{ffts_mode = {mode} : i32}}" if mode is not None else ""
    return f"{call.op} <{attr(call.attrs, 'pipe', 'PIPE_ALL')}>, {event}{extra}"


def _barrier(call: P.Call) -> str:
    return f"pto.barrier <{attr(call.attrs, 'pipe', 'PIPE_ALL')}>"


def _address_space(value: AttrValue) -> str:
    assert isinstance(value, MemorySpace)
    return f"#pto.address_space<{value.pto_name}>"


def _reserve_buffer(call: P.Call, target: P.Var) -> str:
    """`pto.reserve_buffer {name = "N", size = S, location = #pto.address_space<loc>, auto = A[,
    base = B]} -> i32` (PTOAS rejects `base` with `auto = true`)."""
    fields = [f'name = "{attr(call.attrs, "name")}"', f"size = {attr(call.attrs, 'size')}",
              f"location = {_address_space(attr(call.attrs, 'location'))}",
              f"auto = {'true' if attr(call.attrs, 'auto') else 'false'}"]
    base = attr(call.attrs, "base")
    if base is not None:
        fields.append(f"base = {base}")
    return f"pto.reserve_buffer {{{', '.join(fields)}}} -> {mlir_type(target.type)}"


def _import_reserved_buffer(call: P.Call, target: P.Var) -> str:
    return (f'pto.import_reserved_buffer {{name = "{attr(call.attrs, "name")}", '
            f"peer_func = @{attr(call.attrs, 'peer_func')}}} -> {mlir_type(target.type)}")


# The operands of a frontend pipe initialisation, by position in the PTO op.
PIPE_INIT_OPERANDS = ("c2v_consumer_buf", "v2c_consumer_buf", "gm_slot_buffer")


def _initialize_pipe(call: P.Call) -> str:
    """`pto.aic_initialize_pipe {[id = I, ]dir_mask = D, slot_size = S, slot_num = N}
    ([gm_slot_buffer = %gm : !pto.ptr<f32>, ]c2v_consumer_buf = %a : i32, v2c_consumer_buf = %b : i32)`."""
    named = dict(zip(PIPE_INIT_OPERANDS, call.args))
    order = ("gm_slot_buffer", "c2v_consumer_buf", "v2c_consumer_buf")
    operands = ", ".join(f"{key} = {typed(named[key])}" for key in order if key in named)
    fields = ", ".join(f"{k} = {v}" for k, v in call.attrs if v is not None)
    return f"{call.op} {{{fields}}} ({operands})"


# A mixed kernel's side functions carry their core (`attributes {pto.kernel_kind = ...}`).
KERNEL_KINDS: dict[str, str] = {"AIC": "cube", "AIV": "vector"}
PIPE_INIT_OPS = frozenset({"pto.aic_initialize_pipe", "pto.aiv_initialize_pipe"})

SPMD_OPS = frozenset({"pto.get_block_idx", "pto.get_block_num", "pto.get_subblock_idx"})
STATEMENT_PRINTERS: dict[str, Callable[[P.Call], str]] = {
    "pto.store_scalar": _store_scalar,
    "pto.syncall": _syncall,
    "pto.barrier": _barrier,
    "pto.sync.set": _sync_event,
    "pto.sync.wait": _sync_event,
    "pto.tmrgsort": _mrgsort,
    **{op: _initialize_pipe for op in PIPE_INIT_OPS},
}

PUSH_OPS = frozenset({"pto.tpush_to_aiv", "pto.tpush_to_aic"})
POP_OPS = frozenset({"pto.tpop_from_aic", "pto.tpop_from_aiv"})
FREE_OPS = frozenset({"pto.tfree_from_aic", "pto.tfree_from_aiv"})

VALUE_PRINTERS: dict[str, Callable[[P.Call, P.Var], str]] = {
    **{op: _tpop for op in POP_OPS},
    "arith.constant": _constant,
    "pto.make_tensor_view": _make_tensor_view,
    "pto.partition_view": _partition_view,
    "pto.alloc_tile": _alloc_tile,
    "pto.subview": _subview,
    "pto.load_scalar": _load_scalar,
    "pto.tgetval": _tgetval,
    "pto.get_tensor_view_dim": _view_dim,
    **{op: _nullary for op in SPMD_OPS},
    "pto.reserve_buffer": _reserve_buffer,
    "pto.import_reserved_buffer": _import_reserved_buffer,
}


def print_mlir(program: P.Program, emit_loc: bool = True) -> str:
    """The PTO-ISA MLIR text of `program`; `emit_loc=False` gives the location-free form."""
    return MlirPrinter(emit_loc).program(program)

