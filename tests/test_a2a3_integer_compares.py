"""A2/A3's integer compares (issue 11; agent-l's reading of pto-isa 3186c38's
include/pto/npu/a2a3/TCmp.hpp and TCmps.hpp).

- TCMP and TCMPS of an int32_t source call vcmpv_eq / vcmpvs_eq whatever the mode (an NE compare
  then inverts the mask): an INT32 lt / le / gt / ge compare computes eq on chip.
- TCMPS of an int16_t / uint16_t source reinterprets the source and the scalar as half bit
  patterns, in every mode (-1 reads as a NaN, 0 and -32768 as +0 and -0).

The simulator and the interpreter compare by the mode, as the program means, so such a tile
call would simulate bit-exact and run wrong: tile.cmp / tile.cmps refuse it on Ascend910B at the
user's line (target rules in languages/ops/vector_ops.py, naming the op, the element type, the
mode and the target, with the exact rewrite), and the generator does not draw it. tensor.cmp of
INT32 in those modes is lowered instead (ConvertTensorToTileOps) as the min / max of its operands
compared for (in)equality with the right one, exact on both targets; the results are compared
bit for bit with NumPy here.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from tests.test_kernels_matmul import run_cli
from tests.test_op_forms import compile_error

Array = npt.NDArray[Any]
BACKENDS = ("Ascend910B", "Ascend950")
MODES = {"eq": 0, "ne": 1, "lt": 2, "le": 3, "gt": 4, "ge": 5}
NUMPY_MODES = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
               "ge": np.greater_equal}
ROWS, COLS = 4, 64  # 64 INT32 columns: 8 whole mask bytes a row
I32 = np.iinfo(np.int32)

TENSOR_COMPARE = """\
import pypto.language as pl


@pl.program
class Compare:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[4, 64], pl.INT32], y: pl.Tensor[[4, 64], pl.INT32]) -> pl.Tensor[[4, 32], pl.UINT8]:
        m: pl.Tensor[[4, 32], pl.UINT8] = pl.tensor.cmp(x, RHS, cmp_type=MODE)
        w: pl.Tensor[[4, 32], pl.UINT8] = pl.tensor.set_validshape(m, 4, 8)
        return w

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 64], pl.INT32], y: pl.Tensor[[4, 64], pl.INT32]) -> pl.Tensor[[4, 32], pl.UINT8]:
        out: pl.Tensor[[4, 32], pl.UINT8] = self.kernel(x, y)
        return out
"""

TILE_COMPARE = """\
import pypto.language as pl


@pl.program
class Compare:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[4, 64], pl.DT], y: pl.Tensor[[4, 64], pl.DT],
               out: pl.Out[pl.Tensor[[4, 64], pl.DT]]) -> pl.Tensor[[4, 64], pl.DT]:
        a = pl.load(x, [0, 0], [4, 64])
        b = pl.load(y, [0, 0], [4, 64])
        m = pl.tile.CALL
        tmp = pl.tile.create([4, 64], dtype=pl.DT, target_memory=pl.Mem.Vec)
        s = pl.tile.sel(m, a, b, tmp)
        out = pl.store(s, [0, 0], out)
        return out
