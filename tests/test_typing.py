"""Static typing of languages: mypy rejects wrong-language programs and passes that forget a
kind their target language removed; the packages themselves are `mypy --strict` clean; kernel
files type-check against the `pl` stub (generated from the op registry) and a wrong call in one
is flagged."""

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


@pytest.mark.mypy
def test_the_bundled_kernels_type_check_against_pl() -> None:
    """`mypy examples/KERNEL.py` in the project root: the pl stub and the annotation plugin."""
    examples = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "examples").glob("*.py"))
    assert examples
    result = _mypy(*examples)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.mypy
def test_wrong_kernel_calls_are_flagged() -> None:
    result = _mypy("tests/typing_fail/wrong_kernel.py")
    out = result.stdout
    assert result.returncode == 1, out + result.stderr
    wanted = [
        (9, 'Missing positional argument "rhs" in call to "add" of "_TensorOps"'),
        (10, '"_TensorOps" has no attribute "addd"; maybe "add"?'),
        (12, 'Argument 1 to "exp" of "_TensorOps" has incompatible type "Tile"; expected "Tensor"'),
        (13, 'Unexpected keyword argument "bogus" for "matmul" of "_TensorOps"'),
        (17, "pl.Tensor: the first argument is a list of dimensions"),
        (18, 'Missing positional argument "b" in call to "kernel" of "Wrong"'),
    ]
    for line, message in wanted:
        assert f"wrong_kernel.py:{line}: error: {message}" in out, out
    assert len([line for line in out.splitlines() if ": error:" in line]) == len(wanted), out


def test_the_pl_stub_is_generated_from_the_op_registry() -> None:
    from nanopass_pto import pl_stubs

    assert pl_stubs.STUB.read_text() == pl_stubs.render(), "stale: run python -m nanopass_pto.pl_stubs"
