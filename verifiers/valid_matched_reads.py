"""ValidMatchedReads: an element-wise instruction PTOAS wants valid over one region reads each
tile operand over that operand's own valid region.

PTOAS refuses an element-wise binary instruction whose sources and dst are valid over different
regions (`'pto.tsub' op expects src0 and src1 to have the same valid_shape`: the instructions of
`languages.layout.VALID_SHAPE_MATCHED_INSTRUCTIONS`), while such an op reads a same-shape operand
over its result's valid region (`languages.ops.data_extents.read_extent`), also where that
operand is valid over less. So from RevalidateReadOperands on, every Vec tile operand of a tile
op lowering to one of those instructions is valid over exactly the region the op reads of it.
TargetOpRules' SameValidShape checks the same fact on the PTO program; this property checks it
where the tile program is still the pass's output, so the pass that left an operand narrower
(finding 66a183e452: a tile.reshape view whose own valid_shape argument kept it [1, 1]) is the
one blamed, not PTOCodegen.

An operand with a runtime valid extent, or a region read outside its shape (a broadcast the
deduction judges), is not judged here.
"""

from __future__ import annotations

from languages.functions import straight_line_statements
from languages.layout import VALID_SHAPE_MATCHED_INSTRUCTIONS
from languages.memory_space import MemorySpace
from languages.ops import REGISTRY
from languages.ops.data_extents import read_extent
from languages.types import TileType, is_symbolic
from nanopass.diagnostics import Diagnostic
from nanopass.node import Node

RULE = "ValidMatchedReads"


def _check(call: Node, result: object, out: list[Diagnostic]) -> None:
    op = str(getattr(call, "op"))
    if op not in REGISTRY:
        return
    opdef = REGISTRY.get(op)
    matched = [i for i in opdef.pto if i in VALID_SHAPE_MATCHED_INSTRUCTIONS]
    if not matched or not isinstance(result, TileType) or is_symbolic(result.valid_shape):
        return
    for index, arg in enumerate(getattr(call, "args")):
        tile = getattr(arg, "type", None)
        if not (isinstance(tile, TileType) and tile.memory_space is MemorySpace.Vec and len(tile.shape) == 2
                and not is_symbolic(tile.valid_shape)):
            continue
        read = read_extent(opdef, index, tile, result, getattr(call, "attrs"))
        if read is None or len(read) != 2 or not all(isinstance(e, int) for e in read):
            continue
        region = tuple(int(e) for e in read if e is not None)
        if any(r > s for r, s in zip(region, tile.shape)) or region == tuple(tile.valid):
            continue
        name = getattr(arg, "name", f"#{index}")
        out.append(Diagnostic.at(
            call, RULE,
            f"`{op}` reads its operand `{name}` over {list(region)}, but the operand is valid over "
            f"{list(tile.valid_extents)}; PTOAS's {matched[0].removeprefix('pto.')} wants its sources and dst valid "
            "over one region",
            "RevalidateReadOperands re-validates such an operand over the region read (set_validshape of a handle, "
            "a view taken again)"))


def verify(program: Node) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for function in getattr(program, "functions"):
        for stmt in straight_line_statements(getattr(function, "body")):
            if stmt.KIND != "AssignStmt":
                continue
            value = getattr(stmt, "value")
            if value.KIND == "Call":
                _check(value, getattr(getattr(stmt, "target"), "type", None), out)
    return out
