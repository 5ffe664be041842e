"""Compile work grows linearly with the program (issue 12): no pass or verifier may do more
than a constant amount of work per op or per function.

Work is counted, not timed: the number of Python-level function calls (and calls into C
functions) a compile makes, via `sys.setprofile`, at two sizes in one process. A linear
compile makes ~10x the calls for a 10x larger program; an algorithm that rescans the program
per op or per function makes ~100x at these sizes. The bound (13x) is generous on purpose:
it fails on a quadratic pass, not on constant overheads. Hidden quadratic C-level work
(`x in list`, tuple concatenation) makes no calls, so the known cases of it have their own
tests below.
"""

from __future__ import annotations

import sys
from types import FrameType
from typing import Any, Callable

from typing_extensions import override

import pytest

from nanopass.node import summary
from nanopass.pipeline import Pipeline
from nanopass.plugin import get_plugin
from nanopass_pto import run as runner

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent.parent / "bench"))
from _common import synthetic_source  # noqa: E402

LINEAR_BOUND = 13.0


def _calls(run: Callable[[], object]) -> int:
    count = 0

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return count


def _compile_calls(functions: int, chain: int, verify_all: bool) -> int:
    plugin = get_plugin()
    pipeline = Pipeline.from_spec(plugin.default_pipeline(), plugin)
    source = synthetic_source(functions, chain)

    def once() -> None:
        program = plugin.parse(source.text, source.filename)
        compiled = runner.compile_program(program, pipeline=pipeline, backend=plugin.default_backend,
                                          verify_all=verify_all)
        plugin.text_of(compiled.final)

    once()  # warm: lazily built tables, the deduction cache
    return _calls(once)


@pytest.mark.parametrize(("small", "large"), [((3, 8), (30, 8)), ((1, 30), (1, 300))],
                         ids=["functions", "chain"])
@pytest.mark.parametrize("verify_all", [False, True], ids=["plain", "verify-all"])
def test_compile_work_grows_linearly(small: tuple[int, int], large: tuple[int, int], verify_all: bool) -> None:
    ratio = _compile_calls(*large, verify_all) / _compile_calls(*small, verify_all)
    assert ratio <= LINEAR_BOUND, f"10x larger program made {ratio:.1f}x the calls (linear: ~10x)"


def test_program_summary_merges_shared_values_once() -> None:
    # The merge unions per-function summaries by identity in one pass (it concatenated each
    # function's tuples onto the running result: quadratic in the number of functions, and a
    # value shared by F functions was listed F times).
    from nanopass.node import Summary, _merge
    shared = [object() for _ in range(3)]
    parts = [Summary(frozenset(), {("Var", "type"): (shared[i % 3], object())}) for i in range(300)]
    merged = _merge(parts)
    values = merged.field_values("Var", "type")
    assert len(values) == 3 + 300 and len({id(v) for v in values}) == len(values)
    plugin = get_plugin()
    program = plugin.parse(synthetic_source(40, 8).text, "<large>")
    whole = summary(program)
    assert whole.classes and all(len({id(v) for v in vs}) == len(vs) for vs in whole.values.values())


def test_memory_reuse_handover_checks_a_set() -> None:
    from passes import memory_reuse
    slot = memory_reuse._Slot(head=None, end=0, size=0)  # type: ignore[arg-type]
    for i in range(5):
        slot.add(f"b{i}")
    assert slot.member_set == set(slot.members) and isinstance(slot.member_set, set)


def test_call_site_names_are_not_probed_from_the_start() -> None:
    # k call sites of one callee: the k-th allocation starts at the suffix after the last one.
    from passes.update_orchestration_call_sites import CallSiteUpdateMutator
    probes = 0

    class CountingSet(set[str]):
        @override
        def __contains__(self, item: object) -> bool:
            nonlocal probes
            probes += 1
            return super().__contains__(item)

    mutator = CallSiteUpdateMutator()
    mutator._used_names = CountingSet()
    import languages.gen.tile_unplaced as U
    from languages.types import DataType, TensorType
    param = U.Var("ret0_out", TensorType((4, 4), DataType.FP32))
    for _ in range(200):
        mutator._allocate(param, param.span)
    assert probes <= 2 * 200


def test_pipeline_plan_specs_each_pass_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each step records the rest of the pipeline as text; building it from `self.spec(i)` per
    # step made a spec per pass and step (quadratic in the pipeline's length, ~10 % of a small
    # kernel's compile).
    from nanopass.passes import Pass

    plugin = get_plugin()
    pipeline = Pipeline.from_spec(plugin.default_pipeline(), plugin)
    original = Pass.spec
    made = [0]

    def counted(self: Pass[Any, Any]) -> str:
        made[0] += 1
        return original(self)

    monkeypatch.setattr(Pass, "spec", counted)
    steps = pipeline.plan(type(pipeline.passes[0]).source.name, frozenset(plugin.property_registry.names()))
    assert made[0] == len(pipeline.passes)
    assert steps[0].remaining_spec == pipeline.spec() and steps[-1].remaining_spec == original(pipeline.passes[-1])
