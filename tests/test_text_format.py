"""The `pl` text format: golden kernels, print/parse identity for every language, diagnostics."""

from __future__ import annotations

import importlib
import pathlib
import re
from typing import Any

import pytest
from hypothesis import given, strategies as st

from languages.decls import LANGUAGES, Addressed, L0Tiled, Tensor, TilePlaced, TileUnplaced
from languages.memory_space import MemorySpace
from languages.pl_parser import detect_language, load_program, parse_program, parse_program_as
from languages.pl_printer import print_program
from languages.types import DataType, MemRef, ScalarType, TensorType, TileType, TileView
from nanopass.diagnostics import CompileError
from nanopass.langdef import Language
from nanopass.node import Node, walk
from tests.strategies import TEXT_LANGUAGES, language_programs, programs

GOLDEN = pathlib.Path(__file__).parent / "golden"
FIXPOINTS = sorted(p for p in GOLDEN.glob("*.py") if not p.name.endswith((".in.py", ".out.py")))
SUGARED = sorted(GOLDEN.glob("*.in.py"))


def _roundtrip(text: str, language: Language | None = None) -> str:
    return print_program(parse_program(text, "golden.py", language))


# --- golden files --------------------------------------------------------------------------


@pytest.mark.parametrize("path", FIXPOINTS, ids=lambda p: p.name)
def test_golden_is_a_print_fixpoint(path: pathlib.Path) -> None:
    text = path.read_text()
    program = load_program(str(path))
    assert print_program(program) == text
    assert parse_program(print_program(program)) == program


@pytest.mark.parametrize("path", SUGARED, ids=lambda p: p.name)
def test_sugared_input_prints_canonically(path: pathlib.Path) -> None:
    expected = path.with_name(path.name.replace(".in.py", ".out.py")).read_text()
    assert _roundtrip(path.read_text()) == expected


EXPECTED_LANGUAGE = {
    "add_f32.py": "TileUnplaced",
    "addressed_memrefs.py": "Addressed",
    "if_phi.py": "Tensor",
    "matmul_f16.py": "Tensor",
    "pipeline_k_loop.py": "L0Tiled",
    "placed_views.py": "TilePlaced",
    "softmax_rows.py": "TileUnplaced",
}
DETECTED_LANGUAGE = {**EXPECTED_LANGUAGE, "add_f32.py": "Tensor", "softmax_rows.py": "Tensor",
                     "pipeline_k_loop.py": "TilePlaced"}


@pytest.mark.parametrize("name", sorted(EXPECTED_LANGUAGE))
def test_header_and_detection_choose_the_language(name: str) -> None:
    text = (GOLDEN / name).read_text()
    assert parse_program(text).LANGUAGE == EXPECTED_LANGUAGE[name]
    bare = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
    assert parse_program(bare).LANGUAGE == DETECTED_LANGUAGE[name]
    without_import = bare.replace("import pypto.language as pl\n", "")
    assert parse_program(without_import).LANGUAGE == DETECTED_LANGUAGE[name]


def test_explicit_language_wins_and_gives_its_classes() -> None:
    text = (GOLDEN / "add_f32.py").read_text()
    for lang in (Tensor, TileUnplaced):
        program = parse_program(text, language=lang)
        module = importlib.import_module(lang.module)
        assert all(type(node) is getattr(module, node.KIND) for node in walk(program))
    tile_unplaced = importlib.import_module("languages.gen.tile_unplaced")
    assert isinstance(parse_program_as(text, tile_unplaced.Program), tile_unplaced.Program)


def test_detect_language_from_types() -> None:
    placed = TileType((16, 16), DataType.FP32, None, MemorySpace.Vec, TileView())
    unplaced = TileType((16, 16), DataType.FP32)
    addressed = TileType((16, 16), DataType.FP32, None, MemorySpace.Vec, TileView(),
                         MemRef("m", MemorySpace.Vec, 0, 1024))
    assert detect_language([TensorType((4,), DataType.FP32)]) is Tensor
    assert detect_language([unplaced]) is Tensor
    assert detect_language([placed, unplaced]) is TileUnplaced
    assert detect_language([placed]) is TilePlaced
    assert detect_language([placed, addressed]) is Addressed


# --- spans and variable identity -----------------------------------------------------------


