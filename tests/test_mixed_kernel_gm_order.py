"""The cube and the vector kernel of a mixed kernel share GM tensors in program order
(finding 12a833000a: a cube product assembled into a window of a GM tensor, the window then
returned, i.e. loaded back on the vector core, was refused by ExpandMixedKernel: "GM tensor
`big11` is written on the cube core (AIC) and also accessed on the vector core (AIV)").

The two kernels run concurrently; ExpandMixedKernel now puts an all-core barrier (a hard mix
syncall, pto-isa's SYNCALL: drain every pipe, then wait for the cube and the vector cores)
between every two accesses of one GM tensor by the two cores that nothing else orders, in loops
against the previous iteration too. The simulator shares an InOut tensor's memory between the
kernels of a launch (a store is seen by the other kernel's later load, not when the storing
kernel ends) and holds a core at a mix barrier until the other arrives, so a missing barrier
shows as a mismatch; the CrossCoreGmOrdered verifier refuses one statically. A scalar access
(tensor.read / tensor.write, the D-cache) of a tensor the other core writes stays refused, at
the user's line. These kernels are mixed on Ascend910B only (Ascend950 moves Vec -> Mat within a
core); both targets are compared with NumPy.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import numpy as np
import pytest

from nanopass.pipeline import main
from nanopass_pto.mutants import MUTANTS
from tests.references import matmul_ref
from tests.test_kernels_matmul import B910, B950, check_kernel, random_array, run_cli

ROOT = Path(__file__).resolve().parent
OPS = ROOT / "kernels" / "ops"
READ_THEN_OVERWRITTEN = OPS / "mixed_kernel_gm_read_then_overwritten.py"
SHARED_IN_A_LOOP = OPS / "mixed_kernel_gm_shared_in_a_loop.py"
SHARED_IN_A_BRANCH = OPS / "mixed_kernel_gm_shared_in_a_branch.py"
FINDING = ROOT / "regressions" / "fuzz_rejected_expand_mixed_kernel_12a833000a.py"
F32 = np.float32
BARRIER = "pto.syncall() mode = #pto.sync_all_mode<hard>, core_type = #pto.sync_core_type<mix>"

SCALAR_SHARED = '''import pypto.language as pl


@pl.program
class ScalarShared:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16], big: pl.Tensor[[16, 16], pl.FP32]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        clipped: pl.Tensor[[16, 16], pl.FP16] = pl.tensor.maximum(a, pl.const(-1.5, pl.FP16))
        product: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.matmul(clipped, b, out_dtype=pl.FP32)
        written: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(big, product, [0, 0])
        first: pl.Scalar[pl.FP32] = pl.tensor.read(written, [0, 0])
        shifted: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.adds(pl.tensor.cast(b, pl.FP32), first)
        return written, shifted
'''


def _inputs(rows: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {"a": random_array((16, 16), "FP16", rng), "b": random_array((16, 16), "FP16", rng),
            "big": random_array((rows, 16), "FP32", rng)}


def _product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return matmul_ref(np.maximum(a, np.float16(-1.5)), b)


@pytest.mark.parametrize("backend", [B910, B950])
def test_a_tensor_read_then_overwritten_by_the_cube_is_bit_exact(backend: str, tmp_path: Path) -> None:
    inputs = _inputs(20, 3)
    big = inputs["big"].copy()
    before = (big + F32(1.0)).astype(F32)
    big[1:17] = _product(inputs["a"], inputs["b"])
    check_kernel(READ_THEN_OVERWRITTEN, inputs, {"ret0": before, "ret1": big[1:17], "big": big}, backend, tmp_path)


@pytest.mark.parametrize("backend", [B910, B950])
def test_a_tensor_shared_by_the_cores_across_loop_iterations_is_bit_exact(backend: str, tmp_path: Path) -> None:
    inputs = _inputs(24, 5)
    buf = inputs["big"].copy()
    total = (buf[8:24] * F32(0.0)).astype(F32)
    product = _product(inputs["a"], inputs["b"])
    for i in range(2):
        total = (total + buf[4 * i:4 * i + 16]).astype(F32)
        buf[8 * i:8 * i + 16] = product
    check_kernel(SHARED_IN_A_LOOP, inputs, {"ret0": buf, "ret1": total, "big": buf}, backend, tmp_path)


@pytest.mark.parametrize("backend", [B910, B950])
@pytest.mark.parametrize("k", [0.25, 0.75])
def test_a_tensor_shared_in_one_branch_is_bit_exact(k: float, backend: str, tmp_path: Path) -> None:
    inputs: dict[str, np.ndarray] = {**_inputs(16, 9), "k": np.asarray(k, np.float32)}
    big = inputs["big"].copy()
    if k < 0.5:
        big = _product(inputs["a"], inputs["b"])
        phi = (big + F32(1.0)).astype(F32)
    else:
        phi = (big + F32(2.0)).astype(F32)
    check_kernel(SHARED_IN_A_BRANCH, inputs, {"ret0": phi, "big": big}, backend, tmp_path)


def test_a_barrier_some_blocks_would_skip_is_refused_at_the_users_line(tmp_path: Path) -> None:
    path = tmp_path / "divergent.py"
    path.write_text(SHARED_IN_A_BRANCH.read_text().replace(
        "big: pl.Tensor[[16, 16], pl.FP32], k: pl.Scalar[pl.FP32])", "big: pl.Tensor[[16, 16], pl.FP32])").replace(
        "        if k < pl.const(0.5, pl.FP32):",
        "        block: pl.Scalar[pl.INDEX] = pl.tensor.get_block_idx()\n        if block == 0:"))
    log = io.StringIO()
    with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
        rc = main([str(path), "--verify-all", "--backend", B910, "-o", str(tmp_path / "out.pto")])
    text = log.getvalue()
    assert rc == 1 and "internal compiler error" not in text, text
    assert "error: [ExpandMixedKernel] not supported yet" in text and "depends on the block or lane index" in text, text
    assert "pl.tensor.adds(written" in text, text  # the read back, at the user's line


def test_the_finding_is_bit_exact_on_both_targets(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    x1, x5 = random_array((16, 16), "FP16", rng), random_array((1, 16), "FP16", rng)
    x6, big11 = random_array((16, 1), "FP16", rng), random_array((20, 16), "FP32", rng)
    clipped = np.maximum(np.minimum(x1, x1), np.float16(-1.5))
    product = matmul_ref(clipped, clipped)
    inputs = {"kernel0_x1": random_array((16, 16), "FP32", rng), "kernel0_x5": random_array((16, 16), "FP32", rng),
              "kernel0_x7": random_array((16, 1), "FP32", rng), "kernel0_x10": random_array((1, 16), "FP32", rng),
              "kernel1_x1": x1, "kernel1_x5": x5, "kernel1_x6": x6, "kernel1_big11": big11,
              "kernel2_x1": random_array((16, 32), "FP32", rng), "kernel2_k2": np.asarray(0.75, np.float32)}
    written = big11.copy()
    written[1:17] = product
    for backend in (B910, B950):
        check_kernel(FINDING, inputs, {"ret3": product, "kernel1_big11": written}, backend, tmp_path)


@pytest.mark.parametrize("kernel, barriers", [(READ_THEN_OVERWRITTEN, 2), (SHARED_IN_A_LOOP, 3)])
def test_both_kernels_take_the_barriers_on_ascend910b(kernel: Path, barriers: int, tmp_path: Path) -> None:
    rows = 20 if kernel == READ_THEN_OVERWRITTEN else 24
    rc, log, _ = run_cli(kernel, _inputs(rows, 1), B910, tmp_path)
    assert rc == 0, log
    pto = (tmp_path / "out.pto").read_text()
    cube, vector = pto.split("func.func @kernel_aiv", 1)
    assert "#pto.kernel_kind<cube>" in cube, pto
    assert cube.count(BARRIER) == barriers and vector.count(BARRIER) == barriers, pto


def _mutated(kernel: Path, flags: list[str], tmp_path: Path) -> tuple[int, str]:
    mutant = next(m for m in MUTANTS if m.name == "cross-core-gm-accesses-unordered")
    log = io.StringIO()
    with mutant.applied(), contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
        rc = main([str(kernel), *flags, "--backend", B910, "-o", str(tmp_path / "m.pto"),
                   "--reproducer-dir", str(tmp_path / "repro")])
    return rc, log.getvalue()


@pytest.mark.parametrize("kernel", [READ_THEN_OVERWRITTEN, SHARED_IN_A_LOOP, SHARED_IN_A_BRANCH, FINDING])
def test_without_the_barriers_the_verifier_refuses_and_the_simulator_differs(kernel: Path, tmp_path: Path) -> None:
    rc, log = _mutated(kernel, ["--verify-all"], tmp_path)
    assert rc == 2 and "CrossCoreGmOrdered" in log, log
    if kernel == SHARED_IN_A_BRANCH:
        return  # random inputs may take the branch that shares nothing
    rc, log = _mutated(kernel, ["--simulate"], tmp_path)
    assert rc == 1 and "MISMATCH" in log, log


def test_a_scalar_read_of_a_tensor_the_cube_writes_is_refused_at_the_users_line(tmp_path: Path) -> None:
    path = tmp_path / "scalar_shared.py"
    path.write_text(SCALAR_SHARED)
    log = io.StringIO()
    with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
        rc = main([str(path), "--verify-all", "--backend", B910, "-o", str(tmp_path / "out.pto")])
    text = log.getvalue()
    assert rc == 1 and "internal compiler error" not in text, text
    assert f"{path}:11:9: error: [ExpandMixedKernel] GM tensor `big` is read on the vector core" in text, text
    assert "scalar access" in text and "pl.tensor.slice / pl.tensor.assemble" in text, text


def test_the_generator_keeps_a_bulk_written_tensor_off_scalar_reads() -> None:
    """The refusal above is a fact the generator asks too (gm_store_paths.shared_through_the_dcache):
    once a kernel has assembled a value into a GM parameter, a tensor.read of it is redrawn, and
    the kernel's scalar reads of GM read other parameters (or on-chip values)."""
    from backend.fuzzing.generator import Features, TargetRuleMiss, _KernelBuilder
    from languages.gen import tensor as T
    from languages.ops.gm_store_paths import BULK, SCALAR, shared_through_the_dcache
    from languages.types import DataType, TensorType

    assert shared_through_the_dcache({(True, False, SCALAR), (False, True, BULK)})
    assert shared_through_the_dcache({(False, True, SCALAR), (True, False, BULK)})
    assert not shared_through_the_dcache({(True, False, SCALAR), (True, False, BULK)})
    assert not shared_through_the_dcache({(False, True, BULK), (True, False, BULK)})

    def never(*_: object) -> object:
        raise AssertionError("nothing is drawn here")

    builder = _KernelBuilder(never, Features(), "kernel0", arch="a2a3")
    ty = TensorType((16, 16), DataType.FP32)
    value, big, other = builder.param(ty), builder.param(ty, "big"), builder.param(ty)
    index = T.TupleExpr((T.ConstInt(0, DataType.INDEX), T.ConstInt(0, DataType.INDEX)))
    builder.call("tensor.read", (other, index))  # nothing written: a scalar read of GM is drawn
    builder.call("tensor.assemble", (big, value, index))
    with pytest.raises(TargetRuleMiss):
        builder.call("tensor.read", (big, index))


def test_the_users_own_mix_barrier_orders_the_accesses_and_none_is_added(tmp_path: Path) -> None:
    path = tmp_path / "user_barrier.py"
    path.write_text(SCALAR_SHARED.replace("class ScalarShared", "class UserBarrier").replace(
        "        first: pl.Scalar[pl.FP32] = pl.tensor.read(written, [0, 0])\n",
        "        pl.system.syncall(mode=\"hard\", core_type=\"mix\")\n").replace(
        "pl.tensor.adds(pl.tensor.cast(b, pl.FP32), first)", "pl.tensor.adds(written, pl.const(1.0, pl.FP32))"))
    inputs = _inputs(16, 11)
    big = _product(inputs["a"], inputs["b"])
    check_kernel(path, inputs, {"ret0": big, "ret1": (big + F32(1.0)).astype(F32), "big": big}, B910, tmp_path)
    pto = (tmp_path / "out.pto").read_text()
    cube, vector = pto.split("func.func @kernel_aiv", 1)
    assert cube.count(BARRIER) == 1 and vector.count(BARRIER) == 1, pto
