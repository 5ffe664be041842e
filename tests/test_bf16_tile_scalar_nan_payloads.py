"""BF16 tile-scalar arithmetic keeps the rule's NaN payloads when the target computes it in FP32.

Two things had to hold for that (finding f87ca7b5e5, tests/regressions/):

- Which NaN a result carries when both operands are NaN is a rule (the first NaN operand in
  operand order, quieted, with its sign and payload: `numerics.propagate_nan`), not NumPy's
  choice of loop. NumPy's float64 `tile + scalar` over a contiguous array returns the scalar's
  NaN, its float32 one the tile's, so the BF16 instruction (computed in float64) and its FP32
  route (LegalizeVecDtypes on A2/A3) disagreed.
- The BF16 instruction converts its scalar to BF16 first; the FP32 route must too, or an FP32
  scalar keeps bits the BF16 instruction drops (an FP32 NaN's low payload, a finite value's low
  fraction bits, which can move a tie).

Each kernel runs on both backends, every verifier on, simulated and compared bit for bit with
the reference interpreter; the NaN results are also pinned in hex.
"""

from __future__ import annotations

import textwrap

import ml_dtypes
import numpy as np
import pytest

from backend import numerics
from languages.pl_parser import parse_program
from nanopass_pto.run import compile_program, reference, run

BACKENDS = ["Ascend910B", "Ascend950"]


def _bf16(bits: list[int], shape: tuple[int, ...]) -> np.ndarray:
    return np.resize(np.asarray(bits, dtype=np.uint16), shape).view(ml_dtypes.bfloat16)


def _fp32(bits: list[int], shape: tuple[int, ...]) -> np.ndarray:
    return np.resize(np.asarray(bits, dtype=np.uint32), shape).view(np.float32)


# A tile of NaNs with distinct payloads (signalling and quiet, both signs) and a few numbers.
TILE_BITS = [0x7F81, 0x7FA5, 0xFF93, 0x7FC1, 0xFFE7, 0x7FFD, 0x3F80, 0x4380]


def _kernel(op: str, scalar_dtype: str) -> str:
    # A BF16 tile and a scalar taken from a tensor of `scalar_dtype` (an FP32 scalar next to a
    # BF16 tile is what a read of an FP32 accumulator gives).
    return textwrap.dedent(f"""\
        import pypto.language as pl

        @pl.program
        class TileScalarNan:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, t: pl.Tensor[[16, 32], pl.BF16], s: pl.Tensor[[1, 16], pl.{scalar_dtype}]) -> pl.Tensor[[16, 32], pl.BF16]:
                r: pl.Tensor[[16, 32], pl.BF16] = pl.tensor.{op}(t, pl.tensor.read(s, [0, 0]))
                return r
        """)


def _compiled_and_reference(op: str, scalar_dtype: str, backend: str,
                            inputs: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    source = parse_program(_kernel(op, scalar_dtype), "tile_scalar_nan.py")
    compiled = compile_program(source, backend=backend, verify_all=True)
    got = np.asarray(run(compiled, inputs)["ret0"]).view(np.uint16)
    expected = np.asarray(reference(source, inputs)["ret0"]).view(np.uint16)
    differ = np.argwhere(got != expected)
    assert differ.size == 0, (f"{op} on {backend}: {len(differ)} differ, first at {differ[0].tolist()}: "
                              f"compiled {got[tuple(differ[0])]:#06x}, interpreter {expected[tuple(differ[0])]:#06x}")
    return got, expected


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("op", ["adds", "subs", "muls", "divs"])
@pytest.mark.parametrize("scalar_dtype, scalar_bits", [("FP32", 0x7FA12345), ("BF16", 0xFFA1)])
def test_two_nan_operands_give_the_tiles_nan(backend: str, op: str, scalar_dtype: str, scalar_bits: int) -> None:
    # A signalling NaN scalar (an FP32 one with low payload bits BF16 cannot hold): where the tile
    # element is a NaN too, the result is the tile element's NaN, quieted; elsewhere the scalar's,
    # quieted and cut to BF16 (0x7FE1 / 0xFFE1).
    scalar = _fp32([scalar_bits], (1, 16)) if scalar_dtype == "FP32" else _bf16([scalar_bits], (1, 16))
    inputs = {"t": _bf16(TILE_BITS, (16, 32)), "s": scalar}
    got, _ = _compiled_and_reference(op, scalar_dtype, backend, inputs)
    scalar_nan = 0x7FE1 if scalar_dtype == "FP32" else 0xFFE1
    assert [f"{v:#06x}" for v in got[0, :8]] == [
        "0x7fc1", "0x7fe5", "0xffd3", "0x7fc1", "0xffe7", "0x7ffd", f"{scalar_nan:#06x}", f"{scalar_nan:#06x}"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_fp32_scalar_is_rounded_to_bf16_first(backend: str) -> None:
    # 256 + (1 + 2**-10): the BF16 instruction adds 1.0 (the scalar rounded to BF16) and the tie
    # 257 goes to even, 256 (0x4380); adding the FP32 scalar as it is would give 258 (0x4381).
    inputs = {"t": _bf16([0x4380], (16, 32)), "s": _fp32([0x3F802000], (1, 16))}
    got, _ = _compiled_and_reference("adds", "FP32", backend, inputs)
    assert np.all(got == 0x4380)


@pytest.mark.parametrize("dtype", ["BF16", "FP16", "FP32"])
@pytest.mark.parametrize("size", [1, 3, 16, 1024])
def test_the_first_nan_operand_wins_whatever_numpys_loop(dtype: str, size: int) -> None:
    # Quiet NaNs of distinct payloads in each format: the tile's, then the scalar's.
    tile_nan, scalar_nan = {"BF16": (0x7FC5, 0xFFD1), "FP16": (0x7E05, 0xFE11),
                            "FP32": (0x7FC00005, 0xFFC00011)}[dtype]
    np_bits = np.uint32 if dtype == "FP32" else np.uint16
    tile = np.full(size, tile_nan, dtype=np_bits).view(numerics.np_dtype(dtype))
    scalar = np.asarray(scalar_nan, dtype=np_bits).view(numerics.np_dtype(dtype))
    for op in ("add", "sub", "mul", "div"):
        assert np.all(numerics.binary(op, tile, scalar, dtype).view(np_bits) == tile_nan), (op, dtype, size)
        assert np.all(numerics.binary(op, np.broadcast_to(scalar, tile.shape), tile, dtype).view(np_bits)
                      == scalar_nan), (op, dtype, size)


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_int32_scalar_is_rounded_to_bf16_first(backend: str) -> None:
    # 0 + 257: the BF16 instruction converts 257 to BF16 first (a tie, to even: 256, 0x4380).
    inputs = {"t": _bf16([0x0000], (16, 32)), "s": np.full((1, 16), 257, dtype=np.int32)}
    got, _ = _compiled_and_reference("adds", "INT32", backend, inputs)
    assert np.all(got == 0x4380)
