"""The reference interpreter against independent NumPy references written from NUMERICS.md.

The references here deliberately avoid `backend.numerics`: float32 NumPy arithmetic is IEEE
RNE per operation, and an FP16 x FP16 product is exact in FP32, so a float32 loop over K *is*
the fused MAD chain of NUMERICS section 1 for FP16 operands.  Results are compared as bits.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from string import Template
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typing_extensions import override

from backend import numerics
from backend.arrays import random_inputs
from backend.interpreter import InterpreterError, interpret
from languages.functions import entry_function, returned_param_indices
from languages.pl_parser import load_program, parse_program
from nanopass.instruments import Instrument, PassStep
from nanopass.node import Node
from nanopass.diagnostics import CompileError

Array = npt.NDArray[Any]
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def bits(array: Array) -> Array:
    return np.asarray(array).view(f"u{np.asarray(array).dtype.itemsize}")


def assert_bits_equal(actual: Array, expected: Array) -> None:
    assert actual.shape == expected.shape
    assert actual.dtype == expected.dtype
    differ = bits(actual) != bits(expected)
    if np.any(differ):
        first = tuple(int(i) for i in np.argwhere(differ)[0])
        raise AssertionError(f"first difference at {first}: got {hex(int(bits(actual)[first]))}, "
                             f"expected {hex(int(bits(expected)[first]))} ({int(differ.sum())} differ)")


# -- independent references ---------------------------------------------------------------------


def ref_matmul_f16(a: Array, b: Array) -> Array:
    """acc = +0; for k ascending: acc = RNE32(acc + a[:,k]*b[k,:]) (the product is exact in f32)."""
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    acc = np.zeros((a.shape[0], b.shape[1]), dtype=np.float32)
    for k in range(a.shape[1]):
        acc = (acc + a32[:, k : k + 1] * b32[k : k + 1, :]).astype(np.float32)
    return acc


def ref_matmul_int8(a: Array, b: Array) -> Array:
    return (a.astype(np.int64) @ b.astype(np.int64)).astype(np.int32)


def ref_softmax_rows_f32(x: Array) -> Array:
    row_max = x[:, 0].copy()
    for j in range(1, x.shape[1]):
        row_max = np.where(x[:, j] > row_max, x[:, j], row_max)
    shifted = (x - row_max[:, None]).astype(np.float32)
    e = np.exp(shifted.astype(np.float64)).astype(np.float32)  # RNE_32(exp(float64(x)))
    total = np.zeros(x.shape[0], dtype=np.float32)
    for j in range(x.shape[1]):
        total = (total + e[:, j]).astype(np.float32)
    return (e / total[:, None]).astype(np.float32)


def ref_ragged_rows_f32(inputs: dict[str, Array]) -> Array:
    """Rows before the runtime `rows` doubled plus one, the rest copied (the store writes only
    its valid rows)."""
    x, rows = inputs["x"], int(inputs["rows"])
    out = x.copy()
    out[:rows] = x[:rows] * np.float32(2.0) + np.float32(1.0)
    return out


def _matmul_reference(inputs: dict[str, Array]) -> Array:
    a, b = inputs["a"], inputs["b"]
    return ref_matmul_int8(a, b) if a.dtype == np.int8 else ref_matmul_f16(a, b)


REFERENCES = {
    "elementwise_add_f32": lambda i: (i["a"] + i["b"]).astype(np.float32),
    "softmax_rows_f32": lambda i: ref_softmax_rows_f32(i["x"]),
    "matmul_f16_f32": _matmul_reference,
    "matmul_f16_f32_128x256x128": _matmul_reference,
    "matmul_boxed_m100_f16": _matmul_reference,
    "matmul_exceeds_l0c_f16": _matmul_reference,
    "matmul_int8_i32": _matmul_reference,
    "ragged_rows_f32": ref_ragged_rows_f32,
}


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_example_matches_numpy_reference(name: str) -> None:
    program = load_program(str(EXAMPLES / f"{name}.py"))
    inputs = random_inputs(program, seed=7)
    outputs = interpret(program, inputs)
    assert set(outputs) == {"ret0"}
    assert_bits_equal(outputs["ret0"], REFERENCES[name](inputs))


def test_every_example_has_a_reference() -> None:
    # @pl.jit examples check themselves against NumPy when called (tests/test_jit_examples.py).
    assert {p.stem for p in EXAMPLES.glob("*.py") if not p.name.startswith(("_", "jit_"))} <= set(REFERENCES)


# -- K tiling is exact ------------------------------------------------------------------------------

K_LOOP = """\
# nanopass.language: L0Tiled
import pypto.language as pl


