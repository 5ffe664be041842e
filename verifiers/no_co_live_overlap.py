"""NoCoLiveOverlap: no two buffers of one space occupy overlapping bytes while both are live.

Liveness is computed here, independently of the planner (passes/analysis/liveness.py), so a
planner bug cannot hide behind a shared analysis. Each variable is live on the closed interval
from its definition to its last read; a read inside a loop of a value defined before that loop
keeps the value live to the loop's end (the body runs again). Variables sharing a MemRef name
are one buffer. Two buffers conflict when their byte ranges overlap and some variable of one is
live at the same point as some variable of the other — except at a statement whose op the
registry declares in-place safe, where the dying operand may hand its bytes to the result.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from languages.ops import REGISTRY, Effect
from languages.types import MemRef, TileType
from nanopass.diagnostics import Diagnostic
from nanopass.node import Node, walk

RULE = "NoCoLiveOverlap"


@dataclass
class _Timeline:
    """Statement numbering of one function with each variable's def and reads."""

    clock: int = 0
    defs: dict[str, int] = field(default_factory=dict)
    reads: dict[str, list[tuple[int, tuple[int, ...]]]] = field(default_factory=dict)  # (point, enclosing loop ids)
    loop_span: dict[int, tuple[int, int]] = field(default_factory=dict)
    stmt: dict[int, Node] = field(default_factory=dict)
    memref: dict[str, MemRef] = field(default_factory=dict)
    site: dict[str, Node] = field(default_factory=dict)

    def tick(self, node: Node) -> int:
        self.clock += 1
        self.stmt[self.clock] = node
        return self.clock

    def define(self, var: Node, at: int) -> None:
        name = str(getattr(var, "name"))
        self.defs.setdefault(name, at)
        self.site.setdefault(name, var)
        ty = getattr(var, "type")
        if isinstance(ty, TileType) and ty.memref is not None:
            self.memref[name] = ty.memref

    def read(self, expr: Node, at: int, loops: tuple[int, ...]) -> None:
        for node in walk(expr):
            if node.KIND == "Var":
                self.reads.setdefault(str(getattr(node, "name")), []).append((at, loops))

    def interval(self, name: str) -> tuple[int, int]:
        born = self.defs[name]
        last = born
        for at, loops in self.reads.get(name, []):
            end = at
            for loop in loops:
                start, stop = self.loop_span[loop]
                if born < start:  # defined before this loop: live on every iteration
                    end = max(end, stop)
                    break
            last = max(last, end)
        return born, last


def _walk_block(line: _Timeline, body: Sequence[Node], loops: tuple[int, ...]) -> None:
    for stmt in body:
        at = line.tick(stmt)
        kind = stmt.KIND
        if kind == "ForStmt":
            for bound in (getattr(stmt, "start"), getattr(stmt, "stop"), getattr(stmt, "step")):
                line.read(bound, at, loops)
            line.define(getattr(stmt, "loop_var"), at)
            for iter_arg in getattr(stmt, "iter_args"):
                line.read(iter_arg.init, at, loops)
                line.define(iter_arg.var, at)
            loop_id = at
            _walk_block(line, getattr(stmt, "body"), loops + (loop_id,))
            end = line.tick(stmt)
            line.loop_span[loop_id] = (at, end)
            for result in getattr(stmt, "results"):
                line.define(result, end)
        elif kind == "IfStmt":
            line.read(getattr(stmt, "cond"), at, loops)
            _walk_block(line, getattr(stmt, "then_body"), loops)
            _walk_block(line, getattr(stmt, "else_body"), loops)
            end = line.tick(stmt)
            for result in getattr(stmt, "results"):
                line.define(result, end)
        elif kind == "AssignStmt":
            line.read(getattr(stmt, "value"), at, loops)
            line.define(getattr(stmt, "target"), at)
        else:
            for child in stmt.children():
                line.read(child, at, loops)


def _handover_allowed(line: _Timeline, point: int, dying: str) -> bool:
    """An in-place-safe op may write its result over an operand it only reads and that dies there."""
    stmt = line.stmt.get(point)
    if stmt is None or stmt.KIND != "AssignStmt":
        return False
    value = getattr(stmt, "value")
    op = str(getattr(value, "op", ""))
    if value.KIND != "Call" or op not in REGISTRY or not REGISTRY.get(op).in_place_safe:
        return False
    opdef = REGISTRY.get(op)
    uses = [i for i, arg in enumerate(getattr(value, "args")) if arg.KIND == "Var" and getattr(arg, "name") == dying]
    return bool(uses) and all(opdef.effect_of(i) is Effect.READ for i in uses)


def _co_live(line: _Timeline, a: tuple[str, tuple[int, int]], b: tuple[str, tuple[int, int]]) -> int | None:
    """A point where both variables are live (None if they never are)."""
    (name_a, (a0, a1)), (name_b, (b0, b1)) = a, b
    low, high = max(a0, b0), min(a1, b1)
    if low > high:
        return None
    if low == high:
        dying = name_a if a1 == low and b0 == low else name_b if b1 == low and a0 == low else None
        if dying is not None and _handover_allowed(line, low, dying):
            return None
    return low


def _span_text(line: _Timeline, point: int) -> str:
    stmt = line.stmt.get(point)
    return f" (at {stmt.node_span})" if stmt is not None and stmt.node_span.known else ""


def _check_function(function: Node) -> list[Diagnostic]:
    line = _Timeline()
    for param in getattr(function, "params"):
        line.define(param.var, 0)
    _walk_block(line, getattr(function, "body"), ())
    groups: dict[str, list[str]] = {}
    for name, memref in line.memref.items():
        groups.setdefault(memref.name, []).append(name)
    buffers = [(line.memref[names[0]], names) for names in groups.values()]
    out: list[Diagnostic] = []
    for i, (ma, names_a) in enumerate(buffers):
        for mb, names_b in buffers[i + 1:]:
            if ma.space is not mb.space or ma.offset < 0 or mb.offset < 0:
                continue
            if ma.offset >= mb.offset + mb.size or mb.offset >= ma.offset + ma.size:
                continue
            clash = next(((x, y, p) for x in names_a for y in names_b
                          if (p := _co_live(line, (x, line.interval(x)), (y, line.interval(y)))) is not None), None)
            if clash is None:
                continue
            x, y, point = clash
            out.append(Diagnostic.at(
                line.site[y], RULE,
                f"`{x}` ({ma.name}, {ma.space.name} bytes [{ma.offset}, {ma.offset + ma.size})) and `{y}` "
                f"({mb.name}, bytes [{mb.offset}, {mb.offset + mb.size})) overlap while both are live"
                f"{_span_text(line, point)}",
                hint="buffers alive at the same time need disjoint addresses: re-run memory-reuse and "
                     "allocate-memory-addr instead of editing MemRefs"))
    return out


def verify(program: Node) -> list[Diagnostic]:
    diagnostics: list[Diagnostic] = []
    for function in getattr(program, "functions"):
        diagnostics.extend(_check_function(function))
    return diagnostics
