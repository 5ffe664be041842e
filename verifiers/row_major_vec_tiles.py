"""RowMajorVecTiles: the vector instructions read and write row-major Vec tiles of one shape.

The element-wise, scalar, unary, cast, row-broadcast and row-reduction instructions compute on
row-major Vec tiles (PTO_DIALECT.md row 6; PTOAS refuses the element-wise binary ones otherwise,
`expects src0, src1, and dst to use row-major layout`): the operands each op family reads and
writes so are `languages.layout.row_major_vec_tiles`.
LegalizeVecLayouts establishes it: it runs an op over a column-major [N, 1] column on the
column's [1, N] row view, and every other [N, 1] tile of that op with it -- another column on its
row view, a row-major [N, 1] one (a window of a 2-D tile, whose elements sit a source row apart)
gathered into a row -- so an element-wise op's tiles (`ONE_SHAPE_FAMILIES`) keep one shape: the
result's. A [2, 1] window of a 2-D tile left beside the [1, 2] row of a fresh column was such an
op's TypeDeduction error at the user's line (finding 3d96c19acc); its sibling, a column-major
result of row-major [N, 1] windows, was an instruction PTOAS refuses.

LegalizeVecDtypes keeps it: its BF16 widening and narrowing chains (tcvt, tshls / tshrs) run on
an [N, 1] column's [1, N] row view (a column window's row window), where they first ran on the
column as it stood (agent-k's finding 3a911717c9, which this verifier caught).
"""

from __future__ import annotations

from languages.functions import straight_line_statements
from languages.layout import ONE_SHAPE_FAMILIES, RESULT, is_row_major, row_major_vec_tiles
from languages.memory_space import MemorySpace
from languages.ops import REGISTRY, Effect
from languages.types import TileType
from nanopass.diagnostics import Diagnostic
from nanopass.node import Node

RULE = "RowMajorVecTiles"


def _tiles(call: Node, target: Node | None) -> list[tuple[str, TileType]]:
    """The Vec tiles `call`'s op computes on row-major, by name (the result as `result`)."""
    opdef = REGISTRY.get(str(getattr(call, "op")))
    required = row_major_vec_tiles(opdef.family, opdef.pto, opdef.operand_names)
    if required is None:
        return []
    args = getattr(call, "args")
    named = [(name, getattr(args[i], "type", None)) for i, name in enumerate(opdef.operand_names)
             if name in required and i < len(args)]
    if RESULT in required and target is not None:
        named.append(("result", getattr(target, "type", None)))
    return [(name, tile) for name, tile in named
            if isinstance(tile, TileType) and tile.memory_space is MemorySpace.Vec and tile.view is not None]


def _check_call(call: Node, target: Node | None, out: list[Diagnostic]) -> None:
    op = str(getattr(call, "op"))
    tiles = _tiles(call, target)
    column_major = [name for name, tile in tiles if tile.view is not None and not is_row_major(tile.view)]
    if column_major:
        out.append(Diagnostic.at(
            call, RULE, f"`{op}` computes on column-major Vec tiles ({', '.join(column_major)}); PTO's vector "
                        "unit takes row-major ones only",
            "LegalizeVecLayouts runs such an op on the [1, N] rows of its [N, 1] tiles"))
    opdef = REGISTRY.get(op)
    if opdef.family not in ONE_SHAPE_FAMILIES or not tiles:
        return
    # A scratch the instruction only writes (prelu's mask-sized tmp) is laid out row-major but is
    # no element of the computation: its shape is its own (the target's scratch rules).
    scratch = {name for i, name in enumerate(opdef.operand_names) if not opdef.effect_of(i) & Effect.READ}
    shape = tuple(tiles[-1][1].shape)
    others = [f"{name} {list(tile.shape)}" for name, tile in tiles if tuple(tile.shape) != shape
              and name not in scratch]
    if others:
        out.append(Diagnostic.at(
            call, RULE, f"element-wise `{op}` computes on tiles of different shapes ({', '.join(others)}; "
                        f"{tiles[-1][0]} {list(shape)})",
            "LegalizeVecLayouts runs every [N, 1] tile of such an op on its [1, N] row, or none"))


def verify(program: Node) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for function in getattr(program, "functions"):
        for stmt in straight_line_statements(getattr(function, "body")):
            if stmt.KIND not in ("AssignStmt", "EvalStmt"):
                continue
            value = getattr(stmt, "value")
            if value.KIND == "Call" and str(getattr(value, "op")) in REGISTRY:
                _check_call(value, getattr(stmt, "target") if stmt.KIND == "AssignStmt" else None, out)
    return out
