"""OutlineIncoreScopes (DSL → DSL): each `with pl.at(level=pl.Level.CORE_GROUP)` scope of an
orchestration-like function becomes an InCore function and a call (JIT_FRONTEND.md §2.2).

- Which functions: Opaque, Orchestration and Graph ones; an Opaque function that outlines a
  scope becomes Orchestration. A CORE_GROUP scope inside a kernel (or nested in another such
  scope) already runs on the core group: its body is spliced in place.
- Name: the scope's `name_hint`, else `<function>_incore_<n>` (n counts every scope of the
  function from 0); a name already taken is namespaced `<function>_<hint>` and/or numbered
  `_0`, `_1`, ...
- Parameters: the body's live-in variables, in first-read order, with their names and types.
  A parameter the body writes (an argument the op registry declares WRITE: `tile.store`'s tensor,
  `tensor.assemble`'s target, ...) is `Out` when written only, `InOut` when also read.
- Results, in order: the values the body defines and the function reads after the scope, in
  definition order; then every written parameter not already returned. A result that is (an
  alias of) a parameter's buffer returns that parameter.
- Call site: no result → `self.f(args)`; one → `v = self.f(args)`; several →
  `ret__tmp_v0 = self.f(args)` then `v_i = ret__tmp_v0[i]`. A written parameter's result gets a
  fresh variable, and the rest of the enclosing block reads the new value through it.
- Outlined functions come before the original ones.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar, Sequence

from typing_extensions import override

import languages.gen.dsl as D
from languages.decls import DSL
from languages.ops import REGISTRY, Effect, ReusesInput
from languages.types import NoneType, TupleType, Type
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.langdef import Language
from nanopass.node import walk
from nanopass.passes import Pass, PassContext
from passes.analysis.scope_vars import defined_here, fresh_name, free_vars, read_names, var_names

RULE = "OutlineIncoreScopes"
ORCHESTRATION_LIKE = frozenset({"Opaque", "Orchestration", "Graph"})
INCORE = "incore"


def _written_names(stmts: Sequence[D.Stmt]) -> list[str]:
    """Variables the block writes through an op's WRITE argument, in first-write order."""
    found: dict[str, None] = {}
    for stmt in stmts:
        for node in walk(stmt):
            if isinstance(node, D.Call) and node.op in REGISTRY:
                opdef = REGISTRY.get(node.op)
                for index, arg in enumerate(node.args):
                    if isinstance(arg, D.Var) and opdef.effect_of(index, node.attrs) & Effect.WRITE:
                        found.setdefault(arg.name, None)
    return list(found)


def _buffer_aliases(stmts: Sequence[D.Stmt], params: set[str]) -> dict[str, str]:
    """Variable → the parameter whose buffer it is (the result of `tile.store(.., p)` is p's
    buffer, as the registry's ReusesInput says; plain copies too)."""
    alias = {name: name for name in params}

    def of(expr: D.Expr) -> str | None:
        if isinstance(expr, D.Var):
            return alias.get(expr.name)
        if isinstance(expr, D.Call) and expr.op in REGISTRY:
            rule = REGISTRY.get(expr.op).output_memory
            if isinstance(rule, ReusesInput) and rule.index < len(expr.args):
                return of(expr.args[rule.index])
        return None

    for stmt in stmts:
        for node in walk(stmt):
            if isinstance(node, D.AssignStmt):
                owner = of(node.value)
                if owner is not None:
                    alias[node.target.name] = owner
    return alias


def _direction(name: str, stmts: Sequence[D.Stmt], aliases: dict[str, str]) -> str:
    """Out when every use of the parameter's buffer is a write destination, else InOut."""
    for stmt in stmts:
        for node in walk(stmt):
            if not isinstance(node, (D.Call, D.FuncCall)):
                continue
            opdef = REGISTRY.get(node.op) if isinstance(node, D.Call) and node.op in REGISTRY else None
            for index, arg in enumerate(node.args):
                for var in walk(arg):
                    if not isinstance(var, D.Var) or aliases.get(var.name) != name:
                        continue
                    written = opdef is not None and isinstance(node, D.Call) and arg is var \
                        and opdef.effect_of(index, node.attrs) == Effect.WRITE
                    if not written:
                        return "InOut"
    return "Out"


