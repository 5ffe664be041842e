"""Index-form gathers whose rows are not whole 32-byte blocks (GATHER_PADDED, stop 19).

PTOAS's index-form tgather wants its dst's valid columns equal to the dst buffer's columns, the
same of its indices, and (A2/A3) a scratch of the indices' valid shape and element type; a Vec
row is padded to 32 bytes, so a [16, 4] FP32 result ([16, 8] in UB) or a set_validshape-narrowed
index was refused by PTOAS alone. Now:

- the rule is data on tile.gather (GATHER_UNPADDED_ROWS, a `UnpaddedRows` target rule, the flat-gather
  contract's number): a hand-written tile.gather whose result rows are not whole blocks is refused
  by TargetOpRules at the user's line, with the fix (pad the index, narrow it with set_validshape);
  a column-major [N, 1] column pads its rows, not its column, and is gathered as it is;
- ConvertTensorToTileOps lowers the axis forms (dim) and narrowed indices over whole rows: the
  flat index is copied into [R, W] (W whole rows of the source's element type; zero padding, which
  names an element the source holds), gathered, and the result narrowed back to the index's shape
  and valid region;
- the mask form (gather_mask), which PTOAS refuses with the same message (its dst too must be
  valid over whole rows; pto-isa writes the compacted rows as one continuous stream), copies its
  source into whole rows and narrows the result back the same way;
- the generator draws no tile-level gather the rule refuses.

Each kernel runs bit-exact against the interpreter under --verify-all on both backends, matches
NumPy (take_along_axis / a flat take, written here), and PTOAS assembles it on a3 and a5.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from backend.fuzzing.generator import reaching_kernel
from backend.fuzzing.registry_calls import rules_on, target_violation
from languages.gen import tensor as T
from languages.gen import tile_unplaced as U
from languages.memory_space import MemorySpace
from languages.ops import REGISTRY, type_of
from languages.ops.index_ops import GATHER_UNPADDED_ROWS
from languages.types import DataType, TileType
from languages.views import make_tile_type
from nanopass.node import walk
from tests.test_kernels_matmul import B910, B950, assert_bits_equal, run_cli
from tests.test_ptoas import ARCH, PTOAS, _ptoas

Array = npt.NDArray[Any]
KERNELS = Path(__file__).resolve().parent / "kernels" / "ops"
BOTH = (B910, B950)


def _assembled(pto: Path, backend: str, tmp: Path) -> None:
    """PTOAS assembles the emitted kernel for the backend's arch (skipped where it is not built)."""
    if PTOAS is None or not PTOAS.is_file():
        return
    result = _ptoas(pto, ARCH[backend], tmp / "k.cpp")
    assert result.returncode == 0, f"PTOAS ({ARCH[backend]}) rejects {pto.name}:\n{result.stderr}"


def _run(kernel: str, inputs: dict[str, Array], backend: str, tmp: Path) -> dict[str, Array]:
    rc, log, outputs = run_cli(KERNELS / kernel, inputs, backend, tmp)
    assert rc == 0 and "bit-exact" in log and "MISMATCH" not in log, log
    _assembled(tmp / "out.pto", backend, tmp)
    return outputs


