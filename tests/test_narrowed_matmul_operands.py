"""One rule for a matmul of a valid-shape-narrowed operand, at every level: the cube computes
the left operand's valid M rows by the right operand's valid N columns, summed over the left
operand's valid K (NUMERICS.md section 1; pto.tmatmul / mad take M, K, N from the operands'
valid region), on the batch indices both operands hold (`cube_extents` and `computed_batch` in
languages/ops/tensor_ops.py). tile.matmul's result is typed valid over that region;
tensor.matmul's result drops its operands' valid_shape (PyPTO) and is typed whole, but holds
data over that region only: the interpreter leaves the rest poison, the chip never writes it,
and DefinedReads (through `languages.ops.data_extents`) refuses, at the user's line, a read or
a return of it.

Finding 96f145d5ef: `tensor.minimum(set_validshape(c4, 1, 32), x7)` of
`c4 = tensor.matmul(set_validshape(a1, 1, 272), b2)` was accepted at the Tensor level
(DefinedReads held the product's rows past the first written, the lhs being a GM parameter whose
data is there) and broke DefinedReads after ConvertTensorToTileOps, which multiplies the lhs's
valid row only. Now it is refused at its line; its neighbours (the rhs narrowed on columns,
b_trans, a_trans, K narrowed, matmul_acc, batched, products narrowed again) compute bit-exact
against NumPy on both targets, or are refused where they read what was never computed. A left
operand narrowed on K past one L0 block is refused by AutoTileMatmulL0 (its K blocks would be
summed whole); sliced to its valid K it is tiled bit-exact."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import numpy as np
import numpy.typing as npt
import pytest

from languages.pl_parser import parse_program
from nanopass.pipeline import main
from nanopass_pto.run import compile_program, reference, run

Array = npt.NDArray[Any]
HEADER = "import pypto.language as pl\n\n\n@pl.program\nclass K:\n    @pl.function(type=pl.FunctionType.InCore)\n"
BACKENDS = ("Ascend910B", "Ascend950")


def _kernel(body: str) -> str:
    return HEADER + body


def _chain(a: Array, b: Array, start: Array | None = None) -> Array:
    """NUMERICS.md's cube: one sequential chain over K from +0 (or `start`), each FP16 product
    exact in FP32, each sum rounded to FP32."""
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    acc = np.zeros((a.shape[0], b.shape[1]), np.float32) if start is None else start.astype(np.float32)
    for k in range(a.shape[1]):
        acc = (acc + a32[:, k:k + 1] * b32[k:k + 1, :]).astype(np.float32)
    return acc


def _inputs(rng: np.random.Generator, **shapes: tuple[int, ...]) -> dict[str, Array]:
    # Small integers: every product and partial sum is exact, yet a wrong row, column or K
    # term changes the bits.
    return {name: rng.integers(-3, 4, shape).astype(np.float16) for name, shape in shapes.items()}


def _run_both(source: str, inputs: dict[str, Array], backend: str) -> tuple[Array, Array]:
    """The kernel's ret0 compiled under --verify-all and simulated, checked equal (bits) to the
    interpreter's."""
    program = parse_program(source, "k.py")
    compiled = compile_program(program, backend=backend, verify_all=True)
    got = np.asarray(run(compiled, inputs)["ret0"])
    interpreted = np.asarray(reference(program, inputs)["ret0"])
    return got, interpreted


def _assert_bits(got: Array, expected: Array) -> None:
    assert got.shape == expected.shape, (got.shape, expected.shape)
    width = {2: np.uint16, 4: np.uint32}[expected.dtype.itemsize]
    assert np.array_equal(np.ascontiguousarray(got).view(width), np.ascontiguousarray(expected).view(width)), \
        (got, expected)


