"""The simulator's whole-tile access paths against its element-by-element ones.

Tile windows whose element offsets are affine per axis (2-D, or per box coordinate) are read
and written as strided blocks (the compiled block moves of backend/_mad.c, or NumPy strided
views of the space's bytes and written flags without them); GM windows of
1-D / 2-D tensors through views of the tensor. Everything else gathers through a byte index.
These tests run the same accesses both ways (the view path switched off by making
`strided_plan` / `GmTensor.block` decline) and compare bytes, written flags, values read, and
the poison-read reports."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backend import numerics
from backend.sim import machine as machine_module
from backend.sim.machine import GmTensor, Machine, PoisonRead, TileHandle, handle_for, strided_plan
from backend.targets.handlers import get_backend
from languages.memory_space import MemorySpace
from languages.types import DataType, MemRef, TileType, TileView
from nanopass.node import NO_SPAN

VIEWS = {
    "Nz": TileView("col_major", "row_major", 512),
    "Zn": TileView("row_major", "col_major", 512),
    "Zz": TileView("row_major", "row_major", 512),
    "Nn": TileView("col_major", "col_major", 512),
    "ND": TileView("row_major", "none_box", 512),
    "DN": TileView("col_major", "none_box", 512),
    "Acc": TileView("col_major", "row_major", 1024),
}
DTYPES = (DataType.FP32, DataType.FP16, DataType.INT8)


def _tile(layout: str, dtype: DataType, shape: tuple[int, int], address: int, valid: tuple[int, int]) -> TileType:
    space = MemorySpace.Vec if layout in ("ND", "DN") else MemorySpace.Mat
    nbytes = shape[0] * shape[1] * dtype.byte_width
    return TileType(shape, dtype, valid, space, VIEWS[layout], MemRef("t", space, address, nbytes))


def _no_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """NumPy strided views instead of the compiled block moves."""
    monkeypatch.setattr(machine_module, "_BLOCKS", None)


def _no_views(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(machine_module, "_PLANS", {})
    monkeypatch.setattr(machine_module, "strided_plan", lambda offsets, box: None)
    monkeypatch.setattr(GmTensor, "block", lambda self, start, region: None)


def _run_accesses(tile: TileHandle, writes: list[tuple[tuple[int, int], tuple[int, int]]],
                  read: tuple[tuple[int, int], tuple[int, int]], pitch: int | None, seed: int) -> tuple[Any, ...]:
    machine = Machine(get_backend("Ascend910B"))
    rng = np.random.default_rng(seed)
    dtype = numerics.np_dtype(tile.dtype.name)
    for origin, region in writes:
        values = rng.integers(0, 100, region).astype(dtype)
        machine.write_tile(tile, values, "test.write", origin=origin, pitch=pitch)
    origin, region = read
    try:
        outcome: object = machine.read_tile(tile, "test.read", region=region, origin=origin, pitch=pitch)
    except PoisonRead as err:
        outcome = (err.element, err.tile, err.message)
    space = tile.space
    return machine.memory[space].copy(), machine.written[space].copy(), outcome


def _same(fast: tuple[Any, ...], slow: tuple[Any, ...]) -> None:
    assert np.array_equal(fast[0], slow[0]) and np.array_equal(fast[1], slow[1])
    if isinstance(slow[2], np.ndarray):
        assert isinstance(fast[2], np.ndarray) and fast[2].dtype == slow[2].dtype
        assert np.array_equal(fast[2].view(np.uint8), slow[2].view(np.uint8))
        assert not np.shares_memory(fast[2], fast[0])
    else:
        assert fast[2] == slow[2]


@st.composite
def _cases(draw: st.DrawFn) -> tuple[TileHandle, list[tuple[tuple[int, int], tuple[int, int]]],
                                     tuple[tuple[int, int], tuple[int, int]], int | None]:
    layout = draw(st.sampled_from(sorted(VIEWS)))
    dtype = DataType.FP32 if layout == "Acc" else draw(st.sampled_from(DTYPES))
    box_rows = 16 if layout not in ("ND", "DN") else 1
    box_cols = {1: 32, 2: 16, 4: 8}[dtype.byte_width] if layout not in ("ND", "DN", "Acc") else (16 if layout == "Acc" else 1)
    if layout in ("Zn", "Nn"):
        box_rows, box_cols = box_cols, 16
    rows = box_rows * draw(st.integers(1, 4))
    cols = box_cols * draw(st.integers(1, 4)) if box_cols > 1 else draw(st.integers(1, 48))
    if box_rows == 1:
        rows = draw(st.integers(1, 40))
    valid = (draw(st.integers(1, rows)), draw(st.integers(1, cols)))
    storage = _tile(layout, dtype, (rows, cols), 512 * draw(st.integers(0, 3)), valid)
    tile = handle_for("t", storage)

    def window() -> tuple[tuple[int, int], tuple[int, int]]:
        aligned = draw(st.booleans())
        if aligned:
            return (0, 0), (rows, cols)
        h, w = draw(st.integers(1, rows)), draw(st.integers(1, cols))
        return (draw(st.integers(0, rows - h)), draw(st.integers(0, cols - w))), (h, w)

    writes = [window() for _ in range(draw(st.integers(0, 3)))]
    pitch = None
    if layout in ("Nz", "Acc") and draw(st.booleans()):
        pitch = draw(st.sampled_from([p for p in range(16, rows + 1, 16)]))
        writes = [((0, 0), (min(pitch, rows), cols))]
        return tile, writes, ((0, 0), (min(pitch, rows), cols)), pitch
    return tile, writes, window(), pitch


@settings(max_examples=150, deadline=None)
@given(_cases(), st.integers(0, 2**32 - 1))
def test_strided_tile_access_equals_the_byte_gather(case: tuple[Any, ...], seed: int) -> None:
    tile, writes, read, pitch = case
    fast = _run_accesses(tile, writes, read, pitch, seed)
    with pytest.MonkeyPatch.context() as patch:
        _no_blocks(patch)
        views = _run_accesses(tile, writes, read, pitch, seed)
    with pytest.MonkeyPatch.context() as patch:
        _no_views(patch)
        slow = _run_accesses(tile, writes, read, pitch, seed)
    _same(fast, slow)
    _same(views, slow)


def test_strided_plan_declines_non_affine_windows() -> None:
    offsets = np.array([[0, 1, 2], [3, 4, 6]], dtype=np.int64)
    assert strided_plan(offsets, (1, 1)) is None
    nz = np.add.outer(np.arange(4) * 8, np.arange(8)).reshape(4, 8)  # plain row-major
    assert strided_plan(nz, (1, 1)) == (0, (4, 8), (8, 1))


@pytest.mark.parametrize("layout", ["nd", "dn"])
@pytest.mark.parametrize("checked", [True, False])
def test_gm_block_access_equals_the_element_path(layout: str, checked: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    def run() -> tuple[Any, ...]:
        machine = Machine(get_backend("Ascend910B"), checked=checked)
        values = np.arange(6 * 10, dtype=np.float32).reshape(6, 10)
        src = machine.bind_tensor("x", (6, 10), DataType.FP32, values)
        out = machine.bind_tensor("y", (6, 10), DataType.FP32)
        src.set_layout(layout)
        out.set_layout(layout)
        from backend.sim.executor import Executor, PartitionValue, _Instr
        executor = Executor(machine)
        instr = _Instr("pto.test", NO_SPAN)
        window = executor.read_window(PartitionValue(src, (1, 2), (4, 5)), (3, 4), instr)
        executor.write_window(PartitionValue(out, (2, 3), (3, 4)), (3, 4), window + 1, instr)
        try:
            poisoned: object = executor.read_window(PartitionValue(out, (1, 3), (3, 4)), (3, 4), instr)
        except PoisonRead as err:
            poisoned = (err.element, err.message)
        return window, out.data.copy(), out.written.copy(), poisoned, out.values()

    fast = run()
    _no_views(monkeypatch)
    slow = run()
    for a, b in zip(fast, slow):
        if isinstance(a, np.ndarray):
            assert np.array_equal(a.view(np.uint8), np.asarray(b).view(np.uint8))
        else:
            assert a == b


@settings(max_examples=60, deadline=None)
@given(_cases(), _cases(), st.integers(0, 2**32 - 1))
def test_block_move_equals_read_then_write(source: tuple[Any, ...], target: tuple[Any, ...], seed: int) -> None:
    src, _, _, _ = source
    dst, _, _, _ = target
    if src.dtype is not dst.dtype:
        return
    region = (min(src.storage.shape[0], dst.storage.shape[0]), min(src.storage.shape[1], dst.storage.shape[1]))
    dst = machine_module.with_valid(dst, region)
    # Different spaces or far-apart addresses: the moves must not overlap for the block path.
    dst_storage = TileType(dst.storage.shape, dst.storage.dtype, dst.storage.valid_shape, MemorySpace.Left,
                           dst.storage.view, MemRef("d", MemorySpace.Left, 0, dst.storage.nbytes))
    dst = dataclasses.replace(dst, storage=dst_storage)

    def run(direct: bool) -> tuple[Any, ...]:
        machine = Machine(get_backend("Ascend910B"))
        rng = np.random.default_rng(seed)
        values = rng.integers(0, 100, src.storage.shape).astype(numerics.np_dtype(src.dtype.name))
        machine.write_tile(machine_module.with_valid(src, src.storage.shape), values, "test.write")
        if direct and not machine.move_block(src, region, dst, "test.move"):
            # Declined only without the compiled block moves, or where a window is not a
            # strided view (neither a block form nor, for the strided move, a NumPy view).
            accesses = (machine._tile_access(src, region, "t", NO_SPAN, None, (0, 0)),
                        machine._tile_access(dst, region, "t", NO_SPAN, None, (0, 0)))
            assert machine_module._BLOCKS is None or any(a.values is None for a in accesses)
            machine.write_tile(dst, machine.read_tile(src, "test.read", region=region), "test.write")
        elif not direct:
            machine.write_tile(dst, machine.read_tile(src, "test.read", region=region), "test.write")
        return machine.memory[MemorySpace.Left].copy(), machine.written[MemorySpace.Left].copy()

    direct, reference = run(True), run(False)
    assert np.array_equal(direct[0], reference[0]) and np.array_equal(direct[1], reference[1])


def _mat_to_left(machine: Machine) -> tuple[TileHandle, TileHandle]:
    """A fully written Mat FP32 [16, 16] accumulator-view source (valid [1, 1] on its handle)
    and a Left [16, 64] destination: both windows have a block form."""
    src = handle_for("s", TileType((16, 16), DataType.FP32, (1, 1), MemorySpace.Mat, VIEWS["Acc"],
                                   MemRef("s", MemorySpace.Mat, 0, 1024)))
    dst = machine_module.with_valid(handle_for("d", TileType(
        (16, 64), DataType.FP32, (5, 9), MemorySpace.Left, VIEWS["Acc"], MemRef("d", MemorySpace.Left, 0, 4096))),
        (16, 16))
    values = np.arange(256, dtype=np.float32).reshape(16, 16)
    machine.write_tile(machine_module.with_valid(src, (16, 16)), values, "test.write")
    return src, dst


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "numpy"])
def test_block_move_takes_the_block_path_exactly_when_compiled(compiled: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The case CI once failed: with backend._mad missing (a fresh install whose setup.py did
    not build it), move_block declines every move, which the property test above took for a
    simulator bug. The decline must come from the missing extension alone, and the caller's
    read-then-write must land the same bytes and flags."""
    if not compiled:
        _no_blocks(monkeypatch)
    elif machine_module._BLOCKS is None:
        pytest.skip("backend._mad is not built here (tests/test_matmul_fast.py fails on that in CI)")
    moved, reference = Machine(get_backend("Ascend910B")), Machine(get_backend("Ascend910B"))
    src, dst = _mat_to_left(moved)
    assert moved.move_block(src, (16, 16), dst, "test.move") is compiled
    if not compiled:
        moved.write_tile(dst, moved.read_tile(src, "test.read", region=(16, 16)), "test.write")
    r_src, r_dst = _mat_to_left(reference)
    reference.write_tile(r_dst, reference.read_tile(r_src, "test.read", region=(16, 16)), "test.write")
    for space in (MemorySpace.Mat, MemorySpace.Left):
        assert np.array_equal(moved.memory[space], reference.memory[space])
        assert np.array_equal(moved.written[space], reference.written[space])


