"""The DSL language and its scope passes, from JIT_FRONTEND.md §2.2's rules: names, parameters in
first-read order, directions, results and call sites, and the end-to-end run of scoped programs."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import languages.gen.dsl as D
import languages.gen.tensor as T
from languages.pl_parser import parse_program
from tests.frontend import to_ssa
from languages.pl_printer import print_program
from nanopass.diagnostics import CompileError
from nanopass.passes import PassContext
from nanopass_pto.run import compile_program, random_inputs, reference, run
from passes.outline_cluster_scopes import OutlineClusterScopes
from passes.outline_incore_scopes import OutlineIncoreScopes

HEAD = "import pypto.language as pl\n\n@pl.program\nclass P:\n"
T32 = "pl.Tensor[[32, 32], pl.FP32]"


def program(body: str, signature: str = f"a: {T32}, b: {T32}, c: pl.Out[{T32}]",
            func_type: str = "pl.FunctionType.Orchestration", returns: str = f" -> {T32}") -> D.Program:
    text = HEAD + f"    @pl.function(type={func_type})\n    def main(self, {signature}){returns}:\n"
    text += "".join(f"        {line}\n" for line in body.strip("\n").splitlines())
    parsed = to_ssa(parse_program(text, "scoped.py"))  # the frontend before this pass
    assert isinstance(parsed, D.Program)
    return parsed


def outline(prog: D.Program) -> D.Program:
    return OutlineIncoreScopes().run(prog, PassContext())


def functions(prog: Any) -> dict[str, Any]:
    return {f.name: f for f in prog.functions}


def params(fn: Any) -> list[tuple[str, str]]:
    return [(p.var.name, p.direction) for p in fn.params]


TWO_SCOPES = """
s = pl.create_tensor([32, 32], dtype=pl.FP32)
with pl.at(level=pl.Level.CORE_GROUP):
    tb = pl.load(b, [0, 0], [32, 32])
    ta = pl.load(a, [0, 0], [32, 32])
    pl.store(pl.add(ta, tb), [0, 0], s)
with pl.at(level=pl.Level.CORE_GROUP, name_hint="sq"):
    t = pl.load(s, [0, 0], [32, 32])
    pl.store(pl.mul(t, t), [0, 0], c)
return c
"""


def test_scopes_parse_into_the_dsl_language_and_round_trip() -> None:
    prog = program(TWO_SCOPES)
    text = print_program(prog)
    assert "# nanopass.language: DSL" in text
    assert 'with pl.at(level=pl.Level.CORE_GROUP, name_hint="sq"):' in text
    assert print_program(parse_program(text)) == text


def test_names_parameters_in_first_read_order_and_out_directions() -> None:
    out = outline(program(TWO_SCOPES))
    fns = functions(out)
    assert list(fns) == ["main_incore_0", "sq", "main"]  # outlined functions come first
    assert params(fns["main_incore_0"]) == [("b", "In"), ("a", "In"), ("s", "Out")]
    assert params(fns["sq"]) == [("s", "In"), ("c", "Out")]
    main = fns["main"]
    calls: list[Any] = [s for s in main.body if isinstance(s, D.AssignStmt) and isinstance(s.value, D.FuncCall)]
    # each store target gets a fresh variable, and the next scope reads the newest value
    assert [(s.target.name, s.value.callee, [a.name for a in s.value.args]) for s in calls] == [
        ("s_1", "main_incore_0", ["b", "a", "s"]), ("c_1", "sq", ["s_1", "c"])]
    last = main.body[-1]
    assert isinstance(last, D.ReturnStmt)
    returned: Any = last.values[0]
    assert returned.name == "c_1"


def test_read_and_written_parameter_is_inout() -> None:
    out = outline(program("""
with pl.at(level=pl.Level.CORE_GROUP):
    t = pl.load(c, [0, 0], [32, 32])
    pl.store(pl.add(t, t), [0, 0], c)
return c
"""))
    assert params(functions(out)["main_incore_0"]) == [("c", "InOut")]


def test_values_used_after_come_first_then_store_targets_through_a_tuple() -> None:
    out = outline(program("""
