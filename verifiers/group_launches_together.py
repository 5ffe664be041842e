"""GroupLaunchesTogether: a Group function launches all its kernels before it reads any of their
results.

A Group's AIC and AIV kernels run concurrently and exchange tiles through the cross-core FIFOs, so
they start together: a statement between two launches that reads the first one's result (the
unpacking of a tuple of results) would have to wait for that kernel to finish, and a kernel that
pops what the second one pushes never finishes alone (a deadlock). Only the launches themselves
may sit between the first launch and the last.
"""

from __future__ import annotations

from nanopass.diagnostics import Diagnostic
from nanopass.node import Node

RULE = "GroupLaunchesTogether"


def _launches(stmt: Node) -> bool:
    if stmt.KIND not in ("AssignStmt", "EvalStmt"):
        return False
    return bool(getattr(stmt, "value").KIND == "FuncCall")


def _check_function(function: Node) -> list[Diagnostic]:
    if str(getattr(function, "func_type", "")) != "Group":
        return []
    body = list(getattr(function, "body"))
    launches = [k for k, stmt in enumerate(body) if _launches(stmt)]
    if not launches:
        return []
    first, last = launches[0], launches[-1]
    return [Diagnostic.at(stmt, RULE, f"a statement between the kernel launches of Group `{getattr(function, 'name')}`: "
                          "its kernels must start together (the first would wait alone on the FIFO the next one "
                          "fills)", hint="launch every kernel first, then unpack their results")
            for stmt in body[first:last + 1] if not _launches(stmt)]


def verify(program: Node) -> list[Diagnostic]:
    diagnostics: list[Diagnostic] = []
    for function in getattr(program, "functions"):
        diagnostics.extend(_check_function(function))
    return diagnostics