class _Outliner(D.Rewriter):
    def __init__(self) -> None:
        super().__init__()
        self.outlined: list[D.Function] = []
        self.function_names: set[str] = set()
        self.function: D.Function | None = None
        self.counter = 0
        self.names: set[str] = set()
        self.depth = 0  # > 0 inside an outlined scope's body or a kernel
        self.read_outside: set[str] = set()

    @override
    def visit_Program(self, node: D.Program) -> D.Program:
        self.function_names = {f.name for f in node.functions}
        functions = tuple(self.visit_Function(f) for f in node.functions)
        if not self.outlined:
            return node
        return replace(node, functions=(*self.outlined, *functions))

    @override
    def visit_Function(self, node: D.Function) -> D.Function:
        self.function, self.counter, self.names = node, 0, var_names(node)
        self.depth = 0 if node.func_type in ORCHESTRATION_LIKE else 1
        before = len(self.outlined)
        body = self.visit_Stmt_block(node.body)
        if body is node.body:
            return node
        func_type = "Orchestration" if node.func_type == "Opaque" and len(self.outlined) > before else node.func_type
        return replace(node, body=body, func_type=func_type)

    @override
    def visit_Stmt_block(self, block: tuple[D.Stmt, ...]) -> tuple[D.Stmt, ...]:
        out: list[D.Stmt] = []
        renames: dict[str, D.Var] = {}
        changed = False
        for stmt in block:
            if isinstance(stmt, D.ScopeStmt) and stmt.scope_kind == INCORE:
                changed = True
                if self.depth > 0:  # already on the core group: nothing to outline
                    new_stmts = list(self.visit_Stmt_block(stmt.body))
                else:
                    new_stmts, new_renames = self.outline(stmt)
                    new_stmts = [_rename(s, renames) for s in new_stmts]
                    renames.update(new_renames)
                    out.extend(new_stmts)
                    continue
            else:
                new = self.visit_Stmt(stmt)
                changed = changed or new is not stmt
                new_stmts = list(new) if isinstance(new, tuple) else [new]
            if renames:
                new_stmts = [_rename(s, renames) for s in new_stmts]
                changed = True
            out.extend(new_stmts)
        return tuple(out) if changed else block

    def scope_name(self, scope: D.ScopeStmt) -> str:
        assert self.function is not None
        fn = self.function.name
        index = self.counter
        self.counter += 1
        taken = self.function_names | self.names
        if scope.name_hint:
            name = scope.name_hint
            if name in self.function_names:
                name = f"{fn}_{name}"
        else:
            name = f"{fn}_incore_{index}"
        if name in taken:
            suffix = 0
            while f"{name}_{suffix}" in taken:
                suffix += 1
            name = f"{name}_{suffix}"
        self.function_names.add(name)
        return name

    def outline(self, scope: D.ScopeStmt) -> tuple[list[D.Stmt], dict[str, D.Var]]:
        assert self.function is not None
        if "split" in dict(scope.attrs):
            raise CompileError(Diagnostic.at(scope, RULE, "not supported yet: pl.at(optimizations=[pl.split(...)]) "
                                             "(cross-core split of a mixed kernel chosen by the user)",
                                             "drop the pl.split entry; mixed kernels are split automatically"))
        name = self.scope_name(scope)
        self.depth += 1
        body = self.visit_Stmt_block(scope.body)  # nested CORE_GROUP scopes are spliced
        self.depth -= 1
        captured = free_vars(body)
        captured_names = {v.name for v in captured}
        aliases = _buffer_aliases(body, captured_names)
        written = [n for n in _written_names(body) if aliases.get(n) in captured_names]
        written_params = list(dict.fromkeys(str(aliases[n]) for n in written))
        directions = {p: _direction(p, body, aliases) for p in written_params}
        after = read_names(self.continuation(scope)) - {v.name for v in captured}
        defined = [v for stmt in body for v in defined_here(stmt) if v.name in after]
        outputs: list[tuple[D.Expr, D.Var]] = []  # (value returned inside, var bound at the call site)
        returned_params: set[str] = set()
        for var in defined:
            owner = aliases.get(var.name)
            if owner is not None:
                returned_params.add(owner)
                param_var = next(v for v in captured if v.name == owner)
                outputs.append((param_var, var))
            else:
                outputs.append((var, var))
        renames: dict[str, D.Var] = {}
        for param_name in written_params:
            if param_name in returned_params:
                continue
            param_var = next(v for v in captured if v.name == param_name)
            fresh = D.Var(fresh_name(param_name, self.names), param_var.type, span=scope.span)
            outputs.append((param_var, fresh))
            renames[param_name] = fresh
        params = tuple(D.Param(var=v, direction=directions.get(v.name, "In"), span=v.span) for v in captured)
        return_types: tuple[Type, ...] = tuple(_type_of(value) for value, _ in outputs)
        ret = D.ReturnStmt(values=tuple(value for value, _ in outputs), span=scope.span)
        self.outlined.append(D.Function(name=name, func_type="InCore", params=params, return_types=return_types,
                                        body=(*body, ret), attrs=(), span=scope.span))
        self.bump("scopes-outlined")
        return self.call_site(name, captured, outputs, return_types, scope), renames

    def continuation(self, scope: D.ScopeStmt) -> list[D.Stmt]:
        """Everything of the function except the scope's own body (what may read its results;
        under SSA, a read outside the body comes after it)."""
        assert self.function is not None
        return [_without(stmt, scope) for stmt in self.function.body]

    def call_site(self, name: str, captured: list[D.Var], outputs: list[tuple[D.Expr, D.Var]],
                  return_types: tuple[Type, ...], scope: D.ScopeStmt) -> list[D.Stmt]:
        span = scope.span
        result_type: Type = NoneType() if not outputs else (
            return_types[0] if len(outputs) == 1 else TupleType(return_types))
        call = D.FuncCall(callee=name, args=tuple(captured), type=result_type, span=span)
        if not outputs:
            return [D.EvalStmt(value=call, span=span)]
        if len(outputs) == 1:
            return [D.AssignStmt(target=outputs[0][1], value=call, span=span)]
        temp = D.Var(_temp_name(self.names), result_type, span=span)
        stmts: list[D.Stmt] = [D.AssignStmt(target=temp, value=call, span=span)]
        for index, (_, var) in enumerate(outputs):
            item = D.TupleGetItem(value=temp, index=index, type=return_types[index], span=span)
            stmts.append(D.AssignStmt(target=var, value=item, span=span))
        return stmts


