"""NoRebasedWindows: a reinterpret_view never re-views a placed window (a tile.slice result) from
its source buffer's first byte. LegalizeVecLayouts copies the window out for a user's
reinterpret; LegalizeVecDtypes does for the INT16 bit views of its BF16 routes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from ml_dtypes import bfloat16

from languages.pl_parser import parse_program
from nanopass.pipeline import main
from nanopass_pto.mutants import MUTANTS
from nanopass_pto.run import compare, compile_program, random_inputs, reference, run
from verifiers import no_rebased_windows

HEADER = "import pypto.language as pl\n\n\n@pl.program\nclass K:\n    @pl.function(type=pl.FunctionType.InCore)\n"

# On both targets a BF16 maximum runs in FP32 through the BITS route: the window's bits are
# re-viewed as INT16 (a reinterpret_view), widened, compared and narrowed back (the kernel is also
# one of tests/kernels, which tests/test_ptoas.py hands to the assembler).
BF16_MAX_OF_A_WINDOW = (Path(__file__).parent / "kernels" / "ops" / "bf16_max_of_a_window.py").read_text()

# A user's reinterpret of a window: the window's FP32 bits as INT32.
BITS_OF_A_WINDOW = HEADER + """\
    def k(self, a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[8, 8], pl.INT32]]) -> pl.Tensor[[8, 8], pl.INT32]:
        t: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        s: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [8, 8], [8, 16])
        b: pl.Tile[[8, 8], pl.INT32, pl.Mem.Vec] = pl.tile.reinterpret_view(s, dtype=pl.INT32)
        return pl.tile.store(b, [0, 0], out)
"""


def _run(text: str, backend: str) -> tuple[dict[str, np.ndarray], np.ndarray]:
    compiled = compile_program(parse_program(text, "k.py"), backend=backend, verify_all=True)
    inputs = random_inputs(compiled.source, 5)
    outputs = run(compiled, inputs)
    reports = compare(reference(compiled.source, inputs), outputs)
    assert reports and all(r.ok for r in reports), reports
    return inputs, np.asarray(next(iter(outputs.values())))


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_a_bf16_bits_route_on_a_window_reads_the_window(backend: str) -> None:
    inputs, got = _run(BF16_MAX_OF_A_WINDOW, backend)
    window = np.asarray(inputs["a"]).astype(bfloat16)[8:16, 16:32]
    assert np.array_equal(got.astype(bfloat16).view(np.uint16), window.view(np.uint16))


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_a_reinterpret_of_a_window_reads_the_windows_bits(backend: str) -> None:
    inputs, got = _run(BITS_OF_A_WINDOW, backend)
    window = np.ascontiguousarray(np.asarray(inputs["a"], dtype=np.float32)[8:16, 16:24])
    assert np.array_equal(got.astype(np.int32), window.view(np.int32))


def test_the_verifier_fires_on_a_reinterpret_of_a_placed_window() -> None:
    # After placement and before LegalizeVecLayouts, the user's reinterpret still re-views the
    # window in place: the program the verifier must refuse.
    spec = "convert-to-ssa,normalize-stmt-structure,convert-tensor-to-tile-ops,flatten-tile-nd-to-2d,infer-tile-memory-space"
    placed = compile_program(parse_program(BITS_OF_A_WINDOW, "k.py"), pipeline=spec).final
    messages = [d.message for d in no_rebased_windows.verify(placed)]
    assert len(messages) == 1 and "re-views `s`, a window of another tile" in messages[0], messages
    legalized = compile_program(parse_program(BITS_OF_A_WINDOW, "k.py"), pipeline=spec + ",legalize-vec-layouts").final
    assert no_rebased_windows.verify(legalized) == []


@pytest.mark.parametrize("mutant, kernel, blamed", [
    ("bits-route-window-unpacked", BF16_MAX_OF_A_WINDOW, "[LegalizeVecDtypes]"),
    ("window-re-viewed-unpacked", BITS_OF_A_WINDOW, "[LegalizeVecLayouts]"),
])
def test_the_mutants_that_re_view_a_window_in_place_are_caught(mutant: str, kernel: str, blamed: str, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "k.py"
    path.write_text(kernel)
    with {m.name: m for m in MUTANTS}[mutant].applied():
        rc = main([str(path), "--verify-all", "-o", str(tmp_path / "k.pto"), "--reproducer-dir", str(tmp_path / "r")])
    log = capsys.readouterr().err
    assert rc == 2 and blamed in log and "[NoRebasedWindows]" in log, log


# A transpose_view is a pto.treshape of its operand's buffer too (finding 758691348c read the
# source's first element instead of the window's).
TRANSPOSED_WINDOW = (Path(__file__).parent / "kernels" / "ops" / "transpose_view_of_a_window.py").read_text()


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_a_transpose_view_of_a_window_reads_the_window(backend: str) -> None:
    inputs, got = _run(TRANSPOSED_WINDOW, backend)
    window = np.asarray(inputs["a"], dtype=np.float32)[3:4, 5:13].T
    assert np.array_equal(got.astype(np.float32).view(np.uint32), np.ascontiguousarray(window).view(np.uint32))


def test_the_verifier_fires_on_a_transpose_view_of_a_placed_window() -> None:
    spec = "convert-to-ssa,normalize-stmt-structure,convert-tensor-to-tile-ops,flatten-tile-nd-to-2d,infer-tile-memory-space"
    placed = compile_program(parse_program(TRANSPOSED_WINDOW, "k.py"), pipeline=spec).final
    messages = [d.message for d in no_rebased_windows.verify(placed)]
    assert len(messages) == 1 and "tile.transpose_view re-views `s`" in messages[0], messages
    legalized = compile_program(parse_program(TRANSPOSED_WINDOW, "k.py"), pipeline=spec + ",legalize-vec-layouts").final
    assert no_rebased_windows.verify(legalized) == []
