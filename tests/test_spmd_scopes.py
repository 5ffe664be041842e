"""`with pl.spmd(n):` (JIT_FRONTEND.md section 2.4): its one dispatch runs once per block. The
reference interpreter runs the scope's body per block; OutlineClusterScopes moves the dispatch
into a Spmd wrapper whose `core_num` attribute launches it per block in the compiled program.
Forms and options this compiler does not lower are located "not supported yet" errors."""

from __future__ import annotations

import numpy as np
import pytest

import languages.gen.tensor as T
from languages.pl_parser import parse_program
from languages.pl_printer import print_program
from nanopass.diagnostics import CompileError
from nanopass_pto.run import compile_program, reference, run
from tests.frontend import lower_dsl

# Each block adds its block index to its own row.
DISPATCH = """\
import pypto.language as pl


@pl.program
class Rows:
    @pl.function(type=pl.FunctionType.InCore)
    def bump_row(self, x: pl.Tensor[[4, 64], pl.FP32], out: pl.Out[pl.Tensor[[4, 64], pl.FP32]]) -> pl.Tensor[[4, 64], pl.FP32]:
        b = pl.tile.get_block_idx()
        t = pl.load(x, [ROW, 0], [1, 64])
        s = pl.tile.adds(t, pl.cast(b, pl.FP32))
        return pl.store(s, [ROW, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 64], pl.FP32], out: pl.Out[pl.Tensor[[4, 64], pl.FP32]]) -> pl.Tensor[[4, 64], pl.FP32]:
        with pl.spmd(4):
            out = self.bump_row(x, out)
        return out
"""

# The same computation written inline: the CORE_GROUP scope is the dispatch.
CARRIER = """\
import pypto.language as pl


@pl.program
class Carrier:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 64], pl.FP32], out: pl.Out[pl.Tensor[[4, 64], pl.FP32]]) -> pl.Tensor[[4, 64], pl.FP32]:
        with pl.spmd(4):
            with pl.at(level=pl.Level.CORE_GROUP):
                b = pl.tile.get_block_idx()
                t = pl.load(x, [b, 0], [1, 64])
                s = pl.tile.adds(t, pl.cast(b, pl.FP32))
                out = pl.store(s, [b, 0], out)
        return out
"""


# The loop form: the loop variable is the block index, the body a CORE_GROUP scope.
LOOP = """\
import pypto.language as pl


@pl.program
class Loop:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 64], pl.FP32], out: pl.Out[pl.Tensor[[4, 64], pl.FP32]]) -> pl.Tensor[[4, 64], pl.FP32]:
        for b in pl.spmd(4):
            t = pl.load(x, [b, 0], [1, 64])
            s = pl.tile.adds(t, pl.cast(b, pl.FP32))
            out = pl.store(s, [b, 0], out)
        return out
"""


def _x() -> np.ndarray:
    return np.linspace(-8, 8, 4 * 64, dtype=np.float32).reshape(4, 64)


def _expected(x: np.ndarray) -> np.ndarray:
    return x + np.arange(4, dtype=np.float32)[:, None]


@pytest.mark.parametrize("text", [DISPATCH.replace("ROW", "b"), CARRIER, LOOP])
def test_each_block_runs_the_dispatch_in_the_reference_and_the_compiled_program(text: str) -> None:
    program = parse_program(text, "spmd.py")
    x = _x()
    assert np.array_equal(reference(program, {"x": x})["out"], _expected(x))
    assert np.array_equal(run(compile_program(program, verify_all=True), {"x": x})["out"], _expected(x))


def test_the_dispatch_moves_into_a_spmd_wrapper_with_core_num() -> None:
    lowered = lower_dsl(parse_program(CARRIER, "spmd.py"))
    assert isinstance(lowered, T.Program)
    wrapper = next(f for f in lowered.functions if f.func_type == "Spmd")
    assert wrapper.name == "main_spmd_0" and wrapper.attrs == (("core_num", 4),)
    assert [p.direction for p in wrapper.params] == ["In", "Out"]
    main = next(f for f in lowered.functions if f.name == "main")
    calls = [getattr(s.value, "callee", None) for s in main.body if isinstance(s, T.AssignStmt)]
    assert calls == ["main_spmd_0"]


