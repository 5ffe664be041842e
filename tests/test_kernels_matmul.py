"""Matmul kernels written the way a PyPTO user would, run through the CLI exactly as a user runs
them (`--verify-all --simulate --inputs IN.npz --save-outputs OUT.npz --backend B`) and compared
bit for bit with NumPy references written here from NUMERICS.md, independently of
backend/numerics.py:

- cube MAD: one sequential fused chain over K per element (float64 product, which is exact for
  every float input pair, plus a float64 TwoSum rounded to odd before the single narrowing to
  FP32); INT8 sums in int64 wrapped to INT32;
- FIXPIPE narrowing (out_dtype): round to nearest even;
- vector: exactly rounded FP32 ops, sequential row sums, transcendentals RNE32(f(float64)).

Hand-written kernels live in tests/kernels/matmul/; the shape sweep is generated from a template.
"""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import ml_dtypes
import numpy as np
import numpy.typing as npt
import pytest
from typing_extensions import override

from tests.references import matmul_ref, row_softmax_ref
from nanopass.pipeline import main

Array = npt.NDArray[Any]
KERNELS = Path(__file__).resolve().parent / "kernels" / "matmul"
BF16 = np.dtype(ml_dtypes.bfloat16)
NP_DTYPES: dict[str, np.dtype[Any]] = {
    "FP16": np.dtype(np.float16), "BF16": BF16, "FP32": np.dtype(np.float32),
    "INT8": np.dtype(np.int8), "INT32": np.dtype(np.int32),
}
ACCUMULATOR = {"FP16": "FP32", "BF16": "FP32", "FP32": "FP32", "INT8": "INT32"}
B910, B950 = "Ascend910B", "Ascend950"
BOTH = (B910, B950)


# -- independent references: tests/references.py -------------------------------------------------


def random_array(shape: tuple[int, ...], dtype: str, rng: np.random.Generator) -> Array:
    if dtype == "INT8":
        return rng.integers(-128, 128, size=shape).astype(np.int8)
    return rng.standard_normal(shape).astype(NP_DTYPES[dtype])


# -- running the CLI -------------------------------------------------------------------------------


def npz_form(x: Array) -> Array:
    return x.view(np.uint16) if x.dtype == BF16 else x


def bits(x: Array) -> Array:
    return x.view(np.dtype(f"u{x.dtype.itemsize}"))


def run_cli(kernel: Path, inputs: dict[str, Array], backend: str, tmp: Path) -> tuple[int, str, dict[str, Array]]:
    """`python -m nanopass.pipeline KERNEL --verify-all --simulate --inputs --save-outputs`."""
    arrays: dict[str, Any] = {k: npz_form(v) for k, v in inputs.items()}
    np.savez(tmp / "in.npz", **arrays)
    out_npz = tmp / "out.npz"
    log = io.StringIO()
    with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log), contextlib.chdir(tmp):
        rc = main([str(kernel), "--verify-all", "--simulate", "--inputs", str(tmp / "in.npz"),
                   "--save-outputs", str(out_npz), "--backend", backend, "-o", str(tmp / "out.pto")])
    outputs = dict(np.load(out_npz)) if out_npz.exists() else {}
    return rc, log.getvalue(), outputs


def assert_bits_equal(name: str, reference: Array, got: Array) -> None:
    assert got.shape == reference.shape, f"{name}: shape {got.shape} != {reference.shape}"
    ref_bits, got_bits = bits(reference), got.view(bits(reference).dtype)
    bad = np.argwhere(ref_bits != got_bits)
    assert len(bad) == 0, (f"{name}: {len(bad)} elements differ, first at {tuple(bad[0])}: "
                           f"reference {reference[tuple(bad[0])]!r} got {got.view(reference.dtype)[tuple(bad[0])]!r}")


def check_kernel(kernel: Path, inputs: dict[str, Array], expected: dict[str, Array], backend: str, tmp: Path) -> None:
    rc, log, outputs = run_cli(kernel, inputs, backend, tmp)
    assert rc == 0, log
    assert "bit-exact" in log and "differ" not in log, log
    for name, reference in expected.items():
        assert_bits_equal(name, reference, outputs[name])


# -- the shape sweep (plain tensor.matmul, generated) ----------------------------------------------


def tensor_type(shape: list[int], dtype: str) -> str:
    return f"pl.Tensor[[{', '.join(map(str, shape))}], pl.{dtype}]"