@pl.program
class KLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[$M, $K], pl.FP16], b: pl.Tensor[[$K, $N], pl.FP16], out: pl.Out[pl.Tensor[[$M, $N], pl.FP32]]) -> pl.Tensor[[$M, $N], pl.FP32]:
        a_mat: pl.Tile[[$M, $K], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [$M, $K], target_memory=pl.Mem.Mat)
        b_mat: pl.Tile[[$K, $N], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [$K, $N], target_memory=pl.Mem.Mat)
        c0: pl.Tile[[$M, $N], pl.FP32, pl.Mem.Acc] = pl.tile.create([$M, $N], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for ko, (c_iter,) in pl.pipeline(0, $K, $STEP, init_values=(c0,), stage=2):
            sa: pl.Tile[[$M, $STEP], pl.FP16, pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.row_major)] = pl.tile.extract(a_mat, 0, ko, [$M, $STEP], target_memory=pl.Mem.Left)
            sb: pl.Tile[[$STEP, $N], pl.FP16, pl.Mem.Right] = pl.tile.extract(b_mat, ko, 0, [$STEP, $N], target_memory=pl.Mem.Right)
            c_acc: pl.Tile[[$M, $N], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_iter, sa, sb, ko == 0)
            c = pl.yield_(c_acc)
        stored: pl.Tensor[[$M, $N], pl.FP32] = pl.tile.store(c, [0, 0], out)
        return stored
"""


def k_loop_program(m: int, n: int, k: int, step: int) -> Any:
    text = Template(K_LOOP).substitute(M=m, N=n, K=k, STEP=step)
    return parse_program(text, "<k_loop>")


@pytest.mark.parametrize("step", [16, 32, 64, 128])
def test_k_split_matmul_acc_equals_full_k(step: int) -> None:
    program = k_loop_program(32, 48, 128, step)
    inputs = random_inputs(program, seed=step)
    outputs = interpret(program, inputs)
    expected = ref_matmul_f16(inputs["a"], inputs["b"])
    assert_bits_equal(outputs["out"], expected)
    assert_bits_equal(outputs["ret0"], expected)


@given(seed=st.integers(0, 2**32 - 1), step=st.sampled_from([16, 32, 64]))
def test_k_split_equivalence_random(seed: int, step: int) -> None:
    program = k_loop_program(16, 16, 64, step)
    inputs = random_inputs(program, seed)
    assert_bits_equal(interpret(program, inputs)["out"], ref_matmul_f16(inputs["a"], inputs["b"]))


# -- tile-level rules -----------------------------------------------------------------------------------

BOXED_STORE = """\
# nanopass.language: TilePlaced
import pypto.language as pl


