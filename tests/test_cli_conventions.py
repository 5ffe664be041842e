"""The CLI as a kernel author meets it: diagnostics at the construct that is wrong, once, with
the source line and a caret; malformed input of every kind is a located error (exit 1), never
an internal one; mlir-opt conventions (stdin, `-o -`, --version, IR printing, reports on
stderr); every dump re-runs from its own pipeline position to the same final PTO."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "elementwise_add_f32.py"

HEADER = "import pypto.language as pl\n\n\n@pl.program\nclass K:\n"
INCORE = "    @pl.function(type=pl.FunctionType.InCore)\n"
ORCH = "    @pl.function(type=pl.FunctionType.Orchestration)\n"
T64 = "pl.Tensor[[64, 128], pl.FP32]"


def cli(*args: str, cwd: Path = ROOT, stdin: str | bytes | None = None,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in ("NANOPASS_PLUGIN", "NO_COLOR", "FORCE_COLOR")}
    data = stdin.encode() if isinstance(stdin, str) else stdin
    result = subprocess.run([sys.executable, "-m", "nanopass.pipeline", *args], cwd=cwd, capture_output=True,
                            input=data, stdin=None if data is not None else subprocess.DEVNULL,
                            timeout=300, env=base | {"PYTHONPATH": str(ROOT)} | (env or {}))
    return subprocess.CompletedProcess(result.args, result.returncode, result.stdout.decode(),
                                       result.stderr.decode())


def kernel(tmp_path: Path, body: str, main: str, name: str = "k.py") -> Path:
    path = tmp_path / name
    path.write_text(HEADER + INCORE + body + "\n" + ORCH + main)
    return path


def user_error(result: subprocess.CompletedProcess[str], tmp_path: Path) -> str:
    """Exit 1, no traceback, no reproducer (anywhere it could be seen), one screen."""
    assert result.returncode == 1, result.stdout + result.stderr
    err = result.stderr
    assert "Traceback" not in err and "internal compiler error" not in err and "reproducer" not in err, err
    assert "fix the pass" not in err and "a pass that" not in err, err
    assert not (tmp_path / "nanopass_repro").exists()
    assert result.stdout == ""
    return err


def located(err: str, path: Path, line: int) -> list[str]:
    """The single diagnostic's `file:line:col` lines, with the source line and a caret under it."""
    heads = [m for m in re.finditer(rf"^{re.escape(str(path))}:(\d+):(\d+): error: ", err, re.M)]
    assert len(heads) == 1, err
    assert int(heads[0].group(1)) == line, err
    lines = err.splitlines()
    index = next(i for i, text in enumerate(lines) if text.startswith(f"{path}:"))
    source, caret = lines[index + 1], lines[index + 2]
    assert source.startswith(f"  {line} | "), err
    col = int(heads[0].group(2))
    assert caret.index("^") == len(f"  {line} | ") + col - 1, err
    return lines[index:index + 3]


OPERAND_ERROR = (
    f"    def k(self, x: {T64}, b: {T64}) -> {T64}:\n"
    f"        xc: {T64} = pl.tensor.add(x, b)\n"
    "        t: pl.Tensor[[32, 128], pl.FP32] = pl.tensor.slice(b, [32, 128], [0, 0])\n"
    f"        y: {T64} = pl.tensor.add(xc, t)\n"
    "        return y\n",
    f"    def main(self, a: {T64}, b: {T64}) -> {T64}:\n"
    f"        c: {T64} = self.k(a, b)\n"
    "        return c\n",
)


def test_operand_error_is_reported_at_the_call_not_at_the_operands_definition(tmp_path: Path) -> None:
    path = kernel(tmp_path, *OPERAND_ERROR)
    err = user_error(cli(str(path), cwd=tmp_path), tmp_path)
    lines = located(err, path, 10)
    assert "pl.tensor.add(xc, t)" in lines[1] and "[32, 128]" in err


