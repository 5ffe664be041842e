"""Type forms: the meaning of the type-form names used in language declarations.

A language admits a type when it matches one of the language's forms (`languages/decls.py`).
The placement stages differ only here: a TileUnplaced tile may lack a memory space, a TilePlaced
tile has its space and view, an Addressed tile also has its MemRef. A tuple type is admitted
when every element is (recursively).
"""

from __future__ import annotations

from typing import Callable

from languages.types import NoneType, ScalarType, TensorType, TileType, TupleType, ViewType


def _tile_unplaced(t: object) -> bool:
    # A view is meaningless without a space: the invariant of TileType (view None iff space None).
    return isinstance(t, TileType) and t.memref is None and ((t.memory_space is None) == (t.view is None))


def _tile_placed(t: object) -> bool:
    return isinstance(t, TileType) and t.memory_space is not None and t.view is not None and t.memref is None


def _tile_addressed(t: object) -> bool:
    return (
        isinstance(t, TileType)
        and t.memory_space is not None
        and t.view is not None
        and t.memref is not None
        and t.memref.space == t.memory_space
    )


TYPE_FORMS: dict[str, Callable[[object], bool]] = {
    "scalar": lambda t: isinstance(t, ScalarType),
    "tensor": lambda t: isinstance(t, TensorType),
    "tuple": lambda t: isinstance(t, TupleType),
    "none": lambda t: isinstance(t, NoneType),
    "tile-unplaced": _tile_unplaced,
    "tile-placed": _tile_placed,
    "tile-addressed": _tile_addressed,
    "pto-view": lambda t: isinstance(t, ViewType),
}


def matching_forms(t: object, forms: frozenset[str]) -> list[str]:
    """The forms of `forms` that admit `t` (tuple elements must each match some form)."""
    found = [name for name in sorted(forms) if TYPE_FORMS[name](t)]
    if isinstance(t, TupleType) and found == ["tuple"]:
        if not all(matching_forms(e, forms) for e in t.types):
            return []
    return found


# Verdicts by type identity: a grammar check asks about the same few type objects at every
# node that carries them (a variable's type at its definition and at each use). Types are
# frozen, so a verdict never goes stale; the entry keeps its type alive, so the id cannot be
# reused while the entry exists.
_ADMITS_CAPACITY = 4096
_ADMITS: dict[tuple[int, frozenset[str]], tuple[object, bool]] = {}


# The class each form admits, and the predicate an instance must meet besides (None: every
# instance). For a given set of forms this decides every type class once: scalars, tensors,
# none and views by their class alone, a tile by its placement predicates.
_FORM_CLASSES: dict[str, tuple[type, Callable[[object], bool] | None]] = {
    "scalar": (ScalarType, None),
    "tensor": (TensorType, None),
    "none": (NoneType, None),
    "pto-view": (ViewType, None),
    "tile-unplaced": (TileType, _tile_unplaced),
    "tile-placed": (TileType, _tile_placed),
    "tile-addressed": (TileType, _tile_addressed),
}
_Rule = Callable[[object], bool] | bool
_CLASS_RULES: dict[frozenset[str], dict[type, _Rule] | None] = {}


def _any_of(checks: tuple[Callable[[object], bool], ...]) -> Callable[[object], bool]:
    return lambda t: any(check(t) for check in checks)


def _class_rule(cls: type, forms: frozenset[str]) -> _Rule:
    predicates = [_FORM_CLASSES[name][1] for name in sorted(forms) if name != "tuple" and _FORM_CLASSES[name][0] is cls]
    if not predicates or None in predicates:
        return bool(predicates)
    return _any_of(tuple(pred for pred in predicates if pred is not None))


def _class_rules(forms: frozenset[str]) -> dict[type, _Rule] | None:
    """Per leaf type class, its verdict under `forms` (a bool, or the predicate to meet); None
    when `forms` names a form this table does not know (the generic path decides)."""
    if forms not in _CLASS_RULES:
        known = all(name in _FORM_CLASSES or name == "tuple" for name in forms)
        _CLASS_RULES[forms] = (
            {cls: _class_rule(cls, forms) for cls in (ScalarType, TensorType, NoneType, ViewType, TileType)}
            if known else None)
    return _CLASS_RULES[forms]


def admits_type(t: object, forms: frozenset[str]) -> bool:
    rules = _CLASS_RULES[forms] if forms in _CLASS_RULES else _class_rules(forms)
    if rules is not None:
        rule = rules.get(t.__class__)
        if rule is not None:  # a leaf type of a known class: decided without the memo
            return rule if isinstance(rule, bool) else rule(t)
    key = (id(t), forms)
    hit = _ADMITS.get(key)
    if hit is not None and hit[0] is t:
        return hit[1]
    verdict = _admits(t, forms)
    if len(_ADMITS) >= _ADMITS_CAPACITY:
        _ADMITS.clear()
    _ADMITS[key] = (t, verdict)
    return verdict


def describe_forms(t: object) -> str:
    """The forms `t` would match in any language (for diagnostics)."""
    names = [name for name, pred in TYPE_FORMS.items() if pred(t)]
    return ", ".join(names) if names else "no known type form"


def _admits(t: object, forms: frozenset[str]) -> bool:
    """`bool(matching_forms(t, forms))` without building the list: only the "tuple" form admits
    a tuple type, and then only when every element is admitted."""
    if isinstance(t, TupleType):
        return "tuple" in forms and all(admits_type(e, forms) for e in t.types)
    return any(TYPE_FORMS[name](t) for name in forms)