def test_spans_and_ssa_definitions() -> None:
    program = load_program(str(GOLDEN / "pipeline_k_loop.py"))
    func: Any = program.functions[0]  # walked by position: the test knows the node kinds
    loop = func.body[3]
    assert loop.KIND == "ForStmt"
    assert (loop.span.line, loop.span.col) == (13, 9)
    assert loop.span.file.endswith("pipeline_k_loop.py")
    c_iter = loop.iter_args[0].var
    matmul = loop.body[2].value
    assert matmul.args[0] is c_iter  # uses reference the defining Var object
    store = func.body[4].value
    assert store.args[0] is loop.results[0]
    assert all(node.node_span.known for node in walk(program) if node.KIND not in ("ConstInt",))


def test_deduces_unannotated_calls_through_the_registry() -> None:
    text = """
import pypto.language as pl

@pl.program
class MulKernel:
    @pl.function
    def mul(self, a: pl.Tensor[[32, 32], pl.FP32], c: pl.Tensor[[32, 32], pl.FP32]):
        tile_a = pl.load(a, [0, 0], [32, 32])
        tile_c = pl.mul(tile_a, tile_a)
        pl.store(tile_c, [0, 0], c)
"""
    program = parse_program(text)
    body: Any = program.functions[0].body
    assert body[1].value.op == "tile.mul"
    assert body[1].target.type == TileType((32, 32), DataType.FP32)
    assert _roundtrip(print_program(program)) == print_program(program)


# --- hypothesis: print/parse identity for every language -----------------------------------


@given(language_programs())
def test_random_programs_roundtrip(case: tuple[Language, Node]) -> None:
    language, program = case
    text = print_program(program)
    parsed = parse_program(text, "random.py")
    assert parsed == program, text
    assert print_program(parsed) == text
    assert parse_program(text, "random.py", language) == program


@pytest.mark.parametrize("language", [L0Tiled], ids=lambda lang: lang.name)
@given(data=st.data())
def test_random_programs_of_one_language(language: Language, data: st.DataObject) -> None:
    program = data.draw(programs(language))
    assert parse_program(print_program(program)) == program


def test_every_text_language_is_covered() -> None:
    assert {lang.name for lang in TEXT_LANGUAGES} == {lang.name for lang in LANGUAGES} - {"PTO"}


# --- diagnostics ---------------------------------------------------------------------------

_GOOD = (GOLDEN / "if_phi.py").read_text()


