"""`python -m nanopass.pipeline` and `python -m nanopass.langs` as a user runs them."""

from __future__ import annotations

import re

import os
import shlex
import tempfile
import subprocess
import sys
from pathlib import Path

import pytest

from nanopass.plugin import get_plugin

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "elementwise_add_f32.py"


def run(*args: str, cwd: Path = ROOT, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if k != "NANOPASS_PLUGIN"} | (env or {})
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=120, env=full_env)


def pipeline(*args: str, cwd: Path = ROOT, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run("-m", "nanopass.pipeline", *args, cwd=cwd, env=env)


def assert_clean_failure(result: subprocess.CompletedProcess[str], status: int = 1) -> str:
    output = result.stdout + result.stderr
    assert result.returncode == status, output
    assert "Traceback" not in output
    assert len(output.splitlines()) < 40, "a diagnostic fits on one screen"
    return output


def test_no_file_runs_every_example_with_verify_all() -> None:
    result = pipeline("--verify-all")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    examples = get_plugin().examples()
    assert len(lines) == len(examples) >= 3
    for line, path in zip(lines, examples):
        assert line.startswith(path.stem) and line.endswith("ok"), line


def test_list_languages_in_order() -> None:
    result = pipeline("--list-languages")
    assert result.returncode == 0
    names = [line.split()[1] for line in result.stdout.splitlines()]
    assert names == ["DSL", "Tensor", "TileUnplaced", "TilePlaced", "L0Tiled", "Addressed", "PTO"]


def test_list_passes_and_properties() -> None:
    result = pipeline("--list-passes", "--list-properties")
    assert result.returncode == 0
    assert "normalize-stmt-structure" in result.stdout and "SSAForm" in result.stdout


def test_unknown_pass() -> None:
    output = assert_clean_failure(pipeline(str(EXAMPLE), "-p", "normalize-stmt-structur"))
    assert "unknown pass `normalize-stmt-structur`" in output and "did you mean `normalize-stmt-structure`" in output


def test_bad_option() -> None:
    output = assert_clean_failure(pipeline(str(EXAMPLE), "-p", "simplify-index-arith{depth=2}"))
    assert "has no option `depth`" in output


def test_malformed_pipeline_text() -> None:
    output = assert_clean_failure(pipeline(str(EXAMPLE), "-p", "a,,b"))
    assert "<pipeline>:1:3" in output and "^" in output


def test_malformed_program(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(EXAMPLE.read_text().replace("pl.tensor.add(a, b)", "pl.tensor.add(a, b"))
    output = assert_clean_failure(pipeline(str(bad)))
    assert f"{bad}:" in output
    line_col = output.split(f"{bad}:")[1].split(":")[:2]
    assert all(part.isdigit() for part in line_col), output


def test_missing_file(tmp_path: Path) -> None:
    output = assert_clean_failure(pipeline(str(tmp_path / "nope.py")))
    assert "cannot read" in output


def test_unwritable_output_paths(tmp_path: Path) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    output = assert_clean_failure(pipeline(str(EXAMPLE), "-o", str(blocker / "out.pto")))
    assert f"cannot write {blocker / 'out.pto'}" in output
    output = assert_clean_failure(pipeline(str(EXAMPLE), "--dump-dir", str(blocker)))
    assert f"cannot write {blocker}" in output


def _without_locs(mlir: str) -> str:
    return re.sub(r" loc\([^)]*\)", "", mlir)


def test_single_file_output_dump_timing_statistics(tmp_path: Path) -> None:
    out = tmp_path / "out.py"
    dump = tmp_path / "dump"
    result = pipeline(str(EXAMPLE), "--verify-all", "--timing", "--statistics", "--print-ir-after-change",
                      "--dump-dir", str(dump), "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert "Pass execution timing report" in result.stderr and "Pass statistics report" in result.stderr
    assert out.read_text().startswith("module {")  # the default pipeline ends in PTO (MLIR text)
    files = sorted(p.name for p in dump.iterdir())
    assert files[0] == "00_input.py" and files[1] == "01_after_NormalizeStmtStructure.py"
    assert files[-1].endswith("_after_PTOCodegen.pto")
    addressed = dump / files[-2]
    rerun = pipeline(str(addressed), "-p", "pto-codegen")
    assert rerun.returncode == 0, rerun.stderr
    # Same kernel text; only the loc(...) spans differ (they name the file that was compiled).
    assert _without_locs(rerun.stdout) == _without_locs(out.read_text())


def test_until_language() -> None:
    result = pipeline(str(EXAMPLE), "--until", "Tensor", "--print-ir-after-all")
    assert result.returncode == 0
    assert "IR Dump After" in result.stderr
    output = assert_clean_failure(pipeline(str(EXAMPLE), "-p", "normalize-stmt-structure", "--until", "PTO"))
    assert "no pass of the pipeline produces PTO" in output
    output = assert_clean_failure(pipeline(str(EXAMPLE), "--until", "Foo"))
    assert "unknown language 'Foo' (known: DSL, Tensor, TileUnplaced" in output


def test_langs_show_and_diff() -> None:
    show = run("-m", "nanopass.langs", "show", "PTO")
    assert show.returncode == 0 and "(define-language PTO" in show.stdout and "(extends Addressed)" in show.stdout
    diff = run("-m", "nanopass.langs", "diff", "Addressed", "PTO")
    assert diff.returncode == 0
    assert "- kind (FuncCall" in diff.stdout and "+ ops pto.*" in diff.stdout
    bad = run("-m", "nanopass.langs", "show", "Nope")
    assert bad.returncode == 1 and "unknown language" in bad.stderr and "Traceback" not in bad.stderr


@pytest.mark.parametrize("spec", ["normalize-stmt-structure", ""])
def test_spec_forms_accepted(spec: str) -> None:
    assert pipeline(str(EXAMPLE), "-p", spec).returncode == 0


TEST_PLUGIN_ENV = {"NANOPASS_PLUGIN": "tests.test_framework:TEST_PLUGIN", "PYTHONPATH": str(ROOT)}


def test_internal_error_prints_reproducer_command(tmp_path: Path) -> None:
    result = pipeline(str(EXAMPLE), "-p", "recording-tensor-pass,crashing-pass,options-pass{count=2}",
                      "--dump-dir", str(tmp_path), env=TEST_PLUGIN_ENV)
    output = assert_clean_failure(result, status=2)
    assert "internal compiler error in pass crashing-pass: ZeroDivisionError: boom" in output
    repro = tmp_path / "repro_crashing_pass.py"
    assert repro.is_file() and f"reproducer written to {repro}" in output
    command = output.split("re-run with:\n")[1].splitlines()[0].strip()
    assert command.endswith("-p 'crashing-pass,options-pass{count=2}' --verify-all")
    again = run(*shlex.split(command)[1:], env=TEST_PLUGIN_ENV, cwd=tmp_path)
    assert again.returncode == 2 and "internal compiler error in pass crashing-pass" in again.stderr


def test_reproducer_keeps_a_non_default_backend(tmp_path: Path) -> None:
    result = pipeline(str(EXAMPLE), "-p", "crashing-pass", "--backend", "Ascend950", "--dump-dir", str(tmp_path),
                      env=TEST_PLUGIN_ENV)
    output = assert_clean_failure(result, status=2)
    command = output.split("re-run with:\n")[1].splitlines()[0].strip()
    assert command.endswith("-p crashing-pass --verify-all --backend Ascend950")


@pytest.mark.parametrize("argv", [["nanopass.langs", "show", "Tensor"], ["nanopass.pipeline", "--list-passes"]])
def test_closed_stdout_ends_quietly(argv: list[str]) -> None:
    # `python -m nanopass.langs show Tensor | head -1`: the reader goes away before the output.
    env = {k: v for k, v in os.environ.items() if k != "NANOPASS_PLUGIN"}
    proc = subprocess.Popen([sys.executable, "-m", *argv], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    stderr = proc.stderr.read().decode()
    proc.wait(timeout=120)
    assert "Traceback" not in stderr and "internal compiler error" not in stderr, stderr


def test_verify_all_failure_names_the_pass(tmp_path: Path) -> None:
    # A pass breaking a property is a compiler bug: exit 2, and a reproducer in a directory the
    # message names under the system temp dir, never in the cwd.
    result = pipeline(str(EXAMPLE), "-p", "ssa-breaking-pass", "--verify-all", env=TEST_PLUGIN_ENV, cwd=tmp_path)
    output = assert_clean_failure(result, status=2)
    assert "internal compiler error: Verification failed after 'SsaBreakingPass' for properties {SSAForm}" in output
    assert "does not declare in `invalidates`" in output
    assert list(tmp_path.iterdir()) == []
    written = Path(re.search(r"reproducer written to (\S+);", output).group(1))  # type: ignore[union-attr]
    assert written.is_file() and written.parent.parent == Path(tempfile.gettempdir())


def test_out_of_order_pipeline_cli() -> None:
    output = assert_clean_failure(pipeline(str(EXAMPLE), "-p", "placed-only-pass", env=TEST_PLUGIN_ENV))
    assert "takes TilePlaced programs, but the input program is Tensor" in output
    assert "no pass was run" in output


TILE_LEVEL_KERNEL = """\
import pypto.language as pl


@pl.program
class TileKernel:
    @pl.function(type=pl.FunctionType.InCore)
    def add(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32],
            out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        ta: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        tb: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        tc: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(ta, tb)
        r: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(tc, [0, 0], out)
        return r
"""


def test_default_pipeline_starts_where_a_later_stage_program_begins(tmp_path: Path) -> None:
    # A hand-written TilePlaced kernel skips the Tensor-level passes instead of being rejected.
    kernel = tmp_path / "tile_kernel.py"
    kernel.write_text(TILE_LEVEL_KERNEL)
    result = pipeline(str(kernel), "--verify-all", "--simulate")
    assert result.returncode == 0, result.stderr
    assert "ret0: bit-exact" in result.stderr and result.stdout.startswith("module {")
    # An explicit -p is taken as written: the Tensor-level first pass rejects the program.
    explicit = pipeline(str(kernel), "-p", "normalize-stmt-structure")
    assert explicit.returncode == 1 and "takes Tensor programs" in explicit.stderr


def test_space_less_tile_annotation_is_completed_by_the_calls_target_memory(tmp_path: Path) -> None:
    kernel = tmp_path / "tile_matmul.py"
    kernel.write_text(MAT_KERNEL)
    result = pipeline(str(kernel), "--verify-all", "--simulate")
    assert result.returncode == 0, result.stderr
    assert "ret0: bit-exact" in result.stderr


MAT_KERNEL = """\
import pypto.language as pl


@pl.program
class K:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
           out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        ta: pl.Tile[[64, 64], pl.FP16] = pl.tile.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[64, 64], pl.FP16] = pl.tile.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        c: pl.Tile[[64, 64], pl.FP32] = pl.tile.matmul(ta, tb)
        r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(c, [0, 0], out)
        return r
"""
