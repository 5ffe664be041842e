"""IR node base class and source spans.

Every language module generated from a language declaration defines its node classes as
frozen, slotted dataclasses deriving from a per-language subclass of `Node`; the class
attributes below let generic code (walkers, grammar checks, printers) inspect any node
without knowing its language.
"""

from __future__ import annotations

from typing_extensions import override

from dataclasses import dataclass
from typing import Callable, ClassVar, Generic, Iterator, Mapping, Sequence, TypeVar


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

_Fact = TypeVar("_Fact")


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


# Per node class, its child fields last to first (the order a pre-order stack pushes them).
_PUSH_ORDER: dict[type, tuple[str, ...]] = {}


def walk(node: Node) -> Iterator[Node]:
    """Pre-order traversal of a node and all its descendants (children pushed inline: passes
    and verifiers walk every program many times, and a call per node was a third of a walk)."""
    stack = [node]
    pop = stack.pop
    push = stack.append
    push_order = _PUSH_ORDER
    while stack:
        current = pop()
        yield current
        fields = push_order.get(current.__class__)
        if fields is None:
            fields = push_order[current.__class__] = tuple(reversed(current.CHILD_FIELDS))
        for name in fields:
            value = getattr(current, name)
            if isinstance(value, tuple):
                for item in reversed(value):
                    if isinstance(item, Node):
                        push(item)
            elif isinstance(value, Node):
                push(value)


def _flat_preorder(node: Node) -> tuple[Node, ...]:
    """`tuple(walk(node))`, with the children pushed inline (no call per node)."""
    out: list[Node] = []
    record = out.append
    stack = [node]
    pop = stack.pop
    push = stack.append
    push_order = _PUSH_ORDER
    while stack:
        current = pop()
        record(current)
        fields = push_order.get(current.__class__)
        if fields is None:
            fields = push_order[current.__class__] = tuple(reversed(current.CHILD_FIELDS))
        for name in fields:
            value = getattr(current, name)
            if isinstance(value, tuple):
                for item in reversed(value):
                    if isinstance(item, Node):
                        push(item)
            elif isinstance(value, Node):
                push(value)
    return tuple(out)


# Fields whose items are the units passes rebuild one at a time (a program's functions):
# the traversal of a program is composed from the memoized traversals of its functions, so a
# program rebuilt around untouched functions (copy-on-write) re-walks only the new ones.
_UNIT_FIELDS = frozenset({"functions"})


