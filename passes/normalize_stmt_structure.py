"""NormalizeStmtStructure: bind every nested call to a fresh temporary.

`y = pl.add(pl.mul(a, b), c)` becomes `t = pl.mul(a, b); y = pl.add(t, c)`; calls inside loop
bounds, iter-arg seeds, if conditions, yields and returns are hoisted the same way, to just
before the statement that reads them. Statements that are already normal come back as the
same objects (copy-on-write), so verification skips the functions this pass did not touch.
"""

from __future__ import annotations

from dataclasses import dataclass

from typing_extensions import override

import languages.gen.tensor as T
from languages.decls import Tensor
from nanopass.node import walk
from nanopass.passes import Pass, PassContext

_CALL_KINDS = (T.Call, T.FuncCall, T.TupleGetItem)


class _Normalizer(T.Rewriter):
    def __init__(self) -> None:
        super().__init__()
        self.taken: set[str] = set()
        self.prelude: list[T.Stmt] = []

    def fresh(self, base: str) -> str:
        n = 0
        while f"{base}_{n}" in self.taken:
            n += 1
        name = f"{base}_{n}"
        self.taken.add(name)
        return name

    # -- expressions: `value` keeps a top-level call, `atom` binds it to a temporary --------

    def value(self, expr: T.Expr) -> T.Expr:
        if isinstance(expr, T.Call):
            args = self.atoms(expr.args)
            return expr if args is expr.args else T.Call(expr.op, args, expr.attrs, expr.type, span=expr.span)
        if isinstance(expr, T.FuncCall):
            args = self.atoms(expr.args)
            return expr if args is expr.args else T.FuncCall(expr.callee, args, expr.type, span=expr.span)
        if isinstance(expr, T.TupleGetItem):
            inner = self.atom(expr.value)
            return expr if inner is expr.value else T.TupleGetItem(inner, expr.index, expr.type, span=expr.span)
        return self.atom(expr)

    def atoms(self, exprs: tuple[T.Expr, ...]) -> tuple[T.Expr, ...]:
        new = tuple(self.atom(e) for e in exprs)
        return exprs if all(a is b for a, b in zip(new, exprs)) else new

    def atom(self, expr: T.Expr) -> T.Expr:
        if isinstance(expr, _CALL_KINDS):
            value = self.value(expr)
            base = expr.op.rsplit(".", 1)[-1] if isinstance(expr, T.Call) else (
                expr.callee if isinstance(expr, T.FuncCall) else "item")
            var = T.Var(self.fresh(base), expr.type, span=expr.span)
            self.prelude.append(T.AssignStmt(var, value, span=expr.span))
            self.bump("calls-hoisted")
            return var
        if isinstance(expr, T.BinOp):
            lhs, rhs = self.atom(expr.lhs), self.atom(expr.rhs)
            if lhs is expr.lhs and rhs is expr.rhs:
                return expr
            return T.BinOp(expr.op, lhs, rhs, expr.type, span=expr.span)
        if isinstance(expr, T.UnaryOp):
            operand = self.atom(expr.operand)
            return expr if operand is expr.operand else T.UnaryOp(expr.op, operand, expr.type, span=expr.span)
        if isinstance(expr, T.TupleExpr):
            elements = self.atoms(expr.elements)
            return expr if elements is expr.elements else T.TupleExpr(elements, span=expr.span)
        return expr

    def with_prelude(self, stmt: T.Stmt) -> T.Stmt | tuple[T.Stmt, ...]:
        if not self.prelude:
            return stmt
        out = (*self.prelude, stmt)
        self.prelude = []
        return out

    # -- statements ------------------------------------------------------------------------

    @override
    def visit_Function(self, node: T.Function) -> T.Function:
        self.taken = {n.name for n in walk(node) if isinstance(n, T.Var)}
        return super().visit_Function(node)

    @override
    def visit_AssignStmt(self, node: T.AssignStmt) -> T.Stmt | tuple[T.Stmt, ...]:
        value = self.value(node.value)
        new = node if value is node.value else T.AssignStmt(node.target, value, span=node.span)
        return self.with_prelude(new)

    @override
    def visit_EvalStmt(self, node: T.EvalStmt) -> T.Stmt | tuple[T.Stmt, ...]:
        value = self.value(node.value)
        new = node if value is node.value else T.EvalStmt(value, span=node.span)
        return self.with_prelude(new)

    @override
    def visit_YieldStmt(self, node: T.YieldStmt) -> T.Stmt | tuple[T.Stmt, ...]:
        values = self.atoms(node.values)
        return self.with_prelude(node if values is node.values else T.YieldStmt(values, span=node.span))

    @override
    def visit_ReturnStmt(self, node: T.ReturnStmt) -> T.Stmt | tuple[T.Stmt, ...]:
        values = self.atoms(node.values)
        return self.with_prelude(node if values is node.values else T.ReturnStmt(values, span=node.span))

    @override
    def visit_ForStmt(self, node: T.ForStmt) -> T.Stmt | tuple[T.Stmt, ...]:
        start, stop, step = self.atom(node.start), self.atom(node.stop), self.atom(node.step)
        iter_args = tuple(
            it if (init := self.atom(it.init)) is it.init else T.IterArg(it.var, init, span=it.span)
            for it in node.iter_args
        )
        if all(a is b for a, b in zip(iter_args, node.iter_args)):
            iter_args = node.iter_args
        prelude, self.prelude = self.prelude, []
        body = self.visit_Stmt_block(node.body)
        self.prelude = prelude
        new_parts = (start, stop, step, iter_args, body)
        if all(a is b for a, b in zip(new_parts, (node.start, node.stop, node.step, node.iter_args, node.body))):
            return self.with_prelude(node)
        new = T.ForStmt(node.loop_var, start, stop, step, iter_args, body, node.results, node.kind, node.attrs, span=node.span)
        return self.with_prelude(new)

    @override
    def visit_WhileStmt(self, node: T.WhileStmt) -> T.Stmt | tuple[T.Stmt, ...]:
        """The initial values become atoms before the loop; the condition is evaluated before every
        iteration, so it stays where it is (a call in it is not hoisted out of the loop)."""
        iter_args = tuple(
            it if (init := self.atom(it.init)) is it.init else T.IterArg(it.var, init, span=it.span)
            for it in node.iter_args
        )
        if all(a is b for a, b in zip(iter_args, node.iter_args)):
            iter_args = node.iter_args
        prelude, self.prelude = self.prelude, []
        body = self.visit_Stmt_block(node.body)
        self.prelude = prelude
        if iter_args is node.iter_args and body is node.body:
            return self.with_prelude(node)
        return self.with_prelude(T.WhileStmt(node.cond, iter_args, body, node.results, span=node.span))

    @override
    def visit_IfStmt(self, node: T.IfStmt) -> T.Stmt | tuple[T.Stmt, ...]:
        cond = self.atom(node.cond)
        prelude, self.prelude = self.prelude, []
        then_body = self.visit_Stmt_block(node.then_body)
        else_body = self.visit_Stmt_block(node.else_body)
        self.prelude = prelude
        if cond is node.cond and then_body is node.then_body and else_body is node.else_body:
            return self.with_prelude(node)
        new = T.IfStmt(cond, then_body, else_body, node.results, span=node.span)
        return self.with_prelude(new)


@dataclass(frozen=True)
class NormalizeStmtStructure(Pass[T.Program, T.Program]):
    """Bind nested calls to temporaries so every call is a whole statement over atoms."""

    name = "normalize-stmt-structure"
    spec_name = "NormalizeStmtStructure"
    source = Tensor
    target = Tensor
    produces = frozenset({"NormalizedStmtStructure"})

    @override
    def run(self, program: T.Program, ctx: PassContext) -> T.Program:
        return ctx.rewrite(_Normalizer(), program)
