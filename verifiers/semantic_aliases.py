"""SemanticAliases: values the semantics make one buffer are bound to one buffer.

PTO has no copy at a loop's back-edge or at an `if`'s join: an `scf.for` iter-arg *is* the
buffer its init, its yielded value and its result live in, an `scf.if` result the buffer both
branches yield, and an in-place op (`ReusesInput` in the op registry: tile.matmul_acc's
accumulator) writes its result into its operand's buffer. So in Addressed programs each such
family must share one MemRef (the same name, and once addresses are assigned the same offset);
a member bound elsewhere would be read from bytes nobody wrote. GM tensors carried through a loop
are one tensor view and are not checked here.
"""

from __future__ import annotations

from typing import Sequence

from languages.ops import REGISTRY, ReusesInput
from languages.types import MemRef, TileType
from nanopass.diagnostics import Diagnostic
from nanopass.node import Node

RULE = "SemanticAliases"


def _memref(node: Node) -> MemRef | None:
    ty = getattr(node, "type", None)
    return ty.memref if isinstance(ty, TileType) else None


def _same(a: MemRef, b: MemRef) -> bool:
    return a.name == b.name and a.space is b.space and (a.offset < 0 or b.offset < 0 or a.offset == b.offset)


def _yielded(body: Sequence[Node]) -> tuple[Node, ...]:
    if body and body[-1].KIND == "YieldStmt":
        return tuple(getattr(body[-1], "values"))
    return ()


def _family(out: list[Diagnostic], what: str, anchor: Node, members: Sequence[tuple[str, Node]]) -> None:
    home = _memref(anchor)
    if home is None:
        return
    for role, member in members:
        memref = _memref(member)
        if memref is None or _same(home, memref):
            continue
        label = f"`{getattr(member, 'name')}`" if member.KIND == "Var" else member.KIND
        out.append(Diagnostic.at(
            member, RULE,
            f"{what} `{getattr(anchor, 'name')}` lives in {home.name} ({home.space.name} offset {home.offset}), but its "
            f"{role} {label} is in {memref.name} ({memref.space.name} offset {memref.offset}): PTO carries one buffer "
            f"there, so the {role} would be read from bytes it was never written to",
            hint="materialize-semantic-aliases binds the whole family to one MemRef (with a copy where "
                 "sharing would overwrite a live value)"))


def _check_block(out: list[Diagnostic], body: Sequence[Node]) -> None:
    for stmt in body:
        kind = stmt.KIND
        if kind == "ForStmt":
            yielded = _yielded(getattr(stmt, "body"))
            results = getattr(stmt, "results")
            for k, iter_arg in enumerate(getattr(stmt, "iter_args")):
                members = [("initial value", iter_arg.init)]
                if k < len(yielded):
                    members.append(("yielded value", yielded[k]))
                if k < len(results):
                    members.append(("loop result", results[k]))
                _family(out, "the loop-carried value", iter_arg.var, members)
            _check_block(out, getattr(stmt, "body"))
        elif kind == "IfStmt":
            then_vals = _yielded(getattr(stmt, "then_body"))
            else_vals = _yielded(getattr(stmt, "else_body"))
            for k, result in enumerate(getattr(stmt, "results")):
                members = [(f"{branch} branch's value", vals[k]) for branch, vals in (("then", then_vals),
                                                                                    ("else", else_vals))
                           if k < len(vals)]
                _family(out, "the if result", result, members)
            _check_block(out, getattr(stmt, "then_body"))
            _check_block(out, getattr(stmt, "else_body"))
        elif kind == "AssignStmt":
            value = getattr(stmt, "value")
            if value.KIND != "Call" or str(getattr(value, "op")) not in REGISTRY:
                continue
            rule = REGISTRY.get(str(getattr(value, "op"))).output_memory
            args = getattr(value, "args")
            if isinstance(rule, ReusesInput) and rule.index < len(args):
                _family(out, f"the in-place result of {getattr(value, 'op')}", getattr(stmt, "target"),
                        [("operand", args[rule.index])])


def verify(program: Node) -> list[Diagnostic]:
    diagnostics: list[Diagnostic] = []
    for function in getattr(program, "functions"):
        _check_block(diagnostics, getattr(function, "body"))
    return diagnostics
