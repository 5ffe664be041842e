"""SlotReadsBeforeFree: no popped tile, nor any view of one, is read after its slot is released.

A tile popped from a cross-core pipe (`tile.tpop_from_aic` / `tile.tpop_from_aiv`) is a handle
of a slot in the consumer's reserved region, and `system.tfree_to_aic` / `system.tfree_to_aiv`
hands that slot back to the producer, whose next push overwrites it. A zero-copy view of the
popped tile (a slice window, a reshape, a reinterpret: the registry's `is_view` ops, which read
their first operand's bytes) reads the same slot. So a read of the popped tile or of any view of
it after the free reads bytes the producer may already have replaced; the simulator, which
keeps the slot's bytes until the next pop, cannot see it.

The check follows each block in program order: the values that read a popped tile's slot are
the tile, plain copies of it, views of any of them, and the results of a loop or branch that
yields one of them; after the free of the tile, a statement that mentions one of them is
reported.
"""

from __future__ import annotations

from typing import Sequence

from languages.ops import REGISTRY
from nanopass.diagnostics import Diagnostic
from nanopass.node import Node, walk

RULE = "SlotReadsBeforeFree"
_POPS = frozenset({"tile.tpop_from_aic", "tile.tpop_from_aiv"})
_FREES = frozenset({"system.tfree_to_aic", "system.tfree_to_aiv"})


def _names(node: Node) -> set[str]:
    return {str(getattr(n, "name")) for n in walk(node) if n.KIND == "Var"}


def _regions(stmt: Node) -> list[Sequence[Node]]:
    if stmt.KIND == "ForStmt":
        return [getattr(stmt, "body")]
    if stmt.KIND == "IfStmt":
        return [getattr(stmt, "then_body"), getattr(stmt, "else_body")]
    if stmt.KIND == "WhileStmt":
        return [getattr(stmt, "body")]
    return []


def _slot_of(value: Node, slots: dict[str, str]) -> str | None:
    """The popped tile whose slot `value` reads (as a copy or a view), if any."""
    if value.KIND == "Var":
        return slots.get(str(getattr(value, "name")))
    if value.KIND == "Call" and REGISTRY.is_view(str(getattr(value, "op"))):
        args = getattr(value, "args")
        if args and args[0].KIND == "Var":
            return slots.get(str(getattr(args[0], "name")))
    return None


def _check_block(body: Sequence[Node], slots: dict[str, str], freed: dict[str, Node],
                 out: list[Diagnostic]) -> None:
    """`slots`: value name -> the popped tile whose slot it reads; `freed`: popped tile -> its free."""
    for stmt in body:
        free = getattr(stmt, "value", None) if stmt.KIND == "EvalStmt" else None
        if free is not None and free.KIND == "Call" and str(getattr(free, "op")) in _FREES:
            args = getattr(free, "args")
            popped = slots.get(str(getattr(args[0], "name"))) if args and args[0].KIND == "Var" else None
            if popped is not None:
                freed.setdefault(popped, stmt)
            continue
        for name in sorted(_names(stmt)):
            popped = slots.get(name)
            if popped is not None and popped in freed:
                out.append(Diagnostic.at(
                    stmt, RULE,
                    f"`{name}` reads the pipe slot of the popped tile `{popped}` after a tfree released that slot; "
                    "the producer's next push may overwrite it",
                    hint="expand-mixed-kernel releases a popped slot after the last read of the tile and of "
                         "every view of it"))
                break
        if stmt.KIND == "AssignStmt":
            target, value = getattr(stmt, "target"), getattr(stmt, "value")
            name = str(getattr(target, "name"))
            if value.KIND == "Call" and str(getattr(value, "op")) in _POPS:
                slots[name] = name
                freed.pop(name, None)
            else:
                popped = _slot_of(value, slots)
                if popped is not None:
                    slots[name] = popped
        for region in _regions(stmt):
            _check_block(region, slots, freed, out)
            yielded = set().union(*(_names(s) for s in region if s.KIND == "YieldStmt"))
            carried = {slots[n] for n in yielded if n in slots}
            if carried:
                for result in getattr(stmt, "results", ()):
                    slots[str(getattr(result, "name"))] = next(iter(sorted(carried)))


def verify(program: Node) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for function in getattr(program, "functions"):
        _check_block(getattr(function, "body"), {}, {}, out)
    return out
