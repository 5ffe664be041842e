"""NoInlineFunctions: no `Inline` function, and no call to one, is left in the program.

PyPTO removes Inline functions in its first pass (InlineFunctions); every later pass sees their
bodies spliced into the callers, so a kernel or an orchestration function never calls one.
"""

from __future__ import annotations

from nanopass.diagnostics import Diagnostic
from nanopass.node import Node, preorder

RULE = "NoInlineFunctions"
INLINE = "Inline"


def verify(program: Node) -> list[Diagnostic]:
    functions = tuple(getattr(program, "functions", ()))
    inline = {str(getattr(f, "name")) for f in functions if getattr(f, "func_type") == INLINE}
    diagnostics = [Diagnostic.at(f, RULE, f"Inline function `{getattr(f, 'name')}` is left in the program",
                                 "run inline-functions to splice it into its callers")
                   for f in functions if getattr(f, "func_type") == INLINE]
    for function in functions:
        for node in preorder(function):
            if node.KIND == "FuncCall" and str(getattr(node, "callee")) in inline:
                diagnostics.append(Diagnostic.at(
                    node, RULE, f"`{getattr(function, 'name')}` calls Inline function `{getattr(node, 'callee')}`",
                    "run inline-functions to splice it into its callers"))
    return diagnostics
