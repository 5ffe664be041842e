"""Spellings of PyPTO's DSL the parser accepts as PyPTO does (JIT_FRONTEND.md §3.2, §4.5, §6):
each parses to the IR the plain spelling gives, and runs bit-exact."""

from __future__ import annotations

import numpy as np
import pytest

from languages.pl_parser import parse_program
from languages.pl_printer import print_program
from nanopass.diagnostics import CompileError
from nanopass_pto.run import compile_program, random_inputs, reference, run

HEAD = "import pypto.language as pl\n"


def program_text(constants: str, signature: str, body: str) -> str:
    text = HEAD + constants + "\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n"
    text += f"    def k(self, {signature}:\n"
    return text + "".join(f"        {line}\n" for line in body.strip("\n").splitlines())


def test_module_constants_and_constant_arithmetic_in_shapes() -> None:
    spelled = program_text("ROWS = 16\nCOLS = 4 * 4\n",
                           "a: pl.Tensor[[2 * ROWS, COLS], pl.FP32], c: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]"
                           ") -> pl.Tensor[[ROWS, COLS], pl.FP32]",
                           "t = pl.load(a, [ROWS, 0], [ROWS, (COLS + 1) // 1 - 1])\nc = pl.store(t, [0, 0], c)\nreturn c")
    plain = program_text("", "a: pl.Tensor[[32, 16], pl.FP32], c: pl.Out[pl.Tensor[[16, 16], pl.FP32]]"
                             ") -> pl.Tensor[[16, 16], pl.FP32]",
                         "t = pl.load(a, [16, 0], [16, 16])\nc = pl.store(t, [0, 0], c)\nreturn c")
    source = parse_program(spelled, "k.py")
    assert print_program(source) == print_program(parse_program(plain, "k.py"))
    inputs = random_inputs(source, 1)
    got = run(compile_program(source, verify_all=True), inputs)
    assert np.array_equal(got["c"], reference(source, inputs)["c"])
    assert np.array_equal(got["c"], np.asarray(inputs["a"])[16:32])


def test_a_shape_that_is_not_constant_says_what_it_accepts() -> None:
    text = program_text("", "a: pl.Tensor[[2 * R, 16], pl.FP32]) -> None", "return")
    with pytest.raises(CompileError, match=r"expected an integer dimension, got `2 \* R`") as info:
        parse_program(text, "k.py")
    assert "module-level integer constant" in str(info.value)
