"""InlineFunctions (DSL → DSL): the first frontend pass. Every call to an `Inline` function
(`@pl.function(type=pl.FunctionType.Inline)`, `@pl.jit.inline`) is replaced by the callee's
body, and the Inline functions leave the program (JIT_FRONTEND.md §3.1: "Inline=7, removed by
the first pass").

- The callee's body is spliced before the statement holding the call, its parameters reading
  the call's arguments (an argument that is not a variable or a literal is bound to a fresh
  variable first, so it is evaluated once), and the call is replaced by the returned value.
- Every variable the body defines gets a name fresh in the caller (its own name when free,
  else `name_1`, `name_2`, ...), so the caller stays in SSA form; `u = self.f(x)` binds the
  returned variable as `u` directly (no copy).
- A callee returning several values: the caller's `ret[i]` reads become the i-th returned
  value (PyPTO's tuple results are always read element-wise).
- Inline functions calling Inline functions are inlined innermost first; a recursive cycle is a
  located error. The body must end in its only `return` (an early return inside a loop or an
  if is not supported yet, and says so).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from typing_extensions import override

import languages.gen.dsl as D
from languages.decls import DSL
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.langdef import Language
from nanopass.node import Node, walk
from nanopass.passes import Pass, PassContext
from passes.analysis.dsl_splice import BlockSplicer, Substitute
from passes.analysis.scope_vars import all_definitions, fresh_name, var_names

RULE = "InlineFunctions"
INLINE = "Inline"


class _TupleReads(D.Rewriter):
    """`ret[i]` of an inlined call's tuple result → the i-th returned value."""

    def __init__(self, tuples: dict[str, tuple[tuple[D.Expr, ...], str]]) -> None:
        super().__init__()
        self.tuples = tuples

    @override
    def visit_Expr(self, node: D.Expr) -> D.Expr:
        if isinstance(node, D.TupleGetItem) and isinstance(node.value, D.Var) and node.value.name in self.tuples:
            return self.tuples[node.value.name][0][node.index]
        if isinstance(node, D.Var) and node.name in self.tuples:
            callee = self.tuples[node.name][1]
            raise CompileError(Diagnostic.at(
                node, RULE, f"not supported yet: using the tuple returned by inline function `{callee}` as a whole "
                            f"(`{node.name}`)", f"read its elements: `{node.name}[0]`, `{node.name}[1]`, ..."))
        return super().visit_Expr(node)


class _Inliner(BlockSplicer):
    def __init__(self, program: D.Program, ctx: PassContext) -> None:
        self.ctx = ctx
        self.inline = {f.name: f for f in program.functions if f.func_type == INLINE}
        self.done: dict[str, D.Function] = {}
        self.in_progress: list[str] = []
        self.taken: set[str] = set()
        self.tuples: dict[str, tuple[tuple[D.Expr, ...], str]] = {}

    def resolved(self, name: str, call: D.FuncCall) -> D.Function:
        """The Inline function `name` with its own inline calls already spliced."""
        if name in self.done:
            return self.done[name]
        if name in self.in_progress:
            cycle = " -> ".join([*self.in_progress[self.in_progress.index(name):], name])
            raise CompileError(Diagnostic.at(call, RULE, f"inline functions call each other recursively: {cycle}",
                                             "an inline body is copied into its caller, so it cannot recurse"))
        self.in_progress.append(name)
        function = self.function(self.inline[name])
        self.in_progress.pop()
        body = function.body
        returns = [node for stmt in body[:-1] for node in walk(stmt) if isinstance(node, D.ReturnStmt)]
        if returns or not body or not isinstance(body[-1], D.ReturnStmt):
            where = returns[0] if returns else function
            raise CompileError(Diagnostic.at(
                where, RULE, f"not supported yet: inline function `{name}` returns before its last statement",
                "compute the result into a variable (an if / loop result) and return it at the end"))
        self.done[name] = function
        return function

    def function(self, function: D.Function) -> D.Function:
        saved_taken, saved_tuples = self.taken, self.tuples
        self.taken, self.tuples = var_names(function), {}
        body = self.block(function.body)
        if self.tuples:
            body = _TupleReads(self.tuples).visit_Stmt_block(body)
        self.taken, self.tuples = saved_taken, saved_tuples
        return function if body is function.body else replace(function, body=body)

    @override
    def expand(self, stmt: D.Stmt) -> list[D.Stmt]:
        if not any(self.is_inline_call(node) for node in _own_expressions(stmt)):
            return [stmt]
        if isinstance(stmt, D.AssignStmt) and self.is_inline_call(stmt.value):
            assert isinstance(stmt.value, D.FuncCall)
            spliced, _ = self.splice(stmt.value, stmt.target)
            return spliced
        hoister = _Hoister(self)
        new = hoister.visit_Stmt(stmt)
        return [*hoister.spliced, *(new if isinstance(new, tuple) else (new,))]

    def is_inline_call(self, node: object) -> bool:
        return isinstance(node, D.FuncCall) and node.callee in self.inline

    def splice(self, call: D.FuncCall, target: D.Var | None) -> tuple[list[D.Stmt], D.Expr | None]:
        """The statements computing `call` inline, and the expression of its (single) result.
        With a `target`, the result is bound to it (a tuple result: its reads are rewritten)."""
        callee = self.resolved(call.callee, call)
        self.ctx.bump("calls-inlined")
        stmts: list[D.Stmt] = []
        arguments: dict[str, D.Expr] = {}
        for param, arg in zip(callee.params, call.args):
            if not isinstance(arg, (D.Var, D.ConstInt, D.ConstFloat, D.ConstBool)):
                temp = D.Var(self.fresh(param.var.name), param.var.type, span=arg.span)
                stmts.append(D.AssignStmt(target=temp, value=arg, span=arg.span))
                arg = temp
            arguments[param.var.name] = arg
        *body, ret = callee.body
        assert isinstance(ret, D.ReturnStmt)
        defined = all_definitions(body)
        renames = {name: self.fresh(name) for name in sorted(defined)}
        values = ret.values
        single_var = len(values) == 1 and isinstance(values[0], D.Var) and values[0].name in defined
        if target is not None and single_var:
            assert isinstance(values[0], D.Var)
            self.taken.discard(renames[values[0].name])
            renames[values[0].name] = target.name
        substitute = Substitute(arguments, renames)
        stmts.extend(substitute.visit_Stmt_block(tuple(body)))
        results = tuple(substitute.visit_Expr(value) for value in values)
        if len(results) != 1:
            if target is None:
                placeholder = D.Var(self.fresh(f"{call.callee}_ret"), call.type, span=call.span)
                self.tuples[placeholder.name] = (results, call.callee)
                return stmts, placeholder
            self.tuples[target.name] = (results, call.callee)
            return stmts, None
        if target is not None and not single_var:
            stmts.append(D.AssignStmt(target=target, value=results[0], span=call.span))
        return stmts, results[0]

    def fresh(self, name: str) -> str:
        if name not in self.taken:
            self.taken.add(name)
            return name
        return fresh_name(name, self.taken)


