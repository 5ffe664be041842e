"""MaterializeSemanticAliases (Addressed → Addressed): values the semantics require to be one
buffer share one MemRef.

- A loop-carried value: the init, the iter-arg, the value yielded back and the loop result are
  the same accumulator across iterations (a K-loop's L0C tile must not be copied per step).
- An if-phi: both branches' yielded values and the result.
- An in-place op: a result the registry declares `ReusesInput(i)` (tile.matmul_acc's
  accumulator) *is* operand i's buffer.

The merged MemRef keeps the name of the group's first buffer in program order and the largest
size of its members.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Sequence

from typing_extensions import override

import languages.gen.addressed as A
from languages.decls import Addressed
from languages.ops import REGISTRY, ReusesInput
from languages.types import MemRef
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.langdef import Language
from nanopass.node import Node
from nanopass.passes import Pass, PassContext
from passes.analysis.memrefs import memrefs_of, rebind_each_function, tile_memref


class _AliasSets:
    def __init__(self) -> None:
        self.parent: dict[str, str] = {}
        self.order: dict[str, int] = {}

    def add(self, name: str) -> None:
        if name not in self.parent:
            self.parent[name] = name
            self.order[name] = len(self.order)

    def find(self, name: str) -> str:
        self.add(name)
        while self.parent[name] != name:
            self.parent[name] = self.parent[self.parent[name]]
            name = self.parent[name]
        return name

    def union(self, a: str, b: str) -> bool:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return False
        first, second = (ra, rb) if self.order[ra] <= self.order[rb] else (rb, ra)
        self.parent[second] = first
        return True


def _yielded(body: Sequence[Node]) -> tuple[Node, ...]:
    if body and body[-1].KIND == "YieldStmt":
        return tuple(getattr(body[-1], "values"))
    return ()


def _join(sets: _AliasSets, nodes: Sequence[Node]) -> int:
    names = [m.name for m in (tile_memref(getattr(n, "type", None)) for n in nodes) if m is not None]  # type: ignore[arg-type]
    return sum(sets.union(names[0], other) for other in names[1:])


def _collect(sets: _AliasSets, body: Sequence[Node]) -> int:
    merged = 0
    for stmt in body:
        if isinstance(stmt, A.ForStmt):
            yielded = _yielded(stmt.body)
            for k, iter_arg in enumerate(stmt.iter_args):
                merged += _join(sets, (iter_arg.init, iter_arg.var, *yielded[k:k + 1], *stmt.results[k:k + 1]))
            merged += _collect(sets, stmt.body)
        elif isinstance(stmt, A.IfStmt):
            then_vals, else_vals = _yielded(stmt.then_body), _yielded(stmt.else_body)
            for k, result in enumerate(stmt.results):
                merged += _join(sets, (result, *then_vals[k:k + 1], *else_vals[k:k + 1]))
            merged += _collect(sets, stmt.then_body) + _collect(sets, stmt.else_body)
        elif isinstance(stmt, A.AssignStmt) and isinstance(stmt.value, A.Call) and stmt.value.op in REGISTRY:
            rule = REGISTRY.get(stmt.value.op).output_memory
            if isinstance(rule, ReusesInput) and rule.index < len(stmt.value.args):
                merged += _join(sets, (stmt.value.args[rule.index], stmt.target))
    return merged


def alias_mapping(function: A.Function) -> tuple[dict[str, MemRef], int]:
    """MemRef name → merged MemRef for every buffer of `function` that joins an alias group."""
    sets = _AliasSets()
    seen: dict[str, MemRef] = {}
    where: dict[str, Node] = {}
    for node, memref in memrefs_of(function):
        sets.add(memref.name)
        seen.setdefault(memref.name, memref)
        where.setdefault(memref.name, node)
    merged = _collect(sets, function.body)
    groups: dict[str, list[MemRef]] = {}
    for name, memref in seen.items():
        groups.setdefault(sets.find(name), []).append(memref)
    mapping: dict[str, MemRef] = {}
    for root, members in groups.items():
        if len(members) == 1:
            continue
        spaces = {m.space for m in members}
        if len(spaces) > 1:
            raise CompileError(Diagnostic.at(
                where[members[-1].name], "MaterializeSemanticAliases",
                f"values that must share one buffer ({', '.join(m.name for m in members)}) live in different "
                f"memory spaces ({', '.join(sorted(s.name for s in spaces))})",
                hint="a loop-carried value, an if-phi and an in-place result must stay in one space; "
                     "move the value explicitly before the loop / branch"))
        head = seen[root]
        unified = MemRef(head.name, head.space, head.offset, max(m.size for m in members))
        mapping.update({m.name: unified for m in members})
    return mapping, merged


@dataclass(frozen=True)
class MaterializeSemanticAliases(Pass[A.Program, A.Program]):
    """Loop-carried values, if-phis and in-place results share one MemRef."""

    name: ClassVar[str] = "materialize-semantic-aliases"
    spec_name: ClassVar[str] = "MaterializeSemanticAliases"
    source: ClassVar[Language] = Addressed
    target: ClassVar[Language] = Addressed
    requires: ClassVar[frozenset[str]] = frozenset({"HasMemRefs"})
    # Merging buffers changes which bytes are live together: addresses must be re-planned.
    invalidates: ClassVar[frozenset[str]] = frozenset({"MemoryCapacity", "NoCoLiveOverlap"})

    @override
    def run(self, program: A.Program, ctx: PassContext) -> A.Program:
        return rebind_each_function(program, ctx, "aliases-merged", alias_mapping)