@pytest.mark.parametrize("backend", BOTH)
def test_axis_gathers_of_indices_narrower_than_a_row_run_and_assemble(tmp_path: Path, backend: str) -> None:
    rng = np.random.default_rng(23)
    x = rng.uniform(-4, 4, (16, 16)).astype(np.float32)
    t = rng.uniform(-4, 4, (8, 4)).astype(np.float32)
    c = rng.uniform(-4, 4, (8, 1)).astype(np.float32)
    h = rng.uniform(-4, 4, (6, 12)).astype(np.float16)
    inputs: dict[str, Array] = {
        "x": x, "i4": rng.integers(0, 16, (16, 4)).astype(np.int32), "i1": rng.integers(0, 16, (16, 1)).astype(np.int32),
        "t": t, "r": rng.integers(0, 8, (16, 4)).astype(np.int32), "r1": rng.integers(0, 8, (1, 4)).astype(np.int32),
        "c": c, "rc": rng.integers(0, 8, (16, 1)).astype(np.int16), "h": h,
        "hi": rng.integers(0, 12, (6, 4)).astype(np.int16), "h16": rng.uniform(-4, 4, (16, 12)).astype(np.float16),
        "hc": rng.integers(0, 12, (16, 1)).astype(np.int16),
    }
    got = _run("gather_axis_unaligned_rows.py", inputs, backend, tmp_path)
    y = x + np.float32(1.0)
    expected = [
        np.take_along_axis(y, inputs["i4"].astype(np.int64), axis=1),   # out[i, j] = y[i, i4[i, j]]
        np.take_along_axis(y, inputs["i1"].astype(np.int64), axis=1),
        np.take_along_axis(t, inputs["r"].astype(np.int64), axis=0),    # out[i, j] = t[r[i, j], j]
        np.take_along_axis(t, inputs["r1"].astype(np.int64), axis=0),
        np.take_along_axis(c, inputs["rc"].astype(np.int64), axis=0),
        np.take_along_axis(h, inputs["hi"].astype(np.int64), axis=1),
        np.take_along_axis(inputs["h16"], inputs["hc"].astype(np.int64), axis=1),
    ]
    for index, reference in enumerate(expected):
        assert_bits_equal(f"ret{index}", reference, got[f"ret{index}"])


@pytest.mark.parametrize("backend", BOTH)
def test_flat_gathers_of_narrowed_indices_never_read_the_padding_indices(tmp_path: Path, backend: str) -> None:
    rng = np.random.default_rng(5)
    x = rng.uniform(-4, 4, (4, 16)).astype(np.float16)
    w = rng.uniform(-4, 4, (2, 8)).astype(np.float32)
    i = np.full((1, 16), 1_000_000, dtype=np.int32)  # padding columns: far outside the source
    i[0, :8] = rng.integers(0, 64, 8)
    j = np.full((2, 8), -7, dtype=np.int32)
    j[:, :5] = rng.integers(0, 16, (2, 5))
    got = _run("gather_flat_narrowed_index.py", {"x": x, "i": i, "w": w, "j": j}, backend, tmp_path)
    y = (x + np.float16(1.0)).reshape(-1)
    z = (w * np.float32(2.0)).reshape(-1)
    assert_bits_equal("ret0", y[i[:, :8]], got["ret0"][:, :8])  # valid [1, 8] of physical [1, 16]
    assert_bits_equal("ret1", z[j[:, :5]], got["ret1"][:, :5])  # valid [2, 5] of physical [2, 8]


@pytest.mark.parametrize("backend", BOTH)
def test_tile_gather_of_a_padded_narrowed_index_runs_and_assembles(tmp_path: Path, backend: str) -> None:
    rng = np.random.default_rng(9)
    x = rng.uniform(-4, 4, (16, 16)).astype(np.float32)
    i = np.full((16, 8), 2**30, dtype=np.int32)
    i[:, :4] = rng.integers(0, 256, (16, 4))
    got = _run("tile_gather_narrowed_index.py", {"x": x, "i": i}, backend, tmp_path)
    assert_bits_equal("ret0", x.reshape(-1)[i[:, :4]], got["ret0"])


TILE_GATHER = """\
import pypto.language as pl


@pl.program
class TileGather:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.{dtype}], i: pl.Tensor[[16, {cols}], pl.INT32],
          out: pl.Out[pl.Tensor[[16, {cols}], pl.{dtype}]]) -> pl.Tensor[[16, {cols}], pl.{dtype}]:
        src = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        idx = pl.tile.load(i, [0, 0], [16, {cols}], target_memory=pl.Mem.Vec)
        g = pl.tile.gather(src, idx)
        out = pl.tile.store(g, [0, 0], out)
        return out
"""


