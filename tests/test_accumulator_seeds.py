"""The accumulator-initialisation idioms users write for split-K matmul.

- `tensor.matmul_acc(acc, a, b, init_cond)` (4th operand, positional or keyword) converts to
  the predicated `tile.matmul_acc`;
- a +0 `tensor.full` seed becomes `tensor.create` + an init_cond on the first accumulation
  (SeedZeroAccumulators), bit-exactly: a fresh accumulation starts from +0.0 (NUMERICS.md 1);
- `pl.full(...)` in a Tensor-language program means `tensor.full`.

End to end, every spelling compiles with --verify-all and simulates bit-exact against an
independent NumPy reference (a sequential fused FP32 chain over K, written here) on both
backends; the pass itself is checked structurally, with the verifiers, and for meaning with
the reference interpreter. A -0.0 or nonzero seed is not rewritten and gets a diagnostic.
"""

from __future__ import annotations

import contextlib
import io
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import languages.gen.tensor as T
from backend.targets.handlers import get_backend
from nanopass_pto.run import random_inputs, reference
from languages.pl_parser import parse_program
from languages.pl_printer import print_program
from languages.types import DataType
from tests.frontend import parse_tensor
from tests.references import matmul_ref
from nanopass.diagnostics import CompileError
from nanopass.node import walk
from nanopass.passes import PassContext
from nanopass.pipeline import main
from passes.normalize_stmt_structure import NormalizeStmtStructure
from passes.seed_zero_accumulators import SeedZeroAccumulators
from passes.simplify_index_arith import SimplifyIndexArith
from verifiers import grammar, normalized_stmt_structure, ssa_form, type_checked, use_after_def

Array = npt.NDArray[Any]
BOTH = ("Ascend910B", "Ascend950")
ACCUMULATOR = {"FP16": "FP32", "BF16": "FP32", "INT8": "INT32"}


# -- the independent reference -------------------------------------------------------------------------


def inputs_for(dtype: str, m: int, k: int, n: int, seed: int) -> tuple[Array, Array]:
    rng = np.random.default_rng(seed)
    if dtype == "INT8":
        return (rng.integers(-128, 128, (m, k)).astype(np.int8), rng.integers(-128, 128, (k, n)).astype(np.int8))
    return rng.standard_normal((m, k)).astype(np.float16), rng.standard_normal((k, n)).astype(np.float16)


# -- kernels: one per spelling ------------------------------------------------------------------------

KERNEL = """\
import pypto.language as pl


@pl.program
class Seeds:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[{m}, {k}], pl.{dt}], b: pl.Tensor[[{k}, {n}], pl.{dt}]) -> pl.Tensor[[{m}, {n}], pl.{acc}]:
{body}

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[{m}, {k}], pl.{dt}], b: pl.Tensor[[{k}, {n}], pl.{dt}]) -> pl.Tensor[[{m}, {n}], pl.{acc}]:
        c = self.mm(a, b)
        return c
"""

K_LOOP = """
for k in pl.{loop}(0, {k}, {kb}{stage}):
    a_k = pl.slice(a, [{m}, {kb}], [0, k])
    b_k = pl.slice(b, [{kb}, {n}], [k, 0])
    acc = pl.matmul_acc(acc, a_k, b_k{cond})
return acc
"""

