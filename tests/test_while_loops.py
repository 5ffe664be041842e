"""While loops (JIT_FRONTEND.md section 6): `while cond:` and `pl.while_(init_values=...)` with
`pl.cond(...)` first parse into the WhileStmt of the DSL / Tensor languages, print back, are
carried by ConvertToSSA, run in the reference interpreter, and pass the frontend and Tensor
passes under --verify-all; ConvertTensorToTileOps says by name that it does not lower them yet."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import languages.gen.dsl as D
from languages.pl_parser import parse_program
from languages.pl_printer import print_program
from nanopass.diagnostics import CompileError
from nanopass_pto.run import reference
from tests.frontend import to_ssa

# Halve a tile until a counter reaches LIMIT (the natural form: the body reassigns t and n).
NATURAL = """\
import pypto.language as pl


@pl.program
class Halving:
    @pl.function(type=pl.FunctionType.InCore)
    def halve(self, x: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 32])
        n: pl.Scalar[pl.INDEX] = 0
        while n < LIMIT:
            t = pl.tile.muls(t, 0.5)
            n = n + 1
        out = pl.store(t, [0, 0], out)
        return out
"""

# Sum 1 + 2 + ... until the sum exceeds a bound, the explicit form: carried values named in
# the header, pl.cond first, the results named by the closing yield.
EXPLICIT = """\
import pypto.language as pl


@pl.program
class Triangle:
    @pl.function(type=pl.FunctionType.InCore)
    def steps(self, x: pl.Tensor[[8, 16], pl.FP32], out: pl.Out[pl.Tensor[[8, 16], pl.FP32]]) -> pl.Tensor[[8, 16], pl.FP32]:
        t: pl.Tile[[8, 16], pl.FP32] = pl.load(x, [0, 0], [8, 16])
        total: pl.Scalar[pl.INDEX] = 0
        k: pl.Scalar[pl.INDEX] = 0
        for (acc, s, i) in pl.while_(init_values=(t, total, k)):
            pl.cond(s <= 20)
            grown: pl.Tile[[8, 16], pl.FP32] = pl.tile.adds(acc, 1.0)
            acc_out, s_out, i_out = pl.yield_(grown, s + i + 1, i + 1)
        stored: pl.Tensor[[8, 16], pl.FP32] = pl.store(acc_out, [0, 0], out)
        return stored
