"""A matmul result whose M or N is not a whole fractal box lives in a bigger (boxed) tile whose
valid region is the user's value. That region must reach every consumer: a per-row operand of a
row broadcast that is a boxed N = 1 column (its values sit at element 0 of each row of a
16-column tile, not in a dense column), a fillpad that would make the box's extra rows and
columns valid, a reduction of such a value, a column broadcast taller than its valid rows.
Each kernel runs end to end under --verify-all --simulate and is compared with NumPy; the
emitted PTO is accepted by PTOAS on both targets where it is built."""

from __future__ import annotations

import random
import subprocess
import textwrap
from pathlib import Path
from typing import Any, Callable

import numpy as np
import ml_dtypes
import numpy.typing as npt
import pytest

from backend.fuzzing.registry_calls import Pool, draw_call
from languages.cube_boxing import declines_boxed_column
from languages.gen import tensor as T
from languages.ops import REGISTRY
from languages.types import DataType, TensorType, Type
from nanopass.pipeline import main

Array = npt.NDArray[Any]
PTOAS = Path("/root/.cache/ptoas/4d2f456e/build/tools/ptoas/ptoas")
HEADER = "import pypto.language as pl\n\n\n@pl.program\nclass Kernel:\n"
BACKENDS = (("Ascend910B", "a3"), ("Ascend950", "a5"))


def _run(tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, inputs: dict[str, Array],
         backend: str, arch: str, assemble: bool = True) -> Array:
    path = tmp_path / "kernel.py"
    path.write_text(HEADER + textwrap.indent(textwrap.dedent(body), "    "))
    np.savez(tmp_path / "in.npz", **inputs)  # type: ignore[arg-type]
    rc = main([str(path), "--verify-all", "--backend", backend, "-o", str(tmp_path / "k.pto"), "--simulate",
               "--inputs", str(tmp_path / "in.npz"), "--save-outputs", str(tmp_path / "out.npz")])
    captured = capsys.readouterr()
    log = captured.out + captured.err
    assert rc == 0 and "bit-exact" in log, log
    if assemble and PTOAS.exists():
        done = subprocess.run([str(PTOAS), f"--pto-arch={arch}", "--pto-level=level3", str(tmp_path / "k.pto"),
                               "-o", str(tmp_path / "k.cpp")], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    return np.asarray(np.load(tmp_path / "out.npz")["ret0"])


def _ints(rng: np.random.Generator, shape: tuple[int, ...]) -> Array:
    # Small integers: products and short sums are exact in FP32, so the NumPy reference is too.
    return rng.integers(-3, 4, shape).astype(np.float32)


def _same_bits(got: Array, expected: Array) -> bool:
    return bool((got.astype(np.float32).view(np.uint32) == expected.astype(np.float32).view(np.uint32)).all())


@pytest.mark.parametrize(("backend", "arch"), BACKENDS)
def test_an_n1_matmul_result_is_the_per_row_operand_of_a_row_broadcast(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], backend: str, arch: str) -> None:
    rng = np.random.default_rng(3)
    a, b, x = _ints(rng, (16, 16)), _ints(rng, (16, 1)), _ints(rng, (16, 32))
    got = _run(tmp_path, capsys, """\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 1], pl.FP32],
               x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        col: pl.Tensor[[16, 1], pl.FP32] = pl.matmul(a, b, out_dtype=pl.FP32)
        scaled: pl.Tensor[[16, 32], pl.FP32] = pl.row_expand_mul(x, col)
        shifted: pl.Tensor[[16, 32], pl.FP32] = pl.add(scaled, col)
        return shifted
    """, {"a": a, "b": b, "x": x}, backend, arch)
    col = a @ b
    assert _same_bits(got, x * col + col)


