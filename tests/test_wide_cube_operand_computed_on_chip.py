"""A cube operand computed on chip too wide to cross to the cube core whole (finding e4d1c8d667).

On Ascend910B Vec -> Mat is no data path: a left operand the vector core computes crosses the
pipe whole, so the vector kernel holds the value, its boxed copy and the pipe's slots, each as
large as the largest tile the pipe carries. A [100, 272] FP32 operand needs more Vec than there
is. The compiler says so at the matmul, naming the tile that sizes the slots and the way out (a
GM operand, computed by a kernel of its own: it is loaded straight into Mat); the fuzzer's
generator draws such an operand only where it fits (computed_operand_fits, from the same
capacity, box and slot facts the planner uses). Still open: crossing such an operand in row
blocks, or a pipe slot sized per direction (docs/open_findings/README.md).
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


def test_an_operand_too_wide_to_cross_is_refused_at_the_matmul_with_the_way_out(tmp_path: Path) -> None:
    rc, log, path = _compile(tmp_path, 100, 272, "FP32")
    assert rc == 1 and "internal compiler error" not in log, log
    assert f"{path}:9:" in log and "[AllocateMemoryAddr]" in log, log
    assert "crosses to the cube core whole through the pipe" in log, log
    assert "pass it to this one as a GM tensor" in log, log


def test_the_way_out_computes_it_in_a_kernel_of_its_own(tmp_path: Path) -> None:
    rng = np.random.default_rng(41)
    x, weights = random_array((100, 272), "FP32", rng), random_array((272, 32), "FP32", rng)
    half = (x * np.float32(0.5)).astype(np.float32)
    expected = {"ret0": np.abs(matmul_ref(half, weights)).astype(np.float32), "ret1": half}
    for backend in (B910, B950):
        check_kernel(THROUGH_GM, {"x": x, "weights": weights}, expected, backend, tmp_path)


def test_the_generator_draws_only_operands_that_cross() -> None:
    assert not computed_operand_fits("a2a3", 100, 272, DataType.FP32)
    assert computed_operand_fits("a5", 100, 272, DataType.FP32)  # Vec -> Mat is a data path there
    assert computed_operand_fits("a2a3", 16, 16, DataType.FP16)


def test_the_largest_operands_the_generator_keeps_compile(tmp_path: Path) -> None:
    for dtype in (DataType.FP32, DataType.FP16):
        kept = [(m, k) for m in CUBE_M for k in CUBE_K if computed_operand_fits("a2a3", m, k, dtype)]
        m, k = max(kept, key=lambda shape: (shape[0] * shape[1], shape[0]))
        rc, log, _ = _compile(tmp_path, m, k, dtype.name)
        assert rc == 0, (m, k, dtype, log)
