"""BarriersOnEveryCore: the kernels a Group launches take the same all-core barriers, in order.

A syncall counts the cores of the kinds its `core_type` names (SYNCALL_PARTICIPANTS: a `mix`
barrier waits for the cube and the vector cores) and releases none until all of them arrive. The
AIC and AIV kernels of one Group run the two halves of one mixed kernel, so a barrier counting
both kinds must be reached by both, as many times and in the same order as each other: a barrier
one kernel takes and the other does not never releases (a hang on the chip; the simulator, which
holds a core at a mix barrier until the other arrives, reports it as a cross-core deadlock).
"""

from __future__ import annotations

from languages.ops.system_ops import syncall_participants
from nanopass.diagnostics import Diagnostic
from nanopass.node import Node, walk

RULE = "BarriersOnEveryCore"
_SYNCALL = "system.syncall"


def _shared_barriers(function: Node) -> list[Node]:
    """`function`'s syncalls that wait for more than one kind of core, in program order."""
    return [node for node in walk(function) if node.KIND == "Call" and getattr(node, "op") == _SYNCALL
            and len(syncall_participants(getattr(node, "attrs"))) > 1]


def _signature(call: Node) -> tuple[object, ...]:
    return tuple(sorted(dict(getattr(call, "attrs")).items(), key=lambda item: item[0]))


def _check_group(group: Node, kernels: dict[str, Node]) -> list[Diagnostic]:
    launched = [kernels[str(getattr(n, "callee"))] for n in walk(group)
                if n.KIND == "FuncCall" and str(getattr(n, "callee")) in kernels]
    if len(launched) < 2:
        return []
    first, *others = launched
    expected = [_signature(c) for c in _shared_barriers(first)]
    for other in others:
        barriers = _shared_barriers(other)
        if [_signature(c) for c in barriers] != expected:
            where = barriers[0] if barriers else other
            return [Diagnostic.at(
                where, RULE,
                f"kernels `{getattr(first, 'name')}` and `{getattr(other, 'name')}` of Group `{getattr(group, 'name')}` "
                f"take different all-core barriers ({len(expected)} and {len(barriers)} syncall(s) counting both the "
                "cube and the vector cores): a barrier one of them never reaches never releases the other",
                hint="take a core_type=\"mix\" syncall outside any branch only one core runs")]
    return []


def verify(program: Node) -> list[Diagnostic]:
    functions = list(getattr(program, "functions"))
    kernels = {str(getattr(f, "name")): f for f in functions if str(getattr(f, "func_type")) in ("AIC", "AIV")}
    diagnostics: list[Diagnostic] = []
    for function in functions:
        if str(getattr(function, "func_type")) == "Group":
            diagnostics.extend(_check_group(function, kernels))
    return diagnostics