def _refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], source: str, backend: str) -> str:
    path = tmp_path / "k.py"
    path.write_text(source)
    assert main([str(path), "--verify-all", "--backend", backend, "-o", str(tmp_path / "k.pto")]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal compiler error" not in err, err
    return err


# -- the finding ---------------------------------------------------------------------------------

FINDING = _kernel("""\
    def k(self, a1: pl.Tensor[[100, 272], pl.FP16], b2: pl.Tensor[[272, 32], pl.FP16], x7: pl.Tensor[[100, 32], pl.FP16]) -> pl.Tensor[[100, 32], pl.FP16]:
        c4: pl.Tensor[[100, 32], pl.FP16] = pl.tensor.matmul(pl.tensor.set_validshape(a1, 1, 272), b2)
        c5: pl.Tensor[[100, 32], pl.FP16, pl.TensorView(valid_shape=[1, 32])] = pl.tensor.set_validshape(c4, 1, 32)
        return pl.tensor.minimum(c5, x7)
""")

# The same op over the product's computed row.
FINDING_OVER_THE_COMPUTED_ROW = _kernel("""\
    def k(self, a1: pl.Tensor[[100, 272], pl.FP16], b2: pl.Tensor[[272, 32], pl.FP16], x7: pl.Tensor[[100, 32], pl.FP16]) -> pl.Tensor[[100, 32], pl.FP16, pl.TensorView(valid_shape=[1, 32])]:
        c4: pl.Tensor[[100, 32], pl.FP16] = pl.tensor.matmul(pl.tensor.set_validshape(a1, 1, 272), b2)
        c5: pl.Tensor[[100, 32], pl.FP16, pl.TensorView(valid_shape=[1, 32])] = pl.tensor.set_validshape(c4, 1, 32)
        return pl.tensor.minimum(c5, pl.tensor.set_validshape(x7, 1, 32))
""")


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_finding_is_refused_at_the_read_of_rows_the_product_never_computed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], backend: str) -> None:
    err = _refused(tmp_path, capsys, FINDING, backend)
    assert "k.py:10:16: error: [DefinedReads] tensor.minimum computes its result over its valid region [100, 32], " \
           "so it reads `c5` there" in err, err
    assert "tensor.matmul wrote only [1, 32] of it" in err and "a matmul computes its left operand's valid rows" in err


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_finding_over_the_computed_row_matches_numpy(backend: str) -> None:
    inputs = _inputs(np.random.default_rng(96), a1=(100, 272), b2=(272, 32), x7=(100, 32))
    got, interpreted = _run_both(FINDING_OVER_THE_COMPUTED_ROW, inputs, backend)
    # FIXPIPE narrows the FP32 accumulator to FP16 (RNE); the product's valid row only.
    product = _chain(inputs["a1"][:1], inputs["b2"]).astype(np.float16)
    expected = np.minimum(product, inputs["x7"][:1])
    _assert_bits(got[:1], expected)
    _assert_bits(interpreted[:1], expected)


# -- neighbours computed: bit-exact on both targets ------------------------------------------------

