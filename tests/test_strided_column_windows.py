"""Row-major [N, 1] tiles beside [N, 1] columns: every element-wise op runs on one shape and layout.

A static [N, 1] tile is column-major (its elements contiguous), and LegalizeVecLayouts runs a
vector op over one on its zero-copy [1, N] row view. A window of a 2-D tile of that shape
(`tile.slice(t, [N, 1], [r, c])`) keeps its source's row-major layout: its elements sit a source
row apart and it has no zero-copy row view. An op of both -- the window beside a fresh column, a
column's window, a row re-viewed as a column, or its own column-major result -- left the window as
it was and met the [1, N] row of the column (finding 3d96c19acc: `tile.add` of [2, 1] and [1, 2],
a TypeDeduction error at the user's line), or wrote a column-major result from row-major windows
(an instruction PTOAS refuses). The window now runs as a row gathered from its elements (one
one-element pto.tinsert each, at any offset), and the RowMajorVecTiles verifier checks what
LegalizeVecLayouts produces: row-major tiles, one shape per element-wise op.

Each kernel below is compiled with --verify-all, run on both backends and compared bit for bit
with NumPy (and the interpreter); PTOAS, when built, accepts it on both arches.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
from pathlib import Path
from typing import Any, Callable

import numpy as np
import numpy.typing as npt
import pytest

from languages.pl_parser import parse_program
from nanopass.pipeline import main
from nanopass_pto.run import compare, compile_program, random_inputs, reference, run
from tests.test_ptoas import ARCH, PTOAS, needs_ptoas

Array = npt.NDArray[Any]
BACKENDS = list(ARCH)

TEMPLATE = """import pypto.language as pl


@pl.program
class Strided:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.{T}], b: pl.Tensor[[16, 1], pl.{T}], c: pl.Tensor[[1, 16], pl.{T}],
          out: pl.Out[pl.Tensor[[{N}, 1], pl.{T}]]) -> pl.Tensor[[{N}, 1], pl.{T}]:
        t = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        w = pl.tile.slice(t, [{N}, 1], [{R}, {C}])
        {PARTNER}
        d = {OP}
        return pl.tile.store(d, [0, 0], out)
"""

# The window's partner: a fresh column loaded from GM, a window of a column, a row re-viewed as a
# column, a copy of the window (a row-major [N, 1] tile of its own), and the window itself. Each
# with its NumPy value, from the inputs and the window's rows.
PARTNERS: dict[str, tuple[str, Callable[[dict[str, Array], int, Array], Array]]] = {
    "fresh_column": ("p = pl.tile.load(b, [0, 0], [{N}, 1], target_memory=pl.Mem.Vec)",
                     lambda x, n, w: x["b"][:n]),
    "column_window": ("p = pl.tile.slice(pl.tile.load(b, [0, 0], [16, 1], target_memory=pl.Mem.Vec), [{N}, 1], [3, 0])",
                      lambda x, n, w: x["b"][3:3 + n]),
    "row_view": ("p = pl.tile.reshape(pl.tile.load(c, [0, 0], [1, {N}], target_memory=pl.Mem.Vec), [{N}, 1])",
                 lambda x, n, w: x["c"][:, :n].reshape(n, 1)),
    "moved_window": ("p = pl.tile.move(w, target_memory=pl.Mem.Vec)", lambda x, n, w: w),
    "itself": ("p = w", lambda x, n, w: w),
}


def _subsc(w: Array, p: Array) -> Array:
    """w - 2 + p: integers wrap; a float's intermediates are FP32, rounded to its type once."""
    if w.dtype.kind != "f":
        return np.asarray((w - w.dtype.type(2)) + p)
    return np.asarray(((w.astype(np.float32) - np.float32(2)) + p.astype(np.float32)).astype(w.dtype))


# The op, and its NumPy value (float ops are one IEEE rounding each, integers wrap).
OPS: dict[str, tuple[str, Callable[[Array, Array], Array]]] = {
    "add": ("pl.tile.add(w, p)", lambda w, p: w + p),
    "mul": ("pl.tile.mul(p, w)", lambda w, p: p * w),
    "maximum": ("pl.tile.maximum(w, p)", np.maximum),
    # tpartmax is measured by declared shapes: the gathered row is a fresh tile, as a packed window is
    "part_max": ("pl.tile.part_max(p, w)", np.maximum),
    "subsc": ("pl.tile.subsc(w, 2, p)", _subsc),
    "adds_then_sub": ("pl.tile.sub(pl.tile.adds(w, 3), p)", lambda w, p: (w + w.dtype.type(3)) - p),
    "row_expand_mul": ("pl.tile.row_expand_mul(p, w)", lambda w, p: p * w),
}

