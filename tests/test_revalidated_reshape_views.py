"""An element-wise op reading a view past its valid region, where the view is a same-shape
tile.reshape narrowing the valid region by its own valid_shape argument: the view is taken again
over the region read, that argument widened too (findings 66a183e452, RevalidateReadOperands, and
6ff8b34c84, LegalizeVecLayouts on [N, 1] columns). The op reads the loaded bytes past the view's
valid region: bits against NumPy on both targets; the emitted PTO hands the instruction sources
of one valid shape (tests/test_ptoas.py assembles both kernels where PTOAS is built)."""

from __future__ import annotations

import re
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from nanopass.pipeline import main

KERNELS = Path(__file__).parent / "kernels" / "ops"
BACKENDS = ["Ascend910B", "Ascend950"]


def _run(kernel: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], backend: str,
         **inputs: np.ndarray) -> tuple[dict[str, np.ndarray], str]:
    np.savez(str(tmp_path / "in.npz"), **inputs)  # type: ignore[arg-type]
    rc = main([str(kernel), "--verify-all", "--simulate", "--backend", backend, "--inputs", str(tmp_path / "in.npz"),
               "--save-outputs", str(tmp_path / "out.npz"), "-o", str(tmp_path / "k.pto")])
    log = capsys.readouterr()
    assert rc == 0, log.out + log.err
    out = np.load(tmp_path / "out.npz")
    return {name: out[name] for name in out.files}, (tmp_path / "k.pto").read_text()


def _source_valid_shapes(pto: str, instruction: str) -> list[set[tuple[str, str]]]:
    """Per `instruction` line, the set of (v_row, v_col) of its tile operands."""
    lines = [line for line in pto.splitlines() if f"{instruction} ins(" in line]
    assert lines, f"no {instruction} in the emitted PTO"
    return [set(re.findall(r"v_row=(\w+), v_col=(\w+)", line)) for line in lines]


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_element_wise_op_reads_a_narrowing_reshape_view_whole(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], backend: str) -> None:
    rng = np.random.default_rng(66)
    a, b = (rng.integers(0, 256, (16, 16), dtype=np.uint8) for _ in range(2))
    x, y = (rng.standard_normal((16, 32)).astype(np.float32) for _ in range(2))
    out, pto = _run(KERNELS / "revalidated_reshape_views.py", tmp_path, capsys, backend, a=a, b=b, x=x, y=y)
    assert np.array_equal(out["ret0"], b & a)
    assert np.array_equal(out["ret1"].view(np.uint32), (y - x).view(np.uint32))
    assert _source_valid_shapes(pto, "pto.tand") == [{("16", "16")}]
    assert _source_valid_shapes(pto, "pto.tsub") == [{("16", "32")}]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_column_op_reads_a_narrowing_reshape_view_whole_on_its_row(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], backend: str) -> None:
    rng = np.random.default_rng(6)
    a = rng.standard_normal((16, 1)).astype(np.float32).view(np.int32)  # its bits are finite FP32 too
    b = rng.integers(-2 ** 20, 2 ** 20, (16, 1), dtype=np.int32)
    f = rng.standard_normal((16, 1)).astype(np.float32)
    out, pto = _run(KERNELS / "column_reshape_view_read_whole.py", tmp_path, capsys, backend, a=a, b=b, f=f)
    assert np.array_equal(out["ret0"], (a - b) + (a + b))  # INT32, wrapping as the vector unit does
    assert np.array_equal(out["ret1"].view(np.uint32), (f + a.view(np.float32)).view(np.uint32))
    assert _source_valid_shapes(pto, "pto.tadd") == [{("1", "16")}] * 3



@pytest.mark.parametrize("backend", BACKENDS)
def test_a_bf16_op_computed_in_fp32_widens_a_narrowing_reshape_view_whole(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], backend: str) -> None:
    """tmax of BF16 runs in FP32 on both targets (LegalizeVecDtypes): the view is widened whole.
    A maximum is exact, so NumPy's over the BF16 values is the reference."""
    rng = np.random.default_rng(11)
    a, b = (rng.standard_normal((16, 16)).astype(ml_dtypes.bfloat16) for _ in range(2))
    out, _ = _run(KERNELS / "bf16_reshape_view_read_whole.py", tmp_path, capsys, backend, a=a, b=b)
    expected = np.maximum(a.astype(np.float32), b.astype(np.float32)).astype(ml_dtypes.bfloat16)
    assert np.array_equal(out["ret0"].view(np.uint16), expected.view(np.uint16))


# The kernel, the headline, and the located error the mutant is caught by.
CAUGHT = [
    # RevalidateReadOperands checks the view it takes again is valid over the region read, so the
    # mutant there makes the valid kernel a (wrong) located refusal, which a campaign reports.
    ("view-retaken-keeps-own-valid", "revalidated_reshape_views.py", 1,
     "[RevalidateReadOperands] not supported yet: `tile.and` reads its operand `corner`",
     "this view cannot be taken again over it"),
    ("re-view-revalidated-keeps-narrowing", "column_reshape_view_read_whole.py", 2, "hint: this is a compiler bug",
     "[LegalizeVecLayouts] the `tile.reshape` view `first`, taken again over [16, 1], is valid over [1, 1]"),
    ("re-view-revalidated-keeps-narrowing", "bf16_reshape_view_read_whole.py", 2, "hint: this is a compiler bug",
     "[LegalizeVecDtypes] the `tile.reshape` view `part`, taken again over [16, 16], is valid over [3, 5]"),
]


@pytest.mark.parametrize("name, kernel, status, headline, located", CAUGHT)
def test_the_view_kept_narrower_is_caught_where_it_is_made(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, kernel: str, status: int, headline: str,
        located: str) -> None:
    """The finding's bug (the reshape taken again with its own valid_shape argument kept) is
    stopped in the pass that made it, never after PTOCodegen (mutant view-retaken-keeps-own-valid for
    RevalidateReadOperands' registry-driven re-take, re-view-revalidated-keeps-narrowing for the
    helper the two legalizing passes share):
    ValidMatchedReads right after RevalidateReadOperands (not TargetOpRules after PTOCodegen), and
    the two legalizing passes' own check of the view they take again."""
    from nanopass_pto.mutants import MUTANTS

    mutant = {m.name: m for m in MUTANTS}[name]
    with mutant.applied():
        rc = main([str(KERNELS / kernel), "--verify-all", "--backend", "Ascend910B",
                   "-o", str(tmp_path / "k.pto"), "--reproducer-dir", str(tmp_path)])
    captured = capsys.readouterr()
    log = captured.out + captured.err
    assert rc == status, log
    assert headline in log and located in log, log
