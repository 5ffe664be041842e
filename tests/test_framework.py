"""The pass framework: pipeline grammar, option typing, static pipeline checks, GCC property
availability, verify-all blame, instruments, copy-on-write, the pass registry, verifiers."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import io
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typing_extensions import override

import languages.gen.tensor as T
import languages.gen.tile_unplaced as TU
from languages.decls import Tensor, TilePlaced, TileUnplaced
from languages.memory_space import MemorySpace
from nanopass_pto.plugin import PLUGIN as PTO_PLUGIN
from languages.types import INDEX, DataType, MemRef, ScalarType, TensorType, TileType, TileView
from nanopass.diagnostics import CompileError
from nanopass.instruments import (
    strip_position,
    DumpDirInstrument,
    PrintIRInstrument,
    ReproducerInstrument,
    StatisticsInstrument,
    TimingInstrument,
    VerifyInstrument,
)
from nanopass.passes import Pass, PassContext
from nanopass.pipeline import PassCrash, Pipeline
from nanopass.pipeline_spec import PassSpec, format_pipeline, parse_pipeline
from nanopass.plugin import CompilerPlugin, get_plugin
from nanopass.properties import PropertyRegistry, available_after
from verifiers import grammar, normalized_stmt_structure, ssa_form, type_checked, use_after_def

ROOT = Path(__file__).resolve().parent.parent
# The Tensor-level examples (the @pl.jit ones are DSL programs: tests/test_jit_examples.py).
EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*.py") if not p.name.startswith("jit_"))
F32 = TensorType((16, 32), DataType.FP32)
F32_64 = TensorType((64, 128), DataType.FP32)


# -- test passes (registered in a test plugin below) ---------------------------------------


@dataclass(frozen=True)
class OptionsPass(Pass[T.Program, T.Program]):
    """A no-op pass with one option of every kind."""

    name = "options-pass"
    spec_name = "OptionsPass"
    source = Tensor
    target = Tensor
    count: int = 1
    ratio: float = 0.5
    enabled: bool = False
    label: str = "x"
    names: tuple[str, ...] = ()

    @override
    def run(self, program: T.Program, ctx: PassContext) -> T.Program:
        return program


RUNS: list[str] = []


@dataclass(frozen=True)
class RecordingTensorPass(Pass[T.Program, T.Program]):
    """Tensor → Tensor; records that it ran."""

    name = "recording-tensor-pass"
    spec_name = "RecordingTensorPass"
    source = Tensor
    target = Tensor

    @override
    def run(self, program: T.Program, ctx: PassContext) -> T.Program:
        RUNS.append(self.name)
        return program


@dataclass(frozen=True)
class PlacedOnlyPass(Pass[T.Program, T.Program]):
    """Claims to take TilePlaced programs (used to build an out-of-order pipeline)."""

    name = "placed-only-pass"
    spec_name = "PlacedOnlyPass"
    source = TilePlaced
    target = TilePlaced

    @override
    def run(self, program: T.Program, ctx: PassContext) -> T.Program:
        RUNS.append(self.name)
        return program


@dataclass(frozen=True)
class NeedsNormalizedPass(Pass[T.Program, T.Program]):
    """Requires NormalizedStmtStructure."""

    name = "needs-normalized-pass"
    spec_name = "NeedsNormalizedPass"
    source = Tensor
    target = Tensor
    requires = frozenset({"NormalizedStmtStructure"})

    @override
    def run(self, program: T.Program, ctx: PassContext) -> T.Program:
        RUNS.append(self.name)
        return program


@dataclass(frozen=True)
class DenormalizingPass(Pass[T.Program, T.Program]):
    """Declares that it invalidates NormalizedStmtStructure."""

    name = "denormalizing-pass"
    spec_name = "DenormalizingPass"
    source = Tensor
    target = Tensor
    invalidates = frozenset({"NormalizedStmtStructure"})

    @override
    def run(self, program: T.Program, ctx: PassContext) -> T.Program:
        return program


class _DuplicateFirstAssign(T.Rewriter):
    """Repeats the first assignment of every InCore function: a second definition of one name."""

    @override
    def visit_Function(self, node: T.Function) -> T.Function:
        first = next((s for s in node.body if isinstance(s, T.AssignStmt)), None)
        if node.func_type != "InCore" or first is None:
            return node
        self.bump("duplicated")
        return dataclasses.replace(node, body=(first, *node.body))


@dataclass(frozen=True)
class SsaBreakingPass(Pass[T.Program, T.Program]):
    """Breaks SSAForm without declaring it in `invalidates`."""

    name = "ssa-breaking-pass"
    spec_name = "SsaBreakingPass"
    source = Tensor
    target = Tensor

    @override
    def run(self, program: T.Program, ctx: PassContext) -> T.Program:
        rewriter = _DuplicateFirstAssign()
        out = rewriter.visit_Program(program)
        ctx.record_rewriter(rewriter)
        return out


@dataclass(frozen=True)
class CrashingPass(Pass[T.Program, T.Program]):
    """Raises an internal error."""

    name = "crashing-pass"
    spec_name = "CrashingPass"
    source = Tensor
    target = Tensor

    @override
    def run(self, program: T.Program, ctx: PassContext) -> T.Program:
        raise ZeroDivisionError("boom")


@dataclass(frozen=True)
class FalseNormalizerPass(Pass[T.Program, T.Program]):
    """Claims NormalizedStmtStructure but establishes nothing; optionally rebuilds the last
    function (an identical copy), leaving the others as the same objects."""

    name = "false-normalizer-pass"
    spec_name = "FalseNormalizerPass"
    source = Tensor
    target = Tensor
    produces = frozenset({"NormalizedStmtStructure"})
    rebuild_last: bool = False

    @override
    def run(self, program: T.Program, ctx: PassContext) -> T.Program:
        if not self.rebuild_last:
            return program
        *kept, last = program.functions
        return dataclasses.replace(program, functions=(*kept, dataclasses.replace(last)))


TEST_PASSES = {
    cls.name: f"{__name__}:{cls.__name__}"
    for cls in (OptionsPass, RecordingTensorPass, PlacedOnlyPass, NeedsNormalizedPass, DenormalizingPass, SsaBreakingPass, CrashingPass)
}


# The product plugin plus the test passes; also used by CLI tests via NANOPASS_PLUGIN.
TEST_PLUGIN = dataclasses.replace(
    PTO_PLUGIN, passes={**PTO_PLUGIN.passes, **TEST_PASSES}, _pass_registry=None, _property_registry=None
)


@pytest.fixture(scope="module")
def plugin() -> CompilerPlugin:
    return TEST_PLUGIN


@pytest.fixture
def program() -> T.Program:
    return _load(ROOT / "examples" / "elementwise_add_f32.py")


def _load(path: Path) -> T.Program:
    loaded = get_plugin().parse(path.read_text(), str(path))
    assert isinstance(loaded, T.Program)
    return loaded


# -- pipeline grammar ----------------------------------------------------------------------

_names = st.from_regex(r"[a-z][a-z0-9]{0,5}(-[a-z0-9]{1,4}){0,2}", fullmatch=True)
_atoms = st.one_of(
    st.from_regex(r"[A-Za-z0-9_.+/\-]{1,6}", fullmatch=True),
    st.text(alphabet=st.sampled_from(list('ab ,{}="\\x')), min_size=0, max_size=6),
)
_values = st.one_of(_atoms, st.lists(_atoms, min_size=2, max_size=3).map(tuple))
_elements = st.builds(PassSpec, _names, st.dictionaries(_names, _values, max_size=3))


@given(st.lists(_elements, min_size=1, max_size=4))
def test_pipeline_text_round_trips(elements: list[PassSpec]) -> None:
    text = format_pipeline(elements)
    parsed = parse_pipeline(text)
    assert [(e.name, e.options) for e in parsed] == [(e.name, e.options) for e in elements]
    assert format_pipeline(parsed) == text


@given(
    st.integers(-1000, 1000),
    st.sampled_from([0.25, 1.5, -2.0]),
    st.booleans(),
    _atoms,
    st.lists(_atoms.filter(bool), max_size=3).map(tuple),  # `names=""` is the empty list
)
def test_pass_options_round_trip_through_pipeline_spec(
    count: int, ratio: float, enabled: bool, label: str, names: tuple[str, ...]
) -> None:
    original = Pipeline([OptionsPass(count, ratio, enabled, label, names), RecordingTensorPass()], TEST_PLUGIN)
    rebuilt = Pipeline.from_spec(original.spec(), TEST_PLUGIN)
    assert rebuilt.passes == original.passes
    assert rebuilt.spec() == original.spec()


def test_example_spec_is_normalised(plugin: CompilerPlugin) -> None:
    text = "options-pass{count=3 names=x,y},recording-tensor-pass,options-pass"
    assert Pipeline.from_spec(text, plugin).spec() == text
    # Defaults are dropped, kebab and snake option names are both accepted.
    assert Pipeline.from_spec("options-pass{count=1 enabled=true}", plugin).spec() == "options-pass{enabled=true}"


def test_the_documented_pipeline_example_round_trips() -> None:
    text = "a,b{opt=1 other=x,y},c"
    parsed = parse_pipeline(text)
    assert [(e.name, e.options) for e in parsed] == [("a", {}), ("b", {"opt": "1", "other": ("x", "y")}), ("c", {})]
    assert format_pipeline(parsed) == text


@pytest.mark.parametrize(
    ("text", "col", "fragment"),
    [
        ("a,,b", 3, "expected a pass name"),
        ("a{x}", 4, "expected `=`"),
        ("a{x=1", 6, "unterminated option list"),
        ('a{x="y}', 8, "unterminated quoted string"),
        ("a b", 3, "expected `,`"),
        ("a{x=1 x=2}", 7, "given twice"),
    ],
)
def test_malformed_pipeline_names_the_column(text: str, col: int, fragment: str) -> None:
    with pytest.raises(CompileError) as info:
        parse_pipeline(text)
    diag = info.value.diagnostics[0]
    assert diag.span.col == col
    assert fragment in diag.message


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("options-pass{count=abc}", "expects an integer"),
        ("options-pass{ratio=fast}", "expects a number"),
        ("options-pass{enabled=maybe}", "expects true or false"),
        ("options-pass{count=1,2}", "not a list"),
        ("options-pass{colour=red}", "has no option `colour`"),
    ],
)
def test_option_typing_errors(plugin: CompilerPlugin, spec: str, fragment: str) -> None:
    with pytest.raises(CompileError) as info:
        Pipeline.from_spec(spec, plugin)
    assert fragment in str(info.value)


def test_unknown_pass_suggests_close_match(plugin: CompilerPlugin) -> None:
    with pytest.raises(CompileError) as info:
        Pipeline.from_spec("recording-tensor-pass,normalize-stmt-structur", plugin)
    diag = info.value.diagnostics[0]
    assert "unknown pass `normalize-stmt-structur`" in diag.message
    assert "`normalize-stmt-structure`" in diag.hint
    assert diag.span.col == len("recording-tensor-pass,") + 1


# -- static checks -------------------------------------------------------------------------


def test_out_of_order_pipeline_is_rejected_before_any_pass_runs(plugin: CompilerPlugin, program: T.Program) -> None:
    RUNS.clear()
    pipeline = Pipeline.from_spec("recording-tensor-pass,placed-only-pass", plugin)
    with pytest.raises(CompileError) as info:
        pipeline.run(program)
    assert RUNS == []
    text = str(info.value)
    assert "`placed-only-pass` (#2) takes TilePlaced programs" in text
    assert "produces Tensor" in text


def test_language_mismatch_suggests_the_bridging_passes(plugin: CompilerPlugin) -> None:
    with pytest.raises(CompileError) as info:
        Pipeline.from_spec("recording-tensor-pass,pto-codegen", plugin).plan("Tensor", frozenset())
    mismatch = info.value.diagnostics[0]
    assert "`pto-codegen` (#2) takes Addressed programs, but `recording-tensor-pass` (#1) produces Tensor" in mismatch.message
    assert mismatch.hint == ("insert `convert-tensor-to-tile-ops`, `infer-tile-memory-space`, `auto-tile-matmul-l0`, "
                             "`init-mem-ref` (in this order) before `pto-codegen`")


def test_many_diagnostics_fit_one_screen() -> None:
    from nanopass.diagnostics import MAX_SHOWN_DIAGNOSTICS, Diagnostic

    err = CompileError([Diagnostic("R", f"problem {i}") for i in range(50)], headline="error: many")
    lines = str(err).splitlines()
    assert lines[0] == "error: many" and len(lines) == MAX_SHOWN_DIAGNOSTICS + 2
    assert lines[-1].startswith(f"... and {50 - MAX_SHOWN_DIAGNOSTICS} more diagnostics")
    assert len(err.diagnostics) == 50  # callers still see every finding


def test_first_pass_must_take_the_input_language(plugin: CompilerPlugin, program: T.Program) -> None:
    with pytest.raises(CompileError, match="the input program is Tensor"):
        Pipeline.from_spec("placed-only-pass", plugin).run(program)


def test_missing_property_names_the_providing_pass(plugin: CompilerPlugin) -> None:
    pipeline = Pipeline.from_spec("needs-normalized-pass", plugin)
    with pytest.raises(CompileError) as info:
        pipeline.plan("Tensor", frozenset({"SSAForm", "TensorGrammar"}))
    diag = info.value.diagnostics[0]
    assert "`needs-normalized-pass` (#1) requires NormalizedStmtStructure" in diag.message
    assert "produced by `normalize-stmt-structure`" in diag.message
    assert "add `normalize-stmt-structure` before `needs-normalized-pass`" in diag.hint
    # With the producer in front it plans.
    steps = Pipeline.from_spec("normalize-stmt-structure,needs-normalized-pass", plugin).plan("Tensor", frozenset())
    assert "NormalizedStmtStructure" in steps[1].available_before


def test_invalidated_property_names_producer_and_invalidator(plugin: CompilerPlugin) -> None:
    pipeline = Pipeline.from_spec("normalize-stmt-structure,denormalizing-pass,needs-normalized-pass", plugin)
    with pytest.raises(CompileError) as info:
        pipeline.plan("Tensor", frozenset())
    message = info.value.diagnostics[0].message
    assert "`normalize-stmt-structure` produced but `denormalizing-pass` invalidated" in message


def test_gcc_availability_drops_properties_meaningless_in_the_target() -> None:
    registry = get_plugin().property_registry
    after = available_after(frozenset({"SSAForm", "TensorGrammar", "NormalizedStmtStructure"}),
                            {"TypeChecked"}, {"NormalizedStmtStructure"}, "TileUnplaced", registry)
    assert after == {"SSAForm", "TypeChecked", "TileUnplacedGrammar"}
    pto = available_after(after, (), (), "PTO", registry)
    assert "TypeChecked" not in pto and "PTOGrammar" in pto


def test_pipeline_from_python_list(plugin: CompilerPlugin, program: T.Program) -> None:
    RUNS.clear()
    pipeline = Pipeline([RecordingTensorPass(), RecordingTensorPass()], plugin)
    assert pipeline.run(program) is program
    assert RUNS == ["recording-tensor-pass"] * 2
    assert pipeline.spec() == "recording-tensor-pass,recording-tensor-pass"


# -- verify-all, instruments ---------------------------------------------------------------


def test_verify_all_names_the_pass_that_broke_an_undeclared_property(plugin: CompilerPlugin, program: T.Program) -> None:
    pipeline = Pipeline.from_spec("normalize-stmt-structure,ssa-breaking-pass", plugin)
    with pytest.raises(CompileError) as info:
        pipeline.run(program, instruments=[VerifyInstrument(plugin)])
    text = str(info.value)
    assert "Verification failed after 'SsaBreakingPass' for properties {SSAForm}" in text
    assert "`ssa-breaking-pass` broke SSAForm, which it does not declare in `invalidates`" in text
    assert "`c` is defined twice" in text
    # Without verification the broken pass goes through (only the grammar is guaranteed).
    pipeline.run(program)


def _with_nested_call(program: T.Program) -> T.Program:
    """The example with `pl.tensor.add(pl.tensor.neg(a), b)` in its InCore function (first)."""
    incore, main = program.functions
    assign = incore.body[0]
    assert isinstance(assign, T.AssignStmt) and isinstance(assign.value, T.Call)
    a = assign.value.args[0]
    nested = dataclasses.replace(assign.value, args=(T.Call("tensor.neg", (a,), (), F32_64), *assign.value.args[1:]))
    incore = dataclasses.replace(incore, body=(dataclasses.replace(assign, value=nested), *incore.body[1:]))
    return dataclasses.replace(program, functions=(incore, main))


def test_verify_all_is_incremental(plugin: CompilerPlugin, program: T.Program) -> None:
    # normalize-stmt-structure leaves the (already normal) example untouched: nothing to verify.
    verify = VerifyInstrument(plugin)
    assert Pipeline.from_spec("normalize-stmt-structure", plugin).run(program, instruments=[verify]) is program
    assert verify.verified_functions == 0
    # Nest a call in the InCore function only: just that function is rebuilt and re-verified.
    main = program.functions[1]
    changed = _with_nested_call(program)
    verify = VerifyInstrument(plugin)
    out = Pipeline.from_spec("normalize-stmt-structure", plugin).run(changed, instruments=[verify])
    assert isinstance(out, T.Program) and out.functions[1] is main
    assert (verify.verified_functions, verify.skipped_functions) == (1, 1)


@pytest.mark.parametrize("rebuild_last", [False, True], ids=["unchanged", "other-function-rebuilt"])
def test_verify_all_checks_a_newly_claimed_property_everywhere(
    plugin: CompilerPlugin, program: T.Program, rebuild_last: bool
) -> None:
    # The pass claims NormalizedStmtStructure; the nested call sits in a function it returned
    # untouched (the whole program, or every function but the last): incremental verification
    # must still check it there, since the property was never verified before.
    nested = _with_nested_call(program)
    pipeline = Pipeline([FalseNormalizerPass(rebuild_last)], plugin)
    with pytest.raises(CompileError) as info:
        pipeline.run(nested, instruments=[VerifyInstrument(plugin)])
    text = str(info.value)
    assert "Verification failed after 'FalseNormalizerPass' for properties {NormalizedStmtStructure}" in text
    assert "claims to produce NormalizedStmtStructure, but its output violates it" in text
    # The blame line comes right after the headline, so the one-screen cap never hides it.
    assert "[FalseNormalizerPass]" in text.splitlines()[1]


def test_instruments_report(plugin: CompilerPlugin, program: T.Program, tmp_path: Path) -> None:
    ctx = PassContext()
    streams = {name: io.StringIO() for name in ("timing", "stats", "ir", "change")}
    instruments = [
        TimingInstrument(streams["timing"]),
        StatisticsInstrument(ctx, streams["stats"]),
        PrintIRInstrument(plugin, streams["ir"]),
        PrintIRInstrument(plugin, streams["change"], only_changes=True),
    ]
    Pipeline.from_spec("ssa-breaking-pass,recording-tensor-pass", plugin).run(program, ctx, instruments)
    assert "SsaBreakingPass (ssa-breaking-pass)" in streams["timing"].getvalue()
    assert "Total" in streams["timing"].getvalue()
    assert "1  duplicated" in streams["stats"].getvalue()
    assert streams["ir"].getvalue().count("IR Dump After") == 2
    assert streams["change"].getvalue().count("IR Dump After") == 1


def test_dump_dir_files_parse_back(plugin: CompilerPlugin, tmp_path: Path) -> None:
    source = _load(ROOT / "examples" / "softmax_rows_f32.py") if _parses("softmax_rows_f32.py") else _load(EXAMPLES[0])
    dump = DumpDirInstrument(plugin, tmp_path)
    Pipeline.from_spec(plugin.default_pipeline(), plugin).run(source, instruments=[dump, VerifyInstrument(plugin)])
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names[0] == "00_input.py"
    pipeline = Pipeline.from_spec(plugin.default_pipeline(), plugin).starting_at(type(source).LANGUAGE)
    expected = [
        f"{i:02d}_after_{type(p).spec_name}{'.pto' if type(p).target.name == 'PTO' else '.py'}"
        for i, p in enumerate(pipeline.passes, start=1)
    ]
    assert names[1:] == expected
    for path in tmp_path.glob("*.py"):
        text = strip_position(path.read_text())
        assert plugin.print_program(plugin.parse(text, str(path))) == text
    assert strip_position((tmp_path / expected[-1]).read_text()).startswith("module {")


def _parses(name: str) -> bool:
    try:
        _load(ROOT / "examples" / name)
    except CompileError:
        return False
    return True


def test_crash_writes_a_reproducer(plugin: CompilerPlugin, program: T.Program, tmp_path: Path) -> None:
    repro = ReproducerInstrument(plugin, tmp_path)
    pipeline = Pipeline.from_spec("recording-tensor-pass,crashing-pass,options-pass{count=2}", plugin)
    with pytest.raises(PassCrash) as info:
        pipeline.run(program, instruments=[repro])
    assert "internal compiler error in pass crashing-pass" in str(info.value)
    assert repro.path == tmp_path / "repro_crashing_pass.py"
    assert "-p 'crashing-pass,options-pass{count=2}' --verify-all" in repro.command
    reparsed = plugin.parse(repro.path.read_text(), str(repro.path))
    assert reparsed == program
    # A run on a non-default backend re-runs on that backend.
    repro = ReproducerInstrument(plugin, tmp_path, ("--backend", "Ascend950"))
    with pytest.raises(PassCrash):
        pipeline.run(program, instruments=[repro])
    assert repro.command.endswith("--verify-all --backend Ascend950")


# -- copy-on-write, passes -----------------------------------------------------------------


class _Noop(T.Rewriter):
    pass


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_noop_rewriter_returns_the_same_program(path: Path) -> None:
    if not _parses(path.name):
        pytest.skip("example does not parse yet")
    program = _load(path)
    assert _Noop().visit_Program(program) is program


def _fn(body: tuple[T.Stmt, ...], params: tuple[T.Param, ...] = (), name: str = "k",
        returns: tuple[TensorType, ...] = ()) -> T.Program:
    return T.Program("P", (T.Function(name, "InCore", params, returns, body, ()),))


def test_normalize_hoists_nested_calls() -> None:
    from passes.normalize_stmt_structure import NormalizeStmtStructure

    x = T.Var("x", F32)
    inner = T.Call("tensor.exp", (x,), (), F32)
    outer = T.Call("tensor.add", (inner, x), (), F32)
    y = T.Var("y", F32)
    program = _fn((T.AssignStmt(y, outer), T.ReturnStmt((T.Call("tensor.neg", (y,), (), F32),))), (T.Param(x, "In"),),
                  returns=(F32,))
    assert normalized_stmt_structure.verify(program)
    out = NormalizeStmtStructure().run(program, PassContext())
    assert normalized_stmt_structure.verify(out) == []
    assert ssa_form.verify(out) == [] and use_after_def.verify(out) == [] and type_checked.verify(out) == []
    body = out.functions[0].body
    assert [type(s).__name__ for s in body] == ["AssignStmt", "AssignStmt", "AssignStmt", "ReturnStmt"]
    assert isinstance(body[0], T.AssignStmt) and body[0].target.name == "exp_0"


def test_simplify_index_arith_folds_and_keeps_types() -> None:
    from passes.simplify_index_arith import SimplifyIndexArith, wrap

    i = T.Var("i", INDEX)
    four_by_16 = T.BinOp("*", T.ConstInt(4, DataType.INDEX), T.ConstInt(16, DataType.INDEX), INDEX)
    body: tuple[T.Stmt, ...] = (
        T.ForStmt(i, T.ConstInt(0, DataType.INDEX), four_by_16, T.ConstInt(1, DataType.INDEX), (), (
            T.AssignStmt(T.Var("j", INDEX), T.BinOp("+", i, T.ConstInt(0, DataType.INDEX), INDEX)),
        ), (), "range", ()),
    )
    ctx = PassContext(current_pass="simplify-index-arith")
    out = SimplifyIndexArith().run(_fn(body), ctx)
    loop = out.functions[0].body[0]
    assert isinstance(loop, T.ForStmt)
    assert loop.stop == T.ConstInt(64, DataType.INDEX)
    assert isinstance(loop.body[0], T.AssignStmt) and loop.body[0].value is i
    assert ctx.statistics["simplify-index-arith.folded"] == 2
    assert wrap(2**31, DataType.INT32) == -(2**31) and wrap(-1, DataType.UINT8) == 255


def test_dead_code_elimination_keeps_effects() -> None:
    from passes.dead_code_elimination import DeadCodeElimination

    x = T.Var("x", F32)
    dead1, dead2, live = T.Var("d1", F32), T.Var("d2", F32), T.Var("l", F32)
    body: tuple[T.Stmt, ...] = (
        T.AssignStmt(dead1, T.Call("tensor.exp", (x,), (), F32)),
        T.AssignStmt(dead2, T.Call("tensor.neg", (dead1,), (), F32)),
        T.AssignStmt(live, T.Call("tensor.abs", (x,), (), F32)),
        T.ReturnStmt((live,)),
    )
    out = DeadCodeElimination().run(_fn(body, (T.Param(x, "In"),)), PassContext())
    assert [s.target.name for s in out.functions[0].body if isinstance(s, T.AssignStmt)] == ["l"]


# -- verifiers -----------------------------------------------------------------------------


def test_ssa_and_use_after_def_report_location_and_hint() -> None:
    x = T.Var("x", F32)
    late = T.Var("late", F32)
    body: tuple[T.Stmt, ...] = (
        T.AssignStmt(T.Var("y", F32), T.Call("tensor.neg", (late,), (), F32)),
        T.AssignStmt(late, T.Call("tensor.neg", (x,), (), F32)),
        T.AssignStmt(T.Var("x", F32), T.Call("tensor.neg", (x,), (), F32)),
    )
    program = _fn(body, (T.Param(x, "In"),))
    ssa = ssa_form.verify(program)
    assert len(ssa) == 1 and "`x` is defined twice" in ssa[0].message and ssa[0].hint
    uad = use_after_def.verify(program)
    assert len(uad) == 1 and "`late` is used" in uad[0].message


def test_use_after_def_scopes_loop_bodies() -> None:
    i = T.Var("i", INDEX)
    inner = T.Var("inner", INDEX)
    zero = T.ConstInt(0, DataType.INDEX)
    body: tuple[T.Stmt, ...] = (
        T.ForStmt(i, zero, T.ConstInt(4, DataType.INDEX), T.ConstInt(1, DataType.INDEX), (),
                  (T.AssignStmt(inner, i),), (), "range", ()),
        T.AssignStmt(T.Var("after", INDEX), inner),
    )
    found = use_after_def.verify(_fn(body))
    assert [d.message.split("`")[1] for d in found] == ["inner"]


def test_type_checked_compares_with_the_registry() -> None:
    x = T.Var("x", F32)
    wrong = TensorType((16, 32), DataType.FP16)
    program = _fn((T.AssignStmt(T.Var("y", wrong), T.Call("tensor.exp", (x,), (), wrong)),), (T.Param(x, "In"),))
    found = type_checked.verify(program)
    assert len(found) == 1 and found[0].rule == "TypeChecked"
    # Written for the kernel author, with types shown the way the user writes them.
    assert found[0].hint.startswith("annotate `y` as pl.Tensor[[16, 32], pl.FP32]")
    assert found[0].message == ("`y` is annotated pl.Tensor[[16, 32], pl.FP16], "
                                "but tensor.exp of these operands gives pl.Tensor[[16, 32], pl.FP32]")


def test_grammar_rejects_foreign_nodes_types_and_ops() -> None:
    x = T.Var("x", F32)
    addressed_tile = TileType((16, 32), DataType.FP32, None, MemorySpace.Vec, TileView(), MemRef("m", MemorySpace.Vec, 0, 2048))
    program = _fn((
        T.AssignStmt(T.Var("t", addressed_tile), T.Call("tile.exp", (x,), (), addressed_tile)),
        T.EvalStmt(T.Call("pto.tadd", (x,), (), F32)),
    ), (T.Param(x, "In"),))
    messages = [d.message for d in grammar.verify(program)]
    assert any("not admitted by Tensor" in m and "tile-addressed" in m for m in messages)
    assert any("operator pto.tadd is not admitted by Tensor" in m for m in messages)
    # A Tensor node left inside a TileUnplaced program.
    tu = TU.Program("P", (TU.Function("k", "InCore", (), (), (T.ReturnStmt(()),), ()),))  # type: ignore[arg-type]
    found = grammar.verify(tu)
    assert found and "ReturnStmt node of language Tensor inside a TileUnplaced program" in found[0].message
    assert grammar.verify_tile_unplaced(tu) == found


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_examples_satisfy_every_tensor_property(path: Path) -> None:
    if not _parses(path.name):
        pytest.skip("example does not parse yet")
    program = _load(path)
    for prop in get_plugin().properties:
        if prop.meaningful_in("Tensor") and prop.name != "NormalizedStmtStructure":
            assert prop.verify(program) == [], prop.name


# -- registries ----------------------------------------------------------------------------


def test_every_registered_pass_matches_its_class_and_file() -> None:
    from passes.registry import PASSES

    modules = set()
    for name, target in PASSES.items():
        module_name, _, class_name = target.partition(":")
        cls = getattr(importlib.import_module(module_name), class_name)
        assert cls.name == name
        assert cls.check_declaration() == []
        cls.option_types()  # every option has a type the pipeline text can carry
        declared = cls.requires | cls.produces | cls.invalidates
        assert declared <= set(get_plugin().property_registry.names()), f"{name}: unregistered properties"
        assert module_name.startswith("passes.") and module_name.count(".") == 1
        assert (ROOT / "passes" / (module_name.split(".")[1] + ".py")).is_file()
        modules.add(module_name)
    assert len(modules) == len(PASSES), "one pass per file"


def test_every_property_verifier_resolves() -> None:
    registry: PropertyRegistry = get_plugin().property_registry
    for name in registry.names():
        assert callable(registry[name].load_verifier()), name
    assert {"SSAForm", "NormalizedStmtStructure", "TypeChecked", "UseAfterDef", "TensorGrammar", "PTOGrammar"} <= set(
        registry.names()
    )


def test_default_pipeline_checks_for_every_example() -> None:
    plugin = get_plugin()
    steps = Pipeline.from_spec(plugin.default_pipeline(), plugin).starting_at("Tensor").plan(
        "Tensor", plugin.initial_properties("Tensor"))
    assert type(steps[-1].pass_).target.name == "PTO"
    assert {"SSAForm", "BoxedExtents"} <= steps[-1].claimed
    # NormalizedStmtStructure is claimed until the language where it stops being meaningful.
    assert any("NormalizedStmtStructure" in step.claimed for step in steps)
    assert "NormalizedStmtStructure" not in steps[-1].claimed


def test_generated_language_modules_are_not_stale() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "nanopass.gen_languages", "languages.decls:FAMILY", "--check"],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


CLIENT_PACKAGES = frozenset({"languages", "passes", "verifiers", "backend"})


def test_framework_does_not_import_client_packages() -> None:
    # Statically: no import statement anywhere in nanopass/ (module level or inside a
    # function) names a client package, and only nanopass/plugin.py spells a client module in
    # a string (its source-checkout fallback); all other client code arrives through the
    # plugin object's "module:attr" tables.
    for path in sorted((ROOT / "nanopass").glob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                modules = [node.module or ""]
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and path.name != "plugin.py":
                modules = [node.value] if re.fullmatch(r"[a-z_]+(\.[a-z_]+)*:\w+", node.value) else []
            else:
                continue
            for module in modules:
                assert module.split(".")[0] not in CLIENT_PACKAGES, f"{path.name}:{node.lineno}: {module}"


def test_importing_the_framework_loads_no_client_code() -> None:
    # Dynamically: importing every framework module (fuzz.py excepted: it is a client-facing
    # harness owned separately) leaves the client packages unloaded.
    modules = sorted(p.stem for p in (ROOT / "nanopass").glob("*.py") if p.stem not in {"__init__", "fuzz"})
    probe = "; ".join(
        ["import sys", *(f"import nanopass.{m}" for m in modules),
         f"print(sorted(n for n in sys.modules if n.split('.')[0] in {sorted(CLIENT_PACKAGES)!r}))"]
    )
    result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_nanopass_parse_and_load(program: T.Program) -> None:
    import nanopass

    path = ROOT / "examples" / "elementwise_add_f32.py"
    assert nanopass.load(path) == program
    assert nanopass.parse(path.read_text()) == program
    assert isinstance(ScalarType(DataType.INDEX), ScalarType)
    assert TileUnplaced.name == "TileUnplaced"
