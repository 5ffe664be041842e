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


# -- live sets and interference (MaterializeSemanticAliases) ------------------------------------------
#
# Intervals over the text are sound but blunt at an `if`: a value read only in the else branch
# looks live through the whole then branch. Deciding whether two values may share one buffer
# (a loop's iter-arg and the value it yields, an if's phis) needs real live sets: a backward
# dataflow over the structured statements, with the loop body iterated to a fixpoint.
#
#   for:  live at the header (after the iter-args are bound) = live-in(body) plus, for the exit,
#         (live-after - results) and the iter-args whose results are live; the yield's back-edge
#         re-binds the iter-args, so live at the body's end = yields + (header - iter-args);
#         live before the loop = inits + bounds + (header - iter-args - loop var).
#   if:   each branch ends in its yield: live there = yields + (live-after - results);
#         live before the if = cond + live-in(then) + live-in(else).
#
# A definition interferes with every other value live right after it (Chaitin); the iter-args
# bound at one header, and the results born at one loop / if end, interfere with what is live
# there. Views (registry family "view") and plain `v = u` show their source's content and never
# interfere with it.


def _names(expr: Node) -> set[str]:
    return {str(getattr(n, "name")) for n in walk(expr) if n.KIND == "Var"}


@dataclass
class Interference:
    """Which values must never share bytes, in one function."""

    pairs: set[frozenset[str]] = field(default_factory=set)
    content: dict[str, str] = field(default_factory=dict)  # variable -> the variable whose data it shows
    live_after: dict[int, frozenset[str]] = field(default_factory=dict)  # id(stmt) -> live after it

    def interfere(self, a: str, b: str) -> bool:
        return frozenset((a, b)) in self.pairs

    def add_def(self, defined: str, live: set[str] | frozenset[str]) -> None:
        mine = self.content.get(defined, defined)
        for other in live:
            if other != defined and self.content.get(other, other) != mine:
                self.pairs.add(frozenset((defined, other)))


class _Dataflow:
    def __init__(self, interference: Interference) -> None:
        self.result = interference
        # Live-in of a loop for a live-out, when nothing is recorded (a pure function of the two):
        # each loop iterates its body to a fixpoint and then walks it once more to record, so
        # without the memo a nest of depth d walks the innermost body 2^d times or more.
        self.loop_live_in: dict[tuple[int, frozenset[str]], set[str]] = {}

    def block(self, stmts: Sequence[Node], live: set[str], record: bool) -> set[str]:
        for stmt in reversed(stmts):
            live = self.statement(stmt, live, record)
        return live

    def statement(self, stmt: Node, live: set[str], record: bool) -> set[str]:
        if record:
            self.result.live_after[id(stmt)] = frozenset(live)
        kind = stmt.KIND
        if kind == "AssignStmt":
            target = str(getattr(getattr(stmt, "target"), "name"))
            if record:
                self.result.add_def(target, live)
            return (live - {target}) | _names(getattr(stmt, "value"))
        if kind == "ForStmt":
            return self.for_stmt(stmt, live, record)
        if kind == "IfStmt":
            results = {str(getattr(r, "name")) for r in getattr(stmt, "results")}
            if record:
                for result in results:
                    self.result.add_def(result, live)
            exit_live = live - results
            branches = set()
            for branch in ("then_body", "else_body"):
                branches |= self.block(getattr(stmt, branch), set(exit_live), record)
            return branches | _names(getattr(stmt, "cond"))
        used: set[str] = set()
        for child in stmt.children():
            used |= _names(child)
        return live | used

    def for_stmt(self, stmt: Node, live: set[str], record: bool) -> set[str]:
        if record:
            return self._for_stmt(stmt, live, True)
        key = (id(stmt), frozenset(live))
        hit = self.loop_live_in.get(key)
        if hit is None:
            hit = self.loop_live_in[key] = self._for_stmt(stmt, live, False)
        return set(hit)

    def _for_stmt(self, stmt: Node, live: set[str], record: bool) -> set[str]:
        iter_args = getattr(stmt, "iter_args")
        carries = [str(getattr(it.var, "name")) for it in iter_args]
        results = [str(getattr(r, "name")) for r in getattr(stmt, "results")]
        loop_var = str(getattr(getattr(stmt, "loop_var"), "name"))
        exit_live = (live - set(results)) | {c for c, r in zip(carries, results) if r in live}
        header = set(exit_live)
        body: tuple[Node, ...] = getattr(stmt, "body")
        while True:  # the back-edge: iterate until the header's live set stops growing
            end = (header - set(carries)) - {loop_var}
            grown = self.block(body, set(end) | set(exit_live) - set(carries), False) | exit_live
            if grown <= header:
                break
            header |= grown
        self.block(body, (header - set(carries)) - {loop_var}, record)
        if record:
            for result in results:
                self.result.add_def(result, live)
            for carry in carries:
                self.result.add_def(carry, header)
        before = (header - set(carries)) - {loop_var}
        for it in iter_args:
            before |= _names(it.init)
        for bound in ("start", "stop", "step"):
            before |= _names(getattr(stmt, bound))
        return before


def _contents(function: Node) -> dict[str, str]:
    from languages.ops import REGISTRY

    content: dict[str, str] = {}
    for node in walk(function):
        if node.KIND != "AssignStmt":
            continue
        target, value = str(getattr(getattr(node, "target"), "name")), getattr(node, "value")
        source: Node | None = None
        if value.KIND == "Var":
            source = value
        elif value.KIND == "Call" and REGISTRY.is_view(str(getattr(value, "op"))) and getattr(value, "args"):
            source = getattr(value, "args")[0]
        if source is not None and source.KIND == "Var":
            name = str(getattr(source, "name"))
            content[target] = content.get(name, name)
    return content


def interference_of(function: Node) -> Interference:
    """The values of `function` that must not share bytes because both hold live data at once."""
    result = Interference(content=_contents(function))
    _Dataflow(result).block(getattr(function, "body"), set(), True)
    return result
