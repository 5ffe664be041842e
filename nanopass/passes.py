"""The pass base class and the context a pass runs in.

A pass is a frozen dataclass (xDSL style): its *options* are its dataclass fields, typed
`int`, `float`, `bool`, `str` or `tuple[str, ...]`, and they round-trip to and from the
pipeline text (`auto-tile-matmul-l0{backend=910B}`). Class attributes state what the pass is
(`name`, `spec_name`), which languages it maps between (`source`, `target`) and what it does
to properties, GCC style (`requires`, `produces`, `invalidates`).

The pass context carries whatever is shared by every pass of one run: the backend handler
(opaque to the framework: whatever the plugin's factory made), statistics counters, and a
sink for warnings and performance hints. A pass's own state lives on the pass object, never
in extra visit arguments (ANCHORS.md, nanopass).
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
import re
import typing
from abc import ABC, abstractmethod
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Generic, Mapping, Protocol, TypeVar

from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.langdef import Language
from nanopass.node import NO_SPAN, Node, Span
from nanopass.rewriter import RewriterBase

SrcProgramT = TypeVar("SrcProgramT", bound=Node)
TgtProgramT = TypeVar("TgtProgramT", bound=Node)

# The value of one option as written in a pipeline string: a scalar or a comma list.
OptionText = str | tuple[str, ...]
OptionValue = int | float | bool | str | tuple[str, ...]

_KEBAB = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")


@dataclass
class PassContext:
    """Shared state of one pipeline run."""

    backend_name: str = ""
    # Whatever the plugin's backend factory returned; passes of the client compiler know its type.
    backend: object = None
    statistics: Counter[str] = field(default_factory=Counter)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    options: dict[str, object] = field(default_factory=dict)
    # Set by the runner: the pass currently running (statistics are keyed by it).
    current_pass: str = ""

    def bump(self, counter: str, amount: int = 1) -> None:
        """Increment a statistic of the current pass (shown by --statistics)."""
        self.statistics[f"{self.current_pass}.{counter}" if self.current_pass else counter] += amount

    def record_rewriter(self, rewriter: RewriterBase | ProgramRewriter[Any, Any]) -> None:
        """Fold a rewriter's counters into the statistics of the current pass."""
        for key, value in rewriter.stats.items():
            self.bump(key, value)

    def warn(self, diagnostic: Diagnostic) -> None:
        """Report a warning or performance hint; it does not stop compilation."""
        self.diagnostics.append(diagnostic)

    def rewrite(self, rewriter: ProgramRewriter[InT, OutT], program: InT) -> OutT:
        """Run `rewriter` over the whole program and keep its statistics: the body of most
        passes, which state only the kinds they change in a generated rewriter subclass."""
        result = rewriter.visit_Program(program)
        self.record_rewriter(rewriter)
        return result


SrcT = TypeVar("SrcT", contravariant=True)
TgtT = TypeVar("TgtT", covariant=True)
InT = TypeVar("InT")
OutT = TypeVar("OutT")


class ProgramRewriter(Protocol[SrcT, TgtT]):
    """What `PassContext.rewrite` needs: a generated rewriter (`<lang>.Rewriter`,
    `<lang>.From<Parent>`) subclass, whose `visit_Program` is typed per language pair."""

    stats: Counter[str]

    def visit_Program(self, node: SrcT, /) -> TgtT: ...


