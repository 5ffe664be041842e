"""Spellings of PyPTO's DSL the parser accepts as PyPTO does (JIT_FRONTEND.md §3.2, §4.5, §6):
each parses to the IR the plain spelling gives, and runs bit-exact."""

from __future__ import annotations

import numpy as np
import pytest

from languages.pl_parser import parse_program
from tests.frontend import to_ssa
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


def orchestration(body: str, signature: str) -> str:
    text = HEAD + "\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.Orchestration)\n"
    text += f"    def main(self, {signature}:\n"
    return text + "".join(f"        {line}\n" for line in body.strip("\n").splitlines())


SLICES = """
with pl.at(level=pl.Level.CORE_GROUP):
    top = a[0:32, :]
    bottom = a[32:, 0:32]
    y = pl.add(pl.mul(top, 0.5), bottom)
    c[0:16, :] = y[0:16, :]
    c[16:32] = y[16:32]
return c
"""
SLICES_SIGNATURE = ("a: pl.Tensor[[64, 32], pl.FP32], c: pl.Out[pl.Tensor[[32, 32], pl.FP32]]"
                    ") -> pl.Tensor[[32, 32], pl.FP32]")


def test_subscript_slices_and_stores_are_tensor_slice_and_assemble() -> None:
    source = parse_program(orchestration(SLICES, SLICES_SIGNATURE), "s.py")
    text = print_program(to_ssa(source))
    assert "pl.tensor.slice(a, [32, 32], [0, 0])" in text and "pl.tensor.slice(a, [32, 32], [32, 0])" in text
    assert "c_1: pl.Tensor[[32, 32], pl.FP32] = pl.tensor.assemble(c, pl.tensor.slice(y, [16, 32], [0, 0]), [0, 0])" in text
    assert "pl.tensor.assemble(c_1, pl.tensor.slice(y, [16, 32], [16, 0]), [16, 0])" in text
    inputs = random_inputs(source, 2)
    got = run(compile_program(source, verify_all=True), inputs)
    a = np.asarray(inputs["a"])
    want = a[0:32] * np.float32(0.5) + a[32:64]
    assert np.array_equal(reference(source, inputs)["c"].view(np.uint32), want.view(np.uint32))
    assert np.array_equal(got["c"].view(np.uint32), want.view(np.uint32))


def test_tile_subscripts_and_dynamic_offsets_with_constant_extents() -> None:
    body = """
with pl.at(level=pl.Level.CORE_GROUP):
    for i in pl.range(2):
        t = pl.load(a, [i * 32, 0], [32, 32])
        half = t[0:16, :]
        x = t[i * 0 + 3, 1]
        c[i * 16:i * 16 + 16, :] = pl.store(half, [0, 0], pl.create_tensor([16, 32], dtype=pl.FP32))
return c
"""
    text = print_program(parse_program(orchestration(body, SLICES_SIGNATURE), "s.py"))
    assert "pl.tile.slice(t, [16, 32], [0, 0])" in text
    assert "pl.tile.read(t, [i * 0 + 3, 1])" in text
    assert "[i * 16, 0])" in text


@pytest.mark.parametrize("line, message", [
    ("x = a[0:n, :]", "the extent of the slice `0:n` is not a compile-time constant"),
    ("x = a[3, :]", "not supported yet: the scalar index `3` in a slice"),
    ("x = a[0:8:2, :]", "a slice step is not supported"),
    ("x = a[0:8, :, :]", "3 indices for a rank-2 value"),
    ("x = a[8:8, :]", "empty or reversed"),
])
def test_subscript_errors_are_located(line: str, message: str) -> None:
    text = orchestration(f"{line}\nreturn c", "n: pl.Scalar[pl.INDEX], " + SLICES_SIGNATURE)
    with pytest.raises(CompileError, match=message) as info:
        parse_program(text, "s.py")
    assert "s.py:7:" in str(info.value)


def decorated(decorator: str, body: str = "return") -> str:
    return (HEAD + f"\n@pl.program\nclass P:\n    {decorator}\n"
            "    def k(self, a: pl.Tensor[[16, 16], pl.FP32]) -> None:\n" + f"        {body}\n")


@pytest.mark.parametrize("decorator", [
    "@pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)",
    "@pl.function(type=pl.FunctionType.InCore, level=pl.Level.L2CACHE)",
    "@pl.function(type=pl.FunctionType.Orchestration, auto_scope=False, strict_ssa=False, attrs={})",
    "@pl.function(level=pl.Level.HOST)",
])
def test_function_keywords_pyptos_decorator_accepts(decorator: str) -> None:
    parse_program(decorated(decorator), "d.py")


