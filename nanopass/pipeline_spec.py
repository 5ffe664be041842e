"""The textual pipeline grammar (xDSL / MLIR style).

    pipeline := element (',' element)*
    element  := NAME ('{' (option (' '+ option)*)? '}')?
    option   := KEY '=' value
    value    := atom (',' atom)*          -- a comma inside braces separates list items
    atom     := bare-word | '"' chars '"'  -- quotes allow spaces, commas and braces

Example: `a,b{opt=1 other=x,y},c`. Errors name the column of the offending character.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.node import Span
from nanopass.passes import OptionText, _quote

_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")
_BARE_STOP = frozenset(' \t,{}="')


@dataclass(frozen=True)
class PassSpec:
    """One element of a pipeline string: the pass name and its options as written."""

    name: str
    options: dict[str, OptionText] = field(default_factory=dict)
    col: int = 1  # 1-based column of the name in the pipeline text

    def format(self) -> str:
        if not self.options:
            return self.name
        parts = [f"{k}={_format_text(v)}" for k, v in self.options.items()]
        return f"{self.name}{{{' '.join(parts)}}}"


def _format_text(value: OptionText) -> str:
    if isinstance(value, tuple):
        return ",".join(_quote(v) for v in value)
    return _quote(value)


def format_pipeline(elements: list[PassSpec]) -> str:
    return ",".join(e.format() for e in elements)


class _Parser:
    def __init__(self, text: str, source: str) -> None:
        self.text = text
        self.source = source
        self.pos = 0

    def error(self, message: str, hint: str = "") -> CompileError:
        col = self.pos + 1
        caret = f"\n    {self.text}\n    {' ' * self.pos}^"
        return CompileError(
            Diagnostic("pipeline", message + caret, Span(self.source, 1, col), hint),
            headline="error: malformed pass pipeline",
        )

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def skip_spaces(self) -> None:
        while self.peek() in (" ", "\t") and self.peek():
            self.pos += 1

    def parse(self) -> list[PassSpec]:
        elements: list[PassSpec] = []
        self.skip_spaces()
        if not self.peek():
            return elements
        while True:
            self.skip_spaces()
            elements.append(self.element())
            self.skip_spaces()
            ch = self.peek()
            if not ch:
                return elements
            if ch != ",":
                raise self.error(f"expected `,` or end of pipeline, found `{ch}`")
            self.pos += 1

    def word(self, what: str) -> str:
        start = self.pos
        while self.peek() and self.peek() in _NAME_CHARS:
            self.pos += 1
        if self.pos == start:
            found = self.peek() or "end of pipeline"
            raise self.error(f"expected {what}, found `{found}`", hint="pass names are kebab-case, e.g. `normalize-stmt-structure`")
        return self.text[start : self.pos]

    def element(self) -> PassSpec:
        col = self.pos + 1
        name = self.word("a pass name")
        options: dict[str, OptionText] = {}
        if self.peek() == "{":
            self.pos += 1
            while True:
                self.skip_spaces()
                if self.peek() == "}":
                    self.pos += 1
                    break
                if not self.peek():
                    raise self.error(f"unterminated option list of `{name}`: expected `}}`")
                key_pos = self.pos
                key = self.word("an option name")
                if key in options:
                    self.pos = key_pos
                    raise self.error(f"option `{key}` of `{name}` given twice")
                if self.peek() != "=":
                    raise self.error(f"expected `=` after option `{key}`", hint=f"write `{name}{{{key}=VALUE}}`")
                self.pos += 1
                options[key] = self.value()
                if self.peek() and self.peek() not in (" ", "\t", "}"):
                    raise self.error("expected a space or `}` after an option value")
        return PassSpec(name, options, col)

    def value(self) -> OptionText:
        items = [self.atom()]
        while self.peek() == ",":
            self.pos += 1
            items.append(self.atom())
        return tuple(items) if len(items) > 1 else items[0]

    def atom(self) -> str:
        if self.peek() == '"':
            return self.quoted()
        start = self.pos
        while self.peek() and self.peek() not in _BARE_STOP:
            self.pos += 1
        if self.pos == start:
            found = self.peek() or "end of pipeline"
            raise self.error(f"expected an option value, found `{found}`", hint='quote values with spaces: `k="a b"`')
        return self.text[start : self.pos]

    def quoted(self) -> str:
        self.pos += 1
        out: list[str] = []
        while True:
            ch = self.peek()
            if not ch:
                raise self.error("unterminated quoted string: expected `\"`")
            self.pos += 1
            if ch == '"':
                return "".join(out)
            if ch == "\\" and self.peek():
                ch = self.peek()
                self.pos += 1
            out.append(ch)


def parse_pipeline(text: str, source: str = "<pipeline>") -> list[PassSpec]:
    """Parse a pipeline string into its elements; raises CompileError with the bad column."""
    return _Parser(text, source).parse()
