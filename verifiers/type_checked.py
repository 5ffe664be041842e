"""TypeChecked: every call's type is what the op registry deduces for it, and every call of a
function (`self.f(...)`) has the callee's return type.

From InitMemRef on, tiles carry MemRefs, which deduction never assigns (it is a storage
decision, not a typing one), so MemRefs are ignored in the comparison.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Sequence

from languages.decls import FAMILY
from languages.ops import REGISTRY
from languages.pl_printer import format_type
from languages.types import NoneType, TileType, TupleType, Type
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.node import Node, preorder

RULE = "TypeChecked"


def strip_memrefs(ty: Type) -> Type:
    if isinstance(ty, TileType) and ty.memref is not None:
        return replace(ty, memref=None)
    if isinstance(ty, TupleType):
        return TupleType(tuple(strip_memrefs(t) for t in ty.types))
    return ty


def return_type(function: Any) -> Type:
    types: tuple[Type, ...] = function.return_types
    if not types:
        return NoneType()
    return types[0] if len(types) == 1 else TupleType(types)


# Verdicts per function object. Copy-on-write passes return an untouched function as the same
# object, and nodes are immutable, so its calls still type-check exactly as before -- provided
# the facts read outside the function are unchanged too: the language's placement flag and the
# signatures of the callees (`self.f(...)` checks). The entry keeps its function alive, so the
# id cannot be reused while the entry exists.
_Signatures = tuple[tuple[str, tuple[Type, ...], int], ...]
_VERDICT_CAPACITY = 256
_VERDICTS: dict[int, tuple[Node, bool, _Signatures, list[Diagnostic]]] = {}


def verify(program: Node) -> list[Diagnostic]:
    language = FAMILY.by_name(type(program).LANGUAGE)
    placed = bool(language.type_forms & {"tile-placed", "tile-addressed"})
    program_functions: tuple[Any, ...] = getattr(program, "functions", ())
    functions = {f.name: f for f in program_functions}
    if set(program.CHILD_FIELDS) != {"functions"}:
        return _check_nodes(preorder(program), placed, functions)
    signatures: _Signatures = tuple((name, f.return_types, len(f.params)) for name, f in functions.items())
    diagnostics: list[Diagnostic] = []
    for function in program_functions:
        diagnostics.extend(_check_function(function, placed, functions, signatures))
    return diagnostics


def _check_function(function: Node, placed: bool, functions: dict[str, Any], signatures: _Signatures) -> list[Diagnostic]:
    hit = _VERDICTS.get(id(function))
    if hit is not None and hit[0] is function and hit[1] == placed and hit[2] == signatures:
        return list(hit[3])
    found = _check_nodes(preorder(function), placed, functions)
    if len(_VERDICTS) >= _VERDICT_CAPACITY:
        _VERDICTS.clear()
    _VERDICTS[id(function)] = (function, placed, signatures, list(found))
    return found


def _check_nodes(nodes: Sequence[Node], placed: bool, functions: dict[str, Any]) -> list[Diagnostic]:
    diagnostics: list[Diagnostic] = []
    for node in nodes:
        kind = node.KIND
        if kind == "Call":
            diagnostics.extend(_check_call(node, placed))
        elif kind == "FuncCall":
            diagnostics.extend(_check_func_call(node, functions))
    return diagnostics


def _same_modulo_memref(a: Type, b: Type) -> bool:
    """`strip_memrefs(a) == strip_memrefs(b)` without building the stripped copies."""
    if isinstance(a, TileType) and isinstance(b, TileType):
        return (a.shape == b.shape and a.dtype == b.dtype and a.valid_shape == b.valid_shape
                and a.memory_space == b.memory_space and a.view == b.view)
    if isinstance(a, TupleType) and isinstance(b, TupleType):
        return len(a.types) == len(b.types) and all(_same_modulo_memref(x, y) for x, y in zip(a.types, b.types))
    return strip_memrefs(a) == strip_memrefs(b)


def _check_call(call: Any, placed: bool) -> list[Diagnostic]:
    try:
        expected = REGISTRY.deduce(call.op, call.args, call.attrs, placed=placed, at=call)
    except CompileError as err:
        return [replace(d, rule=RULE) for d in err.diagnostics]
    if not _same_modulo_memref(expected, call.type):
        return [Diagnostic.at(
            call, RULE, f"{call.op} is annotated {format_type(call.type)}, but its operands give {format_type(expected)}",
            f"annotate the result as {format_type(expected)} (a pass that changes a call's operands "
            "must re-deduce its type with REGISTRY.deduce)")]
    return []


def _check_func_call(call: Any, functions: dict[str, Any]) -> list[Diagnostic]:
    callee = functions.get(call.callee)
    if callee is None:
        return [Diagnostic.at(call, RULE, f"call of unknown function `{call.callee}`",
                              f"define `{call.callee}` in the program (callees print before callers)")]
    expected = return_type(callee)
    if expected != call.type:
        return [Diagnostic.at(call, RULE, f"self.{call.callee}(...) is annotated {format_type(call.type)}, "
                              f"but `{call.callee}` returns {format_type(expected)}",
                              "update the call's type when a pass changes the callee's signature")]
    if len(call.args) != len(callee.params):
        return [Diagnostic.at(call, RULE, f"self.{call.callee}(...) passes {_count(len(call.args), 'argument')}; "
                              f"`{call.callee}` takes {_count(len(callee.params), 'parameter')}",
                              "a pass that adds parameters must update every call site")]
    return []


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
