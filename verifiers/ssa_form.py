"""SSAForm: every variable is defined exactly once per function.

Definitions are parameters, assignment targets, loop variables, loop-carried iter args and the
results of loops and ifs. A second definition of a name would make every later use ambiguous
for passes that key facts by variable name.
"""

from __future__ import annotations

from typing import Any, Callable

from nanopass.diagnostics import Diagnostic
from nanopass.node import Node

RULE = "SSAForm"


# Statement kind → the Vars it defines directly (not inside its nested bodies).
_DEFINED_BY: dict[str, Callable[[Any], list[Any]]] = {
    "AssignStmt": lambda stmt: [stmt.target],
    "ForStmt": lambda stmt: [stmt.loop_var, *(it.var for it in stmt.iter_args), *stmt.results],
    "WhileStmt": lambda stmt: [*(it.var for it in stmt.iter_args), *stmt.results],
    "IfStmt": lambda stmt: list(stmt.results),
}
# Statement kind → the fields holding its nested statement blocks.
_BODY_FIELDS: dict[str, tuple[str, ...]] = {
    "ForStmt": ("body",), "WhileStmt": ("body",), "IfStmt": ("then_body", "else_body"), "ScopeStmt": ("body",),
}


def definitions(stmt: Any) -> list[Any]:
    """Vars a statement defines directly (not inside its nested bodies)."""
    defined_by = _DEFINED_BY.get(stmt.KIND)
    return defined_by(stmt) if defined_by else []


def nested_bodies(stmt: Any) -> list[tuple[Any, ...]]:
    return [getattr(stmt, name) for name in _BODY_FIELDS.get(stmt.KIND, ())]


def verify(program: Node) -> list[Diagnostic]:
    diagnostics: list[Diagnostic] = []
    for function in getattr(program, "functions", ()):
        first: dict[str, Any] = {}

        def define(var: Any) -> None:
            if var.name in first:
                earlier = first[var.name].node_span
                where = f" (first defined at {earlier})" if earlier.known else ""
                diagnostics.append(Diagnostic.at(
                    var, RULE, f"`{var.name}` is defined twice in function `{function.name}`{where}",
                    f"give the second definition a fresh name, e.g. `{var.name}_1`, and rename its uses"))
            else:
                first[var.name] = var

        def block(stmts: tuple[Any, ...]) -> None:
            for stmt in stmts:
                if stmt.KIND == "AssignStmt":  # the common case: one definition, no nested body
                    define(stmt.target)
                    continue
                for var in definitions(stmt):
                    define(var)
                for body in nested_bodies(stmt):
                    block(body)

        for param in function.params:
            define(param.var)
        block(function.body)
    return diagnostics