"""


def _tile() -> np.ndarray:
    return np.arange(16 * 32, dtype=np.float32).reshape(16, 32) - 100


def _whiles(program: D.Program) -> list[D.WhileStmt]:
    return [n for n in program.functions[0].body if isinstance(n, D.WhileStmt)]


def test_the_natural_form_is_a_while_without_carries_until_convert_to_ssa() -> None:
    program = parse_program(NATURAL.replace("LIMIT", "3"), "natural.py")
    assert isinstance(program, D.Program)
    (loop,) = _whiles(program)
    assert loop.iter_args == () and loop.results == ()
    (converted,) = _whiles(to_ssa(program))
    assert [getattr(it.init, "name") for it in converted.iter_args] == ["t", "n"]
    assert [v.name for v in converted.results] == ["t_2", "n_2"]
    assert isinstance(converted.cond, D.BinOp) and converted.cond.lhs == converted.iter_args[1].var


@pytest.mark.parametrize("limit", [0, 1, 3])
def test_the_interpreter_runs_a_while_as_written_and_in_ssa_form(limit: int) -> None:
    program = parse_program(NATURAL.replace("LIMIT", str(limit)), "natural.py")
    x = _tile()
    expected = x * np.float32(0.5 ** limit)
    assert np.array_equal(reference(program, {"x": x})["out"], expected)
    assert np.array_equal(reference(to_ssa(program), {"x": x})["out"], expected)


def test_the_explicit_form_carries_its_named_values() -> None:
    program = parse_program(EXPLICIT, "explicit.py")
    x = np.linspace(-2, 2, 8 * 16, dtype=np.float32).reshape(8, 16)
    expected = x
    for _ in range(6):  # sums 0, 1, 3, 6, 10, 15, 21: six iterations run
        expected = expected + np.float32(1)
    assert np.array_equal(reference(program, {"x": x})["out"], expected)


@pytest.mark.parametrize("text", [NATURAL.replace("LIMIT", "2"), EXPLICIT])
def test_printed_while_loops_parse_back_to_the_same_program(text: str) -> None:
    parsed = parse_program(text, "w.py")
    for program in (parsed, to_ssa(parsed)) if isinstance(parsed, D.Program) else (parsed,):
        printed = print_program(program)
        assert parse_program(printed, "printed.py") == program


def test_the_frontend_and_tensor_passes_keep_a_while_under_verify_all(tmp_path: Path) -> None:
    source = tmp_path / "natural.py"
    source.write_text(NATURAL.replace("LIMIT", "3"))
    passes = ("convert-to-ssa,inline-functions,unroll-loops,outline-incore-scopes,outline-cluster-scopes,"
              "normalize-stmt-structure,simplify-index-arith,dead-code-elimination,seed-zero-accumulators")
    done = subprocess.run([sys.executable, "-m", "nanopass.pipeline", str(source), "-p", passes, "--verify-all",
                           "--simulate", "-o", "-"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "pl.while_(init_values=" in done.stdout
    assert "out: bit-exact" in done.stdout + done.stderr


def test_lowering_below_tensor_names_the_while_as_not_supported_yet(tmp_path: Path) -> None:
    source = tmp_path / "natural.py"
    source.write_text(NATURAL.replace("LIMIT", "3"))
    done = subprocess.run([sys.executable, "-m", "nanopass.pipeline", str(source), "--verify-all"],
                          capture_output=True, text=True)
    assert done.returncode != 0
    assert f"{source}:10:9: error: [ConvertTensorToTileOps] not supported yet: a while loop" in done.stderr
    assert "Traceback" not in done.stderr


_BAD = [
    (EXPLICIT.replace("pl.while_(init_values=(t, total, k))", "pl.while_()"),
     "explicit.py:11:28: error: [parse] while_() requires init_values to be specified"),
    (EXPLICIT.replace("            pl.cond(s <= 20)\n", ""),
     "explicit.py:12:13: error: [parse] the first statement of a pl.while_ body must be pl.cond(<bool expression>)"),
    (EXPLICIT.replace("pl.cond(s <= 20)", "pl.cond(s)"),
     "explicit.py:12:21: error: [parse] while condition must be a Bool-typed scalar expression, got pl.Scalar[pl.INDEX]"),
    (EXPLICIT.replace("for (acc, s, i) in", "for (acc, s) in"),
     "explicit.py:11:13: error: [parse] the loop carries 3 value(s)"),
    (NATURAL.replace("LIMIT", "3").replace("            n = n + 1\n", "            n = n + 1\n        else:\n            n = 0\n"),
     "natural.py:14:13: error: [parse] a while loop cannot have an else branch"),
    (NATURAL.replace("LIMIT", "3").replace("t = pl.tile.muls(t, 0.5)", "t = pl.tile.muls(t, 0.5)\n            fresh = n"
                                                                       ).replace("out = pl.store(t,", "out = pl.store(t, [fresh, 0], out)\n        out = pl.store(t,"),
     "is defined only inside the loop at line 10, so it has no value after the loop"),
    (NATURAL.replace("LIMIT", "3").replace("t = pl.tile.muls(t, 0.5)", "t = pl.tile.cast(t, pl.BF16)"),
     "a value carried around a loop must keep its type"),
]


@pytest.mark.parametrize(("text", "message"), _BAD)
def test_bad_while_loops_are_located_errors(text: str, message: str) -> None:
    name = "explicit.py" if "Triangle" in text else "natural.py"
    with pytest.raises(CompileError) as caught:
        parsed = parse_program(text, name)
        if isinstance(parsed, D.Program):
            to_ssa(parsed)
    assert message in caught.value.render()


def test_a_loop_whose_condition_never_fails_is_a_located_error() -> None:
    forever = NATURAL.replace("LIMIT", "3").replace("n = n + 1", "n = n + 0").replace(
        "            t = pl.tile.muls(t, 0.5)\n", "")
    program = parse_program(forever, "forever.py")
    with pytest.raises(CompileError) as caught:
        reference(program, {"x": _tile()})
    assert "forever.py:10:9: error: [Interpreter] the while loop ran 100000 iterations" in caught.value.render()
