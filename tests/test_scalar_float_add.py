"""A float scalar `a + b` reaches PTO as `a - (-0.0 - b)` (FLOAT_ADD_AS_SUBTRACTIONS): PTOAS
0.44 lowers arith.subf but has no arith.addf pattern. The two spellings give the same bits for
every pair of operands (signed zeros, subnormals, infinities, NaNs), and the compiled kernel
simulates bit-exact against the reference interpreter, which adds."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np

from languages.pl_parser import parse_program
from nanopass_pto.run import compare, compile_program, random_inputs, reference, run
from backend.pto_text.printer import print_mlir

CORNERS = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 3.0e38, -3.0e38, 1.0e-45, -1.0e-45, 1.17e-38, np.inf, -np.inf,
                    np.nan, -np.nan, 7.25, -2.0 ** -20], dtype=np.float32)


def _bits(x: np.ndarray) -> np.ndarray:
    return x.view(np.uint32)


def test_the_two_subtractions_give_the_bits_of_the_addition() -> None:
    rng = np.random.default_rng(20)
    random = rng.standard_normal(4000).astype(np.float32) * np.float32(2.0) ** rng.integers(-140, 120, 4000)
    values = np.concatenate([CORNERS, random.astype(np.float32)])
    pairs = np.array(list(itertools.product(CORNERS, values)), dtype=np.float32)
    a, b = pairs[:, 0], pairs[:, 1]
    with np.errstate(all="ignore"):
        for lhs, rhs in ((a, b), (b, a)):
            added = lhs + rhs
            spelled = lhs - (np.float32(-0.0) - rhs)
            assert np.array_equal(_bits(added), _bits(spelled))


KERNEL = (Path(__file__).resolve().parent / "kernels" / "ops" / "scalar_float_sum.py").read_text()


def test_a_float_scalar_sum_compiles_to_subtractions_and_simulates_bit_exact(tmp_path: Path) -> None:
    program = parse_program(KERNEL, str(tmp_path / "k.py"))
    compiled = compile_program(program, verify_all=True)
    text = print_mlir(compiled.final, emit_loc=False)  # type: ignore[arg-type]
    assert "arith.addf" not in text and text.count("arith.subf") == 4, text
    for scalars in ((1.5, -1.5), (-0.0, -0.0), (0.0, -0.0), (np.inf, 2.0)):
        inputs = random_inputs(program, seed=3)
        inputs.update({"k1": np.asarray(scalars[0], np.float32), "k2": np.asarray(scalars[1], np.float32)})
        reports = compare(reference(program, inputs), run(compiled, inputs))
        assert reports and all(r.ok for r in reports), [str(r) for r in reports]
