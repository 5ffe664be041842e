"""--verify-all re-checks only what a pass changed, and every shortcut it takes is sound.

- A property whose verifier declares itself blind to MemRefs (`Property.blind_to`) gives the
  same diagnostics on a program whatever its MemRefs are (stripped, all one buffer, or renamed
  and moved): checked on every Addressed program of the bundled examples and on random Addressed
  programs, most of which violate several properties.
- One blind to sharing (`SHARING_ASPECT`) gives the same diagnostics with no node object
  shared, and with every two equal variables / constants one object.
- A property whose verifier declares itself blind to the language (`LANGUAGE_ASPECT`) gives
  the same diagnostics on a program rebuilt with a neighbouring language's classes (same kinds
  and fields): the examples' TilePlaced / L0Tiled / Addressed programs and random ones.
- After a pass that rebuilt functions but changed only their MemRefs, those properties are not
  checked again on them (counted: the functions each verifier is given); the properties about
  buffers are. A rebuilt function that changed anywhere else is checked by every verifier, and
  a fault there is still reported.
- `same_but` compares the tree's shape and its sharing of node objects, not only field values.
- The traversal memos keep every function of a large program between verifiers (counted: each
  function is walked once when a 600-function program is loaded and verified), and
  TypeChecked's per-function verdicts hit on a program larger than its old fixed memo.
"""

from __future__ import annotations

import dataclasses
import importlib
import sys
from pathlib import Path
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, given, settings
from typing_extensions import override

import nanopass.node as node_module
import verifiers.type_checked as type_checked
from languages.decls import FAMILY
from languages.types import MemRef, TileType, TupleType, equal_but_memrefs
from nanopass.diagnostics import Diagnostic
from nanopass.instruments import Instrument, PassStep, VerifyInstrument
from nanopass.node import Node, same_but
from nanopass.passes import PassContext
from nanopass.pipeline import Pipeline
from nanopass.plugin import CompilerPlugin, get_plugin
from nanopass.properties import LANGUAGE_ASPECT, SHARING_ASPECT, Property
from tests.strategies import programs

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from _common import synthetic_source  # noqa: E402

ADDRESSED = "Addressed"
# Languages with the same node kinds, neighbours in the pipeline.
NEIGHBOURS = {"TilePlaced": ("L0Tiled",), "L0Tiled": ("TilePlaced", "Addressed"), "Addressed": ("L0Tiled",)}


def _blind_properties(plugin: CompilerPlugin) -> list[Property]:
    return [p for p in plugin.properties if "memrefs" in p.blind_to and p.meaningful_in(ADDRESSED)]


def _map_memrefs(program: Node, change: Callable[[MemRef], MemRef | None]) -> Node:
    """`program` with every MemRef in a type replaced by `change(memref)`; a node object shared
    by several parents stays shared (a variable is one object at all its uses)."""
    done: dict[int, Any] = {}

    def ty(value: Any) -> Any:
        if isinstance(value, TileType) and value.memref is not None:
            return dataclasses.replace(value, memref=change(value.memref))
        if isinstance(value, TupleType):
            return TupleType(tuple(ty(t) for t in value.types))
        return value

    def rebuild(value: Any) -> Any:
        if isinstance(value, tuple):
            return tuple(rebuild(v) for v in value)
        if not isinstance(value, Node):
            return ty(value)
        if id(value) in done:
            return done[id(value)]
        changes = {name: rebuild(getattr(value, name)) for name in value.FIELDS}
        out = dataclasses.replace(value, **changes)  # type: ignore[type-var]
        done[id(value)] = out
        return out

    result: Node = rebuild(program)
    return result


def _perturbations() -> list[Callable[[MemRef], MemRef | None]]:
    fresh = iter(range(10**9))
    return [
        lambda m: None,  # no buffers at all
        lambda m: MemRef("one_buffer", m.space, 0, 32),  # everything in one overlapping buffer
        lambda m: MemRef(m.name + "_moved", m.space, m.offset + 4096, m.size * 2),
        # A buffer of its own at every occurrence: types that were equal (a call's result and
        # the callee's return type, an in-place result and its operand) no longer are.
        lambda m: MemRef(f"fresh_{next(fresh)}", m.space, 64 * next(fresh), m.size),
    ]


def _diagnostics(prop: Property, program: Node, target: object) -> list[tuple[str, str, str]]:
    try:
        found: list[Diagnostic] = prop.verify(program, target)
    except Exception as exc:  # a crash must be the same crash
        return [("crash", type(exc).__name__, str(exc))]
    return [(d.rule, d.message, str(d.span)) for d in found]


