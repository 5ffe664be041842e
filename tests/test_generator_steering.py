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

    @settings(max_examples=12, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(programs(Features(), "a2a3", (op,)))
    def draw(program: GeneratedProgram) -> None:
        drawn.append(program)

    draw()
    calling = [p for p in drawn if op in p.ops]
    # A quarter at least: a focused kernel is redrawn three times at most, and some ops admit few
    # element types on a target (sort32 on A2/A3).
    assert len(calling) * 4 >= len(drawn), f"{len(calling)} of {len(drawn)} programs call {op}"
    assert all("campaign:steered" in p.ops for p in drawn)


def test_a_transposed_view_never_feeds_a_row_major_only_operand() -> None:
    # A transpose_view is column-major once placed (the Tensor-level type has no TileView yet);
    # LegalizeVecLayouts declines such an operand of a row-major-only op ("not supported yet"),
    # which a campaign had reported as a rejected valid program.
    from languages.layout import row_major_vec_tiles
    from languages.ops import REGISTRY

    drawn: list[GeneratedProgram] = []

    @settings(max_examples=40, database=None, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(programs(Features(), "a2a3", ("tile.transpose_view", "tile.lrelu", "tile.exp", "tile.adds")))
    def draw(program: GeneratedProgram) -> None:
        drawn.append(program)

    draw()
    for program in drawn:
        for function in program.program.functions:
            transposed: set[str] = set()
            for stmt in function.body:
                value = getattr(stmt, "value", None)
                op = str(getattr(value, "op", ""))
                if op == "tile.transpose_view":
                    transposed.add(getattr(stmt, "target").name)
                    continue
                if op not in REGISTRY:
                    continue
                opdef = REGISTRY.get(op)
                needs = row_major_vec_tiles(opdef.family, opdef.pto, opdef.operand_names) or ()
                for name, arg in zip(opdef.operand_names, getattr(value, "args", ())):
                    if name in needs and getattr(arg, "name", None) in transposed:
                        shape = tuple(getattr(arg.type, "shape", ()))
                        assert shape[-1:] == (1,), (op, name, program.text)
    assert drawn


def test_a_transposed_view_is_never_reinterpreted() -> None:
    # A column-major tile's bytes are in another order than a re-read of another width sees:
    # TypeDeduction refuses such a tile.reinterpret_view once placement gives the tile its layout,
    # which a campaign had reported as a rejected program (5f3efc54f4).
    drawn: list[GeneratedProgram] = []

    @settings(max_examples=40, database=None, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(programs(Features(), "a2a3", ("tile.transpose_view", "tile.reinterpret_view")))
    def draw(program: GeneratedProgram) -> None:
        drawn.append(program)

    draw()
    reinterpreted = 0
    for program in drawn:
        for function in program.program.functions:
            transposed: set[str] = set()
            for stmt in function.body:
                value = getattr(stmt, "value", None)
                op = str(getattr(value, "op", ""))
                if op == "tile.transpose_view":
                    transposed.add(getattr(stmt, "target").name)
                elif op == "tile.reinterpret_view":
                    reinterpreted += 1
                    arg = getattr(value, "args")[0]
                    assert getattr(arg, "name", None) not in transposed \
                        or tuple(getattr(arg.type, "shape", ()))[-1:] == (1,), program.text
    assert reinterpreted