def test_annotation_mismatch_is_reported_at_the_annotation(tmp_path: Path) -> None:
    path = kernel(tmp_path, f"    def k(self, x: {T64}) -> pl.Tensor[[64, 128], pl.FP16]:\n"
                            "        y: pl.Tensor[[64, 128], pl.FP16] = pl.exp(x)\n        return y\n",
                  f"    def main(self, a: {T64}) -> pl.Tensor[[64, 128], pl.FP16]:\n"
                  "        c: pl.Tensor[[64, 128], pl.FP16] = self.k(a)\n        return c\n")
    err = user_error(cli(str(path), cwd=tmp_path), tmp_path)
    lines = located(err, path, 8)
    caret = lines[2]
    assert caret.strip(" |").startswith("^~") and lines[1][caret.index("^"):].startswith("pl.Tensor[[64, 128], pl.FP16]")
    assert "hint: annotate `y` as pl.Tensor[[64, 128], pl.FP32]" in err


def test_annotation_mismatch_feeding_a_return_is_reported_once_at_the_annotation(tmp_path: Path) -> None:
    # The returned variable has the annotated type: the return disagrees with the declared result
    # only because of the annotation, which is the one error.
    path = kernel(tmp_path, f"    def k(self, x: {T64}) -> {T64}:\n"
                            "        y: pl.Tensor[[64, 128], pl.FP16] = pl.exp(x)\n        return y\n",
                  f"    def main(self, a: {T64}) -> {T64}:\n        c: {T64} = self.k(a)\n        return c\n")
    err = user_error(cli(str(path), cwd=tmp_path), tmp_path)
    located(err, path, 8)
    assert "`y` is annotated pl.Tensor[[64, 128], pl.FP16], but tensor.exp" in err and "return value" not in err


def test_a_function_declaring_a_result_without_any_return_is_rejected(tmp_path: Path) -> None:
    path = kernel(tmp_path, f"    def k(self, x: {T64}) -> {T64}:\n        y: {T64} = pl.exp(x)\n",
                  f"    def main(self, a: {T64}) -> {T64}:\n        c: {T64} = self.k(a)\n        return c\n")
    err = user_error(cli(str(path), cwd=tmp_path), tmp_path)
    located(err, path, 7)
    assert "`k` is declared to return 1 value, but its body has no return" in err


@pytest.mark.parametrize("dtype", ["pl.FP16", "pl.INT32"])
def test_wrong_argument_dtype_in_orchestration_is_the_users_error(tmp_path: Path, dtype: str) -> None:
    path = kernel(tmp_path, f"    def k(self, x: {T64}) -> {T64}:\n        y: {T64} = pl.exp(x)\n        return y\n",
                  f"    def main(self, a: pl.Tensor[[64, 128], {dtype}]) -> {T64}:\n"
                  f"        c: {T64} = self.k(a)\n        return c\n")
    for flags in ((), ("--verify-all",)):
        err = user_error(cli(str(path), *flags, cwd=tmp_path), tmp_path)
        located(err, path, 13)
        assert f"is {dtype} tensor of shape [64, 128], but parameter `x` is pl.FP32" in err
        assert "UpdateOrchestrationCallSites" not in err


def test_unknown_operator_is_reported_once_with_suggestions(tmp_path: Path) -> None:
    path = kernel(tmp_path, f"    def k(self, x: {T64}) -> {T64}:\n        y: {T64} = pl.tensor.expp(x)\n        return y\n",
                  f"    def main(self, a: {T64}) -> {T64}:\n        c: {T64} = self.k(a)\n        return c\n")
    err = user_error(cli(str(path), cwd=tmp_path), tmp_path)
    located(err, path, 8)
    assert err.count("tensor.expp") == 2  # the message and the source line
    assert "did you mean tensor.exp" in err


def test_bare_return_in_a_function_declaring_a_result_is_rejected(tmp_path: Path) -> None:
    path = kernel(tmp_path, f"    def k(self, x: {T64}) -> {T64}:\n        y: {T64} = pl.exp(x)\n        return y\n",
                  f"    def main(self, a: {T64}) -> {T64}:\n        c: {T64} = self.k(a)\n        return\n")
    err = user_error(cli(str(path), cwd=tmp_path), tmp_path)
    located(err, path, 14)
    assert "declared to return 1 value, but this return gives 0 values" in err


