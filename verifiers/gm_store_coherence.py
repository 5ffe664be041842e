"""GmStoreCoherence: a kernel never writes one GM tensor both by bulk stores and by scalar stores.

A bulk store (tensor.assemble / tile.store, any op the registry declares writing a tensor
operand other than the scalar-access family) goes through MTE3; a scalar store (tensor.write,
pto.store_scalar) through the D-cache. On A2/A3 barriers do not make the two paths coherent at
cache-line granularity, so mixing them on one tensor can silently lose either the scalar
overrides or neighbouring bulk-written bytes (spec convert_tensor_to_tile_ops.md, "GM Store
Coherence Restriction"). The check follows assignment aliases, results that reuse an operand's
storage, loop carries and if merges; it is conservative: disjoint offsets do not exempt a pair.
Mixed paths to distinct GM tensors are fine. Which path a call's writes take is
languages.ops.gm_store_paths (the program generator reads it too).

The spec's two rewrites that keep common cases on one path (a constant scalar-fill loop becomes
tensor.full + tensor.assemble; a full-tensor tensor.full initialisation followed only by scalar
updates is staged in a local tile) are not implemented yet: those programs are rejected too.
"""

from __future__ import annotations

from typing import Any, Sequence

from languages.functions import KERNEL_FUNCTION_TYPES
from languages.ops import REGISTRY
from languages.ops.gm_store_paths import SCALAR, aliased_operand, store_paths
from languages.types import TensorType
from nanopass.diagnostics import Diagnostic
from nanopass.node import Node

RULE = "GmStoreCoherence"

Roots = frozenset[str]


class _Kernel:
    """The GM parameters every variable may name, and the first store of each kind per root."""

    def __init__(self, params: Sequence[Any]) -> None:
        self.roots: dict[str, Roots] = {}
        for param in params:
            var = param.var
            if isinstance(var.type, TensorType):
                self.roots[var.name] = frozenset({var.name})
        self.bulk: dict[str, Any] = {}
        self.scalar: dict[str, Any] = {}

    def of(self, expr: Any) -> Roots:
        return self.roots.get(expr.name, frozenset()) if getattr(expr, "KIND", "") == "Var" else frozenset()

    def bind(self, var: Any, roots: Roots) -> None:
        if roots:
            self.roots[var.name] = self.roots.get(var.name, frozenset()) | roots

    def block(self, body: Sequence[Any]) -> list[Roots]:
        """Walk `body`; the roots of the values its closing yield gives."""
        yielded: list[Roots] = []
        for stmt in body:
            kind = stmt.KIND
            if kind == "AssignStmt":
                self.bind(stmt.target, self.value(stmt.value))
            elif kind == "EvalStmt":
                self.value(stmt.value)
            elif kind == "ForStmt":
                for it in stmt.iter_args:
                    self.bind(it.var, self.of(it.init))
                carried = self.block(stmt.body)
                for index, result in enumerate(stmt.results):
                    init = self.of(stmt.iter_args[index].init) if index < len(stmt.iter_args) else frozenset()
                    self.bind(result, init | (carried[index] if index < len(carried) else frozenset()))
            elif kind == "WhileStmt":
                for it in stmt.iter_args:
                    self.bind(it.var, self.of(it.init))
                carried = self.block(stmt.body)
                for index, result in enumerate(stmt.results):
                    init = self.of(stmt.iter_args[index].init) if index < len(stmt.iter_args) else frozenset()
                    self.bind(result, init | (carried[index] if index < len(carried) else frozenset()))
            elif kind == "IfStmt":
                then_roots, else_roots = self.block(stmt.then_body), self.block(stmt.else_body)
                for index, result in enumerate(stmt.results):
                    merged = (then_roots[index] if index < len(then_roots) else frozenset()) | \
                        (else_roots[index] if index < len(else_roots) else frozenset())
                    self.bind(result, merged)
            elif kind == "ScopeStmt":
                yielded = self.block(stmt.body)
            elif kind == "YieldStmt":
                yielded = [self.of(v) for v in stmt.values]
        return yielded

    def value(self, expr: Any) -> Roots:
        if expr.KIND == "Var":
            return self.of(expr)
        if expr.KIND != "Call" or expr.op not in REGISTRY:
            return frozenset()
        opdef = REGISTRY.get(expr.op)
        for index, path in store_paths(opdef, len(expr.args), expr.attrs):
            store = self.scalar if path == SCALAR else self.bulk
            for root in self.of(expr.args[index]):
                store.setdefault(root, expr)
        aliased = aliased_operand(opdef, len(expr.args))
        return self.of(expr.args[aliased]) if aliased is not None else frozenset()


def verify(program: Node) -> list[Diagnostic]:
    diagnostics: list[Diagnostic] = []
    for function in getattr(program, "functions", ()):
        if getattr(function, "func_type") not in KERNEL_FUNCTION_TYPES:
            continue
        kernel = _Kernel(function.params)
        kernel.block(function.body)
        for root in sorted(set(kernel.bulk) & set(kernel.scalar)):
            bulk, scalar = kernel.bulk[root], kernel.scalar[root]
            where = bulk.node_span
            at = f" (line {where.line})" if where.known else ""
            diagnostics.append(Diagnostic.at(
                scalar, RULE,
                f"kernel `{function.name}` writes the GM tensor `{root}` both by a bulk store ({bulk.op}{at}, "
                f"the MTE3 path) and by this scalar {scalar.op} (the D-cache path); on A2/A3 the two are "
                "not coherent, so either write can be lost",
                "build the whole value on chip and store it once (write into a local tile, or fill a tile "
                "with pl.full and assemble it), or keep the scalar writes to a tensor no bulk store touches"))
    return diagnostics
