"""A loop carry seeded by a vector value whose body yields a matmul product (a fuzz finding:
`python -m nanopass.fuzz --time 60` on Ascend910B at cfb3cd4, not filed).

InferTileMemorySpace put a carry, its yielded value and its result in one buffer; a yielded
product fixed that buffer in Acc, which nothing but the cube's mad writes, so the seed (a Vec
value, or an outer loop's carry seeded so) was refused: "the loop's init_values needs `acc7_tile`
in Acc, but it lives in Vec". Such a carry now lives where its seed does and the product hops
into it at the yield (an Acc -> Vec move, the cube-to-vector FIFO on Ascend910B); its matmul
uses hop to Mat (the vector-to-cube FIFO on Ascend910B), its vector uses read it in place, and
a nested loop seeded by it is placed the same way; a seed whose space cannot serve the carry's
uses (a Mat tile stored after the loop) is re-loaded where they are served. Each kernel is compared bit for bit with
NumPy on both targets.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import numpy as np
import pytest

from tests.references import matmul_ref
from tests.test_kernels_matmul import B910, B950, check_kernel, random_array

OPS = Path(__file__).resolve().parent / "kernels" / "ops"
F32 = np.float32
Array = np.ndarray


def _seeded_in_vec(x: Array, b: Array) -> dict[str, Array]:
    # outer carry (x + 0.5) read by abs and fed to an inner loop as the matmul lhs
    acc, total = (x + F32(0.5)).astype(F32), (x * F32(0.0)).astype(F32)
    for _ in range(2):
        total = (total + np.abs(acc)).astype(F32)
        acc = matmul_ref(acc, b)
    return {"ret0": acc, "ret1": total}


def _as_rhs(x: Array, b: Array) -> dict[str, Array]:
    acc, total = (x * F32(0.25)).astype(F32), (x * F32(0.0)).astype(F32)
    for _ in range(3):
        total = (total + acc).astype(F32)
        acc = matmul_ref(b, acc)
    return {"ret0": acc, "ret1": total}


def _param_nested(x: Array, b: Array) -> dict[str, Array]:
    acc, total = x, (b * F32(0.0)).astype(F32)
    for _ in range(2):
        total = (total + np.abs(acc)).astype(F32)
        for _ in range(2):
            acc = matmul_ref(acc, b)
    return {"ret0": acc, "ret1": total}


def _cube_only(x: Array, b: Array, seed: float | None) -> dict[str, Array]:
    acc = x if seed is None else (x + F32(seed)).astype(F32)
    for _ in range(4):
        acc = matmul_ref(acc, b)
    return {"ret0": acc}


def _mat_seeded(x: Array, b: Array) -> dict[str, Array]:
    acc = x
    for _ in range(2):
        acc = matmul_ref(acc, b)
    return {"ret0": acc, "out": acc}


CASES: dict[str, tuple[str, Callable[[Array, Array], dict[str, Array]], tuple[str, str]]] = {
    "vec-seed-abs-and-inner-lhs": ("carry_seeded_in_vec_yields_product.py", _seeded_in_vec, ("x1", "b2")),
    "vec-seed-add-and-rhs": ("carry_as_rhs_yields_product.py", _as_rhs, ("x", "b")),
    "param-seed-nested": ("param_carry_nested_product.py", _param_nested, ("x", "b")),
    "vec-seed-cube-only-nested": ("cube_only_nested_carry.py", lambda x, b: _cube_only(x, b, 0.5), ("x", "b")),
    "loaded-seed-cube-only-nested": ("loaded_nested_carry.py", lambda x, b: _cube_only(x, b, None), ("x", "b")),
    # A tile seed loaded into Mat whose carry is stored: Mat tiles are never stored, so the
    # carry lives in Vec (the seed re-loaded there) and its matmul use hops to Mat.
    "mat-seed-stored": ("mat_seeded_carry_stored.py", _mat_seeded, ("x", "b")),
}


@pytest.mark.parametrize("backend", [B910, B950])
@pytest.mark.parametrize("case", sorted(CASES))
def test_a_carry_seeded_off_the_cube_that_yields_a_product_is_bit_exact(case: str, backend: str,
                                                                        tmp_path: Path) -> None:
    name, reference, (x_name, b_name) = CASES[case]
    rng = np.random.default_rng(len(case))
    # Small magnitudes: four chained 16 x 16 products stay well inside FP32.
    x = (random_array((16, 16), "FP32", rng) * F32(0.25)).astype(F32)
    b = (random_array((16, 16), "FP32", rng) * F32(0.25)).astype(F32)
    check_kernel(OPS / name, {x_name: x, b_name: b}, reference(x, b), backend, tmp_path)


def test_the_product_crosses_to_the_vector_core_at_the_yield_on_ascend910b(tmp_path: Path) -> None:
    """On Ascend910B the carry stays in Vec: the product is pushed to the vector core at each
    inner yield and the carry is pushed back to the cube as the next matmul's lhs."""
    from tests.test_kernels_matmul import run_cli
    rng = np.random.default_rng(1)
    x, b = random_array((16, 16), "FP32", rng), random_array((16, 16), "FP32", rng)
    rc, log, _ = run_cli(OPS / "carry_seeded_in_vec_yields_product.py", {"x1": x, "b2": b}, B910, tmp_path)
    assert rc == 0, log
    pto = (tmp_path / "out.pto").read_text()
    cube, vector = pto.split("#pto.kernel_kind<vector>", 1)
    assert "pto.tpush_to_aiv" in cube and "pto.tpop_from_aiv" in cube, cube
    assert "pto.tpop_from_aic" in vector and "pto.tpush_to_aic" in vector, vector