class Pass(ABC, Generic[SrcProgramT, TgtProgramT]):
    """Base of every pass. Subclasses are `@dataclass(frozen=True)` classes whose fields are
    the pass options; they set the class attributes below and implement `run`."""

    name: ClassVar[str] = ""  # kebab-case, the name in pipeline strings
    spec_name: ClassVar[str] = ""  # the spec's CamelCase name, used in dump file names
    source: ClassVar[Language]
    target: ClassVar[Language]
    requires: ClassVar[frozenset[str]] = frozenset()
    produces: ClassVar[frozenset[str]] = frozenset()
    invalidates: ClassVar[frozenset[str]] = frozenset()
    summary: ClassVar[str] = ""  # one line for --list-passes (defaults to the docstring's first line)

    @abstractmethod
    def run(self, program: SrcProgramT, ctx: PassContext) -> TgtProgramT:
        """Transform `program`; never mutate it (nodes are immutable)."""

    # -- options ------------------------------------------------------------------------

    @classmethod
    def option_types(cls) -> dict[str, type]:
        """Field name → declared option type (resolved from the annotations)."""
        fields = _fields(cls)
        hints = typing.get_type_hints(cls) if fields else {}
        return {f.name: _option_kind(cls, f.name, hints[f.name]) for f in fields}

    @classmethod
    def option_defaults(cls) -> dict[str, object]:
        out: dict[str, object] = {}
        for f in _fields(cls):
            if f.default is not dataclasses.MISSING:
                out[f.name] = f.default
            elif f.default_factory is not dataclasses.MISSING:
                out[f.name] = f.default_factory()
        return out

    def option_values(self) -> dict[str, object]:
        return {f.name: getattr(self, f.name) for f in _fields(self)}

    @classmethod
    def from_options(cls, options: Mapping[str, OptionText], where: str = "") -> Pass[Any, Any]:
        """Build the pass from textual options, checking names and types."""
        types = cls.option_types()
        values: dict[str, object] = {}
        for written, text in options.items():
            key = written.replace("-", "_")
            if key not in types:
                known = ", ".join(_option_name(k) for k in types) or "none"
                raise CompileError(
                    Diagnostic(
                        "pipeline",
                        f"pass `{cls.name}` has no option `{written}`{where}",
                        hint=f"options of {cls.name}: {known}",
                    )
                )
            values[key] = _convert(cls.name, written, types[key], text)
        missing = [k for k in types if k not in values and k not in cls.option_defaults()]
        if missing:
            raise CompileError(
                Diagnostic(
                    "pipeline",
                    f"pass `{cls.name}` needs option(s) {', '.join(_option_name(m) for m in missing)}{where}",
                    hint=f"write `{cls.name}{{{_option_name(missing[0])}=...}}`",
                )
            )
        return cls(**values)

    def spec(self) -> str:
        """This pass as pipeline text; only options that differ from their defaults print."""
        defaults = self.option_defaults()
        parts = [
            f"{_option_name(k)}={format_option_value(v)}"
            for k, v in self.option_values().items()
            if k not in defaults or defaults[k] != v
        ]
        return f"{self.name}{{{' '.join(parts)}}}" if parts else self.name

    @classmethod
    def describe(cls) -> str:
        if cls.summary:
            return cls.summary
        doc = (cls.__doc__ or "").strip()
        return doc.splitlines()[0] if doc else ""

    @classmethod
    def check_declaration(cls) -> list[str]:
        """Problems with the class attributes (used by the registry test)."""
        problems: list[str] = []
        if not _KEBAB.match(cls.name):
            problems.append(f"{cls.__name__}.name {cls.name!r} is not kebab-case")
        if not cls.spec_name or not cls.spec_name[0].isupper():
            problems.append(f"{cls.__name__}.spec_name {cls.spec_name!r} is not CamelCase")
        for attr in ("source", "target"):
            if not isinstance(getattr(cls, attr, None), Language):
                problems.append(f"{cls.__name__}.{attr} is not a Language")
        return problems


def _is_dataclass(obj: object) -> bool:
    # A plain bool (not a TypeGuard): pass classes without options are not dataclasses.
    return dataclasses.is_dataclass(obj)


def _fields(obj: object) -> tuple[dataclasses.Field[Any], ...]:
    """The option fields of a pass class or object (none when it is not a dataclass)."""
    return dataclasses.fields(obj) if dataclasses.is_dataclass(obj) else ()


def _option_name(field_name: str) -> str:
    return field_name.replace("_", "-")


