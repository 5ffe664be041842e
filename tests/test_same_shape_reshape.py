"""A reshape to its operand's own shape moves nothing, also of a cube-boxed product (finding
63b875b796 was refused as 'a reshape needs a buffer holding exactly [1, 16]')."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from languages.pl_parser import parse_program
from nanopass_pto.run import compile_program, random_inputs, run

KERNEL = (Path(__file__).parent / "kernels" / "ops" / "same_shape_reshape_of_a_boxed_product.py").read_text()


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_a_same_shape_reshape_of_an_m1_product_matches_numpy(backend: str) -> None:
    compiled = compile_program(parse_program(KERNEL, "k.py"), backend=backend, verify_all=True)
    inputs = random_inputs(compiled.source, 8)
    got = np.asarray(run(compiled, inputs)["ret0"], dtype=np.float32)
    a, b = (np.asarray(inputs[n], dtype=np.float16).astype(np.float32) for n in ("a", "b"))
    product = np.zeros((1, 16), dtype=np.float32)
    for k in range(16):  # NUMERICS.md: one sequential FP32 chain over K
        product = (product + a[:, k:k + 1] * b[k:k + 1, :]).astype(np.float32)
    expected = (product + product).astype(np.float32)
    assert np.array_equal(got.view(np.uint32), expected.view(np.uint32))
