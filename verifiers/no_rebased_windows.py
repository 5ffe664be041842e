"""NoRebasedWindows: no reinterpret_view or transpose_view re-views a placed window of another tile.

A `tile.reinterpret_view` (and a `tile.transpose_view`: `Registry.re_views_from_base`) is lowered to a handle on its source's buffer from the buffer's first
byte (a pto.treshape of the allocation; NUMERICS.md section 5: the bytes re-read in row-major
order). A window (`Registry.is_window_view`: a tile.slice result) sits at an offset inside its
source and at the source's row pitch, so a reinterpret of it would read the source's first rows
instead of the window's elements. From LegalizeVecLayouts on, every such reinterpret reads a
copy of the window in a tile of its own (LegalizeVecLayouts for the user's reinterprets,
LegalizeVecDtypes for the BF16 bit views of its FP32 routes). The same rule for reshapes is
ViewLegality's, which holds from placement on.

Windows are followed through plain `v = u` assignments and through views of a window (a
reinterpret of a window is itself at the window's offset).
"""

from __future__ import annotations

from typing import Sequence

from languages.functions import straight_line_statements
from languages.ops import REGISTRY
from languages.types import TileType
from nanopass.diagnostics import Diagnostic
from nanopass.node import Node

RULE = "NoRebasedWindows"


def _is_reinterpret(op: str) -> bool:
    """A re-view of the whole buffer from its first byte other than a reshape (ViewLegality's)."""
    return REGISTRY.re_views_from_base(op) and not REGISTRY.is_reshape(op)


def _check(body: Sequence[Node], out: list[Diagnostic]) -> None:
    windows: dict[str, Node] = {}  # variable -> the window-view call (tile.slice) its bytes sit in
    for stmt in straight_line_statements(body):
        if stmt.KIND == "AssignStmt":
            target, value = getattr(stmt, "target"), getattr(stmt, "value")
            name = str(getattr(target, "name"))
            if value.KIND == "Var" and str(getattr(value, "name")) in windows:
                windows[name] = windows[str(getattr(value, "name"))]
            elif value.KIND == "Call":
                op = str(getattr(value, "op"))
                args = getattr(value, "args")
                source = args[0] if args else None
                window = windows.get(str(getattr(source, "name"))) if source is not None and source.KIND == "Var" \
                    else None
                src = getattr(source, "type", None)
                if window is not None and _is_reinterpret(op) and isinstance(src, TileType) \
                        and src.memory_space is not None:
                    where = f" at {window.node_span}" if window.node_span.known else ""
                    out.append(Diagnostic.at(
                        value, RULE,
                        f"{op} re-views `{getattr(source, 'name')}`, a window of another tile "
                        f"({getattr(window, 'op')}{where}): such a view is a handle on the whole buffer from its "
                        "first byte, so the window's offset and row pitch would be dropped",
                        hint="copy the window into a tile of its own (tile.move within its space) and "
                             "reinterpret the copy"))
                if op in REGISTRY and REGISTRY.is_window_view(op):
                    windows[name] = value
                elif window is not None and op in REGISTRY and REGISTRY.is_view(op):
                    windows[name] = window


def verify(program: Node) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for function in getattr(program, "functions"):
        _check(getattr(function, "body"), out)
    return out
