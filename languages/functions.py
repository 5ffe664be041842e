"""Facts about a program's functions that every stage shares: which function types are kernels
(compiled to PTO) and which host code, where a run starts, and which parameter's buffer each
value a kernel returns is.

The function types are PyPTO's (`pl.FunctionType`); the languages keep them as strings.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Final, Iterator, Sequence

from languages.ops import REGISTRY, ReusesInput
from languages.ops.system_ops import Launch
from languages.types import AttrValue, Attrs, ScalarType
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.node import NO_SPAN, Node, Span, walk

# Errors about the program as a whole (which function a run starts in) keep the interpreter's rule
# name: the interpreter is where users met them first.
RULE = "Interpreter"

# Function types printed as `@pl.function(type=pl.FunctionType.X)`; Opaque prints bare.
FUNCTION_TYPES: Final = ("InCore", "Orchestration", "Opaque", "AIC", "AIV", "Group", "Spmd", "Inline")
# Spliced into its callers by InlineFunctions (the DSL language only).
INLINE: Final = "Inline"
ORCHESTRATION: Final = "Orchestration"

KERNEL_FUNCTION_TYPES: Final = frozenset({"InCore", "AIC", "AIV"})
# Launches an AIC and an AIV kernel together (ExpandMixedKernel); host-side, not compiled to PTO.
GROUP: Final = "Group"
# An Opaque function is host code when it calls other functions, but a leaf one that works on
# tiles is a kernel (the spec's own `@pl.function` examples are such leaves): PTOCodegen emits it
# and the simulator runs it.
OPAQUE: Final = "Opaque"


SPMD: Final = "Spmd"
AIV: Final = "AIV"


# -- function attributes (`@pl.function(attrs={...})`, JIT_FRONTEND.md section 3.1) ----------------


@dataclass(frozen=True)
class FunctionAttr:
    """A function attribute this compiler gives a meaning: on which function types, with which
    values, and what it changes."""

    function_types: frozenset[str]
    value: str  # "positive int" or "bool"
    meaning: str


# How a function is launched: the attributes every stage keeps and the run API obeys.
FUNCTION_ATTRS: Final[dict[str, FunctionAttr]] = {
    "core_num": FunctionAttr(frozenset({SPMD}), "positive int",
                             "the Spmd wrapper's dispatch runs once per block, blocks 0 .. core_num - 1 "
                             "(pl.tile.get_block_idx() / get_block_num() tell them apart)"),
    "dual_aiv_dispatch": FunctionAttr(frozenset({AIV}), "bool",
                                      "the AIV kernel runs on both vector lanes of its core, sub-blocks 0 and 1 "
                                      "(pl.tile.get_subblock_idx() tells them apart)"),
}
# Keys PyPTO's compiler reads (include/pypto/ir/function.h) that change how it compiles the
# function, and this compiler does not implement yet; any other key is stored verbatim, as PyPTO does.
UNSUPPORTED_FUNCTION_ATTRS: Final[dict[str, str]] = {
    "split": "a manual cross-core split mode of an AIC / AIV kernel",
    "slot_num": "the cross-core FIFO depth of a hand-split kernel",
    "windowize": "windowized kernels",
    "split_aiv": "manual AIV split regions",
    "auto_scope": "runtime scopes (set it with @pl.function(auto_scope=...))",
    "external_source": "external C++ kernels",
    "external_include_dirs": "external C++ kernels",
}


def function_attr_problem(func_type: str, key: str, value: AttrValue) -> str | None:
    """Why `key: value` cannot be an attribute of a `func_type` function here, or None."""
    if key in UNSUPPORTED_FUNCTION_ATTRS:
        return f"not supported yet: the function attribute {key!r} ({UNSUPPORTED_FUNCTION_ATTRS[key]})"
    known = FUNCTION_ATTRS.get(key)
    if known is None:
        return None
    if func_type not in known.function_types:
        where = " / ".join(sorted(known.function_types))
        return f"the function attribute {key!r} belongs on a {where} function ({known.meaning}), not on a {func_type} one"
    if known.value == "bool" and not isinstance(value, bool):
        return f"the function attribute {key!r} must be True or False, got {value!r}"
    if known.value == "positive int" and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        return f"the function attribute {key!r} must be a positive integer constant, got {value!r}"
    return None


def _attr(attrs: Attrs, key: str) -> AttrValue:
    return next((value for name, value in attrs if name == key), None)


def launches(function: Node, outer: Launch) -> tuple[Launch, ...]:
    """The instances a call of `function` runs in, called from within `outer`: a Spmd wrapper
    with `core_num` runs its dispatch once per block; an AIV kernel with `dual_aiv_dispatch` runs
    on both lanes; any other function runs once, in `outer`."""
    attrs: Attrs = getattr(function, "attrs")
    core_num = _attr(attrs, "core_num")
    if isinstance(core_num, int) and not isinstance(core_num, bool) and core_num > 1:
        return tuple(replace(outer, block_idx=b, block_num=core_num) for b in range(core_num))
    if _attr(attrs, "dual_aiv_dispatch") is True:
        return tuple(replace(outer, subblock_idx=lane) for lane in (0, 1))
    return (outer,)


def describe_launch(launch: Launch, grid: Sequence[Launch]) -> str:
    """`block 2` / `lane 1` / `block 2, lane 1`: what tells the instances of `grid` apart."""
    parts = []
    if len({l.block_idx for l in grid}) > 1:
        parts.append(f"block {launch.block_idx}")
    if len({l.subblock_idx for l in grid}) > 1:
        parts.append(f"lane {launch.subblock_idx}")
    return ", ".join(parts) or "the one instance"


def is_kernel_function(function: Node) -> bool:
    """Whether `function` is compiled to PTO: InCore / AIC / AIV, or a leaf Opaque function
    (no `self.f(...)` calls) that uses tile operations."""
    func_type = str(getattr(function, "func_type"))
    if func_type in KERNEL_FUNCTION_TYPES:
        return True
    if func_type != OPAQUE:
        return False
    uses_tiles = False
    for node in walk(function):
        if node.KIND == "FuncCall":
            return False
        if node.KIND == "Call" and str(getattr(node, "op")).startswith("tile."):
            uses_tiles = True
    return uses_tiles



def straight_line_statements(body: Sequence[Node]) -> Iterator[Node]:
    """The statements of `body` other than loops, branches and scopes, in program order: a loop's
    body, a branch's arms (then before else) and a `with pl.at(...)` / `pl.incore()` scope's body
    (a kernel-to-be of an Orchestration function) are entered where they stand."""
    for stmt in body:
        kind = stmt.KIND
        if kind in ("ForStmt", "WhileStmt", "ScopeStmt"):
            yield from straight_line_statements(getattr(stmt, "body"))
        elif kind == "IfStmt":
            yield from straight_line_statements(getattr(stmt, "then_body"))
            yield from straight_line_statements(getattr(stmt, "else_body"))
        else:
            yield stmt


def _error(message: str, span: Span = NO_SPAN, hint: str = "") -> CompileError:
    return CompileError(Diagnostic(RULE, message, span, hint))


def entry_function(program: Node, entry: str | None = None) -> Node:
    """The function a run starts in: `entry`, else the Orchestration function, else the single
    kernel."""
    functions: list[Node] = list(getattr(program, "functions"))
    name = str(getattr(program, "name"))
    if entry is not None:
        for fn in functions:
            if getattr(fn, "name") == entry:
                return fn
        raise _error(f"program {name} has no function {entry!r} "
                     f"(functions: {', '.join(getattr(f, 'name') for f in functions)})")
    for wanted in ((ORCHESTRATION,), (GROUP,)):
        candidates = [f for f in functions if getattr(f, "func_type") in wanted]
        if len(candidates) == 1:
            return candidates[0]
        if len(candidates) > 1:
            raise _error(f"program {name} has several {'/'.join(wanted)} functions "
                         f"({', '.join(getattr(f, 'name') for f in candidates)}); name the entry")
    # No orchestration function: the run starts where no other function calls (an Opaque host
    # function launching its kernels, a Spmd wrapper, or a single kernel).
    roots = root_functions(program)
    if len(roots) == 1:
        return roots[0]
    if len(roots) > 1:
        raise _error(f"program {name} has several functions no other one calls "
                     f"({', '.join(getattr(f, 'name') for f in roots)}); name the entry",
                     hint="pick one with --entry NAME")
    raise _error(f"program {name} has no Orchestration function and no single kernel to run")


def root_functions(program: Node) -> list[Node]:
    """The functions of `program` that no other function of it calls, in program order."""
    functions: list[Node] = list(getattr(program, "functions"))
    called = {str(getattr(node, "callee")) for fn in functions for node in walk(fn)
              if node.KIND == "FuncCall" and getattr(node, "callee") != getattr(fn, "name")}
    return [fn for fn in functions if getattr(fn, "name") not in called]


def returned_param_indices(function: Node) -> tuple[int, ...]:
    """For each value a kernel returns, the index of the parameter whose buffer it is.

    A compiled kernel returns its results through `Out` parameters; the value it returns is
    the stored-into tensor, i.e. that parameter's buffer.  Buffer identity follows the
    registry's `ReusesInput` results (tile.store returns its tensor), plain copies, loop
    iter-args / results and if-phis whose branches agree.
    """
    fn: Any = function
    out: list[int] = []
    for expr, found in returned_aliases(function):
        if found is None and isinstance(getattr(expr, "type", None), ScalarType):
            raise _error(f"not supported yet: kernel {fn.name} returns a scalar (a PTO kernel returns its results "
                         "through Out tensors only)", expr.node_span,
                         "write the value into a one-element Out tensor with pl.tensor.write and return that")
        if found is None:
            raise _error(f"kernel {fn.name} returns a value that is not one of its tensor parameters",
                         expr.node_span, "a compiled kernel must return its results through Out parameters")
        out.append(found)
    return tuple(out)


def returned_aliases(function: Node) -> list[tuple[Node, int | None]]:
    """Each value `function` returns, with the index of the parameter whose buffer it is (None:
    a value of its own, as a Tensor-level kernel's computed result is)."""
    alias = {str(getattr(param.var, "name")): index for index, param in enumerate(getattr(function, "params"))}
    returned = _alias_block(getattr(function, "body"), alias)
    return [(expr, _alias_of(expr, alias)) for expr in returned or ()]


def _alias_of(expr: Node, alias: dict[str, int]) -> int | None:
    if expr.KIND == "Var":
        return alias.get(getattr(expr, "name"))
    if expr.KIND == "Call":
        try:
            rule = REGISTRY.get(str(getattr(expr, "op"))).output_memory
        except KeyError:
            return None
        args = getattr(expr, "args")
        if isinstance(rule, ReusesInput) and rule.index < len(args):
            return _alias_of(args[rule.index], alias)
    return None


def _alias_block(body: Sequence[Node], alias: dict[str, int]) -> Sequence[Node] | None:
    """Record aliases of `body`'s definitions; returns the ReturnStmt's values if it has one."""
    for stmt in body:
        kind = stmt.KIND
        if kind == "AssignStmt":
            index = _alias_of(getattr(stmt, "value"), alias)
            if index is not None:
                alias[getattr(getattr(stmt, "target"), "name")] = index
        elif kind in ("ForStmt", "WhileStmt"):
            for it, result in zip(getattr(stmt, "iter_args"), getattr(stmt, "results")):
                index = _alias_of(getattr(it, "init"), alias)
                if index is not None:
                    alias[getattr(getattr(it, "var"), "name")] = index
                    alias[getattr(result, "name")] = index
            _alias_block(getattr(stmt, "body"), alias)
        elif kind == "IfStmt":
            then_yield = _yielded(getattr(stmt, "then_body"), alias)
            else_yield = _yielded(getattr(stmt, "else_body"), alias)
            for var, a, b in zip(getattr(stmt, "results"), then_yield, else_yield):
                if a is not None and a == b:
                    alias[getattr(var, "name")] = a
        elif kind == "ReturnStmt":
            return tuple(getattr(stmt, "values"))
    return None


def _yielded(body: Sequence[Node], alias: dict[str, int]) -> list[int | None]:
    _alias_block(body, alias)
    if body and body[-1].KIND == "YieldStmt":
        return [_alias_of(v, alias) for v in getattr(body[-1], "values")]
    return []
