"""AccCompactValid (spec pto_codegen.md, "Verifier" / compact mode).

MAD lays its product out in L0C at a row pitch of ⌈validRow/16⌉·16, validRow being the Left
operand's valid rows, while every Acc reader (store, extract, move, tpush) walks L0C at the
tile's physical row count unless the tile is compact. So:

1. every cube matmul whose MAD pitch differs from its accumulator's physical rows must write a
   compact accumulator (for `tile.matmul_acc`: the accumulator operand it reuses in place, and
   hence its result), otherwise every N-fractal above the first is read back scrambled
   (issues #2470, #2510);
2. compact is an L0 notion: no tile outside Left / Right / Acc may carry it;
3. a re-view (set_validshape) keeps its source's reader pitch (`languages.layout.reader_row_pitch`):
   a compact tile's pitch follows its valid rows, so narrowing them across a box while staying
   compact moves every box column past the first onto another one's bytes.
"""

from __future__ import annotations

from typing import cast

import languages.gen.l0_tiled as L
from languages.memory_space import COMPACT_SPACES, MemorySpace
from languages.ops import REGISTRY, type_of
from languages.types import TileType
from languages.layout import box_shape, reader_row_pitch
from nanopass.diagnostics import Diagnostic
from nanopass.node import Node, preorder, summary

RULE = "AccCompactValid"



def verify(program: Node) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    found = summary(program)
    if not any(not isinstance(op, str) or _is_tile_matmul(op) for op in found.field_values("Call", "op")) and \
            not any(_compact_outside_l0(ty) for ty in found.all_values("type")):
        return out  # no matmul and no misplaced compact tile: nothing to report
    empty: set[str] = set()  # created storage, re-validated but not written yet
    for node in preorder(program):
        if node.KIND == "Call":
            out.extend(_check_matmul(cast(L.Call, node)))
        elif node.KIND == "AssignStmt":
            out.extend(_check_compact_space(cast(L.AssignStmt, node)))
            out.extend(_check_view_pitch(cast(L.AssignStmt, node), empty))
    return out


def _is_tile_matmul(op: str) -> bool:
    return op.startswith("tile.") and op in REGISTRY and REGISTRY.get(op).family == "matmul"


def _compact_outside_l0(ty: object) -> bool:
    return isinstance(ty, TileType) and _is_compact(ty) and ty.memory_space not in COMPACT_SPACES


def _is_compact(tile: TileType) -> bool:
    return tile.view is not None and tile.view.compact


def mad_pitch_mismatch(acc: TileType, lhs: TileType) -> tuple[int, int] | None:
    """(mad pitch, physical rows) when they differ for an accumulator fed by `lhs`, else None."""
    if acc.view is None:
        return None
    box = box_shape(acc.view, acc.dtype)
    if box is None:
        return None
    box_rows = box[0]
    pitch = -(-lhs.valid[0] // box_rows) * box_rows
    rows = acc.shape[0]
    return None if pitch == rows else (pitch, rows)


def _check_matmul(call: L.Call) -> list[Diagnostic]:
    if not _is_tile_matmul(call.op):
        return []
    lhs_index = _operand_in(call.op, MemorySpace.Left)
    if lhs_index is None or lhs_index >= len(call.args):
        return []
    lhs = type_of(call.args[lhs_index])
    if not isinstance(lhs, TileType):
        return []
    written: list[tuple[str, TileType]] = []
    acc_index = _operand_in(call.op, MemorySpace.Acc)
    if acc_index is not None and acc_index < len(call.args):
        acc = type_of(call.args[acc_index])
        if isinstance(acc, TileType):
            written.append((f"accumulator operand {_name(call.args[acc_index])}", acc))
    if isinstance(call.type, TileType):
        written.append(("result", call.type))
    out: list[Diagnostic] = []
    for what, acc in written:
        mismatch = mad_pitch_mismatch(acc, lhs)
        if mismatch is None or _is_compact(acc):
            continue
        pitch, rows = mismatch
        out.append(Diagnostic.at(
            call, RULE,
            f"{call.op} {what} {list(acc.shape)} is not compact, but MAD writes it at row pitch "
            f"{pitch} (Left valid rows {lhs.valid[0]}) while readers use its {rows} physical rows",
            hint="declare the accumulator seed compact: tile.create(..., target_memory=Acc, compact=True)"))
    return out


def _check_compact_space(stmt: L.AssignStmt) -> list[Diagnostic]:
    ty = stmt.target.type
    if not (isinstance(ty, TileType) and _is_compact(ty)):
        return []
    if ty.memory_space in COMPACT_SPACES:
        return []
    space = "no memory space" if ty.memory_space is None else ty.memory_space.name
    return [Diagnostic.at(
        stmt, RULE,
        f"tile {stmt.target.name} in {space} is compact; compact mode exists only for Left, Right and Acc",
        hint="drop compact=True (only L0 buffers have a valid-row pitch)")]


def _check_view_pitch(stmt: L.AssignStmt, empty: set[str]) -> list[Diagnostic]:
    """Rule 3, for a set_validshape of a tile that holds a product (not of storage created and
    only re-validated so far, whose valid rows set the pitch MAD will write at)."""
    call = stmt.value
    if not isinstance(call, L.Call) or call.op not in REGISTRY or not call.args:
        return []
    semantics = REGISTRY.get(call.op).semantics[:1]
    source_name = call.args[0].name if isinstance(call.args[0], L.Var) else ""
    if semantics == ("create",) or (semantics == ("set_validshape",) and source_name in empty):
        empty.add(stmt.target.name)
        return []
    if semantics != ("set_validshape",):
        return []
    source, result = type_of(call.args[0]), stmt.target.type
    if not isinstance(source, TileType) or not isinstance(result, TileType):
        return []
    before, after = reader_row_pitch(source), reader_row_pitch(result)
    if before is None or after is None or before == after:
        return []
    return [Diagnostic.at(
        stmt, RULE,
        f"{call.op} re-views {_name(call.args[0])} (read at row pitch {before}) as {stmt.target.name}, read at row "
        f"pitch {after} ({'compact, ' if _is_compact(result) else ''}{result.valid_extents[0]} valid rows of "
        f"{result.shape[0]}): the same bytes under another layout",
        hint="keep the source's pitch: a compact source whose pitch is its physical rows narrows to a tile that "
             "is not compact")]


def _operand_in(op: str, space: MemorySpace) -> int | None:
    for index, decl in enumerate(REGISTRY.get(op).operands):
        if decl.input_memory is space:
            return index
    return None


def _name(node: Node) -> str:
    return cast(L.Var, node).name if node.KIND == "Var" else node.KIND