def _option_kind(cls: type, name: str, hint: object) -> type:
    if hint in (int, float, bool, str):
        assert isinstance(hint, type)
        return hint
    if typing.get_origin(hint) is tuple and typing.get_args(hint) == (str, ...):
        return tuple
    raise TypeError(f"{cls.__name__}.{name}: option type {hint!r} is not int, float, bool, str or tuple[str, ...]")


_BOOL_TEXT = {"true": True, "false": False, "1": True, "0": False}


def _parse_bool(text: str) -> bool:
    if text.lower() not in _BOOL_TEXT:
        raise ValueError(text)
    return _BOOL_TEXT[text.lower()]


# Scalar option type → (parser of its text, how an error message names what was expected).
_SCALAR_OPTIONS: dict[type, tuple[Callable[[str], OptionValue], str]] = {
    bool: (_parse_bool, "true or false"),
    int: (lambda text: int(text, 0), "an integer"),  # base 0: 0x40 and 0b101 are accepted too
    float: (float, "a number"),
    str: (str, "a string"),
}


def _convert(pass_name: str, written: str, kind: type, text: OptionText) -> OptionValue:
    def bad(expected: str) -> CompileError:
        shown = ",".join(text) if isinstance(text, tuple) else text
        return CompileError(
            Diagnostic(
                "pipeline",
                f"option `{written}` of pass `{pass_name}` expects {expected}, got `{shown}`",
                hint=f"write e.g. `{pass_name}{{{written}={_EXAMPLE[kind]}}}`",
            )
        )

    if kind is tuple:
        if text == "":  # `opt=""` spells the empty list
            return ()
        return text if isinstance(text, tuple) else (text,)
    parse, expected = _SCALAR_OPTIONS[kind]
    if isinstance(text, tuple):
        raise bad(f"a single {kind.__name__}, not a list")
    try:
        return parse(text)
    except ValueError:
        raise bad(expected) from None


_EXAMPLE: dict[type, str] = {int: "4", float: "0.5", bool: "true", str: "name", tuple: "a,b"}

_BARE = re.compile(r"^[A-Za-z0-9_.+\-/]+$")


def format_option_value(value: object) -> str:
    """Pipeline text of an option value; strings that are not bare words are quoted."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return ",".join(_quote(str(v)) for v in value) if value else '""'
    return _quote(str(value))


def _quote(text: str) -> str:
    if _BARE.match(text):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


class PassRegistry:
    """Pass name → "module:Class", imported on first use (xDSL's lazy registry)."""

    def __init__(self, table: Mapping[str, str]) -> None:
        self.table = dict(table)
        self._loaded: dict[str, type[Pass[Any, Any]]] = {}

    def names(self) -> list[str]:
        return list(self.table)

    def __contains__(self, name: object) -> bool:
        return name in self.table

    def get(self, name: str, col: int = 0, source: str = "<pipeline>") -> type[Pass[Any, Any]]:
        """The pass class registered as `name`; an unknown name suggests the closest ones."""
        if name not in self.table:
            close = difflib.get_close_matches(name, self.table, n=3, cutoff=0.5)
            hint = f"did you mean {', '.join('`' + c + '`' for c in close)}?" if close else ""
            hint += (" " if hint else "") + "`python -m nanopass.pipeline --list-passes` lists every pass"
            span = Span(source, 1, col) if col else NO_SPAN
            raise CompileError(Diagnostic("pipeline", f"unknown pass `{name}`", span, hint))
        if name not in self._loaded:
            self._loaded[name] = load_pass_class(self.table[name])
        return self._loaded[name]

    def all_classes(self) -> dict[str, type[Pass[Any, Any]]]:
        return {name: self.get(name) for name in self.table}


def load_pass_class(target: str) -> type[Pass[Any, Any]]:
    module_name, _, attr = target.partition(":")
    cls = getattr(importlib.import_module(module_name), attr)
    if not (isinstance(cls, type) and issubclass(cls, Pass)):
        raise TypeError(f"{target} is not a Pass subclass")
    return cls
