"""PTOAS measures some instructions' tiles against each other, and the compiler hands it tiles
that measure alike (issue 11).

- A column broadcast's src0 and dst are compared by declared shape also once PTOAS has lowered
  a pto.subview to its source's strided buffer, where a window measures as the whole buffer
  (`'pto.tcolexpandsub' op expects src0/dst to have same shape`): LegalizeVecLayouts hands such
  an instruction a window operand as a copy of its own (tests/kernels/ops/col_expand_of_windows.py).
- An element-wise instruction's sources and dst are valid over one region (`'pto.tsub' op expects
  src0 and src1 to have the same valid_shape`): RevalidateReadOperands re-validates an operand the
  op reads past its valid region over the region read (tile_operands_read_past_valid.py).

Each kernel runs bit-exact against NumPy on both targets and is accepted by PTOAS on a3 and a5;
with its fix undone, the emitted PTO is refused by TargetOpRules when loaded (the facts
`SameDeclaredShape` / `SameValidShape` on the PTO instructions) and by PTOAS alike.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Any, Callable

import numpy as np
import numpy.typing as npt
import pytest

from nanopass.pipeline import main
from nanopass_pto.mutants import MUTANTS
from nanopass_pto.ptoas import ARCH
from tests.test_ptoas import PTOAS, _ptoas

Array = npt.NDArray[Any]
KERNELS = Path(__file__).resolve().parent / "kernels" / "ops"
BACKENDS = list(ARCH)


def _run(kernel: Path, backend: str, inputs: dict[str, Array], tmp_path: Path, *extra: str) -> tuple[int, str]:
    np.savez(tmp_path / "in.npz", **inputs)  # type: ignore[arg-type]
    log = io.StringIO()
    with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
        rc = main([str(kernel), "--backend", backend, "--inputs", str(tmp_path / "in.npz"),
                   "--save-outputs", str(tmp_path / "out.npz"), "-o", str(tmp_path / "k.pto"), *extra])
    return rc, log.getvalue()


def _bits(a: Array) -> Array:
    return a.view(np.dtype(f"u{a.dtype.itemsize}"))


def _col_expand_inputs() -> tuple[dict[str, Array], list[Array]]:
    rng = np.random.default_rng(41)
    x = rng.standard_normal((8, 32)).astype(np.float32)
    c = rng.standard_normal((1, 32)).astype(np.float32)
    d = rng.standard_normal((1, 16)).astype(np.float32)
    n = rng.integers(-9000, 9000, (8, 32)).astype(np.int16)
    m = rng.integers(-9000, 9000, (1, 16)).astype(np.int16)
    e = x * x
    return ({"x": x, "c": c, "d": d, "n": n, "m": m},
            [e[2:6] - c, e[:, 16:] * d, (n + n)[4:8, 16:] + m])


def _read_past_inputs() -> tuple[dict[str, Array], list[Array]]:
    rng = np.random.default_rng(42)
    p, q = (rng.standard_normal((8, 32)).astype(np.float32) for _ in range(2))
    w = rng.standard_normal((16, 32)).astype(np.float32)
    zeros = np.zeros((8, 32), np.float32)
    return {"p": p, "q": q, "w": w, "out0": zeros, "out1": zeros}, [q - p, np.maximum(w[8:], q)]


# kernel, inputs and expected results, an instruction the fix shapes, the mutant undoing the fix
# (nanopass_pto/mutants.py), and the TargetOpRules refusal (and PTOAS's) of the PTO emitted without it.
CASES: dict[str, tuple[str, Callable[[], tuple[dict[str, Array], list[Array]]], str, str, str, str]] = {
    "col_expand_of_windows": ("col_expand_of_windows.py", _col_expand_inputs, "pto.tcolexpandsub",
                              "col-broadcast-of-a-window-uncopied", "as the buffers they cut",
                              "expects src0/dst to have same shape"),
    "read_past_valid": ("tile_operands_read_past_valid.py", _read_past_inputs, "pto.tsub",
                        "read-past-operand-not-revalidated", "over [3, 32]", "to have the same valid_shape"),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", list(CASES))
def test_the_kernel_runs_bit_exact_and_assembles(case: str, backend: str, tmp_path: Path) -> None:
    kernel, make_inputs, instruction, _, _, _ = CASES[case]
    inputs, expected = make_inputs()
    rc, log = _run(KERNELS / kernel, backend, inputs, tmp_path, "--verify-all", "--simulate")
    assert rc == 0 and "bit-exact" in log, log
    out = np.load(tmp_path / "out.npz")
    for index, want in enumerate(expected):
        got = out[f"ret{index}"]
        assert got.shape == want.shape and got.dtype == want.dtype, (index, got.dtype, want.dtype)
        assert np.array_equal(_bits(got), _bits(want)), f"ret{index}"
    pto = (tmp_path / "k.pto").read_text()
    assert instruction in pto
    if PTOAS is None or not PTOAS.is_file():
        pytest.skip("PTOAS is not built (the simulation above ran)")
    result = _ptoas(tmp_path / "k.pto", ARCH[backend], tmp_path / "k.cpp")
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", list(CASES))
def test_without_the_fix_target_op_rules_refuses_what_ptoas_refuses(case: str, backend: str, tmp_path: Path) -> None:
    kernel, make_inputs, instruction, undo, refusal, ptoas_refusal = CASES[case]
    inputs, _ = make_inputs()
    with next(m for m in MUTANTS if m.name == undo).applied():
        rc, log = _run(KERNELS / kernel, backend, inputs, tmp_path)
    assert rc == 0, log
    loaded = io.StringIO()
    with contextlib.redirect_stdout(loaded), contextlib.redirect_stderr(loaded):
        rc = main([str(tmp_path / "k.pto"), "--backend", backend])
    text = loaded.getvalue()
    assert rc == 1 and f"[TargetOpRules] {instruction} on {backend}" in text and refusal in text, text
    assert "Traceback" not in text
    if PTOAS is None or not PTOAS.is_file():
        pytest.skip("PTOAS is not built (the verifier's refusal above was checked)")
    result = _ptoas(tmp_path / "k.pto", ARCH[backend], tmp_path / "k.cpp")
    assert result.returncode != 0 and instruction in result.stderr and ptoas_refusal in result.stderr, result.stderr


FINDINGS = Path(__file__).resolve().parent / "regressions"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("finding", ["col_expand_of_a_window_ptoas.py", "set_validshape_operand_read_past_ptoas.py"])
def test_the_findings_run_bit_exact_and_assemble(finding: str, backend: str, tmp_path: Path) -> None:
    log = io.StringIO()
    with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
        rc = main([str(FINDINGS / finding), "--backend", backend, "--verify-all", "--simulate", "--seed", "5",
                   "-o", str(tmp_path / "k.pto")])
    assert rc == 0 and "bit-exact" in log.getvalue() and "MISMATCH" not in log.getvalue(), log.getvalue()
    if PTOAS is None or not PTOAS.is_file():
        pytest.skip("PTOAS is not built (the simulation above ran)")
    result = _ptoas(tmp_path / "k.pto", ARCH[backend], tmp_path / "k.cpp")
    assert result.returncode == 0, result.stderr
