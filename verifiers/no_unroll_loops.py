"""NoUnrollLoops: no `pl.unroll` loop is left (UnrollLoops expanded each into copies of its body).

Every pass after the frontend, the interpreter of Tensor programs and codegen know sequential,
parallel and pipeline loops only; an unroll loop is a request the frontend fulfils.
"""

from __future__ import annotations

from nanopass.diagnostics import Diagnostic
from nanopass.node import Node, preorder

RULE = "NoUnrollLoops"


def verify(program: Node) -> list[Diagnostic]:
    return [Diagnostic.at(node, RULE, f"a pl.unroll loop is left in function `{getattr(function, 'name')}`",
                          "run unroll-loops to expand it")
            for function in getattr(program, "functions", ())
            for node in preorder(function) if node.KIND == "ForStmt" and getattr(node, "kind") == "unroll"]
