"""A column broadcast of a cube result with N = 1 by one value ([m, 1] by [1, 1]) runs as its row
twin with the value spread down the column: one value per *physical* row, since the result is
boxed in M too (a [20, 1] product is a [32, 16] tile; finding 9a075d82f4 was refused with
'expected shape [32, 1], got [20, 1]')."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from languages.pl_parser import parse_program
from nanopass_pto.run import compile_program, random_inputs, run

KERNEL = (Path(__file__).parent / "kernels" / "ops" / "boxed_column_minus_one_value.py").read_text()


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_a_row_narrowed_cube_column_minus_one_value_matches_numpy(backend: str) -> None:
    compiled = compile_program(parse_program(KERNEL, "k.py"), backend=backend, verify_all=True)
    inputs = random_inputs(compiled.source, 6)
    got = np.asarray(run(compiled, inputs)["ret0"], dtype=np.float32)[:2]
    a, b = (np.asarray(inputs[n], dtype=np.float16).astype(np.float32)[:2 if n == "a" else 16] for n in ("a", "b"))
    product = np.zeros((2, 1), dtype=np.float32)
    for k in range(16):  # NUMERICS.md: one sequential FP32 chain over K
        product = (product + a[:, k:k + 1] * b[k:k + 1, :]).astype(np.float32)
    expected = (product - np.asarray(inputs["v"], dtype=np.float32)).astype(np.float32)
    assert np.array_equal(got.view(np.uint32), expected.view(np.uint32))
