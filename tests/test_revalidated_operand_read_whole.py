"""An element-wise op reading a set_validshape-narrowed operand past its valid region reads the
bytes it narrows (the region the op reads is the result's): the tile op gets the tile it narrows,
so PTOAS, which wants the sources of one valid shape, accepts the kernel (tests/test_ptoas.py
assembles tests/kernels/ops/revalidated_operand_read_whole.py). Bits against NumPy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from nanopass.pipeline import main

KERNEL = Path(__file__).parent / "kernels" / "ops" / "revalidated_operand_read_whole.py"


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_the_narrowed_operand_is_read_whole(tmp_path: Path, capsys: pytest.CaptureFixture[str], backend: str) -> None:
    rng = np.random.default_rng(5)
    x, y = (rng.standard_normal((16, 32)).astype(np.float32) for _ in range(2))
    np.savez(tmp_path / "in.npz", x=x, y=y)
    rc = main([str(KERNEL), "--verify-all", "--simulate", "--backend", backend, "--inputs", str(tmp_path / "in.npz"),
               "--save-outputs", str(tmp_path / "out.npz"), "-o", str(tmp_path / "k.pto")])
    log = capsys.readouterr()
    assert rc == 0, log.out + log.err
    out = np.load(tmp_path / "out.npz")
    assert np.array_equal(out["ret0"].view(np.uint32), (x - y).view(np.uint32))
    assert np.array_equal(out["ret1"].view(np.uint32), np.maximum(x, y).view(np.uint32))
    pto = (tmp_path / "k.pto").read_text()
    assert "v_row=4" not in pto.split("pto.tsub")[1].split("\n")[0], "tsub reads the narrowed handle"
