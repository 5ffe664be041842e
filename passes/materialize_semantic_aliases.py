"""MaterializeSemanticAliases (Addressed → Addressed): values the semantics require to be one
buffer share one MemRef, with a copy wherever sharing would overwrite a value still in use.

- A loop-carried value: the init, the iter-arg, the value yielded back and the loop result are
  the same accumulator across iterations (a K-loop's L0C tile must not be copied per step).
- An if-phi: both branches' yielded values and the result.
- An in-place op: a result the registry declares `ReusesInput(i)` (tile.matmul_acc's
  accumulator) *is* operand i's buffer.

Sharing is only free when the values never hold different contents at the same time. It is not
when the iter-arg is still read after the value yielded back is computed (online softmax:
`m_new = maximum(m, ...)` then `exp(m - m_new)`), when a loop's init is read again after the
loop starts, when a yielded value is itself still needed (a carried pair swapped by the yield),
when a branch yields a value that lives on after the `if`, or when an in-place op's operand is
read after it. Each such member gets a `tile.move` copy into a buffer of its own at the point
where the transfer happens (before the loop for an init, before the yield for a yielded value,
before the op for an in-place operand), and the copy joins the group instead. Interference is
judged on real live sets (`passes.analysis.liveness.interference_of`: a value read inside a loop
it was defined before lives through the whole loop; one read only in an `else` is not live in
the `then`), plus the op registry's in-place rule where a result would be written over an
operand; the pass repeats until every group is interference-free.
A space with no same-space copy (Acc, Mat, ...) cannot take a copy: that is reported, located, as
not supported yet.

The merged MemRef keeps the name of the group's first buffer in program order and the largest
size of its members.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import ClassVar, Sequence

from typing_extensions import override

import languages.gen.addressed as A
from backend.targets.handlers import BackendHandler
from languages.decls import Addressed
from languages.memory_space import MemorySpace
from languages.ops import REGISTRY, ReusesInput
from languages.types import MemRef, TileType
from languages.views import writes_with_vec_insert
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.langdef import Language
from nanopass.node import Node, walk
from nanopass.passes import Pass, PassContext
from passes.analysis.liveness import interference_of
from passes.analysis.memrefs import UNASSIGNED_OFFSET, backend_handler, memrefs_of, physical_bytes, rebind_per_function
from passes.analysis.vec_insert_bits import BitCopier

RULE = "MaterializeSemanticAliases"
# Each round resolves every conflict it sees; a swap of carried values needs three rounds.
_MAX_ROUNDS = 16


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


def _memref(node: Node) -> MemRef | None:
    ty = getattr(node, "type", None)
    return ty.memref if isinstance(ty, TileType) else None


# -- candidates: (member, partner) pairs the semantics want in one buffer ---------------------------


@dataclass(frozen=True)
class _Candidate:
    """`member` should share `anchor`'s buffer; if it cannot, `copy` says where its copy goes:
    ("init", for_stmt, k), ("yield", block_owner, branch, k) or ("operand", assign_stmt, i)."""

    anchor: Node
    member: Node
    site: Node
    where: str
    index: int
    branch: str = ""


def _candidates(body: Sequence[Node], out: list[_Candidate]) -> None:
    """The merges the semantics want, inner constructs first, and for each loop its result
    first: a loop result must share its iter-arg's buffer (PTO has no copy at a loop's exit), so
    it is merged while it is still alone, before any enclosing construct groups it elsewhere;
    a conflicting init / yield / phi value then gets a copy instead."""
    for stmt in body:
        if isinstance(stmt, A.ForStmt):
            _candidates(stmt.body, out)
            yielded = _yielded(stmt.body)
            for k, iter_arg in enumerate(stmt.iter_args):
                if not isinstance(iter_arg.var.type, TileType):
                    continue
                if k < len(stmt.results):
                    out.append(_Candidate(iter_arg.var, stmt.results[k], stmt, "result", k))
                out.append(_Candidate(iter_arg.var, iter_arg.init, stmt, "init", k))
                if k < len(yielded):
                    out.append(_Candidate(iter_arg.var, yielded[k], stmt, "yield", k, "body"))
        elif isinstance(stmt, A.IfStmt):
            _candidates(stmt.then_body, out)
            _candidates(stmt.else_body, out)
            then_vals, else_vals = _yielded(stmt.then_body), _yielded(stmt.else_body)
            for k, result in enumerate(stmt.results):
                if not isinstance(result.type, TileType):
                    continue
                if k < len(then_vals):
                    out.append(_Candidate(result, then_vals[k], stmt, "yield", k, "then_body"))
                if k < len(else_vals):
                    out.append(_Candidate(result, else_vals[k], stmt, "yield", k, "else_body"))
        elif isinstance(stmt, A.AssignStmt) and isinstance(stmt.value, A.Call) and stmt.value.op in REGISTRY:
            rule = REGISTRY.get(stmt.value.op).output_memory
            if isinstance(rule, ReusesInput) and rule.index < len(stmt.value.args) \
                    and isinstance(stmt.target.type, TileType):
                out.append(_Candidate(stmt.target, stmt.value.args[rule.index], stmt, "operand", rule.index))


# -- interference ------------------------------------------------------------------------------------


class _Interference:
    """Which tile variables of one function must not share bytes, grouped by MemRef name: those
    live at once (`passes.analysis.liveness.interference_of`, real live sets), and an op's result
    with an operand it cannot overwrite in flight (`OpDef.may_write_over`; a window of a larger
    tile never; `ReusesInput` always may)."""

    def __init__(self, function: A.Function) -> None:
        self.found = interference_of(function)
        self.members: dict[str, list[str]] = {}
        for node, memref in memrefs_of(function):
            if node.KIND == "Var":
                names = self.members.setdefault(memref.name, [])
                if getattr(node, "name") not in names:
                    names.append(getattr(node, "name"))
        self._hazards(function)

    def _hazards(self, function: A.Function) -> None:
        defs: dict[str, A.Call] = {}
        for stmt in walk(function):
            if not isinstance(stmt, A.AssignStmt) or not isinstance(stmt.value, A.Call) or stmt.value.op not in REGISTRY:
                continue
            call, result = stmt.value, stmt.target.type
            defs[stmt.target.name] = call
            if not isinstance(result, TileType) or REGISTRY.is_view(call.op):
                continue
            opdef = REGISTRY.get(call.op)
            for index, arg in enumerate(call.args):
                if not isinstance(arg, A.Var) or not isinstance(arg.type, TileType):
                    continue
                if isinstance(opdef.output_memory, ReusesInput) and opdef.output_memory.index == index:
                    continue
                if opdef.may_write_over(index, result, arg.type, call.attrs) and not _is_window(arg, defs):
                    continue
                self.found.pairs.add(frozenset((stmt.target.name, arg.name)))

    def conflict(self, group_a: Sequence[str], group_b: Sequence[str]) -> bool:
        """Whether some value of buffers `group_a` must not share bytes with one of `group_b`."""
        vars_a = [v for name in group_a for v in self.members.get(name, ())]
        vars_b = [v for name in group_b for v in self.members.get(name, ())]
        return any(self.found.interfere(u, v) for u in vars_a for v in vars_b)


def _is_window(value: A.Var, defs: dict[str, A.Call]) -> bool:
    """Whether `value` is (a view of) a tile.slice window, whose elements sit at an offset."""
    current: A.Expr = value
    while isinstance(current, A.Var):
        call = defs.get(current.name)
        if call is None or not REGISTRY.is_view(call.op) or not call.args:
            return False
        if REGISTRY.is_window_view(call.op):
            return True
        current = call.args[0]
    return False


# -- copies ------------------------------------------------------------------------------------------


@dataclass
class _Copies:
    """The copies one round inserts, keyed by the statement they go before or inside."""

    backend: BackendHandler
    used_vars: set[str]
    used_memrefs: set[str]
    count: int = 0
    before: dict[int, list[A.AssignStmt]] = field(default_factory=dict)  # id(stmt) -> copies just before it
    yields: dict[tuple[int, str, int], A.Var] = field(default_factory=dict)  # (id(owner), branch, k) -> yielded copy
    inits: dict[tuple[int, int], A.Var] = field(default_factory=dict)  # (id(for), k) -> copy seeding the loop
    operands: dict[tuple[int, int], A.Var] = field(default_factory=dict)  # (id(assign), arg) -> copy it reads
    yield_copies: dict[tuple[int, str], list[A.AssignStmt]] = field(default_factory=dict)  # copies before a yield
    # The function's windows (tile.slice results) by name: a copy of one is a pto.tinsert.
    windows: dict[str, A.Call] = field(default_factory=dict)

    def _fresh(self, base: str, used: set[str]) -> str:
        name, n = base, 0
        while name in used:
            n += 1
            name = f"{base}{n}"
        used.add(name)
        return name

    def copy_of(self, value: Node, at: Node, why: str) -> tuple[tuple[A.AssignStmt, ...], A.Var]:
        """The statements copying `value` into a buffer of its own, and the copy. A copy of a Vec
        window is a pto.tinsert (`languages.views.writes_with_vec_insert`), made in a type the
        target's tinsert takes: a UINT16 window's as FP16 bits (finding 6b09f0c436), through the
        rewrite LegalizeVecLayouts makes of the copies it is given (passes/analysis/vec_insert_bits.py)."""
        ty = getattr(value, "type", None)
        assert isinstance(value, A.Var) and isinstance(ty, TileType) and ty.memref is not None
        space = ty.memory_space
        assert space is not None
        if not self.backend.can_move(space, space):
            raise CompileError(Diagnostic.at(
                at, RULE,
                f"not supported yet: {why} `{value.name}` is still read after its buffer is reused, so it would "
                f"have to be copied within {space.name}, and {self.backend.name} has no {space.name} → "
                f"{space.name} data path",
                hint="compute the value again instead of reading it after it is updated, or keep the "
                     "value that is still needed in Vec"))
        attrs = (("target_memory", space),)
        moved = REGISTRY.deduce("tile.move", (value,), attrs, placed=True, at=at)
        assert isinstance(moved, TileType)
        memref = MemRef(self._fresh(f"mem_{space.name.lower()}_copy", self.used_memrefs), space, UNASSIGNED_OFFSET,
                        physical_bytes(moved, self.backend))
        moved = replace(moved, memref=memref)
        target = A.Var(name=self._fresh(f"{value.name}_copy", self.used_vars), type=moved, span=value.span)
        call = A.Call(op="tile.move", args=(value,), attrs=attrs, type=moved, span=at.node_span)
        self.count += 1
        copy = A.AssignStmt(target=target, value=call, span=at.node_span)
        if not writes_with_vec_insert(call.op, ty, moved, value.name in self.windows):
            return (copy,), target
        copier = BitCopier(A, self.windows, lambda base: self._fresh(base, self.used_vars))
        stmts, _ = copier.copied(copy, call, self.backend.arch, at, RULE)
        return tuple(stmts), target

    def request(self, candidate: _Candidate) -> None:
        site = candidate.site
        if candidate.where == "init":
            stmts, var = self.copy_of(candidate.member, site, "the loop's initial value")
            self.before.setdefault(id(site), []).extend(stmts)
            self.inits[(id(site), candidate.index)] = var
        elif candidate.where == "yield":
            body: tuple[Node, ...] = getattr(site, candidate.branch)
            stmts, var = self.copy_of(candidate.member, body[-1], "the yielded value")
            self.yield_copies.setdefault((id(site), candidate.branch), []).extend(stmts)
            self.yields[(id(site), candidate.branch, candidate.index)] = var
        elif candidate.where == "operand":
            stmts, var = self.copy_of(candidate.member, site, "the in-place operand")
            self.before.setdefault(id(site), []).extend(stmts)
            self.operands[(id(site), candidate.index)] = var
        else:  # a loop result is born at the loop's end: nothing else can hold its buffer then
            raise CompileError(Diagnostic.at(site, RULE, "internal: a loop result conflicts with its own group"))

    def apply(self, body: tuple[A.Stmt, ...]) -> tuple[A.Stmt, ...]:
        out: list[A.Stmt] = []
        for stmt in body:
            out.extend(self.before.get(id(stmt), ()))
            out.append(self._stmt(stmt))
        return tuple(out)

    def _block(self, owner: Node, branch: str, body: tuple[A.Stmt, ...]) -> tuple[A.Stmt, ...]:
        inner = self.apply(body)
        copies = self.yield_copies.get((id(owner), branch))
        if not copies or not inner or not isinstance(inner[-1], A.YieldStmt):
            return inner
        last = inner[-1]
        values = tuple(self.yields.get((id(owner), branch, k), v) for k, v in enumerate(last.values))
        return (*inner[:-1], *copies, A.YieldStmt(values=values, span=last.span))

    def _stmt(self, stmt: A.Stmt) -> A.Stmt:
        if isinstance(stmt, A.ForStmt):
            iter_args = tuple(
                replace(it, init=self.inits.get((id(stmt), k), it.init)) for k, it in enumerate(stmt.iter_args))
            return replace(stmt, iter_args=iter_args, body=self._block(stmt, "body", stmt.body))
        if isinstance(stmt, A.IfStmt):
            return replace(stmt, then_body=self._block(stmt, "then_body", stmt.then_body),
                           else_body=self._block(stmt, "else_body", stmt.else_body))
        if isinstance(stmt, A.AssignStmt) and isinstance(stmt.value, A.Call):
            args = tuple(self.operands.get((id(stmt), i), a) for i, a in enumerate(stmt.value.args))
            if any(a is not b for a, b in zip(args, stmt.value.args)):
                return replace(stmt, value=replace(stmt.value, args=args))
        return stmt


# -- the pass ------------------------------------------------------------------------------------------


def _one_round(function: A.Function, backend: BackendHandler) -> tuple[_AliasSets, int, int, A.Function | None]:
    """Merge every candidate that does not interfere; return the merged sets, the number of
    merges, and (when some candidate interfered) the function with copies for those."""
    interference = _Interference(function)
    sets = _AliasSets()
    for _, memref in memrefs_of(function):
        sets.add(memref.name)
    members: dict[str, list[str]] = {name: [name] for name in sets.parent}
    candidates: list[_Candidate] = []
    _candidates(function.body, candidates)
    used = {getattr(n, "name") for n in walk(function) if n.KIND == "Var"}
    windows = {n.target.name: n.value for n in walk(function) if isinstance(n, A.AssignStmt)
               and isinstance(n.value, A.Call) and n.value.op in REGISTRY and REGISTRY.is_window_view(n.value.op)}
    copies = _Copies(backend, used, set(sets.parent), windows=windows)
    merged = 0
    pending = False
    for candidate in candidates:
        anchor, member = _memref(candidate.anchor), _memref(candidate.member)
        if anchor is None or member is None:
            continue
        root_a, root_m = sets.find(anchor.name), sets.find(member.name)
        if root_a == root_m:
            continue
        if interference.conflict(members[root_a], members[root_m]):
            copies.request(candidate)
            pending = True
            continue
        sets.union(root_a, root_m)
        root = sets.find(root_a)
        other = root_m if root == root_a else root_a
        members[root] = members[root] + members.pop(other)
        merged += 1
    if not pending:
        return sets, merged, 0, None
    return sets, merged, copies.count, replace(function, body=copies.apply(function.body))


def alias_mapping(function: A.Function, backend: BackendHandler) -> tuple[A.Function, dict[str, MemRef], int, int]:
    """The function with the copies sharing needs, and MemRef name → merged MemRef for every
    buffer that joins an alias group (plus the merge and copy counts)."""
    copies = 0
    for _ in range(_MAX_ROUNDS):
        sets, merged, count, copied = _one_round(function, backend)
        if copied is None:
            break
        function, copies = copied, copies + count
    else:
        raise CompileError(Diagnostic.at(function, RULE, f"internal: alias groups of `{function.name}` did not "
                                                         f"become interference-free in {_MAX_ROUNDS} rounds"))
    return function, _mapping(function, sets), merged, copies


def _mapping(function: A.Function, sets: _AliasSets) -> dict[str, MemRef]:
    seen: dict[str, MemRef] = {}
    where: dict[str, Node] = {}
    for node, memref in memrefs_of(function):
        seen.setdefault(memref.name, memref)
        where.setdefault(memref.name, node)
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
                where[members[-1].name], RULE,
                f"values that must share one buffer ({', '.join(m.name for m in members)}) live in different "
                f"memory spaces ({', '.join(sorted(s.name for s in spaces))})",
                hint="a loop-carried value, an if-phi and an in-place result must stay in one space; "
                     "move the value explicitly before the loop / branch"))
        head = seen[root]
        unified = MemRef(head.name, head.space, head.offset, max(m.size for m in members))
        mapping.update({m.name: unified for m in members})
    return mapping


@dataclass(frozen=True)
class MaterializeSemanticAliases(Pass[A.Program, A.Program]):
    """Loop-carried values, if-phis and in-place results share one MemRef (copies where needed)."""

    name: ClassVar[str] = "materialize-semantic-aliases"
    spec_name: ClassVar[str] = "MaterializeSemanticAliases"
    source: ClassVar[Language] = Addressed
    target: ClassVar[Language] = Addressed
    requires: ClassVar[frozenset[str]] = frozenset({"HasMemRefs"})
    produces: ClassVar[frozenset[str]] = frozenset({"SemanticAliases"})
    # Merging buffers changes which bytes are live together: addresses must be re-planned. It
    # keeps NoCoLiveOverlap and InPlaceSafety: it merges only values that never interfere.
    invalidates: ClassVar[frozenset[str]] = frozenset({"MemoryCapacity"})

    @override
    def run(self, program: A.Program, ctx: PassContext) -> A.Program:
        backend = backend_handler(ctx)
        functions: list[A.Function] = []
        mappings: dict[str, dict[str, MemRef]] = {}
        for function in program.functions:
            new, mapping, merged, copies = alias_mapping(function, backend)
            ctx.bump("aliases-merged", merged)
            ctx.bump("alias-copies", copies)
            functions.append(new)
            mappings[function.name] = mapping
        if all(a is b for a, b in zip(functions, program.functions)):
            rebuilt = program
        else:
            rebuilt = A.Program(name=program.name, functions=tuple(functions), span=program.span)
        return rebind_per_function(rebuilt, mappings)


__all__: Sequence[str] = ("MaterializeSemanticAliases", "alias_mapping")
