"""UnrollLoops (DSL → DSL): every `for i in pl.unroll(start, stop, step)` loop is replaced by one
copy of its body per iteration (PyPTO's second frontend pass; JIT_FRONTEND.md §6: pl.unroll
takes constant integer bounds and no init_values, ForKind.Unroll "expanded by UnrollLoops").

- Copy k reads the loop variable as the constant `start + k * step` (INDEX).
- A loop-carried value (the parser makes `acc = f(acc)` in the body an iter arg): copy 0 reads
  its initial value, copy k + 1 what copy k yielded; the loop's results are what the last copy
  yielded (the initial values when the loop runs zero times). Every read of a result after the
  loop reads that value directly, so no copy statement is added.
- Every variable a copy defines gets a name fresh in the function (`t`, then `t_1`, `t_2`, ...),
  so the function stays in SSA form.
- Nested unroll loops expand innermost first; loops of other kinds are kept (their bodies are
  searched for unroll loops).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from typing_extensions import override

import languages.gen.dsl as D
from languages.decls import DSL
from languages.types import DataType
from nanopass.langdef import Language
from nanopass.passes import Pass, PassContext
from passes.analysis.dsl_splice import BlockSplicer, Substitute
from passes.analysis.scope_vars import all_definitions, fresh_name, var_names

UNROLL = "unroll"


class _Unroller(BlockSplicer):
    def __init__(self, ctx: PassContext) -> None:
        self.ctx = ctx
        self.taken: set[str] = set()
        self.results: dict[str, D.Expr] = {}  # an unrolled loop's result -> its final value

    def function(self, function: D.Function) -> D.Function:
        self.taken, self.results = var_names(function), {}
        body = self.block(function.body)
        if body is function.body:
            return function
        if self.results:
            body = Substitute(self.results, {}).visit_Stmt_block(body)
        return replace(function, body=body)

    @override
    def expand(self, stmt: D.Stmt) -> list[D.Stmt]:
        if isinstance(stmt, D.ForStmt) and stmt.kind == UNROLL:
            return self.unroll(stmt)
        return [stmt]

    def unroll(self, loop: D.ForStmt) -> list[D.Stmt]:
        start, stop, step = (_constant(e) for e in (loop.start, loop.stop, loop.step))
        # unroll loops nested in this body are expanded already: read their results' values
        body = list(Substitute(self.results, {}).visit_Stmt_block(loop.body) if self.results else loop.body)
        yielded: tuple[D.Expr, ...] = ()
        if body and isinstance(body[-1], D.YieldStmt):
            yielded = body.pop().values  # type: ignore[union-attr]
        carried: list[D.Expr] = [it.init for it in loop.iter_args]
        defined = sorted(all_definitions(body))
        self.taken -= set(defined)  # under SSA they are this body's own: copy 0 keeps them
        out: list[D.Stmt] = []
        for index in range(start, stop, step):
            values: dict[str, D.Expr] = {loop.loop_var.name: D.ConstInt(index, DataType.INDEX, span=loop.span)}
            values.update((it.var.name, value) for it, value in zip(loop.iter_args, carried))
            renames = {name: self.fresh(name) for name in defined}
            substitute = Substitute(values, renames)
            out.extend(substitute.visit_Stmt_block(tuple(body)))
            carried = [substitute.visit_Expr(value) for value in yielded]
            self.ctx.bump("copies")
        for result, value in zip(loop.results, carried):
            self.results[result.name] = value
        self.ctx.bump("loops-unrolled")
        return out

    def fresh(self, name: str) -> str:
        if name not in self.taken:
            self.taken.add(name)
            return name
        return fresh_name(name, self.taken)


def _constant(expr: D.Expr) -> int:
    assert isinstance(expr, D.ConstInt), "the parser admits pl.unroll with constant bounds only"
    return expr.value


@dataclass(frozen=True)
class UnrollLoops(Pass[D.Program, D.Program]):
    """Expand every pl.unroll loop into one copy of its body per iteration."""

    name: ClassVar[str] = "unroll-loops"
    spec_name: ClassVar[str] = "UnrollLoops"
    source: ClassVar[Language] = DSL
    target: ClassVar[Language] = DSL
    requires: ClassVar[frozenset[str]] = frozenset({"SSAForm"})
    produces: ClassVar[frozenset[str]] = frozenset({"NoUnrollLoops"})

    @override
    def run(self, program: D.Program, ctx: PassContext) -> D.Program:
        unroller = _Unroller(ctx)
        functions = tuple(unroller.function(f) for f in program.functions)
        if all(a is b for a, b in zip(functions, program.functions)):
            return program
        return replace(program, functions=functions)
