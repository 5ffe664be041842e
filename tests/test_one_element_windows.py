"""One-element windows: a [1, 1] tile is a row as much as a column.

A [1, 1] window (tile.slice) of an [N, 1] column is column-major, as a pto.subview of the column
must be, while every fresh [1, 1] tile is row-major: PTOAS refused the mixtures the compiler made
of them (docs/open_findings, now tests/kernels/ops/one_element_window_of_a_column.py and
transpose_view_of_a_one_element_window.py). The fix, checked here on kernels of both sources
(the column and a 2-D tile) through every way a window reaches a vector instruction:

- a copy of a one-element tile (tile.move) and a re-view of one from its first byte
  (reinterpret_view) are row-major [1, 1] tiles, and a flat [1, 1] tile is its own transpose
  (transpose_view keeps its type): the transpose of a one-element window is that window;
- LegalizeVecLayouts copies a column's window as the window cut from the column's row view, a
  row-major Vec -> Vec pto.tinsert (pto-isa's TINSERT of a one-element source is a scalar element
  move, exact at any offset): no vector tmov between a subview and a tile of another declared
  shape (A2/A3 refuses it), no column-major vector tmov (A5 re-views its operands through
  treshapes, which refuse a subview);
- the instructions PTOAS measures by declared shapes (SHAPE_MATCHED_INSTRUCTIONS: tpartmax,
  tcvt, ...) read a window as a copy of its own, never as the subview itself;
- one element written into a column (tile.assemble at [r, 0]) is written into the column's row
  view at [0, r], a row-major pto.tinsert.

Each kernel runs bit-exact against the interpreter on both backends and PTOAS (when built)
accepts it on both arches. A cast here keeps the element width: a cast between widths is the
per-width pitch class tests/test_ptoas.py keeps open (CAST_PITCH), whatever the tile.
"""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from backend.pto_text.printer import print_mlir
from languages.layout import SHAPE_MATCHED_INSTRUCTIONS
from languages.memory_space import MemorySpace
from languages.ops import REGISTRY
from languages.pl_parser import parse_program
from languages.types import DataType, TileType, TileView
from languages.views import implicit_view, move_view
from nanopass.pipeline import main
from nanopass_pto.run import compare, compile_program, random_inputs, reference, run
from tests.test_ptoas import ARCH, PTOAS, needs_ptoas

Array = npt.NDArray[Any]
KERNELS = Path(__file__).resolve().parent / "kernels" / "ops"
BACKENDS = list(ARCH)

# The sources: the window at [5, 0] of a [16, 1] column, and at [5, 7] of a [16, 16] tile.
SOURCES = {"column": ("[16, 1]", "[5, 0]"), "tile": ("[16, 16]", "[5, 7]")}
# How the window reaches the op: as it is, transposed, reinterpreted (its element type, or the
# other type of its width), or copied into a tile of its own.
VIEWS = {
    "window": "c = s",
    "transposed": "c = pl.tile.transpose_view(s)",
    "reinterpreted": "c = pl.tile.reinterpret_view(s, dtype=pl.{V})",
    "moved": "c = pl.tile.move(s, target_memory=pl.Mem.Vec)",
}
OPS = {
    "part_max": "pl.tile.part_max(c, c)",
    "part_min": "pl.tile.part_min(c, pl.tile.add(c, c))",
    "add": "pl.tile.add(c, c)",
    "maximum": "pl.tile.maximum(c, c)",
    "cast": "pl.tile.cast(c, target_type=pl.{C})",
}
# (source element type, the view's, the cast's) per view.
TYPES = {"window": ("FP32", "FP32", "INT32"), "transposed": ("FP16", "FP16", "INT16"),
         "reinterpreted": ("INT32", "FP32", "INT32"), "moved": ("FP32", "FP32", "INT32")}

TEMPLATE = """import pypto.language as pl


@pl.program
class OneElement:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[{SHAPE}, pl.{T}], out: pl.Out[pl.Tensor[[1, 1], pl.{R}]]) -> pl.Tensor[[1, 1], pl.{R}]:
        t = pl.tile.load(a, [0, 0], {SHAPE}, target_memory=pl.Mem.Vec)
        s = pl.tile.slice(t, [1, 1], {OFFSET})
        {VIEW}
        d = {OP}
        return pl.tile.store(d, [0, 0], out)
"""