# (window rows, offset) per shape; the element types: FP32 is a pto.tinsert type on both targets,
# INT32 is copied as FP32 bits on A2/A3, FP16 is one of 16 bits.
SHAPES = {"2x1": (2, "[0, 0]"), "4x1": (4, "[5, 7]"), "8x1": (8, "[8, 15]")}
TYPES = ("FP32", "INT32", "FP16")


def _case(shape: str, partner: str, op: str, dtype: str) -> str:
    n, offset = SHAPES[shape]
    row, col = (int(v) for v in offset.strip("[]").split(","))
    return (TEMPLATE.replace("{PARTNER}", PARTNERS[partner][0]).replace("{OP}", OPS[op][0])
            .replace("{N}", str(n)).replace("{R}", str(row)).replace("{C}", str(col)).replace("{T}", dtype))


CASES = [(shape, partner, op, "FP32") for shape in SHAPES for partner in PARTNERS for op in OPS] + \
    [(shape, partner, "add", dtype) for shape in ("2x1", "4x1") for partner in PARTNERS for dtype in TYPES[1:]] + \
    [("4x1", "fresh_column", op, dtype) for op in ("mul", "subsc") for dtype in TYPES[1:]]


def _expected(shape: str, partner: str, op: str, inputs: dict[str, Array]) -> Array:
    n, offset = SHAPES[shape]
    row, col = (int(v) for v in offset.strip("[]").split(","))
    with np.errstate(all="ignore"):
        w = inputs["a"][row:row + n, col:col + 1]
        return np.asarray(OPS[op][1](w, PARTNERS[partner][1](inputs, n, w)))


def _bits(array: Array) -> Array:
    return np.ascontiguousarray(array).view(f"u{array.dtype.itemsize}")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape,partner,op,dtype", CASES)
def test_strided_column_ops_run_bit_exact(shape: str, partner: str, op: str, dtype: str, backend: str) -> None:
    text = _case(shape, partner, op, dtype)
    compiled = compile_program(parse_program(text, "strided.py"), backend=backend, verify_all=True)
    inputs = {name: np.array(value) for name, value in random_inputs(compiled.source, 3).items()}
    got = run(compiled, inputs)
    out = got["out"]
    expected = _expected(shape, partner, op, inputs)
    assert out.dtype == expected.dtype and out.shape == expected.shape, (out, expected)
    assert np.array_equal(_bits(out), _bits(expected)), f"{text}\ngot {out.ravel()}\nexpected {expected.ravel()}"
    reports = compare(reference(compiled.source, inputs), got)
    assert reports and all(r.ok for r in reports), reports


# Narrowed windows: an op inside the valid rows gathers those rows only (the row re-validated to
# them, as the column partner's row view is), and one that reads the window past its valid rows
# (its result is valid wider) gathers all of them, cut from the window's source (finding
# 3d96c19acc's shape: a [2, 1] window valid over [1, 1] and a subsc of it read whole).
NARROWED = """import pypto.language as pl


@pl.program
class Narrowed:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.{T}], b: pl.Tensor[[16, 1], pl.{T}],
          out: pl.Out[pl.Tensor[[4, 1], pl.{T}]]) -> pl.Tensor[[4, 1], pl.{T}]:
        t = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        w = pl.tile.slice(t, [4, 1], [5, 7], [2, 1])
        {BODY}
        return pl.tile.store(d, [0, 0], out)
"""
NARROWED_BODIES: dict[str, tuple[str, int, Callable[[Array, Array], Array]]] = {
    # (body, rows the result is valid over, NumPy value of those rows from a[5:9, 7] and b)
    "inside": ("p = pl.tile.slice(pl.tile.load(b, [0, 0], [16, 1], target_memory=pl.Mem.Vec), [4, 1], [3, 0], [2, 1])\n"
               "        d = pl.tile.maximum(w, p)", 2, lambda w, b: np.maximum(w[:2], b[3:5])),
    "read_past": ("p = pl.tile.load(b, [0, 0], [4, 1], target_memory=pl.Mem.Vec)\n"
                  "        q: pl.Tile[[4, 1], pl.{T}] = pl.tile.subsc(w, 2, w)\n"
                  "        d = pl.tile.add(pl.tile.mul(w, q), p)", 4, lambda w, b: w * _subsc(w, w) + b[:4]),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["FP32", "INT32"])
