"""SSA conversion of PyPTO-style reassignment, over the IR of any language (the ConvertToSSA
pass runs it on DSL programs; the parser on user text of a later language that reassigns, since
only the DSL language admits reassignment). PyPTO: docs/en/dev/passes/04-convert_to_ssa.md;
JIT_FRONTEND.md §6 "SSA summary".

Per function, in program order:

- every definition gets a name fresh in the function: the user's name the first time, then
  `x_1`, `x_2`, ... (text that never reassigns, i.e. explicit SSA and every printed program,
  keeps all its names);
- a loop whose body reassigns a name defined before it, which a later iteration or the code
  after the loop may read, carries it: an iter arg `x_iter` initialised with the value before
  the loop (after the explicit `init_values`), the body's last value yielded, and the loop's
  result rebinding `x`;
- an if whose branch assigns a name the code after it may read merges it: each branch yields
  its value (a branch that does not assign it, the value from before the if) into a result
  rebinding `x`;
- "may read" is a backward liveness over the structured control flow (a loop runs zero or more
  times, an if takes either branch, a scope's body runs in place), so a branch-local temporary
  is neither carried nor merged.

A carried or merged value must keep its type (PyPTO: "Cannot reassign 'x' with a different
type"); that is the one error, located at the user's assignment. Two branches may leave one tile
placed and the other not placed yet (`seed` loaded into Vec, `pl.tile.muls(seed, ...)` before
InferTileMemorySpace): they agree but for placement, so the merge is left unplaced and
InferTileMemorySpace places it with the rest. Names Python would bind but the
IR cannot (defined only inside a loop, or in one branch) are the parser's errors.
"""

from __future__ import annotations

import importlib
from dataclasses import fields, replace
from types import ModuleType
from typing import Any, Callable, Iterable, Sequence

from languages.pl_printer import format_type
from languages.types import TileType, Type
from languages.views import implicit_view
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.node import Node, walk

RULE = "ConvertToSSA"


def convert_program(program: Any, bump: Callable[[str], None] = lambda counter: None) -> Any:
    """`program` (of any language) in SSA form; the program itself when nothing changes.
    `bump` counts renamed / carried / merged names (a pass's statistics)."""
    converter = _Converter(importlib.import_module(type(program).__module__), bump)
    functions = tuple(converter.function(f) for f in program.functions)
    if all(a is b for a, b in zip(functions, program.functions)):
        return program
    return replace(program, functions=functions)


# --- liveness over the program as written (names are the user's) ----------------------------


def _reads(exprs: Iterable[Node]) -> frozenset[str]:
    return frozenset(str(getattr(n, "name")) for e in exprs for n in walk(e) if n.KIND == "Var")


def _result_names(stmt: Any) -> frozenset[str]:
    return frozenset(v.name for v in stmt.results)


def _live_after_each(stmts: Sequence[Any], live_out: frozenset[str]) -> tuple[list[frozenset[str]], frozenset[str]]:
    """The names live after each statement of a block, and those live at its start."""
    after: list[frozenset[str]] = [frozenset()] * len(stmts)
    live = live_out
    for index in range(len(stmts) - 1, -1, -1):
        after[index] = live
        live = _live_before(stmts[index], live)
    return after, live


def _live_in(stmts: Sequence[Any], live_out: frozenset[str]) -> frozenset[str]:
    return _live_after_each(stmts, live_out)[1]


