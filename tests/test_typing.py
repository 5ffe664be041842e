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
def test_plain_mypy_checks_packages_and_tests_strictly() -> None:
    # What CI runs: `mypy` with no arguments reads its files from pyproject.toml.
    result = _mypy()
    assert result.returncode == 0, result.stdout + result.stderr
    checked = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-error-summary", "--warn-unreachable",
                              "--enable-error-code", "explicit-override", "--config-file", "pyproject.toml"],
                             cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert checked.returncode == 0, checked.stdout
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert config["strict"] is True and "tests" in config["files"]
    assert {"nanopass", "languages", "verifiers", "backend", "passes", "nanopass_pto"} <= set(config["files"])