def test_block_move_declines_a_poisoned_source_and_overlap() -> None:
    machine = Machine(get_backend("Ascend910B"))
    a = handle_for("a", _tile("ND", DataType.FP32, (4, 8), 0, (4, 8)))
    b = handle_for("b", _tile("ND", DataType.FP32, (4, 8), 64, (4, 8)))
    assert not machine.move_block(a, (4, 8), b, "test.move")  # never written: the caller reports it
    machine.write_tile(a, np.ones((4, 8), np.float32), "test.write")
    assert not machine.move_block(a, (4, 8), b, "test.move")  # bytes 64..128 overlap a's


# -- the known-written ranges (whole-tile bookkeeping of the written flags) ------------------------


@given(st.lists(st.tuples(st.booleans(), st.integers(0, 200), st.integers(0, 60)), max_size=40))
def test_known_written_ranges_cover_exactly_the_union_of_what_was_added(steps: list[tuple[bool, int, int]]) -> None:
    known = machine_module.KnownWritten()
    model: set[int] = set()
    for add, start, length in steps:
        if add:
            known.add(start, start + length)
            model.update(range(start, start + length))
        else:  # callers ask about non-empty blocks only
            end = start + length + 1
            assert known.covers(start, end) == all(b in model for b in range(start, end))
        assert known.starts == sorted(known.starts) and all(s < e for s, e in zip(known.starts, known.ends))
        assert all(e < s for e, s in zip(known.ends, known.starts[1:]))  # disjoint, not adjacent
    assert {b for s, e in zip(known.starts, known.ends) for b in range(s, e)} == model


