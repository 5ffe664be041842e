"""PTO-ISA MLIR parser (backend.pto_text.parser.parse_mlir): print/parse identity on every compiled
example and golden kernel, structural round trip, restored facts, located diagnostics under
token mutation, `.pto` inputs through the pipeline CLI, and bit-identical simulation."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from backend.pto_text.parser import parse_mlir
from backend.pto_text.printer import print_mlir
from backend.sim.executor import run_pto
from languages.gen import addressed as A
from languages.gen import pto as P
from languages.memory_space import MemorySpace
from languages.pl_parser import load_program
from nanopass_pto.plugin import PLUGIN
from languages.types import DataType, MemRef, TensorType, TileType
from nanopass.diagnostics import CompileError
from nanopass.instruments import strip_position
from nanopass.node import Node, Span
from nanopass.passes import PassContext
from nanopass.pipeline import Pipeline, main
from passes.pto_codegen import PTOCodegen

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))
GOLDEN_PTO = sorted((ROOT / "tests" / "golden" / "pto").glob("*.py"))
SOURCES = [*EXAMPLES, *GOLDEN_PTO]


@lru_cache(maxsize=None)
def compiled(path: Path) -> P.Program:
    """The PTO program of an example (default pipeline) or a golden Addressed kernel."""
    program = load_program(str(path))
    if isinstance(program, A.Program):
        result: Node = PTOCodegen().run(program, PassContext())
    else:
        result = Pipeline.from_spec(PLUGIN.default_pipeline(), PLUGIN).run(program)
    assert isinstance(result, P.Program)
    return result


def _ids(paths: list[Path]) -> list[str]:
    return [f"{p.parent.name}/{p.stem}" for p in paths]


# -- print(parse(text)) == text ---------------------------------------------------------------------


@pytest.mark.parametrize("emit_loc", [True, False])
@pytest.mark.parametrize("path", SOURCES, ids=_ids(SOURCES))
def test_codegen_text_is_a_print_parse_fixpoint(path: Path, emit_loc: bool) -> None:
    text = print_mlir(compiled(path), emit_loc=emit_loc)
    assert print_mlir(parse_mlir(text, f"{path.stem}.pto"), emit_loc=emit_loc) == text


CORNER = """module {
  func.func @corner(%arg0: !pto.ptr<f32>, %arg1: !pto.ptr<f16>, %arg2: i32) {
    %c0_index = arith.constant 0 : index
    %c1_index = arith.constant 1 : index
    %c8_index = arith.constant 8 : index
    %c12_index = arith.constant 12 : index
    %c16_index = arith.constant 16 : index
    %c-1_i32 = arith.constant -1 : i32
    %true = arith.constant true
    %cst = arith.constant 0x7FC00000 : f32
    %cst_0 = arith.constant -1.5 : f32
    %cst_1 = arith.constant 1.0e-05 : f32
    %c0_i64 = arith.constant 0 : i64
    %c1024_i64 = arith.constant 1024 : i64
    %0 = pto.make_tensor_view %arg0, shape = [%c16_index, %c16_index], strides = [%c16_index, %c1_index] {layout = #pto.layout<nd>} : !pto.tensor_view<?x?xf32> loc("corner.py":3:5)
    %1 = pto.make_tensor_view %arg1, shape = [%c16_index, %c16_index], strides = [%c16_index, %c1_index] {layout = #pto.layout<nd>} : !pto.tensor_view<?x?xf16> loc("corner.py":3:9)
    %2 = pto.alloc_tile addr = %c0_i64 : !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0> loc("corner.py":4:5)
    %3 = pto.alloc_tile addr = %c1024_i64 : !pto.tile_buf<loc=vec, dtype=f16, rows=16, cols=16, v_row=12, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=1> loc("corner.py":5:5)
    %4 = pto.partition_view %0, offsets = [%c0_index, %c0_index], sizes = [%c16_index, %c16_index] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x16xf32> loc("corner.py":6:5)
    pto.tload ins(%4 : !pto.partition_tensor_view<16x16xf32>) outs(%2 : !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>) loc("corner.py":6:5)
    %5 = arith.addi %arg2, %c-1_i32 : i32 loc("corner.py":7:5)
    %6 = arith.index_cast %c8_index : index to i32 loc("corner.py":7:9)
    %7 = arith.cmpi slt, %5, %6 : i32 loc("corner.py":8:5)
    %8:2 = scf.for %9 = %c0_index to %c16_index step %c8_index iter_args(%10 = %2, %11 = %cst_0) -> (!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>, f32) {
      %12 = arith.addf %11, %cst_1 : f32 loc("corner.py":10:9)
      pto.tadds ins(%10, %12 : !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>, f32) outs(%10 : !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>) loc("corner.py":11:9)
      scf.yield %10, %12 : !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>, f32
    } loc("corner.py":9:5)
    %13 = scf.if %7 -> (f32) {
      scf.yield %8#1 : f32
    } else {
      scf.yield %cst : f32
    } loc("corner.py":12:5)
    %14 = pto.subview %8#0[%c0_index, %c8_index] sizes [16, 8] valid [%c12_index, %c8_index] : !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0> -> !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=8, v_row=12, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0> loc("corner.py":13:5)
    pto.set_validshape %3, %c8_index, %c16_index : !pto.tile_buf<loc=vec, dtype=f16, rows=16, cols=16, v_row=12, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=1> loc("corner.py":14:5)
    pto.tcvt ins(%8#0 {rmode = #pto<round_mode FLOOR>} : !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>) outs(%3 : !pto.tile_buf<loc=vec, dtype=f16, rows=16, cols=16, v_row=12, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=1>) loc("corner.py":15:5)
    scf.for %15 = %c0_index to %c16_index step %c8_index {
      pto.tmuls ins(%14, %13 : !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=8, v_row=12, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>, f32) outs(%14 : !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=8, v_row=12, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    } loc("corner.py":16:5)
    %16 = pto.partition_view %1, offsets = [%c0_index, %c0_index], sizes = [%c16_index, %c16_index] : !pto.tensor_view<?x?xf16> -> !pto.partition_tensor_view<16x16xf16> loc("corner.py":17:5)
    pto.tstore ins(%3 : !pto.tile_buf<loc=vec, dtype=f16, rows=16, cols=16, v_row=12, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=1>) outs(%16 : !pto.partition_tensor_view<16x16xf16>) loc("corner.py":17:5)
    return loc("corner.py":18:5)
  }
}
"""


def test_corner_cases_roundtrip_exactly() -> None:
    """Float literals (hex NaN, negative, exponent), bools, negative ints, arith ops, a
    two-result loop, an if with a result, a narrowed subview, set_validshape, attributes and
    a loop without iter_args."""
    program = parse_mlir(CORNER, "corner.pto")
    assert print_mlir(program) == CORNER
    no_nan = CORNER.replace("0x7FC00000", "0x7F800000")  # NaN != NaN would defeat `==`
    assert parse_mlir(print_mlir(parse_mlir(no_nan, "corner.pto")), "corner.pto") == parse_mlir(no_nan, "corner.pto")


# -- parse(print(p)) == p, up to what the text does not carry ----------------------------------------


def _canonical(value: Any) -> Any:
    """`value` without the facts MLIR does not print: MemRef names, the program name, and the
    loop kind / attrs (pipeline stages)."""
    if isinstance(value, Node):
        skipped = {"Program": {"name"}, "ForStmt": {"kind", "attrs"}}.get(value.KIND, set())
        return (value.KIND, tuple(_canonical(getattr(value, f)) for f in value.FIELDS if f not in skipped))
    if isinstance(value, tuple):
        if len(value) == 2 and value[0] == "memref":
            return ("memref", "")
        return tuple(_canonical(v) for v in value)
    if isinstance(value, TileType):
        memref = value.memref
        unnamed = None if memref is None else MemRef("", memref.space, memref.offset, memref.size)
        valid = None if value.valid_shape == value.shape else value.valid_shape
        return TileType(value.shape, value.dtype, valid, value.memory_space, value.view, unnamed)
    return value


@pytest.mark.parametrize("path", SOURCES, ids=_ids(SOURCES))
def test_parse_of_print_restores_the_program(path: Path) -> None:
    program = compiled(path)
    parsed = parse_mlir(print_mlir(program), "kernel.pto")
    assert _canonical(parsed) == _canonical(program)


def test_spans_come_from_loc_and_restored_facts() -> None:
    program = parse_mlir(CORNER, "corner.pto")
    assert program.name == "corner"
    function = program.functions[0]
    assert function.func_type == "InCore"
    arg0, arg1, arg2 = function.params
    assert (arg0.direction, arg1.direction, arg2.direction) == ("In", "Out", "In")
    assert arg0.var.type == TensorType((16, 16), DataType.FP32)
    stmts = {s.target.name: s for s in function.body if isinstance(s, P.AssignStmt)}
    alloc = stmts["3"]
    assert alloc.span == Span("corner.py", 5, 5)
    assert str(alloc.span) == "corner.py:5:5"
    tile = alloc.target.type
    assert isinstance(tile, TileType) and tile.memref is not None
    assert (tile.memory_space, tile.memref.offset, tile.memref.size) == (MemorySpace.Vec, 1024, 512)
    assert tile.valid_shape == (12, 16) and tile.view is not None and tile.view.pad == "zero"
    constant = stmts["cst"].value
    assert isinstance(constant, P.Call) and isinstance(constant.args[0], P.ConstFloat)
    assert np.isnan(constant.args[0].value)
    window = stmts["14"].target.type
    assert isinstance(window, TileType) and window.memref == stmts["2"].target.type.memref  # type: ignore[union-attr]
    loop = next(s for s in function.body if isinstance(s, P.ForStmt))
    assert [r.name for r in loop.results] == ["8#0", "8#1"]


def test_shared_address_shares_one_memref_sized_for_the_largest() -> None:
    text = print_mlir(compiled(ROOT / "examples" / "softmax_rows_f32.py"))
    function = parse_mlir(text, "softmax.pto").functions[0]
    memrefs = {s.target.name: s.target.type.memref for s in function.body
               if isinstance(s, P.AssignStmt) and isinstance(s.target.type, TileType)}
    at_zero = {m for m in memrefs.values() if m is not None and m.offset == 0}
    assert len(at_zero) == 1 and next(iter(at_zero)).size == 32 * 128 * 4


# -- diagnostics -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("old", "new", "message"), [
    ("%5 = arith.addi %arg2", "%5 = arith.addi %nope", "`%nope` is used before it is defined"),
    ("v_row=12, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=1> loc(\"corner.py\":5:5)",
     "v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=1> loc(\"corner.py\":5:5)",
     "missing v_row="),
    ("%6 = arith.index_cast", "%5 = arith.index_cast", "`%5` is defined twice"),
    ("!pto.ptr<f16>", "!pto.pointer<f16>", "unknown type `!pto.pointer`"),
    ("%12 = arith.addf %11, %cst_1 : f32", "%12 = arith.addf %11, %cst_1 : f16", "has type f32, but is used here as f16"),
    ("return loc", "return ~ loc", "unexpected character `~`"),
    ("scf.for %9 = %c0_index to", "scf.for %9 = %c0_index upto", "expected `to`"),
    ("dtype=f16, rows=16", "dtype=f99, rows=16", "`dtype` must be one of"),
    ("sizes = [%c16_index, %c16_index] : !pto.tensor_view<?x?xf32>",
     # A runtime size is a `?` of the partition type (the printed 16x16 contradicts it).
     "sizes = [%arg2, %c16_index] : !pto.tensor_view<?x?xf32>",
     "this partition view has type !pto.partition_tensor_view<?x16xf32>, not !pto.partition_tensor_view<16x16xf32>"),
])
def test_errors_name_the_place_and_the_expectation(old: str, new: str, message: str) -> None:
    assert old in CORNER
    text = CORNER.replace(old, new, 1)
    with pytest.raises(CompileError) as info:
        parse_mlir(text, "bad.pto")
    (diagnostic,) = info.value.diagnostics
    assert diagnostic.rule == "parse" and diagnostic.span.file == "bad.pto" and diagnostic.span.known
    assert message in diagnostic.message, diagnostic.message
    line = text.splitlines()[diagnostic.span.line - 1]
    assert new.split()[0] in line or message.startswith("missing"), (diagnostic.format(), line)


def test_empty_and_truncated_inputs_fail_cleanly() -> None:
    for text in ("", "module {", "module { func.func @f(", CORNER[: len(CORNER) // 2]):
        with pytest.raises(CompileError, match=r"\[parse\] expected"):
            parse_mlir(text, "cut.pto")


_TOKEN = re.compile(r"\w+|[^\w\s]")


def _mutation_source(index: int) -> str:
    if index == 0:
        return CORNER
    return print_mlir(compiled(ROOT / "tests" / "golden" / "pto" / "matmul_k_loop.py"))


@given(st.data())
def test_mutated_text_parses_or_fails_with_a_located_diagnostic(data: st.DataObject) -> None:
    text = _mutation_source(data.draw(st.integers(0, 1)))
    tokens = list(_TOKEN.finditer(text))
    for _ in range(data.draw(st.integers(1, 3))):
        match = tokens[data.draw(st.integers(0, len(tokens) - 1))]
        other = tokens[data.draw(st.integers(0, len(tokens) - 1))].group()
        action = data.draw(st.sampled_from(["delete", "duplicate", "swap"]))
        replacement = {"delete": "", "duplicate": match.group() * 2, "swap": other}[action]
        text = text[: match.start()] + replacement + text[match.end():]
        tokens = list(_TOKEN.finditer(text))
    try:
        program = parse_mlir(text, "mutant.pto")
    except CompileError as error:
        assert error.diagnostics and all(d.span.known and d.rule == "parse" for d in error.diagnostics), str(error)
        assert "internal parser error" not in str(error), str(error)
    else:
        printed = print_mlir(program)
        assert print_mlir(parse_mlir(printed, "mutant.pto")) == printed


# -- the CLI takes .pto files --------------------------------------------------------------------


def test_pipeline_cli_runs_a_pto_file_and_a_dumped_pto_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = ROOT / "examples" / "matmul_f16_f32.py"
    assert main([str(source), "--dump-dir", str(tmp_path / "dump")]) == 0
    compiled_text = capsys.readouterr().out
    (dumped,) = sorted((tmp_path / "dump").glob("*.pto"))
    assert strip_position(dumped.read_text()) == compiled_text
    assert main([str(dumped), "-p", ""]) == 0
    assert capsys.readouterr().out == compiled_text
    broken = tmp_path / "broken.pto"
    broken.write_text(compiled_text.replace("scf.for", "scf.fork", 1))
    assert main([str(broken), "-p", ""]) == 1
    assert "broken.pto:" in capsys.readouterr().err


# -- the simulator runs parsed programs bit-identically ---------------------------------------------


def _bits(array: Any) -> str:
    values = np.ascontiguousarray(np.asarray(array))
    return values.view(f"u{values.dtype.itemsize}").tobytes().hex()


@pytest.mark.parametrize("name", ["elementwise_add_f32", "matmul_f16_f32"])
def test_simulating_the_parsed_program_gives_the_same_bits(name: str) -> None:
    original = compiled(ROOT / "examples" / f"{name}.py")
    parsed = parse_mlir(print_mlir(original), f"{name}.pto")
    rng = np.random.default_rng(2024)
    inputs: dict[str, Any] = {}
    for param in original.functions[0].params:
        ty = param.var.type
        if isinstance(ty, TensorType) and param.direction != "Out":
            dtype = np.float16 if ty.dtype is DataType.FP16 else np.float32
            inputs[param.var.name] = (rng.standard_normal(ty.shape) * 3).astype(dtype)
    expected = run_pto(original, inputs, "Ascend910B")
    actual = run_pto(parsed, inputs, "Ascend910B")
    assert expected and sorted(actual) == sorted(expected)
    for key in expected:
        assert _bits(actual[key]) == _bits(expected[key]), key


def test_simulate_on_a_pto_input_runs_the_simulator_without_a_reference(tmp_path: Path) -> None:
    import subprocess
    import sys

    pto = tmp_path / "add.pto"
    compiled = subprocess.run([sys.executable, "-m", "nanopass.pipeline", "examples/elementwise_add_f32.py",
                               "-o", str(pto)], capture_output=True, text=True, cwd=ROOT)
    assert compiled.returncode == 0, compiled.stderr
    run = subprocess.run([sys.executable, "-m", "nanopass.pipeline", str(pto), "-p", "", "--simulate"],
                         capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    assert "simulator only" in run.stderr and "arg2: simulated ([64, 128] FP32)" in run.stderr
    assert run.stdout.startswith("module {")  # the IR alone on stdout
    assert "Traceback" not in run.stderr


SCALAR_WRITE = """\
import pypto.language as pl


@pl.program
class ScalarWrite:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x: pl.Tensor[[2, 4], pl.FP32], y: pl.Tensor[[2, 4], pl.FP32]) -> pl.Tensor[[2, 4], pl.FP32]:
        s: pl.Scalar[pl.FP32] = pl.tensor.read(y, [1, 2])
        w: pl.Tensor[[2, 4], pl.FP32] = pl.tensor.write(x, [0, 1], s)
        return w

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[2, 4], pl.FP32], y: pl.Tensor[[2, 4], pl.FP32]) -> pl.Tensor[[2, 4], pl.FP32]:
        out: pl.Tensor[[2, 4], pl.FP32] = self.kernel0(x, y)
        return out
"""


def test_scalar_stores_and_loads_restore_parameter_directions(tmp_path: Path) -> None:
    # The text has no directions: a parameter pto.store_scalar writes is an output, one
    # pto.load_scalar reads an input; a round trip that lost the store simulated a kernel
    # writing nothing (found by the registry-derived generator).
    from nanopass_pto.run import compile_program, random_inputs, reference, run
    path = tmp_path / "scalar_write.py"
    path.write_text(SCALAR_WRITE)
    compiled = compile_program(load_program(str(path)), verify_all=True)
    assert isinstance(compiled.final, P.Program)
    shipped = parse_mlir(print_mlir(compiled.final), "scalar_write.pto")
    directions = {p.var.name: p.direction for p in shipped.functions[0].params}
    assert sorted(directions.values()) == ["In", "Out"], directions
    inputs = random_inputs(compiled.source, 1)
    got, want = run(compiled.shipping(shipped), inputs), reference(compiled.source, inputs)
    assert np.array_equal(got["ret0"], want["ret0"])
    assert got["ret0"][0, 1] == np.asarray(inputs["y"])[1, 2]
