"""Execution speed of the bit-exact machinery relative to plain NumPy on the same shapes:

1. compiled examples on the simulator (`nanopass_pto.run.run`: the host program launching the
   kernel) and the Tensor program on the reference interpreter (`nanopass_pto.run.reference`), each
   vs the NumPy expression of the kernel (`a32 @ b32`, `a + b`, a softmax); the simulator's
   result is also checked bit for bit against the interpreter's;
2. the bare cube instruction `backend.sim.instructions.tmatmul` on L0-sized tiles vs `a @ b`;
3. the per-element cost of the sequential FP32 fused chain (one `fma_f32` step per k, so
   M*N*K fused multiply-adds per matmul), and of one `fma_f32` call on a long vector.

NumPy's matmul is a pairwise/blocked BLAS product with different rounding, so the ratios say
what bit-exactness costs, not that NumPy computes the same bits.

    python bench/sim_vs_numpy.py [--budget SECONDS_PER_ROW]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Callable, Mapping

# `python bench/x.py` and `python -m bench.x` both work: _common lives next to this file.
sys.path.insert(0, str(Path(__file__).resolve().parent))

# _common first: it pins BLAS to one thread, which only works before NumPy is imported.
from _common import (  # isort: skip
    Source,
    compile_program,
    example_sources,
    interleaved_medians,
    plugin_and_pipeline,
    print_table,
)
import numpy as np  # noqa: E402
import numpy.typing as npt  # noqa: E402

from backend import numerics
from backend.sim.instructions import tmatmul
from languages.gen import pto as P
from nanopass.diagnostics import CompileError
from nanopass.pipeline import PassCrash, Pipeline
from nanopass.plugin import CompilerPlugin
from nanopass_pto import run as runner

Array = npt.NDArray[Any]
NumpyKernel = Callable[[Mapping[str, Array]], Array]


def _f32(x: Array) -> Array:
    return np.asarray(x).astype(np.float32)


def _matmul(inputs: Mapping[str, Array]) -> Array:
    a, b = inputs["a"], inputs["b"]
    if a.dtype == np.int8:
        return a.astype(np.int32) @ b.astype(np.int32)
    return _f32(a) @ _f32(b)


def _softmax_rows(inputs: Mapping[str, Array]) -> Array:
    x = inputs["x"]
    e = np.exp(x - x.max(axis=1, keepdims=True))
    result: Array = e / e.sum(axis=1, keepdims=True)
    return result


# The NumPy expression each example computes (examples without one are listed as skipped).
NUMPY_KERNELS: dict[str, NumpyKernel] = {
    "elementwise_add_f32": lambda inputs: inputs["a"] + inputs["b"],
    "softmax_rows_f32": _softmax_rows,
    "matmul_boxed_m100_f16": _matmul,
    "matmul_exceeds_l0c_f16": _matmul,
    "matmul_f16_f32": _matmul,
    "matmul_f16_f32_128x256x128": _matmul,
    "matmul_int8_i32": _matmul,
}


def _bit_exact(reference: Mapping[str, Array], simulated: Mapping[str, Array]) -> str:
    ref = reference.get("ret0")
    got = next(iter(simulated.values()), None)
    if ref is None or got is None or ref.shape != got.shape:
        return "n/a"
    return "yes" if np.array_equal(numerics.to_bits(ref), numerics.to_bits(got)) else "NO"


def example_rows(plugin: CompilerPlugin, pipeline: Pipeline, budget: float) -> list[list[object]]:
    rows: list[list[object]] = []
    for source in example_sources(plugin):
        reference_kernel = NUMPY_KERNELS.get(source.name)
        if reference_kernel is None:
            rows.append([source.name, "-", "-", "-", "-", "-", "no NumPy kernel"])
            continue
        rows.append(_example_row(plugin, pipeline, source, reference_kernel, budget))
    return rows


def _example_row(plugin: CompilerPlugin, pipeline: Pipeline, source: Source, reference_kernel: NumpyKernel,
                 budget: float) -> list[object]:
    program = plugin.parse(source.text, source.filename)
    try:
        compiled = compile_program(plugin, pipeline, program)
    except (CompileError, PassCrash) as err:
        return [source.name, "-", "-", "-", "-", "-", f"skipped: {str(err).splitlines()[0]}"]
    if not isinstance(compiled.final, P.Program):
        return [source.name, "-", "-", "-", "-", "-",
                f"skipped: the pipeline ends in {type(compiled.final).LANGUAGE}, not PTO"]
    inputs = runner.random_inputs(program, seed=0)
    simulated = runner.run(compiled, inputs)
    interpreted = runner.reference(program, inputs)
    seconds = interleaved_medians({
        "numpy": lambda: reference_kernel(inputs),
        "sim": lambda: runner.run(compiled, inputs),
        "interp": lambda: runner.reference(program, inputs),
    }, budget, lo=3)
    numpy_s, sim_s, interp_s = seconds["numpy"], seconds["sim"], seconds["interp"]
    return [source.name, numpy_s * 1e6, sim_s * 1e3, sim_s / numpy_s, interp_s * 1e3, interp_s / numpy_s,
            _bit_exact(interpreted, simulated)]


# -- bare tmatmul on L0-sized tiles -----------------------------------------------------------

# (M, K, N, operand dtype). The largest FP16 case fills L0A (128x256x2 B = 64 KiB) and L0B.
L0_SHAPES: tuple[tuple[int, int, int, str], ...] = (
    (16, 16, 16, "FP16"),
    (64, 128, 64, "FP16"),
    (64, 256, 128, "FP16"),
    (128, 256, 128, "FP16"),
    (128, 256, 128, "BF16"),
    (128, 128, 128, "FP32"),
    (128, 512, 128, "INT8"),
)


def _operands(rng: np.random.Generator, m: int, k: int, n: int, dtype: str) -> tuple[Array, Array]:
    np_type = numerics.np_dtype(dtype)
    if dtype == "INT8":
        return rng.integers(-128, 128, (m, k)).astype(np_type), rng.integers(-128, 128, (k, n)).astype(np_type)
    return rng.standard_normal((m, k)).astype(np_type), rng.standard_normal((k, n)).astype(np_type)


def tmatmul_rows(budget: float) -> list[list[object]]:
    rng = np.random.default_rng(0)
    rows: list[list[object]] = []
    for m, k, n, dtype in L0_SHAPES:
        a, b = _operands(rng, m, k, n, dtype)
        # NumPy on the types a fast path exists for: FP32 BLAS (or int32 for INT8).
        wide = np.int32 if dtype == "INT8" else np.float32
        a_wide, b_wide = a.astype(wide), b.astype(wide)
        seconds = interleaved_medians({"numpy": lambda: a_wide @ b_wide, "sim": lambda: tmatmul(a, b, dtype)},
                                      budget, lo=3)
        numpy_s, sim_s = seconds["numpy"], seconds["sim"]
        macs = m * n * k
        rows.append([f"{m}x{k}x{n} {dtype}", numpy_s * 1e6, sim_s * 1e3, sim_s / numpy_s,
                     numpy_s / macs * 1e9, sim_s / macs * 1e9])
    return rows


# -- the fused chain's per-element cost -------------------------------------------------------


def fma_rows(budget: float) -> list[list[object]]:
    """One fma_f32 call over n elements: per-call overhead shows at small n, the per-element
    cost at large n. A K-step matmul chain on an [M, N] tile is K calls of size M*N."""
    rng = np.random.default_rng(1)
    rows: list[list[object]] = []
    for n in (16 * 16, 64 * 128, 128 * 128, 1 << 18):
        a, b, c = (rng.standard_normal(n).astype(np.float32) for _ in range(3))
        seconds = interleaved_medians({"fma": lambda: numerics.fma_f32(a, b, c), "numpy": lambda: a * b + c},
                                      budget, lo=3)
        fma_s, numpy_s = seconds["fma"], seconds["numpy"]
        rows.append([n, fma_s * 1e6, fma_s / n * 1e9, numpy_s / n * 1e9, fma_s / numpy_s])
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--budget", type=float, default=0.8, help="seconds of measurement per row (default 0.8)")
    args = parser.parse_args(argv)
    plugin, pipeline = plugin_and_pipeline()
    print_table(["example", "numpy us", "sim ms", "sim/numpy", "interp ms", "interp/numpy", "sim==interp"],
                example_rows(plugin, pipeline, args.budget),
                title="compiled kernel on the simulator (run API) and Tensor program on the interpreter vs NumPy")
    print_table(["tile MxKxN", "numpy us", "tmatmul ms", "tmatmul/numpy", "numpy ns/MAC", "tmatmul ns/MAC"],
                tmatmul_rows(args.budget),
                title="bare backend.sim.instructions.tmatmul on L0-sized tiles vs NumPy a @ b (FP32 / int32)")
    print_table(["elements", "fma_f32 us", "fma_f32 ns/elem", "numpy a*b+c ns/elem", "fma/numpy"],
                fma_rows(args.budget),
                title="sequential FP32 fused chain: one numerics.fma_f32 step (exact a*b+c, one rounding)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
