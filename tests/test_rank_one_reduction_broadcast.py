"""A 1-D tensor's element-wise op with a one-element 1-D operand (the [1] a row reduction of an
[n] vector gives) broadcasts the value along the vector, as NumPy does (the operator catalogue:
tensor.add/sub/mul/div/maximum/minimum broadcast fully). ConvertTensorToTileOps lowers the [1]
operand as the [1, 1] row of a 1-D tile, spreads it over the [1, n] row and views that as [n]
again; it refused the 1-D result with 'only 2-D ... operands broadcast on chip' (finding
f4a5397247). tests/kernels/ops/one_value_of_a_vector_reduction_broadcast.py is the `sub` kernel,
which tests/test_ptoas.py assembles for both targets."""

from __future__ import annotations

import numpy as np
import pytest

from languages.ops import type_of
from languages.pl_parser import parse_program
from nanopass.node import walk
from nanopass_pto.run import compile_program, reference, run

HEADER = "import pypto.language as pl\n\n\n@pl.program\nclass K:\n    @pl.function(type=pl.FunctionType.InCore)\n"

# The sum of one vector, set against another vector (both orders) and against a matrix.
KERNEL = HEADER + """\
    def k(self, x: pl.Tensor[[16], pl.FP32], v: pl.Tensor[[16], pl.FP32], m: pl.Tensor[[4, 16], pl.FP32]) -> tuple[
            pl.Tensor[[16], pl.FP32], pl.Tensor[[16], pl.FP32], pl.Tensor[[4, 16], pl.FP32]]:
        total: pl.Tensor[[1], pl.FP32] = pl.tensor.row_sum(x)
        left: pl.Tensor[[16], pl.FP32] = pl.tensor.OP(total, v)
        right: pl.Tensor[[16], pl.FP32] = pl.tensor.OP(v, total)
        grid: pl.Tensor[[4, 16], pl.FP32] = pl.tensor.OP(m, total)
        return left, right, grid
"""

NUMPY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
         "maximum": np.maximum, "minimum": np.minimum}


def _bits(array: object) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(array, dtype=np.float32)).view(np.uint32)


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
@pytest.mark.parametrize("op", sorted(NUMPY))
def test_a_one_element_vector_broadcasts_along_a_vector(op: str, backend: str) -> None:
    rng = np.random.default_rng(7)
    # Small integers: the sum of x is exact in any order, so NumPy's is the kernel's; no zero
    # divisor, so every quotient is a finite number.
    x = rng.integers(-8, 9, 16).astype(np.float32)
    v = rng.choice([-3, -2, -1, 1, 2, 3, 5], 16).astype(np.float32)
    m = rng.choice([-4, -1, 1, 2, 7], (4, 16)).astype(np.float32)
    source = parse_program(KERNEL.replace("OP", op), "k.py")
    compiled = compile_program(source, backend=backend, verify_all=True)
    inputs = {"x": x, "v": v, "m": m}
    outputs = run(compiled, inputs)
    interpreted = reference(source, inputs)
    total = np.float32(x.sum(dtype=np.float32)).reshape(1)
    fn = NUMPY[op]
    expected = {"ret0": fn(total, v), "ret1": fn(v, total), "ret2": fn(m, total)}
    for name, want in expected.items():
        assert np.asarray(outputs[name]).shape == want.shape
        assert np.array_equal(_bits(outputs[name]), _bits(want)), (name, outputs[name], want)
        assert np.array_equal(_bits(interpreted[name]), _bits(want)), name


def test_the_value_is_spread_over_a_row_viewed_as_the_vector() -> None:
    source = parse_program(KERNEL.replace("OP", "sub"), "k.py")
    converted = compile_program(source, pipeline="convert-tensor-to-tile-ops", verify_all=True).final
    calls = [n for n in walk(converted) if n.KIND == "Call"]
    spread = [c for c in calls if getattr(c, "op") == "tile.row_expand_mul"]
    assert spread and all(tuple(getattr(type_of(c), "shape")) == (1, 16) for c in spread)
    subs = [c for c in calls if getattr(c, "op") == "tile.sub"]
    assert len(subs) == 3  # left, right and the grid, each over operands of one shape
    for sub in subs:
        shapes = {tuple(getattr(type_of(a), "shape")) for a in getattr(sub, "args")}
        assert len(shapes) == 1, shapes  # one physical shape: the [1] operand met the vector's