SPELLINGS: dict[str, str] = {
    "tensor.full seed, pipeline": "acc = pl.tensor.full([{m}, {n}], pl.{acc}, 0.0)" + K_LOOP,
    "pl.full seed, range": "acc = pl.full([{m}, {n}], pl.{acc}, 0.0)" + K_LOOP,
    "create + init_cond keyword": "acc = pl.create_tensor([{m}, {n}], dtype=pl.{acc})" + K_LOOP,
    "create + init_cond positional": "acc = pl.create_tensor([{m}, {n}], dtype=pl.{acc})" + K_LOOP,
    "zero seed + user init_cond": "acc = pl.full([{m}, {n}], pl.{acc}, 0.0)" + K_LOOP,
    "integer zero seed, straight line": """
acc = pl.full([{m}, {n}], pl.{acc}, 0)
c = pl.matmul_acc(acc, a, b)
return c
""",
    "zero seed, loop from 1": """
acc = pl.full([{m}, {n}], pl.{acc}, 0.0)
for k in pl.range(1, {blocks} + 1):
    a_k = pl.slice(a, [{m}, {kb}], [0, (k - 1) * {kb}])
    b_k = pl.slice(b, [{kb}, {n}], [(k - 1) * {kb}, 0])
    acc = pl.matmul_acc(acc, a_k, b_k)
return acc
""",
    "zero seed, nested loops": """
acc = pl.full([{m}, {n}], pl.{acc}, 0.0)
for kk in pl.range(0, 2):
    for k in pl.pipeline(0, {half}, {kb}, stage=2):
        a_k = pl.slice(a, [{m}, {kb}], [0, kk * {half} + k])
        b_k = pl.slice(b, [{kb}, {n}], [kk * {half} + k, 0])
        acc = pl.matmul_acc(acc, a_k, b_k)
return acc
""",
}
LOOP_FORMS = {
    "tensor.full seed, pipeline": ("pipeline", ""),
    "pl.full seed, range": ("range", ""),
    "create + init_cond keyword": ("pipeline", ", init_cond=k == 0"),
    "create + init_cond positional": ("range", ", k == 0"),
    "zero seed + user init_cond": ("pipeline", ", init_cond=k == 0"),
}
# (spelling, operand dtype, M, K, N): M = 100 exercises the boxed, compact Acc seed.
CASES = [
    ("tensor.full seed, pipeline", "FP16", 64, 256, 64),
    ("tensor.full seed, pipeline", "FP16", 100, 256, 64),
    ("pl.full seed, range", "FP16", 64, 128, 128),
    ("create + init_cond keyword", "FP16", 100, 128, 64),
    ("create + init_cond positional", "FP16", 64, 128, 64),
    ("zero seed + user init_cond", "FP16", 64, 256, 64),
    ("integer zero seed, straight line", "INT8", 32, 128, 64),
    ("integer zero seed, straight line", "FP16", 100, 64, 64),
    ("zero seed, loop from 1", "FP16", 64, 192, 64),
    ("zero seed, nested loops", "FP16", 64, 256, 64),
]


def kernel_text(spelling: str, dtype: str, m: int, k: int, n: int, kb: int = 64) -> str:
    loop, cond = LOOP_FORMS.get(spelling, ("range", ""))
    stage = ", stage=2" if loop == "pipeline" else ""
    body = SPELLINGS[spelling].strip("\n").format(
        m=m, n=n, k=k, kb=kb, acc=ACCUMULATOR[dtype], loop=loop, stage=stage, cond=cond,
        half=k // 2, blocks=k // kb)
    return KERNEL.format(m=m, k=k, n=n, dt=dtype, acc=ACCUMULATOR[dtype], body=textwrap.indent(body, " " * 8))


def run_cli(text: str, inputs: dict[str, Array], backend: str, tmp: Path) -> tuple[int, str, dict[str, Array]]:
    kernel = tmp / "kernel.py"
    kernel.write_text(text)
    arrays: dict[str, Any] = dict(inputs)
    np.savez(tmp / "in.npz", **arrays)
    out_npz = tmp / "out.npz"
    log = io.StringIO()
    with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log), contextlib.chdir(tmp):
        rc = main([str(kernel), "--verify-all", "--simulate", "--inputs", str(tmp / "in.npz"),
                   "--save-outputs", str(out_npz), "--backend", backend, "-o", str(tmp / "out.pto")])
    outputs = dict(np.load(out_npz)) if out_npz.exists() else {}
    return rc, log.getvalue(), outputs


def bits(x: Array) -> Array:
    return x.view(np.dtype(f"u{x.dtype.itemsize}"))


