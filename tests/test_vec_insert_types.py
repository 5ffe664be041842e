"""VecInsertTypes: every Vec window copy or window write PTO makes with pto.tinsert is in an element
type the target's tinsert takes (no 16-bit integer on either target, no 32-bit integer on A2/A3).

Finding 6b09f0c436: MaterializeSemanticAliases copied a yielded [1, 1] UINT16 window (a
tile.slice of a loop carry) into a buffer of its own, a pto.tinsert of UINT16 that only
TargetOpRules on the PTO program caught, blaming PTOCodegen. It now copies the window as FP16
bits through the rewrite LegalizeVecLayouts makes (passes/analysis/vec_insert_bits.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from languages.pl_parser import parse_program
from languages.types import DataType
from nanopass.diagnostics import CompileError
from nanopass.node import walk
from nanopass_pto.run import compare, compile_program, reference, run

FINDING = Path(__file__).parent / "regressions" / "fuzz_verifier_pto_codegen_6b09f0c436.py"
BACKENDS = ("Ascend910B", "Ascend950")


def _inputs(seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    inputs: dict[str, np.ndarray] = {}
    for name in ("kernel0_y1", "kernel0_x2", "kernel0_x4", "kernel0_x6"):
        # the whole UINT16 range, the values an FP16 view would read as NaNs and infinities included
        inputs[name] = rng.integers(0, 1 << 16, size=(1, 1), dtype=np.uint16)
    for name in ("kernel0_x16", "kernel0_x18"):
        inputs[name] = rng.standard_normal((16, 12)).astype(np.float16)
    for name in ("kernel0_idx17", "kernel0_idx19"):
        inputs[name] = rng.integers(0, 16, size=(16, 12), dtype=np.int32)
    return inputs


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_yielded_uint16_window_is_copied_as_fp16_bits_bit_exact(backend: str) -> None:
    source = parse_program(FINDING.read_text(), str(FINDING))
    compiled = compile_program(source, backend=backend, verify_all=True)
    inserts = [getattr(n, "args")[0].type.dtype for n in walk(compiled.final)
               if n.KIND == "Call" and getattr(n, "op") == "pto.tinsert"]
    assert inserts and set(inserts) == {DataType.FP16}, inserts
    for seed in (0, 1, 2):
        # x6 + 1 wraps 0xffff to 0; 0x7c01.. read as FP16 are NaNs, which the copy keeps as bits
        inputs = _inputs(seed)
        inputs["kernel0_x6"][0, 0] = (0x7C01, 0xFFFF, 0xFC00)[seed]
        reports = compare(reference(compiled.source, inputs), run(compiled, inputs))
        assert reports and all(r.ok for r in reports), [r.line for r in reports]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_pass_that_copies_a_window_in_a_type_tinsert_refuses_is_blamed(backend: str) -> None:
    # Without the bit copy in MaterializeSemanticAliases (the mutant), VecInsertTypes names that
    # pass and the user's line (before the verifier existed: TargetOpRules after PTOCodegen).
    from nanopass_pto.mutants import MUTANTS

    source = parse_program(FINDING.read_text(), str(FINDING))
    with {m.name: m for m in MUTANTS}["alias-window-copy-in-its-own-type"].applied(), \
            pytest.raises(CompileError) as err:
        compile_program(source, backend=backend, verify_all=True)
    text = str(err.value)
    assert "Verification failed after 'MaterializeSemanticAliases' for properties {VecInsertTypes}" in text, text
    assert f"{FINDING}:" in text and "[VecInsertTypes] `tile.move` is a Vec window copy" in text, text
    assert "UINT16 elements" in text and "FP16" in text, text