def test_a_spmd_scope_prints_and_parses_back() -> None:
    program = parse_program(DISPATCH.replace("ROW", "b").replace("pl.spmd(4)", 'pl.spmd(4, sync_start=True, name_hint="r")'),
                            "spmd.py")
    printed = print_program(program)
    assert 'with pl.spmd(4, sync_start=True, name_hint="r"):' in printed
    assert parse_program(printed, "printed.py") == program


def test_the_loop_form_is_the_carrier_form() -> None:
    loop, carrier = parse_program(LOOP, "loop.py"), parse_program(CARRIER, "carrier.py")
    printed = print_program(loop)
    assert "with pl.spmd(4):" in printed and "b: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()" in printed
    assert parse_program(printed, "printed.py") == loop
    assert len(carrier.functions) == len(loop.functions) == 1


# Every block adds its row into one accumulator row: an atomic reduction, not a race.
REDUCTION = """\
import pypto.language as pl


@pl.program
class RowSum:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 64], pl.FP32], acc: pl.InOut[pl.Tensor[[1, 64], pl.FP32]]) -> pl.Tensor[[1, 64], pl.FP32]:
        for b in pl.spmd(4):
            t = pl.load(x, [b, 0], [1, 64])
            acc = pl.store(t, [0, 0], acc, atomic=pl.AtomicType.Add)
        return acc
"""


def test_blocks_adding_atomically_into_one_row_are_a_reduction() -> None:
    program = parse_program(REDUCTION, "sum.py")
    x = np.arange(4 * 64, dtype=np.float32).reshape(4, 64)
    acc = np.full((1, 64), 0.5, dtype=np.float32)
    expected = acc.copy()
    for row in x:
        expected = expected + row
    assert np.array_equal(reference(program, {"x": x, "acc": acc.copy()})["acc"], expected)
    assert np.array_equal(run(compile_program(program, verify_all=True), {"x": x, "acc": acc.copy()})["acc"], expected)


def test_blocks_writing_one_row_with_different_values_is_a_located_race() -> None:
    program = parse_program(DISPATCH.replace("ROW", "0"), "racy.py")
    with pytest.raises(CompileError) as caught:
        reference(program, {"x": _x()})
    rendered = caught.value.render()
    assert "racy.py:15:9: error: [Interpreter] the pl.spmd(...) scope runs as 4 instances" in rendered
    assert "block 1 writes out[0, 0] after block 0 wrote a different value there" in rendered


@pytest.mark.parametrize(("spmd", "message"), [
    ("pl.spmd()", "pl.spmd() needs core_num"),
    ("pl.spmd(0)", "not supported yet: pl.spmd(core_num=`0`)"),
    ("pl.spmd(x)", "not supported yet: pl.spmd(core_num=`x`)"),
    ("pl.spmd(4, deps=[])", "not supported yet: pl.spmd(deps=...)"),
])
def test_bad_spmd_scopes_are_located_errors(spmd: str, message: str) -> None:
    with pytest.raises(CompileError) as caught:
        parse_program(DISPATCH.replace("ROW", "b").replace("pl.spmd(4)", spmd), "bad.py")
    assert message in caught.value.render() and "bad.py:15:" in caught.value.render()


def test_a_spmd_body_of_two_dispatches_is_not_supported_yet() -> None:
    text = DISPATCH.replace("ROW", "b").replace("            out = self.bump_row(x, out)\n",
                                                "            out = self.bump_row(x, out)\n"
                                                "            out = self.bump_row(x, out)\n")
    with pytest.raises(CompileError) as caught:
        compile_program(parse_program(text, "two.py"))
    assert "two.py:15:9: error: [OutlineClusterScopes] not supported yet: a pl.spmd(...) body other than one " \
           "dispatch" in caught.value.render()
