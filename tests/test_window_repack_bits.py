"""Vec -> Vec pto.tinsert in the element types PTOAS takes (finding window_repack_tinsert_dtype).

A window's copy into a tile of its own (before a reinterpret / transpose re-view, or a user's
tile.move) and a window write between row-major Vec tiles (tile.assemble) are a Vec -> Vec
pto.tinsert, which takes i8 / f16 / bf16 / f32 on A2/A3 and the 8-bit types, f16, bf16, f32 and
i32 on A5 (PTOAS's TInsertOp::verify; `pto.tinsert` in languages/ops/assembler_element_types.py).
LegalizeVecLayouts copies any other type as the bits of a type of its width the instruction takes
(INT16 / UINT16 as FP16, INT32 / UINT32 as FP32 on A2/A3): a copy moves bytes, so a NaN pattern
of the copy's type survives bit for bit (in the simulator as on the hardware). The rule itself
sits on pto.tinsert, which TargetOpRules checks on the PTO program (and on a `.pto` file loaded),
so an emission PTOAS would refuse is the verifier's finding first.

The kernels are tests/kernels/ops/window_*.py (which tests/test_ptoas.py hands to PTOAS too).
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

from backend.pto_text.parser import parse_mlir
from backend.pto_text.printer import print_mlir
from backend.targets.handlers import ASCEND_910B, ASCEND_950
from languages.ops.assembler_element_types import vec_insert_type, vec_insert_types
from languages.pl_parser import parse_program
from languages.types import DataType
from nanopass.pipeline import main
from nanopass_pto.run import compare, compile_program, random_inputs, reference, run
from tests.test_ptoas import ARCH, PTOAS, needs_ptoas
from verifiers import target_op_rules

Array = npt.NDArray[Any]
KERNELS = Path(__file__).resolve().parent / "kernels" / "ops"
BACKENDS = list(ARCH)
HANDLERS = {"Ascend910B": ASCEND_910B, "Ascend950": ASCEND_950}
WINDOW_KERNELS = ["window_repack_int16", "window_repack_int32", "window_repack_uint16", "window_write_int16"]

# Signalling and quiet NaNs with payloads, of both signs, and the all-ones words: FP16 patterns
# for the 16-bit copies, FP32 patterns for the 32-bit ones.
NAN_BITS = {16: [0x7C01, 0x7D55, 0x7E00, 0x7FFF, 0xFC01, 0xFD55, 0xFE01, 0xFFFF],
            32: [0x7F800001, 0x7FA00000, 0x7FC00001, 0x7FFFFFFF, 0xFF800001, 0xFFA55555, 0xFFC00000, 0xFFFFFFFF]}

# The window's bits as they are: a reinterpret of the window to its own type, stored.
COPY_OF_A_WINDOW = """import pypto.language as pl


