"""A steered campaign draws toward what it has not covered: `steering_focus` names the ops that
reach an uncovered registered op (a PTO instruction through the DSL ops that emit it), and a
program drawn with `focus` calls one of them in its first kernel."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from backend.fuzzing.generator import Features, GeneratedProgram, programs
from backend.fuzzing.registry_calls import reaching_ops, steering_focus


def test_a_pto_instruction_is_reached_through_the_dsl_ops_that_emit_it() -> None:
    assert {"tile.and", "tensor.and"} <= set(reaching_ops("pto.tand", "a2a3"))
    assert reaching_ops("tile.abs", "a2a3") == ["tile.abs"]
    # An op the target does not have is no focus there (TRANDOM is A5-only).
    assert "tile.random" not in reaching_ops("pto.trandom", "a2a3")


def test_the_focus_leaves_out_what_was_exercised() -> None:
    universe = ["pto.tand", "tile.abs", "tile.exp"]
    assert steering_focus(universe, {"tile.abs", "pto.tand"}, "a2a3") == ["tile.exp"]
    everything = steering_focus(universe, set(), "a2a3")
    assert everything[-2:] == ["tile.abs", "tile.exp"] and len(everything) == len(set(everything))


@pytest.mark.parametrize("op", ["tile.shl", "tile.gemv", "tensor.col_expand_mul", "tile.sort32", "tensor.fmod"])
def test_a_focused_program_calls_its_op(op: str) -> None:
    drawn: list[GeneratedProgram] = []

    @settings(max_examples=8, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(programs(Features(), "a2a3", (op,)))
    def draw(program: GeneratedProgram) -> None:
        drawn.append(program)

    draw()
    calling = [p for p in drawn if op in p.ops]
    assert len(calling) * 2 >= len(drawn), f"{len(calling)} of {len(drawn)} programs call {op}"
    assert all("campaign:steered" in p.ops for p in drawn)