def _kernel(source: str, view: str, op: str) -> str:
    shape, offset = SOURCES[source]
    t, v, c = TYPES[view]
    line = VIEWS[view].replace("{V}", v)
    return (TEMPLATE.replace("{SHAPE}", shape).replace("{OFFSET}", offset).replace("{T}", t)
            .replace("{R}", c if op == "cast" else v).replace("{VIEW}", line)
            .replace("{OP}", OPS[op].replace("{C}", c)))


INLINE = {f"{source}_{view}_{op}": _kernel(source, view, op) for source in SOURCES for view in VIEWS for op in OPS}

# One element written into a column (tile.assemble at [r, 0]): a column's window, a loaded [1, 1]
# tile and a row reduction's [1, 1] result, the column read before and after the writes. It is
# the write into the column's [1, N] row view at [0, r], a row-major pto.tinsert; a tmov into a
# subview of the column would span the one element's padded [1, 8] buffer.
ASSEMBLED = """import pypto.language as pl


@pl.program
class Assembled:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 1], pl.{T}], b: pl.Tensor[[16, 1], pl.{T}], c: pl.Tensor[[1, 1], pl.{T}],
          out: pl.Out[pl.Tensor[[16, 1], pl.{T}]]) -> pl.Tensor[[16, 1], pl.{T}]:
        t = pl.tile.load(a, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        u = pl.tile.load(b, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        v = pl.tile.load(c, [0, 0], [1, 1], target_memory=pl.Mem.Vec)
        s = pl.tile.slice(t, [1, 1], [7, 0])
        x = pl.tile.assemble(u, s, [2, 0])
        x = pl.tile.assemble(x, v, [9, 0])
        w = pl.tile.sub(x, u)
        r = pl.tile.row_sum(pl.tile.reshape(w, [1, 16]), pl.tile.create([1, 16], dtype=pl.{T}, target_memory=pl.Mem.Vec))
        y = pl.tile.assemble(t, r, [15, 0])
        z = pl.tile.add(y, w)
        return pl.tile.store(z, [0, 0], out)
"""
INLINE.update({f"assembled_{t.lower()}": ASSEMBLED.replace("{T}", t) for t in ("FP32", "INT32", "FP16", "INT16")})

# Longer windows the same rules reach: an [n, 1] window of a column is copied as its row window
# into a [1, n] row re-viewed as the column (reinterpreted, moved, and read by tpartmax / tcvt,
# which take no subview even of their own declared shape: the [8, 1] FP32 window's [1, 8] row),
# a [4, 8] window of a 2-D tile read by tpartmax, and [1, 1] windows at a loop's runtime offsets.
LONGER_TEMPLATE = """import pypto.language as pl


@pl.program
class Windows:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[{SHAPE}, pl.{T}], out: pl.Out[pl.Tensor[{WINDOW}, pl.{R}]]) -> pl.Tensor[{WINDOW}, pl.{R}]:
        t = pl.tile.load(a, [0, 0], {SHAPE}, target_memory=pl.Mem.Vec)
        s = pl.tile.slice(t, {WINDOW}, {OFFSET})
        {BODY}
        return pl.tile.store(d, [0, 0], out)
"""
LONGER = {
    "column4_part_max": ("[16, 1]", "[4, 1]", "[3, 0]", "FP32", "FP32", "d = pl.tile.part_max(s, s)"),
    "column8_part_max": ("[16, 1]", "[8, 1]", "[3, 0]", "FP32", "FP32", "d = pl.tile.part_max(s, s)"),
    "column8_cast": ("[16, 1]", "[8, 1]", "[3, 0]", "FP32", "INT32", "d = pl.tile.cast(s, target_type=pl.INT32)"),
    "column4_reinterpreted_part_max": ("[16, 1]", "[4, 1]", "[3, 0]", "INT32", "FP32",
                                       "c = pl.tile.reinterpret_view(s, dtype=pl.FP32)\n        d = pl.tile.part_max(c, c)"),
    "column8_moved_add": ("[16, 1]", "[8, 1]", "[3, 0]", "FP16", "FP16",
                          "m = pl.tile.move(s, target_memory=pl.Mem.Vec)\n        d = pl.tile.add(m, m)"),
    "tile4x8_part_max": ("[16, 16]", "[4, 8]", "[3, 8]", "FP32", "FP32", "d = pl.tile.part_max(s, s)"),
}
INLINE.update({name: LONGER_TEMPLATE.replace("{SHAPE}", shape).replace("{WINDOW}", window).replace("{OFFSET}", offset)
               .replace("{T}", t).replace("{R}", r).replace("{BODY}", body)
               for name, (shape, window, offset, t, r, body) in LONGER.items()})
