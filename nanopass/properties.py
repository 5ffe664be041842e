"""Properties: named facts about a program, each with the languages where it is meaningful and
a verifier (GCC's `properties_required / provided / destroyed`).

A verifier is `verify(program) -> list[Diagnostic]`, named lazily as "module:function" so the
framework imports no client code until a property is actually checked. `scope` says whether a
verifier's verdict on one function depends only on that function ("function": the verify
instrument then re-checks only the functions a pass rebuilt) or on the whole program.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping

from nanopass.diagnostics import Diagnostic
from nanopass.node import Node, track_units

Verifier = Callable[..., list[Diagnostic]]  # (program) or, with uses_target, (program, target)

# The aspect "which language's node classes": a verifier blind to it gives the same verdict on
# a function rebuilt in the next language with the same kinds and fields (`Property.blind_to`).
LANGUAGE_ASPECT = "language"
# The aspect "which node objects are shared" (a variable one object at all its uses, or one per
# use): a verifier blind to it reads nodes by kind and fields, never by identity.
SHARING_ASPECT = "sharing"


@dataclass(frozen=True)
class Property:
    name: str
    languages: frozenset[str]
    verifier: str | Verifier  # "module:function" (imported on first use) or a callable
    doc: str = ""
    scope: str = "function"  # "function" | "program"
    # The verifier also takes the compilation target (the plugin's backend object, e.g. a
    # hardware handler): capacity limits are facts of the target, not of the program.
    uses_target: bool = False
    # Aspects of the IR the verifier never reads: one the plugin defines (`aspects`, e.g.
    # "memrefs"), LANGUAGE_ASPECT (the verdict depends on node kinds and fields only, not on
    # which language's classes hold them) or SHARING_ASPECT (nor on node identity). Where a pass rebuilt a function but changed it
    # only there, --verify-all keeps the verdict the function had instead of checking it
    # again. A test checks each claim (the verdicts on programs with that aspect altered are
    # the same).
    blind_to: frozenset[str] = frozenset()

    def meaningful_in(self, language: str) -> bool:
        return language in self.languages

    def load_verifier(self) -> Verifier:
        if callable(self.verifier):
            return self.verifier
        return _import_callable(self.verifier)

    def verify(self, program: Node, target: object = None) -> list[Diagnostic]:
        verifier: Callable[..., list[Diagnostic]] = self.load_verifier()
        track_units(program)  # the shared traversal memos hold every function of `program`
        return verifier(program, target) if self.uses_target else verifier(program)


_CACHE: dict[str, Verifier] = {}


def _import_callable(target: str) -> Verifier:
    if target not in _CACHE:
        module_name, _, attr = target.partition(":")
        fn = getattr(importlib.import_module(module_name), attr)
        if not callable(fn):
            raise TypeError(f"{target} is not callable")
        _CACHE[target] = fn
    return _CACHE[target]


@dataclass
class PropertyRegistry:
    """Name → property. Adding a property is one `Property(...)` entry in the plugin's table."""

    properties: dict[str, Property] = field(default_factory=dict)

    @staticmethod
    def of(table: Iterable[Property]) -> PropertyRegistry:
        reg = PropertyRegistry()
        for prop in table:
            reg.add(prop)
        return reg

    def add(self, prop: Property) -> None:
        if prop.name in self.properties:
            raise ValueError(f"property {prop.name} registered twice")
        self.properties[prop.name] = prop

    def __contains__(self, name: object) -> bool:
        return name in self.properties

    def __getitem__(self, name: str) -> Property:
        return self.properties[name]

    def names(self) -> list[str]:
        return list(self.properties)

    def meaningful(self, name: str, language: str) -> bool:
        prop = self.properties.get(name)
        # An unregistered property name (a typo in a pass declaration) is kept, so the
        # pipeline check reports it rather than silently dropping it.
        return prop is None or prop.meaningful_in(language)


def grammar_property(language: str) -> str:
    """The name of a language's membership property, e.g. `TensorGrammar`."""
    return f"{language}Grammar"


def available_after(
    available: frozenset[str],
    produces: Iterable[str],
    invalidates: Iterable[str],
    target_language: str,
    registry: PropertyRegistry,
) -> frozenset[str]:
    """GCC availability: produced properties accumulate, minus the invalidated, minus those not
    meaningful in the new language. Every pass's output is a member of its target language, so
    the target's grammar property is always produced."""
    accumulated = (set(available) | set(produces) | {grammar_property(target_language)}) - set(invalidates)
    return frozenset(p for p in accumulated if registry.meaningful(p, target_language))


def initial_properties(
    language: str, guaranteed: Mapping[str, Iterable[str]], registry: PropertyRegistry
) -> frozenset[str]:
    """What holds of a freshly loaded program of `language` (the loader verifies them)."""
    names = set(guaranteed.get(language, ())) | {grammar_property(language)}
    return frozenset(p for p in names if registry.meaningful(p, language))