@pytest.mark.parametrize(("backend", "arch"), BACKENDS)
def test_a_fillpad_of_a_boxed_result_keeps_its_logical_extent(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], backend: str, arch: str) -> None:
    # M = 20 and N = 1 are both boxed (a [32, 16] tile); fillpad(max) must not make the box's
    # padding part of the value: the row sums see one column, the broadcast 20 rows.
    rng = np.random.default_rng(5)
    a, b, x = _ints(rng, (20, 16)), _ints(rng, (16, 1)), _ints(rng, (20, 32))
    got = _run(tmp_path, capsys, """\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[20, 16], pl.FP32], b: pl.Tensor[[16, 1], pl.FP32],
               x: pl.Tensor[[20, 32], pl.FP32]) -> pl.Tensor[[20, 32], pl.FP32]:
        col: pl.Tensor[[20, 1], pl.FP32] = pl.matmul(a, b, out_dtype=pl.FP32)
        padded: pl.Tensor[[20, 1], pl.FP32] = pl.tensor.fillpad(col, pad_value="max")
        sums: pl.Tensor[[20, 1], pl.FP32] = pl.row_sum(padded)
        y: pl.Tensor[[20, 32], pl.FP32] = pl.add(x, sums)
        z: pl.Tensor[[20, 32], pl.FP32] = pl.row_expand_sub(y, padded)
        return z
    """, {"a": a, "b": b, "x": x}, backend, arch)
    col = a @ b
    assert _same_bits(got, (x + col) - col)


@pytest.mark.parametrize(("backend", "arch"), BACKENDS[:1])
def test_an_n1_matmul_result_meets_a_dense_column_and_broadcasts_as_a_left_operand(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], backend: str, arch: str) -> None:
    rng = np.random.default_rng(8)
    a, b, x, y = _ints(rng, (16, 16)), _ints(rng, (16, 1)), _ints(rng, (16, 32)), _ints(rng, (16, 1))
    got = _run(tmp_path, capsys, """\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 1], pl.FP32],
               x: pl.Tensor[[16, 32], pl.FP32], y: pl.Tensor[[16, 1], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        col: pl.Tensor[[16, 1], pl.FP32] = pl.matmul(a, b, out_dtype=pl.FP32)
        both: pl.Tensor[[16, 1], pl.FP32] = pl.mul(y, col)
        z: pl.Tensor[[16, 32], pl.FP32] = pl.sub(both, x)
        return z
    """, {"a": a, "b": b, "x": x, "y": y}, backend, arch)
    assert _same_bits(got, y * (a @ b) - x)


@pytest.mark.parametrize(("backend", "arch"), BACKENDS)
@pytest.mark.parametrize("op", ["mul", "add", "sub", "div"])
def test_an_n1_matmul_result_by_a_single_value_broadcasts_down_its_column(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], backend: str, arch: str, op: str) -> None:
    # [16, 1] by [1, 1] is a column broadcast; the column is a cube result boxed 16 columns
    # wide, which no column broadcast instruction reads as one column (found by a campaign).
    rng = np.random.default_rng(11)
    a, b = _ints(rng, (16, 16)), _ints(rng, (16, 1))
    v = np.full((1, 1), 2.0 if op == "div" else -3.0, np.float32)
    got = _run(tmp_path, capsys, f"""\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 1], pl.FP32],
               v: pl.Tensor[[1, 1], pl.FP32]) -> pl.Tensor[[16, 1], pl.FP32]:
        col: pl.Tensor[[16, 1], pl.FP32] = pl.matmul(a, b, out_dtype=pl.FP32)
        out: pl.Tensor[[16, 1], pl.FP32] = pl.{op}(col, v)
        return out
    """, {"a": a, "b": b, "v": v}, backend, arch,
               # The [1, 1] value's Vec tile has a 4-byte row, which PTOAS refuses until Vec
               # rows are padded to 32 bytes (issue 11's open row-padding class).
               assemble=False)
    reference = {"mul": np.multiply, "add": np.add, "sub": np.subtract, "div": np.divide}[op]
    assert _same_bits(got, reference(a @ b, v))