# One INT32 element re-viewed as two FP16 halves: a row, [1, 2], whatever the window's layout (the
# column's window deduced [2, 1] once placed, and the store of it did not fit its [1, 2] tensor).
INLINE["column_reinterpreted_narrower_add"] = """import pypto.language as pl


@pl.program
class Halves:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 1], pl.INT32], out: pl.Out[pl.Tensor[[1, 2], pl.FP16]]) -> pl.Tensor[[1, 2], pl.FP16]:
        t = pl.tile.load(a, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        s = pl.tile.slice(t, [1, 1], [3, 0])
        c = pl.tile.reinterpret_view(s, dtype=pl.FP16)
        d = pl.tile.add(c, c)
        return pl.tile.store(d, [0, 0], out)
"""
INLINE["column_runtime_offsets_maximum"] = """import pypto.language as pl


@pl.program
class RuntimeOffsets:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 1], pl.FP32], out: pl.Out[pl.Tensor[[1, 1], pl.FP32]]) -> pl.Tensor[[1, 1], pl.FP32]:
        t = pl.tile.load(a, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        first = pl.tile.slice(t, [1, 1], [0, 0])
        acc = pl.tile.add(first, first)
        for i in pl.range(1, 16):
            s = pl.tile.slice(t, [1, 1], [i, 0])
            acc = pl.tile.maximum(acc, pl.tile.part_max(s, s))
        return pl.tile.store(acc, [0, 0], out)
"""
FINDINGS = ["one_element_window_of_a_column", "transpose_view_of_a_one_element_window"]
NAMES = sorted(INLINE) + FINDINGS


def _source(name: str) -> str:
    return INLINE[name] if name in INLINE else (KERNELS / f"{name}.py").read_text()


def _compiled(name: str, backend: str) -> Any:
    return compile_program(parse_program(_source(name), f"{name}.py"), backend=backend, verify_all=True)


# Signalling and quiet NaNs with payloads, of both signs, per element width: the one element a
# window copies is a NaN pattern in some draws.
NAN_BITS = {16: [0x7C01, 0x7D55, 0xFE01, 0xFFFF], 32: [0x7F800001, 0x7FA00000, 0xFFC00001, 0xFFFFFFFF]}


def _inputs(compiled: Any, seed: int, nan: bool) -> dict[str, Array]:
    inputs: dict[str, Array] = {}
    for name, value in random_inputs(compiled.source, seed).items():
        array = np.array(value)
        if nan and array.ndim == 2 and array.shape[0] > 7 and array.dtype.itemsize * 8 in NAN_BITS:
            words = array.view(f"u{array.dtype.itemsize}")
            for row in (5, 7):  # the rows the windows are cut from
                words[row, :] = np.resize(np.array(NAN_BITS[array.dtype.itemsize * 8], dtype=np.uint64), words.shape[1])
        inputs[name] = array
    return inputs


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", NAMES)
def test_one_element_windows_run_bit_exact(name: str, backend: str) -> None:
    compiled = _compiled(name, backend)
    for seed, nan in ((5, False), (6, True)):
        inputs = _inputs(compiled, seed, nan)
        reports = compare(reference(compiled.source, inputs), run(compiled, inputs))
        assert reports and all(r.ok for r in reports), (seed, reports)