class _IdentityMemo(Generic[_Fact]):
    """Facts about immutable subtrees, keyed by the identity of their root. A subtree never
    changes, so neither does a fact about it; each entry keeps its root alive, so the id cannot
    be reused while the entry exists. Bounded: only the last few passes' trees are worth
    keeping (oldest entries go first)."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.entries: dict[int, tuple[Node, _Fact]] = {}

    def reserve(self, units: int) -> None:
        """Room for a program of `units` functions: its own entry and its functions', for the
        program before and after a pass, the part of it a pass rebuilt, and one more. A fixed
        capacity below that evicts the functions' entries on every program and makes every
        re-check start from scratch (eviction drops the oldest half, which at 3x also dropped
        half of the current program's functions once the loaded input's entries aged out)."""
        self.capacity = max(self.capacity, 4 * (units + 1))

    def get(self, node: Node) -> _Fact | None:
        hit = self.entries.get(id(node))
        return hit[1] if hit is not None and hit[0] is node else None

    def put(self, node: Node, fact: _Fact) -> _Fact:
        if len(self.entries) >= self.capacity:
            for key in list(self.entries)[: self.capacity // 2]:  # insertion order: oldest first
                del self.entries[key]
        self.entries[id(node)] = (node, fact)
        return fact


# Two memos per fact: one for programs and their functions (sized by `reserve` to the
# program), one for smaller subtrees (a statement a verifier walks on its own). Kept apart
# because a verifier that walks each statement puts ~15 entries per function: in one shared
# memo they evicted the functions' entries, and every verifier of a step walked every function
# again (6 walks per function when a 1000-function program was loaded, ~4 per step after).
_PREORDER: _IdentityMemo[tuple[Node, ...]] = _IdentityMemo(256)
_SUBTREE_PREORDER: _IdentityMemo[tuple[Node, ...]] = _IdentityMemo(4096)

# Node classes met as items of a unit field (a language's Function): their facts go to the
# program-sized memos.
_UNIT_CLASSES: set[type] = set()


def _memo_for(node: Node, units: _IdentityMemo[_Fact], subtrees: _IdentityMemo[_Fact]) -> _IdentityMemo[_Fact]:
    cls = node.__class__
    return units if cls in _UNIT_CLASSES or _UNIT_FIELDS.intersection(cls.CHILD_FIELDS) else subtrees


def preorder(node: Node) -> tuple[Node, ...]:
    """`tuple(walk(node))`, memoized by node identity: the verifiers that check one program one
    after another share a single traversal instead of each walking it again."""
    memo = _memo_for(node, _PREORDER, _SUBTREE_PREORDER)
    hit = memo.get(node)
    if hit is not None:
        return hit
    if _UNIT_FIELDS.intersection(node.CHILD_FIELDS):
        nodes = _composed_preorder(node)
    else:
        nodes = _flat_preorder(node)
    return memo.put(node, nodes)


def _unit_count(node: Node) -> int:
    """The number of units (functions) of a program; registers their classes as unit classes."""
    count = 0
    for name in _UNIT_FIELDS:
        value = getattr(node, name, ())
        if isinstance(value, tuple):
            count += len(value)
            _UNIT_CLASSES.update(item.__class__ for item in value)
    return count


_TRACKED: list[Node | None] = [None]  # the last root `track_units` was given (kept alive, so `is` is exact)


def track_units(root: Node) -> None:
    """Size the program-sized memos for `root` and register its functions' classes, before
    verifiers that walk it one function at a time (they never walk the program itself, so the
    memos would not learn of its size or of its units otherwise)."""
    if _TRACKED[0] is root:
        return  # every verifier of a pass step is given the same program: tracked once
    _TRACKED[0] = root
    units = _unit_count(root)
    _PREORDER.reserve(units)
    _SUMMARY.reserve(units)


def _composed_preorder(node: Node) -> tuple[Node, ...]:
    _PREORDER.reserve(_unit_count(node))
    out: list[Node] = [node]
    for name in node.CHILD_FIELDS:
        value = getattr(node, name)
        items = value if isinstance(value, tuple) else (value,)
        for item in items:
            if not isinstance(item, Node):
                continue
            out.extend(preorder(item) if name in _UNIT_FIELDS else _flat_preorder(item))
    return tuple(out)


# -- summaries: what a subtree contains, without its shape ---------------------------------------

_TERMINAL_FIELDS: dict[type, tuple[str, ...]] = {}


def terminal_fields(cls: type[Node]) -> tuple[str, ...]:
    """The fields of a node class that are not children (names, types, ops, attributes)."""
    fields = _TERMINAL_FIELDS.get(cls)
    if fields is None:
        fields = _TERMINAL_FIELDS[cls] = tuple(name for name in cls.FIELDS if name not in cls.CHILD_FIELDS)
    return fields


@dataclass(frozen=True)
class Summary:
    """The node classes of a subtree and, per (kind, terminal field), the values its nodes hold
    there (distinct by identity within a function; a program's lists each function's). A check whose verdict on a node depends only on the node's
    class or on one field value (a type, an operator) can decide a whole subtree from its
    summary -- a handful of distinct types instead of thousands of nodes -- and walk the nodes
    only when something fails, to report each offending node in order."""

    classes: frozenset[type[Node]]
    values: Mapping[tuple[str, str], tuple[object, ...]]

    def field_values(self, kind: str, field_name: str) -> tuple[object, ...]:
        return self.values.get((kind, field_name), ())

    def all_values(self, field_name: str) -> list[object]:
        """The values of `field_name` in nodes of any kind."""
        return [value for (_, name), values in self.values.items() if name == field_name for value in values]


_SUMMARY: _IdentityMemo[Summary] = _IdentityMemo(256)
_SUBTREE_SUMMARY: _IdentityMemo[Summary] = _IdentityMemo(4096)


def summary(node: Node) -> Summary:
    """The summary of `node`'s subtree, memoized by identity (a program's is merged from its
    functions', like `preorder`)."""
    memo = _memo_for(node, _SUMMARY, _SUBTREE_SUMMARY)
    hit = memo.get(node)
    if hit is not None:
        return hit
    if _UNIT_FIELDS.intersection(node.CHILD_FIELDS):
        _SUMMARY.reserve(_unit_count(node))
        parts = [_summarize((node,))]
        for name in node.CHILD_FIELDS:
            value = getattr(node, name)
            for item in value if isinstance(value, tuple) else (value,):
                if isinstance(item, Node):
                    parts.append(summary(item) if name in _UNIT_FIELDS else _summarize(_flat_preorder(item)))
        result = _merge(parts)
    else:
        result = _summarize(preorder(node))
    return memo.put(node, result)