@pytest.mark.parametrize("decorator, message", [
    ("@pl.function(type=pl.FunctionType.InCore, level=pl.Level.AIC)",
     "Function 'k' has func_type=InCore which implies level=CHIP_DIE, but explicit level=AIC was provided"),
    ("@pl.function(type=pl.FunctionType.AIV, attrs={\"split\": pl.SplitMode.UP_DOWN})",
     "not supported yet: the function attribute 'split'"),
    ("@pl.function(strict_ssa=True)", "not supported yet: @pl.function\\(strict_ssa=True\\)"),
    ("@pl.function(kind=1)", "Unknown keyword argument `kind` of @pl.function"),
])
def test_function_keyword_errors_are_located(decorator: str, message: str) -> None:
    with pytest.raises(CompileError, match=message) as info:
        parse_program(decorated(decorator), "d.py")
    assert "d.py:5:" in str(info.value)


@pytest.mark.parametrize("loop, message", [
    ("for i in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):", "not supported yet: .*manual AIV split regions"),
])
def test_iterators_not_supported_yet_say_so_by_name(loop: str, message: str) -> None:
    text = decorated("@pl.function(type=pl.FunctionType.InCore)", f"{loop}\n            pass\n        return")
    with pytest.raises(CompileError, match=message):
        parse_program(text, "d.py")


def test_a_pl_dynamic_dimension_in_a_program_says_not_supported_yet() -> None:
    text = HEAD + "M = pl.dynamic(\"M\")\n" + decorated("@pl.function(type=pl.FunctionType.InCore)")[len(HEAD):]
    text = text.replace("[[16, 16]", "[[M, 16]")
    with pytest.raises(CompileError, match="not supported yet: the dynamic dimension `M`"):
        parse_program(text, "d.py")


def test_a_row_index_of_a_tile_is_a_one_row_slice() -> None:
    body = """
with pl.at(level=pl.Level.CORE_GROUP):
    t = pl.load(a, [0, 0], [32, 32])
    r = t[5]
    c = pl.store(r, [0, 0], c)
return c
"""
    text = print_program(parse_program(orchestration(body, "a: pl.Tensor[[64, 32], pl.FP32], c: pl.Out["
                                                          "pl.Tensor[[1, 32], pl.FP32]]) -> pl.Tensor[[1, 32], pl.FP32]"),
                                       "s.py"))
    assert "pl.tile.slice(t, [1, 32], [5, 0])" in text


# --- tensor views and layouts (JIT_FRONTEND.md §5: pl.TensorView(stride, layout, valid_shape, pad)) ---

ROW_MAJOR_BODY = "t = pl.load(a, [0, 0], [16, 32])\nreturn pl.store(t, [0, 0], c)"


def _view_program(annotation: str) -> str:
    return program_text("", f"a: {annotation}, c: pl.Out[pl.Tensor[[16, 32], pl.FP32]]"
                            ") -> pl.Tensor[[16, 32], pl.FP32]", ROW_MAJOR_BODY)


@pytest.mark.parametrize("annotation", [
    "pl.Tensor[[16, 32], pl.FP32, pl.TensorView(stride=[32, 1], layout=pl.TensorLayout.ND)]",
    "pl.Tensor[[16, 32], pl.FP32, pl.TensorLayout.ND]",
    "pl.Tensor[[16, 32], pl.FP32, pl.ND]",
    "pl.Tensor[[16, 32], pl.FP32, pl.TensorView(layout=pl.TensorLayout.ND, pad=pl.PadValue.null)]",
])
def test_a_row_major_view_or_layout_is_the_plain_tensor(annotation: str) -> None:
    spelled = parse_program(_view_program(annotation), "k.py")
    assert spelled == parse_program(_view_program("pl.Tensor[[16, 32], pl.FP32]"), "k.py")
    inputs = random_inputs(spelled, 4)
    got = run(compile_program(spelled, verify_all=True), inputs)
    assert np.array_equal(got["c"].view(np.uint32), np.asarray(inputs["a"]).view(np.uint32))


