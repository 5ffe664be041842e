"""Scalar casts to and from the unsigned integers (`pl.cast(x, pl.UINT32)`, UINT8 .. UINT64), at
every layer: the rules (backend.numerics.scalar_cast; NUMERICS.md section 4: integer -> integer
wraps, so integer -> unsigned is modulo 2**width; float -> integer truncates toward zero and
saturates to the target's range, NaN -> 0, for unsigned targets too), the MLIR arith chains
PTOCodegen emits (languages.ops.pto_ops.scalar_conversion_chain: uitofp, fptoui, extui, extsi,
trunci, bitcast, index_cast), the simulator's reading of those signless conversions, a compiled
kernel (tests/kernels/ops/unsigned_scalar_casts.py, which tests/test_ptoas.py also assembles)
simulated and compared bit for bit with an independent NumPy reference, and the fuzzer's draws.

The reference here shares no code with the compiler: integers are Python ints, float -> int is
`math.trunc` and a clamp, int -> float is rounded to nearest even by hand.
"""

from __future__ import annotations

import itertools
import math
import random
import re
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from backend import numerics
from backend.arrays import random_inputs
from backend.fuzzing.generator import Features, _SeededBuilder
from backend.sim import executor
from languages.ops.pto_ops import SCALAR_CAST_TYPES, is_unsigned_int, scalar_conversion_chain
from languages.pl_parser import parse_program
from languages.pl_printer import print_program
from languages.types import DataType
from nanopass.pipeline import main
from nanopass_pto.fuzz_target import signed_scalars

Array = npt.NDArray[Any]
ROOT = Path(__file__).resolve().parent.parent
KERNEL = ROOT / "tests" / "kernels" / "ops" / "unsigned_scalar_casts.py"
UNSIGNED = (DataType.UINT8, DataType.UINT16, DataType.UINT32, DataType.UINT64)
# Significand bits (with the implicit one) and the largest finite value of each float format.
FLOATS: dict[DataType, tuple[int, float]] = {
    DataType.FP32: (24, float(np.finfo(np.float32).max)),
    DataType.FP16: (11, 65504.0),
    DataType.BF16: (8, float.fromhex("0x1.fep127")),
}


# -- the independent reference --------------------------------------------------------------------


def _int_bits(dtype: DataType) -> int:
    return 64 if dtype is DataType.INDEX else dtype.bits


def _wrap(value: int, dtype: DataType) -> int:
    bits = _int_bits(dtype)
    wrapped = value % (1 << bits)
    return wrapped - (1 << bits) if dtype.is_signed and wrapped >= 1 << (bits - 1) else wrapped


def _round_int_to_float(value: int, dtype: DataType) -> float:
    """`value` rounded to nearest, ties to even, in `dtype` (no subnormals can arise)."""
    precision, largest = FLOATS[dtype]
    magnitude = abs(value)
    shift = max(magnitude.bit_length() - precision, 0)
    quotient, remainder = divmod(magnitude, 1 << shift)
    half = (1 << shift) >> 1
    if shift and (remainder > half or (remainder == half and quotient & 1)):
        quotient += 1
    rounded = float(quotient << shift) if (quotient << shift).bit_length() <= 1024 else math.inf
    # Overflow: past the largest finite value by half an ulp or more -> inf (RNE's rule).
    if rounded > largest:
        rounded = math.inf
    return -rounded if value < 0 else rounded


def _float_to_int(value: float, dtype: DataType) -> int:
    bits = _int_bits(dtype)
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if dtype.is_signed else (0, (1 << bits) - 1)
    if math.isnan(value):
        return 0
    if math.isinf(value):
        return high if value > 0 else low
    return min(max(math.trunc(value), low), high)


def _reference(value: float | int, source: DataType, target: DataType) -> float | int:
    if source.is_float:  # (a float target: not a case with an unsigned side)
        assert isinstance(value, float) and not target.is_float
        return _float_to_int(value, target)
    integer = _wrap(int(value), source)
    if target.is_float:
        return _round_int_to_float(integer, target)
    return _wrap(integer, target)


