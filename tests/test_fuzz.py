"""The fuzzer's properties under pytest (Hypothesis profiles `ci` / `campaign` from conftest.py),
plus unit tests of the campaign driver, the regression files and the mutant catalogue."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backend.fuzzing.generator import Features, programs
from languages.cube_boxing import unboxed_batched_axis
from languages.gen import tensor as T
from languages.ops import REGISTRY
from languages.types import DataType, TensorType
from nanopass_pto.fuzz_target import FuzzCase, PtoFuzzTarget, cases, read_regression, regression_file
from nanopass_pto.mutants import MUTANTS, transform
from nanopass.diagnostics import CompileError
from nanopass.fuzz import Outcome
from nanopass.passes import PassContext
from nanopass.pipeline import PassCrash
from nanopass.plugin import get_plugin

ROOT = Path(__file__).resolve().parent.parent
SPAN = re.compile(r"fuzz_input\.py:\d+:\d+")

_TARGET = PtoFuzzTarget()
_TARGET.configure(None, None, None)


def _check(case: FuzzCase) -> Outcome:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return _TARGET.check(case)


@given(cases(arch=_TARGET.handler.arch))
def test_compiled_program_matches_interpreter_bit_for_bit(case: FuzzCase) -> None:
    """generate → compile with verify-all → simulate vs interpret, bit-exact."""
    outcome = _check(case)
    assert not outcome.failed, f"{outcome.headline()}\n{outcome.detail}\n(input seed {case.input_seed})\n{case.text}"


# -- text fuzzing: mutated program text gives a located diagnostic, never a traceback ---------------

_DTYPES = ("pl.FP32", "pl.FP16", "pl.BF16", "pl.INT8", "pl.INT32")
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*|\d+|\S")


def _mutate(text: str, kind: int, where: int, other: int) -> str:
    lines = text.splitlines()
    if kind == 0:  # delete one token
        tokens = list(_TOKEN.finditer(text))
        token = tokens[where % len(tokens)]
        return text[: token.start()] + text[token.end():]
    if kind == 1:  # swap a dtype
        spots = [m for m in re.finditer(r"pl\.(FP32|FP16|BF16|INT8|INT32)\b", text)]
        if spots:
            spot = spots[where % len(spots)]
            return text[: spot.start()] + _DTYPES[other % len(_DTYPES)] + text[spot.end():]
    if kind == 2:  # a wrong shape: change one number
        numbers = list(re.finditer(r"\b\d+\b", text))
        if numbers:
            spot = numbers[where % len(numbers)]
            return text[: spot.start()] + str(int(spot.group()) + 1 + other % 7) + text[spot.end():]
    if kind == 3 and len(lines) > 8:  # drop a line of the body
        index = 7 + where % (len(lines) - 7)
        return "\n".join(lines[:index] + lines[index + 1:])
    return text.replace("pl.tensor.", "pl.tensor.x", 1)


@given(programs(Features.parse("-big_shapes")), st.integers(0, 4), st.integers(0, 10_000), st.integers(0, 100))
def test_mutated_text_gives_located_diagnostic_not_traceback(generated: object, kind: int, where: int,
                                                             other: int) -> None:
    text = _mutate(getattr(generated, "text"), kind, where, other)
    plugin = get_plugin()
    try:
        program = plugin.parse(text, "fuzz_input.py")
        ctx = PassContext(_TARGET.backend_name, plugin.make_backend(_TARGET.backend_name))
        _TARGET.pipeline.run(program, ctx)
    except CompileError as err:
        assert SPAN.search(str(err)), f"diagnostic without file:line:col:\n{err}\n--- text ---\n{text}"
    except PassCrash as crash:
        pytest.fail(f"internal compiler error on mutated text: {crash}\n--- text ---\n{text}")


# -- driver, regression files, mutants ---------------------------------------------------------------


def test_features_parse() -> None:
    assert not Features.parse("-loops").loops
    assert Features.parse("+mixed_kernels").mixed_kernels
    assert not Features.parse("-narrowed_left").narrowed_left
    assert Features.parse("all").mixed_kernels
    with pytest.raises(ValueError, match="unknown generator feature"):
        Features.parse("-nonsense")


def test_regression_file_round_trip(tmp_path: Path) -> None:
    text = (ROOT / "examples" / "elementwise_add_f32.py").read_text()
    outcome = Outcome("mismatch", "simulator mismatch", "memory-reuse", "ret0: MISMATCH at [0, 0]")
    stem, body = regression_file(text, 7, outcome, "Ascend910B", None)
    assert stem.startswith("fuzz_mismatch_memory_reuse_")
    path = tmp_path / f"{stem}.py"
    path.write_text(body)
    spec = read_regression(path)
    assert (spec.input_seed, spec.status, spec.blamed, spec.backend, spec.pipeline) == (
        7, "mismatch", "memory-reuse", "Ascend910B", None)
    # The file is still a program the frontend (and so `nanopass.pipeline --simulate`) reads.
    get_plugin().parse(body, str(path))


def test_replay_line_reproduces_the_found_backend_and_pass_list() -> None:
    # An Ascend950 finding replayed on the default backend reports another verdict (a capacity the
    # other target does not have), so the replay line names both.
    outcome = Outcome("rejected", "compile error", "infer-tile-memory-space", "error")
    _, body = regression_file("x = 1\n", 3, outcome, "Ascend950", "convert-tensor-to-tile-ops,pto-codegen")
    replay = next(line for line in body.splitlines() if line.startswith("# replay:"))
    assert replay.endswith('--seed 3 --backend Ascend950 -p "convert-tensor-to-tile-ops,pto-codegen"')


def test_catalogue_has_at_least_twelve_reversible_mutants() -> None:
    mutants = list(MUTANTS)
    assert len(mutants) >= 12
    assert len({m.name for m in mutants}) == len(mutants)
    import passes.allocate_memory_addr as alloc

    before = alloc.address_mapping
    shift = next(m for m in mutants if m.name == "shift-one-address")
    with shift.applied():
        assert alloc.address_mapping is not before
    assert alloc.address_mapping is before


def test_transform_without_edits_returns_the_same_program() -> None:
    program = get_plugin().parse((ROOT / "examples" / "softmax_rows_f32.py").read_text(), "x.py")
    assert transform(program, lambda node: None) is program


SLICE_PROGRAM = """\
# pypto.program: S
import pypto.language as pl


