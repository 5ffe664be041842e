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
