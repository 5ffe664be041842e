"""Unboxed (none_box) tiles are allocated with 32-byte rows (columns, column-major), as PTOAS and
pto-isa want, while their logical and valid shapes stay what the program says; and a kernel
written at TilePlaced that stores into an `In` parameter keeps its write (UpgradeParamDirections
runs there too).

languages.layout states the padding once; memory planning sizes buffers by it, PTOCodegen
declares it in each alloc_tile, the simulator walks the buffer at that pitch, and the
UnboxedRowsAligned / HasMemRefs verifiers check it. The padding is poisoned and never valid
data, so a kernel whose rows are padded simulates bit for bit like the interpreter.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from backend.arrays import random_inputs
from languages.gen import pto as P
from languages.layout import is_row_major_linear, padded_2d, reshape_is_reinterpretation
from languages.memory_space import MemorySpace
from languages.pl_parser import load_program
from languages.types import DataType, MemRef, TileType, TileView
from nanopass.pipeline import main
from nanopass_pto.run import compare, compile_program, reference, run
from verifiers import unboxed_rows_aligned, written_params_declared

ROOT = Path(__file__).resolve().parent.parent
ND, DN = TileView(), TileView(blayout="col_major")
NZ = TileView("col_major", "row_major", 512)
F32, F16, I8 = DataType.FP32, DataType.FP16, DataType.INT8


@pytest.mark.parametrize("shape, dtype, view, space, padded", [
    ((7, 13), F32, ND, MemorySpace.Vec, (7, 16)),       # 52-byte rows -> 64
    ((7, 1), F32, DN, MemorySpace.Vec, (8, 1)),         # a column vector: its 28-byte column -> 32
    ((1, 1), F32, ND, MemorySpace.Vec, (1, 8)),
    ((16, 16), F16, ND, MemorySpace.Vec, (16, 16)),     # 32-byte rows: unchanged
    ((4, 40), I8, ND, MemorySpace.Vec, (4, 64)),
    ((16, 13), F16, NZ, MemorySpace.Mat, (16, 13)),     # boxed: the shape itself is boxed (BoxedExtents)
    ((13,), F32, ND, MemorySpace.Vec, (1, 16)),         # a 1-D tile is one row
])
def test_padded_extent(shape: tuple[int, ...], dtype: DataType, view: TileView, space: MemorySpace,
                       padded: tuple[int, int]) -> None:
    assert padded_2d(TileType(shape, dtype, memory_space=space, view=view)) == padded


def test_a_reshape_is_a_reinterpretation_only_where_padding_keeps_the_order() -> None:
    # [2, 16] f32 rows are 64 bytes: no padding, the flat row reads the same bytes.
    assert reshape_is_reinterpretation(TileType((2, 16), F32, view=ND), TileType((1, 32), F32, view=ND))
    # [7, 13] f32 rows are padded to 16: element (1, 0) sits at offset 16, not 13.
    assert not is_row_major_linear(ND, (7, 13), F32)
    assert not reshape_is_reinterpretation(TileType((7, 13), F32, view=ND), TileType((1, 91), F32, view=ND))
    # A column vector and its row hold the same contiguous bytes, padded alike.
    assert reshape_is_reinterpretation(TileType((7, 1), F32, view=DN), TileType((1, 7), F32, view=ND))


def _allocs(program: P.Program) -> list[P.AssignStmt]:
    return [s for f in program.functions for s in f.body
            if isinstance(s, P.AssignStmt) and isinstance(s.value, P.Call) and s.value.op == "pto.alloc_tile"]


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_odd_shape_kernel_is_allocated_padded_and_simulates_bit_exact(backend: str) -> None:
    source = load_program(str(ROOT / "tests" / "kernels" / "vector" / "odd_shape_7x13.py"))
    compiled = compile_program(source, backend=backend, verify_all=True)
    assert isinstance(compiled.final, P.Program)
    declared = {(s.target.type.shape, s.target.type.valid) for s in _allocs(compiled.final)
                if isinstance(s.target.type, TileType)}
    assert ((7, 16), (7, 13)) in declared and ((8, 1), (7, 1)) in declared
    assert unboxed_rows_aligned.verify(compiled.final) == []
    inputs = random_inputs(source, 0)
    reports = compare(reference(source, inputs), run(compiled, inputs))
    assert reports and all(r.ok for r in reports), [r.line for r in reports]


def test_unboxed_rows_aligned_catches_an_unpadded_allocation_and_a_short_buffer() -> None:
    source = load_program(str(ROOT / "tests" / "kernels" / "vector" / "odd_shape_7x13.py"))
    final = compile_program(source, backend="Ascend910B").final
    assert isinstance(final, P.Program)
    alloc = next(s for s in _allocs(final) if isinstance(s.target.type, TileType) and s.target.type.shape == (7, 16))
    tile = alloc.target.type
    assert isinstance(tile, TileType) and tile.memref is not None
    for wrong, expected in (
            (replace(tile, shape=(7, 13), valid_shape=None), "52 bytes, not a multiple of 32"),
            (replace(tile, memref=replace(tile.memref, size=7 * 13 * 4)), "without the row padding")):
        broken = replace(alloc, target=replace(alloc.target, type=wrong))
        function = replace(final.functions[0], body=tuple(broken if s is alloc else s for s in final.functions[0].body))
        problems = unboxed_rows_aligned.verify(replace(final, functions=(function,)))
        assert len(problems) == 1 and expected in problems[0].message, problems


_STORE_INTO_IN_PARAM = '''import pypto.language as pl


@pl.program
class StoreIntoIn:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[16, 16], pl.FP32], output: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.MemorySpace.Vec] = pl.load(a, [0, 0], [16, 16], target_memory=pl.MemorySpace.Vec)
        u: pl.Tile[[16, 16], pl.FP32, pl.MemorySpace.Vec] = pl.add(t, t)
        return pl.store(u, [0, 0], output)
'''


def test_a_placed_kernel_storing_into_an_in_parameter_keeps_its_write(tmp_path: Path) -> None:
    path = tmp_path / "store_into_in.py"
    path.write_text(_STORE_INTO_IN_PARAM)
    source = load_program(str(path))
    # As written, the kernel writes a parameter it declares In: the property does not hold yet.
    problems = written_params_declared.verify(source)
    assert len(problems) == 1 and "writes `output`" in problems[0].message
    compiled = compile_program(source, backend="Ascend910B", verify_all=True)
    kernel = getattr(compiled.host, "functions", (None,))[0]
    assert kernel is not None and [p.direction for p in getattr(kernel, "params")] == ["In", "Out"]
    inputs = random_inputs(source, 0)
    expected, got = reference(source, inputs), run(compiled, inputs)
    assert set(expected) == {"ret0", "output"}
    reports = compare(expected, got)
    assert all(r.ok for r in reports), [r.line for r in reports]


def test_odd_shape_kernel_passes_every_verifier_from_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(ROOT / "tests" / "kernels" / "vector" / "odd_shape_7x13.py"), "--verify-all", "--simulate"]) == 0
    assert "MISMATCH" not in capsys.readouterr().out
