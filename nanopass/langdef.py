"""Language declarations by extension, nanopass style.

A language is declared once, from its predecessor, by what it adds and removes:

    TilePlaced = define_language(
        "TilePlaced", extends=TileUnplaced,
        doc="every tile has a memory space and its canonical view",
        remove_type_forms={"tile-unplaced"}, add_type_forms={"tile-placed"},
    )

Node kinds are grammar productions (a class name, its nonterminal, its fields); fields name
either another kind or nonterminal of the same language or a *terminal* type supplied by the
language family's terminals module. Type forms, operand forms and admitted operator sets are
names and patterns: their meaning (predicates over terminal types, rules over an operator call's
operands, op lookup) belongs to the client compiler. A type form says which types a node may
carry; an operand form says what every call of the language must look like beyond its op's
own typing (e.g. "every cube matmul reads L0 buffers"), so an invariant that is a grammar fact
is declared in the language rather than left to a verifier.

The typed Python module of each language is generated from these declarations by
`nanopass.gen_languages`; a stale generated module fails the test suite.
"""

from __future__ import annotations

from typing_extensions import override

import fnmatch
from dataclasses import dataclass, field
from typing import Iterable, Mapping


@dataclass(frozen=True)
class FieldDecl:
    """One field of a production. `type` is a small type expression: a name, or
    `tuple[Name, ...]`, or `Name | None`; names resolve to kinds/nonterminals first,
    then to the family's terminals."""

    name: str
    type: str


@dataclass(frozen=True)
class KindDecl:
    """A production: `name` (the node class), the nonterminal it belongs to, its fields."""

    name: str
    nonterminal: str
    fields: tuple[FieldDecl, ...]
    doc: str = ""


def kind(kind_name: str, nonterminal: str, doc: str = "", /, **fields: str) -> KindDecl:
    """Shorthand: kind("AssignStmt", "Stmt", "doc", target="Var", value="Expr")."""
    return KindDecl(kind_name, nonterminal, tuple(FieldDecl(n, t) for n, t in fields.items()), doc)


@dataclass(frozen=True)
class Language:
    """A declared language: its productions, type forms and admitted operator patterns."""

    name: str
    doc: str
    module: str  # python module path of the generated typed module
    parent: Language | None
    kinds: Mapping[str, KindDecl]
    type_forms: frozenset[str]
    op_patterns: frozenset[str]
    operand_forms: frozenset[str] = field(default_factory=frozenset)
    implemented: bool = True
    added_kinds: frozenset[str] = field(default_factory=frozenset)
    removed_kinds: frozenset[str] = field(default_factory=frozenset)

    @property
    def nonterminals(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for k in self.kinds.values():
            seen.setdefault(k.nonterminal, None)
        return tuple(seen)

    def kinds_of(self, nonterminal: str) -> tuple[KindDecl, ...]:
        return tuple(k for k in self.kinds.values() if k.nonterminal == nonterminal)

    def admits_op(self, op: str) -> bool:
        return any(fnmatch.fnmatchcase(op, pattern) for pattern in self.op_patterns)

    @override

    def __hash__(self) -> int:
        return hash(self.name)

    @override

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Language) and other.name == self.name


def define_language(
    name: str,
    *,
    doc: str,
    module: str,
    extends: Language | None = None,
    add: Iterable[KindDecl] = (),
    remove: Iterable[str] = (),
    add_type_forms: Iterable[str] = (),
    remove_type_forms: Iterable[str] = (),
    add_ops: Iterable[str] = (),
    remove_ops: Iterable[str] = (),
    add_operand_forms: Iterable[str] = (),
    remove_operand_forms: Iterable[str] = (),
    implemented: bool = True,
) -> Language:
    """Declare `name` as `extends` plus `add` minus `remove` (kinds, type forms, op patterns,
    operand forms).

    Removing something the parent does not have, or adding something it already has, is a
    declaration error: a diff must say exactly what changes."""
    kinds: dict[str, KindDecl] = dict(extends.kinds) if extends else {}
    type_forms = set(extends.type_forms) if extends else set()
    ops = set(extends.op_patterns) if extends else set()
    operand_forms = set(extends.operand_forms) if extends else set()
    removed = frozenset(remove)
    for k in removed:
        if k not in kinds:
            raise ValueError(f"language {name}: cannot remove kind {k!r}: the parent has no such kind")
        del kinds[k]
    added: set[str] = set()
    for decl in add:
        if decl.name in kinds and decl.name not in removed:
            raise ValueError(f"language {name}: kind {decl.name!r} already exists; remove it first to replace it")
        kinds[decl.name] = decl
        added.add(decl.name)
    _apply_diff(name, "type form", type_forms, add_type_forms, remove_type_forms)
    _apply_diff(name, "op pattern", ops, add_ops, remove_ops)
    _apply_diff(name, "operand form", operand_forms, add_operand_forms, remove_operand_forms)
    return Language(
        name=name,
        doc=doc,
        module=module,
        parent=extends,
        kinds=kinds,
        type_forms=frozenset(type_forms),
        op_patterns=frozenset(ops),
        operand_forms=frozenset(operand_forms),
        implemented=implemented,
        added_kinds=frozenset(added),
        removed_kinds=removed,
    )