@dataclass(frozen=True)
class Plain:
    m: int
    n: int
    k: int
    dtype: str
    a_trans: bool = False
    b_trans: bool = False
    out_dtype: str | None = None
    spelling: str = "pl.matmul"
    backends: tuple[str, ...] = BOTH

    @property
    def a_shape(self) -> list[int]:
        return [self.k, self.m] if self.a_trans else [self.m, self.k]

    @property
    def b_shape(self) -> list[int]:
        return [self.n, self.k] if self.b_trans else [self.k, self.n]

    def source(self) -> str:
        result = self.out_dtype or ACCUMULATOR[self.dtype]
        kwargs = "".join(f", {name}=True" for name, on in (("a_trans", self.a_trans), ("b_trans", self.b_trans)) if on)
        if self.out_dtype or self.dtype != "INT8":
            # tensor.matmul keeps a float operand dtype unless out_dtype says otherwise (PyPTO).
            kwargs += f", out_dtype=pl.{result}"
        a_t, b_t, c_t = tensor_type(self.a_shape, self.dtype), tensor_type(self.b_shape, self.dtype), tensor_type([self.m, self.n], result)
        return f"""import pypto.language as pl


@pl.program
class Matmul:
    @pl.function(type=pl.FunctionType.InCore)
    def matmul_incore(self, a: {a_t}, b: {b_t}) -> {c_t}:
        c: {c_t} = {self.spelling}(a, b{kwargs})
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: {a_t}, b: {b_t}) -> {c_t}:
        c = self.matmul_incore(a, b)
        return c
"""

    @override
    def __str__(self) -> str:
        flags = "".join(f"-{f}" for f, on in (("at", self.a_trans), ("bt", self.b_trans)) if on)
        return f"{self.m}x{self.n}x{self.k}-{self.dtype}{flags}" + (f"-to{self.out_dtype}" if self.out_dtype else "")


SWEEP = [
    # M: 1 row, under / at / over one box, boxed 100, several boxes, over L0C rows.
    *(Plain(m, 32, 64, "FP16") for m in (1, 15, 16, 17, 100, 200)),
    Plain(300, 48, 32, "FP16", backends=(B910,)),
    # N: one box, boxed, odd multiples, wide.
    *(Plain(16, n, 32, "BF16") for n in (16, 48, 100, 512)),
    # K: one box, odd multiple, a K loop with a peeled tail (272), long K.
    *(Plain(32, 48, k, "FP32") for k in (16, 48, 272)),
    Plain(17, 32, 1024, "FP16", spelling="pl.tensor.matmul"),
    # INT8: K a multiple of its 32-wide box; N boxed to 32.
    Plain(15, 48, 64, "INT8"), Plain(100, 16, 512, "INT8"), Plain(256, 128, 32, "INT8", backends=(B950,)),
    # Transposed operands (M / N on the other axis).
    Plain(100, 48, 64, "FP16", a_trans=True), Plain(17, 100, 48, "BF16", b_trans=True),
    Plain(40, 24, 32, "FP32", a_trans=True, b_trans=True), Plain(32, 48, 64, "INT8", b_trans=True),
    # FIXPIPE narrowing on the store (RNE).
    Plain(48, 64, 64, "FP16", out_dtype="FP16"), Plain(100, 32, 48, "FP32", out_dtype="BF16"),
    Plain(300, 512, 32, "BF16", out_dtype="FP16", backends=(B950,)),
    # Output over L0C: on one axis, on both.
    Plain(256, 512, 32, "FP16", backends=(B910,)), Plain(512, 256, 32, "FP32", backends=(B950,)),
    # K-tiled with a big square.
    Plain(128, 128, 256, "FP16", backends=(B950,)),
]


@pytest.mark.parametrize("case", SWEEP, ids=str)
def test_plain_matmul_sweep(case: Plain, tmp_path: Path) -> None:
    kernel = tmp_path / "matmul.py"
    kernel.write_text(case.source())
    rng = np.random.default_rng(case.m * 7919 + case.n * 31 + case.k)
    a = random_array(tuple(case.a_shape), case.dtype, rng)
    b = random_array(tuple(case.b_shape), case.dtype, rng)
    reference = matmul_ref(a.T if case.a_trans else a, b.T if case.b_trans else b)
    if case.out_dtype:
        reference = reference.astype(NP_DTYPES[case.out_dtype])
    for backend in case.backends:
        work = tmp_path / backend
        work.mkdir()
        check_kernel(kernel, {"a": a, "b": b}, {"ret0": reference}, backend, work)