class _Hoister(D.Rewriter):
    """Replaces the inline calls inside a statement's own expressions by their results, keeping
    the spliced statements (innermost call first) to put before it."""

    def __init__(self, inliner: _Inliner) -> None:
        super().__init__()
        self.inliner = inliner
        self.spliced: list[D.Stmt] = []

    @override
    def visit_Expr(self, node: D.Expr) -> D.Expr:
        node = super().visit_Expr(node)
        if isinstance(node, D.FuncCall) and node.callee in self.inliner.inline:
            stmts, result = self.inliner.splice(node, None)
            self.spliced.extend(stmts)
            assert result is not None
            return result
        return node

    @override
    def visit_Stmt_block(self, block: tuple[D.Stmt, ...]) -> tuple[D.Stmt, ...]:
        return block  # nested bodies were inlined already, statement by statement


def _own_expressions(stmt: D.Stmt) -> list[Node]:
    """The expressions a statement evaluates itself, with their sub-expressions."""
    roots: list[D.Expr] = []
    if isinstance(stmt, (D.AssignStmt, D.EvalStmt)):
        roots = [stmt.value]
    elif isinstance(stmt, D.ForStmt):
        roots = [stmt.start, stmt.stop, stmt.step, *(it.init for it in stmt.iter_args)]
    elif isinstance(stmt, D.WhileStmt):
        roots = [it.init for it in stmt.iter_args]  # its condition is evaluated every iteration
    elif isinstance(stmt, D.IfStmt):
        roots = [stmt.cond]
    elif isinstance(stmt, (D.YieldStmt, D.ReturnStmt)):
        roots = list(stmt.values)
    return [node for root in roots for node in walk(root)]


@dataclass(frozen=True)
class InlineFunctions(Pass[D.Program, D.Program]):
    """Splice every Inline function into its callers and drop it from the program."""

    name: ClassVar[str] = "inline-functions"
    spec_name: ClassVar[str] = "InlineFunctions"
    source: ClassVar[Language] = DSL
    target: ClassVar[Language] = DSL
    requires: ClassVar[frozenset[str]] = frozenset({"SSAForm"})
    produces: ClassVar[frozenset[str]] = frozenset({"NoInlineFunctions"})

    @override
    def run(self, program: D.Program, ctx: PassContext) -> D.Program:
        inliner = _Inliner(program, ctx)
        if not inliner.inline:
            return program
        functions = tuple(inliner.function(f) for f in program.functions if f.func_type != INLINE)
        return replace(program, functions=functions)
