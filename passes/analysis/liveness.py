"""Live ranges of the variables and buffers of one function (used by MemoryReuse).

Program points number the statements in execution order of one pass over the text: a statement
uses its operands and defines its target at its own point; a `for` / `if` also has an end point
where its results are defined. A value defined outside a loop and read inside it is live in the
whole loop: the body runs again after the last textual read (the loop back-edge), so the value
must survive until the loop's end point. Loop-carried values share a MemRef after
MaterializeSemanticAliases, so a buffer's range (the hull of its variables' ranges) covers the
back-edge too. The NoCoLiveOverlap verifier computes liveness on its own, on purpose.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from languages.types import TileType
from nanopass.node import Node, walk


@dataclass(frozen=True, slots=True)
class LiveRange:
    """Closed interval of program points [start, end]."""

    start: int
    end: int

    def hull(self, other: LiveRange) -> LiveRange:
        return LiveRange(min(self.start, other.start), max(self.end, other.end))


@dataclass(frozen=True, slots=True)
class _Loop:
    start: int
    end_ref: list[int]  # filled when the loop's end point is known

    @property
    def end(self) -> int:
        return self.end_ref[0]


@dataclass
class Liveness:
    """Def points, extended last uses, and the statement at each point of one function."""

    def_point: dict[str, int] = field(default_factory=dict)
    last_use: dict[str, int] = field(default_factory=dict)
    statement_at: dict[int, Node] = field(default_factory=dict)
    var_types: dict[str, object] = field(default_factory=dict)

    def range_of(self, name: str) -> LiveRange:
        start = self.def_point[name]
        return LiveRange(start, max(start, self.last_use.get(name, start)))

    def buffer_ranges(self) -> dict[str, LiveRange]:
        """Per MemRef name: the hull of the ranges of every variable bound to it."""
        ranges: dict[str, LiveRange] = {}
        for name, ty in self.var_types.items():
            if not isinstance(ty, TileType) or ty.memref is None:
                continue
            key = ty.memref.name
            own = self.range_of(name)
            ranges[key] = ranges[key].hull(own) if key in ranges else own
        return ranges


class _Analyzer:
    def __init__(self) -> None:
        self.result = Liveness()
        self.point = 0
        self._uses: list[tuple[str, int, tuple[_Loop, ...]]] = []

    def next_point(self, stmt: Node) -> int:
        self.point += 1
        self.result.statement_at[self.point] = stmt
        return self.point

    def define(self, var: Node, point: int) -> None:
        name = getattr(var, "name")
        self.result.def_point.setdefault(name, point)
        self.result.var_types[name] = getattr(var, "type")

    def use(self, expr: Node, point: int, loops: tuple[_Loop, ...]) -> None:
        for node in walk(expr):
            if node.KIND == "Var":
                self._uses.append((getattr(node, "name"), point, loops))

    def block(self, stmts: Sequence[Node], loops: tuple[_Loop, ...]) -> None:
        for stmt in stmts:
            self.statement(stmt, loops)

    def statement(self, stmt: Node, loops: tuple[_Loop, ...]) -> None:
        point = self.next_point(stmt)
        kind = stmt.KIND
        if kind == "AssignStmt":
            self.use(getattr(stmt, "value"), point, loops)
            self.define(getattr(stmt, "target"), point)
        elif kind == "ForStmt":
            for bound in ("start", "stop", "step"):
                self.use(getattr(stmt, bound), point, loops)
            self.define(getattr(stmt, "loop_var"), point)
            for iter_arg in getattr(stmt, "iter_args"):
                self.use(iter_arg.init, point, loops)
                self.define(iter_arg.var, point)
            loop = _Loop(point, [0])
            self.block(getattr(stmt, "body"), loops + (loop,))
            loop.end_ref[0] = self.next_point(stmt)
            for result in getattr(stmt, "results"):
                self.define(result, loop.end)
        elif kind == "IfStmt":
            self.use(getattr(stmt, "cond"), point, loops)
            self.block(getattr(stmt, "then_body"), loops)
            self.block(getattr(stmt, "else_body"), loops)
            end = self.next_point(stmt)
            for result in getattr(stmt, "results"):
                self.define(result, end)
        else:  # EvalStmt, YieldStmt, ReturnStmt
            for child in stmt.children():
                self.use(child, point, loops)

    def finish(self) -> Liveness:
        for name, point, loops in self._uses:
            defined = self.result.def_point.get(name, 0)
            end = point
            for loop in loops:  # outermost first: the first loop entered after the definition
                if defined < loop.start:
                    end = max(end, loop.end)
                    break
            self.result.last_use[name] = max(self.result.last_use.get(name, end), end)
        return self.result


def analyze_function(function: Node) -> Liveness:
    """Liveness of one Function node (any language sharing the core statement kinds)."""
    analyzer = _Analyzer()
    for param in getattr(function, "params"):
        analyzer.define(param.var, 0)
    analyzer.block(getattr(function, "body"), ())
    return analyzer.finish()
