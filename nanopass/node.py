"""IR node base class and source spans.

Every language module generated from a language declaration defines its node classes as
frozen, slotted dataclasses deriving from a per-language subclass of `Node`; the class
attributes below let generic code (walkers, grammar checks, printers) inspect any node
without knowing its language.
"""

from __future__ import annotations

from typing_extensions import override

from dataclasses import dataclass
from typing import ClassVar, Iterator


@dataclass(frozen=True, slots=True)
class Span:
    """A source location: 1-based line and column, as users see them in editors."""

    file: str
    line: int
    col: int
    end_line: int = 0
    end_col: int = 0

    @override

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    @property
    def known(self) -> bool:
        return self.line > 0


NO_SPAN = Span("<unknown>", 0, 0)


class Node:
    """Base of all IR nodes of all languages (immutable)."""

    __slots__ = ()

    LANGUAGE: ClassVar[str] = ""
    KIND: ClassVar[str] = ""
    # Names of the fields that hold nodes or tuples of nodes, in declaration order.
    CHILD_FIELDS: ClassVar[tuple[str, ...]] = ()
    # Names of all fields (children and terminals), in declaration order, span excluded.
    FIELDS: ClassVar[tuple[str, ...]] = ()

    @property
    def node_span(self) -> Span:
        span = getattr(self, "span", NO_SPAN)
        assert isinstance(span, Span)
        return span

    def children(self) -> Iterator[Node]:
        for name in self.CHILD_FIELDS:
            value = getattr(self, name)
            if isinstance(value, tuple):
                for item in value:
                    if isinstance(item, Node):
                        yield item
            elif isinstance(value, Node):
                yield value


def walk(node: Node) -> Iterator[Node]:
    """Pre-order traversal of a node and all its descendants."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        kids = list(current.children())
        kids.reverse()
        stack.extend(kids)
