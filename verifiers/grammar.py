"""<Lang>Grammar: membership of a program in its language.

Every node's class must belong to the language's generated module (a node of another language
left inside the tree means a pass forgot to rebuild it), every type a node carries must match
one of the language's type forms, and every operator must be admitted by the language and
registered in the op registry.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import Callable

from languages.decls import FAMILY
from languages.ops import REGISTRY
from languages.pl_printer import format_type
from languages.type_forms import admits_type, describe_forms
from languages.types import NoneType, ScalarType, TensorType, TileType, TupleType, Type, ViewType
from nanopass.diagnostics import Diagnostic
from nanopass.langdef import Language
from nanopass.node import Node, walk

_TYPE_CLASSES = (ScalarType, TensorType, TileType, TupleType, NoneType, ViewType)


@cache
def _member_classes(language: str) -> frozenset[type]:
    lang = FAMILY.by_name(language)
    module = importlib.import_module(lang.module)
    kinds: tuple[type, ...] = module.KINDS
    return frozenset(kinds)


def _types_of(node: Node) -> list[tuple[str, Type]]:
    out: list[tuple[str, Type]] = []
    for name in node.FIELDS:
        if name in node.CHILD_FIELDS:
            continue
        value = getattr(node, name)
        if isinstance(value, _TYPE_CLASSES):
            out.append((name, value))
        elif isinstance(value, tuple):
            out.extend((name, v) for v in value if isinstance(v, _TYPE_CLASSES))
    return out


def _label(node: Node) -> str:
    name = getattr(node, "name", None)
    return f"{node.KIND} `{name}`" if isinstance(name, str) else node.KIND


def verify_language(program: Node, language: str) -> list[Diagnostic]:
    lang = FAMILY.by_name(language)
    rule = f"{lang.name}Grammar"
    members = _member_classes(lang.name)
    diagnostics: list[Diagnostic] = []
    seen: set[str] = set()

    def report(node: Node, message: str, hint: str) -> None:
        key = f"{node.node_span}|{message}"
        if key not in seen:
            seen.add(key)
            diagnostics.append(Diagnostic.at(node, rule, message, hint))

    for node in walk(program):
        if type(node) not in members:
            if node.KIND in lang.kinds:
                report(node, f"{node.KIND} node of language {node.LANGUAGE} inside a {lang.name} program",
                       f"the pass producing {lang.name} must rebuild every node in the target language")
            else:
                report(node, f"{lang.name} has no node kind {node.KIND}",
                       f"{lang.name} removed {node.KIND}: lower it before this point")
            continue
        for field_name, ty in _types_of(node):
            if not admits_type(ty, lang.type_forms):
                report(node, f"{_label(node)} has {field_name} {format_type(ty)} ({describe_forms(ty)}), "
                       f"not admitted by {lang.name} (type forms: {', '.join(sorted(lang.type_forms))})",
                       _type_hint(lang, ty))
        op = getattr(node, "op", None)
        if node.KIND == "Call" and isinstance(op, str):
            _check_op(lang, node, op, report)
    return diagnostics


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
        report(node, f"operator {op} is not registered", "check the spelling; registered operators live in languages/ops")


def _for(language: str) -> Callable[[Node], list[Diagnostic]]:
    def verify(program: Node) -> list[Diagnostic]:
        return verify_language(program, language)

    verify.__name__ = f"verify_{language.lower()}"
    return verify


def verify(program: Node) -> list[Diagnostic]:
    """Membership in the language the program's classes claim."""
    return verify_language(program, type(program).LANGUAGE)


verify_tensor = _for("Tensor")
verify_tile_unplaced = _for("TileUnplaced")
verify_tile_placed = _for("TilePlaced")
verify_l0_tiled = _for("L0Tiled")
verify_addressed = _for("Addressed")
verify_pto = _for("PTO")
