"""The DSL's scalar `pl.cast(x, dtype)` (PyPTO's scalar Cast expression, default mode only).

Rules (backend.numerics.scalar_cast, the same for the interpreter and the simulator): to a
float, round to nearest even; a float to an integer truncates toward zero, saturating, NaN -> 0;
an integer to a narrower one wraps; INDEX is a signed 64-bit integer. PTOCodegen spells the cast
as MLIR arith conversions (languages.ops.pto_ops.scalar_conversion_chain).
"""

from __future__ import annotations

import itertools
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from backend import numerics
from languages.ops.pto_ops import SCALAR_CAST_TYPES, scalar_conversion_chain
from languages.pl_parser import parse_program
from languages.pl_printer import print_program
from languages.types import DataType
from nanopass.pipeline import main

Array = npt.NDArray[Any]
PTOAS = Path("/root/.cache/ptoas/4d2f456e/build/tools/ptoas/ptoas")


@pytest.mark.parametrize(("value", "source", "target", "expected"), [
    (3.75, "FP32", "INT32", 3), (-3.75, "FP32", "INT32", -3),          # toward zero, both signs
    (1e10, "FP32", "INT32", 2**31 - 1), (-1e10, "FP32", "INT32", -2**31),  # saturating
    (float("nan"), "FP32", "INT32", 0),
    (2**24 + 1, "INT32", "FP32", 2.0**24), (2**24 + 3, "INT32", "FP32", 2.0**24 + 4),  # ties to even
    (2**31 + 5, "INDEX", "INT32", -2**31 + 5), (-129, "INT32", "INT8", 127),          # wrapping
    (-7, "INT8", "INDEX", -7), (5, "INDEX", "FP32", 5.0),
    (65520.0, "FP32", "FP16", float("inf")), (1.0 + 2.0**-11, "FP32", "FP16", 1.0),  # FP16 RNE
])
def test_scalar_cast_rules(value: float | int, source: str, target: str, expected: float | int) -> None:
    got = numerics.scalar_cast(value, source, target)
    assert type(got) is type(expected) and got == expected


def _values(dtype: DataType, rng: np.random.Generator) -> list[float | int]:
    if dtype.is_float:
        raw = [0.0, -0.0, 1.5, -2.5, 65504.0, 3.0e38, float("inf"), float("-inf"), 1e-8, 0.1, -7.25]
        raw += list(rng.standard_normal(8) * 1e4)
        return [numerics.scalar_cast(v, "FP32", dtype.name) if dtype.name != "FP32" else
                float(np.float32(v)) for v in raw]
    bits = 64 if dtype is DataType.INDEX else dtype.bits
    low, high = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    return [low, high, 0, -1, 1, *(int(v) for v in rng.integers(max(low, -2**62), min(high, 2**62), 8))]


def test_every_conversion_chain_computes_the_direct_cast() -> None:
    # A chain through an intermediate type (INDEX via INT64, FP16 <-> BF16 via FP32) must not
    # round twice: step by step it gives what one direct conversion gives.
    rng = np.random.default_rng(0)
    for source, target in itertools.permutations(sorted(SCALAR_CAST_TYPES, key=lambda d: d.name), 2):
        chain = scalar_conversion_chain(source, target)
        assert chain and chain[-1][1] is target, (source, target, chain)
        for value in _values(source, rng):
            step: float | int = value
            current = source
            for _, dtype in chain:
                step, current = numerics.scalar_cast(step, current.name, dtype.name), dtype
            direct = numerics.scalar_cast(value, source.name, target.name)
            same = (np.isnan(step) and np.isnan(direct)) if isinstance(direct, float) and np.isnan(direct) \
                else (step == direct and np.signbit(step) == np.signbit(direct))
            assert same, (source, target, value, step, direct)


KERNEL = textwrap.dedent("""\
    import pypto.language as pl


    @pl.program
    class Kernel:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INT32],
                   out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
            t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
            scaled: pl.Tile[[16, 64], pl.FP32] = pl.mul(t, pl.cast(n, pl.FP32))
            block: pl.Scalar[pl.INDEX] = pl.get_block_idx()
            u: pl.Tile[[16, 64], pl.FP32] = pl.add(scaled, pl.cast(pl.cast(block, pl.INT32) + n, pl.FP32))
            out = pl.store(u, [0, 0], out)
            return out
    """)


@pytest.mark.parametrize("n", [3, -40000])
def test_a_kernel_scales_by_a_cast_scalar_parameter(tmp_path: Path, capsys: pytest.CaptureFixture[str], n: int) -> None:
    path = tmp_path / "kernel.py"
    path.write_text(KERNEL)
    x = np.random.default_rng(n & 0xFF).standard_normal((16, 64)).astype(np.float32)
    np.savez(tmp_path / "in.npz", x=x, n=np.int32(n))
    rc = main([str(path), "--verify-all", "-o", str(tmp_path / "k.pto"), "--simulate",
               "--inputs", str(tmp_path / "in.npz"), "--save-outputs", str(tmp_path / "out.npz")])
    log = capsys.readouterr()
    assert rc == 0, log.out + log.err
    # One block (block index 0): out = x * n + (0 + n), each step rounded to FP32.
    expected = (x * np.float32(n)) + np.float32(n)
    assert np.load(tmp_path / "out.npz")["out"].view(np.uint32).tolist() == expected.view(np.uint32).tolist()
    pto = (tmp_path / "k.pto").read_text()
    assert "arith.sitofp" in pto and "arith.index_cast" in pto, pto
    if PTOAS.exists():
        done = subprocess.run([str(PTOAS), "--pto-arch=a3", "--pto-level=level3", str(tmp_path / "k.pto"),
                               "-o", str(tmp_path / "k.cpp")], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr


def test_a_scalar_cast_prints_and_parses_back() -> None:
    program = parse_program(KERNEL, "kernel.py")
    text = print_program(program)
    assert "pl.cast(n, pl.FP32)" in text and "pl.cast(pl.cast(block, pl.INT32) + n, pl.FP32)" in text, text
    assert print_program(parse_program(text, "printed.py")) == text


def test_a_scalar_cast_takes_only_the_default_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "kernel.py"
    path.write_text(KERNEL.replace("pl.cast(n, pl.FP32))", 'pl.cast(n, pl.FP32, mode="floor"))', 1))
    assert main([str(path)]) != 0
    err = capsys.readouterr().err
    assert "kernel.py:10:" in err and "only the default mode" in err, err