def _summarize(nodes: Sequence[Node]) -> Summary:
    seen: dict[tuple[str, str], dict[int, object]] = {}
    # Per node class met here: (field, the slot of its values) for each terminal field, so a
    # node costs one lookup for its class rather than one per field.
    per_class: dict[type, tuple[tuple[str, dict[int, object]], ...]] = {}
    done: set[int] = set()  # a node object shared by several parents (a variable) adds nothing new
    for node in nodes:
        if id(node) in done:
            continue
        done.add(id(node))
        plan = per_class.get(node.__class__)
        if plan is None:
            cls = node.__class__
            plan = per_class[cls] = tuple((name, seen.setdefault((cls.KIND, name), {})) for name in terminal_fields(cls))
        for name, slot in plan:
            value = getattr(node, name)
            slot[id(value)] = value
    return Summary(frozenset(per_class), {key: tuple(slot.values()) for key, slot in seen.items()})


def _merge(parts: Sequence[Summary]) -> Summary:
    """The union of summaries, each value listed once (by identity). Linear in the parts'
    sizes: concatenating each part's tuples onto the running result was quadratic in the
    number of functions."""
    classes: set[type[Node]] = set()
    slots: dict[tuple[str, str], dict[int, object]] = {}
    for part in parts:
        classes |= part.classes
        for key, values in part.values.items():
            slot = slots.get(key)
            if slot is None:
                slot = slots[key] = {}
            for value in values:
                slot[id(value)] = value
    return Summary(frozenset(classes), {key: tuple(slot.values()) for key, slot in slots.items()})


def same_but(a: Node, b: Node, agree: Callable[[object, object], bool], any_language: bool = False,
             any_sharing: bool = False) -> bool:
    """Whether `b` is `a` except for terminal values `agree` equates: the same node classes in
    the same tree shape, the same sharing of node objects (a variable is one object at all its
    uses, and a verifier may key facts by identity), and at every terminal field the same value
    or two values `agree` accepts. A pass that rebuilt a function changing only what a verifier
    never reads (e.g. the buffers bound to its tiles) leaves that verifier's verdict as it was.
    With `any_language`, classes of different languages count as the same when they have the
    same kind and fields (a pass into the next language that rebuilt a function as it was);
    with `any_sharing`, which node objects are shared is not compared (a pass that rebuilds
    a variable at each use, or shares one object again). Linear in the trees (a shared node
    is compared at each occurrence); stops at the first difference."""
    paired: dict[int, Node] = {}  # id(node of a) -> its counterpart in b
    taken: set[int] = set()  # ids of b's nodes already paired
    stack: list[tuple[Node, Node]] = [(a, b)]
    pop = stack.pop
    push = stack.append
    while stack:
        x, y = pop()
        if x is y and any_sharing:
            continue  # one immutable subtree: equal to itself, and its sharing is not compared
        cls = x.__class__
        if y.__class__ is not cls and not (any_language and _same_form(cls, y.__class__)):
            return False
        if not any_sharing:
            counterpart = paired.get(id(x))
            if counterpart is not None:
                if counterpart is not y:
                    return False
                continue
            if id(y) in taken:
                return False
            paired[id(x)] = y
            taken.add(id(y))
        fields = _TERMINAL_FIELDS.get(cls)
        for name in fields if fields is not None else terminal_fields(cls):
            u = getattr(x, name)
            v = getattr(y, name)
            if u is not v and not agree(u, v):
                return False
        for name in cls.CHILD_FIELDS:
            u = getattr(x, name)
            v = getattr(y, name)
            if isinstance(u, tuple):
                if not isinstance(v, tuple) or len(u) != len(v):
                    return False
                for i, j in zip(u, v):
                    if isinstance(i, Node) and isinstance(j, Node):
                        push((i, j))
                    elif isinstance(i, Node) or isinstance(j, Node) or (i is not j and not agree(i, j)):
                        return False
            elif isinstance(u, Node):
                if not isinstance(v, Node):
                    return False
                push((u, v))
            elif isinstance(v, Node) or (u is not v and not agree(u, v)):
                return False
    return True


_SAME_FORM: dict[tuple[type, type], bool] = {}


def _same_form(a: type[Node], b: type[Node]) -> bool:
    """Two node classes (of two languages) with the same kind and the same fields."""
    known = _SAME_FORM.get((a, b))
    if known is None:
        known = _SAME_FORM[(a, b)] = a.KIND == b.KIND and a.FIELDS == b.FIELDS and a.CHILD_FIELDS == b.CHILD_FIELDS
    return known
