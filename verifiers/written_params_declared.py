"""WrittenParamsDeclared: no kernel writes a GM parameter it declares `In`.

The host treats an `In` tensor as read-only: a kernel that stores into it would have its write
dropped by whoever runs the kernel (the simulator's host, PyPTO's orchestration), while the
interpreter, which shares GM buffers by reference, keeps it. UpgradeParamDirections establishes
this; a program entering the pipeline after it must already satisfy it.

Stated on its own terms: a call whose registry argument effect on an operand includes WRITE,
where the operand is an `In` parameter of the kernel or a GM tensor value that re-views one (the
tensor result of a view or store of it), is reported at the call.
"""

from __future__ import annotations

from languages.functions import is_kernel_function
from languages.ops import REGISTRY, Effect, InheritInput, ReusesInput
from languages.types import TensorType
from nanopass.diagnostics import Diagnostic
from nanopass.node import Node, preorder

RULE = "WrittenParamsDeclared"


def _check(function: Node) -> list[Diagnostic]:
    origin: dict[str, str] = {str(p.var.name): str(p.var.name) for p in getattr(function, "params")
                              if p.direction == "In" and isinstance(p.var.type, TensorType)}
    if not origin:
        return []
    out: list[Diagnostic] = []
    for node in preorder(function):
        if node.KIND != "AssignStmt" and node.KIND != "EvalStmt":
            continue
        call = getattr(node, "value")
        if call.KIND != "Call" or getattr(call, "op") not in REGISTRY:
            continue
        opdef = REGISTRY.get(getattr(call, "op"))
        args: tuple[Node, ...] = getattr(call, "args")
        for index, arg in enumerate(args):
            if arg.KIND != "Var" or getattr(arg, "name") not in origin:
                continue
            if Effect.WRITE in opdef.effect_of(index, getattr(call, "attrs")):
                param = origin[getattr(arg, "name")]
                out.append(Diagnostic.at(
                    call, RULE,
                    f"{getattr(call, 'op')} writes `{param}`, a parameter of {getattr(function, 'name')} declared In: "
                    f"the host treats it as read-only, so the write would be lost",
                    hint=f"declare it `{param}: pl.Out[...]` (or pl.InOut if the kernel also reads it)"))
        rule = opdef.output_memory
        if node.KIND == "AssignStmt" and isinstance(rule, (InheritInput, ReusesInput)) and rule.index < len(args):
            source, target = args[rule.index], getattr(node, "target")
            if source.KIND == "Var" and getattr(source, "name") in origin and isinstance(target.type, TensorType):
                origin[str(target.name)] = origin[getattr(source, "name")]
    return out


def verify(program: Node) -> list[Diagnostic]:
    diagnostics: list[Diagnostic] = []
    for function in getattr(program, "functions", ()):
        if is_kernel_function(function):
            diagnostics.extend(_check(function))
    return diagnostics
