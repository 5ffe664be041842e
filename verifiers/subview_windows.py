"""SubviewWindows: every `pto.subview` window lies inside the tile buffer it views.

A subview is a window of its source's buffer: offsets plus sizes, in elements of the source's
declared (padded) extent, with the window's valid extent inside its sizes. PTOAS checks neither
bound for offsets given as SSA values, and pto-isa addresses the window from the source's base
at the source's row pitch, so a window past the source's declared extent reads and writes its
neighbour's bytes (a padded [N, 1] column viewed at column 10, a window of a box-rounded tile
placed by its logical extent). Offsets that are `arith.constant` values are checked; offsets
computed at run time (loop indices) are StaticBounds' to check on the value-level program.
"""

from __future__ import annotations

from languages.types import TileType, is_symbolic
from nanopass.diagnostics import Diagnostic
from nanopass.node import Node, preorder

RULE = "SubviewWindows"


def _constants(program: Node) -> dict[str, int]:
    """Index values defined by `arith.constant` (SSA: one definition per name and function)."""
    found: dict[str, int] = {}
    for node in preorder(program):
        if node.KIND != "AssignStmt":
            continue
        value = getattr(node, "value")
        if getattr(value, "op", None) == "arith.constant" and getattr(value, "args", ()):
            literal = getattr(value, "args")[0]
            if literal.KIND == "ConstInt":
                found[str(getattr(getattr(node, "target"), "name"))] = int(getattr(literal, "value"))
    return found


def _offsets(call: Node, constants: dict[str, int]) -> list[int | None]:
    args = getattr(call, "args")
    if len(args) < 2 or args[1].KIND != "TupleExpr":
        return []
    out: list[int | None] = []
    for element in getattr(args[1], "elements"):
        if element.KIND == "ConstInt":
            out.append(int(getattr(element, "value")))
        elif element.KIND == "Var":
            out.append(constants.get(str(getattr(element, "name"))))
        else:
            out.append(None)
    return out


def _problem(source: TileType, window: TileType, offsets: list[int | None]) -> str | None:
    sizes = tuple(window.shape)
    if len(offsets) != len(sizes) or len(source.shape) != len(sizes):
        return None
    for axis, (offset, size, extent) in enumerate(zip(offsets, sizes, source.shape)):
        if offset is not None and (offset < 0 or offset + size > extent):
            return (f"on axis {axis} the window spans [{offset}, {offset + size}), outside the source's declared "
                    f"extent {extent} ({list(source.shape)})")
    if not is_symbolic(window.valid_shape) and any(v > s for v, s in zip(window.valid, sizes)):
        return f"its valid extent {list(window.valid)} exceeds its sizes {list(sizes)}"
    if window.dtype is not source.dtype:
        return f"it views {source.dtype.pl_name} bytes as {window.dtype.pl_name}"
    return None


def verify(program: Node) -> list[Diagnostic]:
    constants = _constants(program)
    diagnostics: list[Diagnostic] = []
    for node in preorder(program):
        if node.KIND != "AssignStmt":
            continue
        call = getattr(node, "value")
        if getattr(call, "op", None) != "pto.subview" or not getattr(call, "args", ()):
            continue
        source = getattr(getattr(call, "args")[0], "type", None)
        window = getattr(getattr(node, "target"), "type", None)
        if not isinstance(source, TileType) or not isinstance(window, TileType):
            continue
        problem = _problem(source, window, _offsets(call, constants))
        if problem is not None:
            diagnostics.append(Diagnostic.at(
                node, RULE, f"pto.subview %{getattr(getattr(node, 'target'), 'name')} leaves its source: {problem}",
                "a window is addressed inside its source's buffer at the source's pitch: slice within the "
                "source's declared (padded) extent"))
    return diagnostics