@pytest.mark.parametrize("backend", BOTH)
@pytest.mark.parametrize(("spelling", "dtype", "m", "k", "n"), CASES)
def test_spelling_compiles_and_simulates_bit_exact(spelling: str, dtype: str, m: int, k: int, n: int,
                                                   backend: str, tmp_path: Path) -> None:
    a, b = inputs_for(dtype, m, k, n, seed=m + k + n)
    rc, log, outputs = run_cli(kernel_text(spelling, dtype, m, k, n), {"a": a, "b": b}, backend, tmp_path)
    assert rc == 0, log
    assert "bit-exact" in log and "differ" not in log and "warning" not in log, log
    expected = matmul_ref(a, b)
    got = outputs["ret0"]
    assert got.shape == expected.shape
    mismatched = np.argwhere(bits(expected) != got.view(bits(expected).dtype))
    assert len(mismatched) == 0, f"{len(mismatched)} elements differ, first at {tuple(mismatched[0])}"


# -- the pass on its own ------------------------------------------------------------------------------


def tensor_program(spelling: str, dtype: str = "FP16", m: int = 64, k: int = 128, n: int = 64) -> T.Program:
    return parse_tensor(kernel_text(spelling, dtype, m, k, n))


def seed(program: T.Program, backend: str = "Ascend910B") -> tuple[T.Program, PassContext]:
    ctx = PassContext(backend_name=backend, backend=get_backend(backend))
    normal = SimplifyIndexArith().run(NormalizeStmtStructure().run(program, ctx), ctx)
    return SeedZeroAccumulators().run(normal, ctx), ctx


def assert_verified(program: T.Program) -> None:
    for verifier in (grammar.verify_tensor, ssa_form.verify, use_after_def.verify, type_checked.verify,
                     normalized_stmt_structure.verify):
        problems = verifier(program)
        assert not problems, "\n".join(d.format() for d in problems)


def calls(program: T.Program, op: str) -> list[T.Call]:
    return [n for n in walk(program) if isinstance(n, T.Call) and n.op == op]


def assert_same_meaning(before: T.Program, after: T.Program) -> None:
    inputs = random_inputs(before, seed=3)
    expected, got = reference(before, inputs), reference(after, inputs)
    for name, value in expected.items():
        assert np.array_equal(bits(value), bits(got[name])), name


def test_zero_seed_of_a_loop_becomes_create_and_first_iteration_predicate() -> None:
    before = tensor_program("tensor.full seed, pipeline")
    after, ctx = seed(before)
    assert_verified(after)
    assert not calls(after, "tensor.full")
    [create] = calls(after, "tensor.create")
    assert create.attrs == (("dtype", DataType.FP32),)
    [step] = calls(after, "tensor.matmul_acc")
    predicate = step.args[3]
    assert isinstance(predicate, T.BinOp) and predicate.op == "=="
    assert isinstance(predicate.lhs, T.Var) and predicate.lhs.name == "k"
    assert isinstance(predicate.rhs, T.ConstInt) and predicate.rhs.value == 0
    assert ctx.statistics["zero_seeds_rewritten"] == 1
    assert_same_meaning(before, after)


def test_straight_line_zero_seed_gets_a_literal_true() -> None:
    """A literal True, not a plain matmul: AutoTileMatmulL0 keeps the chain on one L0C buffer."""
    before = tensor_program("integer zero seed, straight line", "INT8", 32, 128, 64)
    after, _ = seed(before)
    assert_verified(after)
    [step] = calls(after, "tensor.matmul_acc")
    assert step.args[3] == T.ConstBool(True)
    assert_same_meaning(before, after)


def test_nested_loops_and_the_first_iteration_of_each() -> None:
    before = tensor_program("zero seed, nested loops", k=256)
    after, _ = seed(before)
    assert_verified(after)
    [step] = calls(after, "tensor.matmul_acc")
    predicate = step.args[3]
    assert isinstance(predicate, T.BinOp) and predicate.op == "and"
    assert_same_meaning(before, after)


