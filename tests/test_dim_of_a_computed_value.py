"""`tensor.dim` of a value an InCore kernel computed: the value lives on chip (a tile), so there
is no GM tensor to query; its extent is static and the dim is that constant. A dynamic extent
says "not supported yet" at the call."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from nanopass.pipeline import main
from tests.kernel_cli import compile_kernel, program_text

KERNEL = """\
@pl.function(type=pl.FunctionType.InCore)
def kernel(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
    y = pl.tensor.adds(x, 1.0)
    n = pl.tensor.dim(y, -1)
    scale = pl.cast(n, pl.FP32)
    return pl.tensor.muls(y, scale)
"""


def test_the_dim_of_a_computed_value_is_its_static_extent(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    x = np.random.default_rng(3).standard_normal((16, 32)).astype(np.float32)
    text = program_text(KERNEL)
    rc, log = compile_kernel(tmp_path, capsys, text, {"x": x})
    assert rc == 0, log
    got = np.load(tmp_path / "out.npz")["ret0"]
    want = (x + np.float32(1.0)) * np.float32(32.0)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
    rc = main([str(tmp_path / "kernel.py"), "--until", "TileUnplaced", "-o", str(tmp_path / "t.py")])
    assert rc == 0
    lowered = (tmp_path / "t.py").read_text()
    assert "tensor.dim" not in lowered and "n: pl.Scalar[pl.INDEX] = 32" in lowered, lowered
