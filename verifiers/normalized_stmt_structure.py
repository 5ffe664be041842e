"""NormalizedStmtStructure: operator calls appear only as whole statements, over atoms.

A call (`Call` or `FuncCall`) is the value of an assignment or an evaluated statement, never
nested in another expression; its arguments are atoms: variables, constants, lists of atoms,
and scalar index arithmetic over atoms. Loop bounds, iter-arg seeds, if conditions, yields and
returns are atoms too. Passes that insert code before a use (loads, moves) rely on this.
"""

from __future__ import annotations

from typing import Any

from nanopass.diagnostics import Diagnostic
from nanopass.node import Node

RULE = "NormalizedStmtStructure"
_LEAVES = frozenset({"Var", "ConstInt", "ConstFloat", "ConstBool"})
_ARITH = frozenset({"BinOp", "UnaryOp", "TupleExpr"})
_CALLS = frozenset({"Call", "FuncCall"})
HINT = ("bind the nested value to a name first (`t = pl.tile.load(...)`, then use `t`); in Tensor "
        "programs normalize-stmt-structure does this")


def is_atom(expr: Any) -> bool:
    if expr.KIND in _LEAVES:
        return True
    if expr.KIND in _ARITH:
        return all(is_atom(child) for child in expr.children())
    return False


def verify(program: Node) -> list[Diagnostic]:
    diagnostics: list[Diagnostic] = []

    def atom(expr: Any, where: str) -> None:
        if not is_atom(expr):
            diagnostics.append(Diagnostic.at(expr, RULE, f"{where} is a {expr.KIND}, not an atom", HINT))

    def value(expr: Any) -> None:
        if expr.KIND in _CALLS:
            for i, arg in enumerate(expr.args):
                # The common atoms are tested first: the message is only worded for a finding.
                if arg.KIND not in _LEAVES and not is_atom(arg):
                    atom(arg, f"argument {i} of {getattr(expr, 'op', None) or getattr(expr, 'callee', '')}")
        elif expr.KIND == "TupleGetItem":
            atom(expr.value, "the tuple of a subscript")
        else:
            atom(expr, "the value")

    def block(stmts: tuple[Any, ...]) -> None:
        for stmt in stmts:
            kind = stmt.KIND
            if kind in ("AssignStmt", "EvalStmt"):
                value(stmt.value)
            elif kind == "ForStmt":
                for name in ("start", "stop", "step"):
                    atom(getattr(stmt, name), f"the loop {name}")
                for it in stmt.iter_args:
                    atom(it.init, f"the initial value of `{it.var.name}`")
                block(stmt.body)
            elif kind == "WhileStmt":
                # The condition stays a scalar expression over the carried values (it is evaluated
                # before every iteration, so no statement before the loop can hold it).
                for it in stmt.iter_args:
                    atom(it.init, f"the initial value of `{it.var.name}`")
                block(stmt.body)
            elif kind == "ScopeStmt":
                block(stmt.body)
            elif kind == "IfStmt":
                atom(stmt.cond, "the if condition")
                block(stmt.then_body)
                block(stmt.else_body)
            elif kind in ("YieldStmt", "ReturnStmt"):
                for v in stmt.values:
                    atom(v, "a yielded value" if kind == "YieldStmt" else "a returned value")

    for function in getattr(program, "functions", ()):
        block(function.body)
    return diagnostics