class _Collect(Instrument):
    def __init__(self) -> None:
        self.programs: list[Node] = []

    @override
    def after_pass(self, step: PassStep, before: Node, after: Node) -> None:
        if after is not before:
            self.programs.append(after)


@pytest.fixture(scope="module")
def plugin() -> CompilerPlugin:
    return get_plugin()


@pytest.fixture(scope="module")
def stage_programs(plugin: CompilerPlugin) -> list[Node]:
    """Every program the default pipeline produces on the bundled examples."""
    pipeline = Pipeline.from_spec(plugin.default_pipeline(), plugin)
    collect = _Collect()
    for path in plugin.examples():
        program = plugin.parse(path.read_text(), str(path))
        ctx = PassContext(plugin.default_backend, plugin.make_backend(plugin.default_backend))
        pipeline.run(program, ctx, [collect])
    return collect.programs


@pytest.fixture(scope="module")
def addressed_programs(stage_programs: list[Node]) -> list[Node]:
    found = [p for p in stage_programs if type(p).LANGUAGE == ADDRESSED]
    assert found
    return found


def _reshared(program: Node, share_equal_leaves: bool) -> Node:
    """`program` with no node object shared (every occurrence its own copy), or with every two
    equal leaf nodes (variables, constants) one object."""
    interned: dict[tuple[object, ...], Node] = {}

    def rebuild(value: Any) -> Any:
        if isinstance(value, tuple):
            return tuple(rebuild(v) for v in value)
        if not isinstance(value, Node):
            return value
        fields = {name: rebuild(getattr(value, name)) for name in value.FIELDS}
        out: Node = dataclasses.replace(value, **fields)  # type: ignore[type-var]
        if share_equal_leaves and not value.CHILD_FIELDS:
            key = (value.__class__, *(repr(fields[n]) for n in value.FIELDS))
            return interned.setdefault(key, out)
        return out

    result: Node = rebuild(program)
    return result


def _assert_blind(plugin: CompilerPlugin, program: Node) -> None:
    target = plugin.make_backend(plugin.default_backend)
    for prop in _blind_properties(plugin):
        expected = _diagnostics(prop, program, target)
        for change in _perturbations():
            altered = _map_memrefs(program, change)
            assert _diagnostics(prop, altered, target) == expected, prop.name
        if SHARING_ASPECT in prop.blind_to:
            for share in (False, True):
                assert _diagnostics(prop, _reshared(program, share), target) == expected, (prop.name, share)


def test_blind_verifiers_ignore_memrefs_on_the_examples(plugin: CompilerPlugin, addressed_programs: list[Node]) -> None:
    assert {p.name for p in _blind_properties(plugin)} >= {"SSAForm", "StaticBounds", "TileMemoryPlaced"}
    for program in addressed_programs:
        _assert_blind(plugin, program)


def test_sharing_blind_verifiers_in_every_language(plugin: CompilerPlugin, stage_programs: list[Node]) -> None:
    target = plugin.make_backend(plugin.default_backend)
    compared = 0
    for program in stage_programs:
        language = type(program).LANGUAGE
        props = [p for p in plugin.properties if SHARING_ASPECT in p.blind_to and p.meaningful_in(language)]
        variants = [_reshared(program, share) for share in (False, True)]
        for prop in props:
            expected = _diagnostics(prop, program, target)
            for variant in variants:
                assert _diagnostics(prop, variant, target) == expected, (prop.name, language)
                compared += 1
    assert compared > 0


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(programs(ADDRESSED))
def test_blind_verifiers_ignore_memrefs_on_random_programs(program: Node) -> None:
    _assert_blind(get_plugin(), program)


def _in_language(program: Node, language: str) -> Node | None:
    """`program` rebuilt with `language`'s node classes (sharing kept), or None when that
    language lacks one of its kinds or has it with other fields."""
    module = importlib.import_module(FAMILY.by_name(language).module)
    done: dict[int, Node] = {}

    def rebuild(value: Any) -> Any:
        if isinstance(value, tuple):
            return tuple(rebuild(v) for v in value)
        if not isinstance(value, Node):
            return value
        if id(value) in done:
            return done[id(value)]
        cls = getattr(module, value.KIND, None)
        if not (isinstance(cls, type) and issubclass(cls, Node) and cls.KIND == value.KIND
                and cls.FIELDS == value.FIELDS and cls.CHILD_FIELDS == value.CHILD_FIELDS):
            raise LookupError(value.KIND)
        fields = {name: rebuild(getattr(value, name)) for name in value.FIELDS}
        out: Node = cls(**fields, span=value.node_span)  # type: ignore[call-arg]
        done[id(value)] = out
        return out

    try:
        result: Node = rebuild(program)
    except LookupError:
        return None
    return result