COMPUTED: dict[str, tuple[str, dict[str, tuple[int, ...]], Callable[[dict[str, Array]], Array]]] = {
    # The rhs narrowed on its columns: N = 20 of 48.
    "rhs_columns": ("""\
    def k(self, a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[64, 48], pl.FP16]) -> pl.Tensor[[32, 48], pl.FP32, pl.TensorView(valid_shape=[32, 20])]:
        p: pl.Tensor[[32, 48], pl.FP32] = pl.tensor.matmul(a, pl.tensor.set_validshape(b, 64, 20), out_dtype=pl.FP32)
        return pl.tensor.set_validshape(p, 32, 20)
""", dict(a=(32, 64), b=(64, 48)), lambda x: _chain(x["a"], x["b"][:, :20])),
    # b_trans: the rhs's valid rows are N; the lhs narrowed too.
    "b_trans": ("""\
    def k(self, a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[48, 64], pl.FP16]) -> pl.Tensor[[32, 48], pl.FP32, pl.TensorView(valid_shape=[5, 20])]:
        p: pl.Tensor[[32, 48], pl.FP32] = pl.tensor.matmul(pl.tensor.set_validshape(a, 5, 64), pl.tensor.set_validshape(b, 20, 64), b_trans=True, out_dtype=pl.FP32)
        return pl.tensor.set_validshape(p, 5, 20)
""", dict(a=(32, 64), b=(48, 64)), lambda x: _chain(x["a"][:5], x["b"][:20].T)),
    # a_trans: the lhs's valid columns are M.
    "a_trans": ("""\
    def k(self, a: pl.Tensor[[64, 32], pl.FP16], b: pl.Tensor[[64, 48], pl.FP16]) -> pl.Tensor[[32, 48], pl.FP32, pl.TensorView(valid_shape=[7, 48])]:
        p: pl.Tensor[[32, 48], pl.FP32] = pl.tensor.matmul(pl.tensor.set_validshape(a, 64, 7), b, a_trans=True, out_dtype=pl.FP32)
        return pl.tensor.set_validshape(p, 7, 48)
""", dict(a=(64, 32), b=(64, 48)), lambda x: _chain(x["a"][:, :7].T, x["b"])),
    # K narrowed on the lhs (32 of 64): the sum runs over its valid K, the rhs's rows past it
    # do not enter; every row and column of the product is computed.
    "k_narrowed": ("""\
    def k(self, a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[64, 48], pl.FP16]) -> pl.Tensor[[32, 48], pl.FP32]:
        return pl.tensor.matmul(pl.tensor.set_validshape(a, 32, 32), b, out_dtype=pl.FP32)
""", dict(a=(32, 64), b=(64, 48)), lambda x: _chain(x["a"][:, :32], x["b"][:32])),
    # matmul_acc onto a narrowed product: the accumulator is read over the product's region.
    "matmul_acc": ("""\
    def k(self, a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[64, 48], pl.FP16], a2: pl.Tensor[[32, 64], pl.FP16]) -> pl.Tensor[[32, 48], pl.FP32, pl.TensorView(valid_shape=[5, 48])]:
        p: pl.Tensor[[32, 48], pl.FP32] = pl.tensor.matmul(pl.tensor.set_validshape(a, 5, 64), b, out_dtype=pl.FP32)
        q: pl.Tensor[[32, 48], pl.FP32] = pl.tensor.matmul_acc(p, pl.tensor.set_validshape(a2, 5, 64), b)
        return pl.tensor.set_validshape(q, 5, 48)
""", dict(a=(32, 64), b=(64, 48), a2=(32, 64)),
        lambda x: _chain(x["a2"][:5], x["b"], _chain(x["a"][:5], x["b"]))),
    # A product narrowed again, within what was computed (rows 18 of 20: the same box pitch).
    "narrowed_again": ("""\
    def k(self, a: pl.Tensor[[100, 64], pl.FP16], b: pl.Tensor[[64, 32], pl.FP16], x: pl.Tensor[[100, 32], pl.FP16]) -> pl.Tensor[[100, 32], pl.FP32, pl.TensorView(valid_shape=[18, 8])]:
        p: pl.Tensor[[100, 32], pl.FP32] = pl.tensor.matmul(pl.tensor.set_validshape(a, 20, 64), b, out_dtype=pl.FP32)
        c: pl.Tensor[[100, 32], pl.FP32, pl.TensorView(valid_shape=[20, 8])] = pl.tensor.set_validshape(p, 20, 8)
        d: pl.Tensor[[100, 32], pl.FP32, pl.TensorView(valid_shape=[18, 8])] = pl.tensor.set_validshape(c, 18, 8)
        return pl.tensor.add(d, pl.tensor.cast(pl.tensor.set_validshape(x, 18, 8), pl.FP32))
""", dict(a=(100, 64), b=(64, 32), x=(100, 32)),
        lambda x: (_chain(x["a"][:18], x["b"][:, :8]) + x["x"][:18, :8].astype(np.float32)).astype(np.float32)),
    # A batched product of a lhs valid over batch 0 of 2: batch 0 only is computed.
    "batch": ("""\
    def k(self, a: pl.Tensor[[2, 32, 16], pl.FP16], b: pl.Tensor[[2, 16, 16], pl.FP16]) -> pl.Tensor[[1, 32, 16], pl.FP32]:
        p: pl.Tensor[[2, 32, 16], pl.FP32] = pl.tensor.matmul(pl.tensor.slice(a, [2, 32, 16], [0, 0, 0], [1, 32, 16]), b, out_dtype=pl.FP32)
        return pl.tensor.slice(p, [1, 32, 16], [0, 0, 0])
""", dict(a=(2, 32, 16), b=(2, 16, 16)), lambda x: _chain(x["a"][0], x["b"][0])[None]),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(COMPUTED))
def test_a_matmul_of_narrowed_operands_matches_numpy_over_what_it_computes(name: str, backend: str) -> None:
    body, shapes, numpy_reference = COMPUTED[name]
    inputs = _inputs(np.random.default_rng(len(name)), **shapes)
    got, interpreted = _run_both(_kernel(body), inputs, backend)
    expected = numpy_reference(inputs)
    region = tuple(slice(0, e) for e in expected.shape)
    _assert_bits(got[region], expected)
    _assert_bits(interpreted[region], expected)