@needs_ptoas
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", NAMES)
def test_ptoas_accepts_the_one_element_windows(name: str, backend: str, tmp_path: Path) -> None:
    kernel, pto = tmp_path / f"{name}.py", tmp_path / f"{name}.pto"
    kernel.write_text(_source(name))
    log = io.StringIO()
    with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
        rc = main([str(kernel), "--backend", backend, "--verify-all", "-o", str(pto)])
    assert rc == 0, log.getvalue()
    assert PTOAS is not None
    result = subprocess.run([str(PTOAS), f"--pto-arch={ARCH[backend]}", "--pto-level=level3", str(pto), "-o",
                             str(tmp_path / f"{name}.cpp")], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"PTOAS rejects {pto.name}:\n{result.stderr}\n{pto.read_text()}"


# -- what the compiler emits --------------------------------------------------------------------------


def _defs(text: str) -> dict[str, str]:
    """Each SSA value's defining op (`%3` -> `pto.alloc_tile`)."""
    return {m[1]: m[2] for m in re.finditer(r"^\s*(%\w+) = ([\w.]+)", text, re.MULTILINE)}


def _instructions(text: str, op: str) -> list[str]:
    return [line for line in text.splitlines() if re.match(rf"\s*{re.escape(op)} ", line)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("view", ["reinterpreted", "moved"])
def test_a_copied_column_window_is_a_tinsert_of_its_row_window_into_a_row_major_tile(view: str,
                                                                                      backend: str) -> None:
    text = print_mlir(_compiled(f"column_{view}_add", backend).final)
    assert not _instructions(text, "pto.tmov"), text
    (insert,) = _instructions(text, "pto.tinsert")
    source, target = re.search(r"ins\((%\w+),.*outs\((%\w+)", insert).groups()  # type: ignore[union-attr]
    assert _defs(text)[source] == "pto.subview" and _defs(text)[target] == "pto.alloc_tile", insert
    # the window cut from the column's row view: a row-major [1, 1] subview of a [1, 16] tile
    window = next(line for line in text.splitlines() if line.strip().startswith(f"{source} = pto.subview"))
    assert "rows=1, cols=16" in window and "rows=1, cols=1, v_row=1, v_col=1, blayout=row_major" in window, window
    assert re.search(r"outs\(%\w+ : !pto.tile_buf<loc=vec, dtype=(f32|i32), rows=1, cols=8, v_row=1, v_col=1, "
                     r"blayout=row_major", insert), insert


@pytest.mark.parametrize("backend", BACKENDS)
def test_one_element_is_written_into_a_column_through_its_row_view(backend: str) -> None:
    text = print_mlir(_compiled("assembled_fp32", backend).final)
    inserts = _instructions(text, "pto.tinsert")
    assert len(inserts) == 4, text  # the window's copy, then the three writes
    for write in inserts[1:]:
        assert re.search(r"outs\(%\w+ : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=16, v_row=1, v_col=16, "
                         r"blayout=row_major", write), write
    assert all("blayout=col_major" not in line for line in _instructions(text, "pto.tmov")), text


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("source", sorted(SOURCES))
def test_the_transpose_of_a_one_element_window_is_the_window_itself(source: str, backend: str) -> None:
    compiled = _compiled(f"{source}_transposed_add", backend)
    text = print_mlir(compiled.final)
    assert not _instructions(text, "pto.tmov") and not _instructions(text, "pto.tinsert"), text
    (add,) = _instructions(text, "pto.tadd")
    operands = re.search(r"ins\((%\w+), (%\w+) :", add).groups()  # type: ignore[union-attr]
    assert all(_defs(text)[o] == "pto.subview" for o in operands), add


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", [n for n in NAMES if re.search(r"_(part_max|part_min|cast)$", n)]
                         + ["one_element_window_of_a_column"])
def test_shape_matched_instructions_read_a_window_as_a_copy_of_its_own(name: str, backend: str) -> None:
    text = print_mlir(_compiled(name, backend).final)
    defs = _defs(text)
    lines = [line for op in sorted(SHAPE_MATCHED_INSTRUCTIONS) for line in _instructions(text, op)]
    assert lines, text
    for line in lines:
        ins = re.search(r"ins\(([^:]*):", line)
        assert ins is not None, line
        for operand in re.findall(r"%\w+", ins[1]):
            assert defs.get(operand) == "pto.alloc_tile", (operand, line)
        # every tile the instruction names is declared at one shape, a fresh row-major tile's
        declared = re.findall(r"rows=(\d+), cols=(\d+), v_row=\d+, v_col=\d+, blayout=(\w+)", line)
        assert len(declared) >= 2 and len(set(declared)) == 1 and declared[0][2] == "row_major", line


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["FP32", "INT32", "FP16", "INT16", "BF16", "INT8", "UINT8"])
def test_a_moved_one_element_column_window_keeps_its_bits(dtype: str, backend: str) -> None:
    source = f"""import pypto.language as pl


@pl.program
class K:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 1], pl.{dtype}], out: pl.Out[pl.Tensor[[1, 1], pl.{dtype}]]) -> pl.Tensor[[1, 1], pl.{dtype}]:
        t = pl.tile.load(a, [0, 0], [32, 1], target_memory=pl.Mem.Vec)
        s = pl.tile.slice(t, [1, 1], [5, 0])
        m = pl.tile.move(s, target_memory=pl.Mem.Vec)
        return pl.tile.store(m, [0, 0], out)
"""
    compiled = compile_program(parse_program(source, "k.py"), backend=backend, verify_all=True)
    inputs = {name: np.array(value) for name, value in random_inputs(compiled.source, 9).items()}
    column = inputs["a"]
    if column.dtype.itemsize * 8 in NAN_BITS:  # a NaN pattern of the element's width in the window
        column.view(f"u{column.dtype.itemsize}")[5, 0] = NAN_BITS[column.dtype.itemsize * 8][1]
    outputs = run(compiled, inputs)
    got = np.asarray(outputs["out"])
    assert got.shape == (1, 1) and got.view(np.uint8).tobytes() == column[5:6, :].view(np.uint8).tobytes()
    reports = compare(reference(compiled.source, inputs), outputs)
    assert reports and all(r.ok for r in reports), reports


