"""What a compare writes of its mask, and what may read it (open finding of agent-h, issue 8).

pto-isa's a2a3 and a5 TCMP / TCMPS (include/pto/npu/*/TCmp.hpp, TCmps.hpp) store, for each valid
row of their first operand, whole granules of mask bytes: a2a3's vcmpv one 256-byte repeat of the
source (64 FP32 / INT32 or 128 FP16 elements: 8 or 16 mask bytes), a5's psts a predicate
register's packed bits (128 elements of 2 or 4 bytes: 16 mask bytes); on a2a3 an NE compare is an
EQ compare whose valid rows are then inverted whole (vnot). Only the bits of the compared columns
are defined: the granule's other bits come from the source's padding or next row (a2a3) or from
inactive lanes (a5), and nothing zeroes the rest of the mask (pto-isa's CPU model does; the chip
does not). So:

- the simulator writes the defined bytes, makes the rest of each granule poison (unwritten: a read
  is a PoisonRead), and leaves every other byte of the mask as it was;
- DefinedReads counts a mask's data in bits (`languages.ops.data_extents`): a select over the
  compared columns reads data; a mask returned past its whole compared bytes, or a select past the
  compared columns (even inside the last byte), is refused at the user's line.

The simulator tests build the PTO by hand and look at the Vec bytes; the kernels run as a user
runs them (--verify-all --simulate, bit-exact against the interpreter) and their outputs are
checked against NumPy on both targets.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from backend.sim.executor import run_kernel
from backend.sim.machine import Machine, PoisonRead
from backend.targets.handlers import get_backend
from languages.memory_space import MemorySpace
from languages.types import DataType, TensorType, TileType
from nanopass.pipeline import main
from tests.test_sim_executor import KernelBuilder

Array = npt.NDArray[Any]
BACKENDS = ("Ascend910B", "Ascend950")
U8 = DataType.UINT8
MASK_ROW = 32  # bytes of a mask row for up to 256 compared columns
OLD = 0x5A  # what the mask buffer held before the compare
# Compared elements per stored granule (pto-isa: a2a3 REPEAT_BYTE / sizeof(T); a5 TCmp_32B packs two
# 64-element registers, TCmp_8B_16B one 128-element register).
GRANULE = {("Ascend910B", 4): 64, ("Ascend910B", 2): 128, ("Ascend950", 4): 128, ("Ascend950", 2): 128}
MODES = {"eq": 0, "ne": 1, "lt": 2, "le": 3, "gt": 4, "ge": 5}


def _compare_kernel(dtype: DataType, cols: int, rows: int, mode: str, store: bool) -> KernelBuilder:
    """x, y [4, cols] -> tcmp over [rows, cols] into a [4, 32] mask (loaded from `old` first unless
    `store`, which stores the mask's [rows, 32] to `out` instead)."""
    k = KernelBuilder("compare")
    pitch = -(-cols * dtype.byte_width // 32) * 32 // dtype.byte_width
    x = k.param("x", TensorType((4, cols), dtype))
    y = k.param("y", TensorType((4, cols), dtype))
    zero = k.const(0)
    tx = k.alloc("tx", MemorySpace.Vec, (4, pitch), dtype, 0, (rows, cols))
    ty = k.alloc("ty", MemorySpace.Vec, (4, pitch), dtype, 4096, (rows, cols))
    tm = k.alloc("tm", MemorySpace.Vec, (4, MASK_ROW), U8, 8192, (rows, MASK_ROW))
    k.instr("pto.tload", k.partition("px", k.tensor_view(x), (zero, zero), (rows, cols)), tx)
    k.instr("pto.tload", k.partition("py", k.tensor_view(y), (zero, zero), (rows, cols)), ty)
    if store:
        out = k.param("out", TensorType((rows, MASK_ROW), U8), "Out")
        k.instr("pto.tcmp", tx, ty, tm, cmpMode=mode)
        k.instr("pto.tstore", tm, k.partition("po", k.tensor_view(out), (zero, zero), (rows, MASK_ROW)))
        return k
    old = k.param("old", TensorType((4, MASK_ROW), U8))
    whole = k.alloc("whole", MemorySpace.Vec, (4, MASK_ROW), U8, 8192)
    k.instr("pto.tload", k.partition("pold", k.tensor_view(old), (zero, zero), (4, MASK_ROW)), whole)
    k.instr("pto.tcmp", tx, ty, tm, cmpMode=mode)
    return k


def _inputs(dtype: DataType, cols: int, seed: int) -> dict[str, Array]:
    rng = np.random.default_rng(seed)
    np_type = {DataType.FP32: np.float32, DataType.FP16: np.float16, DataType.INT32: np.int32}[dtype]
    x = rng.integers(-3, 4, (4, cols)).astype(np_type)
    y = rng.integers(-3, 4, (4, cols)).astype(np_type)
    return {"x": x, "y": y}


CASES = [(DataType.FP32, 20, "lt"), (DataType.FP32, 70, "ge"), (DataType.FP32, 130, "ne"),
         (DataType.FP16, 13, "gt"), (DataType.FP16, 130, "eq"), (DataType.INT32, 9, "ne")]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype,cols,mode", CASES)
def test_compare_writes_its_granules_and_nothing_else(backend: str, dtype: DataType, cols: int, mode: str) -> None:
    rows = 3  # of the mask's 4: its last row is not the compare's
    inputs = _inputs(dtype, cols, cols)
    inputs["old"] = np.full((4, MASK_ROW), OLD, np.uint8)
    handler = get_backend(backend)
    machine = Machine(handler)
    run_kernel(_compare_kernel(dtype, cols, rows, mode, store=False).function(), inputs, handler, machine=machine)
    memory, written = machine.memory[MemorySpace.Vec], machine.written[MemorySpace.Vec]
    mask = memory[8192:8192 + 4 * MASK_ROW].reshape(4, MASK_ROW)
    flags = written[8192:8192 + 4 * MASK_ROW].reshape(4, MASK_ROW)
    expected = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
                "ge": np.greater_equal}[mode](inputs["x"], inputs["y"])
    packed = np.packbits(expected, axis=1, bitorder="little")
    defined, rest = -(-cols // 8), cols % 8
    granule = GRANULE[(backend, dtype.byte_width)]
    stored = -(-cols // granule) * granule // 8
    if mode == "ne" and backend == "Ascend910B":
        stored = MASK_ROW  # vnot over the whole valid rows
    for r in range(rows):
        keep = np.full(defined, 0xFF, np.uint8)
        if rest:
            keep[-1] = (1 << rest) - 1
        assert ((mask[r, :defined] & keep) == (packed[r] & keep)).all(), (r, mask[r], packed[r])
        assert flags[r, :defined].all()
        assert not flags[r, defined:stored].any() and (mask[r, defined:stored] == 0xFF).all(), (r, stored, flags[r])
        assert flags[r, stored:].all() and (mask[r, stored:] == OLD).all(), (r, stored, mask[r])
    assert flags[rows:].all() and (mask[rows:] == OLD).all()


@pytest.mark.parametrize("backend", BACKENDS)
def test_storing_the_mask_past_its_compared_bytes_is_a_poison_read(backend: str) -> None:
    inputs = _inputs(DataType.FP32, 20, 1)
    with pytest.raises(PoisonRead) as info:
        run_kernel(_compare_kernel(DataType.FP32, 20, 2, "lt", store=True).function(), inputs, get_backend(backend))
    # Bytes 0..2 hold the 20 compared bits; byte 3 is a granule byte derived from no compared element.
    assert (info.value.instruction, info.value.tile, info.value.element) == ("pto.tstore", "tm", (0, 3))


# -- kernels as a user writes them ---------------------------------------------------------------------

HEADER = "import pypto.language as pl\n\n\n@pl.program\nclass Kernel:\n"
NP_TYPES: dict[str, type[np.generic]] = {"FP32": np.float32, "FP16": np.float16, "INT32": np.int32}

SELECT = """
@pl.function(type=pl.FunctionType.InCore)
def pick(self, x: pl.Tensor[[{r}, {c}], pl.{t}], y: pl.Tensor[[{r}, {c}], pl.{t}],
         out: pl.Out[pl.Tensor[[{r}, {c}], pl.{t}]]) -> pl.Tensor[[{r}, {c}], pl.{t}]:
    a = pl.load(x, [0, 0], [{r}, {c}])
    b = pl.load(y, [0, 0], [{r}, {c}])
    m = pl.tile.cmp(a, b, cmp_type={mode})
    tmp = pl.tile.create([{r}, {c}], dtype=pl.{t}, target_memory=pl.Mem.Vec)
    s = pl.tile.sel(m, a, b, tmp)
    out = pl.store(s, [0, 0], out)
    return out
"""

SELECT_SCALAR = """
@pl.function(type=pl.FunctionType.InCore)
def pick(self, x: pl.Tensor[[{r}, {c}], pl.{t}], out: pl.Out[pl.Tensor[[{r}, {c}], pl.{t}]]) -> pl.Tensor[[{r}, {c}], pl.{t}]:
    a = pl.load(x, [0, 0], [{r}, {c}])
    m = pl.tile.cmps(a, 0.5, cmp_type={mode})
    tmp = pl.tile.create([{r}, {c}], dtype=pl.{t}, target_memory=pl.Mem.Vec)
    s = pl.tile.sels(m, a, tmp, -2.0)
    out = pl.store(s, [0, 0], out)
    return out
"""


def _compile(tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, backend: str,
             inputs: dict[str, Array] | None = None) -> tuple[int, str]:
    path = tmp_path / "kernel.py"
    path.write_text(HEADER + textwrap.indent(textwrap.dedent(body), "    "))
    args = [str(path), "--verify-all", "--backend", backend, "-o", str(tmp_path / "k.pto")]
    if inputs is not None:
        np.savez(tmp_path / "in.npz", **inputs)  # type: ignore[arg-type]
        args += ["--simulate", "--inputs", str(tmp_path / "in.npz"), "--save-outputs", str(tmp_path / "out.npz")]
    rc = main(args)
    captured = capsys.readouterr()
    return rc, captured.out + captured.err


def _simulated(tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, backend: str,
               inputs: dict[str, Array]) -> Array:
    rc, log = _compile(tmp_path, capsys, body, backend, inputs)
    assert rc == 0 and "bit-exact" in log and "MISMATCH" not in log, log
    return np.asarray(np.load(tmp_path / "out.npz")["ret0"])


# (dtype, rows, cols, mode): valid widths that are no multiple of 8 nor of a repeat; INT32 compares
# for equality only (a2a3's INT32 TCMP is vcmpv_eq whatever the mode: an open finding).
SELECTS = [("FP32", 4, 20, "lt"), ("FP32", 3, 100, "ge"), ("FP16", 2, 70, "gt"), ("INT32", 4, 13, "eq"),
           ("FP16", 1, 136, "ne")]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype,rows,cols,mode", SELECTS)
def test_select_by_a_compare_over_its_columns_is_bit_exact(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           backend: str, dtype: str, rows: int, cols: int,
                                                           mode: str) -> None:
    rng = np.random.default_rng(rows * 1000 + cols)
    x = rng.integers(-3, 4, (rows, cols)).astype(NP_TYPES[dtype])
    y = rng.integers(-3, 4, (rows, cols)).astype(NP_TYPES[dtype])
    body = SELECT.format(r=rows, c=cols, t=dtype, mode=MODES[mode])
    got = _simulated(tmp_path, capsys, body, backend, {"x": x, "y": y})
    picked = {"lt": x < y, "ge": x >= y, "gt": x > y, "eq": x == y, "ne": x != y}[mode]
    expected = np.where(picked, x, y)
    assert got.dtype == expected.dtype and (got.view(np.uint8) == expected.view(np.uint8)).all(), (got, expected)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype,cols", [("FP32", 67), ("FP16", 9)])
def test_select_by_a_scalar_compare_is_bit_exact(tmp_path: Path, capsys: pytest.CaptureFixture[str], backend: str,
                                                 dtype: str, cols: int) -> None:
    x = (np.random.default_rng(cols).integers(-4, 5, (3, cols)) / 2).astype(NP_TYPES[dtype])
    got = _simulated(tmp_path, capsys, SELECT_SCALAR.format(r=3, c=cols, t=dtype, mode=MODES["gt"]), backend,
                     {"x": x})
    expected = np.where(x > 0.5, x, np.asarray(-2.0, NP_TYPES[dtype]))
    assert (got.view(np.uint8) == expected.view(np.uint8)).all(), (got, expected)


RETURNED = """
@pl.function(type=pl.FunctionType.InCore)
def mask(self, x: pl.Tensor[[4, {c}], pl.{t}], y: pl.Tensor[[4, {c}], pl.{t}]) -> pl.Tensor[[4, 32], pl.UINT8]:
    m: pl.Tensor[[4, 32], pl.UINT8] = pl.tensor.cmp(x, y, cmp_type=2)
    {ret}

@pl.function(type=pl.FunctionType.Orchestration)
def main(self, x: pl.Tensor[[4, {c}], pl.{t}], y: pl.Tensor[[4, {c}], pl.{t}]) -> pl.Tensor[[4, 32], pl.UINT8]:
    out: pl.Tensor[[4, 32], pl.UINT8] = self.mask(x, y)
    return out
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_mask_returned_whole_is_refused_at_the_return(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        backend: str) -> None:
    rc, log = _compile(tmp_path, capsys, RETURNED.format(c=20, t="FP32", ret="return m"), backend)
    assert rc == 1 and "kernel.py:10:9: error: [DefinedReads] the kernel returns `m`" in log, log
    assert "stored over its valid region [4, 32], but tensor.cmp wrote only [4, 2.5 (20 bits)]" in log, log
    assert "whole compared bytes" in log and "Traceback" not in log and "internal" not in log, log


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_mask_returned_past_its_whole_bytes_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         backend: str) -> None:
    # 20 bits fill 2 bytes and half of a third: the third byte's upper bits are undefined on chip.
    ret = "w: pl.Tensor[[4, 32], pl.UINT8] = pl.tensor.set_validshape(m, 4, 3)\n    return w"
    rc, log = _compile(tmp_path, capsys, RETURNED.format(c=20, t="FP32", ret=ret), backend)
    assert rc == 1 and "kernel.py:11:9: error: [DefinedReads] the kernel returns `w`" in log, log
    assert "wrote only [4, 2.5 (20 bits)]" in log, log


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype,cols", [("FP32", 20), ("FP16", 70), ("FP32", 64)])
def test_a_mask_returned_over_its_whole_bytes_is_bit_exact(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           backend: str, dtype: str, cols: int) -> None:
    whole = cols // 8
    ret = f"w: pl.Tensor[[4, 32], pl.UINT8] = pl.tensor.set_validshape(m, 4, {whole})\n    return w"
    rng = np.random.default_rng(cols)
    x = rng.integers(-3, 4, (4, cols)).astype(NP_TYPES[dtype])
    y = rng.integers(-3, 4, (4, cols)).astype(NP_TYPES[dtype])
    got = _simulated(tmp_path, capsys, RETURNED.format(c=cols, t=dtype, ret=ret), backend, {"x": x, "y": y})
    assert got.shape == (4, 32)
    assert (got[:, :whole] == np.packbits(x < y, axis=1, bitorder="little")[:, :whole]).all(), got
    # Nothing was stored past the valid region: the output keeps its fresh buffer's poison.
    assert (got[:, whole:] == 0xFF).all(), got


PAST = """
@pl.function(type=pl.FunctionType.InCore)
def pick(self, x: pl.Tensor[[4, 20], pl.FP32], out: pl.Out[pl.Tensor[[4, 20], pl.FP32]]) -> pl.Tensor[[4, 20], pl.FP32]:
    a = pl.load(x, [0, 0], [4, 20])
    n = pl.tile.set_validshape(a, 4, 10)
    m = pl.tile.cmps(n, 0.0, cmp_type=4)
    wide = pl.tile.set_validshape(a, 4, {c})
    tmp = pl.tile.create([4, 20], dtype=pl.FP32, target_memory=pl.Mem.Vec)
    s = pl.tile.sels(m, wide, tmp, -1.0)
    out = pl.store(s, [0, 0], out)
    return out
"""


@pytest.mark.parametrize("cols,read", [(20, "2.5 (20 bits)"), (12, "1.5 (12 bits)")])
def test_a_select_past_the_compared_columns_is_refused_at_the_select(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                     cols: int, read: str) -> None:
    # The compare defines 10 bits per row: a select over 12 or 20 columns reads bits no compare
    # wrote (12: inside the compare's last byte, whose upper bits are undefined on chip).
    rc, log = _compile(tmp_path, capsys, PAST.format(c=cols), "Ascend910B")
    assert rc == 1 and "kernel.py:14:13: error: [DefinedReads] tile.sels reads its mask `m`" in log, log
    assert f"([4, {read}] [rows, words] for a result valid over [4, {cols}])" in log, log
    assert "tile.cmps wrote only [4, 1.25 (10 bits)]" in log and "Traceback" not in log, log


def test_a_select_over_the_compared_columns_is_accepted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The same kernel selecting over the 10 compared columns: no finding (the rule is not "never
    # narrow a select").
    x = np.random.default_rng(3).integers(-3, 4, (4, 20)).astype(np.float32)
    rc, log = _compile(tmp_path, capsys, PAST.format(c=10), "Ascend950", {"x": x})
    assert rc == 0 and "DefinedReads" not in log, log


def test_a_verifier_taking_the_mask_whole_is_seen_by_the_simulator(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # With DefinedReads taking the mask's data as whole (the compare's data extent its own valid
    # region), the returned mask passes the verifiers, and the simulator's store of it reads the
    # bytes TCMP left undefined: the two checks back each other up. (Not a mutant of the
    # catalogue: a campaign only counts failures of programs the unmutated compiler accepts, and
    # this one refuses every program such a mutant lets through.)
    from languages.ops import data_extents

    monkeypatch.setattr(data_extents, "_compared_bits", lambda args, result, own: own)
    x = np.zeros((4, 20), np.float32)
    rc, log = _compile(tmp_path, capsys, RETURNED.format(c=20, t="FP32", ret="return m"), "Ascend910B",
                       {"x": x, "y": x})
    assert rc == 1 and "DefinedReads" not in log, log
    assert "[Simulator] pto.tstore reads" in log and "[0, 3], which no instruction has written" in log, log


# -- the generator ---------------------------------------------------------------------------------------

MASK_CONSTRUCTS = ("construct:mask-select", "construct:mask-select:partial-byte", "construct:mask-returned")


def test_the_generator_draws_masks_consumed_legally() -> None:
    # Masks selected by over at most their compared columns (often not a whole byte of them) and
    # returned over their whole bytes: each drawn kind compiles under verify-all (DefinedReads
    # included) and simulates bit for bit on the campaign's backend.
    from hypothesis import HealthCheck, given, settings

    from backend.fuzzing.generator import CONSTRUCTS
    from nanopass_pto.fuzz_target import FuzzCase, PtoFuzzTarget

    target = PtoFuzzTarget()
    target.configure(None, None, None)
    drawn: list[FuzzCase] = []

    @settings(max_examples=300, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(target.strategy())
    def collect(case: FuzzCase) -> None:
        drawn.append(case)

    collect()
    assert set(MASK_CONSTRUCTS) <= set(CONSTRUCTS)
    seen = {tag for case in drawn for tag in case.generated.ops}
    # A select over a whole or a partial last byte of compared bits (whichever these draws hold).
    assert seen & set(MASK_CONSTRUCTS[:2]) and MASK_CONSTRUCTS[2] in seen, sorted(seen)
    for tag in sorted(seen & set(MASK_CONSTRUCTS)):
        case = next(c for c in drawn if tag in c.generated.ops)
        outcome = target.check(case)
        assert not outcome.failed, f"{tag}: {outcome.headline()}\n{outcome.detail}\n{case.text}"


def test_the_mask_select_recipe_narrows_no_view() -> None:
    # Ascend950 campaign seed 23 (on this branch): the recipe narrowed a tile.slice window by
    # set_validshape, which ViewLegality refuses. A window is no source of it.
    import random

    from backend.fuzzing.generator import Features, _SeededBuilder
    from languages.gen import tensor as T

    for seed in range(20):
        builder = _SeededBuilder(lambda strategy: None, Features(), "k", arch="a5", rng=random.Random(seed))
        tiles = builder.tile_parameters()
        source = tiles[-1]
        assert isinstance(source.type, TileType)
        rows, cols = (int(d) for d in source.type.shape)
        window = builder.call("tile.slice", (source, T.TupleExpr((T.ConstInt(rows, DataType.INDEX),
                                                                   T.ConstInt(cols, DataType.INDEX))),
                                             T.TupleExpr((T.ConstInt(0, DataType.INDEX),
                                                          T.ConstInt(0, DataType.INDEX)))), prefix="w", pool=[])
        before = len(builder.body)
        builder.mask_selects([window])
        assert len(builder.body) == before, builder.body[before:]
