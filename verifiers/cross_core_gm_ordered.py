"""CrossCoreGmOrdered: the AIC and AIV kernels of a Group never touch one GM tensor unordered.

The kernels a Group launches run concurrently on the cube and the vector core. Two accesses of
one GM tensor by the two (at least one a write) must be ordered by an all-core barrier (a
syncall counting both kinds of core: SYNCALL_PARTICIPANTS) taken between them, or a store on
one core may land after (or before) the other core's load. Barriers are matched across the
kernels by their order (BarriersOnEveryCore checks both take the same ones), so an access is
placed by the barriers that may be the last one before it (#n in program order, or `start`) and
the first one after it (or `end`) on some path; a loop's body is entered both from before the
loop and from its own end. Two accesses that may follow the same barrier and precede the same
one run in the same interval of the two cores' runs and are unordered (two accesses in the two
branches of one if, each next to its own barrier, are not). A scalar access (the D-cache
path of tensor.read / tensor.write, languages.ops.gm_store_paths) is not made visible to the
other core by a barrier, so a tensor one kernel touches so and the other writes (or the other
way round) is refused whatever barriers there are.

The kernels' GM parameters are matched to the Group's variables through the launch's
arguments; a variable a kernel computes from a parameter (a store's result, a view, a carry)
names that parameter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from languages.ops import REGISTRY
from languages.ops.gm_store_paths import SCALAR, gm_accesses
from languages.ops.system_ops import syncall_participants
from languages.types import TensorType
from nanopass.diagnostics import Diagnostic
from nanopass.node import Node, walk

RULE = "CrossCoreGmOrdered"


def _walk(node: Any) -> list[Any]:
    return list(walk(node))

_START, _END = -1, -2
_CORE_WORDS = {"AIC": "cube", "AIV": "vector"}


@dataclass(frozen=True)
class _Access:
    root: str
    reads: bool
    writes: bool
    path: str
    after: frozenset[int]  # the barriers (by order) that may be the last one before it
    before: frozenset[int]  # the barriers that may be the first one after it
    node: Any


class _Kernel:
    def __init__(self, function: Any, outer: Sequence[str | None]) -> None:
        self.roots: dict[str, frozenset[str]] = {}
        for param, name in zip(function.params, outer):
            if isinstance(param.var.type, TensorType) and name is not None:
                self.roots[param.var.name] = frozenset({name})
        self._bind_all(function)
        self.numbers = {id(call): k for k, call in enumerate(_barriers(function.body))}
        self.meta: dict[tuple[int, str], tuple[bool, bool, str, Any]] = {}
        after: dict[tuple[int, str], frozenset[int]] = {}
        before: dict[tuple[int, str], frozenset[int]] = {}
        self.block(function.body, frozenset({_START}), False, after)
        self.block(function.body, frozenset({_END}), True, before)
        self.accesses = [_Access(root, reads, writes, path, after[key], before[key], node)
                         for key, (reads, writes, path, node) in self.meta.items() for root in (key[1],)]

    def of(self, expr: Any) -> frozenset[str]:
        return self.roots.get(expr.name, frozenset()) if getattr(expr, "KIND", "") == "Var" else frozenset()

    def _bind_all(self, function: Any) -> None:
        changed = True
        while changed:
            changed = False
            for node in _walk(function):
                pairs: list[tuple[str, frozenset[str]]] = []
                if node.KIND == "AssignStmt" and isinstance(node.target.type, TensorType):
                    value = node.value
                    found = self.of(value)
                    if value.KIND == "Call":
                        found = frozenset().union(*(self.of(a) for a in value.args))
                    pairs.append((node.target.name, found))
                elif node.KIND == "ForStmt":
                    body = node.body
                    yielded = body[-1].values if body and body[-1].KIND == "YieldStmt" else ()
                    for k, iter_arg in enumerate(node.iter_args):
                        found = self.of(iter_arg.init) | (self.of(yielded[k]) if k < len(yielded) else frozenset())
                        pairs.append((iter_arg.var.name, found))
                        if k < len(node.results):
                            pairs.append((node.results[k].name, found))
                elif node.KIND == "IfStmt":
                    for branch in (node.then_body, node.else_body):
                        values = branch[-1].values if branch and branch[-1].KIND == "YieldStmt" else ()
                        for k, value in enumerate(values):
                            if k < len(node.results):
                                pairs.append((node.results[k].name, self.of(value)))
                for name, found in pairs:
                    before = self.roots.get(name, frozenset())
                    if not found <= before:
                        self.roots[name] = before | found
                        changed = True

    def block(self, body: Sequence[Any], near: frozenset[int], reverse: bool,
              record: dict[tuple[int, str], frozenset[int]]) -> frozenset[int]:
        """Walk `body` (backwards when `reverse`) from the barriers `near` that may be the
        nearest one behind its start; record for each access the barriers that may be the
        nearest behind it; the barriers that may be nearest behind the block's end."""
        for stmt in (reversed(body) if reverse else body):
            kind = stmt.KIND
            if kind == "ForStmt":
                # The body is reached from outside the loop and from its own other end: walk it
                # again from both until that is stable (the barrier sets only grow).
                entry = near
                while True:
                    end = self.block(stmt.body, entry, reverse, record)
                    if entry | end == entry:
                        break
                    entry = entry | end
                near = near | end
            elif kind == "IfStmt":
                then_end = self.block(stmt.then_body, near, reverse, record)
                near = then_end | self.block(stmt.else_body, near, reverse, record)
            elif kind in ("AssignStmt", "EvalStmt") and stmt.value.KIND == "Call":
                call = stmt.value
                if id(call) in self.numbers:
                    near = frozenset({self.numbers[id(call)]})
                    continue
                if call.op not in REGISTRY:
                    continue
                for index, reads, writes, path in gm_accesses(REGISTRY.get(call.op), len(call.args), call.attrs):
                    arg = call.args[index]
                    if not isinstance(getattr(arg, "type", None), TensorType):
                        continue
                    for root in self.of(arg):
                        key = (id(call), root)
                        self.meta[key] = (reads, writes, path, call)
                        record[key] = near
        return near