def _no_ranges(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(machine_module, "_TRACK_RANGES", False)


@settings(max_examples=80, deadline=None)
@given(_cases(), st.lists(st.tuples(st.booleans(), st.integers(0, 2**16)), min_size=1, max_size=8),
       st.integers(0, 2**32 - 1))
def test_known_ranges_change_no_byte_flag_or_poison_report(case: tuple[Any, ...], steps: list[tuple[bool, int]],
                                                           seed: int) -> None:
    """Writes and reads of random windows, in any order, with the ranges kept and without: the
    same bytes, flags, values and poison reports (the ranges only skip checks and marks)."""
    tile, _, _, pitch = case
    rows, cols = tile.storage.shape

    def windows(k: int) -> tuple[tuple[int, int], tuple[int, int]]:
        if pitch is not None or k % 3 == 0:
            return (0, 0), (min(pitch or rows, rows), cols)
        h, w = 1 + k % rows, 1 + (k // rows) % cols
        return ((k // 7) % (rows - h + 1), (k // 11) % (cols - w + 1)), (h, w)

    def run() -> list[Any]:
        machine = Machine(get_backend("Ascend910B"))
        rng = np.random.default_rng(seed)
        dtype = numerics.np_dtype(tile.dtype.name)
        seen: list[Any] = []
        for write, k in steps:
            origin, region = windows(k)
            if write:
                machine.write_tile(tile, rng.integers(0, 100, region).astype(dtype), "test.write", origin=origin,
                                   pitch=pitch)
                continue
            try:
                seen.append(machine.read_tile(tile, "test.read", region=region, origin=origin, pitch=pitch).tobytes())
            except PoisonRead as err:
                seen.append((err.element, err.message))
        return [*seen, machine.memory[tile.space].tobytes(), machine.written[tile.space].tobytes()]

    kept = run()
    with pytest.MonkeyPatch.context() as patch:
        _no_ranges(patch)
        assert run() == kept


@pytest.mark.parametrize("write", ["block", "element", "layout"])
def test_a_bound_input_is_shared_until_written_and_then_copied(write: str) -> None:
    """GM binds an input array without copying it; the first write (a block store, an element
    store, a layout change) copies it first, so the caller's array never changes."""
    machine = Machine(get_backend("Ascend910B"))
    given = np.arange(24, dtype=np.float32).reshape(4, 6)
    before = given.copy()
    tensor = machine.bind_tensor("x", (4, 6), DataType.FP32, given)
    assert tensor.shared and np.shares_memory(tensor.data, given) and not tensor.data.flags.writeable
    assert machine.read_gm_block(tensor, (1, 2), (2, 3), "test.read") is not None
    assert _shared(tensor)  # reads keep sharing
    if write == "block":
        assert machine.write_gm_block(tensor, (1, 2), np.full((2, 3), -1, np.float32))
    elif write == "element":
        machine.write_gm(tensor, (np.array([0]), np.array([0])), np.array([-1], np.float32), "test.write")
    else:
        tensor.set_layout("dn")
    assert not _shared(tensor) and not np.shares_memory(tensor.data, given)
    assert np.array_equal(given, before)
    expected = before.copy()
    if write == "block":
        expected[1:3, 2:5] = -1
    elif write == "element":
        expected[0, 0] = -1
    assert np.array_equal(tensor.values(), expected)


def _shared(tensor: GmTensor) -> bool:
    return tensor.shared


def _assert_moved_as_read_then_write(src: Any, dst: Any, region: tuple[int, int], values: Any,
                                     space: MemorySpace) -> None:
    """`move_block(src -> dst)` over `region` lands in `space` the bytes and written flags of
    the general read-then-write of the same tile of `values`."""

    def run(direct: bool) -> tuple[Any, ...]:
        machine = Machine(get_backend("Ascend910B"))
        machine.write_tile(src, values, "test.write")
        if direct:
            assert machine.move_block(src, region, dst, "test.move")
        else:
            machine.write_tile(dst, machine.read_tile(src, "test.read", region=region), "test.write")
        return machine.memory[space].copy(), machine.written[space].copy()

    moved, reference = run(True), run(False)
    assert np.array_equal(moved[0], reference[0]) and np.array_equal(moved[1], reference[1])


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("src_layout,dst_layout", [("Nz", "Zn"), ("Zn", "Nz"), ("Nz", "Nn"), ("Zz", "Zn"),
                                                   ("Nn", "Zn"), ("Zn", "Zn")])
def test_strided_move_between_box_orders_equals_read_then_write(src_layout: str, dst_layout: str,
                                                                dtype: DataType) -> None:
    """Mat -> Right (Nz -> Zn) transposes each box's inner order, so neither the source nor the
    destination needs a block form: the move is one NumPy strided copy. It lands the bytes and
    written flags of the general read-then-write, also when the two layouts' boxes differ in
    shape (FP32 / INT8 Nz vs Zn), and is taken (not declined) whenever the compiled moves exist."""
    if machine_module._BLOCKS is None:
        pytest.skip("backend._mad is not built here")
    shape = (64, 64)
    nbytes = shape[0] * shape[1] * dtype.byte_width
    src = handle_for("s", _tile(src_layout, dtype, shape, 0, shape))
    dst_type = TileType(shape, dtype, shape, MemorySpace.Right, VIEWS[dst_layout],
                        MemRef("d", MemorySpace.Right, 0, nbytes))
    region = (32, 32)  # whole boxes of every layout and dtype here (INT8 Zn boxes are 32 x 16)
    dst = machine_module.with_valid(handle_for("d", dst_type), region)
    values = np.random.default_rng(7).integers(0, 100, shape).astype(numerics.np_dtype(dtype.name))

    _assert_moved_as_read_then_write(src, dst, region, values, MemorySpace.Right)
    poisoned = Machine(get_backend("Ascend910B"))  # an unwritten source: declined, nothing written
    assert not poisoned.move_block(src, region, dst, "test.move")
    assert not poisoned.written[MemorySpace.Right].any()


@pytest.mark.parametrize("dtype", [DataType.FP32, DataType.FP16, DataType.INT8, DataType.INT64])
@pytest.mark.parametrize("view", ["nd", "dn", "strided"])
@given(marks=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 9)), max_size=12),
       torn=st.lists(st.integers(0, 10**6), max_size=4))
@settings(max_examples=25, deadline=None)
def test_written_elements_equals_the_per_byte_reduction(dtype: DataType, view: str,
                                                        marks: list[tuple[int, int]], torn: list[int]) -> None:
    """An Out tensor's per-element written mask (read a whole element's flags at a time) is the
    all-bytes reduction of its logical flags, for every layout and width, with elements written
    whole, bytes written alone (a torn element is not written) and the whole buffer known."""
    machine = Machine(get_backend("Ascend910B"))
    tensor = machine.bind_tensor("y", (6, 10), dtype)
    if view == "dn":
        tensor.set_layout("dn")
    elif view == "strided":
        tensor.set_view((6, 10), (1, 6), "nd")  # column-major strides through the view
    if marks:
        rows, cols = (np.asarray(axis) for axis in zip(*marks))
        machine.write_gm(tensor, (rows, cols), np.ones(len(marks)), "test.write")
    for byte in torn:
        tensor.written[byte % tensor.written.size] = True
    expected = tensor.logical()[1].all(axis=-1)
    assert np.array_equal(tensor.written_elements(), expected)
    everything = machine.bind_tensor("z", (6, 10), dtype, np.zeros((6, 10), numerics.np_dtype(dtype.name)))
    assert everything.written_elements().all() and everything.written_elements().shape == (6, 10)


def test_a_released_machines_buffers_start_the_next_launch_poisoned_and_unwritten() -> None:
    """`Machine.release` hands a finished launch's spaces and GM flags to the next machine:
    they come back refilled (poison bytes, no written flag), exactly as fresh ones."""
    tile = handle_for("t", _tile("Nz", DataType.FP32, (32, 32), 0, (32, 32)))
    first = Machine(get_backend("Ascend910B"))
    first.write_tile(tile, np.ones((32, 32), np.float32), "test.write")
    out = first.bind_tensor("y", (6, 10), DataType.FP32)
    first.write_gm(out, (np.arange(6), np.arange(6)), np.ones(6), "test.write")
    used = first.memory[MemorySpace.Mat], first.written[MemorySpace.Mat], out.written
    first.release()
    second = Machine(get_backend("Ascend910B"))
    memory, written = second.memory[MemorySpace.Mat], second.written[MemorySpace.Mat]
    assert memory is used[0] and written is used[1]  # the pool served them
    assert (memory == numerics.POISON_BYTE).all() and not written.any()
    again = second.bind_tensor("y", (6, 10), DataType.FP32)
    assert not again.written.any() and not again.written_elements().any()
    with pytest.raises(PoisonRead):
        second.read_tile(tile, "test.read")


@pytest.mark.parametrize("layout", ["Nz", "Zn", "ND", "Acc"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("region", [(32, 32), (16, 32), (32, 16)], ids=["whole", "top", "left"])
def test_a_move_between_one_layout_equals_read_then_write(layout: str, dtype: DataType,
                                                          region: tuple[int, int]) -> None:
    """Mat -> Left between tiles of one layout and shape: where the window fills its bytes
    (whole tiles, and row-major top halves) `move_block` is one memcpy, elsewhere run by run;
    both land the bytes and written flags of the general read-then-write."""
    if machine_module._BLOCKS is None:
        pytest.skip("backend._mad is not built here")
    if layout == "Acc" and dtype is not DataType.FP32:
        return
    shape = (32, 32)
    src = handle_for("s", _tile(layout if layout != "Acc" else "Nz", dtype, shape, 64, shape))
    if layout == "Acc":
        src = handle_for("s", TileType(shape, dtype, shape, MemorySpace.Mat, VIEWS["Acc"],
                                       MemRef("s", MemorySpace.Mat, 64, 32 * 32 * 4)))
    dst_type = TileType(shape, dtype, shape, MemorySpace.Left, src.storage.view,
                        MemRef("d", MemorySpace.Left, 128, shape[0] * shape[1] * dtype.byte_width))
    dst = machine_module.with_valid(handle_for("d", dst_type), region)
    values = np.random.default_rng(3).integers(0, 100, shape).astype(numerics.np_dtype(dtype.name))

    _assert_moved_as_read_then_write(src, dst, region, values, MemorySpace.Left)


def _block_span_general(base: int, shape: tuple[int, int, int, int], strides: tuple[int, int, int, int],
                        width: int) -> Any:
    """`block_span` by its definition: the byte hull of the block's runs, and whether the runs
    (sorted by stride) tile it."""
    if min(shape) <= 0:
        return None
    end = base + sum((e - 1) * t for e, t in zip(shape[:3], strides[:3])) + shape[3] * width
    covered = shape[3] * width
    for stride, extent in sorted((t, e) for t, e in zip(strides[:3], shape[:3]) if e > 1):
        if stride != covered:
            return base, end, False
        covered *= extent
    return base, end, True


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 4096), st.tuples(st.integers(0, 3), st.integers(0, 9), st.integers(0, 3), st.integers(0, 9)),
       st.tuples(st.integers(0, 600), st.integers(0, 600), st.integers(0, 600)), st.sampled_from([1, 2, 4, 8]))
def test_block_span_equals_its_definition(base: int, shape: tuple[int, int, int, int],
                                          strides: tuple[int, int, int], width: int) -> None:
    """The 2-D shortcut of block_span (shape [1, rows, 1, cols]) and its general walk give the
    hull and density the definition does, for every shape (2-D ones included)."""
    full = (strides[0], strides[1], strides[2], width)
    assert machine_module.block_span(base, shape, full, width) == _block_span_general(base, shape, full, width)


def test_plain_access_is_the_general_access_of_the_handle_now() -> None:
    """`_plain_access` (memoized per handle) returns what `_tile_access(..., None, (0, 0))`
    returns, also after the handle's valid extent, shape or storage changed between calls
    (set_validshape mutates a handle), and a new handle gets its own window."""
    machine = Machine(get_backend("Ascend910B"))
    storage = _tile("ND", DataType.FP32, (16, 64), 0, (16, 64))
    handle = handle_for("t", storage)

    def same(tile: TileHandle, region: tuple[int, int]) -> None:
        plain = machine._plain_access(tile, region, "test", NO_SPAN)
        general = machine._tile_access(tile, region, "test", NO_SPAN, None, (0, 0))
        assert plain.block == general.block and plain.span == general.span
        assert np.array_equal(plain.offsets, general.offsets)

    for region in ((16, 64), (16, 64), (8, 64), (8, 32)):
        same(handle, region)
    handle.valid = (4, 64)
    same(handle, (4, 64))
    handle.storage = _tile("ND", DataType.FP32, (16, 64), 8192, (16, 64))
    same(handle, (4, 64))
    moved = dataclasses.replace(handle, origin=(2, 0), shape=(8, 64))
    same(moved, (4, 64))
    same(handle, (4, 64))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 11), st.integers(0, 15), st.integers(1, 6), st.integers(1, 16)),
                max_size=6),
       st.tuples(st.integers(0, 11), st.integers(0, 15), st.integers(1, 6), st.integers(1, 16)),
       st.sampled_from(DTYPES))
