"""PTOOperandKinds: every PTO instruction is applied to the kinds of operands its signature in
the op registry names (`languages.ops.pto_ops.PTO_SIGNATURES`): a vector instruction reads and
writes Vec tiles, pto.tload fills a Vec or Mat tile from a partition view, pto.tmatmul reads Left
and Right into Acc, a value op defines a value of its result kind.

The PTO parser reads `.pto` files against the same signatures; this verifier holds the codegen to
them, so an instruction emitted on the wrong kind of operand is caught after PTOCodegen under
`--verify-all` rather than by the assembler or the simulator.
"""

from __future__ import annotations

from languages.ops.pto_ops import pto_operand_problem
from nanopass.diagnostics import Diagnostic
from nanopass.node import Node, preorder

RULE = "PTOOperandKinds"


def verify(program: Node) -> list[Diagnostic]:
    diagnostics: list[Diagnostic] = []
    for node in preorder(program):
        kind = node.KIND
        if kind not in ("AssignStmt", "EvalStmt"):
            continue
        call = getattr(node, "value")
        if call.KIND != "Call":
            continue
        result = getattr(getattr(node, "target"), "type", None) if kind == "AssignStmt" else None
        found = pto_operand_problem(str(getattr(call, "op")), getattr(call, "args"), result)
        if found is not None:
            diagnostics.append(Diagnostic.at(
                call if call.node_span.known else node, RULE, found[1],
                "the instruction's operands must sit where PTO-ISA reads them: the codegen must emit the "
                "move (pto.tmov / pto.textract / pto.tload) that brings them there"))
    return diagnostics
