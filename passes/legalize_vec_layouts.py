"""LegalizeVecLayouts (TilePlaced → TilePlaced): vector instructions compute on row-major tiles.

A static [N, 1] tile has the column-major implicit view (TARGET_FACTS.md "Memory spaces and
implicit tile views"), but PTOAS accepts the element-wise, unary, cast and row-reduction
instructions only on row-major Vec tiles (PTO_DIALECT.md row 6; the tiles each family must
read and write row-major are `languages.layout.row_major_vec_tiles`). As PyPTO does, such an
operation runs on the same bytes seen as one row: each [N, 1] column operand is reshaped
(zero-copy) to [1, N], the operation computes the [1, N] row, and its result is reshaped back to
[N, 1] under the original name, so every other use is unchanged. A reshape keeps its source's
valid region, so a column the operation reads past its valid region (an element-wise op whose
result is valid wider: `languages.ops.data_extents.read_extent`, which DefinedReads reads too)
is re-validated to its whole shape first (set_validshape on its own handle, or on its row's
handle when it was computed as a row): the row then reads the same padding the column did.

A column-major Vec operand of any other shape has no zero-copy row view and is reported
(not supported yet).

Two more pitch facts of Vec windows: a `tile.reinterpret_view` of a window (a tile.slice) reads
the window copied into a tile of its own (a reinterpret re-views a buffer from its first byte),
and an assemble whose window write has no PTO form (`languages.views.assemble_window_gap`) is
refused at the user's line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from typing_extensions import override

import languages.gen.tile_placed as TP
from languages.decls import TilePlaced
from languages.layout import RESULT, WITHOUT_ROW_FORM, is_row_major, row_major_vec_tiles
from languages.memory_space import MemorySpace
from languages.ops import REGISTRY, OpDef, static_ints
from languages.ops.column_twins import column_twin, twin_refusal
from languages.ops.data_extents import reads_past_valid
from languages.types import DataType, TileType
from languages.views import assemble_window_gap
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.langdef import Language
from nanopass.node import Node, Span, walk
from nanopass.passes import Pass, PassContext
from passes.analysis.memrefs import backend_handler

RULE = "LegalizeVecLayouts"


def _needs_row(tile: object) -> bool:
    """A placed Vec tile that is not row-major."""
    return (isinstance(tile, TileType) and tile.memory_space is MemorySpace.Vec and tile.view is not None
            and not is_row_major(tile.view))


def _is_column(tile: TileType) -> bool:
    return len(tile.shape) == 2 and tile.shape[1] == 1


def _one_value(tile: object) -> bool:
    """A tile holding one value at element 0: [1, 1], or an [N, 1] column valid over [1, 1]."""
    return isinstance(tile, TileType) and len(tile.shape) == 2 and tile.shape[1] == 1 \
        and (tile.shape[0] == 1 or tuple(tile.valid_extents) == (1, 1))


def _is_row_viewable_column(tile: object) -> bool:
    """A column-major [N, 1] Vec tile (it has the zero-copy [1, N] row view)."""
    return isinstance(tile, TileType) and _needs_row(tile) and _is_column(tile)


class _Legalizer(TP.Rewriter):
    def __init__(self, used: set[str], arch: str) -> None:
        super().__init__()
        self.used = used
        self.arch = arch  # the target's (BackendHandler.arch): a twin must be one it takes
        # Window views (tile.slice results) by name, as rewritten: a column window is re-cut
        # from its source's row view, never reshaped itself (see `_reshaped`).
        self.windows: dict[str, TP.Call] = {}
        # Results computed as rows and re-viewed as [N, 1] columns under their own name: the
        # column is a pto.treshape view, so an op that rewrites its operand's handle
        # (`handle_only`: tile.set_validshape) must act on the row's handle instead.
        self.rows: dict[str, TP.Var] = {}
        # Whether a variable is a view handle (a slice, a reshape; the columns in `rows` too):
        # set_validshape takes no view.
        self.views: dict[str, bool] = {}

    def _reinterpret_packed(self, node: TP.AssignStmt, call: TP.Call) -> tuple[TP.Stmt, ...]:
        """A reinterpret or a transpose_view re-views a buffer from its first byte
        (`Registry.re_views_from_base`), and a window's bytes sit at an offset and at its source's
        row pitch: the window is copied into a tile of its own (tile.move within Vec) and that
        tile is re-viewed. (A reshape of a window is ViewLegality's refusal.)"""
        window = call.args[0]
        assert isinstance(window, TP.Var) and isinstance(window.type, TileType)
        attrs = (("target_memory", window.type.memory_space),)
        move = TP.Call(op="tile.move", args=(window,), attrs=attrs,
                       type=REGISTRY.deduce("tile.move", (window,), attrs, placed=True, at=call), span=call.span)
        packed = TP.Var(self.fresh(f"{window.name}_packed"), move.type, span=window.span)
        args = (packed, *call.args[1:])
        view = TP.Call(op=call.op, args=args, attrs=call.attrs,
                       type=REGISTRY.deduce(call.op, args, call.attrs, placed=True, at=call), span=call.span)
        self.bump("reinterpreted_windows_packed")
        return (TP.AssignStmt(target=packed, value=move, span=node.span),
                TP.AssignStmt(target=node.target, value=view, span=node.span))

    def _check_assemble_window(self, call: TP.Call) -> None:
        """An assemble between Vec tiles whose window write has no PTO form is refused at the
        user's line (`languages.views.assemble_window_gap`, which the generator reads too)."""
        target, source = (getattr(a, "type", None) for a in call.args[:2])
        if not all(isinstance(t, TileType) and t.memory_space is MemorySpace.Vec for t in (target, source)):
            return
        assert isinstance(target, TileType) and isinstance(source, TileType)
        offsets = static_ints(call.args[2]) if len(call.args) > 2 else None
        gap = assemble_window_gap(target, source, offsets, self.arch)
        if gap:
            raise CompileError(Diagnostic.at(
                call, RULE, f"not supported yet: assembling a {list(source.shape)} {source.dtype.name} tile into a "
                            f"{list(target.shape)} tile here: {gap}",
                "assemble tiles of one layout (an [N, 1] column into a column, rows into rows) at offsets that "
                "keep the source's 32-byte padded buffer inside the target"))

    @override
    def visit_Function(self, node: TP.Function) -> TP.Function:
        # Names are per function: a column computed as a row in one kernel says nothing of a
        # variable of the same name in the next (a campaign found a [1, 32] row of a later kernel
        # taken for an earlier kernel's [16, 1] column, finding a4e231bc62).
        self.windows, self.rows, self.views = {}, {}, {}
        return super().visit_Function(node)

    def fresh(self, base: str) -> str:
        name, suffix = base, 0
        while name in self.used:
            suffix += 1
            name = f"{base}_{suffix}"
        self.used.add(name)
        return name

    @override
    def visit_AssignStmt(self, node: TP.AssignStmt) -> TP.Stmt | tuple[TP.Stmt, ...]:
        call = node.value
        if isinstance(call, TP.Var):
            self.views[node.target.name] = self.views.get(call.name, False)
        if not isinstance(call, TP.Call) or call.op not in REGISTRY:
            return super().visit_AssignStmt(node)
        self.views[node.target.name] = REGISTRY.makes_view_handle(call.op)
        if REGISTRY.is_window_view(call.op):
            self.windows[node.target.name] = call
        opdef = REGISTRY.get(call.op)
        if call.op == "tile.assemble":
            self._check_assemble_window(call)
        if REGISTRY.re_views_from_base(call.op) and not REGISTRY.is_reshape(call.op) and call.args \
                and getattr(call.args[0], "name", None) in self.windows:
            return self._reinterpret_packed(node, call)
        on_row = self._handle_on_row(node, call, opdef)
        if on_row is not None:
            return on_row
        required = row_major_vec_tiles(opdef.family, opdef.pto, opdef.operand_names)
        if required is None:
            return super().visit_AssignStmt(node)
        indices = [i for i, name in enumerate(opdef.operand_names) if name in required and i < len(call.args)]
        columns = [i for i in indices if _needs_row(getattr(call.args[i], "type", None))]
        result_column = RESULT in required and _needs_row(node.target.type)
        if not columns and not result_column:
            return node
        for tile, at in [(getattr(call.args[i], "type"), call.args[i]) for i in columns] + (
                [(node.target.type, node.target)] if result_column else []):
            assert isinstance(tile, TileType)
            if not _is_column(tile) or (opdef.family in WITHOUT_ROW_FORM and column_twin(opdef) is None):
                raise CompileError(Diagnostic.at(
                    at, RULE, f"`{call.op}` on a column-major Vec tile of shape {list(tile.shape)} is not supported yet",
                    "PTO's vector unit computes on row-major tiles; only an [N, 1] column has a zero-copy row view"))
        pre: list[TP.Stmt] = []
        args = list(call.args)
        op = call.op
        twin = column_twin(opdef) if 0 in columns else None
        others = [i for i in range(1, len(args)) if isinstance(getattr(args[i], "type", None), TileType)]
        if twin is not None and opdef.family == "col_expand":
            # A column broadcast of an [N, 1] column by its one value: the row broadcast of the
            # [1, N] row by the same value (the value is both a row and a column). The value is a
            # [1, 1] tile, or a taller column valid over [1, 1] (its row 0, which the deduction
            # admits as a one-row operand): element 0 either way, in either layout, and the row
            # broadcast reads it as a one-row per-row operand as it stands.
            if not all(_one_value(getattr(args[i], "type")) for i in others):
                twin = None
            else:
                op = twin
        elif twin is not None and all(_is_row_viewable_column(getattr(args[i], "type")) for i in others):
            # Seen as a row, an [N, 1] column's rows are the [1, N] row's columns: a per-row
            # operand (also [N, 1]) holds one value per column, and a row reduction reduces each
            # column. The op is its col twin on the row views (row_expand_add -> col_expand_add,
            # row_sum -> col_sum), scratch operands seen as rows too.
            op = twin
            columns = sorted(set(columns) | set(others))
        refusal = twin_refusal(opdef, self.arch, [getattr(getattr(a, "type", None), "dtype", None) for a in args],
                               getattr(node.target.type, "dtype", None)) if op != call.op else ""
        if refusal:
            raise CompileError(Diagnostic.at(
                call, RULE, f"`{call.op}` of a column-major [N, 1] column is not supported yet in this element type on "
                            f"this target: it runs as {refusal}",
                "compute in a type that instruction takes (pl.cast before and after), or on a row-major [1, N] row"))
        if opdef.family in WITHOUT_ROW_FORM and op == call.op:
            raise CompileError(Diagnostic.at(
                call, RULE, f"`{call.op}` of a column-major [N, 1] column by a value other than [1, 1] is not supported "
                            "yet", "PTO's vector unit computes on row-major tiles; broadcast a [1, 1] value, or "
                            "compute on a row-major tile"))
        for i in columns:
            if self._read_past(opdef, i, call, node.target):
                args[i] = self._whole_row(args[i], call, pre, node.span)
            else:
                args[i] = self._reshaped(args[i], pre, node.span)
        if result_column and "shape" in opdef.operand_names:
            # A fill (pl.full) states its result's shape: it fills the [1, N] row instead.
            target_tile = node.target.type
            assert isinstance(target_tile, TileType)
            args[opdef.operand_names.index("shape")] = _shape_expr((1, target_tile.shape[0]), call.span)
        row_call = TP.Call(op=op, args=tuple(args), attrs=call.attrs,
                           type=REGISTRY.deduce(op, tuple(args), call.attrs, placed=True, at=call), span=call.span)
        self.bump("column_ops_as_rows")
        if row_call.type == node.target.type:
            return (*pre, TP.AssignStmt(target=node.target, value=row_call, span=node.span))
        row = TP.Var(self.fresh(node.target.name + "_row"), row_call.type, span=node.target.span)
        pre.append(TP.AssignStmt(target=row, value=row_call, span=node.span))
        target = node.target.type
        assert isinstance(target, TileType)
        back = self._reshape_call(row, target, node.span)
        if back.type != node.target.type:
            raise CompileError(Diagnostic.at(node, RULE, f"the row form of `{call.op}` does not reshape back to "
                                             f"{node.target.type}", "this is a compiler bug"))
        self.rows[node.target.name] = row
        self.views[node.target.name] = True
        return (*pre, TP.AssignStmt(target=node.target, value=back, span=node.span))

    @staticmethod
    def _read_past(opdef: OpDef, index: int, call: TP.Call, target: TP.Var) -> bool:
        """Whether the op reads argument `index` past its valid region (an element-wise op whose
        result is valid wider than this operand: the registry's read extent,
        `languages.ops.data_extents`); the input's DefinedReads proved those elements hold data."""
        ty = getattr(call.args[index], "type", None)
        if not isinstance(ty, TileType):
            return False
        return reads_past_valid(opdef, index, ty, target.type, call.attrs)

    def _whole_row(self, operand: TP.Expr, call: TP.Call, pre: list[TP.Stmt], span: Span) -> TP.Expr:
        """The row form of a column the op reads past its valid region: the whole tile's [1, N]
        row. A reshape keeps the column's valid region (and a treshape holds only it), so the
        handle is re-validated to its shape by set_validshape first -- the column's own handle,
        or the row's handle of a column this pass computed as a row (the column is a view of it)."""
        tile = getattr(operand, "type")
        assert isinstance(tile, TileType)
        name = getattr(operand, "name", "")
        row = self.rows.get(name)
        if not isinstance(operand, TP.Var) or (row is None and self.views.get(name, False)):
            raise CompileError(Diagnostic.at(
                call, RULE,
                f"not supported yet: `{call.op}` on an [N, 1] column runs on its [1, N] row view, and it reads its "
                f"operand `{name or 'x'}` (a view valid in {list(tile.valid_extents)}) past its valid region; the row "
                "view of a view cannot reach the padding",
                "give the operands one valid shape (pl.tile.set_validshape), or narrow the source tile before "
                "taking the view"))
        if row is not None:
            assert isinstance(row.type, TileType)
            return self._set_valid(row, tuple(row.type.shape), call, pre, span)
        return self._reshaped(self._set_valid(operand, tuple(tile.shape), call, pre, span), pre, span)

    def _set_valid(self, handle: TP.Var, valid: tuple[int, ...], call: TP.Call, pre: list[TP.Stmt],
                   span: Span) -> TP.Var:
        dims = tuple(TP.ConstInt(value=d, dtype=DataType.INDEX, span=span) for d in valid)
        args: tuple[TP.Expr, ...] = (handle, *dims)
        whole = TP.Call(op="tile.set_validshape", args=args, attrs=(),
                        type=REGISTRY.deduce("tile.set_validshape", args, (), placed=True, at=call), span=span)
        var = TP.Var(self.fresh(f"{handle.name}_whole"), whole.type, span=span)
        pre.append(TP.AssignStmt(target=var, value=whole, span=span))
        return var

    def _handle_on_row(self, node: TP.AssignStmt, call: TP.Call, opdef: OpDef) -> tuple[TP.Stmt, ...] | None:
        """`tile.set_validshape(col, vr, vc)` of a column this pass re-viewed from a row: the
        row's handle narrowed to [vc, vr] (a column's rows are its row view's columns), then
        re-viewed as the column again; None for every other call."""
        handles = [i for i, arg in enumerate(call.args) if i < len(opdef.operands)
                   and opdef.operand_decl(i).handle_only and isinstance(arg, TP.Var) and arg.name in self.rows]
        if not handles:
            return None
        if opdef.semantics[:1] != ("set_validshape",) or handles != [0] or len(call.args) != 3:
            raise CompileError(Diagnostic.at(
                call, RULE, f"`{call.op}` of an [N, 1] column computed as a row is not supported yet",
                "narrow the tile before the vector instruction that produces it"))
        source = call.args[0]
        assert isinstance(source, TP.Var)
        row = self.rows[source.name]
        args = (row, call.args[2], call.args[1])
        narrowed = TP.Call(op=call.op, args=args, attrs=call.attrs,
                           type=REGISTRY.deduce(call.op, args, call.attrs, placed=True, at=call), span=call.span)
        var = TP.Var(self.fresh(node.target.name + "_row"), narrowed.type, span=node.target.span)
        target = node.target.type
        assert isinstance(target, TileType)
        back = self._reshape_call(var, target, node.span)
        if back.type != target:
            raise CompileError(Diagnostic.at(
                call, RULE, f"`{call.op}` of an [N, 1] column computed as a row is not supported yet for the valid "
                f"shape {target}", "narrow the tile before the vector instruction that produces it"))
        self.bump("column_handles_narrowed_as_rows")
        self.rows[node.target.name] = var
        self.views[node.target.name] = True
        return (TP.AssignStmt(target=var, value=narrowed, span=node.span),
                TP.AssignStmt(target=node.target, value=back, span=node.span))

    def _reshaped(self, operand: TP.Expr, pre: list[TP.Stmt], span: Span) -> TP.Expr:
        tile = getattr(operand, "type")
        assert isinstance(tile, TileType)
        row_type = (1, tile.shape[0])
        window = self.windows.get(getattr(operand, "name", ""))
        if window is not None:
            return self._row_window(operand, window, pre, span)
        call = self._reshape_call(operand, row_type, span)
        var = TP.Var(self.fresh(f"{getattr(operand, 'name', 'col')}_row"), call.type, span=span)
        pre.append(TP.AssignStmt(target=var, value=call, span=span))
        return var

    def _row_window(self, operand: TP.Expr, window: TP.Call, pre: list[TP.Stmt], span: Span) -> TP.Expr:
        """The row form of a column window `tile.slice(src, [r, 1], [o, 0], [vr, 1])`: the same
        elements cut from the source's row view, `tile.slice(row(src), [1, r], [0, o], [1, vr])`.
        A reshape of the window itself would be a handle at the source buffer's base address,
        dropping the window's offset (PTO has no reshape of a subview)."""
        source = window.args[0]
        source_tile = getattr(source, "type", None)
        if not (isinstance(source_tile, TileType) and _is_column(source_tile)):
            raise CompileError(Diagnostic.at(
                operand, RULE, f"a vector instruction on a column window of a {list(getattr(source_tile, 'shape', []))} "
                "tile is not supported yet", "slice a whole [N, 1] column first, or compute on the wider tile"))
        swapped = [self._swapped(arg, span) for arg in window.args[1:]]
        if any(arg is None for arg in swapped):
            raise CompileError(Diagnostic.at(operand, RULE, "a column window with a non-literal shape or offset list "
                                             "is not supported yet as a vector operand", "write the lists literally"))
        args = (self._reshaped(source, pre, span), *(a for a in swapped if a is not None))
        call = TP.Call(op=window.op, args=args, attrs=window.attrs,
                       type=REGISTRY.deduce(window.op, args, window.attrs, placed=True, at=window), span=span)
        var = TP.Var(self.fresh(f"{getattr(operand, 'name', 'col')}_row"), call.type, span=span)
        pre.append(TP.AssignStmt(target=var, value=call, span=span))
        return var

    @staticmethod
    def _swapped(arg: TP.Expr, span: Span) -> TP.Expr | None:
        """A [rows, cols] list literal as [cols, rows] (a column's coordinates on its row view)."""
        if not (isinstance(arg, TP.TupleExpr) and len(arg.elements) == 2):
            return None
        return TP.TupleExpr(elements=(arg.elements[1], arg.elements[0]), span=arg.span if arg.span.known else span)

    @staticmethod
    def _reshape_call(operand: TP.Expr, target: TileType | tuple[int, ...], span: Span) -> TP.Call:
        shape = target.shape if isinstance(target, TileType) else target
        args = (operand, _shape_expr(tuple(shape), span))
        return TP.Call(op="tile.reshape", args=args, attrs=(),
                       type=REGISTRY.deduce("tile.reshape", args, (), placed=True), span=span)


def _shape_expr(shape: tuple[int, ...], span: Span) -> TP.TupleExpr:
    return TP.TupleExpr(elements=tuple(TP.ConstInt(value=d, dtype=DataType.INDEX, span=span) for d in shape), span=span)


def _names(node: Node) -> set[str]:
    return {str(getattr(n, "name")) for n in walk(node) if n.KIND == "Var"}


@dataclass(frozen=True)
class LegalizeVecLayouts(Pass[TP.Program, TP.Program]):
    """Run vector instructions on [N, 1] columns as [1, N] rows (PTOAS wants row-major tiles)."""

    name: ClassVar[str] = "legalize-vec-layouts"
    spec_name: ClassVar[str] = "LegalizeVecLayouts"
    source: ClassVar[Language] = TilePlaced
    target: ClassVar[Language] = TilePlaced
    requires: ClassVar[frozenset[str]] = frozenset({"TileMemoryPlaced"})
    produces: ClassVar[frozenset[str]] = frozenset({"NoRebasedWindows"})

    @override
    def run(self, program: TP.Program, ctx: PassContext) -> TP.Program:
        return ctx.rewrite(_Legalizer(_names(program), backend_handler(ctx).arch), program)