@pytest.mark.parametrize(("user", "composed"), [("k == 0", "k == 0"), ("k == 64", "k == 0 or k == 64")])
def test_user_init_cond_is_or_ed_with_the_first_iteration(user: str, composed: str) -> None:
    before = _edited("zero seed + user init_cond", "init_cond=k == 0", f"init_cond={user}", k=256)
    after, _ = seed(before)
    assert_verified(after)
    [line] = [line for line in print_program(after).splitlines() if "matmul_acc" in line]
    assert line.endswith(f"b_k, {composed})")
    assert_same_meaning(before, after)


def test_loop_from_a_nonzero_start_tests_that_start() -> None:
    before = tensor_program("zero seed, loop from 1", k=192)
    after, _ = seed(before)
    [step] = calls(after, "tensor.matmul_acc")
    predicate = step.args[3]
    assert isinstance(predicate, T.BinOp) and isinstance(predicate.rhs, T.ConstInt) and predicate.rhs.value == 1
    assert_same_meaning(before, after)


def test_create_and_explicit_init_cond_are_left_alone() -> None:
    before = tensor_program("create + init_cond keyword")
    after, ctx = seed(before)
    assert calls(after, "tensor.matmul_acc") == calls(before, "tensor.matmul_acc")
    assert calls(after, "tensor.create") == calls(before, "tensor.create")
    assert not ctx.diagnostics


def _edited(spelling: str, old: str, new: str, k: int = 128) -> T.Program:
    text = kernel_text(spelling, "FP16", 64, k, 64)
    assert old in text
    return parse_tensor(text.replace(old, new))


@pytest.mark.parametrize(("fill", "reason"), [("-0.0", "-0.0"), ("1.5", "1.5")])
def test_negative_zero_and_nonzero_seeds_are_not_rewritten_and_say_why(fill: str, reason: str) -> None:
    program = _edited("tensor.full seed, pipeline", "pl.FP32, 0.0)", f"pl.FP32, {fill})")
    with pytest.raises(CompileError) as err:
        seed(program)
    message = str(err.value)
    assert reason in message and "no Vec → Acc data path" in message
    assert "pl.matmul for the first K block" in message and "init_cond" in message


def test_seed_read_elsewhere_is_kept_and_reported() -> None:
    program = _edited("integer zero seed, straight line", "c = pl.matmul_acc(acc, a, b)\n",
                      "c0 = pl.matmul_acc(acc, a, b)\n        c = pl.add(c0, acc)\n", k=64)
    with pytest.raises(CompileError, match="read 2 times"):
        seed(program)


def test_negative_zero_start_differs_from_a_fresh_accumulation() -> None:
    """Why -0.0 is never rewritten: all products -0.0 sum to -0.0 from a -0.0 start, +0.0 fresh."""
    text = kernel_text("integer zero seed, straight line", "FP16", 16, 16, 16).replace("pl.FP32, 0)", "pl.FP32, -0.0)")
    program = parse_program(text)
    a = np.zeros((16, 16), np.float16)
    b = np.full((16, 16), -1.0, np.float16)
    from_negative_zero = reference(program, {"a": a, "b": b})["ret0"]
    assert np.all(np.signbit(from_negative_zero))
    assert not np.any(np.signbit(matmul_ref(a, b)))


def test_uninitialised_create_without_init_cond_warns() -> None:
    program = _edited("create + init_cond keyword", ", init_cond=k == 0", "")
    _, ctx = seed(program)
    [warning] = ctx.diagnostics
    assert warning.severity == "warning" and "uninitialised L0C" in warning.message
    assert "init_cond=k == 0" in warning.hint


def test_zero_trip_loop_whose_result_is_used_is_not_rewritten() -> None:
    program = _edited("tensor.full seed, pipeline", "pl.pipeline(0, 128, 64, stage=2)", "pl.pipeline(0, 0, 64, stage=2)")
    with pytest.raises(CompileError, match="runs no iteration"):
        seed(program)


# -- the operator and the parser ----------------------------------------------------------------------


