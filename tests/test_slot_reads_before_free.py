"""SlotReadsBeforeFree and ExpandMixedKernel's slot release: a popped pipe slot is handed back
(tfree) only after the last read of the popped tile and of every view of it."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import re
from pathlib import Path

import pytest

from languages.pl_parser import parse_program
from nanopass.node import Node
from nanopass_pto.mutants import MUTANTS
from nanopass.pipeline import main
from nanopass_pto.run import compare, compile_program, random_inputs, reference, run
from verifiers import slot_reads_before_free

# On Ascend910B the [16, 1] matmul result crosses from the cube to the vector core through the
# pipe; the column broadcast reads it through a [1, 1] window (a tile.slice view) of the slot.
KERNEL = """\
import pypto.language as pl


@pl.program
class K:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 1], pl.FP32], a: pl.Tensor[[16, 16], pl.FP16],
          b: pl.Tensor[[16, 1], pl.FP16]) -> pl.Tensor[[16, 1], pl.FP32]:
        p: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.matmul(a, b, out_dtype=pl.FP32)
        v: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.set_validshape(p, 1, 1)
        return pl.tensor.col_expand_add(x, v)
"""


def _until_expanded() -> Node:
    """The kernel's program after ExpandMixedKernel (the default pipeline up to that pass)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--dump-pass-pipeline", "--backend", "Ascend910B"]) == 0
    spec = out.getvalue().strip()
    spec = spec[:spec.index("expand-mixed-kernel") + len("expand-mixed-kernel")]
    compiled = compile_program(parse_program(KERNEL, "k.py"), backend="Ascend910B", pipeline=spec, verify_all=True)
    return compiled.final


def test_the_slot_is_released_after_the_window_of_the_popped_tile_is_read(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "k.py"
    path.write_text(KERNEL)
    assert main([str(path), "--verify-all", "--backend", "Ascend910B", "-o", str(tmp_path / "k.pto")]) == 0, \
        capsys.readouterr().err
    lines = (tmp_path / "k.pto").read_text().splitlines()
    pop = next(i for i, line in enumerate(lines) if "tpop_from_aic" in line)
    window = next(i for i, line in enumerate(lines) if re.search(r"pto\.subview %\w+\[", line) and i > pop)
    name = re.match(r"\s*(%\w+)", lines[window])
    assert name is not None, lines[window]
    # The window's last reader: the broadcast, or the copy of the window a shape-matched
    # instruction is handed (LegalizeVecLayouts' SHAPE_MATCHED_INSTRUCTIONS).
    reader = max(i for i, line in enumerate(lines) if i > window and re.search(re.escape(name.group(1)) + r"\b", line))
    free = next(i for i, line in enumerate(lines) if "tfree_from_aic" in line)
    assert pop < window < reader < free, lines[pop:free + 1]


def test_the_kernel_simulates_bit_exactly() -> None:
    compiled = compile_program(parse_program(KERNEL, "k.py"), backend="Ascend910B", verify_all=True)
    inputs = random_inputs(compiled.source, 11)
    reports = compare(reference(compiled.source, inputs), run(compiled, inputs))
    assert reports and all(r.ok for r in reports), reports


def _free_moved_first(function: Node) -> Node:
    """`function` with its tfree moved to just after the pop (before every read of the tile)."""
    body = list(getattr(function, "body"))
    pop = next(i for i, s in enumerate(body) if s.KIND == "AssignStmt" and "tpop" in str(getattr(s.value, "op", "")))
    free = next(i for i, s in enumerate(body) if s.KIND == "EvalStmt" and "tfree" in str(getattr(s.value, "op", "")))
    stmt = body.pop(free)
    body.insert(pop + 1, stmt)
    return dataclasses.replace(function, body=tuple(body))  # type: ignore[type-var]


def test_the_verifier_passes_the_compiled_kernel_and_fires_on_an_early_free() -> None:
    program = _until_expanded()
    assert slot_reads_before_free.verify(program) == []
    functions = tuple(_free_moved_first(f) if f.name.endswith("_aiv") else f for f in getattr(program, "functions"))
    broken = dataclasses.replace(program, functions=functions)  # type: ignore[type-var]
    messages = [d.message for d in slot_reads_before_free.verify(broken)]
    assert messages and all("after a tfree released that slot" in m for m in messages), messages


def test_the_verifier_follows_views_of_the_popped_tile() -> None:
    # Moving the free to just after the window (a view of the popped tile) is still too early:
    # the window is read by the broadcast after it.
    program = _until_expanded()
    aiv = next(f for f in getattr(program, "functions") if f.name.endswith("_aiv"))
    body = list(aiv.body)
    view = next(i for i, s in enumerate(body) if s.KIND == "AssignStmt" and getattr(s.value, "op", "") == "tile.slice")
    free = next(i for i, s in enumerate(body) if s.KIND == "EvalStmt" and "tfree" in str(getattr(s.value, "op", "")))
    stmt = body.pop(free)
    body.insert(view + 1, stmt)
    functions = tuple(dataclasses.replace(f, body=tuple(body)) if f is aiv else f
                      for f in getattr(program, "functions"))
    messages = [d.message for d in slot_reads_before_free.verify(dataclasses.replace(program, functions=functions))]  # type: ignore[type-var]
    assert len(messages) == 1 and "popped tile" in messages[0], messages


def test_the_mutant_that_forgets_views_is_caught_under_verify_all(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "k.py"
    path.write_text(KERNEL)
    mutant = {m.name: m for m in MUTANTS}["slot-freed-before-view-read"]
    with mutant.applied():
        rc = main([str(path), "--verify-all", "--backend", "Ascend910B", "-o", str(tmp_path / "k.pto"),
                   "--reproducer-dir", str(tmp_path / "r")])
    log = capsys.readouterr().err
    assert rc == 2 and "[ExpandMixedKernel]" in log and "SlotReadsBeforeFree" in log, log


def test_the_simulator_poisons_a_released_slot_so_a_late_read_is_a_poison_read() -> None:
    # Without the verifier (no --verify-all), the simulator is the second oracle: a tfree makes
    # the slot's bytes unwritten, so the broadcast's read of the window after it is reported.
    from backend.sim.machine import PoisonRead

    mutant = {m.name: m for m in MUTANTS}["slot-freed-before-view-read"]
    with mutant.applied():
        compiled = compile_program(parse_program(KERNEL, "k.py"), backend="Ascend910B")
    inputs = random_inputs(compiled.source, 3)
    with pytest.raises(PoisonRead, match="trowexpandadd|tinsert"):  # the window's reader, or its copy
        run(compiled, inputs)