@pl.program
class BoxedStore:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[20, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16], out: pl.Out[pl.Tensor[[20, 16], pl.FP16]]) -> pl.Tensor[[20, 16], pl.FP16]:
        a_mat: pl.Tile[[32, 32], pl.FP16, pl.Mem.Mat, pl.TileView(valid_shape=[20, 32])] = pl.tile.load(a, [0, 0], [32, 32], [20, 32], target_memory=pl.Mem.Mat)
        b_mat: pl.Tile[[32, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [32, 16], target_memory=pl.Mem.Mat)
        a_l: pl.Tile[[32, 32], pl.FP16, pl.Mem.Left, pl.TileView(valid_shape=[20, 32])] = pl.tile.move(a_mat, target_memory=pl.Mem.Left)
        b_r: pl.Tile[[32, 16], pl.FP16, pl.Mem.Right] = pl.tile.move(b_mat, target_memory=pl.Mem.Right)
        c: pl.Tile[[32, 16], pl.FP32, pl.Mem.Acc, pl.TileView(valid_shape=[20, 16], compact=True)] = pl.tile.matmul(a_l, b_r)
        stored: pl.Tensor[[20, 16], pl.FP16] = pl.tile.store(c, [0, 0], out)
        return stored
"""


def test_boxed_matmul_stores_valid_rows_through_fixpipe_rne() -> None:
    program = parse_program(BOXED_STORE, "<boxed>")
    a = np.zeros((20, 32), dtype=np.float16)
    b = np.zeros((32, 16), dtype=np.float16)
    # Row 0: 1 + 2**-11 exactly in the FP32 accumulator, halfway between two FP16 values.
    a[0, 0], a[0, 1] = 1.0, 2.0**-11
    b[0, 0], b[1, 0] = 1.0, 1.0
    # Row 1: 1 + 3 * 2**-11, also a tie; RNE rounds up to the even neighbour 1 + 2**-9.
    a[1, 0], a[1, 1] = 1.0, 3 * 2.0**-11
    outputs = interpret(program, {"a": a, "b": b})
    got = numerics.hex_list(outputs["out"][:2, 0], "FP16")
    assert got == ["0x3c00", "0x3c02"]  # ties to even, not away from zero (0x3c01 / 0x3c02)
    # The rows outside the 20 valid ones never exist in GM; every stored element is a value.
    assert not np.any(np.isnan(outputs["out"]))


CAST_TIE = """\
import pypto.language as pl


@pl.program
class CastTie:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[1, 4], pl.FP32]) -> tuple[pl.Tensor[[1, 4], pl.FP16], pl.Tensor[[1, 4], pl.FP16]]:
        away: pl.Tensor[[1, 4], pl.FP16] = pl.tensor.cast(x, pl.FP16)
        even: pl.Tensor[[1, 4], pl.FP16] = pl.tensor.cast(x, pl.FP16, mode="rint")
        return away, even
"""


def test_cast_rounding_modes() -> None:
    program = parse_program(CAST_TIE, "<cast>")
    x = np.array([[1 + 2.0**-11, -(1 + 2.0**-11), 1 + 3 * 2.0**-11, -0.0]], dtype=np.float32)
    outputs = interpret(program, {"x": x})
    assert numerics.hex_list(outputs["ret0"], "FP16") == ["0x3c01", "0xbc01", "0x3c02", "0x8000"]
    assert numerics.hex_list(outputs["ret1"], "FP16") == ["0x3c00", "0xbc00", "0x3c02", "0x8000"]


CONTROL = """\
import pypto.language as pl


@pl.program
class Control:
    @pl.function(type=pl.FunctionType.InCore)
    def step(self, x: pl.Tensor[[4, 8], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[4, 8], pl.FP32]:
        for i, (acc,) in pl.range(1, n + 1, 1, init_values=(x,)):
            if i % 2 == 0:
                nxt: pl.Tensor[[4, 8], pl.FP32] = pl.tensor.add(acc, x)
                y = pl.yield_(nxt)
            else:
                dbl: pl.Tensor[[4, 8], pl.FP32] = pl.tensor.muls(acc, pl.const(2.0, pl.FP32))
                y = pl.yield_(dbl)
            total = pl.yield_(y)
        return total

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 8], pl.FP32]) -> pl.Tensor[[4, 8], pl.FP32]:
        k: pl.Scalar[pl.INDEX] = 7 // 2
        r: pl.Tensor[[4, 8], pl.FP32] = self.step(x, k)
        return r