@pytest.mark.parametrize("backend", BOTH)
@pytest.mark.parametrize("dtype, cols, padded", [("FP32", 4, 8), ("FP32", 12, 16), ("FP16", 8, 16), ("INT16", 12, 16)])
def test_a_tile_gather_whose_rows_are_not_whole_is_refused_at_the_users_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], backend: str, dtype: str, cols: int, padded: int) -> None:
    from nanopass.pipeline import main

    path = tmp_path / "kernel.py"
    path.write_text(TILE_GATHER.format(dtype=dtype, cols=cols))
    rc = main([str(path), "--backend", backend, "-o", str(tmp_path / "k.pto")])
    log = capsys.readouterr().err
    assert rc == 1 and "Traceback" not in log, log
    assert f"kernel.py:11:13: error: [TargetOpRules] tile.gather on {backend}: the result is [16, {cols}] {dtype}" in log, log
    assert f"pad it to [16, {padded}]" in log and "tgather" in log, log
    assert "hint: pad the index's columns" in log and "pl.tile.set_validshape" in log, log


@pytest.mark.parametrize("backend", BOTH)
def test_a_tile_gather_of_a_column_is_gathered_as_it_is(tmp_path: Path, backend: str) -> None:
    # A [16, 1] column is column-major: its buffer pads its rows, never its one column, so its
    # valid columns are its buffer's and PTOAS takes it (the rule reads the padded buffer).
    (tmp_path / "kernel.py").write_text(TILE_GATHER.format(dtype="FP32", cols=1) + """
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], i: pl.Tensor[[16, 1], pl.INT32]) -> pl.Tensor[[16, 1], pl.FP32]:
        out = pl.create_tensor([16, 1], dtype=pl.FP32)
        r = self.k(x, i, out)
        return r
""")
    rng = np.random.default_rng(4)
    x = rng.uniform(-4, 4, (16, 16)).astype(np.float32)
    i = rng.integers(0, 256, (16, 1)).astype(np.int32)
    rc, log, got = run_cli(tmp_path / "kernel.py", {"x": x, "i": i}, backend, tmp_path)
    assert rc == 0 and "bit-exact" in log, log
    assert_bits_equal("ret0", x.reshape(-1)[i], got["ret0"])
    _assembled(tmp_path / "out.pto", backend, tmp_path)
    assert "pto.tfillpad_expand" not in (tmp_path / "out.pto").read_text()  # no copy into whole rows


def test_the_flat_gather_contract_and_the_target_rule_are_one_number() -> None:
    # tensor.gather's flat-index check reads the rule's multiple: 8 for 4-byte sources, 16 for 2-byte.
    assert GATHER_UNPADDED_ROWS.archs == frozenset({"a2a3", "a5"})
    assert [GATHER_UNPADDED_ROWS.row_multiple(d) for d in (DataType.FP32, DataType.INT32, DataType.FP16, DataType.INT16)] \
        == [8, 8, 16, 16]
    assert GATHER_UNPADDED_ROWS in REGISTRY.get("tile.gather").target_rules


@pytest.mark.parametrize("arch", ["a2a3", "a5"])
def test_the_generator_keeps_tile_gathers_to_whole_rows(arch: str) -> None:
    opdef = REGISTRY.get("tile.gather")
    assert GATHER_UNPADDED_ROWS in rules_on(opdef, arch)

    def tile(name: str, shape: tuple[int, int], dtype: DataType) -> T.Var:
        return T.Var(name, make_tile_type(shape, dtype, None, MemorySpace.Vec))

    src = tile("src", (16, 16), DataType.FP32)
    for cols, refused in ((4, True), (12, True), (1, False), (8, False), (16, False)):
        index = tile("idx", (16, cols), DataType.INT32)
        result = make_tile_type((16, cols), DataType.FP32, None, MemorySpace.Vec)
        why = target_violation(opdef, arch, (src, index), (), result, {})
        assert bool(why) is refused, (cols, why)
        if refused:
            assert "whole 32-byte rows" in why
    # The kernels a steered campaign draws to reach tile.gather keep to the rule.
    for seed in range(4):
        kernel = reaching_kernel(opdef, seed, kernels=10, arch=arch)
        assert kernel is not None, seed
        gathers = [n for n in walk(kernel) if n.KIND == "Call" and getattr(n, "op") == "tile.gather"]
        assert gathers, seed
        for call in gathers:
            ty = type_of(call)
            assert isinstance(ty, TileType) and GATHER_UNPADDED_ROWS.gap(tuple(ty.shape), ty.dtype) is None, (seed, ty)