def _assert_language_blind(plugin: CompilerPlugin, program: Node) -> int:
    """Compares the verdicts in every neighbouring language; the number of comparisons."""
    target = plugin.make_backend(plugin.default_backend)
    language = type(program).LANGUAGE
    compared = 0
    for other in NEIGHBOURS.get(language, ()):
        moved = _in_language(program, other)
        if moved is None:
            continue
        assert type(moved).LANGUAGE == other
        for prop in plugin.properties:
            if LANGUAGE_ASPECT in prop.blind_to and prop.meaningful_in(language) and prop.meaningful_in(other):
                assert _diagnostics(prop, moved, target) == _diagnostics(prop, program, target), (prop.name, other)
                compared += 1
    return compared


def test_language_blind_verifiers_on_the_examples(plugin: CompilerPlugin, stage_programs: list[Node]) -> None:
    assert sum(_assert_language_blind(plugin, program) for program in stage_programs) > 0


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(programs("L0Tiled"))
def test_language_blind_verifiers_on_random_programs(program: Node) -> None:
    _assert_language_blind(get_plugin(), program)


def test_buffer_properties_are_not_blind(plugin: CompilerPlugin) -> None:
    # The properties about buffers must see every change of them.
    buffer_properties = {"HasMemRefs", "MemoryCapacity", "PipeSlotPlacement", "NoCoLiveOverlap", "InPlaceSafety",
                         "SemanticAliases", "AccL0CFootprint", "TargetOpBuffers", "BoxedExtents"}
    for prop in plugin.properties:
        if prop.name in buffer_properties or prop.name.endswith("Grammar"):
            assert not prop.blind_to, prop.name


# -- what --verify-all checks after a pass that changed only MemRefs -------------------------------


class _CountFunctions:
    """Wraps every property's verifier to count the functions it is given, per property."""

    def __init__(self, plugin: CompilerPlugin) -> None:
        self.counts: dict[str, int] = {}
        self.plugin = dataclasses.replace(
            plugin, properties=tuple(self._counted(p) for p in plugin.properties), _property_registry=None)

    def _counted(self, prop: Property) -> Property:
        inner = prop.load_verifier()

        def verify(program: Node, *rest: object) -> list[Diagnostic]:
            self.counts[prop.name] = self.counts.get(prop.name, 0) + len(getattr(program, "functions", ()))
            return inner(program, *rest)

        return dataclasses.replace(prop, verifier=verify)


def _after_allocation(plugin: CompilerPlugin, addressed_programs: list[Node]) -> Node:
    return next(p for p in reversed(addressed_programs) if len(getattr(p, "functions", ())) >= 2)


def test_a_memref_only_rebuild_rechecks_only_the_buffer_properties(
        plugin: CompilerPlugin, addressed_programs: list[Node]) -> None:
    program = _after_allocation(plugin, addressed_programs)
    moved = _map_memrefs(program, lambda m: MemRef(m.name, m.space, m.offset, m.size + 0))
    functions = getattr(moved, "functions")
    assert all(f is not g for f, g in zip(getattr(program, "functions"), functions))  # every function rebuilt
    counting = _CountFunctions(plugin)
    step = _step_of(counting.plugin, "memory-reuse", program)
    verify = VerifyInstrument(counting.plugin, target=plugin.make_backend(plugin.default_backend))
    counting.counts.clear()
    verify.after_pass(step, program, moved)
    blind = {p.name for p in _blind_properties(plugin)} & step.claimed & step.available_before
    assert blind
    for name in blind:
        assert counting.counts.get(name, 0) == 0, name  # kept: the pass changed only MemRefs
    for name in {"NoCoLiveOverlap", "HasMemRefs"} & step.claimed:
        assert counting.counts[name] == len(functions), name  # about buffers: checked again
    assert verify.carried_verdicts == len(blind) * len(functions)


