"""Operator forms PyPTO's programs use, end to end: each kernel is compiled and simulated
through the CLI on NumPy inputs, compared bit for bit with a NumPy reference written here,
and its PTO text is handed to the real assembler (PTOAS 0.44) for the arch it targets.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from tests.test_kernels_matmul import B910, B950, assert_bits_equal, run_cli
from tests.test_ptoas import ARCH, PTOAS, needs_ptoas

Array = npt.NDArray[Any]


def compile_and_run(tmp: Path, source: str, inputs: dict[str, Array], backend: str) -> tuple[dict[str, Array], Path]:
    kernel = tmp / "kernel.py"
    kernel.write_text(source)
    rc, log, outputs = run_cli(kernel, inputs, backend, tmp)
    assert rc == 0, log
    assert "bit-exact" in log and "differ" not in log, log
    return outputs, tmp / "out.pto"


def assert_ptoas_accepts(pto: Path, backend: str) -> None:
    if PTOAS is None or not PTOAS.is_file():
        pytest.skip("PTOAS is not built")
    result = subprocess.run([str(PTOAS), f"--pto-arch={ARCH[backend]}", "--pto-level=level3", str(pto),
                             "-o", str(pto.with_suffix(".cpp"))], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"PTOAS rejects:\n{result.stderr}\n{pto.read_text()}"


def compile_error(tmp: Path, source: str, backend: str = B910) -> str:
    kernel = tmp / "bad.py"
    kernel.write_text(source)
    rc, log, _ = run_cli(kernel, {}, backend, tmp)
    assert rc == 1, log
    assert "Traceback" not in log, log
    return log


# -- tile.tri: a partially valid mask annotated without its TileView; INT8 on Ascend950 -------------

PARTIAL_TRI = """\
import pypto.language as pl


@pl.program
class PartialTri:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, out: pl.InOut[pl.Tensor[[16, 32], pl.DTYPE]]) -> pl.Tensor[[16, 32], pl.DTYPE]:
        mask: pl.Tile[[16, 32], pl.DTYPE] = pl.tile.tri(2, [16, 32], valid_shape=[9, 21], dtype=pl.DTYPE, upper=True)
        out = pl.store(mask, [0, 0], out)
        return out
"""


def upper_triangle_ref(background: Array, diagonal: int, rows: int, cols: int) -> Array:
    """1 where c >= r + diagonal inside the valid [rows, cols] window; the rest untouched."""
    out = background.copy()
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    out[:rows, :cols] = (c >= r + diagonal).astype(out.dtype)
    return out


@needs_ptoas
@pytest.mark.parametrize("dtype, np_dtype, backend", [("INT8", np.int8, B950), ("INT32", np.int32, B910)])
def test_partially_valid_tri_annotated_without_its_view(tmp_path: Path, dtype: str, np_dtype: Any,
                                                        backend: str) -> None:
    # PyPTO checks an annotation's kind, dtype, rank and static dims only: the valid shape the
    # call states completes `pl.Tile[[16, 32], ...]` instead of contradicting it.
    background = np.full((16, 32), 7, np_dtype)
    outputs, pto = compile_and_run(tmp_path, PARTIAL_TRI.replace("DTYPE", dtype), {"out": background}, backend)
    assert_bits_equal("out", upper_triangle_ref(background, 2, 9, 21), outputs["out"])
    assert "v_row=9, v_col=21" in pto.read_text()
    assert_ptoas_accepts(pto, backend)


def test_int8_tri_is_ascend950_only(tmp_path: Path) -> None:
    log = compile_error(tmp_path, PARTIAL_TRI.replace("DTYPE", "INT8"), B910)
    assert "bad.py:8:" in log and "tile.tri on Ascend910B" in log and "compile for Ascend950" in log, log


def test_a_stated_valid_shape_must_still_agree(tmp_path: Path) -> None:
    source = PARTIAL_TRI.replace("DTYPE", "INT32").replace(
        "mask: pl.Tile[[16, 32], pl.INT32]", "mask: pl.Tile[[16, 32], pl.INT32, pl.TileView(valid_shape=[9, 20])]")
    log = compile_error(tmp_path, source)
    assert "bad.py:8:" in log and "valid_shape=[9, 21]" in log, log