def _corners(dtype: DataType) -> list[float | int]:
    if dtype.is_float:
        raw = [0.0, -0.0, 0.75, -0.75, -1.0, -1.5, 1.5, 127.9, 128.0, 255.0, 255.9, 256.0, 300.75,
               65535.0, 65536.0, 2.0**31, 2.0**32, 2.0**32 - 256, 2.0**63, 2.0**64, 1e20, -1e20,
               math.inf, -math.inf, math.nan]
        return [numerics.scalar_cast(v, "FP32", dtype.name) if dtype is not DataType.FP32
                else float(np.float32(v)) for v in raw]
    bits = _int_bits(dtype)
    top = (1 << bits) - 1 if not dtype.is_signed else (1 << (bits - 1)) - 1
    bottom = 0 if not dtype.is_signed else -(1 << (bits - 1))
    values = {bottom, bottom + 1, top, top - 1, 0, 1, 2, 3, 127, 128, 255, 256, 32767, 32768, 65535, 65536,
              2**24 + 1, 2**24 + 3, 2**31 - 1, 2**31, 2**32 - 1, 2**53 + 1, 2**63 - 1, 2**63,
              2**64 - 2**39, 2**64 - 2**40 - 2**39, 2**64 - 1, -1, -2, -129, -2**31}
    return sorted(v for v in values if bottom <= v <= top)


def _pairs() -> list[tuple[DataType, DataType]]:
    ordered = sorted(SCALAR_CAST_TYPES, key=lambda d: d.name)
    return [(s, t) for s, t in itertools.permutations(ordered, 2) if is_unsigned_int(s) or is_unsigned_int(t)]


def _same(a: float | int, b: float | int) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    return type(a) is type(b) and a == b


# -- the rules --------------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "source", "target", "expected"), [
    (-1, "INT32", "UINT32", 2**32 - 1), (-1, "INT8", "UINT64", 2**64 - 1),      # modulo 2**w
    (2**32 - 1, "UINT32", "INT32", -1), (2**64 - 1, "UINT64", "INDEX", -1),     # and back
    (300, "INT32", "UINT8", 44), (2**32 + 5, "UINT64", "UINT32", 5), (255, "UINT8", "UINT32", 255),
    (2**32 - 1, "UINT32", "INDEX", 2**32 - 1), (-7, "INDEX", "UINT16", 65529),
    (-0.75, "FP32", "UINT32", 0), (-1.0, "FP32", "UINT8", 0), (-1e20, "FP32", "UINT64", 0),  # saturation
    (255.9, "FP32", "UINT8", 255), (256.0, "FP32", "UINT8", 255), (2.0**32, "FP32", "UINT32", 2**32 - 1),
    (1e20, "FP32", "UINT64", 2**64 - 1), (float("inf"), "FP16", "UINT16", 65535),
    (float("-inf"), "BF16", "UINT32", 0), (float("nan"), "FP32", "UINT64", 0),
    (2**32 - 1, "UINT32", "FP32", 2.0**32), (2**24 + 1, "UINT32", "FP32", 2.0**24),  # RNE ties to even
    (2**64 - 1, "UINT64", "FP32", 2.0**64), (2**64 - 2**39, "UINT64", "FP32", 2.0**64),
    (65520, "UINT32", "FP16", float("inf")), (65519, "UINT16", "FP16", 65504.0), (257, "UINT16", "BF16", 256.0), (259, "UINT16", "BF16", 260.0),
    (-1, "UINT8", "FP32", 255.0),  # a signless register's bits: -1 given for a UINT8 is 255
])
def test_unsigned_scalar_cast_rules(value: float | int, source: str, target: str, expected: float | int) -> None:
    got = numerics.scalar_cast(value, source, target)
    assert _same(got, expected), (value, source, target, got, expected)


def test_scalar_cast_agrees_with_the_independent_reference() -> None:
    for source, target in _pairs():
        for value in _corners(source):
            got = numerics.scalar_cast(value, source.name, target.name)
            want = _reference(value, source, target)
            assert _same(got, want), (source, target, value, got, want)
            if is_unsigned_int(target):
                assert isinstance(got, int) and 0 <= got < 1 << target.bits