def _live_before(stmt: Any, live: frozenset[str]) -> frozenset[str]:
    if stmt.KIND == "ScopeStmt":
        return _live_in(stmt.body, live)
    if stmt.KIND == "IfStmt":
        branch_out = live - _result_names(stmt)
        return _reads([stmt.cond]) | _live_in(stmt.then_body, branch_out) | _live_in(stmt.else_body, branch_out)
    if stmt.KIND == "ForStmt":
        # The loop may run zero times, so what is live after it is live before it.
        heads = _reads([stmt.start, stmt.stop, stmt.step, *(it.init for it in stmt.iter_args)])
        return heads | (live - _result_names(stmt)) | _loop_reads(stmt)
    if stmt.KIND == "WhileStmt":
        return _reads([it.init for it in stmt.iter_args]) | (live - _result_names(stmt)) | _loop_reads(stmt)
    if stmt.KIND == "AssignStmt":
        return (live - {stmt.target.name}) | _reads([stmt.value])
    if stmt.KIND in ("YieldStmt", "ReturnStmt"):
        return live | _reads(stmt.values)
    assert stmt.KIND == "EvalStmt"
    return live | _reads([stmt.value])


def _loop_reads(loop: Any) -> frozenset[str]:
    """Names a loop reads before its body rebinds them, a while loop's condition included: live
    at every iteration's start (liveness is distributive, so this is the back edge's fixpoint
    without iterating)."""
    if loop.KIND == "WhileStmt":
        return (_reads([loop.cond]) | _live_in(loop.body, frozenset())) - {it.var.name for it in loop.iter_args}
    bound = {loop.loop_var.name, *(it.var.name for it in loop.iter_args)}
    return _live_in(loop.body, frozenset()) - bound


def _assigned(stmts: Sequence[Any]) -> dict[str, Any]:
    """Each name assigned in `stmts` or their nested blocks (a nested loop's or if's results
    included, its loop variable and iter args not) → its first assignment, in program order."""
    found: dict[str, Any] = {}

    def visit(block: Sequence[Any]) -> None:
        for stmt in block:
            if stmt.KIND == "AssignStmt":
                found.setdefault(stmt.target.name, stmt.target)
            elif stmt.KIND in ("ForStmt", "WhileStmt"):
                visit(stmt.body)
                for var in stmt.results:
                    found.setdefault(var.name, var)
            elif stmt.KIND == "IfStmt":
                visit(stmt.then_body)
                for var in stmt.results:
                    found.setdefault(var.name, var)
                visit(stmt.else_body)
            elif stmt.KIND == "ScopeStmt":
                visit(stmt.body)

    visit(stmts)
    return found


# --- the renaming ----------------------------------------------------------------------------


class _Env:
    """The SSA variable each user name reads in a block (loop bodies and branches nest)."""

    def __init__(self, parent: _Env | None = None) -> None:
        self.parent = parent
        self.names: dict[str, Any] = {}

    def lookup(self, name: str) -> Any | None:
        env: _Env | None = self
        while env is not None:
            if name in env.names:
                return env.names[name]
            env = env.parent
        return None


def _substitute(expr: Any, env: _Env) -> Any:
    """`expr` with every variable read replaced by its current SSA variable (any language's
    expression nodes: each Node field and tuple of Nodes is rebuilt, nothing else)."""
    if expr.KIND == "Var":
        current = env.lookup(expr.name)
        return expr if current is None else current
    changes: dict[str, object] = {}
    for f in fields(expr):
        value = getattr(expr, f.name)
        if isinstance(value, Node):
            new = _substitute(value, env)
            if new is not value:
                changes[f.name] = new
        elif isinstance(value, tuple) and value and all(isinstance(v, Node) for v in value):
            items = tuple(_substitute(v, env) for v in value)
            if any(a is not b for a, b in zip(items, value)):
                changes[f.name] = items
    return replace(expr, **changes) if changes else expr


def _type_error(var: Any, message: str, hint: str) -> CompileError:
    return CompileError(Diagnostic.at(var, RULE, message, hint))


def _line(node: Node) -> int:
    return node.node_span.line


