"""MovesOnDataPaths: every tile.move follows a data path of the target, or crosses between the
cores through a FIFO.

A `tile.move` from one placed space to another lowers to pto.tmov (or, between the cube and the
vector core, to a tpush / tpop pair: `languages.ops.tile_ops.CROSS_CORE_TRANSFERS`). pto.tmov
exists only along the target's data-move engines (`BackendHandler.can_move`, TARGET_FACTS.md
"allowed data moves"); off them pto-isa's TMOV has no branch for the pair and compiles to
nothing (Ascend950's TMOV_IMPL: a Vec source reaches Vec and Mat only), so the destination keeps
whatever it held while the simulator, which copies, agrees bit for bit with the interpreter.
A user's Vec -> Left move is staged through Mat by InferTileMemorySpace; this states the fact
for every pass after it.

Without a target nothing is checked.
"""

from __future__ import annotations

from typing import cast

from languages.memory_space import MemorySpace
from languages.ops.tile_ops import CROSS_CORE_TRANSFERS
from languages.types import TileType
from nanopass.diagnostics import Diagnostic
from nanopass.node import Node, preorder

RULE = "MovesOnDataPaths"


def verify(program: Node, target: object = None) -> list[Diagnostic]:
    can_move = getattr(target, "can_move", None)
    if not callable(can_move):
        return []
    out: list[Diagnostic] = []
    for node in preorder(program):
        if node.KIND != "Call" or getattr(node, "op") != "tile.move" or not getattr(node, "args"):
            continue
        source, result = getattr(getattr(node, "args")[0], "type", None), getattr(node, "type", None)
        if not isinstance(source, TileType) or not isinstance(result, TileType):
            continue
        here, there = source.memory_space, result.memory_space
        if here is None or there is None or here is there or (here, there) in CROSS_CORE_TRANSFERS:
            continue
        if cast(bool, can_move(here, there)):
            continue
        out.append(Diagnostic.at(
            node, RULE,
            f"tile.move from {here.name} to {there.name}: {getattr(target, 'name', 'the target')} has no "
            f"{here.name} → {there.name} data path (pto.tmov would copy nothing)",
            hint="stage the tile through a space both ends reach (a Vec tile bound for L0 goes through Mat)"
            if here is MemorySpace.Vec else "move it along the target's data paths (TARGET_FACTS.md)"))
    return out