# -- the arith chains, and the simulator reading them -----------------------------------------------


def _signless(dtype: DataType) -> DataType:
    """The type a scalar has in PTO text read back: MLIR's `iN` parses as the signed INTn."""
    return DataType[f"INT{dtype.bits}"] if is_unsigned_int(dtype) else dtype


def test_every_unsigned_chain_is_valid_arith_and_the_simulator_computes_the_cast() -> None:
    # Valid MLIR: extsi / extui widen, trunci narrows, bitcast keeps the width, index_cast has
    # an index side, float conversions have a float side; unsigned operands are read by the
    # *ui / uito* forms. Then the simulator, step by step, on the DSL's types and on the signless
    # types a PTO file carries, gives what the direct cast gives.
    for source, target in _pairs():
        chain = scalar_conversion_chain(source, target)
        assert chain and chain[-1][1] is target, (source, target, chain)
        current = source
        for op, step in chain:
            if op in ("arith.extsi", "arith.extui"):
                assert current.is_int and step.is_int and step.bits > current.bits, (source, target, chain)
            elif op == "arith.trunci":
                assert current.is_int and step.is_int and step.bits < current.bits, (source, target, chain)
            elif op == "arith.bitcast":
                assert current.is_int and step.is_int and step.bits == current.bits \
                    and DataType.INDEX not in (current, step), (source, target, chain)
            elif op == "arith.index_cast":
                assert DataType.INDEX in (current, step) and current.is_int and step.is_int, (source, target, chain)
                assert not (is_unsigned_int(current) and current.bits < 64), "index_cast sign-extends"
            if is_unsigned_int(current) and op in ("arith.extsi", "arith.sitofp"):
                raise AssertionError(f"{op} reads an unsigned operand as signed: {source} -> {target} {chain}")
            current = step
        for value in _corners(source):
            want = numerics.scalar_cast(value, source.name, target.name)
            for signless in (False, True):
                step_value: float | int = value
                current = _signless(source) if signless else source
                for op, step in chain:
                    step_type = _signless(step) if signless else step
                    step_value = executor._convert_scalar(op, step_value, current, step_type, None)  # type: ignore[arg-type]
                    current = step_type
                got = _wrap(int(step_value), target) if target.is_int else step_value
                assert _same(got, want), (source, target, value, signless, chain, got, want)


# -- a compiled kernel, simulated, against NumPy --------------------------------------------------


def _fsat(value: float, bits: int) -> int:
    return _float_to_int(value, DataType[f"UINT{bits}"])


