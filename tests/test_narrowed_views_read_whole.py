"""Narrowed views read past their valid region. A view of a narrowing reshape (tensor.view, or tensor.reshape with its own valid_shape, of a
`tensor.reshape(x, shape, valid_shape)`) read past its valid region reads x's elements there,
as the narrowing reshape itself does (finding 406905d9c9: the row broadcast's lhs was widened by
a set_validshape of the view, which ViewLegality refuses, an internal error). ConvertTensorToTileOps
hands the consumer x re-viewed in the view's shape over the region it reads. Bits against NumPy
on both targets; tests/test_ptoas.py assembles the kernels. A window narrowed by its own
valid_shape (tensor.slice) broadcast over a result valid over its whole shape is the same window
re-taken over that region (it was a set_validshape of the window, the same internal error). (A
column broadcast of a window reads a copy of it, since PTOAS measures pto.tcolexpand*'s src0 by its
parent's buffer once a subview is lowered: tests/test_instruction_operand_shapes.py.) A tensor.view of a set_validshape-narrowed
value keeps the value's data past its valid region (DefinedReads took a view's data to be its
valid region, refusing a valid program the set_validshape itself would pass)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from nanopass.pipeline import main

KERNELS = Path(__file__).parent / "kernels" / "ops"
KERNEL = KERNELS / "views_of_a_narrowing_reshape.py"


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_views_of_a_narrowing_reshape_are_read_whole(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     backend: str) -> None:
    rng = np.random.default_rng(11)
    x = rng.standard_normal((8, 32)).astype(np.float32)
    r = rng.standard_normal((8, 1)).astype(np.float32)
    z = rng.standard_normal((16, 16)).astype(np.float32)
    q = rng.standard_normal((4, 1)).astype(np.float32)
    np.savez(tmp_path / "in.npz", x=x, r=r, z=z, q=q)
    rc = main([str(KERNEL), "--verify-all", "--simulate", "--backend", backend, "--inputs", str(tmp_path / "in.npz"),
               "--save-outputs", str(tmp_path / "out.npz"), "-o", str(tmp_path / "k.pto")])
    log = capsys.readouterr()
    assert rc == 0, log.out + log.err
    out = np.load(tmp_path / "out.npz")
    # Every row of each result, the rows past the narrowed views' valid ones too: x's own data.
    expected = [x + r, x.reshape(16, 16) * z, x.reshape(4, 64) - q]
    for index, want in enumerate(expected):
        got = out[f"ret{index}"]
        assert got.shape == want.shape
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), f"ret{index}"
    pto = (tmp_path / "k.pto").read_text()
    assert "pto.trowexpandadd" in pto and "pto.tmul" in pto


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_a_narrowed_window_is_broadcast_whole(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              backend: str) -> None:
    rng = np.random.default_rng(12)
    x = rng.standard_normal((8, 32)).astype(np.float32)
    r = rng.standard_normal((4, 1)).astype(np.float32)
    r2 = rng.standard_normal((4, 1)).astype(np.float32)
    np.savez(tmp_path / "in.npz", x=x, r=r, r2=r2)
    rc = main([str(KERNELS / "narrowed_window_broadcast.py"), "--verify-all", "--simulate", "--backend", backend,
               "--inputs", str(tmp_path / "in.npz"), "--save-outputs", str(tmp_path / "out.npz"),
               "-o", str(tmp_path / "k.pto")])
    log = capsys.readouterr()
    assert rc == 0, log.out + log.err
    out = np.load(tmp_path / "out.npz")
    e = x * x
    expected = [e[4:8] * r, e[2:6] - r2, e * x]
    for index, want in enumerate(expected):
        got = out[f"ret{index}"]
        assert got.shape == want.shape
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), f"ret{index}"
    pto = (tmp_path / "k.pto").read_text()
    assert "pto.trowexpandmul" in pto and "pto.trowexpandsub" in pto
