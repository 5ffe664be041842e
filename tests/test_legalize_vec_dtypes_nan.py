"""LegalizeVecDtypes on NaNs and the other corners: a BF16 operation the target computes in FP32
gives the BF16 rule's bits for every input, signalling NaNs included.

tcvt quiets a signalling NaN (NUMERICS.md section 4), which is right for arithmetic (its NaN
result is quiet anyway) and wrong for the instructions that select a value (abs, neg, relu,
max / min and their forms), whose BF16 rule returns the operand's bits: those go to FP32 and
back by moving the bits (`Fp32Route.BITS`), the part add / mul, which copy an operand where
only one is valid, round the bits as an integer on the way back (`Fp32Route.BITS_ROUNDED`).
Each kernel below is compiled with every verifier on, simulated, and compared bit for bit with
the reference interpreter on inputs full of signalling and quiet NaNs with payloads, signed
zeros, subnormals, infinities and the largest finite numbers.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import languages.gen.tile_placed as P
from backend.targets.handlers import get_backend
from languages.ops import REGISTRY
from languages.ops.assembler_element_types import BF16_VALUE_SELECTING, WIDENED_TO_FP32, Fp32Route, fp32_route
from languages.pl_parser import parse_program
from languages.types import DataType, TileType
from nanopass.node import walk
from nanopass.passes import PassContext
from nanopass_pto.run import compile_program, reference, run
from passes.legalize_vec_dtypes import LegalizeVecDtypes

# The corners, as BF16 bit patterns: signalling NaNs (quiet bit 0x0040 clear, payload non-zero) of
# both signs, quiet NaNs with payloads, +-0, subnormals, +-inf, the smallest normal, the largest
# finite, and ordinary numbers to compare them with.
CORNERS = [
    0x7F81, 0x7FA5, 0x7FBF, 0xFF81, 0xFFA0, 0xFFBF,  # signalling NaNs
    0x7FC0, 0x7FC1, 0x7FD3, 0x7FFF, 0xFFC0, 0xFFE7,  # quiet NaNs
    0x0000, 0x8000,  # +0, -0
    0x0001, 0x0040, 0x007F, 0x8001, 0x8055, 0x807F,  # subnormals
    0x7F80, 0xFF80,  # +inf, -inf
    0x0080, 0x8080, 0x7F7F, 0xFF7F,  # smallest normal, largest finite
    0x3F80, 0xBF80, 0x4049, 0xC2F7, 0x3C23, 0x3EAB,  # 1, -1, 3.14, -123.5, 0.00996, 0.334
]


def _bf16(bits: np.ndarray) -> np.ndarray:
    return np.asarray(bits, dtype=np.uint16).view(ml_dtypes.bfloat16)


def _inputs(shape: tuple[int, int], salt: int) -> np.ndarray:
    """A [rows, cols] BF16 tile holding every corner many times, at positions that differ per
    salt so two operands meet in many pairs; a quarter of random bit patterns in between."""
    rng = np.random.default_rng(salt)
    size = shape[0] * shape[1]
    corners = np.asarray(CORNERS, dtype=np.uint16)
    bits = np.concatenate([np.roll(np.resize(corners, size * 3 // 4), salt * 7),
                           rng.integers(0, 1 << 16, size - size * 3 // 4, dtype=np.uint16)])
    return _bf16(rng.permutation(bits).reshape(shape))


def _program(params: str, body: str, result: str) -> str:
    return textwrap.dedent(f"""\
        import pypto.language as pl

        @pl.program
        class K:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, {params}) -> pl.Tensor[{result}, pl.BF16]:
        """) + textwrap.indent(textwrap.dedent(body), " " * 8)


A = "a: pl.Tensor[[16, 32], pl.BF16]"
AB = A + ", b: pl.Tensor[[16, 32], pl.BF16]"
ROW = A + ", r: pl.Tensor[[16, 1], pl.BF16]"
COL = A + ", c: pl.Tensor[[1, 32], pl.BF16]"
# Part ops: a valid [8, 32] and b valid [16, 16] meet in [8, 16]; a alone covers [0:8, 16:32], b
# alone [8:16, 0:16], neither [8:16, 16:32] (+0).
PART = ("av: pl.Tensor[[16, 32], pl.BF16, pl.TensorView(valid_shape=[8, 32])] = pl.tensor.set_validshape(a, 8, 32)\n"
        "bv: pl.Tensor[[16, 32], pl.BF16, pl.TensorView(valid_shape=[16, 16])] = pl.tensor.set_validshape(b, 16, 16)\n"
        "return pl.tensor.{op}(av, bv)\n")

# (name, parameters, body, result shape, the instruction the kernel's widened call emits)
KERNELS = [
    ("abs", A, "return pl.tensor.abs(a)\n", "[16, 32]", "pto.tabs"),
    ("neg", A, "return pl.tensor.neg(a)\n", "[16, 32]", "pto.tneg"),
    ("relu", A, "return pl.tensor.relu(a)\n", "[16, 32]", "pto.trelu"),
    ("maximum", AB, "return pl.tensor.maximum(a, b)\n", "[16, 32]", "pto.tmax"),
    ("minimum", AB, "return pl.tensor.minimum(a, b)\n", "[16, 32]", "pto.tmin"),
    ("maximums", A, "return pl.tensor.maximum(a, -0.0)\n", "[16, 32]", "pto.tmaxs"),
    ("minimums", A, "return pl.tensor.minimum(a, 0.1)\n", "[16, 32]", "pto.tmins"),
    ("row_expand_max", ROW, "return pl.tensor.maximum(a, r)\n", "[16, 32]", "pto.trowexpandmax"),
    ("row_expand_min", ROW, "return pl.tensor.minimum(a, r)\n", "[16, 32]", "pto.trowexpandmin"),
    ("col_expand_max", COL, "return pl.tensor.maximum(a, c)\n", "[16, 32]", "pto.tcolexpandmax"),
    ("col_expand_min", COL, "return pl.tensor.minimum(a, c)\n", "[16, 32]", "pto.tcolexpandmin"),
    ("col_max", A, "return pl.tensor.col_max(a)\n", "[1, 32]", "pto.tcolmax"),
    ("col_min", A, "return pl.tensor.col_min(a)\n", "[1, 32]", "pto.tcolmin"),
    ("part_max", AB, PART.format(op="part_max"), "[16, 32]", "pto.tpartmax"),
    ("part_min", AB, PART.format(op="part_min"), "[16, 32]", "pto.tpartmin"),
    ("part_add", AB, PART.format(op="part_add"), "[16, 32]", "pto.tpartadd"),
    ("part_mul", AB, PART.format(op="part_mul"), "[16, 32]", "pto.tpartmul"),
    # The tcvt route, on the same inputs: arithmetic, whose NaN results are quiet either way.
    ("add", AB, "return pl.tensor.add(a, b)\n", "[16, 32]", "pto.tadd"),
    ("sub", AB, "return pl.tensor.sub(a, b)\n", "[16, 32]", "pto.tsub"),
    ("mul", AB, "return pl.tensor.mul(a, b)\n", "[16, 32]", "pto.tmul"),
    ("div", AB, "return pl.tensor.div(a, b)\n", "[16, 32]", "pto.tdiv"),
    ("fmod", AB, "return pl.tensor.fmod(a, b)\n", "[16, 32]", "pto.tfmod"),
    ("muls", A, "return pl.tensor.mul(a, 0.1)\n", "[16, 32]", "pto.tmuls"),
    ("sqrt", A, "return pl.tensor.sqrt(a)\n", "[16, 32]", "pto.tsqrt"),
    ("recip", A, "return pl.tensor.recip(a)\n", "[16, 32]", "pto.trecip"),
    ("row_expand_add", ROW, "return pl.tensor.add(a, r)\n", "[16, 32]", "pto.trowexpandadd"),
    ("row_expand_mul", ROW, "return pl.tensor.mul(a, r)\n", "[16, 32]", "pto.trowexpandmul"),
    ("row_expand_sub", ROW, "return pl.tensor.sub(a, r)\n", "[16, 32]", "pto.trowexpandsub"),
    ("col_expand_add", COL, "return pl.tensor.add(a, c)\n", "[16, 32]", "pto.tcolexpandadd"),
    ("col_expand_mul", COL, "return pl.tensor.mul(a, c)\n", "[16, 32]", "pto.tcolexpandmul"),
    ("col_expand_div", COL, "return pl.tensor.div(a, c)\n", "[16, 32]", "pto.tcolexpanddiv"),
]

_SHAPES = {"a": (16, 32), "b": (16, 32), "r": (16, 1), "c": (1, 32)}


def _cases() -> list[object]:
    cases: list[object] = []
    for backend, arch in (("Ascend910B", "a2a3"), ("Ascend950", "a5")):
        for name, params, body, result, instruction in KERNELS:
            if instruction in WIDENED_TO_FP32[arch]:
                cases.append(pytest.param(backend, params, body, result, instruction, id=f"{backend}-{name}"))
    return cases


@pytest.mark.parametrize("backend, params, body, result, instruction", _cases())
def test_widened_bf16_matches_the_interpreter_bit_for_bit(backend: str, params: str, body: str, result: str,
                                                          instruction: str) -> None:
    source = parse_program(_program(params, body, result), "k.py")
    compiled = compile_program(source, backend=backend, verify_all=True)
    names = re.findall(r"(\w+): pl\.Tensor", params)
    inputs = {n: _inputs(_SHAPES[n], salt) for salt, n in enumerate(names)}
    expected = np.asarray(reference(source, inputs)["ret0"]).view(np.uint16)
    got = np.asarray(run(compiled, inputs)["ret0"]).view(np.uint16)
    differ = np.argwhere(expected != got)
    assert differ.size == 0, (f"{len(differ)} elements differ, first at {differ[0].tolist()}: compiled "
                              f"{got[tuple(differ[0])]:#06x}, interpreter {expected[tuple(differ[0])]:#06x}")
    if fp32_route(instruction) is not Fp32Route.CONVERTED:
        # The kernel did meet a signalling NaN where the op keeps it (what tcvt would quiet).
        assert np.any(((expected & 0x7FC0) == 0x7F80) & ((expected & 0x3F) != 0)), "no signalling NaN came out"


def test_every_widened_instruction_has_a_route_and_a_kernel_here() -> None:
    widened = WIDENED_TO_FP32["a2a3"] | WIDENED_TO_FP32["a5"]
    assert BF16_VALUE_SELECTING <= widened
    selecting_or_copying = {i for i in widened if fp32_route(i) is not Fp32Route.CONVERTED}
    assert selecting_or_copying <= {k[4] for k in KERNELS}


def _legalized(text: str, backend: str) -> P.Program:
    compiled = compile_program(parse_program(text, "k.py"), backend=backend, verify_all=True,
                               pipeline="normalize-stmt-structure,convert-tensor-to-tile-ops,"
                                        "flatten-tile-nd-to-2d,infer-tile-memory-space")
    assert isinstance(compiled.final, P.Program)
    out = LegalizeVecDtypes().run(compiled.final, PassContext(backend, get_backend(backend)))
    assert isinstance(out, P.Program)
    return out


@pytest.mark.parametrize("name, params, body, result, instruction",
                         [k for k in KERNELS if fp32_route(k[4]) is not Fp32Route.CONVERTED])
def test_a_value_selecting_op_never_converts_a_bf16_value(name: str, params: str, body: str, result: str,
                                                          instruction: str) -> None:
    # Its BF16 operands reach FP32 and come back as bits: no tcvt from or to BF16.
    program = _legalized(_program(params, body, result), "Ascend910B")
    calls = [c for c in walk(program) if isinstance(c, P.Call)]
    assert any(instruction in REGISTRY.get(c.op).pto for c in calls if c.op in REGISTRY)
    for call in calls:
        if call.op == "tile.cast":
            source = getattr(call.args[0], "type", None)
            assert isinstance(source, TileType) and isinstance(call.type, TileType)
            assert DataType.BF16 not in (source.dtype, call.type.dtype), call


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_the_value_selecting_kernel_keeps_nan_bits(backend: str) -> None:
    # tests/kernels/ops/bf16_value_selecting.py (which tests/test_ptoas.py hands to PTOAS): its five
    # outputs, on the corners, bit for bit.
    path = Path(__file__).parent / "kernels" / "ops" / "bf16_value_selecting.py"
    source = parse_program(path.read_text(), str(path))
    compiled = compile_program(source, backend=backend, verify_all=True)
    inputs = {"a": _inputs((16, 32), 3), "b": _inputs((16, 32), 4)}
    expected, got = reference(source, inputs), run(compiled, inputs)
    assert sorted(expected) == [f"ret{i}" for i in range(5)]
    for name in expected:
        assert np.array_equal(np.asarray(expected[name]).view(np.uint16), np.asarray(got[name]).view(np.uint16)), name