def _expected(a: int, b: int, f: float, w: int, h: int, x: Array) -> dict[str, Array]:
    u32_b = b % 2**32
    return {
        "u8": np.array([[a % 256, _fsat(f, 8), b % 256, 0, 0, 0, 0, 0]], dtype=np.uint8),
        "u16": np.array([[h, b % 2**16, _fsat(f, 16), 0, 0, 0, 0, 0]], dtype=np.uint16),
        "u32": np.array([[u32_b, _fsat(f, 32), w % 2**32, u32_b // 3, u32_b % 5, 0, 0, 0]], dtype=np.uint32),
        "u64": np.array([[a, b % 2**64, _fsat(f, 64), b % 2**64, 0, 0, 0, 0]], dtype=np.uint64),
        "i32": np.array([[_wrap(a, DataType.INT32), _wrap(w, DataType.INT32), h, 0, 0, 0, 0, 0]], dtype=np.int32),
        "i64": np.array([[a, _wrap(w, DataType.INT64), _wrap(w, DataType.INT64), a, 0, 0, 0, 0]], dtype=np.int64),
        "f32": np.array([[_round_int_to_float(a, DataType.FP32), _round_int_to_float(w, DataType.FP32), h,
                          0, 0, 0, 0, 0]], dtype=np.float32),
        "f16": np.array([[_round_int_to_float(a, DataType.FP16), h, 0, 0, 0, 0, 0, 0]], dtype=np.float16),
        "out": x * np.float32(_round_int_to_float(a, DataType.FP32)),
    }


# (a: UINT32, b: INT32, f: FP32, w: UINT64, h: UINT8): wrap, saturation, rounding and NaN corners.
INPUTS = [
    (2**32 - 1, -1, -1.5, 2**64 - 1, 255),            # every maximum; a negative float -> 0
    (7, 123456, 300.75, 2**63, 0),                     # small; UINT8 / UINT16 saturate at 300 / not
    (2**31, -2**31, float("nan"), 2**53 + 1, 128),     # the sign bit of each width; NaN -> 0
    (65520, 65537, float("inf"), 2**32 + 5, 1),         # FP16 overflow to inf; inf -> each max
    (2**24 + 1, -129, -float("inf"), 2**64 - 2**39, 3),  # FP32 ties to even at 2**24 and 2**64
    (65519, 40000, 2.0**32, 2**64 - 2**40 - 2**39, 200),  # 2**32 -> UINT32 max; a tie rounding down
    (1, 5, 1e20, 5, 17),                               # 1e20 -> UINT64 max
    (3, -7, 255.9, 2**32 - 1, 254),                    # truncation toward zero
]


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
@pytest.mark.parametrize("case", range(len(INPUTS)))
def test_the_kernel_computes_each_cast_bit_for_bit(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  backend: str, case: int) -> None:
    a, b, f, w, h = INPUTS[case]
    x = np.random.default_rng(case).standard_normal((16, 32)).astype(np.float32)
    arrays: dict[str, Any] = {"a": np.uint32(a), "b": np.int32(b), "f": np.float32(f), "w": np.uint64(w),
                              "h": np.uint8(h), "x": x}
    expected = _expected(a, b, float(np.float32(f)), w, h, x)
    for name, want in expected.items():
        if name != "out":
            arrays[name] = np.zeros_like(want)
    np.savez(tmp_path / "in.npz", **arrays)
    rc = main([str(KERNEL), "--verify-all", "--backend", backend, "-o", str(tmp_path / "k.pto"), "--simulate",
               "--inputs", str(tmp_path / "in.npz"), "--save-outputs", str(tmp_path / "out.npz")])
    log = capsys.readouterr()
    assert rc == 0, log.out + log.err
    assert "mismatch" not in log.err, log.err
    got = np.load(tmp_path / "out.npz")
    for name, want in expected.items():
        bits = numerics.to_bits(np.asarray(got[name]))
        assert bits.tolist() == numerics.to_bits(want).tolist(), (name, got[name], want)


def test_the_kernel_spells_each_conversion_on_signless_scalars(tmp_path: Path) -> None:
    assert main([str(KERNEL), "-o", str(tmp_path / "k.pto")]) == 0
    text = (tmp_path / "k.pto").read_text()
    for op, types in [("arith.uitofp", "i32 to f32"), ("arith.uitofp", "i64 to f32"), ("arith.uitofp", "i32 to f16"),
                      ("arith.fptoui", "f32 to i8"), ("arith.fptoui", "f32 to i64"), ("arith.extui", "i8 to i16"),
                      ("arith.extui", "i32 to i64"), ("arith.extsi", "i32 to i64"), ("arith.trunci", "i64 to i32"),
                      ("arith.bitcast", "i32 to i32"), ("arith.bitcast", "i64 to i64"),
                      ("arith.index_cast", "i64 to index"), ("arith.divui", "i32"), ("arith.remui", "i32")]:
        assert re.search(rf"{re.escape(op)} %\w+(, %\w+)? : {types}\b", text), (op, types)
    # No scalar is typed uiN (MLIR's integers are signless), and no conversion is a no-op one.
    scalars = "\n".join(line for line in text.splitlines() if "arith." in line)
    assert not re.search(r"\bui\d+\b", scalars), scalars
    assert not re.search(r"arith\.(trunci|extui|extsi) %\w+ : (i\d+) to \2\b", text), text
    # An unsigned value narrower than 64 bits reaches index zero-extended (index_cast sign-extends).
    assert not re.search(r"arith\.index_cast %arg0 : i32 to index", text), text


# -- the DSL ----------------------------------------------------------------------------------------


SOURCE = textwrap.dedent("""\
    import pypto.language as pl


    @pl.program
    class Kernel:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INT32],
                   out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
            t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
            u: pl.Tile[[16, 64], pl.FP32] = pl.mul(t, pl.cast(pl.cast(n, pl.UINT16) // 7, pl.FP32))
            out = pl.store(u, [0, 0], out)
            return out
    """)


def test_an_unsigned_scalar_cast_prints_and_parses_back() -> None:
    text = print_program(parse_program(SOURCE, "kernel.py"))
    assert "pl.cast(pl.cast(n, pl.UINT16) // 7, pl.FP32)" in text, text
    assert print_program(parse_program(text, "printed.py")) == text


@pytest.mark.parametrize("dtype", ["pl.UINT4", "pl.BOOL"])
def test_a_cast_to_a_type_without_a_scalar_conversion_is_still_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], dtype: str) -> None:
    path = tmp_path / "kernel.py"
    path.write_text(SOURCE.replace("pl.cast(n, pl.UINT16)", f"pl.cast(n, {dtype})"))
    assert main([str(path)]) != 0
    err = capsys.readouterr().err
    assert f"a scalar pl.cast from or to {dtype}" in err and "unsigned integers" in err, err


# -- the fuzzer's inputs and draws ----------------------------------------------------------------------


FUZZ_LIKE = textwrap.dedent("""\
    import pypto.language as pl


    @pl.program
    class Fuzz:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel0(self, x1: pl.Tensor[[16, 16], pl.FP32], k2: pl.Scalar[pl.UINT32], k3: pl.Scalar[pl.UINT8],
                    k4: pl.Scalar[pl.INT16]) -> pl.Tensor[[16, 16], pl.FP32]:
            s: pl.Scalar[pl.FP32] = pl.cast(k2, pl.FP32) + pl.cast(k3, pl.FP32) + pl.cast(k4, pl.FP32)
            y: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.adds(x1, s)
            return y
    """)


def test_random_inputs_type_unsigned_scalars_and_signed_scalars_draws_them_small_or_near_max() -> None:
    program = parse_program(FUZZ_LIKE, "fuzz.py")
    inputs = random_inputs(program, 0)
    assert inputs["k2"].dtype == np.uint32 and inputs["k3"].dtype == np.uint8 and inputs["k4"].dtype == np.int16
    seen: dict[str, set[str]] = {"k2": set(), "k3": set()}
    for seed in range(40):
        drawn = signed_scalars(program, inputs, seed)
        for name, dtype in (("k2", np.uint32), ("k3", np.uint8)):
            value = int(drawn[name])
            top = int(np.iinfo(dtype).max)
            assert drawn[name].dtype == dtype
            assert 0 <= value <= 9 or top - 9 <= value <= top, (name, value)
            seen[name].add("small" if value <= 9 else "max")
        assert -9 <= int(drawn["k4"]) <= 9
    assert seen == {"k2": {"small", "max"}, "k3": {"small", "max"}}


def test_the_generator_draws_casts_to_and_from_unsigned_types() -> None:
    rng = random.Random(0)
    tags: set[str] = set()
    for index in range(400):
        builder = _SeededBuilder(lambda strategy: None, Features(), f"kernel{index}", arch="a2a3", rng=rng)
        builder.scalar_operand_kernel()
        tags |= {t for t in builder.ops if t.startswith("scalar:") and "UINT" in t}
    casts = [t.removeprefix("scalar:cast:").split("->") for t in tags if t.startswith("scalar:cast:")]
    from_unsigned = {s for s, _ in casts if s.startswith("pl.UINT")}
    to_unsigned = {t for _, t in casts if t.startswith("pl.UINT")}
    assert len(from_unsigned) >= 3 and len(to_unsigned) >= 3, sorted(tags)
    assert any(t.startswith(("scalar://:pl.UINT", "scalar:%:pl.UINT")) for t in tags), sorted(tags)