def _temp_name(taken: set[str]) -> str:
    index = 0
    while f"ret__tmp_v{index}" in taken:
        index += 1
    taken.add(f"ret__tmp_v{index}")
    return f"ret__tmp_v{index}"


def _type_of(expr: D.Expr) -> Type:
    ty = getattr(expr, "type", None)
    return ty if ty is not None else NoneType()


def _without(stmt: D.Stmt, scope: D.ScopeStmt) -> D.Stmt:
    """`stmt` with `scope` (somewhere inside it) emptied."""
    if stmt is scope:
        return replace(scope, body=())
    if isinstance(stmt, (D.ForStmt, D.WhileStmt, D.ScopeStmt)):
        return replace(stmt, body=tuple(_without(s, scope) for s in stmt.body))
    if isinstance(stmt, D.IfStmt):
        return replace(stmt, then_body=tuple(_without(s, scope) for s in stmt.then_body),
                       else_body=tuple(_without(s, scope) for s in stmt.else_body))
    return stmt


class _Renamer(D.Rewriter):
    """Reads of a variable become reads of its newer value (after an outlined store)."""

    def __init__(self, renames: dict[str, D.Var]) -> None:
        super().__init__()
        self.renames = renames

    @override
    def visit_Var(self, node: D.Var) -> D.Var:
        return self.renames.get(node.name, node)



def _rename(stmt: D.Stmt, renames: dict[str, D.Var]) -> D.Stmt:
    if not renames:
        return stmt
    new = _Renamer(renames).visit_Stmt(stmt)
    assert not isinstance(new, tuple)
    return new


@dataclass(frozen=True)
class OutlineIncoreScopes(Pass[D.Program, D.Program]):
    """Outline each pl.at(CORE_GROUP) scope into an InCore function and a call."""

    name: ClassVar[str] = "outline-incore-scopes"
    spec_name: ClassVar[str] = "OutlineIncoreScopes"
    source: ClassVar[Language] = DSL
    target: ClassVar[Language] = DSL
    requires: ClassVar[frozenset[str]] = frozenset({"SSAForm"})
    produces: ClassVar[frozenset[str]] = frozenset({"SplitIncoreOrch"})

    @override
    def run(self, program: D.Program, ctx: PassContext) -> D.Program:
        return ctx.rewrite(_Outliner(), program)