def test_out_dtype_narrowing_is_round_to_nearest_even(tmp_path: Path) -> None:
    """FP32 products that land exactly halfway between two FP16 values: RNE, not ties-away."""
    case = Plain(16, 16, 16, "FP32", out_dtype="FP16")
    kernel = tmp_path / "matmul.py"
    kernel.write_text(case.source())
    ulp = 2.0 ** -10
    halfway = np.array([1 + ulp / 2, 1 + 3 * ulp / 2, -(1 + ulp / 2), 2048 + 1, 2048 + 3], np.float32)
    a = np.zeros((16, 16), np.float32)
    a[: len(halfway), 0] = halfway
    b = np.zeros((16, 16), np.float32)
    b[0, :] = 1.0
    reference = matmul_ref(a, b).astype(np.float16)
    assert reference[0, 0] == np.float16(1.0) and reference[1, 0] == np.float16(1 + 2 * ulp)
    for backend in BOTH:
        (tmp_path / backend).mkdir()
        check_kernel(kernel, {"a": a, "b": b}, {"ret0": reference}, backend, tmp_path / backend)


# -- hand-written kernels --------------------------------------------------------------------------


Inputs = dict[str, Array]


@dataclass(frozen=True)
class Kernel:
    file: str
    inputs: dict[str, tuple[tuple[int, ...], str]]
    reference: Callable[[Inputs], dict[str, Array]]
    backends: tuple[str, ...] = BOTH
    # Backends on which the kernel must be rejected, with a piece of the expected message.
    rejected: dict[str, str] = field(default_factory=dict)


def _k_loop(ins: Inputs) -> dict[str, Array]:
    return {"ret0": matmul_ref(ins["a"], ins["b"])}


def _k_loop_a_trans(ins: Inputs) -> dict[str, Array]:
    return {"ret0": matmul_ref(ins["a"].T, ins["b"])}


def _int8_b_trans(ins: Inputs) -> dict[str, Array]:
    return {"ret0": matmul_ref(ins["x"], ins["w"].T)}


def _bias_relu(ins: Inputs) -> dict[str, Array]:
    return {"ret0": np.maximum(matmul_ref(ins["a"], ins["b"]) + ins["bias"], np.float32(0))}


def _softmax(ins: Inputs) -> dict[str, Array]:
    return {"ret0": row_softmax_ref(matmul_ref(ins["q"], ins["k"].T))}


def _chained(ins: Inputs) -> dict[str, Array]:
    c = matmul_ref(ins["a"], ins["b"]).astype(BF16)  # rint cast / FIXPIPE narrowing: RNE
    return {"ret0": matmul_ref(c, ins["w"])}


def _chained_f32(ins: Inputs) -> dict[str, Array]:
    return {"ret0": matmul_ref(matmul_ref(ins["a"], ins["b"]), ins["w"])}


def _out_dtype_add(ins: Inputs) -> dict[str, Array]:
    c = matmul_ref(ins["a"], ins["b"]).astype(np.float16)
    return {"ret0": (c.astype(np.float32) + ins["x"].astype(np.float32)).astype(np.float16)}


HAND_WRITTEN = [
    Kernel("kloop_range.py", {"a": ((64, 256), "FP16"), "b": ((256, 128), "FP16")}, _k_loop),
    Kernel("kloop_pipe.py", {"a": ((64, 256), "FP16"), "b": ((256, 128), "FP16")}, _k_loop),
    Kernel("kloop_m100_atrans.py", {"a": ((128, 100), "BF16"), "b": ((128, 80), "BF16")}, _k_loop_a_trans),
    Kernel("int8_kloop_btrans.py", {"x": ((17, 256), "INT8"), "w": ((48, 256), "INT8")}, _int8_b_trans),
    Kernel("manual_right_ok.py", {"a": ((32, 256), "FP16"), "b": ((256, 64), "FP16")}, _k_loop),
    Kernel("chained_f32.py", {"a": ((64, 64), "BF16"), "b": ((64, 128), "BF16"), "w": ((128, 32), "FP32")}, _chained_f32),
    # Vector work on a matmul result needs Acc → Vec: a direct move on 950, a cross-core
    # tpush / tpop between the AIC and AIV kernels on 910B (ExpandMixedKernel).
    Kernel("mm_bias_relu.py", {"a": ((32, 64), "FP16"), "b": ((64, 64), "FP16"), "bias": ((32, 64), "FP32")},
           _bias_relu, backends=BOTH),
    Kernel("mm_softmax.py", {"q": ((100, 64), "FP16"), "k": ((48, 64), "FP16")}, _softmax,
           backends=BOTH),
    Kernel("chained_cast_rint.py", {"a": ((64, 64), "BF16"), "b": ((64, 128), "BF16"), "w": ((128, 32), "BF16")},
           _chained, backends=BOTH),
    Kernel("chained_outdtype.py", {"a": ((64, 64), "BF16"), "b": ((64, 128), "BF16"), "w": ((128, 32), "BF16")},
           _chained, backends=BOTH),
    Kernel("outdtype_add.py", {"a": ((32, 64), "FP16"), "b": ((64, 32), "FP16"), "x": ((32, 32), "FP16")},
           _out_dtype_add, backends=BOTH),
    # Bad input: the spec's messages, at the user's line, no traceback.
    Kernel("manual_right_too_big.py", {"a": ((32, 256), "FP16"), "b": ((256, 256), "FP16")}, _k_loop, backends=(),
           rejected={b: "holds only 65536 bytes" for b in BOTH}),
    Kernel("gm_accumulator_rejected.py", {"c0": ((48, 64), "FP32"), "a": ((48, 96), "FP16"), "b": ((96, 64), "FP16")},
           _k_loop, backends=(), rejected={b: "operand 0 of `tensor.matmul_acc` is a GM tensor" for b in BOTH}),
]


