"""Physical layouts (NUMERICS.md section 5 table) and the machine's byte-level tile access."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

from backend.targets.handlers import get_backend
from backend.numerics import hex_list
from backend.sim.layouts import LayoutError, compact_pitch, element_offsets, layout_name
from backend.sim.machine import Machine, PoisonRead, SimulationError, TileHandle, handle_for
from languages.memory_space import MemorySpace
from languages.types import DataType, MemRef, TileType, TileView
from languages.views import implicit_view

F16, F32, I8 = DataType.FP16, DataType.FP32, DataType.INT8
NZ = TileView("col_major", "row_major", 512)
ZN = TileView("row_major", "col_major", 512)
ZZ = TileView("row_major", "row_major", 512)
NN = TileView("col_major", "col_major", 512)
ND = TileView("row_major", "none_box", 512)
DN = TileView("col_major", "none_box", 512)
ACC = TileView("col_major", "row_major", 1024)
ACC_COMPACT = TileView("col_major", "row_major", 1024, compact=True)


def offset(view: TileView, shape: tuple[int, int], dtype: DataType, r: int, c: int, **kw: object) -> int:
    return int(element_offsets(view, shape, dtype, **kw)[r, c])  # type: ignore[arg-type]


# Hand-computed from the table: sr = r // IR, ir = r % IR, sc = c // IC, ic = c % IC.
@pytest.mark.parametrize(
    ("view", "shape", "dtype", "rc", "expected"),
    [
        # Nz fp16 (IR=16, IC=16), P=32: 1*32*16 + 1*256 + 1*16 + 4
        (NZ, (32, 64), F16, (17, 20), 788),
        # Nz fp32 (IC=8): sc=1, ir=5, ic=1 -> 1*32*8 + 5*8 + 1
        (NZ, (32, 16), F32, (5, 9), 297),
        # Nz int8 (IC=32): sc=1, sr=1, ir=2, ic=3 -> 1*32*32 + 1*512 + 2*32 + 3
        (NZ, (32, 64), I8, (18, 35), 1603),
        # Zn fp16 (IR=16, IC=16): sr*Cols*IR + sc*256 + ic*IR + ir = 512 + 256 + 65
        (ZN, (32, 32), F16, (17, 20), 833),
        # Zn fp32 (IR=8, IC=16): sr=1, ir=1, sc=1, ic=2 -> 1*32*8 + 128 + 2*8 + 1
        (ZN, (16, 32), F32, (9, 18), 401),
        # Zz fp16: sr*Cols*IR + sc*256 + ir*IC + ic = 1*64*16 + 256 + 16 + 4
        (ZZ, (32, 64), F16, (17, 20), 1300),
        # Nn fp16, P=48: sc*P*IC + sr*256 + ic*IR + ir = 768 + 256 + 65
        (NN, (48, 32), F16, (17, 20), 1089),
        # ND: r*Cols + c
        (ND, (4, 8), F32, (2, 3), 19),
        # DN: c*Rows + r
        (DN, (8, 4), F32, (2, 3), 26),
        # Acc fractal 1024: 16x16 boxes for FP32 too: 1*32*16 + 256 + 16 + 4
        (ACC, (32, 32), F32, (17, 20), 788),
    ],
)
def test_offsets_match_the_table(view: TileView, shape: tuple[int, int], dtype: DataType,
                                 rc: tuple[int, int], expected: int) -> None:
    assert offset(view, shape, dtype, *rc) == expected


def test_layout_names() -> None:
    assert [layout_name(v) for v in (NZ, ZN, ZZ, NN, ND, DN)] == ["Nz", "Zn", "Zz", "Nn", "ND", "DN"]


def test_compact_acc_pitch_uses_valid_rows() -> None:
    # P = ceil(validRow/16)*16 = 16 instead of Rows = 32: column box 1 starts at 16*16.
    assert offset(ACC_COMPACT, (32, 32), F32, 5, 20, valid_shape=(10, 32)) == 1 * 16 * 16 + 5 * 16 + 4
    assert offset(ACC, (32, 32), F32, 5, 20, valid_shape=(10, 32)) == 1 * 32 * 16 + 5 * 16 + 4
    assert compact_pitch(ACC_COMPACT, F32, (17, 32)) == 32
    # A compact Zz (Left from a partial extract) packs its rows of boxes by the valid columns.
    zz_compact = TileView("row_major", "row_major", 512, compact=True)
    assert offset(zz_compact, (32, 64), F16, 17, 5, valid_shape=(32, 20)) == 1 * 32 * 16 + 1 * 16 + 5


@pytest.mark.parametrize("view", [NZ, ZN, ZZ, NN, ND, DN, ACC])
@pytest.mark.parametrize("dtype", [F16, F32, I8])
def test_every_layout_is_a_permutation(view: TileView, dtype: DataType) -> None:
    shape = (64, 64)
    flat = np.sort(element_offsets(view, shape, dtype).reshape(-1))
    assert np.array_equal(flat, np.arange(64 * 64))


@given(st.sampled_from([NZ, ZN, ZZ, NN, ACC]), st.integers(1, 4), st.integers(1, 4))
def test_boxed_permutation_any_box_grid(view: TileView, box_rows: int, box_cols: int) -> None:
    shape = (box_rows * 16, box_cols * 16)  # fp16 boxes are 16 x 16 in every boxed layout
    flat = np.sort(element_offsets(view, shape, F16).reshape(-1))
    assert np.array_equal(flat, np.arange(shape[0] * shape[1]))


def test_partial_box_is_rejected() -> None:
    with pytest.raises(LayoutError, match="rows 100 are not a multiple of the box rows 16"):
        element_offsets(NZ, (100, 32), F16)


# -- machine ---------------------------------------------------------------------------------------

HANDLER = get_backend("Ascend910B")


def tile(space: MemorySpace, shape: tuple[int, int], dtype: DataType, addr: int, view: TileView | None = None,
         valid: tuple[int, int] | None = None) -> TileType:
    view = view if view is not None else implicit_view(space, shape)
    nbytes = shape[0] * shape[1] * dtype.byte_width
    return TileType(shape, dtype, valid, space, view, MemRef(f"m{addr}", space, addr, nbytes))


def test_write_then_read_roundtrip_through_nz() -> None:
    machine = Machine(HANDLER)
    handle = handle_for("a", tile(MemorySpace.Mat, (32, 32), F16, 256))
    values = np.arange(32 * 32, dtype=np.float16).reshape(32, 32)
    machine.write_tile(handle, values, "test")
    assert np.array_equal(machine.read_tile(handle, "test"), values)
    raw = machine.memory[MemorySpace.Mat][256:256 + 2048].view(np.float16)
    # NZ: the first 16x16 box holds rows 0..15 of columns 0..15, row-major.
    assert np.array_equal(raw[:256].reshape(16, 16), values[:16, :16])
    assert np.array_equal(raw[256:512].reshape(16, 16), values[16:32, :16])


def test_poison_and_checked_reads() -> None:
    machine = Machine(HANDLER)
    handle = handle_for("v", tile(MemorySpace.Vec, (4, 8), F32, 0))
    machine.write_tile(handle, np.ones((2, 8), dtype=np.float32), "test")
    with pytest.raises(PoisonRead) as info:
        machine.read_tile(handle, "pto.tadd")
    assert (info.value.instruction, info.value.tile, info.value.element) == ("pto.tadd", "v", (2, 0))
    unchecked = Machine(HANDLER, checked=False)
    values = unchecked.read_tile(handle_for("v", tile(MemorySpace.Vec, (1, 2), F16, 0)), "test")
    assert hex_list(values, "FP16") == ["0xffff", "0xffff"]


def test_out_of_range_address_names_everything() -> None:
    machine = Machine(HANDLER)
    handle = handle_for("big", tile(MemorySpace.Vec, (64, 64), F32, 188416 - 1024))
    with pytest.raises(SimulationError) as info:
        machine.write_tile(handle, np.zeros((64, 64), dtype=np.float32), "pto.tload")
    text = str(info.value)
    for word in ("big", "Vec", "addr 187392", "16384 bytes", "188416"):
        assert word in text


def test_overlapping_tiles_alias() -> None:
    machine = Machine(HANDLER)
    a = handle_for("a", tile(MemorySpace.Vec, (2, 4), F32, 0))
    b = handle_for("b", tile(MemorySpace.Vec, (2, 4), F32, 16))  # starts at a's row 1
    machine.write_tile(a, np.zeros((2, 4), dtype=np.float32), "test")
    machine.write_tile(b, np.full((2, 4), 7.0, dtype=np.float32), "test")
    assert machine.read_tile(a, "test").tolist() == [[0.0] * 4, [7.0] * 4]


def _narrow_acc(compact: bool) -> TileHandle:
    view = ACC_COMPACT if compact else ACC
    return handle_for("c", tile(MemorySpace.Acc, (64, 32), F32, 0, view, valid=(16, 32)))


def test_wrong_pitch_reads_different_data() -> None:
    """MAD writes a 16-row product at pitch 16; only a compact reader walks L0C at that pitch."""
    product = np.arange(16 * 32, dtype=np.float32).reshape(16, 32)
    compact = Machine(HANDLER)
    compact.write_tile(_narrow_acc(True), product, "pto.tmatmul", pitch=16)
    assert np.array_equal(compact.read_tile(_narrow_acc(True), "pto.tstore"), product)

    stale = Machine(HANDLER, checked=False)
    stale.write_tile(_narrow_acc(False), product, "pto.tmatmul", pitch=16)
    wrong = stale.read_tile(_narrow_acc(False), "pto.tstore")
    assert np.array_equal(wrong[:, :16], product[:, :16])  # the first N-fractal survives
    assert not np.array_equal(wrong[:, 16:].view(np.uint32), product[:, 16:].view(np.uint32))

    checked = Machine(HANDLER)
    checked.write_tile(_narrow_acc(False), product, "pto.tmatmul", pitch=16)
    with pytest.raises(PoisonRead, match=r"c\[0, 16\]"):
        checked.read_tile(_narrow_acc(False), "pto.tstore")
