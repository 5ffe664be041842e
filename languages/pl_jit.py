"""`@pl.jit` kernels: from a module's source and the shapes of one call to a DSL program.

PyPTO's `@pl.jit` never runs a kernel body as Python: on each call it reads the entry's source
with `ast`, specializes it on the call's tensor shapes and dtypes and scalar values, and parses
the result as one `@pl.program` (JIT_FRONTEND.md §1). This module does the same on the AST of the
whole source file, so every diagnostic points into the user's file:

- the entry (`@pl.jit`, Orchestration) gets its parameter types from the binding; a dependency
  (`@pl.jit.incore` InCore, `@pl.jit.inline` Inline, `@pl.jit.opaque` Opaque) is discovered at
  its first bare-name call `dep(...)` and specialized on the types of that call's arguments (one
  specialization per dependency: every call site must agree);
- `a.shape`, `a.shape[i]`, `M, N = a.shape` and `a.dtype` of a tensor parameter become literals;
  so do specialized scalar parameters and the module's int / float / bool constants;
- `pl.dynamic("M")` dimensions: a DynVar written in an annotation, or declared in the body with
  `M = pl.dynamic("M")` + `x.bind_dynamic(0, M)` (both statements dropped), reads as the extent
  the call passes (this compiler specializes dynamic dimensions at call time);
- a function without a return annotation returns the types of its `return` values;
- the program is named `_jit_<entry>`, dependencies first.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence, Union, cast


import languages.gen.dsl as D
from languages.decls import DSL
from typing_extensions import override

from languages.pl_parser import (
    Constant, _Parser, _Scope, _dotted, _error, _is_docstring, _span_of, _syntax_error, fold_constant, module_constants,
)
from languages.pl_printer import expr_type
from languages.types import DataType, NoneType, ScalarType, TensorType, TupleType, Type
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.node import Node, Span

RULE = "parse"

# Decorator spelling -> the function type the specializer gives it (JIT_FRONTEND.md §1.1).
JIT_KINDS = {
    "pl.jit": "Orchestration", "pl.jit.incore": "InCore", "pl.jit.inline": "Inline", "pl.jit.opaque": "Opaque",
}
UNSUPPORTED_KINDS = {"pl.jit.host": "host orchestrators (@pl.jit.host)",
                     "pl.jit.extern": "external C++ kernels (@pl.jit.extern)"}


@dataclass(frozen=True)
class JitDef:
    """A `@pl.jit*` function of a module."""

    node: ast.FunctionDef
    func_type: str
    options: Mapping[str, ast.expr] = field(default_factory=dict)


@dataclass(frozen=True)
class Binding:
    """What one call of the entry specializes on: tensor types (shape, dtype) and scalar values,
    by parameter name."""

    tensors: Mapping[str, TensorType]
    scalars: Mapping[str, Constant] = field(default_factory=dict)


def decorator_kind(deco: ast.expr) -> tuple[str, dict[str, ast.expr]] | None:
    """(spelling, keyword arguments) of a `@pl.jit*` decorator, or None for anything else."""
    call = deco if isinstance(deco, ast.Call) else None
    parts = _dotted(call.func if call is not None else deco)
    if parts is None or parts[:2] != ["pl", "jit"]:
        return None
    keywords = {kw.arg: kw.value for kw in call.keywords if kw.arg} if call is not None else {}
    return ".".join(parts), keywords


def jit_functions(module: ast.Module, filename: str) -> dict[str, JitDef]:
    """Every module-level `@pl.jit*` function (a located error for the kinds not supported)."""
    found: dict[str, JitDef] = {}
    for stmt in module.body:
        if not isinstance(stmt, ast.FunctionDef):
            continue
        for deco in stmt.decorator_list:
            kind = decorator_kind(deco)
            if kind is None:
                continue
            spelling, keywords = kind
            if spelling in UNSUPPORTED_KINDS:
                raise _error(_span_of(filename, deco), f"not supported yet: {UNSUPPORTED_KINDS[spelling]}")
            if spelling not in JIT_KINDS:
                raise _error(_span_of(filename, deco), f"unknown decorator @{spelling}",
                             "the @pl.jit family: @pl.jit, @pl.jit.incore, @pl.jit.inline, @pl.jit.opaque")
            _check_options(spelling, keywords, filename)
            found[stmt.name] = JitDef(stmt, JIT_KINDS[spelling], keywords)
    return found


def _check_options(spelling: str, keywords: Mapping[str, ast.expr], filename: str) -> None:
    allowed = {"pl.jit": {"auto_scope"}, "pl.jit.inline": {"auto_scope"}, "pl.jit.incore": {"level"},
               "pl.jit.opaque": set()}[spelling]
    for name, value in keywords.items():
        if name == "level" and spelling != "pl.jit.incore":
            raise _error(_span_of(filename, value), f"@{spelling} does not accept a level= argument")
        if name not in allowed:
            raise _error(_span_of(filename, value), f"@{spelling} does not accept {name}=")
        if name == "level" and _dotted(value) not in (["pl", "Level", "CHIP_DIE"], ["pl", "Level", "L2CACHE"]):
            raise _error(_span_of(filename, value), f"@pl.jit.incore(level={ast.unparse(value)}): a function of type "
                                                    "InCore implies level=CHIP_DIE, which is the only level it takes")


# -- annotations ------------------------------------------------------------------------------------


@dataclass
class _ParamSpec:
    arg: ast.arg
    kind: str  # "tensor" | "scalar"
    direction: str
    dtype: DataType | None = None  # a scalar's declared dtype
    dynamic: dict[int, str] = field(default_factory=dict)  # tensor dim -> DynVar name


def _classify(arg: ast.arg, filename: str, inline: bool, dynvars: set[str]) -> _ParamSpec:
    node = arg.annotation
    if node is None:
        raise _error(_span_of(filename, arg), f"Parameter {arg.arg!r} missing type annotation",
                     "annotate it pl.Tensor, pl.Out[pl.Tensor] or pl.Scalar[pl.FP32] (or a bare dtype like pl.INT32)")
    direction = "In"
    if isinstance(node, ast.Subscript) and _dotted(node.value) in (["pl", "Out"], ["pl", "InOut"]):
        direction = cast(list[str], _dotted(node.value))[1]
        if inline:
            direction = "In"  # deprecated in inline helpers: the body is spliced into the caller
        node = node.slice
    head = _dotted(node.value) if isinstance(node, ast.Subscript) else _dotted(node)
    if head in (["pl", "Tensor"], ["Tensor"]):
        spec = _ParamSpec(arg, "tensor", direction)
        if isinstance(node, ast.Subscript):
            items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if len(items) >= 3 and isinstance(items[2], ast.Call) and _dotted(items[2].func) == ["pl", "TensorView"]:
                raise _error(_span_of(filename, items[2]), f"parameter {arg.arg!r} annotates a pl.TensorView in its "
                             "layout slot, which @pl.jit does not yet support", "declare the kernel with @pl.function")
            if items and isinstance(items[0], (ast.List, ast.Tuple)):
                for index, dim in enumerate(items[0].elts):
                    if isinstance(dim, ast.Name) and dim.id in dynvars:
                        spec.dynamic[index] = dim.id
        return spec
    if head in (["pl", "DistributedTensor"], ["pld", "DistributedTensor"]):
        raise _error(_span_of(filename, node), "not supported yet: distributed tensors (pld.DistributedTensor)")
    if head in (["pl", "Scalar"], ["Scalar"]) and isinstance(node, ast.Subscript):
        return _ParamSpec(arg, "scalar", "In", _dtype_of(node.slice, filename))
    if head is not None and len(head) == 2 and head[0] == "pl" and head[1] in DataType.__members__:
        return _ParamSpec(arg, "scalar", "In", DataType[head[1]])
    if head in (["pl", "Array"],):
        raise _error(_span_of(filename, node), "not supported yet: pl.Array parameters")
    raise _error(_span_of(filename, node), f"parameter {arg.arg!r}: unsupported annotation `{ast.unparse(node)}`",
                 "use pl.Tensor, pl.Out[pl.Tensor], pl.InOut[pl.Tensor], pl.Scalar[pl.DT] or a bare dtype")


def _dtype_of(node: ast.expr, filename: str) -> DataType:
    parts = _dotted(node)
    if parts is None or len(parts) != 2 or parts[0] != "pl" or parts[1] not in DataType.__members__:
        raise _error(_span_of(filename, node), f"expected a dtype like pl.FP32, got `{ast.unparse(node)}`")
    return DataType[parts[1]]


def dtype_node(dtype: DataType, at: ast.AST) -> ast.expr:
    node = ast.Attribute(value=ast.Name(id="pl", ctx=ast.Load()), attr=dtype.name, ctx=ast.Load())
    return ast.fix_missing_locations(ast.copy_location(node, at))


def _literal(value: Constant, at: ast.AST) -> ast.expr:
    node: ast.expr
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0:
        node = ast.UnaryOp(op=ast.USub(), operand=ast.Constant(value=-value))
    else:
        node = ast.Constant(value=value)
    return ast.fix_missing_locations(ast.copy_location(node, at))


def dynvar_names(module: ast.Module) -> set[str]:
    """Module-level `M = pl.dynamic("M")` names."""
    names: set[str] = set()
    for stmt in module.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and _is_dynamic_call(stmt.value):
            names.add(stmt.targets[0].id)
    return names


def _is_dynamic_call(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and _dotted(node.func) == ["pl", "dynamic"]


# -- the body rewrite (the specializer's _BodyTransformer) --------------------------------------------


class _Specializer(ast.NodeTransformer):
    """Inlines what a call fixes: parameter shapes and dtypes, specialized scalars, DynVars and
    module constants; turns dependency calls `dep(...)` into `self.dep(...)`."""

    def __init__(self, filename: str, tensors: Mapping[str, TensorType], literals: Mapping[str, Constant],
                 constants: Mapping[str, Constant], deps: Mapping[str, JitDef], locals_: set[str]) -> None:
        self.filename = filename
        self.tensors = tensors
        self.literals = literals
        self.constants = constants
        self.deps = deps
        self.locals = locals_

    def fail(self, node: ast.AST, message: str, hint: str = "") -> CompileError:
        return _error(_span_of(self.filename, node), message, hint)

    def body(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for stmt in stmts:
            if self.dropped(stmt):
                continue
            expanded = self.expand_shape_unpack(stmt)
            if expanded is not None:
                out.extend(expanded)
                continue
            new = self.visit(stmt)
            out.extend(new if isinstance(new, list) else [new])
        return out

    def dropped(self, stmt: ast.stmt) -> bool:
        """`M = pl.dynamic("M")` and `x.bind_dynamic(0, M)` only declare what the call fixes."""
        if isinstance(stmt, ast.Assign) and _is_dynamic_call(stmt.value):
            return True
        value = stmt.value if isinstance(stmt, ast.Expr) else None
        return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
            and value.func.attr == "bind_dynamic"

    def expand_shape_unpack(self, stmt: ast.stmt) -> list[ast.stmt] | None:
        """`M, N = a.shape` / `K = a.shape[1]`: the names become literals (the statement goes)."""
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
            return None
        shape = self.shape_of(stmt.value)
        target = stmt.targets[0]
        if shape is not None and isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts):
            if len(target.elts) != len(shape):
                raise self.fail(stmt, f"`{ast.unparse(stmt.value)}` has {len(shape)} dimensions but "
                                      f"{len(target.elts)} names are assigned")
            for element, dim in zip(target.elts, shape):
                self.literals = {**self.literals, cast(ast.Name, element).id: dim}
            return []
        return None

    def shape_of(self, node: ast.expr) -> tuple[int, ...] | None:
        if isinstance(node, ast.Attribute) and node.attr == "shape" and isinstance(node.value, ast.Name) \
                and node.value.id in self.tensors:
            return tuple(int(d) for d in self.tensors[node.value.id].shape)
        return None

    @override
    def visit_For(self, node: ast.For) -> ast.AST:
        node.body = self.body(node.body)
        node.orelse = self.body(node.orelse)
        node.iter = cast(ast.expr, self.visit(node.iter))
        node.target = cast(ast.expr, self.visit(node.target))
        return node

    @override
    def visit_While(self, node: ast.While) -> ast.AST:
        node.test = cast(ast.expr, self.visit(node.test))
        node.body = self.body(node.body)
        node.orelse = self.body(node.orelse)
        return node

    @override
    def visit_If(self, node: ast.If) -> ast.AST:
        node.test = cast(ast.expr, self.visit(node.test))
        node.body = self.body(node.body)
        node.orelse = self.body(node.orelse)
        return node

    @override
    def visit_With(self, node: ast.With) -> ast.AST:
        node.items = [cast(ast.withitem, self.visit(item)) for item in node.items]
        node.body = self.body(node.body)
        return node

    @override
    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        shape = self.shape_of(node)
        if shape is not None:
            return ast.copy_location(ast.Tuple(elts=[_literal(d, node) for d in shape], ctx=ast.Load()), node)
        if node.attr == "dtype" and isinstance(node.value, ast.Name) and node.value.id in self.tensors:
            return dtype_node(self.tensors[node.value.id].dtype, node)
        self.generic_visit(node)
        return node

    @override
    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        shape = self.shape_of(node.value)
        if shape is not None:
            index = fold_constant(node.slice, {**self.constants, **self.literals})
            if not isinstance(index, int) or isinstance(index, bool) or not -len(shape) <= index < len(shape):
                raise self.fail(node.slice, f"`{ast.unparse(node)}`: the index must be a constant within the "
                                            f"tensor's {len(shape)} dimensions")
            return _literal(shape[index], node)
        self.generic_visit(node)
        return node

    @override
    def visit_Name(self, node: ast.Name) -> ast.AST:
        if isinstance(node.ctx, ast.Load):
            if node.id in self.literals:
                return _literal(self.literals[node.id], node)
            if node.id not in self.locals and node.id not in self.tensors and node.id in self.constants:
                return _literal(self.constants[node.id], node)
        return node

    @override
    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id in self.deps and node.func.id not in self.locals:
            dep = self.deps[node.func.id]
            order = [a.arg for a in dep.node.args.args]
            args = list(node.args)
            extra: list[ast.keyword] = []
            by_name = {kw.arg: kw for kw in node.keywords if kw.arg}
            for name in order[len(args):]:
                if name in by_name:
                    args.append(by_name.pop(name).value)
            extra = [kw for kw in node.keywords if kw.arg is None or kw.arg in by_name]
            func = ast.Attribute(value=ast.Name(id="self", ctx=ast.Load()), attr=node.func.id, ctx=ast.Load())
            return ast.copy_location(ast.Call(func=ast.copy_location(func, node.func), args=args, keywords=extra), node)
        return node


def _assigned_locals(stmts: Sequence[ast.stmt]) -> set[str]:
    names: set[str] = set()
    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
    return names


# -- the parser ------------------------------------------------------------------------------------------


class JitParser(_Parser):
    """The `pl` parser, specializing `@pl.jit*` functions as their calls are met."""

    def __init__(self, filename: str, defs: Mapping[str, JitDef], constants: Mapping[str, Constant],
                 dynvars: set[str]) -> None:
        super().__init__(filename, DSL)
        self.defs = defs
        self.constants = constants
        self.dynvars = dynvars
        self.built: list[Node] = []
        self.specialized: dict[str, tuple[Type, ...]] = {}  # dep name -> the parameter types it was built for

    def build(self, entry: str, binding: Binding) -> D.Program:
        jit = self.defs[entry]
        if jit.func_type != "Orchestration":
            raise _error(_span_of(self.filename, jit.node), f"`{entry}` is a @pl.jit dependency, not an entry",
                         "call it from a @pl.jit function")
        specs = self.param_specs(jit)
        types: list[Type] = []
        for spec in specs:
            if spec.kind == "tensor":
                if spec.arg.arg not in binding.tensors:
                    raise _error(_span_of(self.filename, spec.arg),
                                 f"@pl.jit: missing inferred tensor metadata for parameter {spec.arg.arg!r}",
                                 "pass an array for it (or its shape: --shapes / --inputs)")
                types.append(binding.tensors[spec.arg.arg])
            else:
                assert spec.dtype is not None
                types.append(ScalarType(spec.dtype))
        self.specialize(jit, types, {k: v for k, v in binding.scalars.items()}, None)
        program = D.Program(name=f"_jit_{entry}", functions=tuple(cast(Any, self.built)),
                            span=_span_of(self.filename, jit.node))
        return program

    def param_specs(self, jit: JitDef) -> list[_ParamSpec]:
        args = jit.node.args
        if args.posonlyargs or args.vararg or args.kwonlyargs or args.kwarg:
            raise _error(_span_of(self.filename, jit.node), "a @pl.jit function takes plain parameters only")
        return [_classify(a, self.filename, jit.func_type == "Inline", self.dynvars) for a in args.args]

    def specialize(self, jit: JitDef, types: Sequence[Type], scalars: Mapping[str, Constant],
                   call: ast.AST | None) -> tuple[Type, ...]:
        """Build `jit` for parameter `types` (once); returns its result types."""
        name = jit.node.name
        if name in self.specialized:
            if tuple(types) != self.specialized[name]:
                assert call is not None
                raise _error(_span_of(self.filename, call), f"`{name}` is called with other shapes or dtypes than at "
                             "its first call; a @pl.jit dependency has one specialization per compile",
                             "call it with the same shapes everywhere, or write a second dependency")
            return self.signatures[name]
        specs = self.param_specs(jit)
        if len(types) != len(specs):
            where = call if call is not None else jit.node
            raise _error(_span_of(self.filename, where), f"`{name}` takes {len(specs)} argument(s), got {len(types)}")
        self.specialized[name] = tuple(types)
        tensors = {s.arg.arg: t for s, t in zip(specs, types) if s.kind == "tensor" and isinstance(t, TensorType)}
        for spec, ty in zip(specs, types):
            if spec.kind == "tensor" and not isinstance(ty, TensorType):
                raise _error(_span_of(self.filename, call or spec.arg),
                             f"parameter {spec.arg.arg!r} of `{name}` is a tensor, got {expr_type_text(ty)}")
        literals: dict[str, Constant] = dict(scalars)
        for spec in specs:
            bound = tensors.get(spec.arg.arg)
            for index, dyn in spec.dynamic.items():
                if bound is not None and index < len(bound.shape):
                    literals.setdefault(dyn, int(bound.shape[index]))
        # `x.bind_dynamic(0, M)`: M reads as that extent of x.
        for node in ast.walk(jit.node):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "bind_dynamic" \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id in tensors and len(node.args) == 2 \
                    and isinstance(node.args[0], ast.Constant) and type(node.args[0].value) is int \
                    and isinstance(node.args[1], ast.Name):
                dims = tensors[node.func.value.id].shape
                if 0 <= node.args[0].value < len(dims):
                    literals.setdefault(node.args[1].id, int(dims[node.args[0].value]))
        body_ast = jit.node.body[1:] if jit.node.body and _is_docstring(jit.node.body[0]) else jit.node.body
        rewriter = _Specializer(self.filename, tensors, literals, self.constants, self.defs,
                                _assigned_locals(body_ast) | {s.arg.arg for s in specs})
        func = ast.FunctionDef(name=name, args=jit.node.args, body=rewriter.body(list(body_ast)),
                               decorator_list=[], returns=jit.node.returns, type_comment=None)
        ast.copy_location(func, jit.node)
        func.end_lineno, func.end_col_offset = jit.node.end_lineno, jit.node.end_col_offset
        params = [(spec.arg, ty, spec.direction) for spec, ty in zip(specs, types)]
        returns = self.declared_returns(jit, tensors, rewriter)
        built = self.nested_function(func, params, returns, jit.func_type)
        self.built.append(built)
        result = tuple(getattr(built, "return_types"))
        self.signatures[name] = result
        return result

    def declared_returns(self, jit: JitDef, tensors: Mapping[str, TensorType],
                         rewriter: _Specializer) -> tuple[Type, ...] | None:
        """The explicit return annotation, when it is a full one (`-> pl.Scalar[...]`, a full
        tensor type); None: inferred from the `return` values."""
        node = jit.node.returns
        if node is None:
            return None
        try:
            ty = self.types.type(cast(ast.expr, rewriter.visit(node)))
        except CompileError:
            return None  # a bare `-> pl.Tensor`: PyPTO drops it, the values decide
        return ty.types if isinstance(ty, TupleType) else (() if isinstance(ty, NoneType) else (ty,))

    def nested_function(self, func: ast.FunctionDef, params: list[tuple[ast.arg, Type, str]],
                        returns: tuple[Type, ...] | None, func_type: str) -> Node:
        """Parse one function while another may be half parsed (a dependency is built at its
        first call): the per-function state is saved and restored around it."""
        saved = (self.used_names, self.returns, self.assigned_in_function)
        try:
            built = self.function(func, params, returns if returns is not None else (), func_type)
            if returns is None:
                built = _with_inferred_returns(built)
            return built
        finally:
            self.used_names, self.returns, self.assigned_in_function = saved

    @override
    def func_call(self, node: ast.Call, parts: list[str], scope: _Scope) -> Node:
        if len(parts) == 2 and parts[1] in self.defs and parts[1] not in self.specialized:
            jit = self.defs[parts[1]]
            args = [self.expr(a, scope) for a in node.args]
            types = [expr_type(a) for a in args]
            specs = self.param_specs(jit)
            # A literal passed to a scalar parameter stays a runtime scalar of the declared dtype.
            types = [ScalarType(s.dtype) if s.kind == "scalar" and s.dtype is not None else t
                     for s, t in zip(specs, types)] + types[len(specs):]
            self.specialize(jit, types, {}, node)
        return super().func_call(node, parts, scope)

    @override
    def name(self, node: ast.expr, scope: _Scope) -> Node:
        assert isinstance(node, ast.Name)
        if scope.resolve(node.id) is None and node.id in self.defs:
            self.fail(node, f"`{node.id}` is a @pl.jit function: call it, e.g. `{node.id}(...)`")
        return super().name(node, scope)


def expr_type_text(ty: Type) -> str:
    from languages.pl_printer import format_type

    return format_type(ty)


def _with_inferred_returns(function: Node) -> Node:
    """The function with the types of its top-level `return` values as its result types."""
    body = getattr(function, "body")
    returns: tuple[Type, ...] = ()
    for stmt in body:
        if stmt.KIND == "ReturnStmt":
            returns = tuple(expr_type(v) for v in getattr(stmt, "values"))
    from dataclasses import replace

    return cast(Node, replace(cast(Any, function), return_types=returns))


def parse_jit(text: str, filename: str, entry: str | None, binding: Binding,
              constants: Mapping[str, Constant] | None = None) -> D.Program:
    """The DSL program of `entry` (the module's only `@pl.jit` entry when None) specialized on
    `binding`. `constants` are the module's int / float / bool globals (read from the source
    when not given)."""
    module = _syntax_error(text, filename)
    defs = jit_functions(module, filename)
    entries = [n for n, d in defs.items() if d.func_type == "Orchestration"]
    if entry is None:
        if len(entries) != 1:
            raise CompileError(Diagnostic(RULE, f"{filename} has {len(entries)} @pl.jit entries "
                                                f"({', '.join(entries) or 'none'}); name the one to compile",
                                          Span(filename, 1, 1)))
        entry = entries[0]
    if entry not in defs:
        raise CompileError(Diagnostic(RULE, f"{filename} has no @pl.jit function {entry!r} "
                                            f"(entries: {', '.join(entries) or 'none'})", Span(filename, 1, 1)))
    parser = JitParser(filename, defs, constants if constants is not None else module_constants(module),
                       dynvar_names(module))
    try:
        return parser.build(entry, binding)
    except CompileError:
        raise
    except RecursionError:
        raise _error(Span(filename, 1, 1), "the program is nested too deeply to parse") from None
    except Exception as exc:  # a parser bug must still surface as a diagnostic, never a traceback
        raise _error(_span_of(filename, defs[entry].node),
                     f"internal parser error: {type(exc).__name__}: {exc}") from exc


def is_jit_source(text: str) -> bool:
    """Whether a source file holds `@pl.jit*` functions (cheap: no full parse when it cannot)."""
    if "pl.jit" not in text:
        return False
    try:
        module = ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return any(isinstance(s, ast.FunctionDef) and any(decorator_kind(d) for d in s.decorator_list)
               for s in module.body)


# numpy / torch dtype spellings -> DataType
_DTYPE_WORDS = {
    "float32": DataType.FP32, "float16": DataType.FP16, "half": DataType.FP16, "float": DataType.FP32,
    "bfloat16": DataType.BF16, "int8": DataType.INT8, "int16": DataType.INT16, "int32": DataType.INT32,
    "int64": DataType.INT64, "uint8": DataType.UINT8, "uint16": DataType.UINT16, "uint32": DataType.UINT32,
    "bool": DataType.BOOL, "bool_": DataType.BOOL, "float8_e4m3fn": DataType.FP8E4M3FN,
    "float8_e5m2": DataType.FP8E5M2, "fp32": DataType.FP32, "fp16": DataType.FP16, "bf16": DataType.BF16,
    "float64": DataType.INT64,  # not a kernel dtype: rejected below
}
_CONSTRUCTORS = {"zeros", "ones", "empty", "full", "rand", "randn", "random", "randint", "zeros_like", "ones_like",
                 "empty_like", "arange", "tensor", "array", "normal", "uniform", "standard_normal", "integers"}


# -- sample mode: the file's own call of the entry ------------------------------------------------------


def sample_binding(module: ast.Module, filename: str, entry: str, constants: Mapping[str, Constant]) -> Binding | None:
    params = [a.arg for a in jit_functions(module, filename)[entry].node.args.args]
    for block in _blocks(module):
        assigned: dict[str, ast.expr] = {}
        names: dict[str, Constant] = dict(constants)
        for stmt in block:
            call = _entry_call(stmt, entry)
            if call is not None:
                binding = _bind_call(call, params, assigned, names)
                if binding is not None:
                    return binding
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                assigned[stmt.targets[0].id] = stmt.value
                value = fold_constant(stmt.value, names)
                if value is not None:
                    names[stmt.targets[0].id] = value
    return None


def _blocks(module: ast.Module) -> list[list[ast.stmt]]:
    """Every statement block outside the jit functions (module body, if-bodies, function bodies)."""
    out: list[list[ast.stmt]] = [module.body]
    for node in ast.walk(module):
        if isinstance(node, ast.FunctionDef) and any(_dotted(d.func if isinstance(d, ast.Call) else d) is not None
                                                     and (_dotted(d.func if isinstance(d, ast.Call) else d) or [])[:2]
                                                     == ["pl", "jit"] for d in node.decorator_list):
            continue
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt) and node is not module:
                out.append(block)
    return out


def _entry_call(stmt: ast.stmt, entry: str) -> ast.Call | None:
    value = stmt.value if isinstance(stmt, (ast.Expr, ast.Assign)) else None
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == entry:
        return value
    return None


def _bind_call(call: ast.Call, params: list[str], assigned: Mapping[str, ast.expr],
               names: Mapping[str, Constant]) -> Binding | None:
    tensors: dict[str, TensorType] = {}
    scalars: dict[str, Constant] = {}
    given = list(zip(params, call.args)) + [(kw.arg, kw.value) for kw in call.keywords if kw.arg in params]
    for param, arg in given:
        assert param is not None
        literal = fold_constant(arg, names)
        if literal is not None:
            scalars[param] = literal
            continue
        source = assigned.get(arg.id) if isinstance(arg, ast.Name) else arg
        built = _constructed(source, names, assigned) if source is not None else None
        if built is None or built[1] is None:
            return None  # not an array of constant shape, or NumPy's default float64 (no kernel dtype)
        tensors[param] = TensorType(built[0], built[1])
    return Binding(tensors, scalars)


Built = tuple[tuple[int, ...], DataType | None]


def _constructed(node: ast.expr, names: Mapping[str, Constant], assigned: Mapping[str, ast.expr],
                 depth: int = 0) -> Built | None:
    """The shape and dtype (None: NumPy's float64 default) an array constructor expression
    builds, when its shape is constant."""
    if depth > 8:
        return None
    if isinstance(node, ast.BinOp):  # `np.arange(n).reshape(r, c) / 64`: arithmetic keeps shape and dtype
        for side in (node.left, node.right):
            base = assigned.get(side.id) if isinstance(side, ast.Name) else side
            built = _constructed(base, names, assigned, depth + 1) if base is not None else None
            if built is not None:
                return built
        return None
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return None
    attr = node.func.attr
    if attr in ("astype", "to", "type") and node.args:  # x.astype(np.float16), t.to(torch.bfloat16)
        inner = node.func.value
        base = assigned.get(inner.id) if isinstance(inner, ast.Name) else inner
        built = _constructed(base, names, assigned, depth + 1) if base is not None else None
        dtype = _dtype(node.args[0])
        return (built[0], dtype) if built is not None and dtype is not None else None
    if attr == "reshape":
        inner = node.func.value
        base = assigned.get(inner.id) if isinstance(inner, ast.Name) else inner
        built = _constructed(base, names, assigned, depth + 1) if base is not None else None
        shape = _shape(node.args, names)
        return (shape, built[1]) if built is not None and shape is not None else None
    if attr in ("contiguous", "clone", "copy", "cpu", "detach"):
        inner = node.func.value
        base = assigned.get(inner.id) if isinstance(inner, ast.Name) else inner
        return _constructed(base, names, assigned, depth + 1) if base is not None else None
    if attr not in _CONSTRUCTORS:
        return None
    root = (_dotted(node.func) or [""])[0]
    torch = root == "torch"
    keywords = {kw.arg: kw.value for kw in node.keywords if kw.arg}
    if attr in ("zeros_like", "ones_like", "empty_like"):
        like = node.args[0] if node.args else None
        source = assigned.get(like.id) if isinstance(like, ast.Name) else like
        return _constructed(source, names, assigned, depth + 1) if source is not None else None
    if attr in ("randint", "integers"):
        shape = _shape([keywords["size"]], names) if "size" in keywords else (
            _shape(node.args[2:3], names) if len(node.args) >= 3 else None)
    elif attr in ("normal", "uniform"):
        shape = _shape([keywords["size"]], names) if "size" in keywords else None
    elif "size" in keywords or "shape" in keywords:
        shape = _shape([keywords.get("size") or keywords["shape"]], names)
    else:
        if node.args and isinstance(node.args[0], (ast.Tuple, ast.List)) or attr == "full":
            args = node.args[:1]  # np.zeros((r, c)), torch.full((r, c), v), rng.standard_normal((r, c))
        elif attr == "arange":
            args = node.args[-1:] if len(node.args) == 1 else []
        else:
            args = list(node.args)  # torch.randn(r, c), np.random.rand(r, c)
        shape = _shape(args, names)
    if shape is None:
        return None
    dtype = _dtype(keywords["dtype"]) if "dtype" in keywords else (DataType.FP32 if torch else None)
    if dtype is None and attr == "randint" and torch:
        dtype = DataType.INT64
    return shape, dtype


def _shape(args: list[ast.expr] | Any, names: Mapping[str, Constant]) -> tuple[int, ...] | None:
    if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
        args = args[0].elts
    dims: list[int] = []
    for arg in args:
        value = fold_constant(arg, names)
        if not isinstance(value, int) or isinstance(value, bool):
            return None
        dims.append(value)
    return tuple(dims) if dims else None


def _dtype(node: ast.expr) -> DataType | None:
    parts = _dotted(node)
    word = parts[-1] if parts else (node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else "")
    dtype = _DTYPE_WORDS.get(str(word))
    if parts and parts[0] == "pl" and len(parts) == 2 and parts[1] in DataType.__members__:
        return DataType[parts[1]]
    return None if word == "float64" else dtype


# -- signature mode ----------------------------------------------------------------------------------


def _signature_binding(module: ast.Module, filename: str, entry: str,
                       constants: Mapping[str, Constant]) -> Binding | None:
    """Full `pl.Tensor[[dims], dtype]` annotations on every tensor parameter, scalar values from
    defaults."""
    function = jit_functions(module, filename)[entry].node
    tensors: dict[str, TensorType] = {}
    scalars: dict[str, Constant] = {}
    defaults = dict(zip([a.arg for a in function.args.args][-len(function.args.defaults):] if function.args.defaults
                        else [], function.args.defaults))
    for arg in function.args.args:
        node: ast.expr | None = arg.annotation
        if isinstance(node, ast.Subscript) and _dotted(node.value) in (["pl", "Out"], ["pl", "InOut"]):
            node = node.slice
        if isinstance(node, ast.Subscript) and _dotted(node.value) == ["pl", "Tensor"]:
            items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            shape = _shape([items[0]], constants) if items else None
            dtype = _dtype(items[1]) if len(items) > 1 else None
            if shape is None or dtype is None:
                return None
            tensors[arg.arg] = TensorType(shape, dtype)
        elif arg.arg in defaults:
            value = fold_constant(defaults[arg.arg], constants)
            if value is None:
                return None
            scalars[arg.arg] = value
        elif node is not None and (_dotted(node) or [""])[0] == "pl" and not isinstance(node, ast.Subscript) \
                or isinstance(node, ast.Subscript) and _dotted(node.value) == ["pl", "Scalar"]:
            return None  # a scalar without a value: only a call can give it
        else:
            return None
    return Binding(tensors, scalars)


def static_binding(module: ast.Module, filename: str, entry: str,
                   constants: Mapping[str, Constant]) -> Binding | None:
    """What the source alone says the entry is called with: its own sample call, else its full
    annotations (None when neither gives every shape)."""
    sample = sample_binding(module, filename, entry, constants)
    return sample if sample is not None else _signature_binding(module, filename, entry, constants)


def parse_jit_file(text: str, filename: str) -> D.Program:
    """A file of `@pl.jit` kernels read on its own: its one entry, on the shapes the file gives."""
    module = _syntax_error(text, filename)
    defs = jit_functions(module, filename)
    entries = [n for n, d in defs.items() if d.func_type == "Orchestration"]
    if len(entries) != 1:
        raise _error(Span(filename, 1, 1), f"{filename} has {len(entries)} @pl.jit entries "
                                           f"({', '.join(entries) or 'none'}); name the one to compile (--entry)")
    constants = module_constants(module)
    binding = static_binding(module, filename, entries[0], constants)
    if binding is None:
        raise _error(_span_of(filename, defs[entries[0]].node),
                     f"@pl.jit entry `{entries[0]}` has no shapes: its tensor parameters are bare pl.Tensor and "
                     "the file calls it nowhere with arrays of constant shape",
                     "give them: --shapes a=128x128:fp32,... or --inputs in.npz "
                     "(or annotate pl.Tensor[[128, 128], pl.FP32])")
    return parse_jit(text, filename, entries[0], binding, constants)


__all__ = ["Binding", "Constant", "JitDef", "fold_constant", "is_jit_source", "jit_functions", "module_constants", "parse_jit", "parse_jit_file",
           "static_binding"]
