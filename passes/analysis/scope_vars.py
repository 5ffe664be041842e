"""Variables of statement blocks in program order, for the frontend passes that cut a block out
of a function (OutlineIncoreScopes) or splice one in (InlineFunctions).

Every fact is by variable name: the DSL language is in SSA form when these passes run, so a name
is one value.
"""

from __future__ import annotations

from typing import Any, Iterator, Sequence

from nanopass.node import Node, walk


def stmt_expressions(stmt: Any) -> list[Node]:
    """The expressions a statement evaluates itself (not those of its nested bodies), in order."""
    kind = stmt.KIND
    if kind in ("AssignStmt", "EvalStmt"):
        return [stmt.value]
    if kind == "ForStmt":
        return [stmt.start, stmt.stop, stmt.step, *(it.init for it in stmt.iter_args)]
    if kind == "WhileStmt":  # the condition reads the carried values, after their initial ones
        return [*(it.init for it in stmt.iter_args), stmt.cond]
    if kind == "IfStmt":
        return [stmt.cond]
    if kind in ("YieldStmt", "ReturnStmt"):
        return list(stmt.values)
    return []


def nested_blocks(stmt: Any) -> list[Sequence[Any]]:
    kind = stmt.KIND
    if kind in ("ForStmt", "WhileStmt", "ScopeStmt"):
        return [stmt.body]
    if kind == "IfStmt":
        return [stmt.then_body, stmt.else_body]
    return []


def defined_here(stmt: Any) -> list[Any]:
    """The Vars a statement defines that are visible after it (in its enclosing block)."""
    kind = stmt.KIND
    if kind == "AssignStmt":
        return [stmt.target]
    if kind in ("ForStmt", "WhileStmt", "IfStmt"):
        return list(stmt.results)
    if kind == "ScopeStmt":  # a scope's definitions leak into the enclosing block
        return [var for inner in stmt.body for var in defined_here(inner)]
    return []


def all_definitions(stmts: Sequence[Any]) -> set[str]:
    """Names defined anywhere in `stmts` (nested bodies, loop variables and iter args included)."""
    names: set[str] = set()
    for stmt in stmts:
        names.update(v.name for v in defined_here(stmt))
        if stmt.KIND == "ForStmt":
            names.add(stmt.loop_var.name)
            names.update(it.var.name for it in stmt.iter_args)
        elif stmt.KIND == "WhileStmt":
            names.update(it.var.name for it in stmt.iter_args)
        for block in nested_blocks(stmt):
            names |= all_definitions(block)
    return names


def reads_in_order(stmts: Sequence[Any]) -> Iterator[Any]:
    """Every Var read by `stmts`, in evaluation order (a loop's bounds and initial values before
    its body; repeats included)."""
    for stmt in stmts:
        for expr in stmt_expressions(stmt):
            for node in walk(expr):
                if node.KIND == "Var":
                    yield node
        for block in nested_blocks(stmt):
            yield from reads_in_order(block)


def free_vars(stmts: Sequence[Any]) -> list[Any]:
    """The Vars `stmts` read but do not define (their live-ins under SSA), in first-read order."""
    defined = all_definitions(stmts)
    seen: dict[str, Any] = {}
    for var in reads_in_order(stmts):
        if var.name not in defined and var.name not in seen:
            seen[var.name] = var
    return list(seen.values())


def read_names(stmts: Sequence[Any]) -> set[str]:
    return {var.name for var in reads_in_order(stmts)}


def var_names(function: Node) -> set[str]:
    """Every variable name of a function (parameters and all definitions)."""
    return {str(getattr(node, "name")) for node in walk(function) if node.KIND == "Var"}


def unused_name(base: str, taken: set[str]) -> str:
    """`base` itself when not in `taken`, else `base_1`, `base_2`, ... (the first not in it),
    recorded in `taken`."""
    name, suffix = base, 0
    while name in taken:
        suffix += 1
        name = f"{base}_{suffix}"
    taken.add(name)
    return name


def fresh_name(base: str, taken: set[str]) -> str:
    """`base_1`, `base_2`, ... (the first not in `taken`), recorded in `taken`."""
    suffix = 1
    while f"{base}_{suffix}" in taken:
        suffix += 1
    name = f"{base}_{suffix}"
    taken.add(name)
    return name