# -- neighbours reading what was never computed: refused at the user's line -----------------------

REFUSED = {
    # Returned whole: stored over [32, 48], computed over [32, 20].
    "rhs_columns_returned_whole": ("""\
    def k(self, a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[64, 48], pl.FP16]) -> pl.Tensor[[32, 48], pl.FP32]:
        p: pl.Tensor[[32, 48], pl.FP32] = pl.tensor.matmul(a, pl.tensor.set_validshape(b, 64, 20), out_dtype=pl.FP32)
        return p
""", "k.py:9:9: error: [DefinedReads] the kernel returns `p`, which is stored over its valid region [32, 48], "
     "but tensor.matmul wrote only [32, 20] of it"),
    "lhs_rows_returned_whole": ("""\
    def k(self, a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[64, 48], pl.FP16]) -> pl.Tensor[[32, 48], pl.FP32]:
        return pl.tensor.matmul(pl.tensor.set_validshape(a, 5, 64), b, out_dtype=pl.FP32)
""", "k.py:8:9: error: [DefinedReads] the kernel returns its value, which is stored over its valid region [32, 48], "
     "but tensor.matmul wrote only [5, 48] of it"),
    # matmul_acc leaves the accumulator's rows past the product as they are: here, never written.
    "matmul_acc_returned_whole": ("""\
    def k(self, a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[64, 48], pl.FP16], a2: pl.Tensor[[32, 64], pl.FP16]) -> pl.Tensor[[32, 48], pl.FP32]:
        p: pl.Tensor[[32, 48], pl.FP32] = pl.tensor.matmul(pl.tensor.set_validshape(a, 5, 64), b, out_dtype=pl.FP32)
        q: pl.Tensor[[32, 48], pl.FP32] = pl.tensor.matmul_acc(p, pl.tensor.set_validshape(a2, 5, 64), b)
        return q
""", "k.py:10:9: error: [DefinedReads] the kernel returns `q`, which is stored over its valid region [32, 48], "
     "but tensor.matmul_acc wrote only [5, 48] of it"),
    # matmul_acc summing rows of its accumulator the earlier product never computed.
    "matmul_acc_past_the_accumulator": ("""\
    def k(self, a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[64, 48], pl.FP16], a2: pl.Tensor[[32, 64], pl.FP16]) -> pl.Tensor[[32, 48], pl.FP32, pl.TensorView(valid_shape=[9, 48])]:
        p: pl.Tensor[[32, 48], pl.FP32] = pl.tensor.matmul(pl.tensor.set_validshape(a, 5, 64), b, out_dtype=pl.FP32)
        q: pl.Tensor[[32, 48], pl.FP32] = pl.tensor.matmul_acc(p, pl.tensor.set_validshape(a2, 9, 64), b)
        return pl.tensor.set_validshape(q, 9, 48)
""", "k.py:9:43: error: [DefinedReads] tensor.matmul_acc"),
    # A product re-validated past its computed rows (20) and read there.
    "widened_again": ("""\
    def k(self, a: pl.Tensor[[100, 64], pl.FP16], b: pl.Tensor[[64, 32], pl.FP16]) -> pl.Tensor[[100, 32], pl.FP32, pl.TensorView(valid_shape=[30, 32])]:
        p: pl.Tensor[[100, 32], pl.FP32] = pl.tensor.matmul(pl.tensor.set_validshape(a, 20, 64), b, out_dtype=pl.FP32)
        c: pl.Tensor[[100, 32], pl.FP32, pl.TensorView(valid_shape=[30, 32])] = pl.tensor.set_validshape(p, 30, 32)
        return pl.tensor.exp(c)
""", "k.py:10:16: error: [DefinedReads] tensor.exp reads `c` over its valid region [30, 32], but tensor.matmul wrote "
     "only [20, 32] of it"),
    # Batched: a 2-D lhs narrowed to 5 rows broadcast over 2 batches, returned whole.
    "batch_rows_returned_whole": ("""\
    def k(self, a: pl.Tensor[[32, 16], pl.FP16], b: pl.Tensor[[2, 16, 16], pl.FP16]) -> pl.Tensor[[2, 32, 16], pl.FP32]:
        p: pl.Tensor[[2, 32, 16], pl.FP32] = pl.tensor.matmul(pl.tensor.set_validshape(a, 5, 16), b, out_dtype=pl.FP32)
        return p
""", "k.py:9:9: error: [DefinedReads] the kernel returns `p`, which is stored over its valid region [2, 32, 16], "
     "but tensor.matmul wrote only [2, 5, 16] of it"),
    # Batched: the lhs valid over batch 0 of 2; batch 1 is never computed (the interpreter used
    # to broadcast batch 0 over it).
    "batch_returned_whole": ("""\
    def k(self, a: pl.Tensor[[2, 32, 16], pl.FP16], b: pl.Tensor[[2, 16, 16], pl.FP16]) -> pl.Tensor[[2, 32, 16], pl.FP32]:
        p: pl.Tensor[[2, 32, 16], pl.FP32] = pl.tensor.matmul(pl.tensor.slice(a, [2, 32, 16], [0, 0, 0], [1, 32, 16]), b, out_dtype=pl.FP32)
        return p
""", "k.py:9:9: error: [DefinedReads] the kernel returns `p`, which is stored over its valid region [2, 32, 16], "
     "but tensor.matmul wrote only [1, 32, 16] of it"),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_read_of_what_a_narrowed_matmul_never_computed_is_refused_at_its_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, backend: str) -> None:
    body, expected = REFUSED[name]
    err = _refused(tmp_path, capsys, _kernel(body), backend)
    assert expected in err, err


