"""Splicing statements into DSL bodies, for the frontend passes that replace one statement by
several (InlineFunctions copies a helper's body in place of its call, UnrollLoops copies a loop's
body once per iteration)."""

from __future__ import annotations

from dataclasses import replace

from typing_extensions import override

import languages.gen.dsl as D


class Substitute(D.Rewriter):
    """Reads of some variables become expressions (a helper's parameters read the call's
    arguments, an unrolled body reads its index as a constant); definitions are renamed."""

    def __init__(self, values: dict[str, D.Expr], renames: dict[str, str]) -> None:
        super().__init__()
        self.values = values
        self.renames = renames

    @override
    def visit_Expr(self, node: D.Expr) -> D.Expr:
        if isinstance(node, D.Var) and node.name in self.values:
            return self.values[node.name]
        return super().visit_Expr(node)

    @override
    def visit_Var(self, node: D.Var) -> D.Var:
        name = self.renames.get(node.name)
        return node if name is None else replace(node, name=name)


class BlockSplicer:
    """Rewrites a body bottom-up, nested bodies first, where each statement may become a list of
    statements (`expand`); unchanged blocks and statements keep their identity."""

    def block(self, block: tuple[D.Stmt, ...]) -> tuple[D.Stmt, ...]:
        out: list[D.Stmt] = []
        changed = False
        for stmt in block:
            new = self.stmt(stmt)
            changed = changed or len(new) != 1 or new[0] is not stmt
            out.extend(new)
        return tuple(out) if changed else block

    def stmt(self, stmt: D.Stmt) -> list[D.Stmt]:
        if isinstance(stmt, (D.ForStmt, D.WhileStmt, D.ScopeStmt)):
            body = self.block(stmt.body)
            if body is not stmt.body:
                stmt = replace(stmt, body=body)
        elif isinstance(stmt, D.IfStmt):
            then_body, else_body = self.block(stmt.then_body), self.block(stmt.else_body)
            if then_body is not stmt.then_body or else_body is not stmt.else_body:
                stmt = replace(stmt, then_body=then_body, else_body=else_body)
        return self.expand(stmt)

    def expand(self, stmt: D.Stmt) -> list[D.Stmt]:
        """The statements that replace `stmt`, whose nested bodies are already rewritten."""
        return [stmt]
