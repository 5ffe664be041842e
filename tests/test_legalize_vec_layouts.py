"""LegalizeVecLayouts: a vector instruction on [N, 1] columns runs on the [1, N] row of the
same bytes (PTOAS computes on row-major tiles), and the result keeps its name and type."""

from __future__ import annotations

import re
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import languages.gen.tensor as T
import languages.gen.tile_placed as P
from backend.fuzzing.registry_calls import on_chip_assemble_gap, target_violation
from backend.pto_text.printer import print_mlir
from backend.targets.handlers import get_backend
from languages.decls import TilePlaced
from languages.ops import REGISTRY
from languages.pl_parser import parse_program
from languages.types import DataType, TensorType, TileType
from nanopass.diagnostics import CompileError
from nanopass.node import walk
from nanopass.passes import PassContext
from nanopass_pto.run import compare, compile_program, random_inputs, reference, run
from passes.legalize_vec_layouts import LegalizeVecLayouts
from verifiers import tile_memory_placed

HEADER = "import pypto.language as pl\n\n@pl.program\nclass K:\n    @pl.function(type=pl.FunctionType.InCore)\n"

COLUMNS = HEADER + textwrap.indent(textwrap.dedent("""\
    def k(self, a: pl.Tensor[[32, 1], pl.FP32], b: pl.Tensor[[32, 1], pl.FP32]) -> pl.Tensor[[32, 1], pl.FP32]:
        c = pl.exp(pl.sub(a, b))
        return pl.muls(c, 2.0)
    """), "    ")


def _legalized(text: str) -> P.Program:
    program = parse_program(text, "k.py")
    compiled = compile_program(program, pipeline="normalize-stmt-structure,convert-tensor-to-tile-ops,"
                               "flatten-tile-nd-to-2d,infer-tile-memory-space", verify_all=True)
    placed = compiled.final
    assert isinstance(placed, P.Program)
    ctx = PassContext("Ascend910B", get_backend("Ascend910B"))
    out = LegalizeVecLayouts().run(placed, ctx)
    assert isinstance(out, P.Program)
    assert tile_memory_placed.verify(out) == []
    return out