# K narrowed past one L0 block: the cube sums over the left operand's valid K (304 of 512), but
# AutoTileMatmulL0's K blocks are extracted valid over their whole width (the second would sum
# columns 256..511, a miscompile before): a located 'not supported yet' at the matmul; the same
# product with K sliced to its valid extent is tiled and bit-exact.
K_NARROWED_PAST_ONE_BLOCK = _kernel("""\
    def k(self, a: pl.Tensor[[32, 512], pl.FP16], b: pl.Tensor[[512, 64], pl.FP16]) -> pl.Tensor[[32, 64], pl.FP32]:
        return pl.tensor.matmul(pl.tensor.set_validshape(a, 32, 304), b, out_dtype=pl.FP32)
""")
K_SLICED_PAST_ONE_BLOCK = _kernel("""\
    def k(self, a: pl.Tensor[[32, 512], pl.FP16], b: pl.Tensor[[512, 64], pl.FP16]) -> pl.Tensor[[32, 64], pl.FP32]:
        return pl.tensor.matmul(pl.tensor.slice(a, [32, 304], [0, 0]), pl.tensor.slice(b, [304, 64], [0, 0]), out_dtype=pl.FP32)
""")


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_k_narrowed_past_one_l0_block_is_refused_and_its_slice_is_tiled_bit_exact(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], backend: str) -> None:
    err = _refused(tmp_path, capsys, K_NARROWED_PAST_ONE_BLOCK, backend)
    assert "k.py:8:16: error: [AutoTileMatmulL0] not supported yet: tile.matmul" in err, err
    assert "valid K = 304 of its 512 columns" in err and "pl.slice(a, [M, K_valid], [0, 0])" in err, err
    inputs = _inputs(np.random.default_rng(304), a=(32, 512), b=(512, 64))
    got, interpreted = _run_both(K_SLICED_PAST_ONE_BLOCK, inputs, backend)
    expected = _chain(inputs["a"][:, :304], inputs["b"][:304])
    _assert_bits(got, expected)
    _assert_bits(interpreted, expected)


