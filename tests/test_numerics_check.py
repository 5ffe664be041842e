"""The fuzzer's own check of backend.numerics (an exact Fraction reference): it agrees with the
correct arithmetic, and a campaign fails on a wrong rounding or a wrong wrap in the arithmetic
the simulator and the interpreter share."""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable

import numpy as np
import pytest

from backend import numerics
from backend.fuzzing.numerics_check import FORMATS, round_exact, self_check
from nanopass_pto.fuzz_target import NUMERICS_BLAME, PtoFuzzTarget

SEEDS = range(12)  # one full rotation of formats, casts and integer widths


def test_the_shared_arithmetic_agrees_with_the_exact_reference() -> None:
    assert [self_check(seed) for seed in SEEDS] == [None] * len(SEEDS)


def test_exact_rounding_follows_numerics_md() -> None:
    fp16 = FORMATS["FP16"]
    half_ulp = Fraction(1, 2 ** 11)  # half an FP16 ulp at 1.0
    assert round_exact(1 + half_ulp, fp16, "rint") == 1.0  # ties to even
    assert round_exact(1 + 3 * half_ulp, fp16, "rint") == 1 + 4 * float(half_ulp)
    assert round_exact(1 + half_ulp, fp16, "round") == 1 + 2 * float(half_ulp)  # ties away
    assert round_exact(-(1 + half_ulp), fp16, "floor") == -(1 + 2 * float(half_ulp))
    assert round_exact(1 + half_ulp, fp16, "odd") == 1 + 2 * float(half_ulp)
    assert round_exact(Fraction(70000), fp16, "rint") == float("inf")
    assert round_exact(Fraction(70000), fp16, "trunc") == 65504.0
    assert round_exact(Fraction(0), fp16, "rint", negative_zero=True) == 0.0
    assert np.signbit(round_exact(Fraction(0), fp16, "rint", negative_zero=True))


def _ties_away_everywhere(original: Callable[[Any, Any, str], Any]) -> Callable[[Any, Any, str], Any]:
    def broken(scaled: Any, negative: Any, mode: str) -> Any:
        return original(scaled, negative, "round" if mode in ("rint", "none") else mode)
    return broken


def test_a_wrong_rounding_in_the_shared_numerics_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(numerics, "_round_magnitude_to_integer", _ties_away_everywhere(numerics._round_magnitude_to_integer))
    found = [problem for problem in (self_check(seed) for seed in SEEDS) if problem]
    assert found and any("mode=rint" in p or "binary" in p for p in found), found


def test_a_saturating_integer_add_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    original = numerics._int_binary

    def saturating(op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if op == "add":
            info = np.iinfo(a.dtype)
            return np.clip(a.astype(np.int64) + b.astype(np.int64), info.min, info.max).astype(a.dtype)
        return original(op, a, b)

    monkeypatch.setattr(numerics, "_int_binary", saturating)
    found = [problem for problem in (self_check(seed) for seed in SEEDS) if problem]
    assert any("binary add in INT" in p or "binary add in UINT" in p for p in found), found


def test_the_fuzz_target_reports_a_numerics_bug_as_a_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(numerics, "_round_magnitude_to_integer", _ties_away_everywhere(numerics._round_magnitude_to_integer))
    target = PtoFuzzTarget()
    target.configure(None, None, None)
    text = ("import pypto.language as pl\n\n@pl.program\nclass K:\n    @pl.function(type=pl.FunctionType.InCore)\n"
            "    def k(self, a: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:\n"
            "        return pl.add(a, a)\n")
    outcomes = [target.check_text(text, seed, "k.py") for seed in SEEDS]
    failed = [o for o in outcomes if o.failed]
    assert failed and all(o.status == "numerics" and o.blamed == NUMERICS_BLAME for o in failed), outcomes
