"""<Lang>Grammar: membership of a program in its language.

Every node's class must belong to the language's generated module (a node of another language
left inside the tree means a pass forgot to rebuild it), every type a node carries must match
one of the language's type forms, every operator must be admitted by the language and
registered in the op registry, and every call must obey the language's operand forms
(`languages.operand_forms`).
"""

from __future__ import annotations

import difflib
import importlib
from functools import cache
from typing import Callable

from languages.decls import FAMILY
from languages.operand_forms import constrains, operand_problems
from languages.ops import REGISTRY
from languages.pl_printer import format_type
from languages.type_forms import admits_type, describe_forms
from languages.types import NoneType, ScalarType, TensorType, TileType, TupleType, Type, ViewType
from nanopass.diagnostics import Diagnostic
from nanopass.langdef import Language
from nanopass.node import Node, Summary, preorder, summary

_TYPE_CLASSES = (ScalarType, TensorType, TileType, TupleType, NoneType, ViewType)


@cache
def _member_classes(language: str) -> frozenset[type]:
    lang = FAMILY.by_name(language)
    module = importlib.import_module(lang.module)
    kinds: tuple[type, ...] = module.KINDS
    return frozenset(kinds)


# Per node class, the fields that are not children (where types live): computed once per class
# rather than at every node of every check.
_TERMINAL_FIELDS: dict[type, tuple[str, ...]] = {}


def _terminal_fields(cls: type[Node]) -> tuple[str, ...]:
    fields = _TERMINAL_FIELDS.get(cls)
    if fields is None:
        fields = tuple(name for name in cls.FIELDS if name not in cls.CHILD_FIELDS)
        _TERMINAL_FIELDS[cls] = fields
    return fields


# Per language, the operators already found admitted and registered: both facts only ever hold
# more (operators are registered, never removed), so a positive verdict is final.
_ACCEPTED_OPS: dict[str, set[str]] = {}


def _accepted_ops(language: str) -> set[str]:
    accepted = _ACCEPTED_OPS.get(language)
    if accepted is None:
        accepted = _ACCEPTED_OPS[language] = set()
    return accepted


def _label(node: Node) -> str:
    name = getattr(node, "name", None)
    return f"{node.KIND} `{name}`" if isinstance(name, str) else node.KIND


def verify_language(program: Node, language: str) -> list[Diagnostic]:
    lang = FAMILY.by_name(language)
    rule = f"{lang.name}Grammar"
    members = _member_classes(lang.name)
    forms = lang.type_forms
    operand_forms = lang.operand_forms
    shortcut = _clean(summary(program), lang, members)
    if shortcut is True or (shortcut == _CALLS_TO_CHECK and _calls_conform(program, lang)):
        return []  # the walk below would find nothing: it runs only to report what fails
    diagnostics: list[Diagnostic] = []
    seen: set[str] = set()

    def report(node: Node, message: str, hint: str) -> None:
        key = f"{node.node_span}|{message}"
        if key not in seen:
            seen.add(key)
            diagnostics.append(Diagnostic.at(node, rule, message, hint))

    def report_type(node: Node, field_name: str, ty: Type) -> None:
        report(node, f"{_label(node)} has {field_name} {format_type(ty)} ({describe_forms(ty)}), "
               f"not admitted by {lang.name} (type forms: {', '.join(sorted(forms))})",
               _type_hint(lang, ty))

    # Within one check every node stays alive, so verdicts can be keyed by the type's id alone.
    admitted: dict[int, bool] = {}
    # A node object shared by several parents (a variable at its definition and its uses) gets
    # the same verdicts, and `report` drops repeats, so each object is checked once.
    checked: set[int] = set()
    terminal_fields = _TERMINAL_FIELDS
    accepted = _accepted_ops(lang.name)
    for node in preorder(program):
        if id(node) in checked:
            continue
        checked.add(id(node))
        cls = type(node)
        if cls not in members:
            if node.KIND in lang.kinds:
                report(node, f"{node.KIND} node of language {node.LANGUAGE} inside a {lang.name} program",
                       f"the pass producing {lang.name} must rebuild every node in the target language")
            else:
                report(node, f"{lang.name} has no node kind {node.KIND}",
                       f"{lang.name} removed {node.KIND}: lower it before this point")
            continue
        fields = terminal_fields.get(cls)
        if fields is None:
            fields = _terminal_fields(cls)
        for field_name in fields:
            value = getattr(node, field_name)
            if isinstance(value, _TYPE_CLASSES):
                verdict = admitted.get(id(value))
                if verdict is None:
                    verdict = admitted[id(value)] = admits_type(value, forms)
                if not verdict:
                    report_type(node, field_name, value)
            elif isinstance(value, tuple):
                for item in value:
                    if isinstance(item, _TYPE_CLASSES) and not admits_type(item, forms):
                        report_type(node, field_name, item)
        if node.KIND == "Call":
            op = getattr(node, "op", None)
            if isinstance(op, str) and op not in accepted:
                _check_op(lang, node, op, report)
            if isinstance(op, str) and operand_forms and constrains(operand_forms, op):
                for message, hint in operand_problems(operand_forms, op, getattr(node, "args"), getattr(node, "type"),
                                                      getattr(node, "attrs", ())):
                    report(node, message, hint)
    return diagnostics


