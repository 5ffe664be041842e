"""UnrollLoops and the pl.unroll spelling, from JIT_FRONTEND.md §6 (constant integer bounds, no
init_values, expanded by UnrollLoops): one body copy per iteration reading its index as a
constant, carried values threaded copy to copy, results read directly, nesting, the located
errors, and the end-to-end run under --verify-all."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import languages.gen.dsl as D
from languages.pl_parser import parse_program
from tests.frontend import to_ssa
from languages.pl_printer import print_program
from nanopass.diagnostics import CompileError
from nanopass.node import preorder
from nanopass.passes import PassContext
from nanopass_pto.run import compile_program, random_inputs, reference, run
from passes.unroll_loops import UnrollLoops
from verifiers.no_unroll_loops import verify as no_unroll_loops
from verifiers.ssa_form import verify as ssa_form
from verifiers.use_after_def import verify as use_after_def

HEAD = "import pypto.language as pl\n\n@pl.program\nclass P:\n"
SIGNATURE = ("a: pl.Tensor[[64, 16], pl.FP32], c: pl.Out[pl.Tensor[[16, 16], pl.FP32]]"
             ") -> pl.Tensor[[16, 16], pl.FP32]")


def program(body: str) -> D.Program:
    text = HEAD + f"    @pl.function(type=pl.FunctionType.InCore)\n    def k(self, {SIGNATURE}:\n"
    text += "".join(f"        {line}\n" for line in body.strip("\n").splitlines())
    parsed = to_ssa(parse_program(text, "unroll.py"))  # the frontend before this pass
    assert isinstance(parsed, D.Program), "a pl.unroll loop makes the program DSL"
    return parsed


def unroll(prog: D.Program) -> D.Program:
    out = UnrollLoops().run(prog, PassContext())
    assert no_unroll_loops(out) == [] and ssa_form(out) == [] and use_after_def(out) == []
    return out


SUM_ROWS = """
acc = pl.load(a, [0, 0], [16, 16])
for i in pl.unroll(1, 4):
    t = pl.load(a, [i * 16, 0], [16, 16])
    acc = pl.add(acc, t)
c = pl.store(acc, [0, 0], c)
return c
"""


def test_each_copy_reads_its_index_as_a_constant_and_threads_the_carried_value() -> None:
    prog = program(SUM_ROWS)
    assert no_unroll_loops(prog) != []
    out = unroll(prog)
    body = out.functions[0].body
    assert not any(isinstance(s, D.ForStmt) for s in body)
    calls = [s.value for s in body if isinstance(s, D.AssignStmt) and isinstance(s.value, D.Call)]
    assert [c.op for c in calls] == ["tile.load"] + ["tile.load", "tile.add"] * 3 + ["tile.store"]
    offsets = [c.args[1] for c in calls if c.op == "tile.load"][1:]
    firsts = [o.elements[0] for o in offsets if isinstance(o, D.TupleExpr)]
    assert [(f.lhs.value if isinstance(f, D.BinOp) and isinstance(f.lhs, D.ConstInt) else None) for f in firsts] == [1, 2, 3]
    adds = [c for c in calls if c.op == "tile.add"]
    # copy k + 1 adds to what copy k computed; the store reads the last copy's sum
    sums = {id(s.value): s.target.name for s in body if isinstance(s, D.AssignStmt)}
    assert [getattr(add.args[0], "name") for add in adds] == ["acc", sums[id(adds[0])], sums[id(adds[1])]]
    store = calls[-1]
    last_add = next(s.target for s in body if isinstance(s, D.AssignStmt) and s.value is adds[-1])
    assert store.args[0] == last_add


def test_nested_unroll_loops_expand_innermost_first() -> None:
    out = unroll(program("""
acc = pl.load(a, [0, 0], [16, 16])
for i in pl.unroll(2):
    for j in pl.unroll(0, 4, 2):
        t = pl.load(a, [i * 32 + j * 8, 0], [16, 16])
        acc = pl.add(acc, t)
c = pl.store(acc, [0, 0], c)
return c
"""))
    ops = [n.op for n in preorder(out) if isinstance(n, D.Call)]
    assert ops.count("tile.add") == 4


def test_an_empty_unroll_loop_leaves_the_initial_value() -> None:
    out = unroll(program("""
acc = pl.load(a, [0, 0], [16, 16])
for i in pl.unroll(3, 3):
    acc = pl.add(acc, acc)
c = pl.store(acc, [0, 0], c)
return c
"""))
    store = out.functions[0].body[-2]
    assert isinstance(store, D.AssignStmt) and isinstance(store.value, D.Call)
    assert getattr(store.value.args[0], "name") == "acc"


def test_other_loops_are_kept_and_searched() -> None:
    out = unroll(program("""
acc = pl.load(a, [0, 0], [16, 16])
for k in pl.range(2):
    for i in pl.unroll(2):
        acc = pl.add(acc, acc)
c = pl.store(acc, [0, 0], c)
return c
"""))
    loops = [n for n in preorder(out) if isinstance(n, D.ForStmt)]
    assert [loop.kind for loop in loops] == ["range"]
    assert sum(isinstance(n, D.Call) and n.op == "tile.add" for n in preorder(loops[0])) == 2


@pytest.mark.parametrize("loop, message", [
    ("for i in pl.unroll(n):", "requires compile-time constant integer bounds"),
    ("for i, (x,) in pl.unroll(4, init_values=(acc,)):", "cannot be combined with init_values"),
    ("for i in pl.unroll(0, 4, 0):", "step must not be 0"),
    ("for i in range(4):", "For loop must use pl.range()"),
])
def test_unroll_spelling_errors_are_located(loop: str, message: str) -> None:
    text = HEAD + ("    @pl.function(type=pl.FunctionType.InCore)\n"
                   f"    def k(self, n: pl.Scalar[pl.INDEX], {SIGNATURE}:\n"
                   "        acc = pl.load(a, [0, 0], [16, 16])\n"
                   f"        {loop}\n"
                   "            acc = pl.add(acc, acc)\n"
                   "        c = pl.store(acc, [0, 0], c)\n"
                   "        return c\n")
    with pytest.raises(CompileError, match=message) as info:
        parse_program(text, "unroll.py")
    assert "unroll.py:8:" in str(info.value)


def test_unrolled_programs_compile_and_simulate_bit_exact() -> None:
    source = program(SUM_ROWS)
    compiled = compile_program(source, verify_all=True)
    inputs = random_inputs(source, 7)
    got, expected = run(compiled, inputs), reference(source, inputs)
    a = np.asarray(inputs["a"])
    want = ((a[0:16] + a[16:32]) + a[32:48]) + a[48:64]
    assert np.array_equal(expected["c"].view(np.uint32), want.view(np.uint32))
    assert np.array_equal(got["c"].view(np.uint32), expected["c"].view(np.uint32))
