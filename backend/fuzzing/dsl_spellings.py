"""A generated program re-spelled in the DSL's own forms, so campaigns reach the frontend passes.

The generator draws Tensor-language programs (outlined InCore kernels, SSA names). A user writes
PyPTO's DSL: compute inside `with pl.at(level=pl.Level.CORE_GROUP):` scopes of the orchestration
function (OutlineIncoreScopes outlines them), helpers of type Inline (InlineFunctions splices
them), and names assigned more than once (ConvertToSSA renames them). Each spelling here is a
meaning-preserving rewrite of the drawn program's text, so the oracle (interpreter of the
source against the simulated compiled program) judges it unchanged:

* `scope`: a single-result kernel without Out parameters is written inline in `main`, inside a
  CORE_GROUP scope, its parameters replaced by the call's arguments;
* `inline`: a single-result kernel's body moves into an Inline helper the kernel calls;
* `reassign`: a value read only by the next statement gives that statement's result its name;
* `unroll`: a loop of a few constant trips becomes `pl.unroll` (UnrollLoops) over carries that
  are reassigned instead of passed as `init_values` (which pl.unroll does not take).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Sequence

from typing_extensions import override

from languages.gen import tensor as T
from languages.pl_printer import print_function
from nanopass.node import Node, walk

SPELLINGS = ("scope", "inline", "reassign", "unroll")


class _Renamed(T.Rewriter):
    def __init__(self, names: dict[str, str]) -> None:
        super().__init__()
        self.names = names

    @override
    def visit_Var(self, node: T.Var) -> T.Var:
        name = self.names.get(node.name)
        return node if name is None else replace(node, name=name)


def _rename(stmts: Sequence[T.Stmt], names: dict[str, str]) -> tuple[T.Stmt, ...]:
    return _Renamed(names).visit_Stmt_block(tuple(stmts))


def _var_names(nodes: Sequence[Node]) -> set[str]:
    return {str(getattr(n, "name")) for node in nodes for n in walk(node) if n.KIND == "Var"}


def _uses(stmts: Sequence[T.Stmt], name: str) -> int:
    return sum(1 for stmt in stmts for n in walk(stmt) if n.KIND == "Var" and getattr(n, "name") == name)


def _single_result(kernel: T.Function) -> bool:
    last = kernel.body[-1] if kernel.body else None
    return len(kernel.return_types) == 1 and isinstance(last, T.ReturnStmt) and len(last.values) == 1 \
        and isinstance(last.values[0], T.Var)


def _body_lines(stmts: Sequence[T.Stmt], extra_indent: int) -> list[str]:
    """`stmts` printed as a function body, indented `extra_indent` more spaces."""
    text = print_function(T.Function("spelled", "InCore", (), (), tuple(stmts), ()))
    lines = text.rstrip("\n").split("\n")
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("def spelled")) + 1
    return [" " * extra_indent + line if line else line for line in lines[start:]]


def _function_lines(function: T.Function) -> list[str]:
    return print_function(function).rstrip("\n").split("\n")


def _scope(program: T.Program, pick: Callable[[int], int], tags: set[str]) -> list[list[str]] | None:
    main = program.functions[-1]
    kernels = {f.name: f for f in program.functions if f.func_type == "InCore"}
    calls = [(i, stmt) for i, stmt in enumerate(main.body) if isinstance(stmt, T.AssignStmt)
             and isinstance(stmt.value, T.FuncCall) and stmt.value.callee in kernels
             and _single_result(kernels[stmt.value.callee])
             and all(p.direction == "In" for p in kernels[stmt.value.callee].params)
             and all(isinstance(a, T.Var) for a in stmt.value.args)]
    if not calls:
        return None
    index, call = calls[pick(len(calls))]
    assert isinstance(call, T.AssignStmt) and isinstance(call.value, T.FuncCall)
    kernel = kernels[call.value.callee]
    names = {p.var.name: str(getattr(a, "name")) for p, a in zip(kernel.params, call.value.args)}
    for name in sorted(_var_names(kernel.body) - set(names)):
        names[name] = f"{kernel.name}_s_{name}"
    body = _rename(kernel.body, names)
    returned = body[-1]
    assert isinstance(returned, T.ReturnStmt)
    scope = ["        with pl.at(level=pl.Level.CORE_GROUP):", *_body_lines(body[:-1], 4)]
    alias = T.AssignStmt(call.target, returned.values[0])
    spelled_main = replace(main, body=(*main.body[:index], alias, *main.body[index + 1:]))
    main_lines = _function_lines(spelled_main)
    alias_text = _body_lines((alias,), 0)[0]
    at = main_lines.index(alias_text)
    tags.add("dsl:scope")
    others = [f for f in program.functions[:-1] if f.name != kernel.name or _still_called(spelled_main, f.name)]
    return [*(_function_lines(f) for f in others), main_lines[:at] + scope + main_lines[at:]]


def _still_called(main: T.Function, name: str) -> bool:
    return any(n.KIND == "FuncCall" and getattr(n, "callee") == name for stmt in main.body for n in walk(stmt))


def _inline(program: T.Program, pick: Callable[[int], int], tags: set[str]) -> list[list[str]] | None:
    kernels = [f for f in program.functions if f.func_type == "InCore" and _single_result(f)]
    if not kernels:
        return None
    kernel = kernels[pick(len(kernels))]
    helper = replace(kernel, name=f"{kernel.name}_body", func_type="Inline")
    result = T.Var(f"{kernel.name}_result", kernel.return_types[0])
    call = T.FuncCall(helper.name, tuple(p.var for p in kernel.params), kernel.return_types[0])
    wrapper = replace(kernel, body=(T.AssignStmt(result, call), T.ReturnStmt((result,))))
    tags.add("dsl:inline")
    out: list[list[str]] = []
    for function in program.functions:
        out.extend([_function_lines(helper), _function_lines(wrapper)] if function is kernel
                   else [_function_lines(function)])
    return out


def _reassign(program: T.Program, pick: Callable[[int], int], tags: set[str]) -> list[list[str]] | None:
    candidates: list[tuple[int, int]] = []
    for k, function in enumerate(program.functions):
        if function.func_type != "InCore":
            continue
        body = function.body
        for i in range(len(body) - 1):
            first, second = body[i], body[i + 1]
            if isinstance(first, T.AssignStmt) and isinstance(second, T.AssignStmt) \
                    and isinstance(first.value, T.Call) and isinstance(second.value, T.Call) \
                    and first.target.type == second.target.type and _uses(body, first.target.name) == 2 \
                    and _uses((second,), first.target.name) == 1:
                candidates.append((k, i))
    if not candidates:
        return None
    k, i = candidates[pick(len(candidates))]
    function = program.functions[k]
    first, second = function.body[i], function.body[i + 1]
    assert isinstance(first, T.AssignStmt) and isinstance(second, T.AssignStmt)
    rest = _rename(function.body[i + 1:], {second.target.name: first.target.name})
    spelled = replace(function, body=(*function.body[:i + 1], *rest))
    tags.add("dsl:reassign")
    return [_function_lines(spelled) if f is function else _function_lines(f) for f in program.functions]


def _unrolled_loop(loop: T.ForStmt) -> tuple[T.Stmt, ...] | None:
    """`loop` (constant bounds, a few trips) as `pl.unroll` over reassigned carries: each carry
    is set to its initial value before the loop and to its yielded value at the end of the body,
    and each result is the carry after it; None when the loop is not such a loop."""
    bounds = [loop.start, loop.stop, loop.step]
    if loop.kind != "range" or loop.attrs or not all(isinstance(b, T.ConstInt) for b in bounds):
        return None
    start, stop, step = (int(getattr(b, "value")) for b in bounds)
    if step <= 0 or not 0 < (stop - start + step - 1) // step <= 4 or not loop.body:
        return None
    last = loop.body[-1]
    if loop.iter_args and not (isinstance(last, T.YieldStmt) and len(last.values) == len(loop.iter_args)):
        return None
    carries = [arg.var for arg in loop.iter_args]
    before = tuple(T.AssignStmt(arg.var, arg.init) for arg in loop.iter_args)
    body: tuple[T.Stmt, ...] = loop.body
    if carries:
        assert isinstance(last, T.YieldStmt)
        body = (*loop.body[:-1], *_parallel_assign(carries, last.values))
    after = tuple(T.AssignStmt(result, var) for result, var in zip(loop.results, carries))
    unrolled = replace(loop, kind="unroll", iter_args=(), results=(), body=body)
    return (*before, unrolled, *after)


def _parallel_assign(targets: Sequence[T.Var], values: Sequence[T.Expr]) -> tuple[T.Stmt, ...]:
    """`targets = values` all at once, as a yield assigns them: where a value reads a carry an
    earlier assignment would already have overwritten (a rotation `a, b = b, a`, or
    `acc11 = acc9` after `acc9 = ...`), every value goes through a temporary first."""
    assigned: set[str] = set()
    clobbered = False
    for var, value in zip(targets, values):
        if isinstance(value, T.Var) and value.name in assigned:
            clobbered = True
        assigned.add(var.name)
    if not clobbered:
        return tuple(T.AssignStmt(var, value) for var, value in zip(targets, values))
    temps = [T.Var(f"{var.name}_next", var.type) for var in targets]
    return (*(T.AssignStmt(temp, value) for temp, value in zip(temps, values)),
            *(T.AssignStmt(var, temp) for var, temp in zip(targets, temps)))


def _unroll(program: T.Program, pick: Callable[[int], int], tags: set[str]) -> list[list[str]] | None:
    candidates = [(k, i) for k, function in enumerate(program.functions) if function.func_type == "InCore"
                  for i, stmt in enumerate(function.body)
                  if isinstance(stmt, T.ForStmt) and _unrolled_loop(stmt) is not None]
    if not candidates:
        return None
    k, i = candidates[pick(len(candidates))]
    function = program.functions[k]
    loop = function.body[i]
    assert isinstance(loop, T.ForStmt)
    spelled_loop = _unrolled_loop(loop)
    assert spelled_loop is not None
    spelled = replace(function, body=(*function.body[:i], *spelled_loop, *function.body[i + 1:]))
    tags.add("dsl:unroll")
    return [_function_lines(spelled) if f is function else _function_lines(f) for f in program.functions]


_SPELLERS = {"scope": _scope, "inline": _inline, "reassign": _reassign, "unroll": _unroll}


def dsl_text(program: T.Program, spelling: str, pick: Callable[[int], int], tags: set[str]) -> str | None:
    """`program` re-spelled in the DSL (`spelling`: one of SPELLINGS), as program text; None when
    the program has nothing that spelling applies to. `pick(n)` draws an index below n."""
    functions = _SPELLERS[spelling](program, pick, tags)
    if functions is None:
        return None
    lines = [f"# pypto.program: {program.name}", "# nanopass.language: DSL", "import pypto.language as pl", "",
             "", "@pl.program", f"class {program.name}:"]
    for index, function in enumerate(functions):
        if index:
            lines.append("")
        lines.extend(function)
    return "\n".join(lines) + "\n"


__all__ = ["SPELLINGS", "dsl_text"]