def _simulated_bit_exactly(text: str, backend: str, seed: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Inputs and outputs of `text` compiled under --verify-all and simulated on random inputs,
    after checking the outputs against the reference interpreter bit for bit."""
    compiled = compile_program(parse_program(text, "k.py"), backend=backend, verify_all=True)
    inputs = random_inputs(compiled.source, seed)
    outputs = run(compiled, inputs)
    reports = compare(reference(compiled.source, inputs), outputs)
    assert reports and all(r.ok for r in reports), reports
    return dict(inputs), dict(outputs)


def _vec_compute(program: P.Program) -> list[P.Call]:
    return [n for n in walk(program) if isinstance(n, P.Call) and n.op in ("tile.sub", "tile.exp", "tile.muls")]


def test_column_operations_run_on_rows() -> None:
    program = _legalized(COLUMNS)
    for call in _vec_compute(program):
        for tile in (call.type, *(getattr(a, "type", None) for a in call.args)):
            if isinstance(tile, TileType):
                assert tile.shape == (1, 32) and tile.view is not None and tile.view.blayout == "row_major", call
    # Each result is reshaped back to the column the rest of the program uses.
    backs = [n for n in walk(program) if isinstance(n, P.AssignStmt) and isinstance(n.value, P.Call)
             and n.value.op == "tile.reshape" and getattr(n.target.type, "shape", None) == (32, 1)]
    assert len(backs) == 3


def test_row_major_program_is_untouched() -> None:
    text = COLUMNS.replace("[32, 1]", "[1, 32]")
    program = parse_program(text, "k.py")
    placed = compile_program(program, pipeline="normalize-stmt-structure,convert-tensor-to-tile-ops,"
                             "flatten-tile-nd-to-2d,infer-tile-memory-space").final
    assert isinstance(placed, P.Program)
    assert LegalizeVecLayouts().run(placed, PassContext("Ascend910B", get_backend("Ascend910B"))) is placed


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_columns_compile_and_simulate_bit_exactly(backend: str) -> None:
    source = parse_program(COLUMNS, "k.py")
    compiled = compile_program(source, backend=backend, verify_all=True)
    inputs = random_inputs(compiled.source, 3)
    reports = compare(reference(compiled.source, inputs), run(compiled, inputs))
    assert reports and all(r.ok for r in reports), reports


def test_other_column_major_vec_tiles_are_not_supported_yet() -> None:
    # A transposed [32, 2] view is column-major but has no zero-copy row form.
    text = HEADER + textwrap.indent(textwrap.dedent("""\
        def k(self, a: pl.Tensor[[2, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 2], pl.FP32]]) -> pl.Tensor[[32, 2], pl.FP32]:
            t: pl.Tile[[2, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [2, 32], target_memory=pl.Mem.Vec)
            v: pl.Tile[[32, 2], pl.FP32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major)] = pl.tile.transpose_view(t)
            r: pl.Tile[[32, 2], pl.FP32, pl.Mem.Vec] = pl.tile.exp(v)
            o: pl.Tensor[[32, 2], pl.FP32] = pl.tile.store(r, [0, 0], out)
            return o
        """), "    ")
    program = parse_program(text, "k.py", language=TilePlaced)
    assert isinstance(program, P.Program)
    with pytest.raises(CompileError, match="not supported yet") as err:
        LegalizeVecLayouts().run(program, PassContext("Ascend910B", get_backend("Ascend910B")))
    assert str(err.value).startswith("k.py:8:")


ROW_WISE_ON_COLUMNS = HEADER + textwrap.indent(textwrap.dedent("""\
    def k(self, a: pl.Tensor[[16, 1], pl.FP32], b: pl.Tensor[[16, 1], pl.FP32]) -> pl.Tensor[[16, 1], pl.FP32]:
        s = pl.row_sum(a)
        m = pl.row_expand_mul(s, b)
        return pl.row_expand_sub(m, pl.row_max(b))
    """), "    ")


def test_row_wise_ops_on_columns_become_their_column_twins_on_rows() -> None:
    # Seen as a [1, N] row, an [N, 1] column's rows are columns: row_sum is col_sum there, and
    # a per-row operand holds one value per column (row_expand_mul -> col_expand_mul).
    program = _legalized(ROW_WISE_ON_COLUMNS)
    ops = {n.op for n in walk(program) if isinstance(n, P.Call)}
    assert {"tile.col_sum", "tile.col_max", "tile.col_expand_mul", "tile.col_expand_sub"} <= ops, ops
    assert not ops & {"tile.row_sum", "tile.row_max", "tile.row_expand_mul", "tile.row_expand_sub"}


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_row_wise_ops_on_columns_simulate_bit_exactly_and_match_numpy(backend: str) -> None:
    inputs, outputs = _simulated_bit_exactly(ROW_WISE_ON_COLUMNS, backend, 5)
    a, b = (np.asarray(inputs[name], dtype=np.float64) for name in ("a", "b"))
    expected = (a * b).astype(np.float32).astype(np.float64) - b  # row_sum / row_max of one column are the column itself
    got = np.asarray(next(iter(outputs.values())), dtype=np.float64)
    assert np.array_equal(got, expected.astype(np.float32).astype(np.float64))


ONE_VALUE_BROADCAST = HEADER + textwrap.indent(textwrap.dedent("""\
    def k(self, a: pl.Tensor[[16, 1], pl.FP32], b: pl.Tensor[[16, 1], pl.FP32], out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        x: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        w: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        v: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[1, 1])] = pl.tile.set_validshape(w, 1, 1)
        y: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(x, v)
        return pl.tile.store(y, [0, 0], out)
    """), "    ")


def test_a_column_broadcast_by_a_taller_one_value_column_runs_as_a_row_broadcast() -> None:
    # col_expand_mul(x [16, 1], v [16, 1] valid [1, 1]) multiplies every row by v[0, 0]: on x's
    # [1, 16] row view that is the row broadcast by the same one value (once declined).
    ops = {n.op for n in walk(_legalized(ONE_VALUE_BROADCAST)) if isinstance(n, P.Call)}
    assert "tile.row_expand_mul" in ops and "tile.col_expand_mul" not in ops, ops


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_a_one_value_column_broadcast_simulates_bit_exactly_and_matches_numpy(backend: str) -> None:
    inputs, outputs = _simulated_bit_exactly(ONE_VALUE_BROADCAST, backend, 3)
    a, b = (np.asarray(inputs[name], dtype=np.float32) for name in ("a", "b"))
    got = np.asarray(next(iter(outputs.values())), dtype=np.float32)
    assert np.array_equal(got.view(np.uint32), (a * b[0, 0]).view(np.uint32))


NARROWED_COLUMN = HEADER + textwrap.indent(textwrap.dedent("""\
    def k(self, a: pl.Tensor[[16, 1], pl.FP32], out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        t: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        e: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.abs(t)
        n: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[5, 1])] = pl.tile.set_validshape(e, 5, 1)
        o: pl.Tensor[[16, 1], pl.FP32] = pl.tile.store(n, [0, 0], out)
        return o
    """), "    ")


def test_a_column_computed_as_a_row_is_narrowed_on_the_rows_handle() -> None:
    # `e` is the [1, 16] row re-viewed as a column (a pto.treshape view, which PTOAS will not
    # narrow): set_validshape narrows the row's own handle to [1, 5] and re-views it instead.
    program = parse_program(NARROWED_COLUMN, "k.py", language=TilePlaced)
    assert isinstance(program, P.Program)
    out = LegalizeVecLayouts().run(program, PassContext("Ascend910B", get_backend("Ascend910B")))
    narrows = [n.value for n in walk(out) if isinstance(n, P.AssignStmt) and isinstance(n.value, P.Call)
               and n.value.op == "tile.set_validshape"]
    assert len(narrows) == 1
    operand = narrows[0].args[0]
    assert isinstance(operand, P.Var) and isinstance(operand.type, TileType) and operand.type.shape == (1, 16)
    assert isinstance(narrows[0].type, TileType) and narrows[0].type.valid == (1, 5)


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_a_narrowed_column_compiles_under_verify_all_and_stores_its_valid_rows(backend: str) -> None:
    compiled = compile_program(parse_program(NARROWED_COLUMN, "k.py", language=TilePlaced), backend=backend,
                               verify_all=True)
    inputs = random_inputs(compiled.source, 7)
    outputs = run(compiled, inputs)
    reports = compare(reference(compiled.source, inputs), outputs)
    assert reports and all(r.ok for r in reports), reports
    got = np.asarray(next(iter(outputs.values())))
    expected = np.abs(np.asarray(inputs["a"], dtype=np.float32))
    assert got[:5].view(np.uint32).tolist() == expected[:5].view(np.uint32).tolist()


PTOAS = Path("/root/.cache/ptoas/4d2f456e/build/tools/ptoas/ptoas")


def _column_program(call: str, dtype: str) -> str:
    return HEADER + textwrap.indent(textwrap.dedent(f"""\
        def k(self, a: pl.Tensor[[16, 1], pl.{dtype}], b: pl.Tensor[[16, 1], pl.{dtype}]) -> pl.Tensor[[16, 1], pl.{dtype}]:
            return {call}
        """), "    ")


@pytest.mark.parametrize(("backend", "arch"), [("Ascend910B", "a3"), ("Ascend950", "a5")])
@pytest.mark.parametrize("op", ["row_max", "row_min"])
def test_a_column_max_runs_as_the_rows_column_twin_without_a_tmp(backend: str, arch: str, op: str,
                                                                   tmp_path: Path) -> None:
    # The twin tcolmax / tcolmin takes no tmp operand (PTOAS has none; the row op's tmp was
    # emitted as a second ins() operand and rejected).
    compiled = compile_program(parse_program(_column_program(f"pl.{op}(a)", "FP16"), "k.py"), backend=backend,
                               verify_all=True)
    inputs = random_inputs(compiled.source, 9)
    outputs = run(compiled, inputs)
    reports = compare(reference(compiled.source, inputs), outputs)
    assert reports and all(r.ok for r in reports), reports
    got = np.asarray(next(iter(outputs.values())))
    # The max / min of a one-element row is the element itself.
    assert got.view(np.uint16).tolist() == np.asarray(inputs["a"]).view(np.uint16).tolist()
    if PTOAS.exists():
        (tmp_path / "k.pto").write_text(print_mlir(compiled.final))  # type: ignore[arg-type]
        done = subprocess.run([str(PTOAS), f"--pto-arch={arch}", "--pto-level=level3", str(tmp_path / "k.pto"),
                               "-o", str(tmp_path / "k.cpp")], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr


def test_a_column_twin_the_target_does_not_take_is_declined_at_the_users_line() -> None:
    # row_expand_div of an INT32 column runs as tcolexpanddiv, which A2/A3 takes for FP16 / FP32
    # only (A2/A3 states no types for trowexpanddiv itself).
    text = _column_program("pl.row_expand_div(a, b)", "INT32")
    with pytest.raises(CompileError, match=r"not supported yet.*tcolexpanddiv") as err:
        compile_program(parse_program(text, "k.py"), backend="Ascend910B", verify_all=True)
    assert str(err.value).startswith("k.py:7:")
    compile_program(parse_program(text, "k.py"), backend="Ascend950", verify_all=True)  # A5 takes it


def test_the_generator_does_not_draw_a_column_twin_the_target_refuses() -> None:
    column = T.Var("a", TensorType((16, 1), DataType.INT32))
    op = REGISTRY.get("tensor.row_expand_div")
    result = REGISTRY.deduce("tensor.row_expand_div", (column, column), ())
    assert "tcolexpanddiv" in target_violation(op, "a2a3", (column, column), (), result, {})
    assert target_violation(op, "a5", (column, column), (), result, {}) == ""


CARRIED_COLUMNS = HEADER + textwrap.indent(textwrap.dedent("""\
    def k(self, a: pl.Tensor[[16, 1], pl.INT16], b: pl.Tensor[[16, 1], pl.INT16], c: pl.Tensor[[16, 1], pl.INT16],
          out: pl.Out[pl.Tensor[[16, 1], pl.INT16]]) -> pl.Tensor[[16, 1], pl.INT16]:
        x: pl.Tile[[16, 1], pl.INT16, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        y: pl.Tile[[16, 1], pl.INT16, pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        z: pl.Tile[[16, 1], pl.INT16, pl.Mem.Vec] = pl.tile.load(c, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        s: pl.Tile[[16, 1], pl.INT16, pl.Mem.Vec] = pl.tile.addc(x, y, z)
        t: pl.Tile[[16, 1], pl.INT16, pl.Mem.Vec] = pl.tile.xors(s, 5, z)
        u: pl.Tile[[16, 1], pl.INT16, pl.Mem.Vec] = pl.tile.addsc(t, 3, y)
        r: pl.Tensor[[16, 1], pl.INT16] = pl.tile.store(u, [0, 0], out)
        return r
    """), "    ")


@pytest.mark.parametrize(("backend", "arch"), [("Ascend910B", "a3"), ("Ascend950", "a5")])
def test_a_carry_or_tmp_column_is_seen_as_a_row_with_its_source(backend: str, arch: str, tmp_path: Path) -> None:
    # addc / addsc's carry and xors's tmp are tiles of the data's shape: an [N, 1] one is re-viewed
    # as the [1, N] row too (the deduction wants one shape; PTOAS wants them row-major).
    compiled = compile_program(parse_program(CARRIED_COLUMNS, "k.py", language=TilePlaced), backend=backend,
                               verify_all=True)
    inputs = random_inputs(compiled.source, 8)
    reports = compare(reference(compiled.source, inputs), run(compiled, inputs))
    assert reports and all(r.ok for r in reports), reports
    if PTOAS.exists():
        (tmp_path / "k.pto").write_text(print_mlir(compiled.final))  # type: ignore[arg-type]
        done = subprocess.run([str(PTOAS), f"--pto-arch={arch}", "--pto-level=level3", str(tmp_path / "k.pto"),
                               "-o", str(tmp_path / "k.cpp")], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr


def _assemble_program(target: tuple[int, int], source: tuple[int, int], offsets: tuple[int, int], dtype: str) -> str:
    t, s = list(target), list(source)
    return HEADER + textwrap.indent(textwrap.dedent(f"""\
        def k(self, a: pl.Tensor[{t}, pl.{dtype}], b: pl.Tensor[{s}, pl.{dtype}],
              out: pl.Out[pl.Tensor[{t}, pl.{dtype}]]) -> pl.Tensor[{t}, pl.{dtype}]:
            x: pl.Tile[{t}, pl.{dtype}, pl.Mem.Vec] = pl.tile.load(a, [0, 0], {t}, target_memory=pl.Mem.Vec)
            y: pl.Tile[{s}, pl.{dtype}, pl.Mem.Vec] = pl.tile.load(b, [0, 0], {s}, target_memory=pl.Mem.Vec)
            z: pl.Tile[{t}, pl.{dtype}, pl.Mem.Vec] = pl.tile.assemble(x, y, {list(offsets)})
            r: pl.Tensor[{t}, pl.{dtype}] = pl.tile.store(z, [0, 0], out)
            return r
        """), "    ")


def _simulates_bit_exactly(text: str, backend: str) -> None:
    compiled = compile_program(parse_program(text, "k.py"), backend=backend, verify_all=True)
    for seed in range(3):
        inputs = random_inputs(compiled.source, seed)
        reports = compare(reference(compiled.source, inputs), run(compiled, inputs))
        assert reports and all(r.ok for r in reports), reports


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_an_assembled_padded_column_writes_only_its_valid_rows(backend: str) -> None:
    # An INT8 [16, 1] column is a 32-row buffer (32-byte columns): its window into a [32, 1]
    # column carries the source's valid rows only, so the padding never reaches the target (its
    # rows 16..31 keep the target's data; the simulator faults on a read of the poisoned padding).
    _simulates_bit_exactly(_assemble_program((32, 1), (16, 1), (0, 0), "INT8"), backend)
    # Assembled into itself-sized columns the valid window is the whole valid region.
    _simulates_bit_exactly(_assemble_program((16, 1), (16, 1), (0, 0), "INT8"), backend)


@pytest.mark.parametrize(("target", "source", "offsets", "dtype", "backend", "reason"), [
    # The source's padded 32-row buffer at row 16 runs past the target's 32 rows.
    ((32, 1), (16, 1), (16, 0), "INT8", "Ascend910B", r"padded to \[32, 1\].*at \[16, 0\] leaves"),
    ((32, 1), (16, 1), (16, 0), "INT8", "Ascend950", r"padded to \[32, 1\].*at \[16, 0\] leaves"),
    # A column into a row-major tile: A2/A3's vector tmov copies between equal layouts only.
    ((16, 16), (16, 1), (0, 3), "FP32", "Ascend910B", "source is column-major while the target is row-major"),
])
def test_an_assemble_without_a_window_write_is_not_supported_yet_at_the_users_line(
        target: tuple[int, int], source: tuple[int, int], offsets: tuple[int, int], dtype: str, backend: str,
        reason: str) -> None:
    text = _assemble_program(target, source, offsets, dtype)
    with pytest.raises(CompileError, match="not supported yet: assembling") as err:
        compile_program(parse_program(text, "k.py"), backend=backend, verify_all=True)
    assert str(err.value).startswith("k.py:10:")  # the assemble line
    assert re.search(reason, str(err.value)), str(err.value)
    # The generator reads the same fact, so it never draws this assemble on this target.
    arch = get_backend(backend).arch
    a = T.Var("a", TensorType(target, DataType[dtype]))
    b = T.Var("b", TensorType(source, DataType[dtype]))
    offset_list = T.TupleExpr(elements=tuple(T.ConstInt(value=o, dtype=DataType.INDEX) for o in offsets))
    assert on_chip_assemble_gap(REGISTRY.get("tensor.assemble"), (a, b, offset_list), arch, in_gm=False)
    assert on_chip_assemble_gap(REGISTRY.get("tensor.assemble"), (a, b, offset_list), arch, in_gm=True) == ""


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_a_single_element_assembled_into_a_column_is_written_into_its_row_view(backend: str) -> None:
    # A row-major [1, 1] into a column-major [16, 1] at [3, 0]: the write into the column's [1, 16]
    # row view at [0, 3], a row-major pto.tinsert (tests/test_one_element_windows.py), on both
    # targets (it was "not supported yet": a tmov into the column's subview spans the element's
    # padded [1, 8] buffer, and A2/A3's copies no layout into another).
    text = _assemble_program((16, 1), (1, 1), (3, 0), "FP32")
    _simulates_bit_exactly(text, backend)
    emitted = print_mlir(compile_program(parse_program(text, "k.py"), backend=backend).final)  # type: ignore[arg-type]
    (insert,) = [line for line in emitted.splitlines() if "pto.tinsert" in line]
    assert "%c3_index" in insert and "rows=1, cols=16, v_row=1, v_col=16, blayout=row_major" in insert, insert


def test_a_column_assembled_into_a_row_major_tile_simulates_on_a5() -> None:
    # A5's vector tmov copies across layouts: the same assemble A2/A3 refuses compiles there.
    _simulates_bit_exactly(_assemble_program((16, 16), (16, 1), (0, 3), "FP32", ), "Ascend950")


# An element-wise op over a column narrowed by set_validshape and a whole column computes the
# whole column, so it reads the narrowed operand's padding (which holds the loaded data). Its row
# form must read the same elements: a reshape of the narrowed column would be a row valid in
# [1, 5] only, so the row is re-validated whole first.
READ_PAST_NARROWED = HEADER + textwrap.indent(textwrap.dedent("""\
    def k(self, a: pl.Tensor[[16, 1], pl.FP32], out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        t: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        {narrowed}
        s: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.add(n, {whole})
        o: pl.Tensor[[16, 1], pl.FP32] = pl.tile.store(s, [0, 0], out)
        return o
    """), "    ")
# `n` narrows the loaded tile's own handle; or the handle of `e`'s row (`e` is computed as a row).
LOADED = ("n: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[5, 1])] = "
          "pl.tile.set_validshape(t, 5, 1)", "t")
ROW_COMPUTED = ("e: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.abs(t)\n"
                "        n: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[5, 1])] = "
                "pl.tile.set_validshape(e, 5, 1)", "e")


@pytest.mark.parametrize("case", [LOADED, ROW_COMPUTED], ids=["loaded", "row-computed"])
def test_a_narrowed_column_read_past_its_valid_rows_runs_on_the_whole_row(case: tuple[str, str]) -> None:
    from verifiers import defined_reads
    text = READ_PAST_NARROWED.format(narrowed=case[0], whole=case[1])
    program = parse_program(text, "k.py", language=TilePlaced)
    assert isinstance(program, P.Program) and defined_reads.verify(program) == []
    out = LegalizeVecLayouts().run(program, PassContext("Ascend910B", get_backend("Ascend910B")))
    assert defined_reads.verify(out) == []
    add = next(n for n in walk(out) if isinstance(n, P.Call) and n.op == "tile.add")
    for arg in add.args:
        ty = getattr(arg, "type", None)
        assert isinstance(ty, TileType) and ty.shape == (1, 16) and ty.valid == (1, 16), add


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
@pytest.mark.parametrize("case", [LOADED, ROW_COMPUTED], ids=["loaded", "row-computed"])
def test_a_narrowed_column_read_past_its_valid_rows_simulates_bit_exactly(backend: str,
                                                                         case: tuple[str, str]) -> None:
    text = READ_PAST_NARROWED.format(narrowed=case[0], whole=case[1])
    compiled = compile_program(parse_program(text, "k.py", language=TilePlaced), backend=backend, verify_all=True)
    inputs = random_inputs(compiled.source, 11)
    outputs = run(compiled, inputs)
    reports = compare(reference(compiled.source, inputs), outputs)
    assert reports and all(r.ok for r in reports), reports
    a = np.asarray(inputs["a"], dtype=np.float32)
    operand = np.abs(a) if case is ROW_COMPUTED else a  # n is the whole operand narrowed
    expected = operand + operand
    got = np.asarray(next(iter(outputs.values())), dtype=np.float32)
    assert got.view(np.uint32).tolist() == expected.view(np.uint32).tolist()


def test_a_plain_row_view_of_a_narrowed_column_holds_the_padding_it_reads() -> None:
    # A reshape keeps its source's bytes (only the valid region is carried, narrowed): the row
    # view of a column narrowed after a whole load holds the loaded data past its valid region,
    # as the column did, so reading it there is defined without the pass's re-validation. (The
    # mutant that dropped the re-validation, column-row-view-drops-padding, is retired: its output
    # simulates bit-exact, and DefinedReads no longer counts a reshape's data as its valid region.)
    from verifiers import defined_reads
    row_view = HEADER + textwrap.indent(textwrap.dedent("""\
        def k(self, a: pl.Tensor[[16, 1], pl.FP32], out: pl.Out[pl.Tensor[[1, 16], pl.FP32]]) -> pl.Tensor[[1, 16], pl.FP32]:
            t: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
            n: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[5, 1])] = pl.tile.set_validshape(t, 5, 1)
            r: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[1, 5])] = pl.tile.reshape(n, [1, 16])
            w: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(t, [1, 16])
            s: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.add(r, w)
            o: pl.Tensor[[1, 16], pl.FP32] = pl.tile.store(s, [0, 0], out)
            return o
        """), "    ")
    program = parse_program(row_view, "k.py", language=TilePlaced)
    assert defined_reads.verify(program) == []