@pytest.mark.parametrize(("backend", "arch"), BACKENDS)
def test_an_m1_matmul_result_is_the_per_column_operand_of_a_column_broadcast(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], backend: str, arch: str) -> None:
    # M = 1 is boxed to a [16, 16] tile valid in its first row; a column broadcast reads that row.
    rng = np.random.default_rng(13)
    a, b, x = _ints(rng, (1, 16)), _ints(rng, (16, 16)), _ints(rng, (8, 16))
    got = _run(tmp_path, capsys, """\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[1, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32],
               x: pl.Tensor[[8, 16], pl.FP32]) -> pl.Tensor[[8, 16], pl.FP32]:
        row: pl.Tensor[[1, 16], pl.FP32] = pl.matmul(a, b, out_dtype=pl.FP32)
        spread: pl.Tensor[[8, 16], pl.FP32] = pl.tensor.col_expand(x, row)
        scaled: pl.Tensor[[8, 16], pl.FP32] = pl.col_expand_mul(spread, row)
        return pl.add(scaled, x)
    """, {"a": a, "b": b, "x": x}, backend, arch)
    row = a @ b
    assert _same_bits(got, np.broadcast_to(row, (8, 16)) * row + x)


@pytest.mark.parametrize(("backend", "arch"), BACKENDS)
def test_an_expdif_by_a_boxed_column_is_the_difference_then_exp(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], backend: str, arch: str) -> None:
    # No element-wise expdif instruction exists to run it as after broadcasting the boxed
    # column: it is lowered as what it means, trowexpand + tsub + texp (once 'not supported yet').
    rng = np.random.default_rng(5)
    a, b, x = _ints(rng, (16, 16)), _ints(rng, (16, 1)), _ints(rng, (16, 32))
    got = _run(tmp_path, capsys, """\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 1], pl.FP32],
               x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        col: pl.Tensor[[16, 1], pl.FP32] = pl.matmul(a, b, out_dtype=pl.FP32)
        e: pl.Tensor[[16, 32], pl.FP32] = pl.row_expand_expdif(x, col)
        return e
    """, {"a": a, "b": b, "x": x}, backend, arch)
    # NUMERICS.md: exp is RNE_T(exp(float64(x))); the difference of small integers is exact.
    assert _same_bits(got, np.exp((x - a @ b).astype(np.float64)).astype(np.float32))


# A cube result whose M (rows) or N (columns) is rounded up to a fractal box meets a dense value
# of the same logical shape: an element-wise op, a concat, a column broadcast. The boxed tile is
# read through the zero-copy window of its logical extent, or its per-column operand is widened
# to the box; an N = 1 column by its single per-column value runs as the row-expand twin.
Reference = Callable[[Array, dict[str, Array]], Array]
BOXED_MEETS_DENSE: dict[str, tuple[int, int, dict[str, tuple[int, int]], tuple[int, int], str, Reference]] = {
    # name: (M, N, {param: shape}, result shape, expression, reference)
    "rows-sub": (20, 48, {"x": (20, 48)}, (20, 48), "pl.sub(x, c)", lambda c, p: p["x"] - c),
    "rows-concat": (20, 48, {"y": (20, 16)}, (20, 64), "pl.tensor.concat(c, y)",
                    lambda c, p: np.concatenate([c, p["y"]], axis=1)),
    "rows-concat-second": (20, 48, {"y": (20, 16)}, (20, 64), "pl.tensor.concat(y, c)",
                           lambda c, p: np.concatenate([p["y"], c], axis=1)),
    "cols-add": (20, 20, {"x": (20, 20)}, (20, 20), "pl.add(c, x)", lambda c, p: c + p["x"]),
    "cols-concat": (16, 20, {"y": (16, 16)}, (16, 36), "pl.tensor.concat(c, y)",
                    lambda c, p: np.concatenate([c, p["y"]], axis=1)),
    "cols-col-expand-mul": (20, 20, {"r": (1, 20)}, (20, 20), "pl.col_expand_mul(c, r)", lambda c, p: c * p["r"]),
    "cols-mul-by-a-row": (16, 20, {"r": (1, 20)}, (16, 20), "pl.mul(c, r)", lambda c, p: c * p["r"]),
    "column-col-expand": (20, 1, {"v": (1, 1)}, (20, 1), "pl.tensor.col_expand(c, v)",
                          lambda c, p: np.broadcast_to(p["v"], c.shape)),
    "column-col-expand-sub": (20, 1, {"v": (1, 1)}, (20, 1), "pl.col_expand_sub(c, v)", lambda c, p: c - p["v"]),
    "column-col-expand-div": (16, 1, {"v": (1, 1)}, (16, 1), "pl.col_expand_div(c, v)", lambda c, p: c / p["v"]),
    # An op outside the broadcast family (fmod) meets a dense column: it is spread over the box.
    "column-fmod": (20, 1, {"x": (20, 1)}, (20, 1), "pl.tensor.fmod(c, x)", lambda c, p: np.fmod(c, p["x"])),
    "column-concat-second": (20, 1, {"y": (20, 16)}, (20, 17), "pl.tensor.concat(y, c)",
                             lambda c, p: np.concatenate([p["y"], c], axis=1)),
}


