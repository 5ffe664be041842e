"""TileMemoryPlaced: every tile has a memory space and a view, and every operand sits where its
operator reads it from (the op registry's `input_memory` / accepted spaces).

The one exception is the TilePlaced contract (ARCHITECTURE.md §2): placement runs before L0
tiling, so a matmul-family operand constrained to Left / Right may still sit in Mat — the
Mat → L0 hop is AutoTileMatmulL0's job (whose own verifier checks the L0 side afterwards) — or
in Vec (a PV / score·V operand computed by the vector core): AutoTileMatmulL0 stages it to Mat
with one tile.move before tiling, which mixed-kernel expansion turns into the cross-core pipe.
"""

from __future__ import annotations

from typing import Iterator

from languages.memory_space import MemorySpace
from languages.ops import REGISTRY, OpDef
from languages.types import TileType, TupleType, Type
from nanopass.diagnostics import Diagnostic
from nanopass.node import Node, preorder, summary

RULE = "TileMemoryPlaced"
_L0_OPERAND_SPACES = frozenset({MemorySpace.Left, MemorySpace.Right})
# Where a Left / Right operand may wait for AutoTileMatmulL0 (which moves it on into L0).
_BEFORE_L0_SPACES = frozenset({MemorySpace.Mat, MemorySpace.Vec})


def _tiles(ty: object) -> Iterator[TileType]:
    if isinstance(ty, TileType):
        yield ty
    elif isinstance(ty, TupleType):
        for item in ty.types:
            yield from _tiles(item)


def _waits_for_l0_tiling(opdef: OpDef, constraint: MemorySpace | None, actual: MemorySpace) -> bool:
    return opdef.family == "matmul" and constraint in _L0_OPERAND_SPACES and actual in _BEFORE_L0_SPACES


def _check_types(node: Node) -> list[Diagnostic]:
    ty: Type | None = getattr(node, "type", None)
    out: list[Diagnostic] = []
    for tile in _tiles(ty):
        if tile.memory_space is None or tile.view is None:
            what = f"`{getattr(node, 'name')}`" if node.KIND == "Var" else f"the result of {getattr(node, 'op')}"
            out.append(Diagnostic.at(node, RULE, f"{what} is a tile without a memory space or view",
                                     hint="run infer-tile-memory-space before this point"))
    return out


def _check_operands(call: Node) -> list[Diagnostic]:
    op = str(getattr(call, "op"))
    if op not in REGISTRY:
        return []
    opdef = REGISTRY.get(op)
    out: list[Diagnostic] = []
    for index, arg in enumerate(getattr(call, "args")):
        ty = getattr(arg, "type", None)
        if not isinstance(ty, TileType) or ty.memory_space is None:
            continue
        try:
            decl = opdef.operand_decl(index)
        except IndexError:
            continue
        legal = decl.legal_spaces
        if not legal or ty.memory_space in legal or _waits_for_l0_tiling(opdef, decl.input_memory, ty.memory_space):
            continue
        name = f"`{getattr(arg, 'name')}`" if arg.KIND == "Var" else "the value"
        out.append(Diagnostic.at(
            call, RULE,
            f"{op} reads operand `{decl.name}` from {' or '.join(s.name for s in legal)}, but {name} is in "
            f"{ty.memory_space.name}",
            hint=f"insert pl.tile.move({getattr(arg, 'name', 'x')}, target_memory=pl.Mem.{legal[0].name}) "
                 f"before the call (infer-tile-memory-space does this)"))
    return out


# Per operator: for each operand position, the spaces it may be read from (None: any) and
# whether Mat is tolerated until L0 tiling; then the rule of a variadic tail (or None).
_OperandRule = tuple[tuple[MemorySpace, ...], bool] | None
_RULES: dict[str, tuple[tuple[_OperandRule, ...], _OperandRule]] = {}


def _operand_rule(opdef: OpDef, index: int) -> _OperandRule:
    try:
        decl = opdef.operand_decl(index)
    except IndexError:
        return None
    legal = decl.legal_spaces
    if not legal:
        return None
    return legal, _waits_for_l0_tiling(opdef, decl.input_memory, MemorySpace.Mat)


def _rules(op: str) -> tuple[tuple[_OperandRule, ...], _OperandRule] | None:
    rules = _RULES.get(op)
    if rules is None and op in REGISTRY:  # operators are only ever added, so a rule never goes stale
        opdef = REGISTRY.get(op)
        tail = _operand_rule(opdef, len(opdef.operands)) if opdef.max_arity is None else None
        rules = _RULES[op] = (tuple(_operand_rule(opdef, i) for i in range(len(opdef.operands))), tail)
    return rules


def _operands_in_place(call: Node) -> bool:
    """`not _check_operands(call)`, from the per-operator table (no diagnostics built)."""
    rules = _rules(str(getattr(call, "op")))
    if rules is None:
        return True
    positions, tail = rules
    for index, arg in enumerate(getattr(call, "args")):
        ty = getattr(arg, "type", None)
        if not isinstance(ty, TileType) or ty.memory_space is None:
            continue
        rule = positions[index] if index < len(positions) else tail
        if rule is None:
            continue
        legal, waits_tolerated = rule
        if ty.memory_space in legal or (waits_tolerated and ty.memory_space in _BEFORE_L0_SPACES):
            continue
        return False
    return True


def _placed(ty: object) -> bool:
    return all(tile.memory_space is not None and tile.view is not None for tile in _tiles(ty))


def verify(program: Node) -> list[Diagnostic]:
    diagnostics: list[Diagnostic] = []
    found = summary(program)
    if all(_placed(ty) for kind in ("Var", "Call") for ty in found.field_values(kind, "type")):
        # Every type placed: only the operand spaces remain to check, call by call.
        for node in preorder(program):
            if node.KIND == "Call" and not _operands_in_place(node):
                diagnostics.extend(_check_operands(node))
        return diagnostics
    # Whether a type is placed, by type object: a variable's type object recurs at every use.
    placed: dict[int, bool] = {}
    for node in preorder(program):
        kind = node.KIND
        if kind == "Var" or kind == "Call":
            ty = getattr(node, "type", None)
            verdict = placed.get(id(ty))
            if verdict is None:
                verdict = placed[id(ty)] = _placed(ty)
            if not verdict:
                diagnostics.extend(_check_types(node))
            if kind == "Call" and not _operands_in_place(node):
                diagnostics.extend(_check_operands(node))
    return diagnostics
