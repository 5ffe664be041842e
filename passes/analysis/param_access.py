"""AnalyzeCallAccess: which parameters of a function are read and which are written.

Every read and write is attributed back to the parameter it originates from, following GM
aliases (views and stores whose result *is* an operand's storage, assignments, loop carries and
if-phis). What an operator does to each argument is read from its registry declaration
(`OperandDecl.effect`), never from a list kept here: an argument declared WRITE is not a read,
because a store landing on a sub-region never reads the untouched remainder. Calls the registry
knows nothing about, and calls into other functions, are opaque: they count as reading and
writing every argument.

Language-agnostic (nodes are inspected by KIND), so ConvertTensorToTileOps runs it on Tensor
programs and UpgradeParamDirections on TileUnplaced ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from languages.ops import REGISTRY, Effect, InheritInput, ReusesInput
from languages.types import TensorType
from nanopass.node import Node


@dataclass
class ParamAccess:
    read: bool = False
    written: bool = False


@dataclass
class AccessReport:
    params: dict[str, ParamAccess] = field(default_factory=dict)
    # True when a call with unknown effects touches GM: entry-load sharing is then unsafe.
    has_opaque_calls: bool = False

    def is_written(self, param: str) -> bool:
        access = self.params.get(param)
        return access is not None and access.written


def analyze_param_access(function: Node) -> AccessReport:
    params = [getattr(p, "var") for p in getattr(function, "params")]
    analysis = _AccessAnalysis({getattr(v, "name") for v in params})
    body: tuple[Node, ...] = getattr(function, "body")
    # Loop carries feed origins back to the top of the loop body: iterate to a fixpoint
    # (origins only grow, and they are bounded by the parameter set).
    while True:
        before = analysis.snapshot()
        analysis.block(body)
        if analysis.snapshot() == before:
            break
    report = AccessReport(has_opaque_calls=analysis.opaque)
    for var in params:
        name = getattr(var, "name")
        report.params[name] = analysis.access.get(name, ParamAccess())
    return report


class _AccessAnalysis:
    def __init__(self, params: set[str]) -> None:
        self.origins: dict[str, frozenset[str]] = {p: frozenset({p}) for p in params}
        self.access: dict[str, ParamAccess] = {}
        self.opaque = False

    def snapshot(self) -> tuple[tuple[tuple[str, frozenset[str]], ...], tuple[tuple[str, bool, bool], ...]]:
        return (
            tuple(sorted(self.origins.items())),
            tuple(sorted((k, v.read, v.written) for k, v in self.access.items())),
        )

    def origin_of(self, expr: Node) -> frozenset[str]:
        if expr.KIND == "Var":
            return self.origins.get(getattr(expr, "name"), frozenset())
        return frozenset()

    def bind(self, target: Node, origin: frozenset[str]) -> None:
        name = getattr(target, "name")
        self.origins[name] = self.origins.get(name, frozenset()) | origin

    def mark(self, origin: frozenset[str], effect: Effect) -> None:
        for param in origin:
            access = self.access.setdefault(param, ParamAccess())
            access.read = access.read or bool(effect & Effect.READ)
            access.written = access.written or bool(effect & Effect.WRITE)

    def block(self, body: tuple[Node, ...]) -> None:
        for stmt in body:
            self.stmt(stmt)

    def stmt(self, stmt: Node) -> None:
        kind = stmt.KIND
        if kind == "AssignStmt":
            target = getattr(stmt, "target")
            self.bind(target, self.expr(getattr(stmt, "value")))
        elif kind == "EvalStmt":
            self.expr(getattr(stmt, "value"))
        elif kind in ("ForStmt", "WhileStmt"):  # the same carries (a while has no loop variable)
            self.for_stmt(stmt)
        elif kind == "IfStmt":
            self.block(getattr(stmt, "then_body"))
            self.block(getattr(stmt, "else_body"))
            for results_from in (getattr(stmt, "then_body"), getattr(stmt, "else_body")):
                self.bind_yield(results_from, getattr(stmt, "results"))
        # Yield / Return move values without touching their storage.

    def for_stmt(self, stmt: Node) -> None:
        iter_args: tuple[Node, ...] = getattr(stmt, "iter_args")
        for iter_arg in iter_args:
            self.bind(getattr(iter_arg, "var"), self.origin_of(getattr(iter_arg, "init")))
        body: tuple[Node, ...] = getattr(stmt, "body")
        self.block(body)
        iter_vars = tuple(getattr(a, "var") for a in iter_args)
        self.bind_yield(body, iter_vars)
        for iter_var, result in zip(iter_vars, getattr(stmt, "results")):
            self.bind(result, self.origin_of(iter_var))

    def bind_yield(self, body: tuple[Node, ...], targets: tuple[Node, ...]) -> None:
        if not body or body[-1].KIND != "YieldStmt":
            return
        for value, target in zip(getattr(body[-1], "values"), targets):
            self.bind(target, self.origin_of(value))

    def expr(self, expr: Node) -> frozenset[str]:
        """Mark the accesses `expr` makes; return the parameters its value aliases."""
        if expr.KIND == "FuncCall":
            self.opaque = True
            for arg in getattr(expr, "args"):
                self.mark(self.origin_of(arg), Effect.READ_WRITE)
            return frozenset()
        if expr.KIND == "Var":
            return self.origin_of(expr)
        if expr.KIND != "Call":
            return frozenset()
        return self.call(expr)

    def call(self, call: Node) -> frozenset[str]:
        op: str = getattr(call, "op")
        args: tuple[Node, ...] = getattr(call, "args")
        if op not in REGISTRY:
            self.opaque = True
            for arg in args:
                self.mark(self.origin_of(arg), Effect.READ)
            return frozenset()
        opdef = REGISTRY.get(op)
        attrs = getattr(call, "attrs")
        for index, arg in enumerate(args):
            if arg.KIND == "Var":
                self.mark(self.origin_of(arg), opdef.effect_of(index, attrs))
        rule = opdef.output_memory
        # A GM-typed result of a view or of a store *is* the operand's storage: writes through it
        # land on the parameter. A tile result is a copy (tile.load), not an alias.
        if isinstance(rule, (InheritInput, ReusesInput)) and isinstance(getattr(call, "type"), TensorType):
            if rule.index < len(args):
                return self.origin_of(args[rule.index])
        return frozenset()