def test_a_rebuild_that_changes_more_than_memrefs_is_checked_and_its_fault_reported(
        plugin: CompilerPlugin, addressed_programs: list[Node]) -> None:
    program = _after_allocation(plugin, addressed_programs)
    # Move every buffer, and define one variable twice in one function: SSAForm (blind to
    # MemRefs) must still see it.
    moved = _map_memrefs(program, lambda m: MemRef(m.name, m.space, m.offset, m.size))
    broken, _ = _with_a_variable_defined_twice(moved)
    counting = _CountFunctions(plugin)
    step = _step_of(counting.plugin, "memory-reuse", program)
    verify = VerifyInstrument(counting.plugin, target=plugin.make_backend(plugin.default_backend))
    counting.counts.clear()
    with pytest.raises(Exception) as info:
        verify.after_pass(step, program, broken)
    assert "SSAForm" in str(info.value)
    assert counting.counts["SSAForm"] == 1  # only the function that changed more than its buffers


def _step_of(plugin: CompilerPlugin, spec: str, program: Node) -> PassStep:
    pipeline = Pipeline.from_spec(spec, plugin)
    available = plugin.verify_loaded(program, also={p for s in pipeline.passes for p in type(s).requires},
                                     target=plugin.make_backend(plugin.default_backend))
    (step,) = pipeline.plan(type(program).LANGUAGE, available)
    return step


def _with_a_variable_defined_twice(program: Node) -> tuple[Node, str]:
    """`program` with the second assignment of its first function that has two redefining the
    first one's target; the function's name."""
    functions = list(getattr(program, "functions"))
    for index, function in enumerate(functions):
        assigns = [s for s in function.body if s.KIND == "AssignStmt"]
        if len(assigns) >= 2:
            first, second = assigns[:2]
            body = tuple(dataclasses.replace(s, target=first.target) if s is second else s for s in function.body)
            functions[index] = dataclasses.replace(function, body=body)
            return dataclasses.replace(program, functions=tuple(functions)), function.name  # type: ignore[type-var]
    pytest.skip("no function with two assignments")


def test_a_rebuild_into_the_next_language_keeps_the_language_blind_verdicts(
        plugin: CompilerPlugin, stage_programs: list[Node]) -> None:
    program = next(p for p in stage_programs if type(p).LANGUAGE == "TilePlaced" and len(getattr(p, "functions")) >= 2)
    moved = _in_language(program, "L0Tiled")
    assert moved is not None
    counting = _CountFunctions(plugin)
    step = _step_of(counting.plugin, "auto-tile-matmul-l0", program)
    verify = VerifyInstrument(counting.plugin, target=plugin.make_backend(plugin.default_backend))
    counting.counts.clear()
    verify.after_pass(step, program, moved)
    kept = {p.name for p in plugin.properties if LANGUAGE_ASPECT in p.blind_to} & step.claimed & step.available_before
    assert kept and verify.carried_verdicts == len(kept) * len(getattr(moved, "functions"))
    for name in kept:
        assert counting.counts.get(name, 0) == 0, name
    assert counting.counts["L0TiledGrammar"] == len(getattr(moved, "functions"))  # the grammar: always
    # The same rebuild with a fault in one function: that function is checked, the fault found.
    broken, _ = _with_a_variable_defined_twice(moved)
    counting.counts.clear()
    with pytest.raises(Exception) as info:
        VerifyInstrument(counting.plugin, target=plugin.make_backend(plugin.default_backend)).after_pass(
            step, program, broken)
    assert "SSAForm" in str(info.value) and counting.counts["SSAForm"] == 1


def test_a_function_left_in_the_old_language_is_caught_by_the_grammar(
        plugin: CompilerPlugin, stage_programs: list[Node]) -> None:
    """A pass into the next language that returns one input function object as it was (it
    forgot to rebuild it) left a node of the old language in the program: that function is not
    "untouched", it is the grammar's finding."""
    program = next(p for p in stage_programs if type(p).LANGUAGE == "TilePlaced" and len(getattr(p, "functions")) >= 2)
    moved = _in_language(program, "L0Tiled")
    assert moved is not None
    kept_old = dataclasses.replace(moved, functions=(getattr(program, "functions")[0],) + getattr(moved, "functions")[1:])  # type: ignore[type-var]
    step = _step_of(plugin, "auto-tile-matmul-l0", program)
    verify = VerifyInstrument(plugin, target=plugin.make_backend(plugin.default_backend))
    with pytest.raises(Exception) as info:
        verify.after_pass(step, program, kept_old)
    assert "L0TiledGrammar" in str(info.value) and "language TilePlaced" in str(info.value)


