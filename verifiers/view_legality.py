"""ViewLegality: zero-copy views are used only where a view can mean what the program says.

- A metadata-only op that rewrites its operand's tile handle (an operand the op registry marks
  `handle_only`: tile.set_validshape) takes an allocation, an `if` result or a pop slot, never a
  view (`Registry.makes_view_handle`: the pto.subview of a tile.slice, the pto.treshape of a
  tile.reshape / tile.transpose_view), whose valid extent lives in its own type: PTOAS rejects it,
  and lowered against the view's base buffer it would drop the slice's offset
  (../spec/pto_codegen.md, tile.set_validshape lowering).
- A re-view never reinterprets a different physical layout: a tile.reshape that changes the
  shape reads its source's bytes under the new shape, which is the reshape only when both tiles
  keep their elements in row-major order (`languages.layout.is_row_major_linear`); a reshape of
  an NZ / Zn / boxed tile would pair each element with another element's bytes.

- A reinterpret_view re-reads its source's bytes in row-major order as the new dtype and shape
  (what the op means, NUMERICS.md section 5): the two tiles must place those bytes alike
  (`languages.layout.reinterpret_keeps_order`); a column-major [16, 1] column re-viewed as a
  column-major [8, 2] tile reads element (r, c) from byte run c * 8 + r, not 2 * r + c.

- A placed reshape never re-views a window (`Registry.is_window_view`: a tile.slice result): a reshape
  is a handle on its source's buffer from the buffer's base, so a window's offset (and its row
  pitch inside the source) would be dropped; reshape the source and slice the reshaped tile.

Views are followed through plain `v = u` assignments. Unplaced tiles (no view yet) are checked
for the first rule only.
"""

from __future__ import annotations

from typing import Sequence

from languages.functions import straight_line_statements
from languages.layout import is_row_major_linear, reinterpret_keeps_order
from languages.ops import REGISTRY
from languages.types import TileType
from nanopass.diagnostics import Diagnostic
from nanopass.node import Node

RULE = "ViewLegality"


