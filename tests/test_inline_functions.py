"""InlineFunctions, from JIT_FRONTEND.md §3.1 (Inline functions are spliced into their callers by
the first pass and leave the program): splicing, fresh names, nested helpers, tuple results,
arguments evaluated once, the located errors, and the end-to-end run under --verify-all."""

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
from passes.inline_functions import InlineFunctions
from verifiers.no_inline_functions import verify as no_inline_functions
from verifiers.ssa_form import verify as ssa_form

HEAD = "import pypto.language as pl\n\n@pl.program\nclass P:\n"
TILE = "pl.Tile[[16, 16], pl.FP32]"
T16 = "pl.Tensor[[16, 16], pl.FP32]"


def program(helpers: str, kernel_body: str) -> D.Program:
    text = HEAD + "".join(f"    {line}\n" for line in helpers.strip("\n").splitlines())
    text += (f"    @pl.function(type=pl.FunctionType.InCore)\n"
             f"    def k(self, a: {T16}, b: {T16}, c: pl.Out[{T16}]) -> {T16}:\n")
    text += "".join(f"        {line}\n" for line in kernel_body.strip("\n").splitlines())
    parsed = to_ssa(parse_program(text, "inl.py"))  # the frontend before this pass
    assert isinstance(parsed, D.Program)
    return parsed


def inline(prog: D.Program) -> D.Program:
    out = InlineFunctions().run(prog, PassContext())
    assert no_inline_functions(out) == [] and ssa_form(out) == []
    return out


def kernel(prog: Any) -> Any:
    return next(f for f in prog.functions if f.name == "k")


def ops(fn: Any) -> list[str]:
    return [str(getattr(n, "op")) for n in preorder(fn) if n.KIND == "Call"]


ADD_SELF = f"""
@pl.function(type=pl.FunctionType.Inline)
def twice(self, t: {TILE}) -> {TILE}:
    u = pl.add(t, t)
    return u
"""


def test_calls_are_spliced_and_the_inline_function_leaves_the_program() -> None:
    prog = program(ADD_SELF, """
ta = pl.load(a, [0, 0], [16, 16])
u = self.twice(ta)
v = self.twice(u)
c = pl.store(v, [0, 0], c)
return c
""")
    assert no_inline_functions(prog) != []
    out = inline(prog)
    assert [f.name for f in out.functions] == ["k"]
    fn = kernel(out)
    assert ops(fn) == ["tile.load", "tile.add", "tile.add", "tile.store"]
    # the helper's `u` is the caller's `u`; the second call's `u` gets a fresh name, bound to `v`
    assigned = [s.target.name for s in fn.body if isinstance(s, D.AssignStmt)]
    assert assigned == ["ta", "u", "v", "c_1"]
    second = fn.body[2]
    assert isinstance(second.value, D.Call) and [getattr(arg, "name") for arg in second.value.args] == ["u", "u"]
    assert "Inline" not in print_program(out)


def test_a_call_inside_an_expression_is_hoisted_before_its_statement() -> None:
    out = inline(program(ADD_SELF, """
ta = pl.load(a, [0, 0], [16, 16])
c = pl.store(self.twice(ta), [0, 0], c)
return c
"""))
    fn = kernel(out)
    assert ops(fn) == ["tile.load", "tile.add", "tile.store"]
    store = fn.body[2].value
    assert store.args[0].name == "u"


def test_nested_helpers_inline_innermost_first_with_fresh_names() -> None:
    helpers = ADD_SELF + f"""
@pl.function(type=pl.FunctionType.Inline)
def quad(self, t: {TILE}) -> {TILE}:
    u = self.twice(t)
    w = self.twice(u)
    return w
"""
    out = inline(program(helpers, """
u = pl.load(a, [0, 0], [16, 16])
w = self.quad(u)
c = pl.store(w, [0, 0], c)
return c
"""))
    fn = kernel(out)
    assert ops(fn) == ["tile.load", "tile.add", "tile.add", "tile.store"]
    names = [s.target.name for s in fn.body if isinstance(s, D.AssignStmt)]
    assert len(set(names)) == len(names) and names[0] == "u" and names[2] == "w"


def test_tuple_results_are_read_element_wise() -> None:
    helpers = f"""
@pl.function(type=pl.FunctionType.Inline)
def both(self, t: {TILE}, s: {TILE}) -> tuple[{TILE}, {TILE}]:
    x = pl.add(t, s)
    y = pl.mul(t, s)
    return x, y
"""
    out = inline(program(helpers, """
ta = pl.load(a, [0, 0], [16, 16])
tb = pl.load(b, [0, 0], [16, 16])
x, y = self.both(ta, tb)
z = pl.sub(x, y)
c = pl.store(z, [0, 0], c)
return c
"""))
    fn = kernel(out)
    assert ops(fn) == ["tile.load", "tile.load", "tile.add", "tile.mul", "tile.sub", "tile.store"]
    assert not any(n.KIND in ("TupleGetItem", "FuncCall") for n in preorder(fn))


def test_an_argument_expression_is_evaluated_once() -> None:
    out = inline(program(ADD_SELF, """
ta = pl.load(a, [0, 0], [16, 16])
v = self.twice(pl.exp(ta))
c = pl.store(v, [0, 0], c)
return c
"""))
    assert ops(kernel(out)) == ["tile.load", "tile.exp", "tile.add", "tile.store"]


def test_recursive_inline_functions_are_a_located_error() -> None:
    helpers = f"""
@pl.function(type=pl.FunctionType.Inline)
def f(self, t: {TILE}) -> {TILE}:
    u = self.g(t)
    return u

@pl.function(type=pl.FunctionType.Inline)
def g(self, t: {TILE}) -> {TILE}:
    u = self.f(t)
    return u
"""
    prog = program(helpers, """
ta = pl.load(a, [0, 0], [16, 16])
v = self.f(ta)
c = pl.store(v, [0, 0], c)
return c
""")
    with pytest.raises(CompileError, match=r"recursively: f -> g -> f") as info:
        InlineFunctions().run(prog, PassContext())
    assert "inl.py:" in str(info.value)


def test_inlined_programs_compile_and_simulate_bit_exact() -> None:
    source = program(ADD_SELF, """
ta = pl.load(a, [0, 0], [16, 16])
tb = pl.load(b, [0, 0], [16, 16])
u = self.twice(ta)
v = pl.mul(self.twice(tb), u)
c = pl.store(v, [0, 0], c)
return c
""")
    compiled = compile_program(source, verify_all=True)
    inputs = random_inputs(source, 5)
    got, expected = run(compiled, inputs), reference(source, inputs)
    a, b = (np.asarray(inputs[k]) for k in "ab")
    assert np.array_equal(expected["c"], (b + b) * (a + a))
    assert np.array_equal(got["c"].view(np.uint32), expected["c"].view(np.uint32))
