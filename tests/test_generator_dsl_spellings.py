"""Generated programs re-spelled in the DSL's forms (backend.fuzzing.dsl_spellings) reach the
frontend passes and mean what the Tensor program means: each spelling's text compiles with the
pass it targets changing the program, and its outputs equal the Tensor program's bit for bit."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from typing_extensions import override

from backend.fuzzing.dsl_spellings import SPELLINGS, dsl_text
from backend.fuzzing.generator import Features, GeneratedProgram, programs
from languages.pl_parser import parse_program
from nanopass.instruments import Instrument, PassStep
from nanopass.diagnostics import CompileError
from nanopass.node import Node
from nanopass_pto.run import compare_valid, compile_program, random_inputs, run

TARGETED = {"scope": "outline-incore-scopes", "inline": "inline-functions", "reassign": "convert-to-ssa",
            "unroll": "unroll-loops"}


class _Changes(Instrument):
    def __init__(self) -> None:
        self.changed: set[str] = set()

    @override
    def after_pass(self, step: PassStep, before: Node, after: Node) -> None:
        if after is not before and after != before:
            self.changed.add(type(step.pass_).name)


def _drawn(count: int) -> list[GeneratedProgram]:
    drawn: list[GeneratedProgram] = []

    @settings(max_examples=count, database=None, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(programs(Features(dsl_spellings=False, big_shapes=False, tile_kernels=False), "a2a3"))
    def draw(program: GeneratedProgram) -> None:
        drawn.append(program)

    draw()
    return drawn


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_a_spelling_reaches_its_pass_and_keeps_the_programs_meaning(spelling: str) -> None:
    checked = 0
    for generated in _drawn(60):
        tags: set[str] = set()
        text = dsl_text(generated.program, spelling, lambda n: n - 1, tags)
        if text is None:
            continue
        assert f"dsl:{spelling}" in tags and "# nanopass.language: DSL" in text
        try:
            plain = compile_program(parse_program(generated.text, "plain.py"))
        except CompileError:
            continue  # a program the pipeline declines is declined in either spelling
        changes = _Changes()
        spelled = compile_program(parse_program(text, "spelled.py"), verify_all=True, instruments=[changes])
        assert TARGETED[spelling] in changes.changed, (changes.changed, text)
        inputs: dict[str, Any] = random_inputs(plain.source, 1)
        expected, got = run(plain, inputs), run(spelled, inputs)
        assert expected.keys() == got.keys()
        # Outside an output's valid_shape the contents are undefined: the valid regions agree.
        for report in compare_valid(plain.source, expected, got):
            assert report.ok, (report.line, text)
        checked += 1
        if checked == 3:
            break
    assert checked >= 1, f"no drawn program took the {spelling} spelling"