@pytest.mark.parametrize("body", sorted(NARROWED_BODIES))
def test_narrowed_strided_windows_run_bit_exact(body: str, dtype: str, backend: str) -> None:
    code, rows, value = NARROWED_BODIES[body]
    text = NARROWED.replace("{BODY}", code).replace("{T}", dtype)
    compiled = compile_program(parse_program(text, "narrowed.py"), backend=backend, verify_all=True)
    inputs = {name: np.array(value) for name, value in random_inputs(compiled.source, 4).items()}
    got = run(compiled, inputs)["out"][:rows]
    with np.errstate(all="ignore"):
        expected = value(inputs["a"][5:9, 7:8], inputs["b"])
    assert np.array_equal(_bits(got), _bits(expected)), f"{text}\ngot {got.ravel()}\nexpected {expected.ravel()}"


# One kernel per partner and op (the [4, 1] FP32 window; INT32 and FP16 adds), narrowed ones too.
PTOAS_CASES = {f"{partner}_{op}_{dtype}": _case("4x1", partner, op, dtype) for partner in PARTNERS for op in OPS
               for dtype in ("FP32",)} | {f"{partner}_add_{dtype}": _case("4x1", partner, "add", dtype)
                                          for partner in PARTNERS for dtype in TYPES[1:]} | {
    f"narrowed_{body}_{dtype}": NARROWED.replace("{BODY}", NARROWED_BODIES[body][0]).replace("{T}", dtype)
    for body in NARROWED_BODIES for dtype in ("FP32", "INT32")}


@needs_ptoas
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(PTOAS_CASES))
def test_ptoas_accepts_the_strided_column_ops(name: str, backend: str, tmp_path: Path) -> None:
    kernel, pto = tmp_path / f"{name}.py", tmp_path / f"{name}.pto"
    kernel.write_text(PTOAS_CASES[name])
    log = io.StringIO()
    with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
        rc = main([str(kernel), "--backend", backend, "--verify-all", "-o", str(pto)])
    assert rc == 0, log.getvalue()
    assert PTOAS is not None
    result = subprocess.run([str(PTOAS), f"--pto-arch={ARCH[backend]}", "--pto-level=level3", str(pto), "-o",
                             str(tmp_path / f"{name}.cpp")], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"PTOAS rejects {pto.name}:\n{result.stderr}\n{pto.read_text()}"


# -- the check that blames the pass -------------------------------------------------------------------

FINDING = Path(__file__).resolve().parent / "regressions" / "fuzz_rejected_legalize_vec_layouts_3d96c19acc.py"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kernel,expected", [
    # The finding's shape: the window beside a column's row is a row form the deduction refuses.
    ("finding", "[LegalizeVecLayouts] the row form of `tile.add`"),
    # A column-major result of row-major windows only: the op deduces, RowMajorVecTiles refuses it.
    ("itself_subsc", "[RowMajorVecTiles] `tile.subsc` computes on column-major Vec tiles (result)"),
])
def test_the_window_left_as_it_is_is_blamed_on_the_pass(kernel: str, expected: str, backend: str,
                                                        tmp_path: Path) -> None:
    from nanopass_pto.mutants import MUTANTS

    source = tmp_path / "k.py"
    source.write_text(FINDING.read_text() if kernel == "finding" else _case("4x1", "itself", "subsc", "FP32"))
    log = io.StringIO()
    with {m.name: m for m in MUTANTS}["strided-column-left-as-is"].applied(), \
            contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
        rc = main([str(source), "--backend", backend, "--verify-all", "-o", str(tmp_path / "k.pto"),
                   "--reproducer-dir", str(tmp_path / "r")])
    text = log.getvalue()
    assert rc == 2 and expected in text and "[TypeDeduction]" not in text, text
