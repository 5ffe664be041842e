"""UseAfterDef: every use of a variable is dominated by its definition.

Scoping follows the structured control flow: a loop's variable and iter args are visible in its
body only, its results after it; names defined in a loop body or an if branch do not escape it
(their values leave through `pl.yield_` into the statement's results); a DSL scope's do
(`pl.at` bodies run in place).
"""

from __future__ import annotations

from typing import Any

from nanopass.diagnostics import Diagnostic
from nanopass.node import Node

RULE = "UseAfterDef"


def verify(program: Node) -> list[Diagnostic]:
    diagnostics: list[Diagnostic] = []
    for function in getattr(program, "functions", ()):
        checker = _Checker(function.name, diagnostics)
        checker.block(function.body, {p.var.name for p in function.params})
    return diagnostics


class _Checker:
    def __init__(self, function: str, diagnostics: list[Diagnostic]) -> None:
        self.function = function
        self.diagnostics = diagnostics

    def uses(self, expr: Any, scope: set[str]) -> None:
        if expr.KIND == "Var":  # the common case: no traversal needed
            if expr.name not in scope:
                self.undefined(expr)
            return
        # Pre-order over the children, as `walk` would visit them, without a generator per
        # expression: nearly every expression is a call over a few variables.
        for field_name in expr.CHILD_FIELDS:
            value = getattr(expr, field_name)
            if isinstance(value, tuple):
                for item in value:
                    if isinstance(item, Node):
                        self.uses(item, scope)
            elif isinstance(value, Node):
                self.uses(value, scope)

    def undefined(self, node: Node) -> None:
        name = getattr(node, "name")
        self.diagnostics.append(Diagnostic.at(
            node, RULE, f"`{name}` is used in function `{self.function}` before it is defined "
            "(or outside the loop / branch that defines it)",
            "define it earlier, or carry it out of the loop / if with `pl.yield_` and use the result"))

    def block(self, stmts: tuple[Any, ...], scope: set[str]) -> None:
        for stmt in stmts:
            kind = stmt.KIND
            if kind == "AssignStmt":
                self.uses(stmt.value, scope)
                scope.add(stmt.target.name)
            elif kind == "ForStmt":
                for bound in (stmt.start, stmt.stop, stmt.step):
                    self.uses(bound, scope)
                for it in stmt.iter_args:
                    self.uses(it.init, scope)
                inner = scope | {stmt.loop_var.name} | {it.var.name for it in stmt.iter_args}
                self.block(stmt.body, inner)
                scope.update(v.name for v in stmt.results)
            elif kind == "WhileStmt":
                for it in stmt.iter_args:
                    self.uses(it.init, scope)
                inner = scope | {it.var.name for it in stmt.iter_args}
                self.uses(stmt.cond, inner)  # evaluated before each iteration, over the carried values
                self.block(stmt.body, inner)
                scope.update(v.name for v in stmt.results)
            elif kind == "ScopeStmt":
                # A DSL scope runs in place: its definitions stay visible after it.
                self.block(stmt.body, scope)
            elif kind == "IfStmt":
                self.uses(stmt.cond, scope)
                self.block(stmt.then_body, set(scope))
                self.block(stmt.else_body, set(scope))
                scope.update(v.name for v in stmt.results)
            else:
                for child in stmt.children():
                    self.uses(child, scope)