"""
SCALAR = 1  # the scalar a tile.cmps / tensor.cmp compares with


def _operands(seed: int, dtype: type[np.integer[Any]] = np.int32) -> dict[str, Array]:
    """Small values (many equal pairs, so eq and the ordering modes part) and the extremes."""
    rng = np.random.default_rng(seed)
    info = np.iinfo(dtype)
    x = rng.integers(-2, 3, (ROWS, COLS)).astype(dtype)
    y = rng.integers(-2, 3, (ROWS, COLS)).astype(dtype)
    x[0, :4] = [info.min, info.max, info.min, info.max - 1]
    y[0, :4] = [info.max, info.min, info.min, info.max]
    return {"x": x, "y": y}


def _mask(expected: Array) -> Array:
    return np.packbits(expected, axis=1, bitorder="little")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("scalar", [False, True], ids=["tensor", "scalar"])
def test_an_int32_tensor_compare_is_bit_exact_in_every_mode(tmp_path: Path, backend: str, mode: str,
                                                            scalar: bool) -> None:
    kernel = tmp_path / "compare.py"
    kernel.write_text(TENSOR_COMPARE.replace("RHS", str(SCALAR) if scalar else "y")
                      .replace("MODE", str(MODES[mode])))
    inputs = _operands(MODES[mode] + 10 * scalar)
    rc, log, outputs = run_cli(kernel, inputs, backend, tmp_path)
    assert rc == 0, log
    assert "bit-exact" in log and "differ" not in log, log
    rhs = np.int32(SCALAR) if scalar else inputs["y"]
    expected = _mask(NUMPY_MODES[mode](inputs["x"], rhs))
    assert (outputs["ret0"][:, :8] == expected).all(), (outputs["ret0"][:, :8], expected)
    if mode in ("lt", "le", "gt", "ge"):
        # Lowered as a min / max compared for (in)equality: no ordering TCMP of INT32 is emitted.
        pto = (tmp_path / "out.pto").read_text()
        assert re.search(r"pto\.t(min|max)s? ins", pto), pto
        assert not re.search(r"cmpMode = #pto<cmp (lt|le|gt|ge)>", pto), pto


@pytest.mark.parametrize("mode", ["lt", "le", "gt", "ge"])
@pytest.mark.parametrize("scalar", [False, True], ids=["cmp", "cmps"])
def test_an_int32_ordering_tile_compare_is_refused_on_a2a3(tmp_path: Path, mode: str, scalar: bool) -> None:
    call = f"cmps(a, {SCALAR}, cmp_type={MODES[mode]})" if scalar else f"cmp(a, b, cmp_type={MODES[mode]})"
    log = compile_error(tmp_path, TILE_COMPARE.replace("CALL", call).replace("DT", "INT32"), "Ascend910B")
    op = "tile.cmps" if scalar else "tile.cmp"
    assert re.search(rf"bad\.py:11:13: error: \[TargetOpRules\] {op} on Ascend910B: operand 'lhs' has element type "
                     rf"INT32; A2/A3's TCMPS? compares INT32 sources for equality whatever the mode .*this `{mode}` "
                     r"compare would compute `eq`", log), log
    extreme = {"lt": "minimum", "le": "maximum", "gt": "maximum", "ge": "minimum"}[mode]
    assert f"hint: write it as pl.tile.{extreme}{'s' if scalar else ''}(" in log and "Ascend950" in log, log


def _tile_select(tmp_path: Path, backend: str, call: str, dtype: str, inputs: dict[str, Array]) -> Array:
    kernel = tmp_path / "select.py"
    kernel.write_text(TILE_COMPARE.replace("CALL", call).replace("DT", dtype))
    rc, log, outputs = run_cli(kernel, inputs, backend, tmp_path)
    assert rc == 0, log
    assert "bit-exact" in log and "differ" not in log, log
    return outputs["out"]


@pytest.mark.parametrize("mode", ["lt", "ge"])
def test_an_int32_ordering_tile_compare_runs_on_ascend950(tmp_path: Path, mode: str) -> None:
    inputs = _operands(3)
    got = _tile_select(tmp_path, "Ascend950", f"cmp(a, b, cmp_type={MODES[mode]})", "INT32", inputs)
    expected = np.where(NUMPY_MODES[mode](inputs["x"], inputs["y"]), inputs["x"], inputs["y"])
    assert (got == expected).all(), (got, expected)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("mode", ["eq", "ne"])
def test_an_int32_equality_tile_compare_runs_on_both_targets(tmp_path: Path, backend: str, mode: str) -> None:
    inputs = _operands(4)
    for call, rhs in ((f"cmp(a, b, cmp_type={MODES[mode]})", inputs["y"]),
                      (f"cmps(a, {SCALAR}, cmp_type={MODES[mode]})", np.int32(SCALAR))):
        got = _tile_select(tmp_path, backend, call, "INT32", inputs)
        expected = np.where(NUMPY_MODES[mode](inputs["x"], rhs), inputs["x"], inputs["y"])
        assert (got == expected).all(), (call, got, expected)


@pytest.mark.parametrize("dtype", ["INT16", "UINT16"])
@pytest.mark.parametrize("mode", list(MODES))
def test_a_16_bit_integer_scalar_compare_is_refused_on_a2a3(tmp_path: Path, dtype: str, mode: str) -> None:
    log = compile_error(tmp_path, TILE_COMPARE.replace("CALL", f"cmps(a, {SCALAR}, cmp_type={MODES[mode]})")
                        .replace("DT", dtype), "Ascend910B")
    assert re.search(rf"bad\.py:11:13: error: \[TargetOpRules\] tile.cmps on Ascend910B: operand 'lhs' has element "
                     rf"type {dtype}; A2/A3's TCMPS compares INT16 / UINT16 sources as FP16 bit patterns", log), log
    assert "hint: cast the source to INT32" in log, log


@pytest.mark.parametrize("dtype", ["INT16", "UINT16"])
def test_a_16_bit_integer_scalar_compare_runs_on_ascend950(tmp_path: Path, dtype: str) -> None:
    np_type = np.int16 if dtype == "INT16" else np.uint16
    inputs = _operands(5, np_type)
    inputs["x"][1, :3] = [0, np.iinfo(np_type).max, 1]  # 0x8000 / 0xFFFF: -0.0 and a NaN as FP16 bits
    for mode in ("eq", "gt"):
        got = _tile_select(tmp_path, "Ascend950", f"cmps(a, {SCALAR}, cmp_type={MODES[mode]})", dtype, inputs)
        expected = np.where(NUMPY_MODES[mode](inputs["x"], np_type(SCALAR)), inputs["x"], inputs["y"])
        assert (got == expected).all(), (mode, got, expected)


def test_the_generator_draws_no_refused_compare_on_a2a3() -> None:
    from backend.fuzzing.generator import reaching_kernel
    from backend.targets.handlers import ASCEND_910B
    from languages.gen import tensor as T
    from languages.ops import REGISTRY
    from verifiers import target_op_rules

    drawn: list[str] = []
    for op in ("tile.cmp", "tile.cmps"):
        for seed in range(6):
            kernel = reaching_kernel(REGISTRY.get(op), seed=seed, arch=ASCEND_910B.arch)
            assert kernel is not None, (op, seed)
            program = T.Program("Fuzz", (kernel,))
            assert [d.message for d in target_op_rules.verify(program, ASCEND_910B)] == []
            drawn.append(op)
    assert len(drawn) == 12


def test_the_direct_ordering_compare_mutant_is_caught_on_a2a3(tmp_path: Path) -> None:
    # Without the min / max lowering, the INT32 `lt` tensor.cmp becomes a tile.cmp the target
    # rules refuse after ConvertTensorToTileOps: a compiler bug (status 2) under --verify-all.
    from nanopass_pto.mutants import MUTANTS

    mutant = next(m for m in MUTANTS if m.name == "int32-ordering-compare-direct")
    kernel = tmp_path / "compare.py"
    kernel.write_text(TENSOR_COMPARE.replace("RHS", "y").replace("MODE", str(MODES["lt"])))
    with mutant.applied():
        rc, log, _ = run_cli(kernel, _operands(1), "Ascend910B", tmp_path)
    assert rc == 2, log
    assert "TargetOpRules" in log and "tile.cmp on Ascend910B" in log and "`lt` compare would compute `eq`" in log, log