@pytest.mark.parametrize("kernel", ["gather_axis_unaligned_rows.py", "gather_flat_narrowed_index.py",
                                    "tile_gather_narrowed_index.py", "gather_mask_unaligned_rows.py"])
def test_every_lowered_gather_runs_over_whole_valid_rows(kernel: str) -> None:
    # What PTOAS checks of the tgather forms, on ConvertTensorToTileOps' output: index, scratch
    # and result valid over their whole shape, rows whole blocks of the source's element type,
    # the scratch of the index's element type; a mask gather's result valid over whole rows.
    from languages.pl_parser import parse_program_as
    from tests.test_convert_tensor_to_tile_ops import assert_verified, convert

    lowered = convert(parse_program_as((KERNELS / kernel).read_text(), T.Program))
    assert_verified(lowered)
    masks = [n for n in walk(lowered) if isinstance(n, U.Call) and n.op == "tile.gather_mask"]
    for call in masks:
        result = type_of(call)
        assert isinstance(result, TileType) and result.valid_shape is None, (kernel, result)
        assert GATHER_UNPADDED_ROWS.gap(tuple(result.shape), result.dtype) is None, (kernel, result)
    gathers = [n for n in walk(lowered) if isinstance(n, U.Call) and n.op == "tile.gather"]
    assert gathers or masks
    for call in gathers:
        index, tmp, result = type_of(call.args[1]), type_of(call.args[2]), type_of(call)
        for ty in (index, tmp, result):
            assert isinstance(ty, TileType) and ty.valid_shape is None, (kernel, ty)
        assert isinstance(index, TileType) and isinstance(tmp, TileType) and isinstance(result, TileType)
        assert tmp.dtype is index.dtype and tuple(tmp.shape) == tuple(index.shape)
        assert GATHER_UNPADDED_ROWS.gap(tuple(result.shape), result.dtype) is None, (kernel, result)


RUNTIME_COLUMNS = """\
import pypto.language as pl


@pl.program
class Kernel:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP32], i: pl.Tensor[[16, 8], pl.INT32], c: pl.Scalar[pl.INDEX],
               y: pl.InOut[pl.Tensor[[16, 8], pl.FP32]]) -> pl.Tensor[[16, 8], pl.FP32]:
        src = pl.load(x, [0, 0], [16, 16])
        t = pl.load(i, [0, 0], [16, 8])
        n = pl.tile.set_validshape(t, 16, c)
        g = pl.tile.gather(src, n)
        y = pl.store(g, [0, 0], y)
        return y
"""


@pytest.mark.parametrize("backend", BOTH)
def test_an_index_narrowed_at_run_time_is_gathered_over_its_whole_rows(tmp_path: Path, backend: str) -> None:
    # The result is narrowed back to the runtime extent: the store writes its c columns only.
    from backend.pto_text.printer import print_mlir
    from languages.pl_parser import parse_program
    from nanopass_pto.run import compare, compile_program, reference, run

    source = parse_program(RUNTIME_COLUMNS, "kernel.py")
    compiled = compile_program(source, backend=backend, verify_all=True)
    rng = np.random.default_rng(3)
    x = rng.uniform(-4, 4, (16, 16)).astype(np.float32)
    i = rng.integers(0, 256, (16, 8)).astype(np.int32)
    y = np.full((16, 8), 7.0, dtype=np.float32)
    for cols in (3, 8):
        inputs = {"x": x, "i": i, "c": np.asarray(cols), "y": y}
        got = run(compiled, inputs)
        assert all(r.ok for r in compare(reference(source, inputs), got))
        assert_bits_equal("y[:, :c]", x.reshape(-1)[i[:, :cols]], got["y"][:, :cols])
        assert_bits_equal("y[:, c:]", y[:, cols:], got["y"][:, cols:])
    (tmp_path / "out.pto").write_text(print_mlir(compiled.final, emit_loc=False))  # type: ignore[arg-type]
    _assembled(tmp_path / "out.pto", backend, tmp_path)