# `_clean`'s third verdict: everything the summary shows is admitted, but some operator has an
# operand form, which judges each of its calls (by their arguments), not the operator.
_CALLS_TO_CHECK = "calls"


def _calls_conform(program: Node, lang: Language) -> bool:
    """Whether every call of an operand-form-constrained operator conforms (a look at those
    calls only: the rest of the program was already found clean from its summary)."""
    forms = lang.operand_forms
    constrained: dict[str, bool] = {}
    for node in preorder(program):
        if node.KIND != "Call":
            continue
        op = getattr(node, "op", None)
        if not isinstance(op, str):
            continue
        applies = constrained.get(op)
        if applies is None:
            applies = constrained[op] = constrains(forms, op)
        if applies and operand_problems(forms, op, getattr(node, "args"), getattr(node, "type"),
                                        getattr(node, "attrs", ())):
            return False
    return True


def _clean(found: Summary, lang: Language, members: frozenset[type]) -> bool | str:
    """Every class a member, every type admitted, every operator admitted and registered:
    True; `_CALLS_TO_CHECK` when only operand forms remain to be checked, call by call."""
    if not found.classes <= members:
        return False
    forms = lang.type_forms
    for values in found.values.values():
        for value in values:
            if isinstance(value, _TYPE_CLASSES):
                if not admits_type(value, forms):
                    return False
            elif isinstance(value, tuple):
                for item in value:
                    if isinstance(item, _TYPE_CLASSES) and not admits_type(item, forms):
                        return False
    accepted = _accepted_ops(lang.name)
    verdict: bool | str = True
    for op in found.field_values("Call", "op"):
        if isinstance(op, str) and op not in accepted:
            if not (lang.admits_op(op) and op in REGISTRY):
                return False
            accepted.add(op)
        # An operand form judges each call, not the op: its calls are looked at one by one.
        if isinstance(op, str) and lang.operand_forms and constrains(lang.operand_forms, op):
            verdict = _CALLS_TO_CHECK
    return verdict


def _type_hint(lang: Language, ty: object) -> str:
    if isinstance(ty, TileType) and ty.memory_space is None:
        return "every tile needs a memory space here: run infer-tile-memory-space first"
    if isinstance(ty, TileType) and ty.memref is None and "tile-addressed" in lang.type_forms:
        return "every tile needs a MemRef here: run init-mem-ref / allocate-memory-addr first"
    return f"use a type {lang.name} admits"


def _check_op(lang: Language, node: Node, op: str, report: Callable[[Node, str, str], None]) -> None:
    if not lang.admits_op(op):
        report(node, f"operator {op} is not admitted by {lang.name} (admits {', '.join(sorted(lang.op_patterns))})",
               f"lower {op} before reaching {lang.name}")
    elif op not in REGISTRY:
        from languages.ops.pypto_names import PYPTO_OPERATORS

        if op in PYPTO_OPERATORS:
            report(node, REGISTRY.unknown_message(op),
                   "list the supported operators with `python -m nanopass.pipeline --list-ops`")
            return
        close = difflib.get_close_matches(op, [name for name in REGISTRY.names() if lang.admits_op(name)], n=3)
        hint = f"did you mean {', '.join(close)}?" if close else "check the spelling"
        report(node, f"unknown operator {op}", hint)
    else:
        _accepted_ops(lang.name).add(op)


def _for(language: str) -> Callable[[Node], list[Diagnostic]]:
    def verify(program: Node) -> list[Diagnostic]:
        return verify_language(program, language)

    verify.__name__ = f"verify_{language.lower()}"
    return verify


def verify(program: Node) -> list[Diagnostic]:
    """Membership in the language the program's classes claim."""
    return verify_language(program, type(program).LANGUAGE)


verify_dsl = _for("DSL")
verify_tensor = _for("Tensor")
verify_tile_unplaced = _for("TileUnplaced")
verify_tile_placed = _for("TilePlaced")
verify_l0_tiled = _for("L0Tiled")
verify_addressed = _for("Addressed")
verify_pto = _for("PTO")
