"""NoCoLiveOverlap: two values that are live at the same time never occupy overlapping bytes,
whether or not they share a MemRef name.

The check is on values (SSA variables holding tiles), not on buffer names: two variables bound
to one MemRef (a loop's iter-arg and the value it yields, a reused buffer) are two contents of
one buffer and are checked against each other like any other pair. Bytes overlap when both
MemRefs have an assigned offset and their byte ranges in one space intersect, or (before
addresses are assigned) when they are one MemRef name.

Content: a zero-copy view (registry family "view": slice, reshape, transpose_view,
set_validshape) and a plain `v = u` hold the same content as their source, so they never
conflict with it. Every other definition is a new content written into its buffer.

Liveness is computed here, independently of the planner (passes/analysis/liveness.py), so a
planner bug cannot hide behind a shared analysis: live sets flow backwards through the
structured statements; a loop body is iterated until the set live at the top of an iteration
(what the body reads, and what the exit needs) is stable, so a value read inside a loop it was
defined before is live through the whole loop (the body runs again, nested loops included), and
an iter-arg is re-bound by the yield at the back-edge; a value read only in one branch of an
`if` is not live in the other.

Every definition writes its buffer: an assignment, the iter-args bound at a loop's top, the
results born at a loop's or an `if`'s end. It conflicts with every value live right after it
whose bytes overlap and whose content differs. An operand that dies at the op reading it is not
live after it: whether the op may write over it is InPlaceSafety's question.
"""

from __future__ import annotations

from typing import AbstractSet as Set, Sequence

from languages.ops import REGISTRY
from languages.types import MemRef, TileType
from nanopass.diagnostics import Diagnostic
from nanopass.node import Node, walk

RULE = "NoCoLiveOverlap"


class _Checker:
    """Walks one function backwards with the set of variables live after each statement and
    reports every definition whose bytes overlap a live value of other content."""

    def __init__(self, function: Node) -> None:
        self.memref: dict[str, MemRef] = {}
        self.site: dict[str, Node] = {}
        self.content: dict[str, str] = {}
        for node in walk(function):
            if node.KIND == "Var":
                name = str(getattr(node, "name"))
                ty = getattr(node, "type")
                self.site.setdefault(name, node)
                if isinstance(ty, TileType) and ty.memref is not None:
                    self.memref.setdefault(name, ty.memref)
            elif node.KIND == "AssignStmt":
                shown = _viewed(getattr(node, "value"))
                if shown is not None:
                    self.content[str(getattr(getattr(node, "target"), "name"))] = str(getattr(shown, "name"))
        self.out: list[Diagnostic] = []
        self.reported: set[frozenset[str]] = set()

    def root(self, name: str) -> str:
        seen = 0
        while name in self.content and seen < 1000:
            name, seen = self.content[name], seen + 1
        return name

    def written(self, name: str, live: Set[str], where: Node) -> None:
        """`name` gets new data at `where` while every variable of `live` is still needed."""
        mine = self.memref.get(name)
        if mine is None:
            return
        for other in sorted(live):
            theirs = self.memref.get(other)
            if other == name or theirs is None or not _overlap(mine, theirs) or self.root(other) == self.root(name):
                continue
            key = frozenset((name, other))
            if key in self.reported:
                continue
            self.reported.add(key)
            at = f" (at {where.node_span})" if where.node_span.known else ""
            self.out.append(Diagnostic.at(
                self.site[name], RULE,
                f"`{name}` ({mine.name}, {mine.space.name} bytes {_bytes(mine)}) is written{at} while `{other}` "
                f"({theirs.name}, bytes {_bytes(theirs)}) is still live: they overlap",
                hint="values alive at the same time need disjoint bytes: a loop-carried value read after "
                     "its update, an if-phi or a reused buffer needs a copy or a buffer of its own "
                     "(materialize-semantic-aliases, memory-reuse, allocate-memory-addr)"))

    def block(self, body: Sequence[Node], live_out: Set[str], report: bool) -> set[str]:
        live = set(live_out)
        for stmt in reversed(body):
            live = self.stmt(stmt, live, report)
        return live

    def stmt(self, stmt: Node, live: set[str], report: bool) -> set[str]:
        kind = stmt.KIND
        if kind == "AssignStmt":
            name = str(getattr(getattr(stmt, "target"), "name"))
            if report:
                self.written(name, live, stmt)
            live.discard(name)
            return live | _reads(getattr(stmt, "value"))
        if kind == "IfStmt":
            results = [str(getattr(r, "name")) for r in getattr(stmt, "results")]
            if report:
                for result in results:
                    self.written(result, live, stmt)
            after = live - set(results)
            merged = self.block(getattr(stmt, "then_body"), after, report) | \
                self.block(getattr(stmt, "else_body"), after, report)
            return merged | _reads(getattr(stmt, "cond"))
        if kind == "ForStmt":
            return self.loop(stmt, live, report)
        return live | set().union(*(_reads(child) for child in stmt.children()))

    def loop(self, stmt: Node, live: set[str], report: bool) -> set[str]:
        iter_vars = [str(getattr(it.var, "name")) for it in getattr(stmt, "iter_args")]
        results = [str(getattr(r, "name")) for r in getattr(stmt, "results")]
        rebound = set(iter_vars) | {str(getattr(getattr(stmt, "loop_var"), "name"))}
        # At the top of an iteration: what the body reads, plus what the exit needs (the values
        # live after the loop, and the iter-vars whose results are live).
        top = (live - set(results)) | {v for v, r in zip(iter_vars, results) if r in live}
        while True:
            again = top | self.block(getattr(stmt, "body"), top - rebound, False)
            if again == top:
                break
            top = again
        if report:
            for result in results:
                self.written(result, live, stmt)
            for var in iter_vars:
                self.written(var, top, stmt)
            self.block(getattr(stmt, "body"), top - rebound, True)
        entry = top - rebound
        for iter_arg in getattr(stmt, "iter_args"):
            entry |= _reads(iter_arg.init)
        for bound in ("start", "stop", "step"):
            entry |= _reads(getattr(stmt, bound))
        return entry


def _reads(expr: Node) -> set[str]:
    return {str(getattr(n, "name")) for n in walk(expr) if n.KIND == "Var"}


def _viewed(value: Node) -> Node | None:
    """The operand whose content `value` shows unchanged (a view op's source, a plain var)."""
    if value.KIND == "Var":
        return value
    if value.KIND == "Call" and REGISTRY.is_view(str(getattr(value, "op"))) and getattr(value, "args"):
        source: Node = getattr(value, "args")[0]
        return source if source.KIND == "Var" else None
    return None


def _overlap(a: MemRef, b: MemRef) -> bool:
    if a.space is not b.space:
        return False
    if a.offset >= 0 and b.offset >= 0:
        return a.offset < b.offset + b.size and b.offset < a.offset + a.size
    return a.name == b.name


def _check_function(function: Node) -> list[Diagnostic]:
    checker = _Checker(function)
    checker.block(getattr(function, "body"), set(), True)
    return checker.out


def _bytes(memref: MemRef) -> str:
    return f"[{memref.offset}, {memref.offset + memref.size})" if memref.offset >= 0 else "(unassigned)"


def verify(program: Node) -> list[Diagnostic]:
    diagnostics: list[Diagnostic] = []
    for function in getattr(program, "functions"):
        diagnostics.extend(_check_function(function))
    return diagnostics