@pytest.mark.parametrize(("backend", "arch"), BACKENDS)
@pytest.mark.parametrize("case", sorted(BOXED_MEETS_DENSE))
def test_a_boxed_matmul_result_meets_a_dense_value(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     backend: str, arch: str, case: str) -> None:
    m, n, extra, result, expression, reference = BOXED_MEETS_DENSE[case]
    rng = np.random.default_rng(17)
    inputs = {"a": _ints(rng, (m, 16)), "b": _ints(rng, (16, n))}
    inputs.update({name: _ints(rng, shape) for name, shape in extra.items()})
    if case == "column-fmod":
        inputs["x"] = np.where(inputs["x"] == 0, 2.0, inputs["x"]).astype(np.float32)  # a nonzero divisor
    if "v" in inputs:
        inputs["v"] = np.full((1, 1), 2.0, np.float32)  # an exact divisor
    params = "".join(f", {name}: pl.Tensor[[{s[0]}, {s[1]}], pl.FP32]" for name, s in extra.items())
    got = _run(tmp_path, capsys, f"""\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[{m}, 16], pl.FP32], b: pl.Tensor[[16, {n}], pl.FP32]{params}
               ) -> pl.Tensor[[{result[0]}, {result[1]}], pl.FP32]:
        c: pl.Tensor[[{m}, {n}], pl.FP32] = pl.matmul(a, b, out_dtype=pl.FP32)
        out: pl.Tensor[[{result[0]}, {result[1]}], pl.FP32] = {expression}
        return out
    """, inputs, backend, arch)
    assert _same_bits(got, reference(inputs["a"] @ inputs["b"], inputs))


@pytest.mark.parametrize(("backend", "arch"), BACKENDS)
def test_an_n1_matmul_result_col_expand_expdif_by_a_single_value(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], backend: str, arch: str) -> None:
    rng = np.random.default_rng(19)
    a, b = _ints(rng, (20, 16)) / 4, _ints(rng, (16, 1)) / 4
    v = np.full((1, 1), 0.5, np.float32)
    got = _run(tmp_path, capsys, """\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[20, 16], pl.FP32], b: pl.Tensor[[16, 1], pl.FP32],
               v: pl.Tensor[[1, 1], pl.FP32]) -> pl.Tensor[[20, 1], pl.FP32]:
        col: pl.Tensor[[20, 1], pl.FP32] = pl.matmul(a, b, out_dtype=pl.FP32)
        e: pl.Tensor[[20, 1], pl.FP32] = pl.tensor.col_expand_expdif(col, v)
        return e
    """, {"a": a.astype(np.float32), "b": b.astype(np.float32), "v": v}, backend, arch)
    # NUMERICS.md: exp is RNE_T(exp(float64(x))); the difference of small integers is exact.
    assert _same_bits(got, np.exp((a @ b - v).astype(np.float64)).astype(np.float32))


