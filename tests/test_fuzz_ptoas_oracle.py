"""The fuzz campaigns' assembler oracle (`python -m nanopass.fuzz --ptoas`): a kernel that ran
bit-exact is handed to PTOAS, and a rejection outside the known-open classes
(nanopass_pto.ptoas.KNOWN_OPEN, shared with tests/test_ptoas.py) is a failure of its own, status
`ptoas`, blamed on the codegen. A stand-in assembler (a script at $PTOAS) says what PTOAS would."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from nanopass.fuzz import main as fuzz_main
from nanopass_pto.fuzz_target import ASSEMBLER_BLAME, PtoFuzzTarget

PROGRAM = """import pypto.language as pl


@pl.program
class K:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[8, 32], pl.FP32]) -> pl.Tensor[[8, 32], pl.FP32]:
        return pl.add(x, x)
"""


def _stand_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stderr: str, rc: int) -> Path:
    script = tmp_path / "ptoas"
    script.write_text(f"#!/bin/sh\necho \"$@\" > {tmp_path / 'args'}\necho \"{stderr}\" >&2\nexit {rc}\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PTOAS", str(script))
    return script


def _target(backend: str) -> PtoFuzzTarget:
    target = PtoFuzzTarget()
    target.configure(None, backend, None)
    target.check_with_assembler()
    return target


@pytest.mark.parametrize("backend, arch", [("Ascend910B", "a3"), ("Ascend950", "a5")])
def test_a_rejection_is_a_ptoas_failure(backend: str, arch: str, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    _stand_in(tmp_path, monkeypatch, "error: 'pto.tadd' op expects something else", 1)
    outcome = _target(backend).check_text(PROGRAM, 0)
    assert outcome.status == "ptoas" and outcome.blamed == ASSEMBLER_BLAME, outcome
    assert f"--pto-arch={arch}" in outcome.detail and "'pto.tadd' op expects something else" in outcome.detail
    assert f"--pto-arch={arch} --pto-level=level3" in (tmp_path / "args").read_text()


def test_acceptance_and_a_known_open_class_pass(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _stand_in(tmp_path, monkeypatch, "", 0)
    assert not _target("Ascend910B").check_text(PROGRAM, 0).failed
    _stand_in(tmp_path, monkeypatch, "error: 'pto.tcmp' op expects src0, src1, and dst to have the same shape", 1)
    assert not _target("Ascend950").check_text(PROGRAM, 0).failed


def test_without_an_assembler_the_campaign_does_not_start(monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("PTOAS", "/nonexistent/ptoas")
    assert fuzz_main(["--ptoas", "--examples", "1", "--workers", "1", "--db", ""]) == 2
    assert "PTOAS is not built" in capsys.readouterr().err