"""


def test_loops_if_phis_and_calls() -> None:
    program = parse_program(CONTROL, "<control>")
    x = np.arange(32, dtype=np.float32).reshape(4, 8) * np.float32(0.25)
    acc = x.copy()
    for i in range(1, 4):  # n = 7 // 2 = 3
        acc = (acc + x).astype(np.float32) if i % 2 == 0 else (acc * np.float32(2.0)).astype(np.float32)
    assert_bits_equal(interpret(program, {"x": x})["ret0"], acc)


def test_returned_param_indices_follow_store_chains() -> None:
    program = k_loop_program(16, 16, 32, 16)
    assert returned_param_indices(entry_function(program)) == (2,)


# -- inputs ----------------------------------------------------------------------------------------


def test_random_inputs_are_deterministic_and_typed() -> None:
    program = load_program(str(EXAMPLES / "matmul_f16_f32.py"))
    first, again = random_inputs(program, 3), random_inputs(program, 3)
    assert set(first) == {"a", "b"}
    for name in first:
        assert first[name].dtype == np.float16
        assert_bits_equal(first[name], again[name])
    values = np.concatenate([first["a"].ravel(), first["b"].ravel()])
    assert np.any((values == 0) & np.signbit(values)), "-0.0 is exercised"
    assert np.any((values != 0) & (np.abs(values) < np.finfo(np.float16).tiny)), "subnormals are exercised"
    assert np.all(np.isfinite(values))
    assert not np.array_equal(bits(random_inputs(program, 4)["a"]), bits(first["a"]))


def test_random_bf16_inputs_hold_signalling_and_quiet_nans_and_infinities() -> None:
    # The corners a BF16 op computed through FP32 can get wrong (LegalizeVecDtypes): a signalling
    # NaN (quiet bit 0x0040 clear, payload non-zero), a quiet NaN with a payload, +-inf. FP32 stays
    # finite (it feeds scalar reads and integer casts).
    program = parse_program(textwrap.dedent("""\
        import pypto.language as pl

        @pl.program
        class K:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, a: pl.Tensor[[32, 64], pl.BF16], f: pl.Tensor[[32, 64], pl.FP32]) -> pl.Tensor[[32, 64], pl.BF16]:
                return pl.tensor.abs(a)
        """), "k.py")
    inputs = random_inputs(program, 0)
    a = bits(inputs["a"]).astype(np.uint32)
    nan = (a & 0x7F80) == 0x7F80
    assert np.any(nan & ((a & 0x40) == 0) & ((a & 0x3F) != 0)), "a signalling NaN"
    assert np.any(nan & ((a & 0x40) != 0) & ((a & 0x3F) != 0)), "a quiet NaN with a payload"
    assert {0x7F80, 0xFF80} <= set(a.ravel().tolist()), "+inf and -inf"
    assert 0.01 < np.count_nonzero(nan | ((a & 0x7FFF) == 0x7F80)) / a.size < 0.06, "a few percent"
    assert np.all(np.isfinite(inputs["f"]))


def test_random_inputs_skip_out_params() -> None:
    program = k_loop_program(16, 16, 32, 16)
    assert set(random_inputs(program, 0)) == {"a", "b"}


def test_interpret_does_not_write_the_callers_arrays() -> None:
    program = k_loop_program(16, 16, 32, 16)
    inputs = random_inputs(program, 1)
    out = np.zeros((16, 16), dtype=np.float32)
    interpret(program, {**inputs, "out": out})
    assert not np.any(out)


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"a": np.zeros((64, 128), np.float32)}, "missing 'b'"),
        ({"a": np.zeros((64, 128), np.float32), "b": np.zeros((64, 128), np.float32), "c": 1}, "unexpected 'c'"),
        ({"a": np.zeros((64, 64), np.float32), "b": np.zeros((64, 128), np.float32)}, "expected shape [64, 128]"),
        ({"a": np.full((64, 128), 0.1, np.float64), "b": np.zeros((64, 128), np.float32)},
         "does not convert to FP32 exactly"),
    ],
)
def test_bad_inputs_are_compile_errors(inputs: dict[str, Any], message: str) -> None:
    program = load_program(str(EXAMPLES / "elementwise_add_f32.py"))
    with pytest.raises(CompileError, match=None) as info:
        interpret(program, inputs)
    assert message in str(info.value)


def test_integer_division_by_zero_is_reported_with_the_op() -> None:
    text = """\
import pypto.language as pl


@pl.program
class Div:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[1, 4], pl.INT32], y: pl.Tensor[[1, 4], pl.INT32]) -> pl.Tensor[[1, 4], pl.INT32]:
        q: pl.Tensor[[1, 4], pl.INT32] = pl.tensor.div(x, y)
        return q