@pl.program
class K:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 32], pl.{T}], out: pl.Out[pl.Tensor[[2, 8], pl.{T}]]) -> pl.Tensor[[2, 8], pl.{T}]:
        t: pl.Tile[[16, 32], pl.{T}, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        s: pl.Tile[[2, 8], pl.{T}, pl.Mem.Vec] = pl.tile.slice(t, [2, 8], [3, 5])
        c: pl.Tile[[2, 8], pl.{T}, pl.Mem.Vec] = pl.tile.reinterpret_view(s, dtype=pl.{T})
        return pl.tile.store(c, [0, 0], out)
"""

# An assemble into a tile carried by a loop, and a set_validshape of a window's copy (tile.move):
# both results are views of a copy made as other bits, whose handle the narrowing acts on.
LOOP_ASSEMBLE = """import pypto.language as pl


@pl.program
class K:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 32], pl.UINT16], b: pl.Tensor[[4, 16], pl.UINT16],
          out: pl.Out[pl.Tensor[[16, 32], pl.UINT16]]) -> pl.Tensor[[16, 32], pl.UINT16]:
        t: pl.Tile[[16, 32], pl.UINT16, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        u: pl.Tile[[4, 16], pl.UINT16, pl.Mem.Vec] = pl.tile.load(b, [0, 0], [4, 16], target_memory=pl.Mem.Vec)
        for i in pl.range(4):
            t = pl.tile.assemble(t, u, [i * 4, 16])
        return pl.tile.store(t, [0, 0], out)
"""
MOVED_WINDOW = """import pypto.language as pl


@pl.program
class K:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 32], pl.INT32], out: pl.Out[pl.Tensor[[4, 8], pl.INT32]]) -> pl.Tensor[[4, 8], pl.INT32]:
        t: pl.Tile[[16, 32], pl.INT32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        s: pl.Tile[[4, 8], pl.INT32, pl.Mem.Vec] = pl.tile.slice(t, [4, 8], [3, 5])
        m: pl.Tile[[4, 8], pl.INT32, pl.Mem.Vec] = pl.tile.move(s, target_memory=pl.Mem.Vec)
        v = pl.tile.set_validshape(m, 2, 8)
        d = pl.tile.add(v, v)
        return pl.tile.store(d, [0, 0], out)
"""
INLINE = {"loop_assemble_uint16": LOOP_ASSEMBLE, "moved_window_int32": MOVED_WINDOW,
          **{f"copy_of_a_window_{t.lower()}": COPY_OF_A_WINDOW.replace("{T}", t) for t in ("INT16", "UINT16", "INT32")}}


def _source(name: str) -> str:
    return INLINE[name] if name in INLINE else (KERNELS / f"{name}.py").read_text()


def _inputs(compiled: Any, seed: int) -> dict[str, Array]:
    """Random inputs, every element at [3:5, 5:13] (the windows) and [0:4, 0:16] (the written
    tiles) a NaN pattern of the float type of its width."""
    inputs: dict[str, Array] = {}
    for name, value in random_inputs(compiled.source, seed).items():
        array = np.array(value)
        if array.ndim == 2 and array.dtype.itemsize * 8 in NAN_BITS:
            words = array.view(f"u{array.dtype.itemsize}")
            nans = np.resize(np.array(NAN_BITS[array.dtype.itemsize * 8], dtype=np.uint64).astype(words.dtype),
                             words.shape)
            words[3:5, 5:13] = nans[3:5, 5:13]
            words[0:4, 0:16] = nans[0:4, 0:16]
        inputs[name] = array
    return inputs


def _compiled(name: str, backend: str) -> Any:
    return compile_program(parse_program(_source(name), f"{name}.py"), backend=backend, verify_all=True)


def _tinsert_dtypes(text: str) -> list[str]:
    return [m for line in text.splitlines() if "pto.tinsert" in line for m in re.findall(r"dtype=(\w+)", line)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", WINDOW_KERNELS + sorted(INLINE))
def test_window_copies_and_writes_run_bit_exact_in_types_tinsert_takes(name: str, backend: str) -> None:
    compiled = _compiled(name, backend)
    inputs = _inputs(compiled, 7)
    reports = compare(reference(compiled.source, inputs), run(compiled, inputs))
    assert reports and all(r.ok for r in reports), reports
    arch = HANDLERS[backend].arch
    taken = {d.mlir for d in vec_insert_types(arch)}
    emitted = _tinsert_dtypes(print_mlir(compiled.final))
    assert emitted and set(emitted) <= taken, (emitted, taken)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [DataType.INT16, DataType.UINT16, DataType.INT32])
def test_a_window_copied_as_float_bits_keeps_every_nan_pattern(dtype: DataType, backend: str) -> None:
    name = f"copy_of_a_window_{dtype.name.lower()}"
    compiled = _compiled(name, backend)
    bits = vec_insert_type(dtype, HANDLERS[backend].arch)
    assert bits is not None and bits.bits == dtype.bits
    text = print_mlir(compiled.final)
    assert _tinsert_dtypes(text) == [bits.mlir] * 2, text  # src and dst of the one copy
    inputs = _inputs(compiled, 3)
    outputs = run(compiled, inputs)
    window = np.asarray(inputs["a"])[3:5, 5:13]
    got = np.asarray(outputs["out"])
    assert got.dtype == window.dtype and np.array_equal(got.view(np.uint8), np.ascontiguousarray(window).view(np.uint8))
    reports = compare(reference(compiled.source, inputs), outputs)
    assert reports and all(r.ok for r in reports), reports


@needs_ptoas
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", WINDOW_KERNELS + sorted(INLINE))
def test_ptoas_accepts_the_window_copies_and_writes(name: str, backend: str, tmp_path: Path) -> None:
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


# What LegalizeVecLayouts emitted for window_repack_int16.py before the bit copy: the INT16
# window copied by an INT16 tinsert, which PTOAS refuses on both targets.
INT16_TINSERT = """module {
  func.func @k(%arg0: !pto.ptr<i16>, %arg1: !pto.ptr<i16>) {
    %c16_index = arith.constant 16 : index
    %c32_index = arith.constant 32 : index
    %c1_index = arith.constant 1 : index
    %c2_index = arith.constant 2 : index
    %c8_index = arith.constant 8 : index
    %c0_index = arith.constant 0 : index
    %c3_index = arith.constant 3 : index
    %c5_index = arith.constant 5 : index
    %c0_i64 = arith.constant 0 : i64
    %c1024_i64 = arith.constant 1024 : i64
    %3 = pto.make_tensor_view %arg0, shape = [%c16_index, %c32_index], strides = [%c32_index, %c1_index] {layout = #pto.layout<nd>} : !pto.tensor_view<?x?xi16>
    %4 = pto.make_tensor_view %arg1, shape = [%c2_index, %c8_index], strides = [%c8_index, %c1_index] {layout = #pto.layout<nd>} : !pto.tensor_view<?x?xi16>
    %0 = pto.alloc_tile addr = %c0_i64 : !pto.tile_buf<loc=vec, dtype=i16, rows=16, cols=32, v_row=16, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    %1 = pto.alloc_tile addr = %c1024_i64 : !pto.tile_buf<loc=vec, dtype=i16, rows=2, cols=16, v_row=2, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    %5 = pto.partition_view %3, offsets = [%c0_index, %c0_index], sizes = [%c16_index, %c32_index] : !pto.tensor_view<?x?xi16> -> !pto.partition_tensor_view<16x32xi16>
    pto.tload ins(%5 : !pto.partition_tensor_view<16x32xi16>) outs(%0 : !pto.tile_buf<loc=vec, dtype=i16, rows=16, cols=32, v_row=16, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    %6 = pto.subview %0[%c3_index, %c5_index] sizes [2, 8] : !pto.tile_buf<loc=vec, dtype=i16, rows=16, cols=32, v_row=16, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0> -> !pto.tile_buf<loc=vec, dtype=i16, rows=2, cols=8, v_row=2, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    pto.tinsert ins(%6, %c0_index, %c0_index : !pto.tile_buf<loc=vec, dtype=i16, rows=2, cols=8, v_row=2, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>, index, index) outs(%1 : !pto.tile_buf<loc=vec, dtype=i16, rows=2, cols=16, v_row=2, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    %7 = pto.partition_view %4, offsets = [%c0_index, %c0_index], sizes = [%c2_index, %c8_index] : !pto.tensor_view<?x?xi16> -> !pto.partition_tensor_view<2x8xi16>
    pto.tstore ins(%1 : !pto.tile_buf<loc=vec, dtype=i16, rows=2, cols=16, v_row=2, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>) outs(%7 : !pto.partition_tensor_view<2x8xi16>)
    return
  }
}
"""


@pytest.mark.parametrize("width, refused_on", [("i16", {"Ascend910B", "Ascend950"}), ("i32", {"Ascend910B"}),
                                               ("f16", set())])
def test_target_op_rules_refuses_the_tinsert_ptoas_refuses(width: str, refused_on: set[str]) -> None:
    program = parse_mlir(INT16_TINSERT.replace("i16", width), "k.pto")
    for backend, handler in HANDLERS.items():
        found = target_op_rules.verify(program, handler)
        if backend not in refused_on:
            assert found == [], found
            continue
        assert [d.rule for d in found] == ["TargetOpRules"], found
        assert "pto.tinsert" in found[0].message and "PTOAS's tinsert takes" in found[0].message, found[0].message


@needs_ptoas
@pytest.mark.parametrize("width", ["i16", "i32"])
def test_the_refused_tinserts_are_what_ptoas_refuses(width: str, tmp_path: Path) -> None:
    pto = tmp_path / "k.pto"
    pto.write_text(INT16_TINSERT.replace("i16", width))
    for backend, handler in HANDLERS.items():
        assert PTOAS is not None
        result = subprocess.run([str(PTOAS), f"--pto-arch={ARCH[backend]}", "--pto-level=level3", str(pto), "-o",
                                 str(tmp_path / "k.cpp")], capture_output=True, text=True, timeout=300)
        refused = bool(target_op_rules.verify(parse_mlir(pto.read_text(), str(pto)), handler))
        assert (result.returncode != 0) == refused, (backend, result.stderr)
        if refused:
            assert "vec->vec tinsert src/dst to have same supported dtype" in result.stderr, result.stderr


def test_a_pto_file_with_such_a_tinsert_is_refused_when_loaded(tmp_path: Path) -> None:
    pto = tmp_path / "k.pto"
    pto.write_text(INT16_TINSERT)
    log = io.StringIO()
    with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
        rc = main([str(pto), "--backend", "Ascend910B", "--simulate"])
    assert rc == 1 and "[TargetOpRules] pto.tinsert on Ascend910B" in log.getvalue(), log.getvalue()
    assert "Traceback" not in log.getvalue()


INT64_WINDOW = COPY_OF_A_WINDOW.replace("{T}", "INT64")


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_window_copy_no_tinsert_type_is_wide_enough_for_is_refused_at_the_users_line(backend: str,
                                                                                        tmp_path: Path) -> None:
    kernel = tmp_path / "k.py"
    kernel.write_text(INT64_WINDOW)
    log = io.StringIO()
    with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
        rc = main([str(kernel), "--backend", backend, "--verify-all", "-o", str(tmp_path / "k.pto")])
    text = log.getvalue()
    assert rc == 1 and f"{kernel}:10:" in text and "[LegalizeVecLayouts] not supported yet" in text, text
    assert "64 bits wide" in text and "hint:" in text and "Traceback" not in text, text


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_mutant_that_copies_in_the_windows_own_type_is_caught(backend: str, tmp_path: Path) -> None:
    # The INT16 tinsert the bit copy replaces is VecInsertTypes' finding right after the pass that
    # made it (before it, TargetOpRules' on the PTO program, blaming PTOCodegen).
    from nanopass_pto.mutants import MUTANTS

    kernel = tmp_path / "k.py"
    kernel.write_text((KERNELS / "window_repack_int16.py").read_text())
    log = io.StringIO()
    with {m.name: m for m in MUTANTS}["vec-insert-in-its-own-type"].applied(), \
            contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
        rc = main([str(kernel), "--backend", backend, "--verify-all", "-o", str(tmp_path / "k.pto"),
                   "--reproducer-dir", str(tmp_path / "r")])
    text = log.getvalue()
    assert rc == 2 and "Verification failed after 'LegalizeVecLayouts' for properties {VecInsertTypes}" in text, text
    assert "[VecInsertTypes] `tile.move` is a Vec window copy" in text and "INT16 elements" in text, text
