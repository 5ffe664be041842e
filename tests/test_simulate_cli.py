"""npz inputs/outputs, output comparison, the post-compile hook, and the `--simulate` /
`--inputs` / `--save-outputs` CLI end to end."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import numpy.typing as npt
import pytest

from nanopass_pto.cli import add_arguments, post_compile, simulate_and_compare
from nanopass_pto.run import Compiled, compare_output
from backend.targets.handlers import get_backend
from backend.arrays import random_inputs
from languages.functions import entry_function
from backend.arrays import load_inputs, save_outputs
from languages.pl_parser import parse_program
from nanopass.diagnostics import CompileError
from nanopass.passes import PassContext

Array = npt.NDArray[Any]
ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
BF16 = np.dtype(ml_dtypes.bfloat16)

ADD_BF16 = """\
import pypto.language as pl


@pl.program
class AddBF16:
    @pl.function(type=pl.FunctionType.InCore)
    def add_incore(self, a: pl.Tensor[[16, 32], pl.BF16], b: pl.Tensor[[16, 32], pl.BF16]) -> pl.Tensor[[16, 32], pl.BF16]:
        c: pl.Tensor[[16, 32], pl.BF16] = pl.tensor.add(a, b)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 32], pl.BF16], b: pl.Tensor[[16, 32], pl.BF16]) -> pl.Tensor[[16, 32], pl.BF16]:
        c: pl.Tensor[[16, 32], pl.BF16] = self.add_incore(a, b)
        return c