"""
    program = parse_program(text, "div.py")
    with pytest.raises(InterpreterError, match="tensor.div: .*division by zero") as info:
        interpret(program, {"x": np.ones((1, 4), np.int32), "y": np.zeros((1, 4), np.int32)})
    assert "div.py:8" in str(info.value)


# -- every pass of the default pipeline preserves the value-level result ------------------------------


class _Recorder(Instrument):
    """Collects the program after every pass."""

    def __init__(self) -> None:
        self.after: list[tuple[str, Node]] = []

    @override
    def after_pass(self, step: PassStep, before: Node, after: Node) -> None:
        self.after.append((type(step.pass_).name, after))


def _default_pipeline() -> Any:
    from nanopass.pipeline import Pipeline
    from nanopass.plugin import get_plugin

    plugin = get_plugin()
    return Pipeline.from_spec(plugin.default_pipeline(), plugin)


VALUE_LEVEL = {"Tensor", "TileUnplaced", "TilePlaced", "L0Tiled", "Addressed"}


@pytest.mark.parametrize("name", ["softmax_rows_f32", "matmul_boxed_m100_f16", "matmul_int8_i32"])
def test_every_pass_preserves_the_interpreted_result(name: str) -> None:
    from backend.targets.handlers import get_backend
    from nanopass.passes import PassContext

    pipeline = _default_pipeline()
    reached = {type(p).target.name for p in pipeline.passes}
    if "L0Tiled" not in reached:
        pytest.skip("the default pipeline does not reach L0Tiled yet")
    source = load_program(str(EXAMPLES / f"{name}.py"))
    inputs = random_inputs(source, seed=11)
    expected = interpret(source, inputs)["ret0"]
    recorder = _Recorder()
    pipeline.run(source, PassContext("Ascend910B", get_backend("Ascend910B")), [recorder])
    # Inside ConvertTensorToTileOps a kernel gains Out parameters before its call sites do, so
    # only the last program of each language is a consistent whole program.
    last_of_language = {type(program).LANGUAGE: (pass_name, program) for pass_name, program in recorder.after}
    for pass_name, program in last_of_language.values():
        if type(program).LANGUAGE in VALUE_LEVEL:
            try:
                assert_bits_equal(interpret(program, inputs)["ret0"], expected)
            except AssertionError as err:
                raise AssertionError(f"after {pass_name}: {err}") from None


def test_matmul_acc_reads_its_accumulator_and_leaves_it_unchanged() -> None:
    # The registry's effect on the accumulator is READ: the result is a new value, also when the
    # accumulator is a GM tensor (a campaign found the interpreter writing it in place, so a later
    # read disagreed with the compiled program once DeadCodeElimination dropped the unused call).
    from languages.pl_parser import parse_program
    from nanopass_pto.run import random_inputs, reference

    text = """\
import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[2, 16, 16], pl.FP32]) -> pl.Tensor[[2, 16, 16], pl.FP32]:
        t: pl.Tensor[[2, 16, 16], pl.FP32] = pl.tensor.matmul_acc(x, x, x)
        u: pl.Tensor[[2, 16, 16], pl.FP32] = pl.tensor.abs(x)
        return u
"""
    program = parse_program(text, "m.py")
    inputs = random_inputs(program, 5)
    outputs = reference(program, inputs)
    assert set(outputs) == {"ret0"}  # x is not an output: nothing wrote it
    x = np.asarray(inputs["x"], dtype=np.float32)
    assert np.asarray(outputs["ret0"]).view(np.uint32).tolist() == np.abs(x).view(np.uint32).tolist()


_OUT_RETURNED = """\
import pypto.language as pl


@pl.program
class OutReturned:
    @pl.function(type=pl.FunctionType.InCore)
    def fill(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 16])
        r = pl.store(t, [0, 0], out)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        y = self.fill(x, out)
        return y
"""


def test_outputs_sharing_one_buffer_are_separate_arrays_and_inputs_stay_the_callers() -> None:
    """A run hands out the buffers it made for its arguments without copying them, but only
    once: the returned value and the Out parameter it is (one buffer) come back as two arrays,
    and no output is, or aliases, the caller's input."""
    from languages.pl_parser import parse_program
    from nanopass_pto.run import compile_program, reference, run

    program = parse_program(_OUT_RETURNED, "p.py")
    x = np.arange(256, dtype=np.float32).reshape(16, 16)
    kept = x.copy()
    for outputs in (reference(program, {"x": x}), run(compile_program(program), {"x": x})):
        assert set(outputs) >= {"ret0", "out"}
        assert np.array_equal(outputs["ret0"], x) and np.array_equal(outputs["out"], x)
        assert not np.shares_memory(outputs["ret0"], outputs["out"])
        assert not any(np.shares_memory(value, x) for value in outputs.values())
        outputs["ret0"][...] = -1
        assert np.array_equal(outputs["out"], kept) and np.array_equal(x, kept)


