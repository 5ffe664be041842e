"""SymbolicExtentsBound: every runtime valid extent a type mentions is a value the program has.

A value-level type's runtime extent (`valid_shape=[rows, 16]`) names an integer scalar variable
defined before the value that carries it (a parameter, or a definition that dominates it):
a pass that renames or removes that variable, or moves the value out of the variable's scope,
leaves a type that means nothing. PTO spells a runtime extent `?` (the tile_buf handle carries
the value), so there every runtime extent is `?`, and only there.
"""

from __future__ import annotations

from typing import Any

from languages.types import DYNAMIC_EXTENT, ScalarType, Type, symbolic_extents
from nanopass.diagnostics import Diagnostic
from nanopass.node import Node

RULE = "SymbolicExtentsBound"


def verify(program: Node) -> list[Diagnostic]:
    diagnostics: list[Diagnostic] = []
    pto = type(program).LANGUAGE == "PTO"
    for function in getattr(program, "functions", ()):
        checker = _Checker(diagnostics, pto)
        scope: dict[str, Type] = {}
        for param in function.params:
            checker.defined(param.var, scope)
        checker.block(function.body, scope)
    return diagnostics


class _Checker:
    def __init__(self, diagnostics: list[Diagnostic], pto: bool) -> None:
        self.diagnostics = diagnostics
        self.pto = pto

    def defined(self, var: Any, scope: dict[str, Type]) -> None:
        """Check `var`'s type against the names in scope, then bring `var` into scope."""
        for extent in symbolic_extents(var.type):
            if self.pto:
                if extent != DYNAMIC_EXTENT:
                    self.report(var, f"`{var.name}`'s valid extent `{extent.name}` is a variable name in PTO, "
                                     "where a runtime extent is `?` (its tile_buf handle carries the value)")
                continue
            if extent == DYNAMIC_EXTENT:
                self.report(var, f"`{var.name}` has a `?` valid extent outside PTO, where a runtime extent "
                                 "names the scalar variable holding it")
                continue
            bound = scope.get(extent.name)
            if bound is None:
                self.report(var, f"`{var.name}`'s valid extent `{extent.name}` is not a variable defined before it")
            elif not (isinstance(bound, ScalarType) and bound.dtype.is_int):
                self.report(var, f"`{var.name}`'s valid extent `{extent.name}` is not an integer scalar")
        scope[var.name] = var.type

    def report(self, var: Any, message: str) -> None:
        self.diagnostics.append(Diagnostic.at(
            var, RULE, message, "a pass that renames, removes or moves a scalar must update the types "
            "that mention it as a valid extent"))

    def block(self, stmts: tuple[Any, ...], scope: dict[str, Type]) -> None:
        for stmt in stmts:
            kind = stmt.KIND
            if kind == "AssignStmt":
                self.defined(stmt.target, scope)
            elif kind == "ForStmt":
                inner = dict(scope)
                self.defined(stmt.loop_var, inner)
                for it in stmt.iter_args:
                    self.defined(it.var, inner)
                self.block(stmt.body, inner)
                for result in stmt.results:
                    self.defined(result, scope)
            elif kind == "WhileStmt":
                inner = dict(scope)
                for it in stmt.iter_args:
                    self.defined(it.var, inner)
                self.block(stmt.body, inner)
                for result in stmt.results:
                    self.defined(result, scope)
            elif kind == "ScopeStmt":
                self.block(stmt.body, scope)  # a DSL scope runs in place
            elif kind == "IfStmt":
                self.block(stmt.then_body, dict(scope))
                self.block(stmt.else_body, dict(scope))
                for result in stmt.results:
                    self.defined(result, scope)
