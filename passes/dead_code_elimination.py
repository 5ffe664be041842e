"""DeadCodeElimination: drop assignments whose value nobody reads and whose evaluation has no
effect.

A call is effect-free when the op registry declares no written argument for it (tile.store,
tensor.write, matmul_acc's accumulator ... are writes); calls of other functions (`self.f(...)`)
are kept, since a kernel writes its Out parameters. Removal repeats until nothing changes, so
a chain feeding only dead values disappears entirely.
"""

from __future__ import annotations

from dataclasses import dataclass

from typing_extensions import override

import languages.gen.tensor as T
from languages.decls import Tensor
from languages.ops import REGISTRY, Effect
from nanopass.node import walk
from nanopass.passes import Pass, PassContext


def has_effect(expr: T.Expr) -> bool:
    for node in walk(expr):
        if isinstance(node, T.FuncCall):
            return True
        if isinstance(node, T.Call):
            if node.op not in REGISTRY:
                return True
            opdef = REGISTRY.get(node.op)
            if any(opdef.effect_of(i, node.attrs) & Effect.WRITE for i in range(len(node.args))):
                return True
    return False


class _Remover(T.Rewriter):
    def __init__(self, used: set[str]) -> None:
        super().__init__()
        self.used = used

    @override
    def visit_AssignStmt(self, node: T.AssignStmt) -> T.Stmt | tuple[T.Stmt, ...]:
        if node.target.name not in self.used and not has_effect(node.value):
            self.bump("assignments-removed")
            return ()
        return node


def _uses(function: T.Function) -> set[str]:
    """Names read anywhere in the function (definition positions are not reads)."""
    used: set[str] = set()

    def read(expr: T.Expr) -> None:
        used.update(v.name for v in walk(expr) if isinstance(v, T.Var))

    def block(stmts: tuple[T.Stmt, ...]) -> None:
        for stmt in stmts:
            if isinstance(stmt, (T.AssignStmt, T.EvalStmt)):
                read(stmt.value)
            elif isinstance(stmt, T.ForStmt):
                for e in (stmt.start, stmt.stop, stmt.step, *(it.init for it in stmt.iter_args)):
                    read(e)
                block(stmt.body)
            elif isinstance(stmt, T.WhileStmt):
                for e in (stmt.cond, *(it.init for it in stmt.iter_args)):
                    read(e)
                block(stmt.body)
            elif isinstance(stmt, T.IfStmt):
                read(stmt.cond)
                block(stmt.then_body)
                block(stmt.else_body)
            else:
                for e in stmt.values:
                    read(e)

    block(function.body)
    return used


class _Pruner(T.Rewriter):
    @override
    def visit_Function(self, node: T.Function) -> T.Function:
        current = node
        while True:
            remover = _Remover(_uses(current))
            pruned = remover.visit_Function(current)
            self.stats.update(remover.stats)
            if pruned is current:
                return current
            current = pruned


@dataclass(frozen=True)
class DeadCodeElimination(Pass[T.Program, T.Program]):
    """Remove effect-free assignments whose results are never read."""

    name = "dead-code-elimination"
    spec_name = "DeadCodeElimination"
    source = Tensor
    target = Tensor

    @override
    def run(self, program: T.Program, ctx: PassContext) -> T.Program:
        return ctx.rewrite(_Pruner(), program)