def test_static_bounds_catches_k_blocks_cut_past_the_valid_k(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The `narrowed-k-tiled-whole` mutant (AutoTileMatmulL0 without its refusal) cuts the second
    K block [256, 512) of a left operand valid over 304 columns: StaticBounds (an L0 block inside
    its source's valid K, `CUBE_K_AXIS`) reports it after the pass, at the user's matmul."""
    from nanopass_pto.mutants import MUTANTS

    path = tmp_path / "k.py"
    path.write_text(K_NARROWED_PAST_ONE_BLOCK)
    mutant = next(m for m in MUTANTS if m.name == "narrowed-k-tiled-whole")
    with mutant.applied():
        rc = main([str(path), "--verify-all", "-o", str(tmp_path / "k.pto")])
    err = capsys.readouterr().err
    assert rc == 2 and "`auto-tile-matmul-l0` broke StaticBounds" in err, err
    assert "k.py:8:16: error: [StaticBounds] tile.extract into Left: the block's K (axis 1) spans [256, 512) at " \
           "ko = 256, past its source's valid K 304 (of 512)" in err, err


POISONED_PAST_THE_COMPUTED_REGION = _kernel("""\
    def k(self, a: pl.Tensor[[2, 32, 64], pl.FP16], b: pl.Tensor[[64, 48], pl.FP16]) -> pl.Tensor[[2, 32, 48], pl.FP32]:
        return pl.tensor.matmul(pl.tensor.slice(a, [2, 32, 64], [0, 0, 0], [1, 32, 64]), pl.tensor.set_validshape(b, 64, 20), out_dtype=pl.FP32)
""")


def test_the_interpreter_computes_the_region_the_rule_holds_as_data_and_leaves_the_rest_poison() -> None:
    """The interpreter (not compiled: DefinedReads refuses this return) computes batch 0 over
    the rhs's 20 valid columns and leaves the columns past them, and batch 1 that the lhs does
    not hold, the fresh result's poison (0xFF bytes)."""
    inputs = _inputs(np.random.default_rng(3), a=(2, 32, 64), b=(64, 48))
    got = np.asarray(reference(parse_program(POISONED_PAST_THE_COMPUTED_REGION, "k.py"), inputs)["ret0"])
    _assert_bits(got[0, :, :20], _chain(inputs["a"][0], inputs["b"][:, :20]))
    for untouched in (got[0, :, 20:], got[1]):
        assert (np.ascontiguousarray(untouched).view(np.uint8) == 0xFF).all(), untouched


# -- the generator draws narrowed operands by the same rule ----------------------------------------


def test_the_generator_narrows_a_product_to_what_its_narrowed_operands_compute() -> None:
    """The generator's narrowed left rows and right columns (`cube:narrowed-left`,
    `cube:narrowed-right`): each product is narrowed to its data extent (the registry's rule) before
    anything reads it, so the programs drawn compile under --verify-all (DefinedReads included)
    and simulate bit-exact on both targets."""
    from hypothesis import HealthCheck, given, settings

    from backend.fuzzing.generator import GeneratedProgram, programs
    from nanopass_pto.fuzz_target import PtoFuzzTarget

    drawn: list[GeneratedProgram] = []

    @settings(max_examples=300, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(programs())
    def collect(generated: GeneratedProgram) -> None:
        if "cube:narrowed-right" in generated.ops and len(drawn) < 2:
            drawn.append(generated)

    collect()
    assert drawn, "no right operand narrowed on its columns was drawn"
    target = PtoFuzzTarget()
    for generated, backend in zip(drawn, BACKENDS):
        outcome = target.check_text(generated.text, 0, "fuzz_input.py", backend=backend)
        assert not outcome.failed, (outcome.headline(), outcome.detail, generated.text)
