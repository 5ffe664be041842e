"""Diagnostics: what every check and every user-facing error produces.

A diagnostic names the rule (verifier / property / pass), the node, its source location, what
is wrong and how to fix it. `CompileError` carries one or more diagnostics up to the CLI,
which prints them (never a traceback) and exits non-zero.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

from nanopass.node import NO_SPAN, Node, Span


@dataclass(frozen=True)
class Diagnostic:
    rule: str  # e.g. "SSAForm", "TypeChecked", "parse", "AutoTileMatmulL0"
    message: str  # what is wrong, with the numbers
    span: Span = NO_SPAN
    hint: str = ""  # how to fix it
    node: Node | None = field(default=None, compare=False, repr=False)
    severity: str = "error"  # "error" | "warning" | "perf-hint"

    def format(self) -> str:
        where = f"{self.span}: " if self.span.known else ""
        text = f"{where}{self.severity}: [{self.rule}] {self.message}"
        if self.hint:
            text += f"\n    hint: {self.hint}"
        return text

    @staticmethod
    def at(node: Node, rule: str, message: str, hint: str = "", severity: str = "error") -> Diagnostic:
        return Diagnostic(rule, message, node.node_span, hint, node, severity)


# A user-facing error must fit on one screen: one broken construct often trips a verifier at
# every use, and the first few reports are the ones that name the cause.
MAX_SHOWN_DIAGNOSTICS = 10


class CompileError(Exception):
    """A user-facing failure: bad input text, a broken hardware limit, a pipeline that does not
    chain, a verifier failure. The CLI prints `str(error)` and exits 1."""

    def __init__(self, diagnostics: Sequence[Diagnostic] | Diagnostic, headline: str = "") -> None:
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics: tuple[Diagnostic, ...] = tuple(diagnostics)
        self.headline = headline
        super().__init__(self.render())

    def render(self) -> str:
        lines = [self.headline] if self.headline else []
        shown = self.diagnostics[:MAX_SHOWN_DIAGNOSTICS]
        lines.extend(d.format() for d in shown)
        hidden = len(self.diagnostics) - len(shown)
        if hidden:
            lines.append(f"... and {hidden} more diagnostic{'s' if hidden != 1 else ''} like these "
                         "(fix the ones above first; they are often the cause)")
        return "\n".join(lines)


def errors(diags: Iterable[Diagnostic]) -> list[Diagnostic]:
    return [d for d in diags if d.severity == "error"]
