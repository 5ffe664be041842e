"""Matmul products that reach vector code only to be cut into windows and stored.

A `tile.slice` of a matmul result is taken on Vec (InferTileMemorySpace moves the Acc tile there
first), so the whole product is moved to Vec although only its windows are read. When every
use of such a move is a `tile.slice` and every use of each slice a `tile.store`, the whole Vec
tile is not needed: AutoTileMatmulL0's output grid moves each sub-tile to Vec and stores the
parts of the windows it holds (passes/auto_tile_matmul_l0.py). InferTileMemorySpace therefore
does not refuse such a move for its size alone; AutoTileMatmulL0 refuses it, at the same line
with the same numbers, where it does not serve it per tile.
"""

from __future__ import annotations

from collections import Counter

from backend.targets.handlers import BackendHandler
from languages.layout import l0_footprint_bytes
from languages.memory_space import MemorySpace
from languages.types import TileType
from nanopass.diagnostics import Diagnostic
from nanopass.node import Node, walk


def _is_call(node: Node, op: str) -> bool:
    value = getattr(node, "value", None)
    return node.KIND == "AssignStmt" and value is not None and value.KIND == "Call" and getattr(value, "op") == op


def _first_arg(stmt: Node) -> str | None:
    args = getattr(getattr(stmt, "value"), "args")
    return str(getattr(args[0], "name")) if args and args[0].KIND == "Var" else None


def sliced_for_stores(function: Node) -> frozenset[str]:
    """The names of the Vec `tile.move`s of Acc tiles in `function` whose every use is a
    tile.slice of it, each of which is used only by tile.stores of it."""
    occurrences = Counter(str(getattr(n, "name")) for n in walk(function) if n.KIND == "Var")
    slices: dict[str, list[str]] = {}
    stores: Counter[str] = Counter()
    moves: list[str] = []
    for node in walk(function):
        if node.KIND != "AssignStmt":
            continue
        source = _first_arg(node) if getattr(node, "value").KIND == "Call" else None
        if source is None:
            continue
        if _is_call(node, "tile.slice"):
            slices.setdefault(source, []).append(str(getattr(getattr(node, "target"), "name")))
        elif _is_call(node, "tile.store"):
            stores[source] += 1
        elif _is_call(node, "tile.move"):
            moved, operand = getattr(node, "target").type, getattr(getattr(node, "value"), "args")[0].type
            if isinstance(moved, TileType) and moved.memory_space is MemorySpace.Vec \
                    and isinstance(operand, TileType) and operand.memory_space is MemorySpace.Acc:
                moves.append(str(getattr(getattr(node, "target"), "name")))

    def uses(name: str) -> int:
        return occurrences[name] - 1  # less its definition

    return frozenset(
        move for move in moves
        if slices.get(move) and len(slices[move]) == uses(move)
        and all(stores[window] == uses(window) > 0 for window in slices[move]))


def tile_over_capacity(stmt: Node, function: str, backend: BackendHandler, rule: str) -> Diagnostic | None:
    """The error for an assignment whose tile alone is larger than all of its memory space."""
    tile = getattr(stmt, "target").type
    if not isinstance(tile, TileType) or tile.memory_space is None:
        return None
    space = tile.memory_space
    need = l0_footprint_bytes(tile, backend)
    have = backend.capacity(space)
    if need <= have:
        return None
    message = (f"{space.name} usage of kernel `{function}`: the tile `{getattr(stmt, 'target').name}` alone is "
               f"{list(tile.shape)} {tile.dtype.name}, {need} bytes, over the {backend.name} {space.name} "
               f"capacity of {have} bytes")
    hint = (f"use smaller tiles: loop over blocks of the tensor, loading a slice per iteration, so "
            f"each tile holds at most {have} bytes of {space.name}")
    if _is_call(stmt, "tile.move") and space is MemorySpace.Vec:
        source = getattr(getattr(stmt, "value"), "args")[0].type
        if isinstance(source, TileType) and source.memory_space is MemorySpace.Acc:
            message += ("; it is a matmul result moved to Vec whole for a vector op (an out_dtype conversion "
                        "through a view included): not supported yet for a result that large (its stores, "
                        "set_validshape views and stored windows are served per output tile, a vector op "
                        "reading all of it is not)")
            hint = ("compute the product in blocks in the kernel (a loop over M or N blocks that slices the "
                    f"operands), so that each block's vector work holds at most {have} bytes of Vec")
    return Diagnostic.at(stmt, rule, message, hint=hint)