class _Checker:
    def __init__(self) -> None:
        self.views: dict[str, Node] = {}  # variable -> the view call defining it
        self.windows: dict[str, Node] = {}  # variable -> the window-view call (tile.slice) defining it
        self.out: list[Diagnostic] = []

    def block(self, body: Sequence[Node]) -> None:
        for stmt in straight_line_statements(body):
            kind = stmt.KIND
            if kind in ("AssignStmt", "EvalStmt"):
                value = getattr(stmt, "value")
                target = getattr(stmt, "target") if kind == "AssignStmt" else None
                if value.KIND == "Call" and str(getattr(value, "op")) in REGISTRY:
                    self.call(value)
                    if target is not None and REGISTRY.makes_view_handle(str(getattr(value, "op"))):
                        self.views[str(getattr(target, "name"))] = value
                    if target is not None and REGISTRY.is_window_view(str(getattr(value, "op"))):
                        self.windows[str(getattr(target, "name"))] = value
                    if target is not None and REGISTRY.is_reshape(str(getattr(value, "op"))):
                        self.reshape(value, target)
                    if target is not None and REGISTRY.get(str(getattr(value, "op"))).semantics[:1] == ("reinterpret",):
                        self.reinterpret(value, target)
                elif value.KIND == "Var" and target is not None:
                    for table in (self.views, self.windows):
                        if str(getattr(value, "name")) in table:
                            table[str(getattr(target, "name"))] = table[str(getattr(value, "name"))]

    def call(self, call: Node) -> None:
        op = str(getattr(call, "op"))
        opdef = REGISTRY.get(op)
        for index, arg in enumerate(getattr(call, "args")):
            if index >= len(opdef.operands) or not opdef.operand_decl(index).handle_only or arg.KIND != "Var":
                continue
            view = self.views.get(str(getattr(arg, "name")))
            if view is None:
                continue
            where = f" ({getattr(view, 'op')} at {view.node_span})" if view.node_span.known else \
                f" (a {getattr(view, 'op')})"
            self.out.append(Diagnostic.at(
                call, RULE,
                f"{op} cannot change the valid shape of `{getattr(arg, 'name')}`: it is a view{where}, which "
                f"carries its valid extent in its own type",
                hint="pass valid_shape= to the slice instead, or call set_validshape on the source tile "
                     "before taking the view"))

    def reshape(self, call: Node, target: Node) -> None:
        source = getattr(call, "args")[0]
        src, dst = getattr(source, "type", None), getattr(target, "type", None)
        window = self.windows.get(str(getattr(source, "name", ""))) if source.KIND == "Var" else None
        # Placed tiles only: before placement a reshape of a window is still a value-level view
        # (FlattenTileNdTo2D folds the one-page windows of N-D lowering); from TilePlaced on,
        # codegen would lower it as a handle at the source buffer's base.
        if window is not None and isinstance(src, TileType) and src.memory_space is not None:
            where = f" at {window.node_span}" if window.node_span.known else ""
            self.out.append(Diagnostic.at(
                call, RULE,
                f"{getattr(call, 'op')} re-views `{getattr(source, 'name')}`, a window of another tile "
                f"({getattr(window, 'op')}{where}): a reshape is a handle on the whole buffer from its base, "
                f"so the window's offset would be dropped",
                hint="reshape the source tile and slice the reshaped tile, or move the window into its own "
                     "tile (tile.move) before reshaping it"))
            return
        if not isinstance(src, TileType) or not isinstance(dst, TileType) or src.view is None or dst.view is None:
            return
        if tuple(src.shape) == tuple(dst.shape):
            return
        if is_row_major_linear(src.view, src.shape, src.dtype) and is_row_major_linear(dst.view, dst.shape, dst.dtype) \
                and src.dtype == dst.dtype:
            return
        space = src.memory_space.name if src.memory_space is not None else "?"
        # The operand may be written in place (`pl.tile.reshape(pl.tile.load(...), ...)`).
        what = (f"`{getattr(source, 'name')}`" if source.KIND == "Var"
                else f"the {getattr(source, 'op', 'operand')} result")
        self.out.append(Diagnostic.at(
            call, RULE,
            f"{getattr(call, 'op')} re-views {what} ({list(src.shape)} in {space}, "
            f"{src.view.blayout}/{src.view.slayout} boxes) as {list(dst.shape)} ({dst.view.blayout}/"
            f"{dst.view.slayout}): the bytes do not hold the elements in row-major order, so the re-view "
            f"pairs elements with other elements' bytes",
            hint="reshape where both tiles are flat row-major (Vec ND) and move the result, or reshape "
                 "the tensor in GM"))


    def reinterpret(self, call: Node, target: Node) -> None:
        source = getattr(call, "args")[0]
        src, dst = getattr(source, "type", None), getattr(target, "type", None)
        if not isinstance(src, TileType) or not isinstance(dst, TileType) or reinterpret_keeps_order(src, dst):
            return
        what = (f"`{getattr(source, 'name')}`" if source.KIND == "Var"
                else f"the {getattr(source, 'op', 'operand')} result")
        src_layout = src.view.blayout if src.view is not None else "unplaced"
        dst_layout = dst.view.blayout if dst.view is not None else "unplaced"
        self.out.append(Diagnostic.at(
            call, RULE,
            f"{getattr(call, 'op')} re-reads {what} ({list(src.shape)} {src.dtype.name}, {src_layout}) as "
            f"{list(dst.shape)} {dst.dtype.name} ({dst_layout}): the result's buffer order is not the source's "
            f"bytes in row-major order, so the re-view pairs elements with other elements' bytes",
            hint="reinterpret into the automatic shape (the source's rows), or into one row or one column"))


def verify(program: Node) -> list[Diagnostic]:
    diagnostics: list[Diagnostic] = []
    for function in getattr(program, "functions"):
        checker = _Checker()
        checker.block(getattr(function, "body"))
        diagnostics.extend(checker.out)
    return diagnostics