def test_a_rebuild_that_leaves_no_function_to_check_runs_no_function_verifier(
        plugin: CompilerPlugin, addressed_programs: list[Node], monkeypatch: pytest.MonkeyPatch) -> None:
    """When every rebuilt function is carried over for a property (the pass changed only what its
    verifier is blind to) and the program's own fields are as they were, the verifier is not
    called on an empty program; with the program's name changed it still is."""
    import nanopass.instruments as instruments

    program = _after_allocation(plugin, addressed_programs)
    moved = _map_memrefs(program, lambda m: MemRef(m.name, m.space, m.offset, m.size + 0))
    step = _step_of(plugin, "memory-reuse", program)
    blind = {p.name for p in _blind_properties(plugin)} & step.claimed & step.available_before
    calls: list[str] = []
    original = instruments._run_verifier

    def counted(name: str, verify: Any, subject: Node, target: object = None) -> list[Diagnostic]:
        calls.append(name)
        return original(name, verify, subject, target)

    monkeypatch.setattr(instruments, "_run_verifier", counted)
    verify = VerifyInstrument(plugin, target=plugin.make_backend(plugin.default_backend))
    verify.after_pass(step, program, moved)
    assert blind and not blind & set(calls) and verify.carried_empty >= len(blind)
    calls.clear()
    renamed = dataclasses.replace(moved, name=getattr(moved, "name") + "_renamed")  # type: ignore[type-var]
    VerifyInstrument(plugin, target=plugin.make_backend(plugin.default_backend)).after_pass(step, program, renamed)
    assert blind <= set(calls)


def test_same_but_compares_shape_and_sharing(plugin: CompilerPlugin, addressed_programs: list[Node]) -> None:
    program = _after_allocation(plugin, addressed_programs)
    function = getattr(program, "functions")[0]
    assert same_but(function, function, equal_but_memrefs)
    moved = _map_memrefs(function, lambda m: MemRef(m.name + "_x", m.space, m.offset + 64, m.size))
    assert moved is not function and same_but(function, moved, equal_but_memrefs)
    assert not same_but(function, moved, lambda a, b: a == b)
    # A statement fewer is not alike; neither is one variable object split into two equal copies
    # (the sharing differs, and a verifier may key facts by node identity).
    body = function.body
    assert not same_but(function, dataclasses.replace(function, body=body[:-1]), equal_but_memrefs)
    var = next(n for n in node_module.walk(function) if n.KIND == "Var")
    uses = sum(1 for n in node_module.walk(function) if n is var)
    if uses >= 2:
        copy = dataclasses.replace(var)  # type: ignore[type-var]
        seen = [0]

        def split(value: Any) -> Any:
            if value is var:
                seen[0] += 1
                return copy if seen[0] == 2 else var
            if isinstance(value, tuple):
                return tuple(split(v) for v in value)
            if isinstance(value, Node):
                fields = {n: split(getattr(value, n)) for n in value.CHILD_FIELDS}
                return dataclasses.replace(value, **fields)  # type: ignore[type-var]
            return value

        assert not same_but(function, split(function), equal_but_memrefs)


def test_each_function_of_a_large_program_is_walked_once_when_loaded(plugin: CompilerPlugin,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    program = plugin.parse(synthetic_source(600, 4).text, "<large>")
    walks: dict[int, int] = {}
    flat = node_module._flat_preorder

    def counted(node: Node) -> tuple[Node, ...]:
        if node.KIND == "Function":
            walks[id(node)] = walks.get(id(node), 0) + 1
        return flat(node)

    monkeypatch.setattr(node_module, "_flat_preorder", counted)
    plugin.verify_loaded(program, target=plugin.make_backend(plugin.default_backend))
    assert len(walks) == 601 and max(walks.values()) == 1


def test_type_checked_reuses_its_verdicts_on_a_large_program(plugin: CompilerPlugin,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    program = plugin.parse(synthetic_source(600, 4).text, "<large>")
    checked: list[Node] = []
    check_nodes = type_checked._check_nodes

    def counted(nodes: object, *rest: object) -> object:
        checked.append(nodes)  # type: ignore[arg-type]
        return check_nodes(nodes, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(type_checked, "_check_nodes", counted)
    assert type_checked.verify(program) == []
    assert len(checked) == 601
    assert type_checked.verify(program) == []  # the same functions again: every verdict is kept
    assert len(checked) == 601
