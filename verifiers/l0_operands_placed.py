"""L0TiledFit: every Left / Right / Acc tile fits its L0 buffer (L0A / L0B / L0C) on the target.

That every cube matmul reads the L0 buffers and writes Acc is a grammar fact of L0Tiled (its
operand form `cube-operands-in-l0`); how large the buffers are depends on the target, so this
part is a verifier. Capacities are backend numbers, and verifiers sit below `backend/` in the
layering, so they arrive as any object with the `L0Capacities` shape (a
`backend.targets.handlers.BackendHandler` is one): either explicitly (`verify_fit`) or, for the
property's `verify(program, target)` entry point, as the compilation target the framework hands
to target-aware verifiers. Without a target it checks nothing.
"""

from __future__ import annotations

from typing import Protocol, cast

import languages.gen.l0_tiled as L
from languages.layout import buffer_name, l0_footprint_bytes
from languages.memory_space import MemorySpace
from languages.types import TileType
from nanopass.diagnostics import Diagnostic
from nanopass.node import Node, preorder, summary

RULE = "L0TiledFit"

L0_SPACES = (MemorySpace.Left, MemorySpace.Right, MemorySpace.Acc)


class L0Capacities(Protocol):
    """What the fit check needs from a backend handler."""

    def capacity(self, space: MemorySpace) -> int: ...

    def l0c_m_alignment(self, acc_dtype: str) -> int: ...


def verify(program: Node, target: object = None) -> list[Diagnostic]:
    if target is None:
        return []
    return verify_fit(program, cast(L0Capacities, target))


def verify_fit(program: Node, capacities: L0Capacities) -> list[Diagnostic]:
    """Every tile defined in Left / Right / Acc fits its L0 buffer on its own."""
    out: list[Diagnostic] = []
    # A definition's type is some node's `type`: when none of those overflows, no definition does.
    if not any(isinstance(ty, TileType) and ty.memory_space in L0_SPACES
               and l0_footprint_bytes(ty, capacities) > capacities.capacity(ty.memory_space)
               for ty in summary(program).all_values("type")):
        return out
    for node in preorder(program):
        if node.KIND != "AssignStmt":
            continue
        target = cast(L.AssignStmt, node).target
        ty = target.type
        if not (isinstance(ty, TileType) and ty.memory_space in L0_SPACES):
            continue
        need = l0_footprint_bytes(ty, capacities)
        have = capacities.capacity(ty.memory_space)
        if need > have:
            out.append(Diagnostic.at(
                node, RULE,
                f"{ty.memory_space.name} tile {target.name} {list(ty.shape)} {ty.dtype.name} needs "
                f"{need} bytes but {buffer_name(ty.memory_space)} holds {have}",
                hint="keep the operand in Mat and let AutoTileMatmulL0 choose L0 tiles, "
                     "or extract a smaller L0 tile"))
    return out