def test_tensor_matmul_acc_init_cond_must_be_bool() -> None:
    text = kernel_text("create + init_cond positional", "FP16", 64, 128, 64).replace(", k == 0)", ", k)")
    with pytest.raises(CompileError, match="BOOL"):
        parse_program(text)


def test_pl_full_is_tensor_full_in_a_tensor_program_only() -> None:
    program = tensor_program("pl.full seed, range")
    assert calls(program, "tensor.full")
    tile_text = """\
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec]) -> pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec]:
        z = pl.full([16, 16], pl.FP32, 0.0)
        return z
"""
    with pytest.raises(CompileError, match="cannot tell whether pl.full"):
        parse_program(tile_text)


PEELED = '''
import pypto.language as pl


@pl.program
class K:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[64, 256], pl.FP16], b: pl.Tensor[[256, 64], pl.FP16]) -> pl.Tensor[[64, 64], pl.FP32]:
        acc = pl.create_tensor([64, 64], dtype=pl.FP32)
        for k in pl.range(0, 256, 64):
            a_k = pl.slice(a, [64, 64], [0, k])
            b_k = pl.slice(b, [64, 64], [k, 0])
            if k == 0:
                acc = pl.matmul(a_k, b_k, out_dtype=pl.FP32)
            else:
                acc = pl.matmul_acc(acc, a_k, b_k)
        return acc
'''


def test_peeled_first_block_is_not_warned_about() -> None:
    # The then-branch's fresh pl.matmul starts the sum; the create is never read uninitialised.
    _, ctx = seed(parse_tensor(PEELED))
    assert ctx.diagnostics == []


ALIASED_SEED = """\
import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[100, 64], pl.FP16], b: pl.Tensor[[64, 32], pl.FP16]) -> pl.Tensor[[100, 32], pl.FP32]:
        zeros: pl.Tensor[[100, 32], pl.FP32] = pl.tensor.full([100, 32], value=0.0, dtype=pl.FP32)
        acc = zeros
        for k0 in pl.unroll(0, 64, 32):
            part = pl.tensor.matmul_acc(acc, pl.tensor.slice(a, [100, 32], [0, k0]),
                                        pl.tensor.slice(b, [32, 32], [k0, 0]))
            acc = part
        return acc
"""


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_a_zero_seed_reached_through_aliases_starts_empty(backend: str) -> None:
    # UnrollLoops and ConvertToSSA spell carries as aliases (`acc = zeros`, `acc = part`): the
    # seed reaches its accumulator through them, so it is rewritten (before, the dense fill met
    # the product's boxed 112 rows as a TypeDeduction error).
    from nanopass_pto.run import compare, compile_program, run

    compiled = compile_program(parse_program(ALIASED_SEED, "s.py"), backend=backend, verify_all=True)
    inputs = random_inputs(compiled.source, 3)
    outputs = run(compiled, inputs)
    reports = compare(reference(compiled.source, inputs), outputs)
    assert reports and all(r.ok for r in reports), reports
    expected = matmul_ref(np.asarray(inputs["a"]), np.asarray(inputs["b"]))
    assert np.asarray(outputs["ret0"]).view(np.uint32).tolist() == expected.view(np.uint32).tolist()


def test_an_accumulator_computed_on_the_vector_unit_is_declined_at_the_call() -> None:
    text = """\
import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[100, 32], pl.FP32], a: pl.Tensor[[100, 64], pl.FP16],
          b: pl.Tensor[[64, 32], pl.FP16]) -> pl.Tensor[[100, 32], pl.FP32]:
        z: pl.Tensor[[100, 32], pl.FP32] = pl.exp(x)
        c: pl.Tensor[[100, 32], pl.FP32] = pl.tensor.matmul_acc(z, a, b)
        return c
"""
    from nanopass_pto.run import compile_program

    with pytest.raises(CompileError, match=r"accumulates onto `z`, which is not a matmul result") as err:
        compile_program(parse_program(text, "v.py"), verify_all=True)
    assert str(err.value).startswith("v.py:10:")
