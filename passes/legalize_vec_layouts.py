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
handle when it was computed as a row; a same-shape re-view of another column, such as a reshape
narrowing its valid region, is taken again over the whole column: `passes.analysis.view_retake`):
the row then reads the same padding the column did.

A column-major Vec operand of any other shape has no zero-copy row view and is reported
(not supported yet).

An [N, 1] window of a 2-D tile keeps its source's row-major layout (a pto.subview keeps its
parent's), its elements a source row apart: it has no zero-copy row view either. Where an op runs
on rows, such a tile (or a copy of one) is gathered into a fresh [1, N] row, one one-element
Vec -> Vec pto.tinsert per element cut from the window's source (`_gathered`), so every [N, 1]
tile of the op is a row and an element-wise op keeps one shape: the RowMajorVecTiles property the
pass claims (verifiers/row_major_vec_tiles.py). A row form its op's deduction still refuses is
this pass's internal error, not the user's type error (finding 3d96c19acc: the window was left
[N, 1] beside a column's [1, N] row).

Two more pitch facts of Vec windows: a `tile.reinterpret_view` of a window (a tile.slice) reads
the window copied into a tile of its own (a reinterpret re-views a buffer from its first byte),
and an assemble whose window write has no PTO form (`languages.views.assemble_window_gap`) is
refused at the user's line. The instructions PTOAS measures by declared shapes
(`languages.layout.SHAPE_MATCHED_INSTRUCTIONS`: tpartmax, tcvt, ...) read a window operand as
such a copy too: a subview is declared by its sizes, a fresh tile at its padded extent.

A window of an [N, 1] column is column-major (a pto.subview keeps its parent's layout), and its
copy is made from the same elements cut from the column's row view, a row-major window: PTOAS
takes no vector tmov from a subview into a tile of another declared shape on A2/A3 (the copy's
buffer is padded) and re-views a column-major vector tmov's operands through treshapes on A5,
which a subview does not take. A one-element window is the common case: a [1, 1] tile is a row as
much as a column, so its copy and its reinterpret are row-major [1, 1] tiles
(`languages.layout.is_one_element`), filled by a pto.tinsert of the one-element row window
(pto-isa's TINSERT of a one-element source is a scalar element move, exact at any offset); a
longer window is copied into a [1, n] row re-viewed as the [n, 1] column (a zero-copy reshape). A
flat [1, 1] tile is its own transpose (`languages.views.transposed_view`), so a transpose_view of
a one-element window is that window, cut again: no copy.

A window's copy into a Vec tile of its own (that one, or a user's tile.move) and a window write
between row-major Vec tiles (tile.assemble) are a Vec -> Vec pto.tinsert
(`languages.views.writes_with_vec_insert`), which takes only some element types (PTOAS: i8 / f16 / bf16 /
f32 on A2/A3; the 8-bit types, f16, bf16, f32 and i32 on A5: `vec_insert_type`). A copy in another
type copies the bits of a type of its width the instruction takes instead (INT16 / UINT16 as
FP16, INT32 / UINT32 as FP32 on A2/A3): each tile operand is re-viewed in that type -- a window as
the same window cut from its source's re-view, since a reinterpret re-views a buffer from its
first byte -- and the result, a whole tile, is re-viewed in its own type under its own name. A
copy moves bytes (pto-isa's Vec -> Vec TINSERT is a UB-to-UB DMA copy, vector loads and stores or a
scalar element move on both targets, and the simulator's converts nothing between equal types), so
a NaN pattern of the copy's type survives (tests/test_window_repack_bits.py). A type no tinsert
type is as wide as (64-bit) is refused at the user's line. The bit copy is the rewrite of
passes/analysis/vec_insert_bits.py, which a later pass copying a window goes through too
(MaterializeSemanticAliases); the VecInsertTypes property this pass claims holds it to the end.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from typing_extensions import override

import languages.gen.tile_placed as TP
from languages.decls import TilePlaced
from languages.layout import (RESULT, SHAPE_MATCHED_INSTRUCTIONS, WITHOUT_ROW_FORM, is_one_element, is_row_major,
                              row_major_vec_tiles)
from languages.memory_space import MemorySpace
from languages.ops import REGISTRY, OpDef, static_ints
from languages.ops.column_twins import column_twin, twin_refusal
from languages.ops.data_extents import reads_past, reads_past_valid
from languages.types import DataType, TileType, Type
from languages.views import assemble_window_gap, is_vec_insert, writes_with_vec_insert
from nanopass.diagnostics import CompileError, Diagnostic, InternalCompileError
from nanopass.langdef import Language
from nanopass.node import Node, Span, walk
from nanopass.passes import Pass, PassContext
from passes.analysis import vec_insert_bits
from passes.analysis.memrefs import backend_handler
from passes.analysis.scope_vars import unused_name
from passes.analysis import view_retake
from passes.analysis.vec_insert_bits import BitCopier

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


def _is_strided_column(tile: object) -> bool:
    """A row-major [N, 1] Vec tile of more than one element (a window of a 2-D tile, or its
    copy): its elements sit a row pitch apart, so it has no zero-copy [1, N] row view and is
    gathered into a row (`_Legalizer._gathered`) where the op runs on rows."""
    return isinstance(tile, TileType) and tile.memory_space is MemorySpace.Vec and tile.view is not None \
        and is_row_major(tile.view) and tile.view.slayout == "none_box" and _is_column(tile) \
        and not is_one_element(tile.shape)


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
        # Window copies and window writes made as the bits of another type (`_copied`), by name:
        # the name is a reinterpret_view of the copy, whose own handle an op that rewrites its
        # operand's handle (tile.set_validshape) acts on instead.
        self.bit_handles: dict[str, TP.Var] = {}
        # Columns written as rows (`_one_element_into_column`), by name: the row each one re-views,
        # which may be a view of other bits (`rows` holds only handles set_validshape can narrow).
        self.row_forms: dict[str, TP.Var] = {}
        # Same-shape re-views of another [N, 1] column (a reshape narrowing its valid region, a
        # reinterpret_view), by name: read past their valid region as rows, they are taken again
        # over the whole column (`_whole_column`).
        self.re_views: dict[str, TP.Call] = {}
        # The region of each variable its consumers read (`view_retake.regions_read`), per function:
        # a re-viewed window is copied over what its re-view's consumers read.
        self.reads: dict[str, tuple[int, ...]] = {}

    def _note_column_re_view(self, target: TP.Var, call: TP.Call) -> None:
        """Records `target = call` when it is a same-shape re-view of another [N, 1] column (not of
        a window): read past its valid region as a row, it is taken again over the whole column
        (`_whole_column`)."""
        source = call.args[0] if call.args else None
        if REGISTRY.re_views_from_base(call.op) and REGISTRY.get(call.op).semantics[:1] != ("transpose_view",) \
                and isinstance(source, TP.Var) and source.name not in self.windows \
                and _is_row_viewable_column(source.type) and _is_row_viewable_column(target.type) \
                and tuple(getattr(source.type, "shape")) == tuple(getattr(target.type, "shape")):
            self.re_views[target.name] = call

    def _reinterpret_packed(self, node: TP.AssignStmt, call: TP.Call) -> tuple[TP.Stmt, ...]:
        """A reinterpret or a transpose_view re-views a buffer from its first byte
        (`Registry.re_views_from_base`), and a window's bytes sit at an offset and at its source's
        row pitch: the window is copied into a tile of its own (`_packed`) and that tile is
        re-viewed. (A reshape of a window is ViewLegality's refusal.) A transpose_view of a window
        of [1, 1] matrices is the window itself (its type is the window's,
        `languages.views.transposed_view`): the same window, cut again, and no copy."""
        window = call.args[0]
        assert isinstance(window, TP.Var) and isinstance(window.type, TileType)
        cut = self.windows[window.name]
        if REGISTRY.get(call.op).semantics[:1] == ("transpose_view",) and node.target.type == window.type:
            again = TP.Call(op=cut.op, args=cut.args, attrs=cut.attrs, type=cut.type, span=call.span)
            self.windows[node.target.name] = again
            self.views[node.target.name] = True
            self.bump("one_element_transposes_as_windows")
            return (TP.AssignStmt(target=node.target, value=again, span=node.span),)
        over_read = self._window_over_read(node, call, window, cut)
        if over_read is None:
            stmts, packed = self._packed(window, None, node.span, call)
        else:
            pre, wider = over_read
            copy, whole = self._packed(wider, None, node.span, call)
            back, packed = self._narrowed_back(whole, window.type, node.span)
            stmts = (*pre, *copy, *back)
            self.bump("reinterpreted_windows_packed_over_their_reads")
        args = (packed, *call.args[1:])
        view = TP.Call(op=call.op, args=args, attrs=call.attrs,
                       type=REGISTRY.deduce(call.op, args, call.attrs, placed=True, at=call), span=call.span)
        self._note_column_re_view(node.target, view)  # a re-view of the copy: taken again over it when read wider
        self.bump("reinterpreted_windows_packed")
        return (*stmts, TP.AssignStmt(target=node.target, value=view, span=node.span))

    def _window_over_read(self, node: TP.AssignStmt, call: TP.Call, window: TP.Var,
                          cut: TP.Call) -> tuple[tuple[TP.Stmt, ...], TP.Var] | None:
        """The window `window` (made by `cut`) taken again over the region the consumers of its
        re-view `call` read of it (`view_retake.regions_read`, mapped to the window by the
        re-view's `ViewValid`), when they read past its valid region: the statement and the wider
        window; None when they do not. The re-view reads the window's copy, and a copy holds what
        it copies, so the copy is made of that region (finding
        tile_reinterpret_of_a_narrowed_window_read_whole: a [4, 32] window valid over [1, 32],
        reinterpreted and read whole by tile.add, was copied over its valid row only). A window its
        source is not valid under over that region is a located 'not supported yet'."""
        region = self.reads.get(node.target.name)
        tile, viewed = window.type, node.target.type
        fact, window_fact = REGISTRY.get(call.op).view_valid, REGISTRY.get(cut.op).view_valid
        if region is None or fact is None or window_fact is None or not isinstance(tile, TileType) \
                or not isinstance(viewed, TileType) or len(tile.shape) != 2 \
                or not all(isinstance(e, int) for e in (*tile.shape, *tile.valid)):
            return None
        valid = tuple(int(v) for v in tile.valid)
        needed = fact.source_region(tile, viewed, call.args, call.attrs, region)
        if needed is None or len(needed) != len(valid) or not reads_past(tuple(needed), valid):
            return None
        wanted = tuple(min(max(n, v), int(d)) for n, v, d in zip(needed, valid, tile.shape))
        span = node.span
        args = window_fact.stated(cut.args, wanted, lambda r: _shape_expr(tuple(r), span),
                                  lambda e: TP.ConstInt(value=e, dtype=DataType.INDEX, span=span))
        problem = "its window op takes no valid region of that form"
        again: TP.Call | None = None
        if args is not None:
            try:
                again = TP.Call(op=cut.op, args=args, attrs=cut.attrs,
                                type=REGISTRY.deduce(cut.op, args, cut.attrs, placed=True, at=cut), span=span)
            except CompileError as err:
                problem = err.diagnostics[0].message if err.diagnostics else str(err)
        if again is None:
            raise CompileError(Diagnostic.at(
                call, RULE, f"not supported yet: `{node.target.name}` (a {call.op} of the window `{window.name}`, "
                            f"valid over {list(valid)}) is read over {list(region)}, which needs the window over "
                            f"{list(wanted)}; a re-view of a window reads the window copied, and the window cannot "
                            f"be taken over that region: {problem}",
                "take the window over the region read (its valid_shape), or read the re-view within its valid region"))
        var = TP.Var(self.fresh(f"{window.name}_read"), again.type, span=window.span)
        self.windows[var.name] = again
        self.views[var.name] = True
        return (TP.AssignStmt(target=var, value=again, span=span),), var

    def _narrowed_back(self, whole: TP.Var, tile: TileType, span: Span) -> tuple[tuple[TP.Stmt, ...], TP.Var]:
        """The copy `whole` (of a window taken over a wider region) narrowed back to the valid
        region of `tile`, the window as written: a tile.set_validshape of the copy's handle (through
        `visit_AssignStmt`, so a copy made as another type's bits, or as a column's row, is narrowed
        on its own handle). The bytes past that region stay the data its readers read."""
        rows, cols = (TP.ConstInt(value=int(v), dtype=DataType.INDEX, span=span) for v in tile.valid)
        args: tuple[TP.Expr, ...] = (whole, rows, cols)
        value = TP.Call(op="tile.set_validshape", args=args, attrs=(),
                        type=REGISTRY.deduce("tile.set_validshape", args, (), placed=True), span=span)
        var = TP.Var(self.fresh(f"{whole.name}_narrowed"), value.type, span=span)
        out = self.visit_AssignStmt(TP.AssignStmt(target=var, value=value, span=span))
        return (out if isinstance(out, tuple) else (out,)), var

    def _packed(self, window: TP.Var, target: TP.Var | None, span: Span, at: Node) -> tuple[tuple[TP.Stmt, ...], TP.Var]:
        """Window `window` copied into a Vec tile of its own, of the type tile.move gives it
        (`languages.views.move_view`: a one-element window lands row-major), as `target` (a fresh
        name when None): the statements and the copy. A row-major window is copied as it is (a
        Vec -> Vec pto.tinsert, `_copied`). A column-major window of an [N, 1] column is copied as
        the same elements cut from the column's row view (`_row_window`), a row-major window: a
        one-element window into a fresh [1, 1] tile (pto-isa's TINSERT of a one-element source is a
        scalar element move, exact at any offset), a longer one into a [1, n] row that a zero-copy
        reshape re-views as the [n, 1] column the move gives. PTOAS takes no direct copy of such a
        window: A2/A3's vector tmov wants one declared shape on both sides (a subview is declared
        by its sizes, a fresh tile at its padded extent), and A5 re-views a column-major Vec tmov's
        operands through treshapes, which a subview does not take."""
        assert isinstance(window.type, TileType)
        attrs = (("target_memory", MemorySpace.Vec),)
        moved_type = REGISTRY.deduce("tile.move", (window,), attrs, placed=True, at=at)
        assert isinstance(moved_type, TileType)
        name = target.name if target is not None else self.fresh(f"{window.name}_packed")
        result = TP.Var(name, moved_type, span=target.span if target is not None else window.span)
        cut = self.windows.get(window.name)
        source = getattr(cut.args[0], "type", None) if cut is not None else None
        if cut is not None and _needs_row(window.type) and _is_column(window.type) \
                and isinstance(source, TileType) and _is_column(source) \
                and all(self._swapped(arg, span) is not None for arg in cut.args[1:]):
            pre: list[TP.Stmt] = []
            row = self._row_window(window, cut, pre, span)
            assert isinstance(row, TP.Var) and isinstance(row.type, TileType)
            move = TP.Call(op="tile.move", args=(row,), attrs=attrs,
                           type=REGISTRY.deduce("tile.move", (row,), attrs, placed=True, at=at), span=span)
            copied = result if move.type == moved_type else TP.Var(self.fresh(f"{name}_row"), move.type, span=span)
            back = self._reshape_call(copied, moved_type, span) if copied is not result else None
            if back is None or back.type == moved_type:
                stmt = TP.AssignStmt(target=copied, value=move, span=span)
                inserted = isinstance(move.type, TileType) and is_vec_insert(row.type, move.type)
                stmts = [*pre, *(self._copied(stmt, move, at) if inserted else (stmt,))]
                self.bump("column_windows_copied_as_rows")
                if back is not None:
                    if copied.name not in self.bit_handles:
                        self.rows[name] = copied  # a set_validshape of the column narrows the row
                    self.views[name] = True
                    stmts.append(TP.AssignStmt(target=result, value=back, span=span))
                return tuple(stmts), result
        move = TP.Call(op="tile.move", args=(window,), attrs=attrs, type=moved_type, span=span)
        copy = TP.AssignStmt(target=result, value=move, span=span)
        return (self._copied(copy, move, at) if is_vec_insert(window.type, moved_type) else (copy,)), result

    # -- Vec -> Vec copies PTO writes with pto.tinsert, in the element types tinsert takes ----------

    def _copier(self) -> BitCopier:
        return BitCopier(TP, self.windows, self.fresh)

    def _insert_type(self, tile: TileType, at: Node) -> DataType | None:
        """The type a pto.tinsert of `tile`'s elements copies them as on this target (None: its
        own); a located refusal when the instruction takes no type of that width."""
        return vec_insert_bits.insert_type(tile, self.arch, at, RULE)  # one rule (a mutant patches it there)

    def _bits(self, operand: TP.Expr, dtype: DataType, pre: list[TP.Stmt], span: Span) -> TP.Var:
        """`operand`'s bytes seen as `dtype` (a type of its width; a window: the same window cut
        from its source's bits)."""
        var: TP.Var = self._copier().bits(operand, dtype, pre, span)
        return var

    @staticmethod
    def _view_call(operand: TP.Var, dtype: DataType, span: Span) -> TP.Call:
        attrs = (("dtype", dtype),)
        return TP.Call(op="tile.reinterpret_view", args=(operand,), attrs=attrs,
                       type=REGISTRY.deduce("tile.reinterpret_view", (operand,), attrs, placed=True), span=span)

    def _copied(self, node: TP.AssignStmt, call: TP.Call, at: Node) -> tuple[TP.Stmt, ...]:
        """`node` (`x = tile.move(window)` within Vec, or `x = tile.assemble(target, source,
        offsets)`) as it stands when PTO's pto.tinsert takes its element type; else the same
        copy of the operands' bits in a type of their width it takes, and `x` that result's bits
        re-viewed in its own type (passes/analysis/vec_insert_bits.py, the rewrite every pass
        making such a copy shares). A copy moves bytes, a NaN pattern's included, on the hardware
        and in the simulator."""
        stmts, handle = self._copier().copied(node, call, self.arch, at, RULE)
        if handle is None:
            return (node,)
        self.bit_handles[node.target.name] = handle
        self.views[node.target.name] = True
        self.bump("vec_inserts_copied_as_bits")
        return tuple(stmts)

    def _on_bits(self, node: TP.AssignStmt, call: TP.Call, args: tuple[TP.Expr, ...], result: TileType,
                 what: str) -> tuple[TP.Stmt, TP.Stmt]:
        """`call` over `args` (bits of another type) into a handle of its own, then that handle
        re-viewed as `result` under the target's name; the handle is what a later narrowing of
        the target narrows (`bit_handles`)."""
        handle, stmts = self._copier().on_bits(node, call, args, result, what, RULE)
        self.bit_handles[node.target.name] = handle
        self.views[node.target.name] = True
        return stmts

    def _vec_insert(self, node: TP.AssignStmt, call: TP.Call) -> bool:
        """Whether PTO writes `node`'s call with a Vec -> Vec pto.tinsert: a window write between
        row-major Vec tiles, or a window's copy into a Vec tile of its own (passes/pto_codegen.py)."""
        result = node.target.type
        if not isinstance(result, TileType) or not call.args:
            return False
        source = call.args[1 if call.op == "tile.assemble" else 0]
        tile = getattr(source, "type", None)
        if not isinstance(tile, TileType) or dict(call.attrs).get("cross_core", False):
            return False
        return writes_with_vec_insert(call.op, tile, result, getattr(source, "name", None) in self.windows)

    def _handle_of_bits(self, node: TP.AssignStmt, call: TP.Call, opdef: OpDef) -> tuple[TP.Stmt, ...] | None:
        """`tile.set_validshape(x, vr, vc)` of a copy `_copied` made of other bits (`x` is a view
        of them): their tile's handle narrowed, then re-viewed as `x`'s type again under the
        target's name; None for every other call."""
        handles = [i for i, arg in enumerate(call.args) if i < len(opdef.operands)
                   and opdef.operand_decl(i).handle_only and isinstance(arg, TP.Var) and arg.name in self.bit_handles]
        if not handles:
            return None
        if opdef.semantics[:1] != ("set_validshape",) or handles != [0] or len(call.args) != 3:
            raise CompileError(Diagnostic.at(
                call, RULE, f"not supported yet: `{call.op}` of a Vec window copy or window write this target copies "
                            "as the bits of another type (a view of them)",
                "narrow the tile before the copy"))
        source = call.args[0]
        target = node.target.type
        assert isinstance(source, TP.Var) and isinstance(target, TileType)
        args = (self.bit_handles[source.name], *call.args[1:])
        return self._on_bits(node, call, args, target, f"the bits of `{source.name}` narrowed")

    def _one_element_into_column(self, node: TP.AssignStmt, call: TP.Call) -> tuple[TP.Stmt, ...] | None:
        """`x = tile.assemble(col, one, [r, 0])`, one element written into a column-major [N, 1]
        Vec column, as the same write into the column's [1, N] row view at [0, r] (a row-major
        pto.tinsert, a scalar element move in pto-isa) and `x` that row re-viewed as the column; a
        one-element window is copied first (`_packed`). None for every other assemble. (A tmov
        into a subview of the column would span the source's padded buffer, [1, 8] for a row-major
        FP32 [1, 1], which no column holds.)"""
        target, source = call.args[0], call.args[1]
        offsets = static_ints(call.args[2]) if len(call.args) > 2 else None
        if not (isinstance(target, TP.Var) and isinstance(source, TP.Var) and isinstance(source.type, TileType)
                and isinstance(node.target.type, TileType)):
            return None
        # the target: an [N, 1] column of its own (or one this pass computed as a row), not a view
        own = target.name not in self.windows and (not self.views.get(target.name, False) or target.name in self.rows
                                                    or target.name in self.row_forms)
        one = source.type.memory_space is MemorySpace.Vec and len(source.type.shape) == 2 \
            and is_one_element(source.type.shape)
        if not (own and one and _is_row_viewable_column(target.type) and offsets is not None and len(offsets) == 2
                and offsets[1] == 0):
            return None
        pre: list[TP.Stmt] = []
        value: TP.Var = source
        if source.name in self.windows or _needs_row(source.type):
            stmts, value = self._packed(source, None, node.span, call)
            pre.extend(stmts)
        row = self.row_forms.get(target.name) or self.rows.get(target.name)
        if row is None:
            reshaped = self._reshaped(target, pre, node.span)
            assert isinstance(reshaped, TP.Var)
            row = reshaped
        span = call.span
        where = TP.TupleExpr(elements=(TP.ConstInt(value=0, dtype=DataType.INDEX, span=span),
                                       TP.ConstInt(value=offsets[0], dtype=DataType.INDEX, span=span)), span=span)
        args: tuple[TP.Expr, ...] = (row, value, where)
        write = TP.Call(op=call.op, args=args, attrs=call.attrs,
                        type=REGISTRY.deduce(call.op, args, call.attrs, placed=True, at=call), span=span)
        written = TP.Var(self.fresh(f"{node.target.name}_row"), write.type, span=node.target.span)
        stmt = TP.AssignStmt(target=written, value=write, span=node.span)
        inserted = isinstance(write.type, TileType) and isinstance(value.type, TileType) \
            and is_vec_insert(value.type, write.type)
        copy = self._copied(stmt, write, call) if inserted else (stmt,)
        back = self._reshape_call(written, node.target.type, node.span)
        if back.type != node.target.type:
            raise CompileError(Diagnostic.at(node, RULE, f"the row form of `{call.op}` does not reshape back to "
                                             f"{node.target.type}", "this is a compiler bug"))
        if written.name not in self.bit_handles:
            self.rows[node.target.name] = written
        self.row_forms[node.target.name] = written
        self.views[node.target.name] = True
        self.bump("one_elements_written_into_rows")
        return (*pre, *copy, TP.AssignStmt(target=node.target, value=back, span=node.span))

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
        self.windows, self.rows, self.views, self.bit_handles, self.row_forms = {}, {}, {}, {}, {}
        self.re_views = {}
        self.reads = view_retake.regions_read(node)
        return super().visit_Function(node)

    def fresh(self, base: str) -> str:
        return unused_name(base, self.used)

    @override
    def visit_AssignStmt(self, node: TP.AssignStmt) -> TP.Stmt | tuple[TP.Stmt, ...]:
        call = node.value
        if isinstance(call, TP.Var):
            self.views[node.target.name] = self.views.get(call.name, False)
            if call.name in self.bit_handles:
                self.bit_handles[node.target.name] = self.bit_handles[call.name]
            if call.name in self.windows:  # another name of a window is that window
                self.windows[node.target.name] = self.windows[call.name]
            if call.name in self.rows:
                self.rows[node.target.name] = self.rows[call.name]
            if call.name in self.row_forms:
                self.row_forms[node.target.name] = self.row_forms[call.name]
            if call.name in self.re_views:
                self.re_views[node.target.name] = self.re_views[call.name]
        if not isinstance(call, TP.Call) or call.op not in REGISTRY:
            return super().visit_AssignStmt(node)
        self.views[node.target.name] = REGISTRY.makes_view_handle(call.op)
        if REGISTRY.is_window_view(call.op):
            self.windows[node.target.name] = call
        self._note_column_re_view(node.target, call)
        opdef = REGISTRY.get(call.op)
        if call.op == "tile.assemble":
            into_row = self._one_element_into_column(node, call)
            if into_row is not None:
                return into_row
            self._check_assemble_window(call)
        if REGISTRY.re_views_from_base(call.op) and not REGISTRY.is_reshape(call.op) and call.args \
                and getattr(call.args[0], "name", None) in self.windows:
            return self._reinterpret_packed(node, call)
        on_row = self._handle_on_row(node, call, opdef)
        if on_row is not None:
            return on_row
        on_bits = self._handle_of_bits(node, call, opdef)
        if on_bits is not None:
            return on_bits
        if call.op in ("tile.move", "tile.assemble") and self._vec_insert(node, call):
            return self._copied(node, call, call)
        if self._is_window_copy(call):
            window = call.args[0]
            assert isinstance(window, TP.Var)
            return self._packed(window, node.target, node.span, call)[0]
        pre: list[TP.Stmt] = []
        if any(i in SHAPE_MATCHED_INSTRUCTIONS for i in opdef.pto):
            call = self._windows_packed(call, pre, node.span, self._runs_on_rows(call, opdef, node.target))
            if pre:
                node = TP.AssignStmt(target=node.target, value=call, span=node.span)
        return self._rows(node, call, opdef, pre)

    def _is_window_copy(self, call: TP.Call) -> bool:
        """A user's copy of a column-major window of an [N, 1] column into a Vec tile of its own
        (tile.move within Vec): made by `_packed`, as the copy of the window's row."""
        if call.op != "tile.move" or dict(call.attrs).get("cross_core", False) or not call.args:
            return False
        window = call.args[0]
        cut = self.windows.get(getattr(window, "name", ""))
        source = getattr(cut.args[0], "type", None) if cut is not None else None
        return isinstance(window, TP.Var) and _is_row_viewable_column(window.type) \
            and dict(call.attrs).get("target_memory") is MemorySpace.Vec \
            and isinstance(source, TileType) and _is_column(source)

    def _windows_packed(self, call: TP.Call, pre: list[TP.Stmt], span: Span, on_rows: bool) -> TP.Call:
        """`call` (an instruction PTOAS measures by declared shapes, SHAPE_MATCHED_INSTRUCTIONS)
        with each window operand copied into a tile of its own first (`_packed`: a one-element
        window into a row-major [1, 1]): a subview is declared by its sizes, a fresh tile at its
        padded extent, and PTOAS lowers a subview operand to its parent's strided buffer before
        verifying these instructions again (an [8, 1] FP32 window's [1, 8] row window, of the
        shape of the [1, 8] result, is refused too). Where the op runs on rows (`on_rows`), a
        row-major [N, 1] window is gathered into a fresh row instead (`_gathered`), from its
        source, past its valid rows too where the op reads them (a copy holds its valid rows only)."""
        args = list(call.args)
        copies: dict[str, TP.Var] = {}  # a window read twice is copied once
        for i, arg in enumerate(args):
            if not (isinstance(arg, TP.Var) and arg.name in self.windows and isinstance(arg.type, TileType)
                    and arg.type.memory_space is MemorySpace.Vec) or (on_rows and _is_strided_column(arg.type)):
                continue
            if arg.name not in copies:
                stmts, copies[arg.name] = self._packed(arg, None, span, call)
                pre.extend(stmts)
                self.bump("shape_matched_windows_packed")
            args[i] = copies[arg.name]
        if not pre:
            return call
        return TP.Call(op=call.op, args=tuple(args), attrs=call.attrs,
                       type=REGISTRY.deduce(call.op, tuple(args), call.attrs, placed=True, at=call), span=call.span)

    @staticmethod
    def _row_major_tiles(call: TP.Call, opdef: OpDef, target: TP.Var) -> tuple[list[int], list[int], bool]:
        """The operands (by position) the op computes on row-major, those of them that are
        column-major Vec tiles, and whether its result must be row-major and is not."""
        required = row_major_vec_tiles(opdef.family, opdef.pto, opdef.operand_names) or ()
        indices = [i for i, name in enumerate(opdef.operand_names) if name in required and i < len(call.args)]
        columns = [i for i in indices if _needs_row(getattr(call.args[i], "type", None))]
        return indices, columns, RESULT in required and _needs_row(target.type)

    def _runs_on_rows(self, call: TP.Call, opdef: OpDef, target: TP.Var) -> bool:
        """Whether `_rows` runs `call` on [1, N] rows: a tile it computes on row-major is not."""
        _, columns, result_column = self._row_major_tiles(call, opdef, target)
        return bool(columns) or result_column

    def _rows(self, node: TP.AssignStmt, call: TP.Call, opdef: OpDef,
              pre: list[TP.Stmt]) -> TP.Stmt | tuple[TP.Stmt, ...]:
        """`node` with its [N, 1] column operands (and result) seen as [1, N] rows where the op
        computes on row-major tiles only; `pre` holds statements already made for it."""
        if row_major_vec_tiles(opdef.family, opdef.pto, opdef.operand_names) is None:
            return (*pre, node) if pre else super().visit_AssignStmt(node)
        indices, columns, result_column = self._row_major_tiles(call, opdef, node.target)
        if not columns and not result_column:
            return (*pre, node) if pre else node
        for tile, at in [(getattr(call.args[i], "type"), call.args[i]) for i in columns] + (
                [(node.target.type, node.target)] if result_column else []):
            assert isinstance(tile, TileType)
            if not _is_column(tile) or (opdef.family in WITHOUT_ROW_FORM and column_twin(opdef) is None):
                raise CompileError(Diagnostic.at(
                    at, RULE, f"`{call.op}` on a column-major Vec tile of shape {list(tile.shape)} is not supported yet",
                    "PTO's vector unit computes on row-major tiles; only an [N, 1] column has a zero-copy row view"))
        # A row-major [N, 1] operand beside them (a window of a 2-D tile, its elements a source row
        # apart) has no zero-copy row view: it runs as a row gathered from its elements.
        strided = {i for i in indices if _is_strided_column(getattr(call.args[i], "type", None))}
        columns = sorted(set(columns) | strided)
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
        elif twin is not None and all(_is_row_viewable_column(getattr(args[i], "type"))
                                      or _is_strided_column(getattr(args[i], "type")) for i in others):
            # Seen as a row, an [N, 1] column's rows are the [1, N] row's columns: a per-row
            # operand (also [N, 1]) holds one value per column, and a row reduction reduces each
            # column. The op is its col twin on the row views (row_expand_add -> col_expand_add,
            # row_sum -> col_sum), scratch operands seen as rows too (a row-major one gathered).
            op = twin
            strided |= {i for i in others if _is_strided_column(getattr(args[i], "type"))}
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
        gathered: dict[tuple[str, bool], TP.Expr] = {}  # an operand read twice is gathered once
        for i in columns:
            whole = self._read_past(opdef, i, call, node.target)
            if i in strided:
                key = (getattr(args[i], "name", ""), whole)
                if key not in gathered:
                    gathered[key] = self._gathered(args[i], whole, call, pre, node.span)
                args[i] = gathered[key]
            elif whole:
                args[i] = self._whole_row(args[i], call, pre, node.span)
            else:
                args[i] = self._reshaped(args[i], pre, node.span)
        if result_column and "shape" in opdef.operand_names:
            # A fill (pl.full) states its result's shape: it fills the [1, N] row instead.
            target_tile = node.target.type
            assert isinstance(target_tile, TileType)
            args[opdef.operand_names.index("shape")] = _shape_expr((1, target_tile.shape[0]), call.span)
        row_call = TP.Call(op=op, args=tuple(args), attrs=call.attrs, type=_row_form_type(op, tuple(args), call),
                           span=call.span)
        if op != call.op and any(i in SHAPE_MATCHED_INSTRUCTIONS for i in REGISTRY.get(op).pto):
            # The twin may be an instruction PTOAS measures by declared shapes where the op was
            # not (row_expand_mul of a column window runs as tcolexpandmul of its row window).
            row_call = self._windows_packed(row_call, pre, node.span, False)
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
        re_view = self.re_views.get(name)
        if row is None and re_view is not None and isinstance(operand, TP.Var):
            # A same-shape re-view of another column (a reshape narrowing its valid region): a
            # pto.treshape handle set_validshape cannot widen, taken again over the whole column
            # (finding 6ff8b34c84: `tile.add` of `tile.reshape(l2, [16, 1], [1, 1])` and `l2`).
            return self._reshaped(self._whole_column(operand, call, pre, span), pre, span)
        window = self.windows.get(name)
        if row is None and window is not None and isinstance(operand, TP.Var) and len(window.args) >= 3:
            # A window of a column read past its valid region (finding 10120613cb: `tile.subc` of
            # `tile.slice(l2, [2, 1], [0, 0], [1, 1])`): the same elements cut from the source's
            # row view, valid over the window's whole shape (DefinedReads proved they hold data).
            return self._row_window(operand, window, pre, span, whole=call)
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

    def _whole_column(self, column: TP.Var, call: TP.Call, pre: list[TP.Stmt], span: Span) -> TP.Var:
        """Column `column` valid over its whole shape, as a column: its own handle re-validated,
        the row it was computed as re-validated and seen as the column again, or (a same-shape
        re-view of another column, `re_views`) that view taken again over the whole column of its
        source (`passes.analysis.view_retake`: its own valid_shape narrowing widened too)."""
        assert isinstance(column.type, TileType)
        whole = tuple(column.type.shape)
        row = self.rows.get(column.name)
        re_view = self.re_views.get(column.name)
        if row is not None:
            assert isinstance(row.type, TileType)
            call_back = self._reshape_call(self._set_valid(row, tuple(row.type.shape), call, pre, span), whole, span)
        elif re_view is not None:
            source = re_view.args[0]
            assert isinstance(source, TP.Var) and isinstance(source.type, TileType)
            inner: TP.Expr = source
            if tuple(source.type.valid) != view_retake.source_region(re_view, whole):
                inner = self._whole_column(source, call, pre, span)
            args = view_retake.retaken_view_args(re_view, inner, whole, span)
            call_back = TP.Call(op=re_view.op, args=args, attrs=re_view.attrs,
                                type=REGISTRY.deduce(re_view.op, args, re_view.attrs, placed=True, at=re_view),
                                span=span)
            if not isinstance(call_back.type, TileType) or tuple(call_back.type.valid) != whole:
                raise InternalCompileError(Diagnostic.at(
                    call, RULE, f"the `{re_view.op}` view `{column.name}`, taken again over {list(whole)}, is valid "
                    f"over {list(getattr(call_back.type, 'valid_extents', ()))}", "this is a compiler bug"))
        elif self.views.get(column.name, False):
            raise CompileError(Diagnostic.at(
                call, RULE,
                f"not supported yet: `{call.op}` on an [N, 1] column runs on its [1, N] row view, and it reads "
                f"a view of `{column.name}` (a view valid in {list(column.type.valid_extents)}) past its valid "
                "region; the row view of a view cannot reach the padding",
                "give the operands one valid shape (pl.tile.set_validshape), or narrow the source tile before "
                "taking the view"))
        else:
            return self._set_valid(column, whole, call, pre, span)
        var = TP.Var(self.fresh(f"{column.name}_whole"), call_back.type, span=span)
        pre.append(TP.AssignStmt(target=var, value=call_back, span=span))
        return var

    def _gathered(self, operand: TP.Expr, whole: bool, call: TP.Call, pre: list[TP.Stmt], span: Span) -> TP.Var:
        """The [1, N] row of a row-major [N, 1] tile (`_is_strided_column`): a fresh row, each element
        r written at [0, r] from the one-element window at row r (a Vec -> Vec pto.tinsert of a
        one-element source, a scalar element move in pto-isa, exact at any offset: no vector tmov
        between layouts, which A2/A3 refuses, no treshape of a subview, which A5 refuses). The row
        holds the tile's valid rows, or all N where the op reads the tile past its valid region
        (`whole`: those elements hold data, DefinedReads proved it, and a window's are cut from its
        source). In a type pto.tinsert does not take, the row is gathered as the bits of a type of
        its width (`vec_insert_type`) and re-viewed in its own type."""
        assert isinstance(operand, TP.Var) and isinstance(operand.type, TileType)
        tile = operand.type
        rows = tile.shape[0]
        count = rows if whole else tile.valid_extents[0]
        if not isinstance(count, int) or (not whole and tile.valid_extents[1] != 1):
            raise CompileError(Diagnostic.at(
                call, RULE, f"not supported yet: `{call.op}` of a row-major [N, 1] tile `{operand.name}` (a window of "
                            f"a 2-D tile) valid over {list(tile.valid_extents)} beside a column-major column",
                "give the window a constant valid shape, or copy the column into a 2-D tile first"))
        source, origin = self._element_origin(operand)
        bits = self._insert_type(tile, call)
        dtype = bits if bits is not None else tile.dtype
        if bits is not None:
            source = self._bits(source, bits, pre, span)
        row = self._assigned(f"{operand.name}_gather", self._create((1, rows), dtype, span), pre, span)
        for r in range(count):
            where = _shape_expr((origin[0] + r, origin[1]), span)
            element = self._assigned(f"{operand.name}_e{r}", self._slice(source, (1, 1), where, span), pre, span)
            row = self._assigned(f"{operand.name}_gather", self._assemble(row, element, (0, r), span), pre, span)
        if count < rows:
            row = self._set_valid(row, (1, count), call, pre, span, suffix="valid")
        if bits is not None:
            row = self._assigned(f"{operand.name}_row", self._view_call(row, tile.dtype, span), pre, span)
        self.bump("strided_columns_gathered_as_rows")
        return row

    def _element_origin(self, operand: TP.Var) -> tuple[TP.Var, tuple[int, int]]:
        """The tile a row-major [N, 1] operand's elements are cut from and the position of its
        element 0 there: a window's source at the window's offsets (through windows of windows),
        the operand itself at [0, 0] where its offsets are not constant or it is no window."""
        cut = self.windows.get(operand.name)
        offsets = static_ints(cut.args[2]) if cut is not None and len(cut.args) > 2 else None
        source = cut.args[0] if cut is not None else None
        if cut is None or offsets is None or len(offsets) != 2 or not isinstance(source, TP.Var) \
                or not isinstance(source.type, TileType) or source.type.view is None \
                or not is_row_major(source.type.view):
            return operand, (0, 0)
        root, (row, col) = self._element_origin(source)
        return root, (row + offsets[0], col + offsets[1])

    def _assigned(self, base: str, call: TP.Call, pre: list[TP.Stmt], span: Span) -> TP.Var:
        var = TP.Var(self.fresh(base), call.type, span=span)
        pre.append(TP.AssignStmt(target=var, value=call, span=span))
        return var

    @staticmethod
    def _create(shape: tuple[int, int], dtype: DataType, span: Span) -> TP.Call:
        args = (_shape_expr(shape, span),)
        attrs = (("dtype", dtype), ("target_memory", MemorySpace.Vec))
        return TP.Call(op="tile.create", args=args, attrs=attrs,
                       type=REGISTRY.deduce("tile.create", args, attrs, placed=True), span=span)

    @staticmethod
    def _slice(source: TP.Var, shape: tuple[int, int], where: TP.TupleExpr, span: Span) -> TP.Call:
        args = (source, _shape_expr(shape, span), where)
        return TP.Call(op="tile.slice", args=args, attrs=(),
                       type=REGISTRY.deduce("tile.slice", args, (), placed=True), span=span)

    @staticmethod
    def _assemble(target: TP.Var, source: TP.Var, at: tuple[int, int], span: Span) -> TP.Call:
        args = (target, source, _shape_expr(at, span))
        return TP.Call(op="tile.assemble", args=args, attrs=(),
                       type=REGISTRY.deduce("tile.assemble", args, (), placed=True), span=span)

    def _set_valid(self, handle: TP.Var, valid: tuple[int, ...], call: TP.Call, pre: list[TP.Stmt],
                   span: Span, suffix: str = "whole") -> TP.Var:
        dims = tuple(TP.ConstInt(value=d, dtype=DataType.INDEX, span=span) for d in valid)
        args: tuple[TP.Expr, ...] = (handle, *dims)
        whole = TP.Call(op="tile.set_validshape", args=args, attrs=(),
                        type=REGISTRY.deduce("tile.set_validshape", args, (), placed=True, at=call), span=span)
        var = TP.Var(self.fresh(f"{handle.name}_{suffix}"), whole.type, span=span)
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

    def _row_window(self, operand: TP.Expr, window: TP.Call, pre: list[TP.Stmt], span: Span,
                    whole: TP.Call | None = None) -> TP.Expr:
        """The row form of a column window `tile.slice(src, [r, 1], [o, 0], [vr, 1])`: the same
        elements cut from the source's row view, `tile.slice(row(src), [1, r], [0, o], [1, vr])`.
        A reshape of the window itself would be a handle at the source buffer's base address,
        dropping the window's offset (PTO has no reshape of a subview). `whole`: the op `call`
        reads the window past its valid region, so the row window is cut valid over its whole
        shape, from the source's row valid over its whole shape when the source is narrower."""
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
        if whole is not None:
            swapped = [*swapped[:2], swapped[0]]  # valid over the window's shape
            narrower = isinstance(source_tile, TileType) and tuple(source_tile.valid) != tuple(source_tile.shape)
            row_source = self._whole_row(source, whole, pre, span) if narrower else self._reshaped(source, pre, span)
            args = (row_source, *(a for a in swapped if a is not None))
        else:
            args = (self._reshaped(source, pre, span), *(a for a in swapped if a is not None))
        call = TP.Call(op=window.op, args=args, attrs=window.attrs,
                       type=REGISTRY.deduce(window.op, args, window.attrs, placed=True, at=window), span=span)
        var = TP.Var(self.fresh(f"{getattr(operand, 'name', 'col')}_row"), call.type, span=span)
        pre.append(TP.AssignStmt(target=var, value=call, span=span))
        self.windows[var.name] = call
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


def _row_form_type(op: str, args: tuple[TP.Expr, ...], call: TP.Call) -> Type:
    """The type of `call`'s row form `op(args)`; a row form its op refuses (an [N, 1] operand left
    beside a [1, N] row) is this pass's bug, not the user's type error."""
    try:
        return REGISTRY.deduce(op, args, call.attrs, placed=True, at=call)
    except CompileError as err:
        shapes = [list(t.shape) for t in (getattr(a, "type", None) for a in args) if isinstance(t, TileType)]
        raise InternalCompileError(Diagnostic.at(
            call, RULE, f"the row form of `{call.op}` (`{op}` over tiles {shapes}) is refused by its deduction: "
                        f"{err.diagnostics[0].message if err.diagnostics else err}",
            "this is a compiler bug: every [N, 1] tile of the op runs on its [1, N] row, or none")) from err


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
    produces: ClassVar[frozenset[str]] = frozenset({"NoRebasedWindows", "RowMajorVecTiles", "VecInsertTypes"})

    @override
    def run(self, program: TP.Program, ctx: PassContext) -> TP.Program:
        return ctx.rewrite(_Legalizer(_names(program), backend_handler(ctx).arch), program)
