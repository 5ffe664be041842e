"""Runtime valid extents: `valid_shape=[rows, 64]` on a load, a slice or `set_validshape`, where
`rows` is a scalar known only at run time, stays symbolic through the pipeline (as PyPTO keeps
it) and reaches PTO as a `v_row=?` handle narrowed by `pto.set_validshape`.

The rule for elements outside the runtime valid region (the operator spec's valid-region
contract): an op computes only its result's valid region, and a store writes only the stored
tile's valid region, so every element of the destination at or past the runtime extent keeps
the value it held before the call. The tests below run one compiled kernel at several runtime
extents and compare the simulator with NumPy (and bit for bit with the reference interpreter).
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from backend.pto_text.parser import parse_mlir
from backend.pto_text.printer import print_mlir
from languages.gen import pto as P
from languages.ops.tensor_ops import reshape_extents
from languages.pl_parser import parse_program
from languages.types import SymbolicExtent, TileType
from nanopass.diagnostics import CompileError
from nanopass.pipeline import main
from nanopass_pto.run import compare, compile_program, reference, run
from verifiers import symbolic_extents_bound

Array = npt.NDArray[Any]
ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "ragged_rows_f32.py"


def _kernel(params: str, body: str, result: str = "pl.Tensor[[16, 64], pl.FP32]") -> str:
    return "\n".join([
        "import pypto.language as pl",
        "",
        "",
        "@pl.program",
        "class Kernel:",
        "    @pl.function(type=pl.FunctionType.InCore)",
        f"    def kernel(self, {params}) -> {result}:",
        textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8),
        "",
    ])


def _run_both(text: str, inputs: dict[str, Any], backend: str = "Ascend910B") -> dict[str, Array]:
    """The simulator's outputs, after checking they are bit-identical to the interpreter's."""
    source = parse_program(text, "kernel.py")
    compiled = compile_program(source, backend=backend, verify_all=True)
    got, expected = run(compiled, inputs), reference(source, inputs)
    reports = compare(expected, got)
    assert all(r.ok for r in reports), [r.line for r in reports]
    return got


X = (np.arange(16 * 64, dtype=np.float32).reshape(16, 64) - 300.0) / 8


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_valid_rows_from_a_scalar_parameter_follow_numpy_at_two_runtime_values(backend: str) -> None:
    text = EXAMPLE.read_text()
    for rows in (3, 11):
        got = _run_both(text, {"x": X, "rows": np.asarray(rows)}, backend)["ret0"]
        assert np.array_equal(got[:rows], X[:rows] * np.float32(2.0) + np.float32(1.0))
        # Outside the runtime valid region the store writes nothing: the copied input stays.
        assert np.array_equal(got[rows:], X[rows:])


def test_set_validshape_narrows_rows_and_columns_at_run_time() -> None:
    text = _kernel("x: pl.Tensor[[16, 64], pl.FP32], r: pl.Scalar[pl.INDEX], c: pl.Scalar[pl.INDEX], "
                   "y: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]", """
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        n: pl.Tile[[16, 64], pl.FP32] = pl.tile.set_validshape(t, r, c)
        s = pl.tile.adds(n, 0.5)
        return pl.store(s, [0, 0], y)
    """)
    for r, c in ((5, 8), (16, 40)):
        before = np.zeros((16, 64), np.float32)
        got = _run_both(text, {"x": X, "r": np.asarray(r), "c": np.asarray(c), "y": before})["y"]
        expected = before.copy()
        expected[:r, :c] = X[:r, :c] + np.float32(0.5)
        assert np.array_equal(got, expected)


def test_a_slice_with_a_runtime_column_extent_keeps_its_static_rows() -> None:
    text = _kernel("x: pl.Tensor[[16, 64], pl.FP32], c: pl.Scalar[pl.INDEX], "
                   "y: pl.InOut[pl.Tensor[[8, 32], pl.FP32]]", """
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        s: pl.Tile[[8, 32], pl.FP32] = pl.tile.slice(t, [8, 32], [4, 16], valid_shape=[8, c])
        return pl.store(s, [0, 0], y)
    """, "pl.Tensor[[8, 32], pl.FP32]")
    before = np.full((8, 32), 3.0, np.float32)
    got = _run_both(text, {"x": X, "c": np.asarray(9), "y": before.copy()})["y"]
    assert np.array_equal(got[:, :9], X[4:12, 16:25])
    assert np.array_equal(got[:, 9:], before[:, 9:])


def test_the_runtime_extent_is_a_typed_symbol_and_the_pto_handle_is_dynamic(tmp_path: Path) -> None:
    source = parse_program(EXAMPLE.read_text(), str(EXAMPLE))
    load_type = getattr(getattr(source.functions[0].body[2], "value"), "type")
    assert isinstance(load_type, TileType) and load_type.valid_shape == (SymbolicExtent("rows"), 64)
    final = compile_program(source, verify_all=True).final
    assert isinstance(final, P.Program)
    text = print_mlir(final, emit_loc=False)
    # The alloc starts full, the set_validshape before the load narrows it to the runtime rows,
    # and the GM windows of the load and the store are `?` rows given by the same value.
    assert "valid_row = %c16_index valid_col = %c64_index : !pto.tile_buf<loc=vec, dtype=f32, rows=16, " \
           "cols=64, v_row=?, v_col=?" in text
    assert re.search(r"pto.set_validshape %\d+, %arg1, %c64_index", text)
    assert text.count("sizes = [%arg1, %c64_index] : !pto.tensor_view<?x?xf32> -> "
                      "!pto.partition_tensor_view<?x64xf32>") == 2
    assert print_mlir(parse_mlir(text, "ragged.pto"), emit_loc=False) == text


def test_an_extent_outside_its_dimension_is_the_programs_error() -> None:
    source = parse_program(EXAMPLE.read_text(), str(EXAMPLE))
    inputs = {"x": X, "rows": np.asarray(17)}
    with pytest.raises(CompileError, match=r"runtime valid extents \['rows'\] give a valid shape \[17, 64\] "
                                           r"outside the shape \[16, 64\]"):
        reference(source, inputs)
    with pytest.raises(CompileError, match="outside"):
        run(compile_program(source), inputs)


def test_an_op_that_needs_a_constant_valid_shape_declines_by_name(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "rowsum.py"
    path.write_text(_kernel("x: pl.Tensor[[16, 64], pl.FP32], r: pl.Scalar[pl.INDEX], "
                            "y: pl.Out[pl.Tensor[[16, 1], pl.FP32]]", """
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64], valid_shape=[r, 64])
        tmp: pl.Tile[[16, 64], pl.FP32] = pl.tile.create([16, 64], dtype=pl.FP32)
        s = pl.tile.row_sum(t, tmp)
        return pl.store(s, [0, 0], y)
    """, "pl.Tensor[[16, 1], pl.FP32]"))
    assert main([str(path), "--verify-all", "-o", str(tmp_path / "k.pto")]) == 1
    err = capsys.readouterr().err
    assert f"{path}:10:" in err, err
    assert "not supported yet: tile.row_sum of a value whose valid shape holds the runtime valid extent `r`" in err, err
    assert "Traceback" not in err and "internal compiler error" not in err


def test_symbolic_extents_bound_rejects_an_extent_naming_no_integer_scalar_in_scope() -> None:
    text = _kernel("x: pl.Tensor[[16, 64], pl.FP32], r: pl.Scalar[pl.INDEX], "
                   "y: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]", """
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64], valid_shape=[r, 64])
        return pl.store(t, [0, 0], y)
    """)
    assert symbolic_extents_bound.verify(parse_program(text, "k.py")) == []
    # What a pass that renamed `r` without the types mentioning it would leave, and a type whose
    # extent names a tensor: both are reported at the value carrying the type.
    for name, message in (("q", "`t`'s valid extent `q` is not a variable defined before it"),
                          ("x", "`t`'s valid extent `x` is not an integer scalar")):
        broken = text.replace("t: pl.Tile[[16, 64], pl.FP32] =",
                              f"t: pl.Tile[[16, 64], pl.FP32, pl.TileView(valid_shape=[{name}, 64])] =")
        found = symbolic_extents_bound.verify(parse_program(broken, "k.py"))
        assert [d.message for d in found] == [message] and found[0].span.line == 8
    # In PTO a runtime extent is `?`: a name there means a handle that does not carry it.
    pto = compile_program(parse_program(text, "k.py")).final
    assert isinstance(pto, P.Program) and symbolic_extents_bound.verify(pto) == []
    assert "v_row=?" in print_mlir(pto)


def test_the_loader_checks_symbolic_extents(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "dangling.py"
    path.write_text(_kernel("x: pl.Tensor[[16, 64], pl.FP32], y: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]", """
        t: pl.Tile[[16, 64], pl.FP32, pl.TileView(valid_shape=[q, 64])] = pl.tile.create([16, 64], dtype=pl.FP32)
        return pl.store(t, [0, 0], y)
    """))
    assert main([str(path), "--verify-all", "-o", str(tmp_path / "k.pto")]) == 1
    err = capsys.readouterr().err
    assert "[SymbolicExtentsBound]" in err and "Traceback" not in err


# -- reshape: the operator spec's symbolic valid-region rule --------------------------------------

V, W = SymbolicExtent("v"), SymbolicExtent("w")


@pytest.mark.parametrize(("shape", "valid", "new_shape", "expected"), [
    # The spec's example: the runtime extent rides its run onto [4, 16]'s rows.
    ((4, 2, 8), (V, 1, 8), (4, 16), (V, 8)),
    # A runtime row count of fully valid rows regroups with the rows it keeps whole.
    ((8, 16), (V, 16), (8, 4, 4), (V, 4, 4)),
    ((16, 64), (V, W), (16, 1, 64), (V, 1, W)),
    ((1, 128), (1, V), (128, 1), (V, 1)),
    # v * 16 cells is no extent of [128] and a cut column no box of [16, 8]: rejected.
    ((8, 16), (V, 16), (128,), None),
    ((8, 16), (8, V), (16, 8), None),
    ((16, 64), (V, W), (1024,), None),
    # Provably empty stays the empty box.
    ((8, 16), (V, 0), (16, 8), (0, 0)),
])
def test_reshape_carries_a_runtime_extent_exactly_when_every_value_maps(
        shape: tuple[int, ...], valid: tuple[Any, ...], new_shape: tuple[int, ...], expected: Any) -> None:
    assert reshape_extents(shape, valid, new_shape) == expected


def test_the_static_reshape_rule_is_unchanged() -> None:
    # The spec's static examples.
    assert reshape_extents((8, 16), (5, 16), (16, 8)) == (10, 8)
    assert reshape_extents((8, 16), (5, 16), (128,)) == (80,)
    assert reshape_extents((8, 16), (5, 16), (4, 32)) is None
    assert reshape_extents((2, 2, 2), (2, 1, 2), (2, 4)) == (2, 2)


def test_a_reshaped_runtime_row_runs_at_two_values() -> None:
    text = _kernel("x: pl.Tensor[[1, 128], pl.FP32], n: pl.Scalar[pl.INDEX], "
                   "y: pl.InOut[pl.Tensor[[128, 1], pl.FP32]]", """
        t: pl.Tile[[1, 128], pl.FP32] = pl.load(x, [0, 0], [1, 128], valid_shape=[1, n])
        s = pl.tile.adds(t, 1.0)
        r: pl.Tile[[128, 1], pl.FP32] = pl.tile.reshape(s, [128, 1])
        return pl.store(r, [0, 0], y)
    """, "pl.Tensor[[128, 1], pl.FP32]")
    x = np.arange(128, dtype=np.float32).reshape(1, 128) / 4
    for n in (5, 100):
        before = np.full((128, 1), 9.0, np.float32)
        got = _run_both(text, {"x": x, "n": np.asarray(n), "y": before.copy()})["y"]
        assert np.array_equal(got[:n, 0], x[0, :n] + np.float32(1.0))
        assert np.array_equal(got[n:], before[n:])


SOURCE = np.arange(32 * 64, dtype=np.float32).reshape(32, 64) / 16


def test_a_tensor_slice_with_runtime_rows_lowers_to_a_narrowed_load() -> None:
    text = "\n".join([
        "import pypto.language as pl", "", "",
        "@pl.program",
        "class Kernel:",
        "    @pl.function(type=pl.FunctionType.InCore)",
        "    def kernel(self, x: pl.Tensor[[32, 64], pl.FP32], rows: pl.Scalar[pl.INDEX], "
        "y: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:",
        "        a: pl.Tensor[[16, 64], pl.FP32] = pl.slice(x, [16, 64], [8, 0], valid_shape=[rows, 64])",
        "        b: pl.Tensor[[16, 64], pl.FP32] = pl.add(a, a)",
        "        c: pl.Tensor[[16, 64], pl.FP32] = pl.assemble(y, b, [0, 0])",
        "        return c",
        "",
    ])
    for rows in (1, 13):
        before = np.full((16, 64), -1.0, np.float32)
        got = _run_both(text, {"x": SOURCE, "rows": np.asarray(rows), "y": before.copy()})["y"]
        source = SOURCE
        assert np.array_equal(got[:rows], source[8:8 + rows] + source[8:8 + rows])
        assert np.array_equal(got[rows:], before[rows:])


def test_an_annotation_without_a_valid_shape_is_completed_by_the_op() -> None:
    # PyPTO checks an annotated local's kind, dtype and shape only: the narrowed valid shape the
    # op gives is kept (a written valid shape must still agree).
    text = _kernel("x: pl.Tensor[[16, 64], pl.FP32], y: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]", """
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        n: pl.Tile[[16, 64], pl.FP32] = pl.tile.set_validshape(t, 3, 64)
        return pl.store(n, [0, 0], y)
    """)
    before = np.zeros((16, 64), np.float32)
    got = _run_both(text, {"x": X, "y": before.copy()})["y"]
    assert np.array_equal(got[:3], X[:3]) and np.array_equal(got[3:], before[3:])
    wrong = text.replace("n: pl.Tile[[16, 64], pl.FP32] =",
                         "n: pl.Tile[[16, 64], pl.FP32, pl.TileView(valid_shape=[4, 64])] =")
    with pytest.raises(CompileError, match="is annotated"):
        compile_program(parse_program(wrong, "k.py"), verify_all=True)
