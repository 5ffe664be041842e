"""`python -m nanopass.pipeline --list-ops`: every registered operator with its signature, the
languages that admit it and whether a program using it runs end to end on the simulator.

"Simulates" is read from the two executors, not declared: a `tensor.*` / `tile.*` / `system.*`
op simulates when the reference interpreter implements its semantics key and every PTO
instruction it becomes (its own, or those of the tile ops its conversion targets) has a
simulator handler; a `pto.*` / `arith.*` op when the simulator executes it.
"""

from __future__ import annotations

from backend import interpreter
from backend.sim import executor
from languages.ops import REGISTRY, AttrDecl, Effect, OpDef, OperandDecl
from languages.ops.pto_ops import SCALAR_CONVERSIONS
from languages.types import DataType

# Registry `pto` entries that name a helper the codegen folds into another construct (the
# partition view of a load / store, the allocation, a same-address reshape).
_HELPERS = frozenset({"pto.partition_view", "pto.alloc_tile", "pto.treshape"})
_KINDS = {"tensor": "Tensor", "tile": "Tile", "scalar": "Scalar", "tensor_or_tile": "Tensor|Tile",
          "tensor_or_scalar": "Tensor|Scalar", "int_list": "[int]", "any": "any"}


def _operand_text(decl: OperandDecl) -> str:
    text = f"{decl.name}: {_KINDS.get(decl.kind, decl.kind)}"
    if decl.input_memory is not None:
        text += f"@{decl.input_memory.name}"
    elif decl.accepted_memory:
        text += "@" + "|".join(space.name for space in decl.accepted_memory)
    effect = {Effect.WRITE: " [write]", Effect.READ_WRITE: " [read-write]"}.get(decl.effect, "")
    text += effect
    if decl.variadic:
        return "*" + text
    return text + ("?" if decl.optional else "")


def _attr_text(decl: AttrDecl) -> str:
    shown = decl.default.pl_name if isinstance(decl.default, DataType) else repr(decl.default)
    default = "" if decl.default is None else f" = {shown}"
    choices = "" if not decl.choices else " in {" + ", ".join(repr(c) for c in decl.choices) + "}"
    return f"{decl.name}: {decl.kind}{choices}{default}"


def signature(opdef: OpDef) -> str:
    """`name(operands, *, attributes)` as the registry declares them."""
    parts = [_operand_text(d) for d in opdef.operands]
    keywords = [_attr_text(a) for a in opdef.attrs]
    if keywords:
        parts += ["*", *keywords]
    return f"{opdef.name}({', '.join(parts)})"


def _instruction_simulates(name: str) -> bool:
    if name.startswith("arith."):
        leaf = name.split(".", 1)[1]
        return leaf in ("constant", "cmpi", "cmpf") or name in SCALAR_CONVERSIONS or leaf in executor._INT_ARITH \
            or leaf in executor._FLOAT_ARITH
    semantics = executor.SEMANTICS.get(name)
    return semantics is not None and (semantics[0] in executor._VALUE_OPS or semantics[0] in executor._DPS_OPS)


def simulates(opdef: OpDef) -> bool:
    if opdef.prefix in ("pto", "arith"):
        return _instruction_simulates(opdef.name)
    if opdef.semantics[0] not in interpreter._SEMANTICS:
        return False
    if opdef.prefix == "tensor" and opdef.to_tile is not None:
        targets = [REGISTRY.get(t) for t in opdef.to_tile.target_ops if t in REGISTRY and t != opdef.name]
        return all(simulates(t) for t in targets)
    return all(_instruction_simulates(p) for p in opdef.pto if p not in _HELPERS)


def list_ops() -> str:
    lines = []
    ops = sorted(REGISTRY, key=lambda op: (("tensor", "tile", "system", "pto", "arith").index(op.prefix)
                                           if op.prefix in ("tensor", "tile", "system", "pto", "arith") else 9, op.name))
    for opdef in ops:
        languages = REGISTRY.languages_admitting(opdef.name)
        admitted = f"{languages[0]}..{languages[-1]}" if len(languages) > 1 else (languages[0] if languages else "-")
        lines.append(f"{signature(opdef)}")
        lines.append(f"    languages: {admitted}  simulates: {'yes' if simulates(opdef) else 'no'}")
    counted = sum(1 for op in REGISTRY if op.prefix in ("tensor", "tile", "system"))
    lines.append(f"{len(REGISTRY)} operators ({counted} tensor / tile / system ops, the rest PTO instructions)")
    return "\n".join(lines)


__all__ = ["list_ops", "signature", "simulates"]