@pytest.mark.parametrize(("backend", "arch"), BACKENDS)
@pytest.mark.parametrize("read", ["slice", "expands", "assemble", "cast"])
def test_a_narrowed_matmul_result_is_read_at_its_declared_dtype(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], backend: str, arch: str, read: str) -> None:
    # out_dtype=BF16 keeps the accumulator at FP32 and narrows on the way out: a window of it, an
    # expands over it or an assemble into it reads the BF16 value (FIXPIPE's RNE), not the FP32 tile.
    rng = np.random.default_rng(23)
    a, b = _ints(rng, (7, 32)), _ints(rng, (32, 16))
    body = {
        "slice": "out: pl.Tensor[[2, 13], pl.BF16] = pl.slice(c, [2, 13], [4, 3])",
        "expands": "out: pl.Tensor[[2, 13], pl.BF16] = pl.slice(pl.tensor.expands(c, 1.5), [2, 13], [4, 3])",
        "assemble": "out: pl.Tensor[[2, 13], pl.BF16] = pl.slice(pl.tensor.assemble(c, pl.slice(c, [2, 13], [0, 0]), "
                    "[4, 3]), [2, 13], [4, 3])",
        "cast": "out: pl.Tensor[[2, 13], pl.BF16] = pl.slice(pl.tensor.cast(c, target_type=pl.BF16), [2, 13], [4, 3])",
    }[read]
    got = _run(tmp_path, capsys, f"""\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[7, 32], pl.BF16], b: pl.Tensor[[32, 16], pl.BF16]) -> pl.Tensor[[2, 13], pl.BF16]:
        c: pl.Tensor[[7, 16], pl.BF16] = pl.matmul(a, b, out_dtype=pl.BF16)
        {body}
        return out
    """, {"a": a.astype(ml_dtypes.bfloat16), "b": b.astype(ml_dtypes.bfloat16)}, backend, arch)
    product = (a @ b).astype(ml_dtypes.bfloat16).astype(np.float32)
    expected = {"slice": product[4:6, 3:16], "expands": np.full((2, 13), 1.5, np.float32),
                "assemble": product[0:2, 0:13], "cast": product[4:6, 3:16]}[read]
    # BF16 outputs are saved as their 16-bit patterns.
    assert _same_bits(got.view(ml_dtypes.bfloat16).astype(np.float32), expected)


@pytest.mark.parametrize(("backend", "arch"), BACKENDS)
@pytest.mark.parametrize("op", ["scatter", "scatter_update"])
def test_an_m1_matmul_result_is_scattered_into_as_a_dense_row(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], backend: str, arch: str, op: str) -> None:
    # M = 1 is boxed to a [16, 16] tile valid in its first row; the scatter writes positions of
    # the user's [1, 16] row, into a dense copy (the product itself is returned unchanged too).
    rng = np.random.default_rng(29)
    a, b = _ints(rng, (1, 16)), _ints(rng, (16, 16))
    src = np.array([[5.0, -7.0]], np.float32) if op == "scatter" else _ints(rng, (1, 16))
    index = np.array([[3, 11]], np.int32) if op == "scatter" else np.zeros((1, 1), np.int32)
    index_shape = "[1, 2]" if op == "scatter" else "[1, 1]"
    call = ("pl.tensor.scatter(row, idx, src)" if op == "scatter"
            else "pl.tensor.scatter_update(row, -2, idx, src)")
    got = _run(tmp_path, capsys, f"""\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[1, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32],
               idx: pl.Tensor[{index_shape}, pl.INT32], src: pl.Tensor[[1, {src.shape[1]}], pl.FP32]
               ) -> pl.Tensor[[1, 16], pl.FP32]:
        row: pl.Tensor[[1, 16], pl.FP32] = pl.matmul(a, b, out_dtype=pl.FP32)
        out: pl.Tensor[[1, 16], pl.FP32] = {call}
        both: pl.Tensor[[1, 16], pl.FP32] = pl.add(out, row)
        return both
    """, {"a": a, "b": b, "idx": index, "src": src}, backend, arch,
               # scatter_update's one-row flat index (trowexpandadd of a [1, 1] row base) is a
               # PTOAS refusal of its own, boxed or not ("src1 valid_shape[1] to be 32/sizeof").
               assemble=op == "scatter")
    row = a @ b
    scattered = row.copy()
    if op == "scatter":
        scattered[0, [3, 11]] = src[0]
    else:
        scattered = src.copy()
    assert _same_bits(got, scattered + row)


