"""TypeChecked: every call's type is what the op registry deduces for it, and every call of a
function (`self.f(...)`) has the callee's return type.

From InitMemRef on, tiles carry MemRefs, which deduction never assigns (it is a storage
decision, not a typing one), so MemRefs are ignored in the comparison.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from languages.decls import FAMILY
from languages.ops import REGISTRY
from languages.pl_printer import format_type
from languages.types import NoneType, TileType, TupleType, Type
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.node import Node, walk

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


def verify(program: Node) -> list[Diagnostic]:
    language = FAMILY.by_name(type(program).LANGUAGE)
    placed = bool(language.type_forms & {"tile-placed", "tile-addressed"})
    functions = {f.name: f for f in getattr(program, "functions", ())}
    diagnostics: list[Diagnostic] = []
    for node in walk(program):
        if node.KIND == "Call":
            diagnostics.extend(_check_call(node, placed))
        elif node.KIND == "FuncCall":
            diagnostics.extend(_check_func_call(node, functions))
    return diagnostics


def _check_call(call: Any, placed: bool) -> list[Diagnostic]:
    try:
        expected = REGISTRY.deduce(call.op, call.args, call.attrs, placed=placed, at=call)
    except CompileError as err:
        return [replace(d, rule=RULE) for d in err.diagnostics]
    if strip_memrefs(expected) != strip_memrefs(call.type):
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