# -- the type rules -----------------------------------------------------------------------------------

COLUMN_VIEW = TileView("col_major", "none_box", 512)
WINDOW = TileType((1, 1), DataType.FP32, None, MemorySpace.Vec, COLUMN_VIEW)


def _deduce(op: str, tile: TileType, attrs: tuple[tuple[str, Any], ...] = ()) -> TileType:
    from languages.gen import tile_placed as TP
    var = TP.Var("x", tile)
    result = REGISTRY.deduce(op, (var,), attrs, placed=True)
    assert isinstance(result, TileType)
    return result


def test_a_flat_one_element_tile_is_its_own_transpose_and_a_boxed_one_is_not() -> None:
    assert _deduce("tile.transpose_view", WINDOW) == WINDOW
    row = TileType((1, 1), DataType.FP16, None, MemorySpace.Vec, implicit_view(MemorySpace.Vec, (1, 1)))
    assert _deduce("tile.transpose_view", row) == row
    boxed = TileType((1, 1), DataType.FP16, None, MemorySpace.Mat, implicit_view(MemorySpace.Mat, (1, 1)))
    flipped = _deduce("tile.transpose_view", boxed).view
    assert flipped is not None and boxed.view is not None and flipped.slayout != boxed.view.slayout
    # a [1, n] row is still an [n, 1] column once transposed
    wide = TileType((1, 4), DataType.FP32, None, MemorySpace.Vec, implicit_view(MemorySpace.Vec, (1, 4)))
    transposed = _deduce("tile.transpose_view", wide)
    assert transposed.shape == (4, 1) and transposed.view is not None and transposed.view.blayout == "col_major"


def test_a_copy_and_a_reinterpret_of_a_one_element_window_are_row_major() -> None:
    moved = move_view(WINDOW, MemorySpace.Vec)
    assert moved.blayout == "row_major" and moved.slayout == "none_box"
    assert _deduce("tile.move", WINDOW, (("target_memory", MemorySpace.Vec),)).view == implicit_view(
        MemorySpace.Vec, (1, 1))
    as_int = _deduce("tile.reinterpret_view", WINDOW, (("dtype", DataType.INT32),))
    assert as_int.shape == (1, 1) and as_int.view is not None and as_int.view.blayout == "row_major"
    # a narrower type splits the element along the row, as an unplaced [1, 1] tile deduces it
    halves = _deduce("tile.reinterpret_view", WINDOW, (("dtype", DataType.FP16),))
    assert halves.shape == (1, 2) and halves.view is not None and halves.view.blayout == "row_major"
    # a column's copy is still a column
    column = TileType((4, 1), DataType.FP32, None, MemorySpace.Vec, COLUMN_VIEW)
    assert move_view(column, MemorySpace.Vec).blayout == "col_major"