class _Converter:
    def __init__(self, module: ModuleType, bump: Callable[[str], None]) -> None:
        self.m = module
        self.bump = bump
        self.used: set[str] = set()

    def fresh(self, base: str) -> str:
        """`base` itself if the function has no variable of that name yet, else `base_1`, `base_2`, ..."""
        name, suffix = base, 0
        while name in self.used:
            suffix += 1
            name = f"{base}_{suffix}"
        self.used.add(name)
        if name != base:
            self.bump("renamed")
        return name

    def define(self, env: _Env, var: Any, base: str | None = None) -> Any:
        name = self.fresh(var.name if base is None else base)
        new = var if name == var.name else replace(var, name=name)
        env.names[var.name] = new
        return new

    def function(self, function: Any) -> Any:
        self.used = set()
        env = _Env()
        params = tuple(replace(p, var=self.define(env, p.var)) for p in function.params)
        body = self.block(function.body, env, frozenset())
        if body == function.body and params == function.params:
            return function
        return replace(function, params=params, body=body)

    def read(self, expr: Any, env: _Env) -> Any:
        return _substitute(expr, env)

    def block(self, stmts: Sequence[Any], env: _Env, live_out: frozenset[str]) -> tuple[Any, ...]:
        live_after = _live_after_each(stmts, live_out)[0]
        out: list[Any] = []
        for stmt, live in zip(stmts, live_after):
            out.append(self.stmt(stmt, env, live))
        return tuple(out)

    def stmt(self, stmt: Any, env: _Env, live_after: frozenset[str]) -> Any:
        if stmt.KIND == "AssignStmt":
            value = self.read(stmt.value, env)
            return replace(stmt, value=value, target=self.define(env, stmt.target))
        if stmt.KIND == "EvalStmt":
            return replace(stmt, value=self.read(stmt.value, env))
        if stmt.KIND in ("YieldStmt", "ReturnStmt"):
            return replace(stmt, values=tuple(self.read(v, env) for v in stmt.values))
        if stmt.KIND == "ScopeStmt":
            return replace(stmt, body=self.block(stmt.body, env, live_after))
        if stmt.KIND in ("ForStmt", "WhileStmt"):
            return self.loop(stmt, env, live_after)
        assert stmt.KIND == "IfStmt"
        return self.branch(stmt, env, live_after)

    def loop(self, loop: Any, env: _Env, live_after: frozenset[str]) -> Any:
        """A for or while loop: what its body reassigns and a later iteration (a while loop's
        condition included) or the code after it reads is carried."""
        is_while = loop.KIND == "WhileStmt"
        heads: dict[str, Any] = {} if is_while else {
            name: self.read(getattr(loop, name), env) for name in ("start", "stop", "step")}
        inits = [self.read(it.init, env) for it in loop.iter_args]
        loop_reads = _loop_reads(loop)
        results = _result_names(loop)
        own = {*(() if is_while else (loop.loop_var.name,)), *(it.var.name for it in loop.iter_args), *results}
        carried = [(name, first) for name, first in _assigned(loop.body).items()
                   if name not in own and env.lookup(name) is not None and (name in live_after or name in loop_reads)]
        body_env = _Env(env)
        if not is_while:
            heads["loop_var"] = self.define(body_env, loop.loop_var)
        iter_args = [replace(it, var=self.define(body_env, it.var), init=init) for it, init in zip(loop.iter_args, inits)]
        carried_vars: list[Any] = []
        for name, first in carried:
            outer = env.lookup(name)
            assert outer is not None
            var = self.m.Var(name=self.fresh(f"{name}_iter"), type=outer.type, span=first.node_span)
            body_env.names[name] = var
            carried_vars.append(var)
            iter_args.append(self.m.IterArg(var=var, init=outer, span=first.node_span))
            self.bump("carried")
        if is_while:  # read over the carried values, before the body rebinds them
            heads["cond"] = self.read(loop.cond, body_env)
        body = self.block(loop.body, body_env, (live_after - results) | loop_reads)
        carried_out: list[Any] = []
        for (name, first), var in zip(carried, carried_vars):
            value = body_env.lookup(name)
            assert value is not None
            if value.type != var.type:
                raise _type_error(first, f"`{name}` is {format_type(var.type)} before the loop at line {_line(loop)} "
                                         f"but {format_type(value.type)} at the end of its body: a value carried "
                                         "around a loop must keep its type", "give the new value another name")
            carried_out.append(value)
        body = _with_yield(self.m, body, carried_out, loop)
        new_results = [self.define(env, var) for var in loop.results]
        for (name, _), var in zip(carried, carried_vars):
            new_results.append(self.define(env, self.m.Var(name=name, type=var.type, span=loop.node_span)))
        return replace(loop, **heads, iter_args=tuple(iter_args), body=body, results=tuple(new_results))

    def branch(self, stmt: Any, env: _Env, live_after: frozenset[str]) -> Any:
        cond = self.read(stmt.cond, env)
        results = _result_names(stmt)
        then_env, else_env = _Env(env), _Env(env)
        then_body = self.block(stmt.then_body, then_env, live_after - results)
        else_body = self.block(stmt.else_body, else_env, live_after - results)
        then_assigned, else_assigned = _assigned(stmt.then_body), _assigned(stmt.else_body)
        merged: list[tuple[str, Any, Any, Type]] = []
        for name, first in {**else_assigned, **then_assigned}.items():
            if name in results or name not in live_after:
                continue
            then_value, else_value = then_env.lookup(name), else_env.lookup(name)
            if then_value is None or else_value is None or then_value is else_value:
                continue  # defined in one branch only: the parser rejects reading it after the if
            merged_type = _merged_type(then_value.type, else_value.type)
            if merged_type is None:
                raise _type_error(first, f"`{name}` is {format_type(then_value.type)} after the then-branch of the if "
                                         f"at line {_line(stmt)} but {format_type(else_value.type)} after the "
                                         "else-branch", "both branches must leave a name with the same type; "
                                                        "give one value another name")
            merged.append((name, then_value, else_value, merged_type))
            self.bump("merged")
        then_body = _with_yield(self.m, then_body, [t for _, t, _, _ in merged], stmt)
        else_body = _with_yield(self.m, else_body, [e for _, _, e, _ in merged], stmt)
        new_results = [self.define(env, var) for var in stmt.results]
        for name, _, _, ty in merged:
            new_results.append(self.define(env, self.m.Var(name=name, type=ty, span=stmt.node_span)))
        return replace(stmt, cond=cond, then_body=then_body, else_body=else_body, results=tuple(new_results))


