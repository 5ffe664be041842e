"""VecInsertTypes: every call PTO writes with a Vec -> Vec pto.tinsert copies a type tinsert takes.

A window's copy into a Vec tile of its own (tile.move of a tile.slice result) and a window write
between row-major Vec tiles (tile.assemble) are a Vec -> Vec pto.tinsert
(`languages.views.writes_with_vec_insert`, the rule PTOCodegen lowers by), which takes only some
element types per target (`languages.ops.assembler_element_types.vec_insert_types`: no 16-bit
integer on either target, no 32-bit integer on A2/A3). The tile ops admit every 8-, 16- and
32-bit type at the user's line; LegalizeVecLayouts establishes this property by copying the
other types as the bits of one tinsert takes, and every later pass that copies a window must
keep it (MaterializeSemanticAliases' copy of a yielded UINT16 window was a tinsert of UINT16 that
only TargetOpRules on the PTO program caught, blaming PTOCodegen: finding 6b09f0c436).

Without a target nothing is checked.
"""

from __future__ import annotations

from languages.functions import straight_line_statements
from languages.ops import REGISTRY
from languages.ops.assembler_element_types import vec_insert_types
from languages.types import TileType
from languages.views import writes_with_vec_insert
from nanopass.diagnostics import Diagnostic
from nanopass.node import Node

RULE = "VecInsertTypes"


def _check_function(function: Node, arch: str, out: list[Diagnostic]) -> None:
    taken = vec_insert_types(arch)
    windows: set[str] = set()
    for stmt in straight_line_statements(getattr(function, "body")):
        if stmt.KIND != "AssignStmt":
            continue
        target, value = getattr(stmt, "target"), getattr(stmt, "value")
        if value.KIND == "Var":  # another name of a window is that window
            if getattr(value, "name") in windows:
                windows.add(getattr(target, "name"))
            continue
        if value.KIND != "Call" or str(getattr(value, "op")) not in REGISTRY:
            continue
        op, args = str(getattr(value, "op")), getattr(value, "args")
        if REGISTRY.is_window_view(op):
            windows.add(getattr(target, "name"))
            continue
        if op not in ("tile.move", "tile.assemble") or len(args) < (2 if op == "tile.assemble" else 1):
            continue
        if op == "tile.move" and dict(getattr(value, "attrs")).get("cross_core", False):
            continue  # a push / pop pair between the cores, no tinsert
        source = args[1 if op == "tile.assemble" else 0]
        src, dst = getattr(source, "type", None), getattr(target, "type", None)
        if not (isinstance(src, TileType) and isinstance(dst, TileType)):
            continue
        from_window = source.KIND == "Var" and getattr(source, "name") in windows
        if not writes_with_vec_insert(op, src, dst, from_window) or dst.dtype in taken:
            continue
        names = " / ".join(sorted(d.name for d in taken))
        what = "window copy" if op == "tile.move" else "window write"
        out.append(Diagnostic.at(
            value, RULE, f"`{op}` is a Vec {what} PTO makes with pto.tinsert, in {dst.dtype.name} elements; this "
                         f"target's tinsert takes {names}",
            "copy the tiles as the bits of a type of their width tinsert takes (passes/analysis/vec_insert_bits.py, "
            "the rewrite LegalizeVecLayouts makes of the copies it is given)"))


def verify(program: Node, target: object = None) -> list[Diagnostic]:
    arch = getattr(target, "arch", None)
    if not isinstance(arch, str):
        return []
    out: list[Diagnostic] = []
    for function in getattr(program, "functions"):
        _check_function(function, arch, out)
    return out
