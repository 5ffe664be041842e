"""The operator-catalog kernels (tests/kernels/ops/) emit PTO the real assembler accepts:
each is compiled to PTO-ISA MLIR and handed to PTOAS 0.44 (`../shared/external/`), for Ascend910B
(a3). Skipped where PTOAS is not built (its path: $PTOAS, or the build script's cache)."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
from pathlib import Path

import pytest

from nanopass.pipeline import main

KERNELS = sorted((Path(__file__).resolve().parent / "kernels" / "ops").glob("*.py"))
_CACHED = Path.home() / ".cache" / "ptoas" / "4d2f456e" / "build" / "tools" / "ptoas" / "ptoas"
PTOAS = Path(os.environ.get("PTOAS", str(_CACHED)))


@pytest.mark.skipif(not PTOAS.is_file(), reason="PTOAS is not built (bash ../shared/external/build-ptoas.sh)")
@pytest.mark.parametrize("kernel", KERNELS, ids=lambda p: p.stem)
def test_ptoas_accepts_the_catalog_kernels(kernel: Path, tmp_path: Path) -> None:
    pto = tmp_path / f"{kernel.stem}.pto"
    log = io.StringIO()
    with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
        assert main([str(kernel), "--verify-all", "-o", str(pto)]) == 0, log.getvalue()
    result = subprocess.run([str(PTOAS), "--pto-arch=a3", "--pto-level=level3", str(pto), "-o", str(tmp_path / "k.cpp")],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