"""

SUB_BF16 = ADD_BF16.replace("pl.tensor.add", "pl.tensor.sub")


def bf16_reference(a_bits: Array, b_bits: Array) -> Array:
    """RNE_bf16(a + b): the float32 sum rounds innocuously (24 >= 2*8 + 2), then RNE to bf16; a NaN
    sum (random BF16 inputs hold NaNs and infinities) is the quiet NaN with the float32 NaN's sign
    and top payload bits (NUMERICS.md section 4), where ml_dtypes gives its canonical NaN."""
    with np.errstate(invalid="ignore"):
        a, b = a_bits.view(BF16).astype(np.float32), b_bits.view(BF16).astype(np.float32)
        total = a + b
    rounded = total.astype(BF16).view(np.uint16)
    quiet = ((total.view(np.uint32) >> 16).astype(np.uint16) | np.uint16(0x0040))
    result: Array = np.where(np.isnan(total), quiet, rounded)
    return result


@pytest.fixture
def add_bf16_file(tmp_path: Path) -> Path:
    path = tmp_path / "add_bf16.py"
    path.write_text(ADD_BF16)
    return path


def bf16_inputs(seed: int) -> dict[str, Array]:
    program = parse_program(ADD_BF16, "<bf16>")
    return {k: v.view(np.uint16) for k, v in random_inputs(program, seed).items()}


# -- io ----------------------------------------------------------------------------------------------


def test_npz_round_trip_of_bf16_bit_patterns(tmp_path: Path) -> None:
    program = parse_program(ADD_BF16, "<bf16>")
    raw = bf16_inputs(5)
    path = tmp_path / "in.npz"
    # One array as uint16 bit patterns, the other as the 2-byte void array np.savez writes for bf16.
    np.savez(path, a=raw["a"], b=raw["b"].view(BF16))
    with np.load(path) as archive:
        assert archive["b"].dtype.kind == "V"
    loaded = load_inputs(path, entry_function(program))
    for name in ("a", "b"):
        value = loaded[name]
        assert isinstance(value, np.ndarray) and value.dtype == BF16
        assert np.array_equal(value.view(np.uint16), raw[name])
    out_path = tmp_path / "out.npz"
    save_outputs(out_path, {"ret0": raw["a"].view(BF16), "x": np.ones(3, np.float32)})
    with np.load(out_path) as archive:
        assert archive["ret0"].dtype == np.uint16
        assert np.array_equal(archive["ret0"], raw["a"])
        assert archive["x"].dtype == np.float32


@pytest.mark.parametrize(
    ("arrays", "message"),
    [
        ({"a": np.zeros((16, 32), np.uint16)}, "missing 'b'"),
        ({"a": np.zeros((16, 32), np.uint16), "b": np.zeros((16, 32), np.uint16), "z": np.zeros(1)}, "unexpected 'z'"),
        ({"a": np.zeros((16, 31), np.uint16), "b": np.zeros((16, 32), np.uint16)}, "expected shape [16, 32]"),
        ({"a": np.full((16, 32), 0.1, np.float32), "b": np.zeros((16, 32), np.uint16)}, "uint16 bit patterns"),
    ],
)
def test_bad_npz_inputs_name_the_problem(tmp_path: Path, arrays: dict[str, Array], message: str) -> None:
    path = tmp_path / "bad.npz"
    np.savez(path, **arrays)  # type: ignore[arg-type]
    with pytest.raises(CompileError) as info:
        load_inputs(path, entry_function(parse_program(ADD_BF16, "<bf16>")))
    assert message in str(info.value)


def test_unreadable_npz_is_a_compile_error(tmp_path: Path) -> None:
    with pytest.raises(CompileError, match="cannot read inputs"):
        load_inputs(tmp_path / "missing.npz", entry_function(parse_program(ADD_BF16, "<bf16>")))


# -- comparison and the hook (value-level final programs: no simulator needed) ------------------------


def test_compare_output_reports_first_difference_in_hex() -> None:
    ref = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)
    assert compare_output("ret0", ref, ref.copy()).line == "ret0: bit-exact ([2, 2] FP32)"
    got = ref.copy()
    got[1, 0] = np.float32(-0.0)
    got[1, 1] = np.float32(5.0)
    report = compare_output("ret0", ref, got)
    assert not report.ok
    assert report.line == ("ret0: MISMATCH at [1, 0]: compiled 0x80000000, interpreter 0x40400000 "
                           "(2 of 4 elements differ)")
    assert not compare_output("ret0", ref, ref[:1]).ok


def test_simulate_and_compare_on_value_level_programs() -> None:
    source = parse_program(ADD_BF16, "<add>")
    inputs = bf16_inputs(1)
    lines: list[str] = []
    handler = get_backend("Ascend910B")
    ok, outputs = simulate_and_compare(Compiled(source, source, None, handler), inputs, emit=lines.append)
    assert ok and lines == ["  ret0: bit-exact ([16, 32] BF16)"]
    assert np.array_equal(outputs["ret0"].view(np.uint16), bf16_reference(inputs["a"], inputs["b"]))
    lines.clear()
    wrong = parse_program(SUB_BF16, "<sub>")
    ok, _ = simulate_and_compare(Compiled(source, wrong, None, handler), inputs, emit=lines.append)
    assert not ok and "MISMATCH at" in lines[0]


def hook_args(file: Path, *extra: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--pipeline")
    parser.add_argument("--until")
    add_arguments(parser)
    return parser.parse_args([str(file), *extra])


def test_post_compile_saves_outputs_of_user_inputs(add_bf16_file: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    raw = bf16_inputs(2)
    np.savez(tmp_path / "in.npz", **raw)  # type: ignore[arg-type]
    args = hook_args(add_bf16_file, "--simulate", "--inputs", str(tmp_path / "in.npz"),
                     "--save-outputs", str(tmp_path / "out.npz"))
    program = parse_program(ADD_BF16, str(add_bf16_file))
    status = post_compile(args, program, PassContext("Ascend910B", get_backend("Ascend910B")))
    assert status is None
    assert "ret0: bit-exact" in capsys.readouterr().err
    with np.load(tmp_path / "out.npz") as archive:
        assert archive.files == ["ret0"]
        assert np.array_equal(archive["ret0"], bf16_reference(raw["a"], raw["b"]))


def test_post_compile_returns_1_on_mismatch(add_bf16_file: Path) -> None:
    args = hook_args(add_bf16_file, "--simulate", "--seed", "4")
    wrong = parse_program(SUB_BF16, "<sub>")
    assert post_compile(args, wrong, PassContext("Ascend910B", get_backend("Ascend910B"))) == 1


def test_post_compile_does_nothing_without_its_options(add_bf16_file: Path) -> None:
    args = hook_args(add_bf16_file)
    assert post_compile(args, parse_program(ADD_BF16, "<add>"), PassContext()) is None


def test_backend_option_takes_aliases() -> None:
    assert hook_args(Path("x.py"), "--backend", "a5").backend == "Ascend950"
    with pytest.raises(SystemExit):
        hook_args(Path("x.py"), "--backend", "Ascend310")


# -- the CLI end to end (needs the default pipeline to reach PTO and the hook to be wired) --------------


def _cli_ready() -> str:
    """Empty when the CLI can simulate; otherwise why not."""
    from nanopass.pipeline import Pipeline
    from nanopass.plugin import get_plugin

    plugin = get_plugin()
    if plugin.post_compile is None or plugin.add_arguments is None:
        return "languages/plugin.py does not wire nanopass_pto.cli (add_arguments / post_compile) yet"
    passes = Pipeline.from_spec(plugin.default_pipeline(), plugin).passes
    if not passes or type(passes[-1]).target.name != "PTO":
        return "the default pipeline does not reach PTO yet"
    return ""


CLI_SKIP = _cli_ready()
needs_cli = pytest.mark.skipif(bool(CLI_SKIP), reason=CLI_SKIP)


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    inherited = os.environ.get("PYTHONPATH")
    env = {**os.environ, "PYTHONPATH": str(ROOT) + (os.pathsep + inherited if inherited else "")}
    return subprocess.run([sys.executable, "-m", "nanopass.pipeline", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)


@needs_cli
def test_cli_simulate_one_example() -> None:
    result = run_cli(str(EXAMPLES / "matmul_boxed_m100_f16.py"), "--verify-all", "--simulate", "--seed", "3")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ret0: bit-exact" in result.stderr


@needs_cli
def test_cli_simulate_all_examples() -> None:
    result = run_cli("--verify-all", "--simulate")
    assert result.returncode == 0, result.stdout + result.stderr
    examples = [p for p in EXAMPLES.glob("*.py") if not p.name.startswith("_")]
    # one report per example, every output bit-exact (a kernel with Out parameters reports each)
    assert result.stderr.count("\nsimulate ") + result.stderr.startswith("simulate ") == len(examples)
    assert "bit-exact" in result.stderr and "MISMATCH" not in result.stderr


@needs_cli
@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_cli_inputs_and_save_outputs(add_bf16_file: Path, tmp_path: Path, backend: str) -> None:
    raw = bf16_inputs(9)
    np.savez(tmp_path / "in.npz", **raw)  # type: ignore[arg-type]
    out = tmp_path / "out.npz"
    result = run_cli(str(add_bf16_file), "--backend", backend, "--inputs", str(tmp_path / "in.npz"),
                     "--save-outputs", str(out))
    assert result.returncode == 0, result.stdout + result.stderr
    with np.load(out) as archive:
        assert archive["ret0"].dtype == np.uint16
        assert np.array_equal(archive["ret0"], bf16_reference(raw["a"], raw["b"]))


@needs_cli
def test_cli_bad_inputs_have_no_traceback(add_bf16_file: Path, tmp_path: Path) -> None:
    np.savez(tmp_path / "in.npz", a=np.zeros((16, 32), np.uint16))
    result = run_cli(str(add_bf16_file), "--inputs", str(tmp_path / "in.npz"))
    assert result.returncode != 0
    assert "missing 'b'" in result.stderr
    assert "Traceback" not in result.stderr