def _apply_diff(lang: str, what: str, current: set[str], add: Iterable[str], remove: Iterable[str]) -> None:
    for item in remove:
        if item not in current:
            raise ValueError(f"language {lang}: cannot remove {what} {item!r}: the parent does not have it")
        current.remove(item)
    for item in add:
        if item in current:
            raise ValueError(f"language {lang}: {what} {item!r} is already present")
        current.add(item)


@dataclass(frozen=True)
class LanguageFamily:
    """An ordered chain of languages sharing one terminals module."""

    name: str
    languages: tuple[Language, ...]
    terminals_module: str
    terminal_names: tuple[str, ...]
    # Nonterminals whose rewrite may expand one node into several (statement blocks).
    expanding: frozenset[str]
    output_dir: str  # directory of the generated modules, relative to the repo root

    def by_name(self, name: str) -> Language:
        for lang in self.languages:
            if lang.name.lower() == name.lower():
                return lang
        known = ", ".join(lang.name for lang in self.languages)
        raise KeyError(f"unknown language {name!r} (known: {known})")


@dataclass(frozen=True)
class LanguageDiff:
    """What `new` adds and removes relative to `old`."""

    old: Language
    new: Language
    added_kinds: tuple[str, ...]
    removed_kinds: tuple[str, ...]
    changed_kinds: tuple[str, ...]
    added_type_forms: tuple[str, ...]
    removed_type_forms: tuple[str, ...]
    added_ops: tuple[str, ...]
    removed_ops: tuple[str, ...]
    added_operand_forms: tuple[str, ...] = ()
    removed_operand_forms: tuple[str, ...] = ()


def diff_languages(old: Language, new: Language) -> LanguageDiff:
    common = set(old.kinds) & set(new.kinds)
    return LanguageDiff(
        old=old,
        new=new,
        added_kinds=tuple(sorted(set(new.kinds) - set(old.kinds))),
        removed_kinds=tuple(sorted(set(old.kinds) - set(new.kinds))),
        changed_kinds=tuple(sorted(k for k in common if old.kinds[k] != new.kinds[k])),
        added_type_forms=tuple(sorted(new.type_forms - old.type_forms)),
        removed_type_forms=tuple(sorted(old.type_forms - new.type_forms)),
        added_ops=tuple(sorted(new.op_patterns - old.op_patterns)),
        removed_ops=tuple(sorted(old.op_patterns - new.op_patterns)),
        added_operand_forms=tuple(sorted(new.operand_forms - old.operand_forms)),
        removed_operand_forms=tuple(sorted(old.operand_forms - new.operand_forms)),
    )


def format_kind(decl: KindDecl) -> str:
    fields = " ".join(f"{f.name}:{f.type}" for f in decl.fields)
    return f"({decl.name} {fields})" if fields else f"({decl.name})"


def format_language(lang: Language) -> str:
    """A readable grammar listing, one nonterminal per block."""
    lines = [f"(define-language {lang.name}"]
    if lang.parent is not None:
        lines.append(f"  (extends {lang.parent.name})")
    lines.append(f"  ;; {lang.doc}")
    if not lang.implemented:
        lines.append("  ;; (declared; its passes are not implemented yet)")
    for nt in lang.nonterminals:
        lines.append(f"  ({nt}")
        for decl in lang.kinds_of(nt):
            lines.append(f"    {format_kind(decl)}")
        lines.append("  )")
    lines.append(f"  (type-forms {' '.join(sorted(lang.type_forms))})")
    lines.append(f"  (ops {' '.join(sorted(lang.op_patterns))})")
    if lang.operand_forms:
        lines.append(f"  (operand-forms {' '.join(sorted(lang.operand_forms))})")
    lines[-1] += ")"
    return "\n".join(lines)


def format_diff(d: LanguageDiff) -> str:
    lines = [f"{d.new.name} relative to {d.old.name}:"]

    def section(sign: str, title: str, items: Iterable[str]) -> None:
        for item in items:
            lines.append(f"  {sign} {title} {item}")

    section("+", "kind", (format_kind(d.new.kinds[k]) for k in d.added_kinds))
    section("-", "kind", (format_kind(d.old.kinds[k]) for k in d.removed_kinds))
    for k in d.changed_kinds:
        lines.append(f"  ~ kind {format_kind(d.old.kinds[k])} -> {format_kind(d.new.kinds[k])}")
    section("+", "type-form", d.added_type_forms)
    section("-", "type-form", d.removed_type_forms)
    section("+", "ops", d.added_ops)
    section("-", "ops", d.removed_ops)
    section("+", "operand-form", d.added_operand_forms)
    section("-", "operand-form", d.removed_operand_forms)
    if len(lines) == 1:
        lines.append("  (no differences)")
    return "\n".join(lines)