@pl.program
class S:
    @pl.function(type=pl.FunctionType.InCore)
    def k0(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[8, 16], pl.FP32, pl.TensorView(valid_shape=[8, 5])]:
        s: pl.Tensor[[8, 16], pl.FP32, pl.TensorView(valid_shape=[8, 5])] = pl.tensor.slice(x, [8, 16], [2, 3], [8, 5])
        r: pl.Tensor[[8, 1], pl.FP32] = pl.tensor.row_sum(s)
        y: pl.Tensor[[8, 16], pl.FP32, pl.TensorView(valid_shape=[8, 5])] = pl.tensor.row_expand_add(s, r)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[8, 16], pl.FP32, pl.TensorView(valid_shape=[8, 5])]:
        y: pl.Tensor[[8, 16], pl.FP32, pl.TensorView(valid_shape=[8, 5])] = self.k0(x)
        return y
"""


def test_a_mutant_is_caught_and_blamed_on_its_pass() -> None:
    assert not _TARGET.check_text(SLICE_PROGRAM, 0).failed
    mutant = next(m for m in MUTANTS if m.name == "slice-keeps-full-valid")
    with mutant.applied():
        outcome = _TARGET.check_text(SLICE_PROGRAM, 0)
    assert outcome.status == "mismatch"
    assert outcome.blamed.startswith("convert-tensor-to-tile-ops")
    assert not _TARGET.check_text(SLICE_PROGRAM, 0).failed  # undone on exit


def test_campaign_cli_runs_and_prints_summary(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "NANOPASS_PLUGIN"}
    env["NANOPASS_FUZZ_TARGET"] = "nanopass_pto.fuzz_target:fuzz_target"
    result = subprocess.run(
        [sys.executable, "-m", "nanopass.fuzz", "--examples", "3", "--workers", "1", "--db", "",
         "--features=-big_shapes,-multi_kernel", "--regressions", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "fuzz campaign summary" in result.stdout and "programs/s" in result.stdout
    assert "Traceback" not in result.stderr


# -- shapes the spec declines get a diagnostic at the user's line (never generated) ----------------

ACC_UNALIGNED_N = """\
# pypto.program: S
import pypto.language as pl


@pl.program
class S:
    @pl.function(type=pl.FunctionType.InCore)
    def k0(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 20], pl.FP16], a2: pl.Tensor[[16, 32], pl.FP16], b2: pl.Tensor[[32, 20], pl.FP16]) -> pl.Tensor[[16, 20], pl.FP32]:
        c: pl.Tensor[[16, 20], pl.FP32] = pl.tensor.matmul(a, b, out_dtype=pl.FP32)
        d: pl.Tensor[[16, 20], pl.FP32] = pl.tensor.matmul_acc(c, a2, b2)
        return d

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 20], pl.FP16], a2: pl.Tensor[[16, 32], pl.FP16], b2: pl.Tensor[[32, 20], pl.FP16]) -> pl.Tensor[[16, 20], pl.FP32]:
        y: pl.Tensor[[16, 20], pl.FP32] = self.k0(a, b, a2, b2)
        return y
