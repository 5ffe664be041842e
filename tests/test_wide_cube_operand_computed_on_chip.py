"""A wide cube operand computed on chip crosses to the cube core (finding e4d1c8d667).

On Ascend910B Vec -> Mat is no data path: a left operand the vector core computes crosses the
pipe whole. A [100, 272] FP32 operand was refused: the vector kernel held the value, its
[112, 272] boxed copy and a slot region as large as that copy for the [112, 32] product coming
back (352512 bytes of 188416). The FIFO carries a tile's valid rectangle, so ExpandMixedKernel
pushes the value itself (the cube still pops it boxed) and the box is dead on the vector core;
and each direction's slot region holds its own largest tile in its last slot, not the pipe's
slot size. What still does not fit is refused with the way out (a GM operand computed by a
kernel of its own), and the fuzzer's generator draws a computed operand only where it fits
(computed_operand_fits, from the capacity, box and slot facts the planner uses).
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import numpy as np

from backend.fuzzing.generator import CUBE_K, CUBE_M, computed_operand_fits
from languages.types import DataType
from nanopass.pipeline import main
from tests.references import matmul_ref
from tests.test_kernels_matmul import B910, B950, check_kernel, random_array

THROUGH_GM = Path(__file__).resolve().parent / "kernels" / "ops" / "wide_operand_through_gm.py"

WIDE = '''import pypto.language as pl


@pl.program
class Wide:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[M, K], pl.DT], w: pl.Tensor[[K, 32], pl.DT]) -> pl.Tensor[[M, 32], pl.FP32]:
        shifted: pl.Tensor[[M, K], pl.DT] = pl.tensor.adds(x, pl.const(1.0, pl.DT))
        product: pl.Tensor[[M, 32], pl.FP32] = pl.tensor.matmul(shifted, w, out_dtype=pl.FP32)
        magnitude: pl.Tensor[[M, 32], pl.FP32] = pl.tensor.abs(product)
        return magnitude
'''


def _compile(tmp_path: Path, m: int, k: int, dtype: str) -> tuple[int, str, Path]:
    path = tmp_path / f"wide_{m}_{k}_{dtype}.py"
    path.write_text(WIDE.replace("M", str(m)).replace("K", str(k)).replace("DT", dtype))
    log = io.StringIO()
    with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
        rc = main([str(path), "--verify-all", "--backend", B910, "-o", str(tmp_path / "out.pto")])
    return rc, log.getvalue(), path


def test_a_wide_operand_computed_on_chip_crosses_bit_exact_on_both_targets(tmp_path: Path) -> None:
    path = tmp_path / "wide.py"
    path.write_text(WIDE.replace("M", "100").replace("K", "272").replace("DT", "FP32"))
    rng = np.random.default_rng(43)
    x, w = random_array((100, 272), "FP32", rng), random_array((272, 32), "FP32", rng)
    shifted = (x + np.float32(1.0)).astype(np.float32)
    expected = {"ret0": np.abs(matmul_ref(shifted, w)).astype(np.float32)}
    for backend in (B910, B950):
        check_kernel(path, {"x": x, "w": w}, expected, backend, tmp_path)


def test_the_vector_core_pushes_the_value_and_reserves_only_the_products_slot(tmp_path: Path) -> None:
    rc, log, _ = _compile(tmp_path, 100, 272, "FP32")
    assert rc == 0, log
    vector = (tmp_path / "out.pto").read_text().split("#pto.kernel_kind<vector>", 1)[1]
    pushes = [line for line in vector.splitlines() if "pto.tpush_to_aic" in line]
    assert len(pushes) == 1 and "rows=100, cols=272, v_row=100, v_col=272" in pushes[0], pushes
    assert "rows=112, cols=272" not in vector  # no boxed copy on the vector core
    # The cube -> vector region holds the [112, 32] FP32 product (one slot), not a 121856-byte slot.
    assert 'name = "c2v_fifo", size = 14336,' in vector, vector


def test_an_operand_the_vector_core_cannot_hold_is_refused_with_the_way_out(tmp_path: Path) -> None:
    rc, log, _ = _compile(tmp_path, 96, 480, "FP32")
    assert rc == 1 and "internal compiler error" not in log, log
    assert "[AllocateMemoryAddr]" in log and "crosses from this Vec to the cube core" in log, log
    assert "pass it to this one as a GM tensor" in log, log


def test_the_way_out_computes_it_in_a_kernel_of_its_own(tmp_path: Path) -> None:
    rng = np.random.default_rng(41)
    x, weights = random_array((100, 272), "FP32", rng), random_array((272, 32), "FP32", rng)
    half = (x * np.float32(0.5)).astype(np.float32)
    expected = {"ret0": np.abs(matmul_ref(half, weights)).astype(np.float32), "ret1": half}
    for backend in (B910, B950):
        check_kernel(THROUGH_GM, {"x": x, "weights": weights}, expected, backend, tmp_path)


def test_the_generator_draws_only_operands_that_cross() -> None:
    assert not computed_operand_fits("a2a3", 96, 480, 32, DataType.FP32)
    assert computed_operand_fits("a5", 96, 480, 32, DataType.FP32)  # Vec -> Mat is a data path there
    assert computed_operand_fits("a2a3", 16, 16, 16, DataType.FP16)


def test_the_largest_operands_the_generator_keeps_compile(tmp_path: Path) -> None:
    for dtype in (DataType.FP32, DataType.FP16):
        kept = [(m, k) for m in CUBE_M for k in CUBE_K if computed_operand_fits("a2a3", m, k, 32, dtype)]
        m, k = max(kept, key=lambda shape: (shape[0] * shape[1], shape[0]))
        rc, log, _ = _compile(tmp_path, m, k, dtype.name)
        assert rc == 0, (m, k, dtype, log)