@pytest.mark.parametrize("backend", BOTH)
def test_mask_gathers_whose_compacted_rows_are_not_whole_run_and_assemble(tmp_path: Path, backend: str) -> None:
    # The mask form reports through the same PTOAS check (GATHER_PADDED's message): its result
    # is gathered over whole rows too. P0101 picks columns 0, 2, ..; P1010 1, 3, ..; P0001 0, 4, ..
    rng = np.random.default_rng(17)
    inputs: dict[str, Array] = {
        "x1": rng.integers(-2**20, 2**20, (1, 16)).astype(np.int32),
        "x2": rng.uniform(-4, 4, (4, 8)).astype(np.float32),
        "x3": rng.uniform(-4, 4, (6, 16)).astype(np.float16),
        "x4": rng.uniform(-4, 4, (4, 16)).astype(np.float32),
    }
    got = _run("gather_mask_unaligned_rows.py", inputs, backend, tmp_path)
    assert_bits_equal("ret0", np.ascontiguousarray(inputs["x1"][:, 0::4]).view(np.float32), got["ret0"])
    assert_bits_equal("ret1", (inputs["x2"] + np.float32(1.0))[:, 1::2], got["ret1"])
    assert_bits_equal("ret2", inputs["x3"][:, 0::2], got["ret2"])
    assert_bits_equal("ret3", inputs["x4"][:, 0:12:2], got["ret3"][:, :6])  # valid [4, 6] of [4, 8]


TILE_GATHER_MASK = """\
import pypto.language as pl


@pl.program
class TileGatherMask:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[4, 16], pl.FP32], out: pl.Out[pl.Tensor[[4, 4], pl.FP32]]) -> pl.Tensor[[4, 4], pl.FP32]:
        src = pl.tile.load(x, [0, 0], [4, 16], target_memory=pl.Mem.Vec)
        g = pl.tile.gather_mask(src, mask_pattern=4)
        out = pl.tile.store(g, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 16], pl.FP32]) -> pl.Tensor[[4, 4], pl.FP32]:
        out = pl.create_tensor([4, 4], dtype=pl.FP32)
        r = self.k(x, out)
        return r
"""


@pytest.mark.parametrize("backend", BOTH)
def test_a_hand_written_mask_gather_of_four_columns_runs_and_assembles(tmp_path: Path, backend: str) -> None:
    (tmp_path / "kernel.py").write_text(TILE_GATHER_MASK)
    x = np.random.default_rng(2).uniform(-4, 4, (4, 16)).astype(np.float32)
    rc, log, got = run_cli(tmp_path / "kernel.py", {"x": x}, backend, tmp_path)
    assert rc == 0 and "bit-exact" in log, log
    assert_bits_equal("ret0", x[:, 1::4], got["ret0"])  # P0010: column 1 of every 4
    _assembled(tmp_path / "out.pto", backend, tmp_path)


GATHERED_AGAIN = """\
import pypto.language as pl


@pl.program
class GatheredAgain:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], i4: pl.Tensor[[16, 4], pl.INT32], w: pl.Tensor[[2, 16], pl.FP32],
          j: pl.Tensor[[2, 8], pl.INT32]) -> tuple[pl.Tensor[[16, 4], pl.FP32], pl.Tensor[[2, 8], pl.FP32]]:
        a: pl.Tensor[[16, 4], pl.FP32] = pl.tensor.gather(x, dim=1, index=i4)
        b: pl.Tensor[[16, 4], pl.FP32] = pl.tensor.set_validshape(a, 16, 2)
        c: pl.Tensor[[16, 4], pl.FP32] = pl.tensor.gather(a, dim=1, index=i4)
        d: pl.Tensor[[16, 4], pl.FP32] = pl.tensor.add(b, c)
        m: pl.Tensor[[2, 4], pl.FP32] = pl.tensor.gather_mask(w, mask_pattern=3)
        e: pl.Tensor[[2, 8], pl.FP32] = pl.gather(m, j)
        return d, e

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], i4: pl.Tensor[[16, 4], pl.INT32], w: pl.Tensor[[2, 16], pl.FP32],
             j: pl.Tensor[[2, 8], pl.INT32]) -> tuple[pl.Tensor[[16, 4], pl.FP32], pl.Tensor[[2, 8], pl.FP32]]:
        r: tuple[pl.Tensor[[16, 4], pl.FP32], pl.Tensor[[2, 8], pl.FP32]] = self.k(x, i4, w, j)
        return r
"""