@pytest.mark.parametrize(("op", "m", "call", "result"), [
    ("tensor.scatter", 20, "pl.tensor.scatter(col, idx, src)", "[20, 1]"),
    ("tensor.concat", 20, "pl.tensor.concat(col, src)", "[20, 2]"),
    ("tensor.sort32", 1, "pl.tensor.sort32(col, idx)", "[1, 2]"),
])
def test_an_n1_matmul_result_as_a_dense_only_operand_is_not_supported_yet(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], op: str, m: int, call: str, result: str) -> None:
    path = tmp_path / "kernel.py"
    path.write_text(HEADER + textwrap.indent(textwrap.dedent(f"""\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[{m}, 16], pl.FP32], b: pl.Tensor[[16, 1], pl.FP32],
               idx: pl.Tensor[[{m}, 1], pl.INT32], src: pl.Tensor[[{m}, 1], pl.FP32]) -> pl.Tensor[{result}, pl.FP32]:
        col: pl.Tensor[[{m}, 1], pl.FP32] = pl.matmul(a, b, out_dtype=pl.FP32)
        out: pl.Tensor[{result}, pl.FP32] = {call}
        return out
    """), "    "))
    rc = main([str(path), "--verify-all", "-o", str(tmp_path / "k.pto")])
    log = capsys.readouterr().err
    assert rc == 1 and "kernel.py:10:" in log, log
    assert f"not supported yet: `{op}` of `col`, a cube result of shape [{m}, 1]" in log
    assert "store the matmul result" in log


def test_the_generator_gives_no_scatter_a_boxed_column() -> None:
    # The fact the conversion declines by (languages.cube_boxing.declines_boxed_column): a
    # scatter, or a concat's first operand, never gets a boxed N = 1 cube result; other ops (and
    # a concat's second operand, a scatter of a boxed row) may.
    assert declines_boxed_column(REGISTRY.get("tensor.scatter"), 2)
    assert declines_boxed_column(REGISTRY.get("tensor.concat"), 0)
    assert not declines_boxed_column(REGISTRY.get("tensor.concat"), 1)
    assert not declines_boxed_column(REGISTRY.get("tensor.row_expand_expdif"), 1)  # spread, then sub and exp
    assert not declines_boxed_column(REGISTRY.get("tensor.row_expand_sub"), 1)
    assert declines_boxed_column(REGISTRY.get("tensor.sort32"), 0)
    assert not declines_boxed_column(REGISTRY.get("tensor.exp"), 0)
    column = T.Var("col", TensorType((20, 1), DataType.FP32))
    row = T.Var("row", TensorType((1, 16), DataType.FP32))
    made: list[T.Var] = []

    def fresh(ty: Type) -> T.Var:
        made.append(T.Var(f"p{len(made)}", ty))
        return made[-1]

    def operands(op: str, value: T.Var, seed: int) -> set[str]:
        pool = Pool([value], fresh, boxed={value.name}, fresh_index=fresh)
        rng = random.Random(seed)
        drawn = draw_call(lambda lo, hi: rng.randint(lo, hi), REGISTRY.get(op), pool)
        return {a.name for a in drawn.args if isinstance(a, T.Var)} if drawn is not None else set()

    def drawn_first(op: str, value: T.Var, seed: int) -> str:
        pool = Pool([value], fresh, boxed={value.name}, fresh_index=fresh)
        rng = random.Random(seed)
        drawn = draw_call(lambda lo, hi: rng.randint(lo, hi), REGISTRY.get(op), pool)
        first = drawn.args[0] if drawn is not None else None
        return first.name if isinstance(first, T.Var) else ""

    assert not any("col" in operands("tensor.scatter", column, seed) for seed in range(200))
    assert not any(drawn_first("tensor.concat", column, seed) == "col" for seed in range(200))
    assert any(drawn_first("tensor.concat", row, seed) == "row" for seed in range(200))
    assert any("row" in operands("tensor.scatter", row, seed) for seed in range(200))
    assert any("col" in operands("tensor.exp", column, seed) for seed in range(50))


