"""A kernel as a user runs it: a `@pl.program` file compiled by the CLI under `--verify-all`
(PTO written to `k.pto`), optionally simulated on given inputs (outputs saved to `out.npz`).
A traceback, an internal compiler error or a diagnostic blaming a pass fails the test."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from nanopass.pipeline import main

Array = npt.NDArray[Any]
HEADER = "import pypto.language as pl\n\n\n@pl.program\nclass Kernel:\n"


def program_text(body: str) -> str:
    """`body` (methods, dedented) inside `class Kernel`; body line 1 is file line 6."""
    return HEADER + textwrap.indent(textwrap.dedent(body), "    ")


def compile_kernel(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str,
                   inputs: dict[str, Array] | None = None) -> tuple[int, str]:
    """Exit code and log of compiling `text` as `tmp_path/kernel.py` (simulated on `inputs`)."""
    path = tmp_path / "kernel.py"
    path.write_text(text)
    extra: list[str] = []
    if inputs is not None:
        np.savez(tmp_path / "in.npz", **inputs)  # type: ignore[arg-type]
        extra = ["--simulate", "--inputs", str(tmp_path / "in.npz"), "--save-outputs", str(tmp_path / "out.npz")]
    rc = main([str(path), "--verify-all", "-o", str(tmp_path / "k.pto"), *extra])
    captured = capsys.readouterr()
    log = captured.out + captured.err
    assert "Traceback" not in log and "internal compiler error" not in log and "fix the pass" not in log, log
    return rc, log
