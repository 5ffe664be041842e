"""IncoreTileOps: no `tensor.*` compute operator is left in an InCore function.

After ConvertTensorToTileOps an InCore kernel computes on tiles only. What stays at tensor
level is the GM plumbing the hardware reaches through the scalar D-cache path rather than a
tile (`tensor.read`, `tensor.write`, `tensor.dim`): those have no tile form to lower to.
"""

from __future__ import annotations

from nanopass.diagnostics import Diagnostic
from nanopass.node import Node, preorder, summary

RULE = "IncoreTileOps"
INCORE = "InCore"

# GM scalar accesses and shape queries: emitted as pto.load_scalar / pto.store_scalar /
# constants, never as a tile instruction, so they legitimately survive the conversion.
GM_SCALAR_OPS = frozenset({"tensor.read", "tensor.write", "tensor.dim"})


def is_tensor_compute_op(op: str) -> bool:
    return op.startswith("tensor.") and op not in GM_SCALAR_OPS


def verify(program: Node) -> list[Diagnostic]:
    diagnostics: list[Diagnostic] = []
    for function in getattr(program, "functions", ()):
        if function.func_type != INCORE:
            continue
        ops = summary(function).field_values("Call", "op")
        if not any(not isinstance(op, str) or is_tensor_compute_op(op) for op in ops):
            continue  # nothing to report in this function
        for node in preorder(function):
            if node.KIND == "Call" and is_tensor_compute_op(getattr(node, "op")):
                diagnostics.append(
                    Diagnostic.at(
                        node,
                        RULE,
                        f"`{getattr(node, 'op')}` is a tensor-level operator left in InCore function "
                        f"`{function.name}`",
                        hint="run convert-tensor-to-tile-ops on the program, or write the tile.* form",
                    )
                )
    return diagnostics