@pytest.mark.parametrize(("backend", "arch"), BACKENDS)
def test_a_narrowed_matmul_result_is_carried_at_its_declared_dtype(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], backend: str, arch: str) -> None:
    # The loop carry is seeded by a vector value and yields an out_dtype=FP16 product: carried as
    # the FP32 accumulator tile it needed Acc, which no target moves a vector value into.
    rng = np.random.default_rng(31)
    a, b, x = _ints(rng, (16, 32)), _ints(rng, (32, 16)), _ints(rng, (16, 16))
    got = _run(tmp_path, capsys, """\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16],
               x: pl.Tensor[[16, 16], pl.FP16]) -> pl.Tensor[[16, 16], pl.FP16]:
        seed: pl.Tensor[[16, 16], pl.FP16] = pl.adds(x, 1.0)
        zero: pl.Tensor[[16, 16], pl.FP16] = pl.muls(x, 0.0)
        for i, (acc, total) in pl.range(2, init_values=(seed, zero)):
            c: pl.Tensor[[16, 16], pl.FP16] = pl.matmul(a, b, out_dtype=pl.FP16)
            s: pl.Tensor[[16, 16], pl.FP16] = pl.add(total, acc)
            out, summed = pl.yield_(c, s)
        return summed
    """, {"a": a.astype(np.float16), "b": b.astype(np.float16), "x": x.astype(np.float16)}, backend, arch)
    product = (a @ b).astype(np.float16)
    half = x.astype(np.float16)
    expected = (half * np.float16(0) + (half + np.float16(1))) + product
    assert (got.view(np.float16) == expected).all()


@pytest.mark.parametrize(("backend", "arch"), BACKENDS)
def test_a_one_value_matmul_result_col_expand_expdif_by_itself(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], backend: str, arch: str) -> None:
    # M = N = 1: the column and its per-column value are one [16, 16] box valid in [1, 1]; the
    # value is read through its first row (not spread down a column as a dense [1, 1] is).
    rng = np.random.default_rng(37)
    a, b = _ints(rng, (1, 16)), _ints(rng, (16, 1))
    got = _run(tmp_path, capsys, """\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[1, 16], pl.FP32], b: pl.Tensor[[16, 1], pl.FP32]) -> pl.Tensor[[1, 1], pl.FP32]:
        c: pl.Tensor[[1, 1], pl.FP32] = pl.matmul(a, b, out_dtype=pl.FP32)
        e: pl.Tensor[[1, 1], pl.FP32] = pl.tensor.col_expand_expdif(c, c)
        return e
    """, {"a": a, "b": b}, backend, arch)
    assert _same_bits(got, np.ones((1, 1), np.float32))  # exp(c - c) = exp(0)
