"""Diagnostics: what every check and every user-facing error produces.

A diagnostic names the rule (verifier / property / pass), the node, its source location, what
is wrong and how to fix it. `CompileError` carries one or more diagnostics up to the CLI,
which prints them (never a traceback) and exits 1.

Rendered, a located diagnostic shows its source line with a caret under the span, clang /
mlir-opt style:

    kernel.py:12:44: error: [TypeChecked] tensor.add: operand 'rhs' (argument 1) ...
       12 |         y: pl.Tensor[[64, 128], pl.FP32] = pl.tensor.add(xc, t)
          |                                            ^~~~~~~~~~~~~~~~~~~~
        hint: ...

The source text comes from `remember_source` (the CLI registers every input it reads, stdin
included) or, failing that, from the file named by the span. Colour is for terminals only:
`use_color(stream)` is true on a TTY unless `NO_COLOR` is set (https://no-color.org) or
`TERM=dumb`; `FORCE_COLOR` forces it on.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Iterable, Sequence, TextIO

from nanopass.node import NO_SPAN, Node, Span

# -- source text --------------------------------------------------------------------------------

_SOURCES: dict[str, list[str]] = {}
# Lines longer than this are excerpted as a window around the span (a PTO instruction with its
# tile types, a minified file): EXCERPT_CONTEXT characters before it, the rest up to the width.
MAX_EXCERPT_WIDTH = 200
EXCERPT_CONTEXT = 40


def remember_source(name: str, text: str) -> None:
    """Make `text` the source of spans naming `name` (stdin, or a file read before it changed)."""
    _SOURCES[name] = text.splitlines()


def source_line(span: Span) -> str | None:
    """The text of `span`'s first line, or None when it is unknown or unprintable."""
    if not span.known:
        return None
    lines = _SOURCES.get(span.file)
    if lines is None:
        try:
            with open(span.file, encoding="utf-8", errors="replace") as handle:
                lines = handle.read().splitlines()
        except (OSError, ValueError):
            return None
        _SOURCES[span.file] = lines
    if not 1 <= span.line <= len(lines):
        return None
    line = lines[span.line - 1]
    if any(ord(c) < 32 and c != "\t" for c in line):
        return None
    return line


# -- colour -------------------------------------------------------------------------------------


def use_color(stream: TextIO) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    if os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


_STYLES = {"bold": "1", "error": "1;31", "warning": "1;35", "perf-hint": "1;36", "note": "1;36",
           "caret": "1;32", "hint": "36", "rule": "2"}


def _paint(text: str, style: str, color: bool) -> str:
    return f"\x1b[{_STYLES[style]}m{text}\x1b[0m" if color and text else text


def excerpt(span: Span, color: bool = False) -> list[str]:
    """The source line of `span` and a caret line under it (empty when the line is unknown)."""
    line = source_line(span)
    if line is None:
        return []
    text = line.expandtabs(4)
    # Columns count characters of the raw line; tabs were widened, so re-measure the prefix.
    start = len(line[: span.col - 1].expandtabs(4))
    if span.end_line == span.line and span.end_col > span.col:
        end = len(line[: span.end_col - 1].expandtabs(4))
    elif span.end_line > span.line:  # a multi-line construct: underline the rest of its first line
        end = len(text.rstrip())
    else:
        end = start + 1
    if len(text) > MAX_EXCERPT_WIDTH:
        text, start, end = _window(text, start, end)
    width = max(1, min(end, len(text)) - start)
    number = str(span.line)
    gutter = " " * len(number)
    marker = "^" + "~" * (width - 1)
    return [f"  {number} | {text.rstrip()}",
            f"  {gutter} | {' ' * start}{_paint(marker, 'caret', color)}"]


def _window(text: str, start: int, end: int) -> tuple[str, int, int]:
    """At most MAX_EXCERPT_WIDTH characters of a long line around [start, end), cut ends shown
    as `...`; the span's columns shifted to the window."""
    first = max(0, start - EXCERPT_CONTEXT)
    last = min(len(text), first + MAX_EXCERPT_WIDTH)
    head = "..." if first > 0 else ""
    tail = "..." if last < len(text) else ""
    shift = first - len(head)
    return head + text[first:last] + tail, start - shift, min(end, last) - shift


# -- diagnostics --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Diagnostic:
    rule: str  # e.g. "SSAForm", "TypeChecked", "parse", "AutoTileMatmulL0"
    message: str  # what is wrong, with the numbers
    span: Span = NO_SPAN
    hint: str = ""  # how to fix it
    node: Node | None = field(default=None, compare=False, repr=False)
    severity: str = "error"  # "error" | "warning" | "perf-hint"

    def format(self, color: bool = False, source: bool = True) -> str:
        where = _paint(f"{self.span}: ", "bold", color) if self.span.known else ""
        severity = _paint(f"{self.severity}:", self.severity if self.severity in _STYLES else "error", color)
        lines = [f"{where}{severity} {_paint(f'[{self.rule}]', 'rule', color)} {self.message}"]
        if source:
            lines.extend(excerpt(self.span, color))
        if self.hint:
            lines.append(f"    {_paint('hint:', 'hint', color)} {self.hint}")
        return "\n".join(lines)

    @staticmethod
    def at(node: Node, rule: str, message: str, hint: str = "", severity: str = "error") -> Diagnostic:
        return Diagnostic(rule, message, node.node_span, hint, node, severity)

    @property
    def identity(self) -> tuple[str, int, int, str]:
        """What makes two reports the same finding (one cause seen by two checks)."""
        return (self.span.file, self.span.line, self.span.col, self.message)


def unique(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """`diagnostics` without repeats of one finding at one place (first report wins)."""
    seen: set[tuple[str, int, int, str]] = set()
    out: list[Diagnostic] = []
    for diag in diagnostics:
        if diag.identity not in seen:
            seen.add(diag.identity)
            out.append(diag)
    return out


# A user-facing error must fit on one screen: one broken construct often trips a verifier at
# every use, and the first few reports are the ones that name the cause.
MAX_SHOWN_DIAGNOSTICS = 10


class CompileError(Exception):
    """A user-facing failure: bad input text, a broken hardware limit, a pipeline that does not
    chain, an input that fails a check. The CLI prints it and exits 1."""

    # An error that is the compiler's fault (a pass broke a property): the CLI exits 2 and
    # writes a reproducer.
    internal = False

    def __init__(self, diagnostics: Sequence[Diagnostic] | Diagnostic, headline: str = "") -> None:
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics: tuple[Diagnostic, ...] = tuple(unique(diagnostics))
        self.headline = headline
        super().__init__(self.render())

    def render(self, color: bool = False) -> str:
        lines = [_paint(self.headline, "bold", color)] if self.headline else []
        shown = self.diagnostics[:MAX_SHOWN_DIAGNOSTICS]
        lines.extend(d.format(color) for d in shown)
        hidden = len(self.diagnostics) - len(shown)
        if hidden:
            lines.append(f"... and {hidden} more diagnostic{'s' if hidden != 1 else ''} like these "
                         "(fix the ones above first; they are often the cause)")
        return "\n".join(lines)


class InternalCompileError(CompileError):
    """A pass's own rewrite is ill-formed (a call it built fails its op's deduction): the
    compiler's fault, as a broken property is, so the CLI exits 2 and writes a reproducer, and
    the diagnostic names the pass, not the user's line's type rule."""

    internal = True


def errors(diags: Iterable[Diagnostic]) -> list[Diagnostic]:
    return [d for d in diags if d.severity == "error"]