def test_a_later_run_never_overwrites_an_earlier_runs_outputs() -> None:
    """Bound input copies go back to a pool after the run (backend/buffers.py) and are reused by
    the next one: an earlier run's outputs, and the caller's inputs, must survive later runs on
    other inputs (host interpreter and simulator alike)."""
    from languages.pl_parser import parse_program
    from nanopass_pto.run import compile_program, reference, run

    program = parse_program(_OUT_RETURNED, "p.py")
    compiled = compile_program(program)
    xs = [np.full((16, 16), float(i), dtype=np.float32) for i in range(4)]
    for simulated in (False, True):
        results = [run(compiled, {"x": x}) if simulated else reference(program, {"x": x}) for x in xs]
        for i, outputs in enumerate(results):
            assert np.array_equal(xs[i], np.full((16, 16), float(i), dtype=np.float32))
            assert all(np.array_equal(value, xs[i]) for value in outputs.values())


_CREATED_RETURNED_TWICE = """\
import pypto.language as pl


@pl.program
class CreatedTwice:
    @pl.function(type=pl.FunctionType.InCore)
    def fill(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 16])
        r = pl.store(t, [0, 0], out)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        out = pl.create_tensor([16, 16], dtype=pl.FP32)
        y = self.fill(x, out)
        return y, y
"""


def test_a_created_tensor_returned_twice_is_handed_out_once_and_copied_once() -> None:
    """A tensor the run created dies with it, so it is an output as it is (not copied), but only
    once: returned twice, it comes back as two separate arrays, and later runs (which reuse
    pooled buffers) leave both as they were."""
    from languages.pl_parser import parse_program
    from nanopass_pto.run import compile_program, reference, run

    program = parse_program(_CREATED_RETURNED_TWICE, "p.py")
    compiled = compile_program(program)
    xs = [np.full((16, 16), float(i), dtype=np.float32) for i in range(3)]
    for simulated in (False, True):
        results = [run(compiled, {"x": x}) if simulated else reference(program, {"x": x}) for x in xs]
        for i, outputs in enumerate(results):
            assert set(outputs) == {"ret0", "ret1"}
            assert not np.shares_memory(outputs["ret0"], outputs["ret1"])
            assert all(np.array_equal(value, xs[i]) for value in outputs.values())
        results[0]["ret0"][...] = -1
        assert np.array_equal(results[0]["ret1"], xs[0])


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8, np.bool_])
def test_same_bits_is_the_bit_pattern_comparison(dtype: Any, compiled: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The In-parameter write check (`_same_bits`: 8-byte words for C-ordered buffers) says what
    comparing `numerics.to_bits` says: one flipped bit anywhere (a NaN payload, the sign of a
    zero) is a difference, and odd sizes, strided views and other shapes take the element path;
    with the compiled memcmp and with NumPy's word compare."""
    from backend import interpreter
    from backend.interpreter import _same_bits

    if compiled and interpreter._SAME_BYTES is None:
        pytest.skip("backend._mad (with same_bytes) is not built")
    if not compiled:
        monkeypatch.setattr(interpreter, "_SAME_BYTES", None)  # the 8-byte-word NumPy path
    rng = np.random.default_rng(0)
    for shape in ((16, 16), (3, 5), (8,), (0, 4)):
        raw = rng.integers(0, 256, (*shape, np.dtype(dtype).itemsize), dtype=np.uint8)
        a = (raw & 1).astype(np.bool_).reshape(shape) if dtype is np.bool_ else raw.view(dtype).reshape(shape)
        b = a.copy()
        assert _same_bits(a, b)
        if a.size:
            flat = b.reshape(-1).view(np.uint8)
            flat[rng.integers(0, flat.size)] ^= 1
            assert not _same_bits(a, b)
        if a.ndim == 2 and a.shape[1] > 1:
            assert _same_bits(a[:, ::2], a.copy()[:, ::2])
        assert not _same_bits(a, a.reshape(-1)) or a.ndim == 1