"""


@pytest.mark.parametrize("dtype, acc, n, box", [("FP16", "FP32", 20, 16), ("INT8", "INT32", 48, 32)])
def test_matmul_acc_with_unboxed_n_is_declined_at_the_users_line(dtype: str, acc: str, n: int, box: int) -> None:
    text = ACC_UNALIGNED_N.replace("FP16", dtype).replace("FP32", acc).replace(", 20]", f", {n}]")
    outcome = _TARGET.check_text(text, 0, "fuzz_input.py")
    assert outcome.status == "rejected" and outcome.blamed == "convert-tensor-to-tile-ops", outcome
    assert f"fuzz_input.py:10:" in outcome.detail and f"N (= {n}) to be a multiple of {box}" in outcome.detail


BATCHED_UNBOXED = """\
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def k0(self, a: pl.Tensor[[2, M, K], pl.BF16], b: pl.Tensor[[2, N, K], pl.BF16]) -> pl.Tensor[[2, M, N], pl.FP32]:
        c: pl.Tensor[[2, M, N], pl.FP32] = pl.tensor.matmul(a, b, b_trans=True, out_dtype=pl.FP32)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[2, M, K], pl.BF16], b: pl.Tensor[[2, N, K], pl.BF16]) -> pl.Tensor[[2, M, N], pl.FP32]:
        y: pl.Tensor[[2, M, N], pl.FP32] = self.k0(a, b)
        return y
"""


@pytest.mark.parametrize("m, k, n, axis", [(1, 32, 16, "M (= 1)"), (7, 32, 16, "M (= 7)"), (16, 32, 1, "N (= 1)"),
                                           (16, 24, 16, "K (= 24)")])
def test_a_batched_matmul_off_the_boxes_is_declined_and_not_drawn(m: int, k: int, n: int, axis: str) -> None:
    # Each batch's matrix is packed after the previous one, so no batch is rounded up to the
    # fractal boxes: declined at the user's line (it was a BoxedExtents verifier error, or
    # AutoTileMatmulL0's one-row refusal), by the fact the generator reads too.
    text = BATCHED_UNBOXED.replace("M", str(m)).replace("K", str(k)).replace("N", str(n))
    outcome = _TARGET.check_text(text, 0, "fuzz_input.py")
    assert outcome.status == "rejected" and outcome.blamed == "convert-tensor-to-tile-ops", outcome
    assert "fuzz_input.py:8:" in outcome.detail and f"not supported yet: a batched `tensor.matmul` whose {axis}" \
        in outcome.detail, outcome.detail
    lhs = T.Var("a", TensorType((2, m, k), DataType.BF16))
    rhs = T.Var("b", TensorType((2, n, k), DataType.BF16))
    conversion = REGISTRY.get("tensor.matmul").to_tile
    assert conversion is not None
    assert unboxed_batched_axis((lhs, rhs), (("b_trans", True),), conversion) is not None
    whole = T.Var("a", TensorType((2, 16, 32), DataType.BF16)), T.Var("b", TensorType((2, 16, 32), DataType.BF16))
    assert unboxed_batched_axis(whole, (("b_trans", True),), conversion) is None


def test_generator_reaches_the_compact_seed_and_shape_corners() -> None:
    """The coverage tags the campaign prints: each corner of issue 4 is really drawn."""
    seen: set[str] = set()

    @settings(max_examples=400, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(programs())
    def collect(generated: object) -> None:
        seen.update(getattr(generated, "ops"))

    collect()
    expected = {"cube:narrowed-left", "shape:m-unaligned", "shape:k-split", "shape:big", "shape:1-row",
                "tensor.matmul_acc", "tensor.row_expand_sub", "tensor.assemble", "valid:partial", "for",
                "kernels:3", "dtype:pl.INT8", "construct:window-computed", "construct:assemble-through-view"}
    assert expected <= seen, sorted(expected - seen)
    # tensor.cast's rounding modes come from the registry's choices: some non-default one is
    # drawn (in programs steered to tensor.cast: the free draw calls it too rarely to count on).
    casts: set[str] = set()

    @settings(max_examples=40, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(programs(focus=("tensor.cast",)))
    def collect_casts(generated: object) -> None:
        casts.update(getattr(generated, "ops"))

    collect_casts()
    assert any(tag.startswith("tensor.cast:mode=") and tag != "tensor.cast:mode=round" for tag in casts), \
        sorted(t for t in casts if "cast" in t)
    # Scalar pl.cast between INDEX, INT32 and FP32 (each pair emits other arith conversions).
    # (drawn where the scalar recipes are half the kernels: the whole mix calls them too rarely).
    scalars: set[str] = set()

    @settings(max_examples=200, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(programs(Features(matmul=False, tile_kernels=False, loops=False, dsl_spellings=False)))
    def collect_scalars(generated: object) -> None:
        scalars.update(getattr(generated, "ops"))

    collect_scalars()
    assert len({tag for tag in scalars if tag.startswith("scalar:cast:")}) >= 2, sorted(t for t in scalars if "cast" in t)