def _replace_line(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


ERROR_CASES = [
    ("pl.Tensor[[32], pl.FP32], n: pl.Scalar[pl.INDEX])", "pl.Tensor[[32], pl.FP33], n: pl.Scalar[pl.INDEX])",
     r"unknown dtype pl\.FP33 \(known: BOOL, INT4"),
    ("half: pl.Scalar[pl.INDEX] = n // 2", "half: pl.Scalar[pl.INDEX] = q // 2", r"unknown name 'q'"),
    ("half: pl.Scalar[pl.INDEX] = n // 2", "half = n // 2 +", r"invalid Python syntax"),
    ("half: pl.Scalar[pl.INDEX] = n // 2", "half: 7 = n // 2",
     r"expected a type annotation like pl\.Tensor\[\[16, 32\], pl\.FP32\]"),
    ("for i in pl.range(4):", "for i in pl.range(1, 2, 3, 4):", r"pl\.range takes 1 to 3 positional arguments"),
    ("half: pl.Scalar[pl.INDEX] = n // 2", "half: pl.Scalar[pl.INDEX] = n / 2", r"operator `/` in `n / 2` divides a pl.INDEX scalar: `/` is float division"),
    ("half: pl.Scalar[pl.INDEX] = n // 2", "half: pl.Scalar[pl.INDEX] = self.nope(n)", r"unknown function 'nope'"),
    ("half: pl.Scalar[pl.INDEX] = n // 2", "half: pl.Scalar[pl.INDEX] = 0 < n < 2", r"chained comparisons"),
    ("            y, k = pl.yield_(scaled, -(n + 1) % 7)", "            y = pl.yield_(scaled)",
     r"both branches of an if must yield the same names"),
]


@pytest.mark.parametrize("old,new,message", ERROR_CASES)
def test_errors_name_the_place_and_the_expectation(old: str, new: str, message: str) -> None:
    text = _replace_line(_GOOD, old, new)
    line = text[: text.index(new)].count("\n") + 1
    with pytest.raises(CompileError) as info:
        parse_program(text, "bad.py")
    diag = info.value.diagnostics[0]
    assert diag.rule == "parse"
    assert re.search(message, diag.message), diag.message
    assert diag.span.file == "bad.py" and diag.span.line == line and diag.span.col >= 1


def test_missing_program_and_unreadable_file(tmp_path: pathlib.Path) -> None:
    with pytest.raises(CompileError, match="no @pl.program class"):
        parse_program("import pypto.language as pl\n")
    with pytest.raises(CompileError, match="cannot read"):
        load_program(str(tmp_path / "missing.py"))


_TOKEN = re.compile(r"\w+|[^\w\s]")


@given(st.data())
def test_mutated_programs_parse_or_fail_with_a_located_diagnostic(data: st.DataObject) -> None:
    text = data.draw(st.sampled_from([p.read_text() for p in FIXPOINTS]))
    tokens = list(_TOKEN.finditer(text))
    for _ in range(data.draw(st.integers(1, 3))):
        match = tokens[data.draw(st.integers(0, len(tokens) - 1))]
        other = tokens[data.draw(st.integers(0, len(tokens) - 1))].group()
        action = data.draw(st.sampled_from(["delete", "duplicate", "swap"]))
        replacement = {"delete": "", "duplicate": match.group() * 2, "swap": other}[action]
        text = text[: match.start()] + replacement + text[match.end():]
        tokens = list(_TOKEN.finditer(text))
    try:
        program = parse_program(text, "mutant.py")
    except CompileError as error:
        assert error.diagnostics and all(d.span.known for d in error.diagnostics), str(error)
        assert "internal parser error" not in str(error), str(error)
    else:
        assert print_program(program) == _roundtrip(print_program(program))


# --- lossless corner cases -----------------------------------------------------------------


def _single_function_program(body: tuple[object, ...], returns: tuple[object, ...] = (),
                             params: tuple[object, ...] = ()) -> Node:
    import languages.gen.tensor as T

    func = T.Function(name="f", func_type="Opaque", params=params, return_types=returns, body=body, attrs=())  # type: ignore[arg-type]
    return T.Program(name="Corner", functions=(func,))


def test_corner_cases_roundtrip_exactly() -> None:
    import math

    import languages.gen.tensor as T
    from languages.types import NoneType, TupleType

    index = ScalarType(DataType.INDEX)
    n = T.Var(name="n", type=index)
    floats = [0.1, -0.0, float("inf"), float("-inf"), 1e-310, 3.4028234663852886e38]
    body: list[object] = [
        T.AssignStmt(target=T.Var(name=f"x{i}", type=ScalarType(DataType.FP32)),
                     value=T.ConstFloat(value=v, dtype=DataType.FP32))
        for i, v in enumerate(floats)
    ]
    neg_literal = T.UnaryOp(op="-", operand=T.ConstInt(value=3, dtype=DataType.INDEX), type=index)
    nested = T.BinOp(op="-", lhs=n, rhs=T.BinOp(op="-", lhs=n, rhs=neg_literal, type=index), type=index)
    body.append(T.AssignStmt(target=T.Var(name="m", type=index), value=nested))
    tensor = TensorType((16,), DataType.INT16)
    t = T.Var(name="t", type=tensor)
    call = T.Call(op="tensor.and", args=(t, t), attrs=(("note", 'say "hi"\n'), ("eps", float("inf")),
                                                      ("axes", (0, -1)), ("none", None)), type=tensor)
    body.append(T.AssignStmt(target=T.Var(name="u", type=tensor), value=call))
    body.append(T.ReturnStmt(values=()))
    for returns in [(), (NoneType(),), (TupleType((tensor, index)),), (TupleType(()),), (tensor, NoneType())]:
        program = _single_function_program(tuple(body), returns, (T.Param(var=n, direction="In"),
                                                                   T.Param(var=t, direction="InOut")))
        text = print_program(program)
        assert "pl.tensor.and_(t, t" in text
        parsed = parse_program(text)
        assert parsed == program, text
        assert print_program(parsed) == text
        zero_assign: Any = parsed.functions[0].body[1]
        zero = zero_assign.value.value
        assert math.copysign(1.0, zero) == -1.0
    nan_assign = _single_function_program((T.AssignStmt(target=T.Var(name="q", type=ScalarType(DataType.FP32)),
                                                         value=T.ConstFloat(value=float("nan"), dtype=DataType.FP32)),))
    nan_parsed: Any = parse_program(print_program(nan_assign)).functions[0].body[0]
    assert math.isnan(nan_parsed.value.value)


def test_positional_arguments_fill_the_parameters_no_keyword_names() -> None:
    # The registry orders tensor.full as (shape, dtype, value); a keyword dtype leaves the
    # positional 0.0 to bind to `value`.
    program = parse_program("""
import pypto.language as pl


@pl.program
class K:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        z = pl.full([16, 64], 0.0, dtype=pl.FP32)
        b = pl.add(a, z)
        return b
""")
    assert "pl.tensor.full([16, 64], value=pl.const(0.0, pl.FP32), dtype=pl.FP32)" in print_program(program)
