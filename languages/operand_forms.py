"""Operand forms: the meaning of the operand-form names used in language declarations.

An operand form is a rule every operator call of a language obeys beyond its op's own typing.
The grammar check applies each form of the program's language to each call; a form returns
what is wrong with a call (message, hint), nothing when the call conforms.

    cube-operands-in-l0   every cube matmul reads each operand from the L0 buffer its op
                          declares (Left / Right, Acc for an accumulator) and writes Acc.
                          TilePlaced lets those operands still sit in Mat (L0 tiling moves
                          them); L0Tiled and later languages do not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from languages.memory_space import MemorySpace
from languages.ops import REGISTRY, type_of
from languages.types import TileType
from nanopass.node import Node

Problem = tuple[str, str]  # (message, hint)


@dataclass(frozen=True)
class OperandForm:
    """A rule over calls: `applies(op)` selects the ops it constrains, `check(op, args, result)`
    lists what is wrong with one of their calls."""

    applies: Callable[[str], bool]
    check: Callable[[str, Sequence[Node], object], list[Problem]]

_L0_SPACES = (MemorySpace.Left, MemorySpace.Right, MemorySpace.Acc)


def _name(node: Node) -> str:
    name = getattr(node, "name", None)
    return name if isinstance(name, str) else node.KIND


def _space(space: MemorySpace | None) -> str:
    return "no memory space" if space is None else space.name


def _cube_operands_in_l0(op: str, args: Sequence[Node], result: object) -> list[Problem]:
    problems: list[Problem] = []
    for index, arg in enumerate(args):
        demanded = REGISTRY.operand_space(op, index)
        if demanded not in _L0_SPACES:
            continue
        assert demanded is not None
        ty = type_of(arg)
        space = ty.memory_space if isinstance(ty, TileType) else None
        if space is not demanded:
            problems.append((f"{op} operand {index} ({_name(arg)}) is in {_space(space)}, "
                             f"but the cube reads it from {demanded.name}",
                             f"AutoTileMatmulL0 hops it with tile.extract / tile.move into {demanded.name}"))
    if not (isinstance(result, TileType) and result.memory_space is MemorySpace.Acc):
        problems.append((f"{op} result is not an Acc tile", "the cube writes its product to L0C (Acc)"))
    return problems


OPERAND_FORMS: dict[str, OperandForm] = {
    "cube-operands-in-l0": OperandForm(REGISTRY.is_cube_matmul, _cube_operands_in_l0),
}


def constrains(forms: frozenset[str], op: str) -> bool:
    """Whether any of `forms` has something to say about calls of `op`."""
    return any(OPERAND_FORMS[name].applies(op) for name in forms)


def operand_problems(forms: frozenset[str], op: str, args: Sequence[Node], result: object) -> list[Problem]:
    """What `forms` find wrong with one call of `op` on `args` giving `result`."""
    return [problem for name in sorted(forms) if OPERAND_FORMS[name].applies(op)
            for problem in OPERAND_FORMS[name].check(op, args, result)]
