"""SplitIncoreOrch: InCore code and orchestration code are in separate functions.

After OutlineIncoreScopes no `with pl.at(level=pl.Level.CORE_GROUP)` scope is left anywhere: a
scope of an orchestration-like function became an InCore function and a call, one inside a
kernel was spliced (it already runs on the core group).
"""

from __future__ import annotations

from nanopass.diagnostics import Diagnostic
from nanopass.node import Node, preorder

RULE = "SplitIncoreOrch"


def verify(program: Node) -> list[Diagnostic]:
    diagnostics: list[Diagnostic] = []
    for function in getattr(program, "functions", ()):
        for node in preorder(function):
            if node.KIND == "ScopeStmt" and getattr(node, "scope_kind") == "incore":
                diagnostics.append(Diagnostic.at(
                    node, RULE, f"a pl.at(level=pl.Level.CORE_GROUP) scope is left in {getattr(function, 'func_type')} "
                                f"function `{getattr(function, 'name')}`",
                    "run outline-incore-scopes to turn it into an InCore function and a call"))
    return diagnostics
