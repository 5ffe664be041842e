"""L0TiledFit: every cube matmul reads its operands from the L0 buffers and writes Acc, and every
Left / Right / Acc tile fits its L0 buffer (L0A / L0B / L0C) on the target.

The operand spaces come from the op registry (each matmul operand's `input_memory`, the result's
output space), never from this file. Capacities are backend numbers, and verifiers sit below
`backend/` in the layering, so they arrive as any object with the `L0Capacities` shape (a
`backend.targets.handlers.BackendHandler` is one): either explicitly (`verify_fit`) or, for the
property's `verify(program, target)` entry point, as the compilation target the framework hands to
target-aware verifiers. Without capacities only the placement half is checked.
"""

from __future__ import annotations

from typing import Protocol, cast

import languages.gen.l0_tiled as L
from languages.layout import buffer_name, l0_footprint_bytes
from languages.memory_space import MemorySpace
from languages.ops import REGISTRY, type_of
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
    diagnostics = verify_placement(program)
    if target is not None:
        diagnostics.extend(verify_fit(program, cast(L0Capacities, target)))
    return diagnostics


def verify_placement(program: Node) -> list[Diagnostic]:
    """Every cube matmul reads Left / Right (and Acc for an accumulator) and writes Acc."""
    out: list[Diagnostic] = []
    ops = summary(program).field_values("Call", "op")
    if not any(not isinstance(op, str) or REGISTRY.is_cube_matmul(op) for op in ops):
        return out  # no cube matmul to check
    for node in preorder(program):
        if node.KIND != "Call":
            continue
        call = cast(L.Call, node)
        if not REGISTRY.is_cube_matmul(call.op):
            continue
        for index, arg in enumerate(call.args):
            demanded = REGISTRY.operand_space(call.op, index)
            if demanded not in L0_SPACES:
                continue
            ty = type_of(arg)
            space = ty.memory_space if isinstance(ty, TileType) else None
            if space is not demanded:
                assert demanded is not None
                out.append(Diagnostic.at(
                    call, RULE,
                    f"{call.op} operand {index} ({_name(arg)}) is in {_space(space)}, "
                    f"but the cube reads it from {demanded.name}",
                    hint=f"AutoTileMatmulL0 hops it with tile.extract / tile.move into {demanded.name}"))
        result = call.type
        if not (isinstance(result, TileType) and result.memory_space is MemorySpace.Acc):
            out.append(Diagnostic.at(call, RULE, f"{call.op} result is not an Acc tile",
                                     hint="the cube writes its product to L0C (Acc)"))
    return out


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


def _name(node: Node) -> str:
    return cast(L.Var, node).name if node.KIND == "Var" else node.KIND


def _space(space: MemorySpace | None) -> str:
    return "no memory space" if space is None else space.name
