"""Operand forms: the meaning of the operand-form names used in language declarations.

An operand form is a rule every operator call of a language obeys beyond its op's own typing.
The grammar check applies each form of the program's language to each call; a form returns
what is wrong with a call (message, hint), nothing when the call conforms.

    cube-operands-in-l0   every cube matmul reads each operand from the L0 buffer its op
                          declares (Left / Right, Acc for an accumulator) and writes Acc.
                          TilePlaced lets those operands still sit in Mat (L0 tiling moves
                          them); L0Tiled and later languages do not.
    completed-calls       every call is complete as written: no op a lowering pass expands
                          and no call missing operands that pass adds (the registry's
                          `OpDef.completed_by`: tile.scatter_mask, a soft syncall's on-chip
                          workspaces). TileUnplaced and later languages, which such a pass
                          (ConvertTensorToTileOps) produces, so a program entering there has
                          skipped it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from languages.memory_space import MemorySpace
from languages.ops import REGISTRY, type_of
from languages.types import Attrs, TileType
from nanopass.node import Node

Problem = tuple[str, str]  # (message, hint)


@dataclass(frozen=True)
class OperandForm:
    """A rule over calls: `applies(op)` selects the ops it constrains, `check(op, args, result)`
    lists what is wrong with one of their calls."""

    applies: Callable[[str], bool]
    check: Callable[[str, Sequence[Node], object, Attrs], list[Problem]]

_L0_SPACES = (MemorySpace.Left, MemorySpace.Right, MemorySpace.Acc)


def _name(node: Node) -> str:
    name = getattr(node, "name", None)
    return name if isinstance(name, str) else node.KIND


def _space(space: MemorySpace | None) -> str:
    return "no memory space" if space is None else space.name


def _cube_operands_in_l0(op: str, args: Sequence[Node], result: object, attrs: Attrs) -> list[Problem]:
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


def _completed_by_a_pass(op: str) -> bool:
    return op in REGISTRY and REGISTRY.get(op).completed_by is not None


def _completed_calls(op: str, args: Sequence[Node], result: object, attrs: Attrs) -> list[Problem]:
    opdef = REGISTRY.get(op)
    completion = opdef.completed_by
    assert completion is not None
    gap = completion.gap(args, opdef.with_defaults(attrs))
    if not gap:
        return []
    return [(f"not supported yet: `{op}` in a program written at {completion.after} or later: {gap}, and "
             f"{completion.pass_name} (which completes it) runs before that language", completion.fix)]


OPERAND_FORMS: dict[str, OperandForm] = {
    "cube-operands-in-l0": OperandForm(REGISTRY.is_cube_matmul, _cube_operands_in_l0),
    "completed-calls": OperandForm(_completed_by_a_pass, _completed_calls),
}


def constrains(forms: frozenset[str], op: str) -> bool:
    """Whether any of `forms` has something to say about calls of `op`."""
    return any(OPERAND_FORMS[name].applies(op) for name in forms)


def operand_problems(forms: frozenset[str], op: str, args: Sequence[Node], result: object,
                     attrs: Attrs = ()) -> list[Problem]:
    """What `forms` find wrong with one call of `op` on `args` (and `attrs`) giving `result`."""
    return [problem for name in sorted(forms) if OPERAND_FORMS[name].applies(op)
            for problem in OPERAND_FORMS[name].check(op, args, result, attrs)]
