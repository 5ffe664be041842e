"""ScalarOperators: Python operators (`BinOp`, `UnaryOp`) compute on scalars only.

PyPTO's parser builds scalar expressions from `+ - * // % == < and not -x ...`; arithmetic on a
Tensor or a tile is spelled with the `pl.*` operator calls (`pl.add`, `pl.mul`, `pl.cmp`), which
the op registry describes and every later stage (tiling, codegen, the simulator) knows. The
parser rejects an operator on a non-scalar at its source line; this verifier states the same
fact on any program, so a pass that builds such a node is caught before codegen sees it.
"""

from __future__ import annotations

from languages.pl_printer import expr_type, format_type
from languages.types import ScalarType
from nanopass.diagnostics import Diagnostic
from nanopass.node import Node, preorder

RULE = "ScalarOperators"


def verify(program: Node) -> list[Diagnostic]:
    diagnostics: list[Diagnostic] = []
    for function in getattr(program, "functions", ()):
        for node in preorder(function):
            if node.KIND == "BinOp":
                operands: tuple[Node, ...] = (getattr(node, "lhs"), getattr(node, "rhs"))
            elif node.KIND == "UnaryOp":
                operands = (getattr(node, "operand"),)
            else:
                continue
            for operand in (*operands, node):
                ty = expr_type(operand)
                if not isinstance(ty, ScalarType):
                    what = "its result" if operand is node else "an operand"
                    diagnostics.append(Diagnostic.at(
                        node, RULE, f"operator `{getattr(node, 'op')}` in function `{getattr(function, 'name')}`: "
                                    f"{what} is `{format_type(ty)}`, not a scalar",
                        "Python operators are scalar arithmetic; tensors and tiles use the pl.* calls "
                        "(pl.add, pl.mul, pl.cmp, ...)"))
                    break
    return diagnostics
