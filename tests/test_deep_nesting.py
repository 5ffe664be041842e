"""Nesting, as malformed or merely unusual input: nesting Python cannot parse is a located parse
error (exit 1), and a deep loop nest compiles and runs (the interference dataflow of
MaterializeSemanticAliases memoizes each loop's live-in: it walked the innermost body 2^depth
times, so a 20-deep nest took a minute and a 40-deep one never finished)."""

from __future__ import annotations

from pathlib import Path

import pytest

from languages.pl_parser import load_program
from nanopass.pipeline import main
from nanopass_pto import run

ROOT = Path(__file__).resolve().parent.parent
BASE = (ROOT / "examples" / "elementwise_add_f32.py").read_text()
CALL = "pl.tensor.add(a, b)"


def _loop_nest(depth: int) -> str:
    lines = BASE.splitlines()
    at = next(i for i, line in enumerate(lines) if CALL in line)
    nest = [" " * (8 + d) + f"for i{d} in pl.range(1):" for d in range(depth)]
    nest.append(" " * (8 + depth) + f"c{depth}: pl.Tensor[[64, 128], pl.FP32] = pl.tensor.mul(a, b)")
    return "\n".join(lines[: at + 1] + nest + lines[at + 1:]) + "\n"


def test_a_deep_loop_nest_compiles_and_runs_bit_exact(tmp_path: Path) -> None:
    path = tmp_path / "nest.py"
    path.write_text(_loop_nest(40))
    program = load_program(str(path))
    compiled = run.compile_program(program, verify_all=True)
    inputs = run.random_inputs(program, seed=3)
    reports = run.compare(run.reference(program, inputs), run.run(compiled, inputs))
    assert reports and all(r.ok for r in reports), [str(r) for r in reports]


@pytest.mark.parametrize(("source", "message"), [
    (BASE.replace(CALL, "(" * 300 + CALL + ")" * 300), "too many nested parentheses"),
    (_loop_nest(120), "too many levels of indentation"),
])
def test_nesting_python_cannot_parse_is_a_located_error(source: str, message: str, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "deep.py"
    path.write_text(source)
    assert main([str(path)]) == 1
    err = capsys.readouterr().err
    assert f"{path}:" in err and message in err and "Traceback" not in err, err
    assert "internal compiler error" not in err
