"""Checks added after red-teaming the fuzzer with mutants outside its catalogue: the cube layout
verifier, the L0C footprint verifier, the PTO text round trip of the oracle, and the generator
corners (rank-1 / rank-3 tensors, user split-K loops, a parameter read after it is written)."""

from __future__ import annotations

from dataclasses import replace

import languages.gen.tile_placed as P
from nanopass_pto.fuzz_target import PtoFuzzTarget
from backend.targets.handlers import get_backend
from languages.memory_space import MemorySpace
from languages.types import DataType, MemRef, TileType, TileView
from languages.views import extract_view, implicit_view, move_view
from verifiers.acc_l0c_footprint import verify as verify_footprint
from verifiers.cube_tile_layouts import format_problem
from verifiers.cube_tile_layouts import verify as verify_layouts

F16, F32, I32 = DataType.FP16, DataType.FP32, DataType.INT32


def _tile(shape: tuple[int, int], dtype: DataType, space: MemorySpace, view: TileView,
          memref: MemRef | None = None) -> TileType:
    return TileType(shape, dtype, None, space, view, memref)


def test_every_view_the_compiler_derives_is_a_hardware_format() -> None:
    for shape in ((16, 16), (32, 1), (1, 32), (48, 64)):
        for space in (MemorySpace.Mat, MemorySpace.Left, MemorySpace.Acc):
            assert format_problem(_tile(shape, F32 if space is MemorySpace.Acc else F16, space,
                                        implicit_view(space, shape))) is None
        for space in (MemorySpace.Left, MemorySpace.Right):
            assert format_problem(_tile(shape, F16, space, extract_view(space, shape))) is None
            mat = _tile(shape, F16, MemorySpace.Mat, implicit_view(MemorySpace.Mat, shape))
            assert format_problem(_tile(shape, F16, space, move_view(mat, space))) is None


def test_a_row_major_mat_tile_or_a_col_major_right_tile_is_reported() -> None:
    mat = _tile((32, 32), F16, MemorySpace.Mat, TileView("row_major", "row_major", 512))
    right = _tile((32, 1), F16, MemorySpace.Right, TileView("col_major", "col_major", 512))
    for tile in (mat, right):
        found = verify_layouts(P.Var("x", tile))
        assert [d.rule for d in found] == ["CubeTileLayouts"]
        assert tile.memory_space is not None and tile.memory_space.name in found[0].message


def test_an_int32_accumulator_buffer_must_cover_its_32_row_l0c_footprint() -> None:
    handler = get_backend("Ascend910B")
    view = implicit_view(MemorySpace.Acc, (16, 32))
    logical = MemRef("mem_acc_0", MemorySpace.Acc, 0, 16 * 32 * 4)
    footprint = MemRef("mem_acc_0", MemorySpace.Acc, 0, 32 * 32 * 4)
    under = P.Var("c", _tile((16, 32), I32, MemorySpace.Acc, view, logical))
    covered = P.Var("c", _tile((16, 32), I32, MemorySpace.Acc, view, footprint))
    assert [d.rule for d in verify_footprint(under, handler)] == ["AccL0CFootprint"]
    assert verify_footprint(covered, handler) == []
    assert verify_footprint(under, None) == []  # no target, no rule to check against


K_LOOP_AND_RANK3 = """\
import pypto.language as pl


@pl.program
class RedTeam:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[20, 64], pl.FP16], b: pl.Tensor[[64, 32], pl.FP16]) -> pl.Tensor[[20, 32], pl.FP32]:
        z: pl.Tensor[[20, 32], pl.FP32] = pl.tensor.full([20, 32], value=pl.const(0.0, pl.FP32), dtype=pl.FP32)
        for k, (acc,) in pl.range(0, 64, 32, init_values=(z,)):
            ak: pl.Tensor[[20, 32], pl.FP16] = pl.tensor.slice(a, [20, 32], [0, k])
            bk: pl.Tensor[[32, 32], pl.FP16] = pl.tensor.slice(b, [32, 32], [k, 0])
            c: pl.Tensor[[20, 32], pl.FP32] = pl.tensor.matmul_acc(acc, ak, bk)
            out = pl.yield_(c)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def vec(self, x: pl.Tensor[[3, 5, 16], pl.FP32], big: pl.Tensor[[8, 24], pl.FP32],
            y: pl.Tensor[[5, 16], pl.FP32]) -> pl.Tensor[[8, 24], pl.FP32]:
        r: pl.Tensor[[3, 5, 1], pl.FP32] = pl.tensor.row_sum(x)
        e: pl.Tensor[[5, 16], pl.FP32] = pl.tensor.exp(y)
        w: pl.Tensor[[8, 24], pl.FP32] = pl.tensor.assemble(big, e, [2, 4])
        t: pl.Tensor[[8, 24], pl.FP32] = pl.tensor.muls(big, pl.const(2.0, pl.FP32))
        return t

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[20, 64], pl.FP16], b: pl.Tensor[[64, 32], pl.FP16], x: pl.Tensor[[3, 5, 16], pl.FP32],
             big: pl.Tensor[[8, 24], pl.FP32], y: pl.Tensor[[5, 16], pl.FP32]) -> tuple[pl.Tensor[[20, 32], pl.FP32], pl.Tensor[[8, 24], pl.FP32]]:
        c = self.mm(a, b)
        t = self.vec(x, big, y)
        return c, t
"""


def test_the_oracle_passes_a_user_k_loop_and_a_parameter_read_after_its_write() -> None:
    target = PtoFuzzTarget()
    target.configure(None, None, None)
    outcome = target.check_text(K_LOOP_AND_RANK3, seed=3)
    assert not outcome.failed, outcome.headline() + "\n" + outcome.detail


def test_an_asymmetric_pto_printer_is_caught_by_the_text_round_trip(monkeypatch: object) -> None:
    import pytest

    import backend.pto_text.printer as pto_mlir

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    original = pto_mlir.tile_buf_type

    def swapped(tile: TileType) -> str:
        if tile.memory_space is MemorySpace.Right and tile.view is not None:
            tile = replace(tile, view=replace(tile.view, blayout=tile.view.slayout, slayout=tile.view.blayout))
        return original(tile)

    monkeypatch.setattr(pto_mlir, "tile_buf_type", swapped)
    target = PtoFuzzTarget()
    target.configure(None, None, None)
    outcome = target.check_text(K_LOOP_AND_RANK3, seed=3)
    assert outcome.check == "PTO text round trip", outcome.headline()
