"""Static typing of languages: mypy rejects wrong-language programs and passes that forget a
kind their target language removed; the packages themselves are `mypy --strict` clean."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _mypy(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )


@pytest.mark.mypy
def test_wrong_language_fails_type_checking_for_the_right_reasons() -> None:
    result = _mypy("--strict", "--warn-unreachable", "--enable-error-code", "explicit-override",
                   "tests/typing_fail/wrong_language.py")
    out = result.stdout
    assert result.returncode == 1, out + result.stderr
    assert 'Argument 1 to "infer_placed" has incompatible type "languages.gen.tile_unplaced.Program"' in out, out
    assert 'expected "languages.gen.tile_placed.Program"' in out, out
    assert 'Cannot instantiate abstract class "ForgetsFuncCall" with abstract attribute "visit_FuncCall"' in out, out
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert len(errors) == 2, out


@pytest.mark.mypy
def test_packages_are_mypy_strict_clean() -> None:
    result = _mypy("nanopass", "languages", "verifiers", "passes", "backend", "nanopass_pto")
    assert result.returncode == 0, result.stdout + result.stderr