@pytest.mark.parametrize("data, line, what", [
    (b"\x00\x01\xff\xfe binary", 1, "binary file"),
    (b"import pypto.language as pl\nx = '\xe9t\xe9'\n", 2, "not UTF-8"),
    (b"\xef\xbb\xbfimport pypto.language as pl\n\x80\n", 2, "not UTF-8"),
    ("import pypto.language as pl\n\n# é\nx = (\n".encode("utf-16"), 1, "binary file"),
])
def test_undecodable_input_is_a_located_user_error(tmp_path: Path, data: bytes, line: int, what: str) -> None:
    path = tmp_path / "k.py"
    path.write_bytes(data)
    err = user_error(cli(str(path), cwd=tmp_path), tmp_path)
    assert re.search(rf"^{re.escape(str(path))}:{line}:\d+: error: \[input\] .*{what}", err, re.M), err


@pytest.mark.parametrize("text", [
    "",
    "import pypto.language as pl\n",
    "x = " + "(" * 5000 + "1" + ")" * 5000 + "\n",
    HEADER + INCORE + f"    def k(self, x: {T64}) -> {T64}:\n        y: {T64} = " + "pl.exp(" * 400 + "x" + ")" * 400 + "\n        return y\n",
    HEADER + INCORE + "    def k(self, x: pl.Tensor[[99999999999, 99999999999], pl.FP32]) -> pl.Tensor[[99999999999, 99999999999], pl.FP32]:\n        return x\n",
    HEADER + INCORE + f"    def k(self, x: pl.Tensor[[-4, 0], pl.FP32]) -> {T64}:\n        return x\n",
    "module {\n  func.func @k() {\n",
])
def test_malformed_programs_are_located_user_errors(tmp_path: Path, text: str) -> None:
    path = tmp_path / ("k.pto" if text.startswith("module") else "k.py")
    path.write_text(text)
    result = cli(str(path), cwd=tmp_path)
    err = user_error(result, tmp_path)
    assert re.search(rf"^{re.escape(str(path))}:\d+:\d+: error: ", err, re.M), err


def test_a_directory_or_a_missing_file_is_a_user_error(tmp_path: Path) -> None:
    for target in (tmp_path, tmp_path / "missing.py"):
        user_error(cli(str(target), cwd=tmp_path), tmp_path)


# -- mlir-opt conventions -------------------------------------------------------------------------


