"""Scatters in campaigns: their index data is a contract (distinct positions inside the
destination), so the generator feeds scatter index operands only conditioned inputs (parameters
random inputs fill from the IndexDomain, never a computed tensor), and the scatter-update
lowering builds its written-mask in an integer type every target compares, so BF16 data
lowers on A2/A3 and INT8 data (whose sel blend A2/A3 has no instruction for) is refused at the
user's line."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from backend.fuzzing.generator import INDEX_PARAM, Features, GeneratedProgram, programs
from languages.pl_parser import parse_program
from nanopass.diagnostics import CompileError
from nanopass_pto.run import compare, compile_program, random_inputs, reference, run

UPDATE = """\
import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.DT], i: pl.Tensor[[4, 1], pl.INT32],
          s: pl.Tensor[[4, 16], pl.DT]) -> pl.Tensor[[16, 16], pl.DT]:
        return pl.tensor.scatter_update(x, index=i, src=s)
"""


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
@pytest.mark.parametrize("dtype", ["BF16", "FP16", "FP32", "INT32"])
def test_a_scatter_update_keeps_the_rows_it_does_not_write(backend: str, dtype: str) -> None:
    compiled = compile_program(parse_program(UPDATE.replace("DT", dtype), "u.py"), backend=backend, verify_all=True)
    inputs = random_inputs(compiled.source, 6)
    outputs = run(compiled, inputs)
    reports = compare(reference(compiled.source, inputs), outputs)
    assert reports and all(r.ok for r in reports), reports
    x, i, s = (np.asarray(inputs[n]) for n in ("x", "i", "s"))
    assert len(set(i.reshape(-1).tolist())) == 4 and all(0 <= v < 16 for v in i.reshape(-1))  # conditioned
    expected = x.copy()
    expected[i.reshape(-1)] = s
    got = np.asarray(next(iter(outputs.values())))
    assert got.tobytes() == expected.tobytes()


def test_an_int8_scatter_update_is_refused_on_a2a3_at_the_users_line() -> None:
    with pytest.raises(CompileError, match=r"tensor.scatter_update on Ascend910B.*tsel") as err:
        compile_program(parse_program(UPDATE.replace("DT", "INT8"), "u.py"), backend="Ascend910B", verify_all=True)
    assert "u.py:9:16: error: [TargetOpRules]" in str(err.value)


def _op(stmt: Any) -> str:
    return str(getattr(getattr(stmt, "value", None), "op", ""))


def test_scatter_index_operands_are_conditioned_parameters() -> None:
    drawn: list[GeneratedProgram] = []

    @settings(max_examples=20, database=None, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(programs(Features(), "a2a3", ("tensor.scatter", "tensor.scatter_update", "tile.scatter")))
    def draw(program: GeneratedProgram) -> None:
        drawn.append(program)

    draw()
    scatters = ("tensor.scatter", "tensor.scatter_update", "tile.scatter")
    calls: list[tuple[Any, Any]] = [(getattr(stmt, "value"), function) for p in drawn
                                    for function in p.program.functions for stmt in function.body
                                    if _op(stmt) in scatters]
    assert len(calls) >= 10
    for call, function in calls:
        index: Any = call.args[2] if call.op == "tile.scatter" else call.args[1]
        loads = {getattr(s, "target").name: getattr(s, "value").args[0].name for s in function.body
                 if _op(s) == "tile.load"}
        if getattr(index, "op", "") == "tile.load":  # a load written inside the call
            index = index.args[0]
        source = loads.get(index.name, index.name)
        assert source.startswith(INDEX_PARAM), (call.op, index.name)
    # The orchestration passes main's own parameters to them, never an earlier kernel's result.
    for program in drawn:
        main: Any = program.program.functions[-1]
        for stmt in main.body:
            value: Any = getattr(stmt, "value", None)
            callee = getattr(value, "callee", None)
            if callee is None:
                continue
            kernel: Any = next(f for f in program.program.functions if f.name == callee)
            for param, arg in zip(kernel.params, value.args):
                if param.var.name.startswith(INDEX_PARAM):
                    assert arg.name in {p.var.name for p in main.params}


def test_a_rank1_scatter_update_index_is_conditioned_to_its_only_row() -> None:
    # dim -2 of a rank-1 tensor is an axis of extent 1: its index values are all 0 (a campaign
    # drew it unconditioned, and the interpreter rightly reported index 8975 out of range).
    text = UPDATE.replace("[[16, 16], pl.DT]", "[[16], pl.DT]").replace("[[4, 1], pl.INT32]", "[[1], pl.INT32]") \
        .replace("[[4, 16], pl.DT]", "[[16], pl.DT]").replace("DT", "INT32")
    compiled = compile_program(parse_program(text, "r.py"), verify_all=True)
    inputs = random_inputs(compiled.source, 4)
    assert np.asarray(inputs["i"]).tolist() == [0]
    reports = compare(reference(compiled.source, inputs), run(compiled, inputs))
    assert reports and all(r.ok for r in reports), reports