@pytest.mark.parametrize("annotation, at, message", [
    ("pl.TensorView(stride=[1, 16], layout=pl.TensorLayout.DN)", "pl.TensorLayout.DN",
     "not supported yet: the DN tensor layout in pl.TensorView"),
    ("pl.TensorView(stride=[64, 1], layout=pl.TensorLayout.ND)", "[64, 1]",
     r"not supported yet: the strided tensor view stride=\[64, 1\] \(a GM tensor of shape \[16, 32\] is row-major, "
     r"stride=\[32, 1\]\)"),
    ("pl.TensorView(stride=[32, 1])", "pl.TensorView(", "pl.TensorView needs layout= as soon as another field is given"),
    ("pl.DN", "pl.DN", r"pl.Tensor\[..., pl.DN\] is not supported: the DN layout-only shorthand"),
    ("pl.TensorView(layout=pl.TensorLayout.ND, pad=pl.PadValue.zero)", "pl.PadValue.zero", "not supported yet: a padded tensor view"),
])
def test_views_this_compiler_does_not_lower_are_located(annotation: str, at: str, message: str) -> None:
    text = _view_program(f"pl.Tensor[[16, 32], pl.FP32, {annotation}]")
    with pytest.raises(CompileError, match=message) as info:
        parse_program(text, "k.py")
    line = text.splitlines()[5]
    assert f"k.py:6:{line.index(at, line.index('a: ')) + 1}:" in str(info.value)


@pytest.mark.parametrize("signature, body, at, message", [
    ("a: pld.DistributedTensor[[16, 32], pl.FP32]) -> None", "return", "pld.DistributedTensor",
     "not supported yet: the distributed type `pld.DistributedTensor`"),
    ("a: pl.Tensor[[16, 32], pl.FP32]) -> None", "pld.barrier(a)\nreturn", "pld.barrier",
     "not supported yet: the distributed operation `pld.barrier`"),
    ("a: pl.Tensor[[16, 32], pl.FP32]) -> None", "o, tid = pl.submit(self.f, a)\nreturn", "pl.submit",
     r"not supported yet: `pl.submit` \(runtime task submission"),
    ("a: pl.Tensor[[16, 32], pl.FP32]) -> None", "o, tid = pl.spmd_submit(self.f, a, core_num=2)\nreturn",
     "pl.spmd_submit", r"not supported yet: `pl.spmd_submit` \(runtime task submission"),
])
def test_distributed_constructs_say_not_supported_yet(signature: str, body: str, at: str, message: str) -> None:
    text = program_text("import pypto.language.distributed as pld\n", signature, body)
    with pytest.raises(CompileError, match=message) as info:
        parse_program(text, "k.py")
    number = next(i for i, line in enumerate(text.splitlines(), 1) if at in line)
    column = text.splitlines()[number - 1].index(at) + 1
    assert f"k.py:{number}:{column}:" in str(info.value)


def test_create_tensor_with_the_nd_layout_is_the_plain_create() -> None:
    body = "t = pl.create_tensor([16, 32], dtype=pl.FP32{})\nreturn t"
    signature = "a: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]"
    plain = parse_program(program_text("", signature, body.format("")), "k.py")
    for layout in (", layout=pl.TensorLayout.ND", ", layout=pl.ND"):
        assert parse_program(program_text("", signature, body.format(layout)), "k.py") == plain
    with pytest.raises(CompileError, match=r"not supported yet: the DN tensor layout in pl.create_tensor\(layout=...\)"):
        parse_program(program_text("", signature, body.format(", layout=pl.TensorLayout.DN")), "k.py")


@pytest.mark.parametrize("body, message", [
    ("for i in pl.range(4):\n    break\nreturn", r"not supported yet: `break` \(break\)"),
    ("for i in pl.range(4):\n    continue\nreturn", r"not supported yet: `continue` \(continue\)"),
    ("n += 1\nreturn", r"unsupported statement `n \+= 1` \(PyPTO has no augmented assignment\)"),
])
def test_statements_pypto_has_and_this_compiler_does_not_lower_say_so(body: str, message: str) -> None:
    text = program_text("", "n: pl.Scalar[pl.INDEX]) -> None", body)
    with pytest.raises(CompileError, match=message) as info:
        parse_program(text, "k.py")
    first = body.splitlines()[0]
    line = 7 if first.startswith("n +=") else 8
    assert f"k.py:{line}:" in str(info.value)


def test_a_variable_passed_by_an_unknown_keyword_names_the_operands() -> None:
    text = program_text("", "a: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]",
                        "return pl.tensor.add(a, other=a)")
    with pytest.raises(CompileError, match=r"tensor.add has no operand 'other': it takes ") as info:
        parse_program(text, "k.py")
    assert "k.py:7:39:" in str(info.value) and "must be a constant" not in str(info.value)