@pytest.mark.parametrize("kernel", HAND_WRITTEN, ids=lambda k: k.file.removesuffix(".py"))
def test_hand_written_kernel(kernel: Kernel, tmp_path: Path) -> None:
    rng = np.random.default_rng(len(kernel.file))
    inputs = {name: random_array(shape, dtype, rng) for name, (shape, dtype) in kernel.inputs.items()}
    path = KERNELS / kernel.file
    for backend in kernel.backends:
        (tmp_path / backend).mkdir()
        check_kernel(path, inputs, kernel.reference(inputs), backend, tmp_path / backend)
    for backend, message in kernel.rejected.items():
        work = tmp_path / f"rejected-{backend}"
        work.mkdir()
        rc, log, _ = run_cli(path, inputs, backend, work)
        assert rc == 1 and message in log, log
        assert f"{path}:" in log and "Traceback" not in log and "internal compiler error" not in log, log


# -- hardware rules on the sweep's edges -----------------------------------------------------------


@pytest.mark.parametrize("case, message", [
    # K is never boxed (padding it would sum uninitialised L1): the conversion declines it at the
    # call, naming the box and the padding that fixes it.
    (Plain(32, 32, 40, "FP16"), "needs K (= 40) to be a multiple of 16 for pl.FP16"),
    (Plain(32, 48, 48, "INT8"), "needs K (= 48) to be a multiple of 32 for pl.INT8"),
    # An operand bigger than all of L1: named with its bytes and the limit as soon as it is placed.
    (Plain(128, 512, 1024, "FP16"), "Mat usage of kernel `matmul_incore`: the tile `b_tile` alone is [1024, 512] FP16, "
                                    "1048576 bytes, over the Ascend910B Mat capacity of 524288 bytes"),
    # Operands that fit L1 one by one but not together: the allocator names the space and the sum.
    (Plain(128, 256, 1024, "FP16"), "Mat usage of kernel `matmul_incore` is 786432 bytes, over the Ascend910B Mat capacity of 524288 bytes"),
    # INT8 accumulates in INT32; FIXPIPE cannot narrow it to a float.
    (Plain(32, 32, 32, "INT8", out_dtype="FP16"), "attribute 'out_dtype' expected one of ['INT32']"),
], ids=lambda v: str(v) if isinstance(v, Plain) else "")
def test_rejected_shapes_get_the_spec_message(case: Plain, message: str, tmp_path: Path) -> None:
    kernel = tmp_path / "matmul.py"
    kernel.write_text(case.source())
    rng = np.random.default_rng(0)
    inputs = {"a": random_array(tuple(case.a_shape), case.dtype, rng), "b": random_array(tuple(case.b_shape), case.dtype, rng)}
    rc, log, _ = run_cli(kernel, inputs, B910, tmp_path)
    assert rc == 1 and message in log, log
    assert f"{kernel}:8:" in log and "Traceback" not in log, log


def test_reference_is_not_numpy_matmul() -> None:
    """The sequential fused chain differs from a pairwise / float64 dot in the last bit somewhere."""
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((32, 256)).astype(np.float32), rng.standard_normal((256, 32)).astype(np.float32)
    assert (bits(matmul_ref(a, b)) != bits((a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32))).any()
