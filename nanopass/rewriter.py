"""Base of the generated rewriters.

Generated per-language classes (`Rewriter`, `From<Parent>`) derive from this; a pass that
transforms IR subclasses one of them and overrides only the kinds it changes. The pass object
carries the context (backend handler, options, statistics), never extra visit arguments.
"""

from __future__ import annotations

from typing_extensions import override

from collections import Counter
from typing import Any, Callable, ClassVar

from nanopass.node import Node


class RewriterBase:
    """Shared machinery of every rewriter: kind dispatch and statistics counters."""

    SOURCE_LANGUAGE: ClassVar[str] = ""
    TARGET_LANGUAGE: ClassVar[str] = ""
    SOURCE_KINDS: ClassVar[tuple[type[Node], ...]] = ()
    # Source node class → the (possibly overridden) visit method of this class. Built once per
    # class: a per-type table is about twice as fast as `match` (ANCHORS.md).
    _DISPATCH: ClassVar[dict[type, Callable[[Any, Any], Any]]] = {}

    @override

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._DISPATCH = {k: getattr(cls, "visit_" + k.KIND) for k in cls.SOURCE_KINDS}

    def __init__(self) -> None:
        self.stats: Counter[str] = Counter()

    def bump(self, counter: str, amount: int = 1) -> None:
        """Increment a per-pass statistic (shown by --statistics)."""
        self.stats[counter] += amount