with pl.at(level=pl.Level.CORE_GROUP):
    t = pl.load(a, [0, 0], [32, 32])
    pl.store(t, [0, 0], c)
    y = pl.tensor.add(a, b)
return y
"""))
    fns = functions(out)
    kernel = fns["main_incore_0"]
    assert [v.name for v in kernel.body[-1].values] == ["y", "c"]
    stmts = fns["main"].body
    assert stmts[0].target.name == "ret__tmp_v0" and isinstance(stmts[0].value, D.FuncCall)
    assert [(s.target.name, s.value.index) for s in stmts[1:3]] == [("y", 0), ("c_1", 1)]


def test_opaque_parent_becomes_orchestration_and_names_avoid_collisions() -> None:
    out = outline(program("""
main_incore_0 = pl.create_tensor([32, 32], dtype=pl.FP32)
with pl.at(level=pl.Level.CORE_GROUP, name_hint="main"):
    pl.store(pl.load(a, [0, 0], [32, 32]), [0, 0], c)
with pl.at(level=pl.Level.CORE_GROUP):
    pl.store(pl.load(b, [0, 0], [32, 32]), [0, 0], main_incore_0)
return c
""", func_type="pl.FunctionType.Opaque"))
    fns = functions(out)
    # hint `main` names another function: namespaced; `main_incore_1` is the counter's name
    assert list(fns) == ["main_main", "main_incore_1", "main"]
    assert fns["main"].func_type == "Orchestration"


def test_loop_index_is_a_scalar_parameter_and_nested_scopes_are_spliced() -> None:
    out = outline(program("""
for i in pl.range(2):
    with pl.at(level=pl.Level.CORE_GROUP):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [i * 16, 0], [16, 32])
        pl.store(t, [i * 16, 0], c)
return c
"""))
    kernel = functions(out)["main_incore_0"]
    assert params(kernel) == [("a", "In"), ("i", "In"), ("c", "Out")]  # first read: load(a, [i * 16, 0], ..)
    assert not any(isinstance(s, D.ScopeStmt) for s in kernel.body)


def test_cluster_and_runtime_scopes_are_spliced_and_hierarchy_scopes_are_not_supported() -> None:
    prog = outline(program("""
with pl.manual_scope():
    with pl.cluster():
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.load(a, [0, 0], [32, 32]), [0, 0], c)
return c
"""))
    tensor = OutlineClusterScopes().run(prog, PassContext())
    assert isinstance(tensor, T.Program)
    with pytest.raises(CompileError, match="not supported yet: pl.at\\(level=pl.Level.HOST\\)"):
        OutlineClusterScopes().run(outline(program("""
with pl.at(level=pl.Level.HOST):
    x = pl.create_tensor([32, 32], dtype=pl.FP32)
return c
""")), PassContext())


@pytest.mark.parametrize("source, message", [
    ("with pl.at(level=lvl):\n    pass\nreturn c", "Expected pl.Level.<name>"),
    ("with pl.at(level=pl.Level.CORE_GROUP, colour=1):\n    pass\nreturn c", "Unknown keyword argument 'colour'"),
    ("with pl.at(level=pl.Level.CORE_GROUP) as tid:\n    pass\nreturn c", "not supported yet"),
    ("with pl.at(level=pl.Level.HOST, optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):\n    pass\nreturn c",
     "only supported with level=pl.Level.CORE_GROUP"),
    ("with pl.at(level=pl.Level.CORE_GROUP, name_hint=\"9x\"):\n    pass\nreturn c", "not a valid identifier"),
])
def test_scope_spelling_errors_are_located(source: str, message: str) -> None:
    with pytest.raises(CompileError, match=message) as info:
        program(source)
    assert "scoped.py:" in str(info.value)


def test_scoped_programs_compile_and_simulate_bit_exact() -> None:
    source = program(TWO_SCOPES)
    compiled = compile_program(source, verify_all=True)
    inputs = random_inputs(source, 3)
    got, expected = run(compiled, inputs), reference(source, inputs)
    a, b = (np.asarray(inputs[k]) for k in "ab")
    assert np.array_equal(expected["c"], (a + b) * (a + b))
    assert all(np.array_equal(got[k].view(np.uint32), expected[k].view(np.uint32)) for k in expected)