def _merged_type(a: Type, b: Type) -> Type | None:
    """The type of an if result whose branches leave `a` and `b`: the same type, or tiles that
    differ only in that one is placed and the other not yet (the merge stays unplaced)."""
    if a == b:
        return a
    if isinstance(a, TileType) and isinstance(b, TileType) and None in (a.memory_space, b.memory_space):
        # Only the space differs (a placed side's view is its space's implicit one): a view or a
        # buffer given to one side only is a real difference.
        unplaced_a, unplaced_b = _unplaced(a), _unplaced(b)
        if unplaced_a is not None and unplaced_a == unplaced_b:
            return unplaced_a
    return None


def _unplaced(ty: TileType) -> TileType | None:
    """`ty` without its memory space, or None if its view is not the space's implicit one."""
    if ty.memory_space is not None and ty.view is not None and ty.view != implicit_view(ty.memory_space, ty.shape):
        return None
    return replace(ty, memory_space=None, view=None)


def _with_yield(module: ModuleType, body: tuple[Any, ...], extra: Sequence[Any], at: Any) -> tuple[Any, ...]:
    """`body` ending with a yield of its explicit values followed by `extra` (the implicit ones)."""
    if not extra:
        return body
    if body and body[-1].KIND == "YieldStmt":
        last = body[-1]
        return body[:-1] + (replace(last, values=tuple(last.values) + tuple(extra)),)
    return body + (module.YieldStmt(values=tuple(extra), span=at.node_span),)


