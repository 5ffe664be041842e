"""A BF16 max / min on Ascend910B runs on the INT16 bits (LegalizeVecDtypes' BITS route) and
comes back through a same-width reinterpret_view: a runtime valid extent carries over (finding
befe697ac1 refused it, naming an op the user never wrote). The valid columns are max(x, -0.5)
bit for bit (NaN bits kept as the BF16 rule selects them); the columns past n keep `out`."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from nanopass.pipeline import main

KERNEL = Path(__file__).parent / "kernels" / "ops" / "bf16_max_of_a_runtime_valid_row.py"


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
@pytest.mark.parametrize("n", [1, 13, 32])
def test_a_bf16_max_of_a_runtime_valid_row_keeps_its_extent(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                            backend: str, n: int) -> None:
    rng = np.random.default_rng(n)
    x = rng.standard_normal((1, 32)).astype(ml_dtypes.bfloat16)
    x[0, 0] = -0.0
    out = np.full((1, 32), 7.0, dtype=ml_dtypes.bfloat16)
    np.savez(tmp_path / "in.npz", x=x, n=np.int64(n), out=out)
    rc = main([str(KERNEL), "--verify-all", "--simulate", "--backend", backend, "--inputs", str(tmp_path / "in.npz"),
               "--save-outputs", str(tmp_path / "out.npz"), "-o", str(tmp_path / "k.pto")])
    log = capsys.readouterr()
    assert rc == 0, log.out + log.err
    got = np.load(tmp_path / "out.npz")["out"].view(np.uint16)
    want = out.copy()
    wide = x[0, :n].astype(np.float32)
    want[0, :n] = np.where(wide >= np.float32(-0.5), x[0, :n], ml_dtypes.bfloat16(-0.5))
    assert np.array_equal(got, want.view(np.uint16)), (got, want.view(np.uint16))