def _barriers(body: Sequence[Any]) -> list[Any]:
    """The all-core barriers of a body, in program order."""
    return [node for stmt in body for node in _walk(stmt) if node.KIND == "Call" and node.op == "system.syncall"
            and len(syncall_participants(node.attrs)) > 1]


def _check_pair(group: Any, first: tuple[str, _Kernel], second: tuple[str, _Kernel]) -> list[Diagnostic]:
    (core_a, a), (core_b, b) = first, second
    for x in a.accesses:
        for y in b.accesses:
            if x.root != y.root or not (x.writes or y.writes):
                continue
            scalar = SCALAR in (x.path, y.path)
            if not scalar and not (x.after & y.after and x.before & y.before):
                continue
            what = (f"{'written' if x.writes else 'read'} on the {_CORE_WORDS[core_a]} core and "
                    f"{'written' if y.writes else 'read'} on the {_CORE_WORDS[core_b]} core")
            why = ("one of them by a scalar access (the D-cache), which no barrier makes visible to the other core"
                   if scalar else "with no all-core barrier between the two accesses")
            return [Diagnostic.at(
                y.node, RULE, f"GM tensor `{x.root}` of Group `{group.name}` is {what}, {why}",
                hint="order the accesses with a core_type=\"mix\" syncall both kernels take between them")]
    return []


def verify(program: Node) -> list[Diagnostic]:
    functions: list[Any] = list(getattr(program, "functions"))
    kernels = {str(f.name): f for f in functions if str(f.func_type) in ("AIC", "AIV")}
    diagnostics: list[Diagnostic] = []
    for group in functions:
        if str(getattr(group, "func_type")) != "Group":
            continue
        launched: list[tuple[str, _Kernel]] = []
        for node in _walk(group):
            if node.KIND == "FuncCall" and str(node.callee) in kernels:
                callee = kernels[str(node.callee)]
                outer = [str(a.name) if getattr(a, "KIND", "") == "Var" else None for a in node.args]
                launched.append((str(callee.func_type), _Kernel(callee, outer)))
        for i, first in enumerate(launched):
            for second in launched[i + 1:]:
                if first[0] != second[0]:
                    diagnostics.extend(_check_pair(group, first, second))
    return diagnostics
