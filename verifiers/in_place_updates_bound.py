"""InPlaceUpdatesBound: a call that updates a tile in place binds its result.

An op whose result *is* a tile operand's buffer and which writes that operand (the registry's
`ReusesInput` with a WRITE effect: tile.write, tile.matmul_acc, tile.scatter, ...) changes the
tile itself on the device. The IR gives values SSA names, so the updated tile must get a name
(`t_1 = pl.tile.write(t, ...)`) and the code after it must read that name: as a bare statement
the update would leave `t` naming the old value, which the reference interpreter keeps and the
device has overwritten (the frontend rebinds the user's name; a pass must not drop it).
"""

from __future__ import annotations

from languages.ops import REGISTRY, WRITE, ReusesInput
from languages.types import TileType
from nanopass.diagnostics import Diagnostic
from nanopass.node import Node, preorder

RULE = "InPlaceUpdatesBound"


def verify(program: Node) -> list[Diagnostic]:
    diagnostics: list[Diagnostic] = []
    for function in getattr(program, "functions", ()):
        for stmt in preorder(function):
            if stmt.KIND != "EvalStmt":
                continue
            call = getattr(stmt, "value")
            if call.KIND != "Call" or getattr(call, "op") not in REGISTRY:
                continue
            opdef = REGISTRY.get(getattr(call, "op"))
            reused, args = opdef.output_memory, getattr(call, "args")
            if not isinstance(reused, ReusesInput) or reused.index >= len(args):
                continue
            operand = args[reused.index]
            if not opdef.effect_of(reused.index, getattr(call, "attrs")) & WRITE:
                continue
            if operand.KIND == "Var" and isinstance(getattr(operand, "type"), TileType):
                name = getattr(operand, "name")
                diagnostics.append(Diagnostic.at(
                    stmt, RULE, f"`{opdef.name}` updates the tile `{name}` in place but its result is not bound: "
                                f"the code after it would read the old value of `{name}`",
                    f"bind the result, `{name}_1 = {opdef.name}(...)`, and read `{name}_1` afterwards"))
    return diagnostics