def test_stdin_dash_and_piped_input_and_output_dash(tmp_path: Path) -> None:
    text = EXAMPLE.read_text()
    expected = cli(str(EXAMPLE)).stdout
    assert expected.startswith("module {")
    for args in (["-"], [], ["-", "-o", "-"]):
        result = cli(*args, stdin=text, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        assert result.stdout == expected
    assert list(tmp_path.iterdir()) == []  # `-o -` is stdout, not a file named `-`
    broken = cli("-", stdin=text.replace("pl.tensor.add", "pl.tensor.addd"), cwd=tmp_path)
    assert broken.returncode == 1 and "<stdin>:11:" in broken.stderr and "pl.tensor.addd(a, b)" in broken.stderr


def test_pto_text_on_stdin_is_recognised(tmp_path: Path) -> None:
    pto = cli(str(EXAMPLE)).stdout
    result = cli("-", "--simulate", stdin=pto, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == pto and "simulator only" in result.stderr


def test_version_and_dump_pass_pipeline() -> None:
    version = cli("--version")
    assert version.returncode == 0 and re.fullmatch(r"nanopass \S+\n", version.stdout), version.stdout
    dumped = cli("--dump-pass-pipeline")
    assert dumped.returncode == 0
    spec = dumped.stdout.strip()
    assert spec.startswith("convert-to-ssa,inline-functions,unroll-loops,outline-incore-scopes,") and spec.endswith("pto-codegen")
    again = cli(str(EXAMPLE), "-p", spec)  # the printed pipeline is a valid -p string
    assert again.returncode == 0 and again.stdout == cli(str(EXAMPLE)).stdout
    until = cli("--dump-pass-pipeline", "--until", "TileUnplaced")
    assert until.stdout.strip().endswith("flatten-tile-nd-to-2d")
    with_file = cli(str(EXAMPLE), "--dump-pass-pipeline")
    assert with_file.stdout.startswith("module {") and f"-p {spec}" in with_file.stderr


def test_print_ir_before_and_after_selected_passes() -> None:
    result = cli(str(EXAMPLE), "--print-ir-before", "infer-tile-memory-space",
                 "--print-ir-after", "InitMemRef,pto-codegen")
    assert result.returncode == 0, result.stderr
    headers = re.findall(r"^// -----// IR Dump (.*) //----- //$", result.stderr, re.M)
    assert headers == ["Before InferTileMemorySpace (infer-tile-memory-space)", "After InitMemRef (init-mem-ref)",
                       "After PTOCodegen (pto-codegen)"]
    every = cli(str(EXAMPLE), "--print-ir-before-all")
    after = cli(str(EXAMPLE), "--print-ir-after-all")
    # One dump before each pass that runs on the program (from its language on), as after.
    assert every.stderr.count("IR Dump Before") == after.stderr.count("IR Dump After") >= 19


def test_print_ir_after_failure_shows_the_broken_output(tmp_path: Path) -> None:
    env = {"NANOPASS_PLUGIN": "tests.test_framework:TEST_PLUGIN"}
    result = cli(str(EXAMPLE), "-p", "ssa-breaking-pass", "--verify-all", "--print-ir-after-failure",
                 "--reproducer-dir", str(tmp_path / "r"), env=env, cwd=tmp_path)
    assert result.returncode == 2
    assert "// -----// IR Dump After SsaBreakingPass (ssa-breaking-pass) Failed //----- //" in result.stderr
    assert (tmp_path / "r" / "repro_ssa_breaking_pass.py").is_file()
    assert f"reproducer written to {tmp_path / 'r' / 'repro_ssa_breaking_pass.py'}" in result.stderr


def test_locations_only_with_print_debuginfo() -> None:
    plain = cli(str(EXAMPLE))
    assert "loc(" not in plain.stdout
    located_text = cli(str(EXAMPLE), "--print-debuginfo")
    assert 'loc("' in located_text.stdout and str(EXAMPLE.name) in located_text.stdout


def test_simulate_report_goes_to_stderr(tmp_path: Path) -> None:
    result = cli(str(EXAMPLE), "--simulate", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("module {") and "bit-exact" not in result.stdout
    assert "ret0: bit-exact" in result.stderr


def test_colour_on_request_and_never_with_no_color(tmp_path: Path) -> None:
    path = kernel(tmp_path, *OPERAND_ERROR)
    coloured = cli(str(path), "--color", "always", cwd=tmp_path)
    assert "\x1b[1;31merror:" in coloured.stderr and "\x1b[1;32m^" in coloured.stderr
    assert "\x1b[" not in cli(str(path), cwd=tmp_path).stderr  # not a terminal
    assert "\x1b[" not in cli(str(path), env={"NO_COLOR": "1", "FORCE_COLOR": "1"}, cwd=tmp_path).stderr
    assert "\x1b[" in cli(str(path), env={"FORCE_COLOR": "1"}, cwd=tmp_path).stderr


# -- dumps re-run from their own position ---------------------------------------------------------


@pytest.mark.parametrize("example", ["elementwise_add_f32", "matmul_f16_f32"])
def test_every_dump_reruns_from_its_position_to_the_same_pto(tmp_path: Path, example: str) -> None:
    source = ROOT / "examples" / f"{example}.py"
    first = cli(str(source), "--dump-dir", str(tmp_path), "--verify-all")
    assert first.returncode == 0, first.stderr
    dumps = sorted(tmp_path.iterdir())
    ran = cli(str(source), "--print-ir-after-all").stderr.count("IR Dump After")
    assert len(dumps) == 1 + ran  # the input, then one after each pass that ran on it
    for dump in dumps:
        again = cli(str(dump), "--verify-all")
        assert again.returncode == 0, f"{dump.name}: {again.stderr}"
        assert again.stdout == first.stdout, dump.name
