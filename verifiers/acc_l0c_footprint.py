"""AccL0CFootprint: every Acc buffer covers its accumulator's L0C row footprint.

L0C is addressed in whole accumulator row groups: an accumulator of R rows occupies
⌈R / a⌉·a rows, `a` being the target's L0C M alignment for the accumulator dtype (32 rows for an
INT32 accumulator on Ascend910B, 16 otherwise). MAD and FIXPIPE touch that whole footprint, so an
Acc MemRef sized at the tile's logical rows lets the next buffer start inside the row padding of
this one. HasMemRefs checks only the logical size (Rows·Cols·bytes); this is the L0C rule (the
footprint fact of `languages.layout`), with the alignment read from the target (so it needs one:
without a target it checks nothing).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from languages.layout import l0_footprint_bytes
from languages.memory_space import MemorySpace
from languages.types import TileType
from nanopass.diagnostics import Diagnostic
from nanopass.node import Node, preorder

RULE = "AccL0CFootprint"


@runtime_checkable
class L0CRows(Protocol):
    def l0c_m_alignment(self, acc_dtype: str) -> int: ...


def verify(program: Node, target: object = None) -> list[Diagnostic]:
    if not isinstance(target, L0CRows):
        return []
    out: list[Diagnostic] = []
    reported: set[str] = set()
    for node in preorder(program):
        ty = getattr(node, "type", None) if node.KIND in ("Var", "Call") else None
        if not isinstance(ty, TileType) or ty.memory_space is not MemorySpace.Acc or ty.memref is None:
            continue
        alignment = target.l0c_m_alignment(ty.dtype.name)
        needed = l0_footprint_bytes(ty, target)
        if ty.memref.size >= needed or ty.memref.name in reported:
            continue
        reported.add(ty.memref.name)
        out.append(Diagnostic.at(
            node, RULE,
            f"Acc buffer {ty.memref.name} has {ty.memref.size} bytes, but a {list(ty.shape)} {ty.dtype.pl_name} "
            f"accumulator occupies {needed} bytes of L0C (rows rounded up to {alignment})",
            hint="size Acc buffers at the L0C row footprint (languages.layout.l0_footprint_bytes)"))
    return out
