"""How a client compiler plugs into the framework.

The framework imports nothing from the client's packages: a client publishes one
`CompilerPlugin` object under the entry-point group `nanopass.compilers` (the PTO compiler
declares `pto = "nanopass_pto.plugin:PLUGIN"` in pyproject.toml). When the package is not
installed (running from a source checkout), `nanopass_pto.plugin:PLUGIN` is imported instead.
`$NANOPASS_PLUGIN=module:attr` overrides both (tests, or a second compiler in one environment).

Extension points for client CLIs: `add_arguments` adds argparse options to
`python -m nanopass.pipeline` (e.g. `--simulate`, `--inputs`), and `post_compile` runs after a
successful compile with the parsed arguments (e.g. to simulate the result).
"""

from __future__ import annotations

import argparse
import importlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Protocol

from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.langdef import Language, LanguageFamily
from nanopass.node import Node
from nanopass.passes import PassContext, PassRegistry
from nanopass.properties import Property, PropertyRegistry, grammar_property, initial_properties

ENTRY_POINT_GROUP = "nanopass.compilers"
DEFAULT_PLUGIN = "nanopass_pto.plugin:PLUGIN"


class FinalPrinter(Protocol):
    def __call__(self, program: Node, debuginfo: bool = True) -> str: ...


@dataclass
class CompilerPlugin:
    name: str
    family: LanguageFamily
    # Type-form name → predicate over a terminal type value (the grammar check uses these).
    type_forms: Mapping[str, Callable[[object], bool]]
    passes: Mapping[str, str]  # pass name → "module:Class"
    properties: tuple[Property, ...]
    default_pipelines: Mapping[str, str]  # backend name → pipeline spec
    default_backend: str
    parse: Callable[[str, str], Node]  # (text, filename) → program of the text's language
    print_program: Callable[[Node], str]
    # Properties the loader guarantees (verifies) for a program of each input language.
    load_properties: Mapping[str, frozenset[str]] = field(default_factory=dict)
    # Text of a program of the final language (e.g. PTO → MLIR) and its file suffix;
    # `debuginfo` asks for source locations in the text (mlir-opt's --mlir-print-debuginfo).
    print_final: FinalPrinter | None = None
    final_suffix: str = ".txt"
    source_suffix: str = ".py"
    examples_dir: Path | None = None
    make_backend: Callable[[str], object] = lambda name: None
    add_arguments: Callable[[argparse.ArgumentParser], None] | None = None
    # The CLI's parse, when the input's meaning depends on options (e.g. the shapes a `@pl.jit`
    # kernel is specialized on): (text, filename, parsed arguments) → program.
    parse_with_args: Callable[[str, str, argparse.Namespace], Node] | None = None
    # Variants of the default pipelines (variant → backend name → spec) and the plugin option
    # that selects one (args → variant, "" for the plain default): e.g. the PTO plugin's
    # --memory-planner, whose pipelines configure their passes for that planner.
    pipeline_variants: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    pipeline_variant: Callable[[argparse.Namespace], str] | None = None
    # Called after a successful compile: (args, final program, context) → exit status or None.
    post_compile: Callable[[argparse.Namespace, Node, PassContext], int | None] | None = None
    # `python -m nanopass.fuzz`: builds the compiler's FuzzTarget (program generator, oracle, blame,
    # mutant catalogue); imported lazily so compiling never loads the fuzzer.
    fuzz_target: Callable[[], object] | None = None
    # Extra `--list-NAME` reports of `python -m nanopass.pipeline`: NAME -> (help, report).
    listings: Mapping[str, tuple[str, Callable[[], str]]] = field(default_factory=dict)
    # Aspect name -> whether two terminal field values (types, attributes, ...) are equal once
    # that aspect is disregarded (e.g. "memrefs": two types equal but for their buffers).
    # Properties name the aspects their verifiers never read (`Property.blind_to`).
    aspects: Mapping[str, Callable[[object, object], bool]] = field(default_factory=dict)
    _pass_registry: PassRegistry | None = field(default=None, repr=False)
    _property_registry: PropertyRegistry | None = field(default=None, repr=False)

    @property
    def pass_registry(self) -> PassRegistry:
        if self._pass_registry is None:
            self._pass_registry = PassRegistry(self.passes)
        return self._pass_registry

    @property
    def property_registry(self) -> PropertyRegistry:
        if self._property_registry is None:
            self._property_registry = PropertyRegistry.of(self.properties)
        return self._property_registry

    def language(self, name: str) -> Language:
        return self.family.by_name(name)

    def language_of(self, program: Node) -> Language:
        return self.family.by_name(type(program).LANGUAGE)

    def is_final(self, program: Node) -> bool:
        return self.print_final is not None and type(program).LANGUAGE == self.family.languages[-1].name

    def text_of(self, program: Node, debuginfo: bool = True) -> tuple[str, str]:
        """(text, file suffix) of a program in any language of the family."""
        if self.print_final is not None and self.is_final(program):
            return self.print_final(program, debuginfo=debuginfo), self.final_suffix
        return self.print_program(program), self.source_suffix

    def default_pipeline(self, backend: str | None = None, variant: str = "") -> str:
        pipelines = self.pipeline_variants[variant] if variant else self.default_pipelines
        return pipelines.get(backend or self.default_backend, pipelines.get(self.default_backend, ""))

    def selected_variant(self, args: argparse.Namespace) -> str:
        """The default-pipeline variant the plugin's CLI options select ("" for the default)."""
        return self.pipeline_variant(args) if self.pipeline_variant is not None else ""

    def initial_properties(self, language: str) -> frozenset[str]:
        return initial_properties(language, self.load_properties, self.property_registry)

    def verify_loaded(self, program: Node, also: Iterable[str] = (), target: object = None,
                      claimed: frozenset[str] | None = None) -> frozenset[str]:
        """Check what the loader guarantees (an error if one fails) and which of `also` happen
        to hold (a re-parsed dump or reproducer keeps what held when it was written).

        `claimed` replaces the loader's guarantees by what a dump or reproducer says held at
        its pipeline position (the grammar always). The grammar is checked first and alone: the
        other verifiers assume a well-formed program, and would report its faults again."""
        language = type(program).LANGUAGE
        registry = self.property_registry
        grammar = grammar_property(language)
        if claimed is None:
            guaranteed = self.initial_properties(language)
        else:
            guaranteed = frozenset(
                name for name in claimed | {grammar}
                if name in registry and registry.meaningful(name, language))
        order = ([grammar] if grammar in guaranteed else []) + sorted(guaranteed - {grammar})
        diagnostics: list[Diagnostic] = []
        for name in order:
            diagnostics.extend(d for d in registry[name].verify(program, target) if d.severity == "error")
            if diagnostics and name == grammar:
                break
        if diagnostics:
            raise CompileError(diagnostics, headline=f"error: the input program is not valid {language}")
        extra = {
            name
            for name in set(also) - guaranteed
            if name in registry
            and registry.meaningful(name, language)
            and not any(d.severity == "error" for d in registry[name].verify(program, target))
        }
        return guaranteed | extra

    def examples(self) -> list[Path]:
        if self.examples_dir is None or not self.examples_dir.is_dir():
            return []
        return sorted(p for p in self.examples_dir.glob("*" + self.source_suffix) if not p.name.startswith("_"))


_PLUGINS: dict[str, CompilerPlugin] = {}


def get_plugin(name: str | None = None) -> CompilerPlugin:
    """The plugin registered under `name` (or the only/first one), found via entry points or
    the source-checkout fallback."""
    key = name or ""
    if key not in _PLUGINS:
        _PLUGINS[key] = _discover(name)
    return _PLUGINS[key]


def _discover(name: str | None) -> CompilerPlugin:
    from importlib.metadata import entry_points

    override_target = os.environ.get("NANOPASS_PLUGIN")
    if override_target:  # an explicit choice (tests, a second compiler) beats installed ones
        return _check(_import_object(override_target), override_target)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if name is None or ep.name == name:
            return _check(ep.load(), ep.value)
    return _check(_import_object(DEFAULT_PLUGIN), DEFAULT_PLUGIN)


def _import_object(target: str) -> Any:
    module_name, _, attr = target.partition(":")
    return getattr(importlib.import_module(module_name), attr or "PLUGIN")


def _check(obj: object, where: str) -> CompilerPlugin:
    if not isinstance(obj, CompilerPlugin):
        raise TypeError(f"{where} is not a nanopass CompilerPlugin")
    return obj
