"""tensor.expand_clone reads its source over the target's region, as NumPy's broadcast_to reads
the data (and PyPTO's lowering loads the source's whole region): a source narrowed by
set_validshape or by a narrowing reshape is copied past its valid region, from the tile under
it (it compiled to a store of the valid region only, leaving the rest of the target as it was:
finding b3fe3e1a0b). A narrowed cube product, which lives boxed, is read whole by an
element-wise op too (it was refused as a broadcast of its [112, 32] box), and a row broadcast
widens it over its result (it computed over the narrowed region only: finding c2d27eb707). Where the tile under
holds no data there, the program is refused at the user's line. Bits against NumPy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from nanopass.pipeline import main

KERNEL = Path(__file__).parent / "kernels" / "ops" / "expand_clone_of_narrowed_values.py"


def _small_integers(rng: np.random.Generator, shape: tuple[int, ...], dtype: type) -> np.ndarray:
    # Products and sums of small integers are exact in FP32, so the float64 reference is the bits.
    return rng.integers(-3, 4, shape).astype(dtype)


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_narrowed_sources_are_copied_whole(tmp_path: Path, capsys: pytest.CaptureFixture[str], backend: str) -> None:
    rng = np.random.default_rng(11)
    a, b = _small_integers(rng, (100, 64), np.float16), _small_integers(rng, (64, 32), np.float16)
    x, x_sum = (rng.standard_normal((100, 32)).astype(np.float32) for _ in range(2))
    w, z = rng.standard_normal((1, 32)).astype(np.float32), rng.standard_normal((16, 32)).astype(np.float32)
    r, y = rng.standard_normal((4, 16)).astype(np.float16), rng.standard_normal((2, 32)).astype(np.float16)
    col = rng.standard_normal((100, 1)).astype(np.float32) * np.float32(4.0)
    np.savez(tmp_path / "in.npz", a=a, b=b, x=x, x_sum=x_sum, w=w, z=z, r=r, y=y, col=col)
    rc = main([str(KERNEL), "--verify-all", "--simulate", "--backend", backend, "--inputs", str(tmp_path / "in.npz"),
               "--save-outputs", str(tmp_path / "out.npz"), "-o", str(tmp_path / "k.pto")])
    log = capsys.readouterr()
    assert rc == 0, log.out + log.err
    out = np.load(tmp_path / "out.npz")
    product = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    expected = {
        "ret0": product,
        "ret1": product + x_sum,
        "ret2": np.broadcast_to(w * np.float32(2.0), (16, 32)),
        "ret3": (r + np.float16(1.0)).reshape(2, 32),
        "ret4": np.minimum(product, col),
    }
    for name, want in expected.items():
        got = out[name]
        assert got.dtype == want.dtype and np.array_equal(got.view(np.uint8), np.ascontiguousarray(want).view(np.uint8)), name


def test_a_source_narrowed_over_no_data_is_refused_at_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = KERNEL.read_text().replace("pl.tensor.matmul(a, b, out_dtype=pl.FP32)",
                                      "pl.tensor.matmul(pl.tensor.slice(a, [100, 64], [0, 0], [1, 64]), b, out_dtype=pl.FP32)")
    source = tmp_path / "narrow_product.py"
    source.write_text(text)
    assert main([str(source), "--verify-all"]) != 0
    err = capsys.readouterr().err
    line = next(n for n, l in enumerate(text.splitlines(), 1) if "expand_clone(first_row" in l)
    assert f"narrow_product.py:{line}:" in err and "[DefinedReads] tensor.expand_clone" in err, err
    assert "tensor.matmul wrote only [1, 32]" in err and "Traceback" not in err, err