def test_an_out_tensor_written_by_blocks_keeps_ranges_only_and_reads_as_with_flags(
        writes: list[tuple[int, int, int, int]], read: tuple[int, int, int, int], dtype: DataType) -> None:
    """Block writes into an (adopted) Out tensor whose flags were never asked for record their ranges only
    (the flags are made from the ranges when first needed): its flags, its per-element written
    mask, the values and the poison report of a block read are what the per-byte flags give
    (ranges switched off)."""

    def run(track: bool) -> tuple[Any, ...]:
        saved = machine_module._TRACK_RANGES
        machine_module._TRACK_RANGES = track
        try:
            return run_tracked()
        finally:
            machine_module._TRACK_RANGES = saved

    def run_tracked() -> tuple[Any, ...]:
        machine = Machine(get_backend("Ascend910B"))
        # A fresh caller buffer the tensor adopts (as the host runner hands over an Out tensor).
        poison = np.full(12 * 16 * dtype.byte_width, numerics.POISON_BYTE, np.uint8)
        tensor = machine.bind_tensor("y", (12, 16), dtype, buffer=poison.view(numerics.np_dtype(dtype.name)).reshape(12, 16))
        assert tensor.data.base is not None  # adopted, not copied
        lazy_before_read = []
        for i, (r, c, h, w) in enumerate(writes):
            h, w = min(h, 12 - r), min(w, 16 - c)
            block = np.full((h, w), i + 1).astype(numerics.np_dtype(dtype.name))
            assert machine.write_gm_block(tensor, (r, c), block)
            lazy_before_read.append(tensor._written is None)
        r, c, h, w = read
        h, w = min(h, 12 - r), min(w, 16 - c)
        try:
            got: Any = machine.read_gm_block(tensor, (r, c), (h, w), "test.read")
        except PoisonRead as err:
            got = ("poison", err.element)
        return (tensor.data.copy(), tensor.written.copy(), tensor.written_elements(),
                got if not isinstance(got, np.ndarray) else got.view(np.uint8).tolist(), lazy_before_read)

    *with_ranges, lazy = run(True)
    *with_flags, _ = run(False)
    for a, b in zip(with_ranges, with_flags):
        assert (np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b)
    # Full-width rows are dense blocks: those writes never made the flags.
    assert all(lazy[:next((i for i, (_, c, _, w) in enumerate(writes) if not (c == 0 and w >= 16)), len(writes))])