@pytest.mark.parametrize("backend", BOTH)
def test_a_result_gathered_over_whole_rows_is_a_tile_of_its_own(tmp_path: Path, backend: str) -> None:
    # The [16, 4] result is a copy of the [16, 8] gather's window, no view: set_validshape narrows
    # it, and a gather reads it at its own padded pitch (a flat index of the [2, 4] mask gather).
    (tmp_path / "kernel.py").write_text(GATHERED_AGAIN)
    rng = np.random.default_rng(8)
    x = rng.uniform(-4, 4, (16, 16)).astype(np.float32)
    i4 = rng.integers(0, 4, (16, 4)).astype(np.int32)
    w = rng.uniform(-4, 4, (2, 16)).astype(np.float32)
    j = rng.integers(0, 8, (2, 8)).astype(np.int32)
    rc, log, got = run_cli(tmp_path / "kernel.py", {"x": x, "i4": i4, "w": w, "j": j}, backend, tmp_path)
    assert rc == 0 and "bit-exact" in log and "MISMATCH" not in log, log
    a = np.take_along_axis(x, i4.astype(np.int64), axis=1)
    # The operands' valid regions differ, so the sum is over the whole [16, 4], reading b past
    # its 2 columns (the data of a, which set_validshape narrowed: DefinedReads).
    d = a + np.take_along_axis(a, i4.astype(np.int64), axis=1)
    assert_bits_equal("ret0", d, got["ret0"])
    assert_bits_equal("ret1", w[:, 0::4].reshape(-1)[j], got["ret1"])
    _assembled(tmp_path / "out.pto", backend, tmp_path)


GATHER_MASK_BYTES = """\
import pypto.language as pl


@pl.program
class G:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[4, 64], pl.DT]) -> pl.Tensor[[4, 32], pl.DT]:
        y: pl.Tensor[[4, 32], pl.DT] = pl.tensor.gather_mask(x, mask_pattern=pl.tile.MaskPattern.P0101)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 64], pl.DT]) -> pl.Tensor[[4, 32], pl.DT]:
        out: pl.Tensor[[4, 32], pl.DT] = self.kernel(x)
        return out
"""


@pytest.mark.parametrize("dtype", ["INT8", "UINT8"])
def test_a_mask_gather_of_bytes_is_refused_on_a2a3_and_runs_on_a5(tmp_path: Path, dtype: str) -> None:
    # PTOAS's TGatherOp::verify: "expects A2/A3 mask-pattern gather element size to be 2 or 4
    # bytes" (pto-isa's A2/A3 TGATHER: b16 / b32); A5 takes 8-bit elements.
    kernel = tmp_path / "gm.py"
    kernel.write_text(GATHER_MASK_BYTES.replace("DT", dtype))
    x = np.random.default_rng(3).integers(0, 100, (4, 64)).astype(np.int8 if dtype == "INT8" else np.uint8)
    rc, log, _ = run_cli(kernel, {"x": x}, B910, tmp_path)
    assert rc == 1, log
    column = 38 + len(dtype)  # the call, after the annotation naming the dtype
    assert (f"gm.py:8:{column}: error: [TargetOpRules] tensor.gather_mask on Ascend910B: operand 'src' has element type "
            f"{dtype}, expected one of BF16, FP16, FP32, INT16, INT32, UINT16, UINT32; PTOAS's mask-pattern tgather "
            "takes 2- or 4-byte elements on A2/A3") in log, log
    assert "compile for Ascend950" in log, log
    rc, log, outputs = run_cli(kernel, {"x": x}, B950, tmp_path)
    assert rc == 0 and "bit-exact" in log, log
    assert_bits_equal("ret0", x[:, 0::2], outputs["ret0"])
