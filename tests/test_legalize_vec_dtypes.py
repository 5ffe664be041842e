"""LegalizeVecDtypes: BF16 vector arithmetic the target has no BF16 instruction for (PTOAS:
`'pto.tmul' op expects A2/A3 tmul element type to be i32/i16/f16/f32`) runs on FP32 copies and
rounds back to nearest-even, with the same bits as the BF16 operation."""

from __future__ import annotations

import textwrap
from typing import Callable

import ml_dtypes
import numpy as np
import pytest

import languages.gen.tile_placed as P
from backend.targets.handlers import get_backend
from languages.ops import REGISTRY
from languages.pl_parser import parse_program
from languages.types import DataType, TileType
from nanopass.node import walk
from nanopass.passes import PassContext
from nanopass_pto.run import compare, compare_valid, compile_program, reference, run
from passes.legalize_vec_dtypes import LegalizeVecDtypes
from verifiers import tile_memory_placed

HEADER = "import pypto.language as pl\n\n@pl.program\nclass K:\n    @pl.function(type=pl.FunctionType.InCore)\n"


def _kernel(dtype: str) -> str:
    return HEADER + textwrap.indent(textwrap.dedent(f"""\
        def k(self, a: pl.Tensor[[16, 32], pl.{dtype}], b: pl.Tensor[[16, 32], pl.{dtype}]) -> pl.Tensor[[16, 32], pl.{dtype}]:
            c = pl.add(pl.mul(a, b), 0.5)
            d = pl.sub(pl.maximum(c, b), a)
            return pl.sqrt(pl.abs(pl.div(d, b)))
        """), "    ")


def _placed(text: str, backend: str) -> P.Program:
    compiled = compile_program(parse_program(text, "k.py"), backend=backend, verify_all=True,
                               pipeline="normalize-stmt-structure,convert-tensor-to-tile-ops,"
                                        "flatten-tile-nd-to-2d,infer-tile-memory-space")
    assert isinstance(compiled.final, P.Program)
    return compiled.final


def _legalized(text: str, backend: str) -> P.Program:
    out = LegalizeVecDtypes().run(_placed(text, backend), PassContext(backend, get_backend(backend)))
    assert isinstance(out, P.Program)
    assert tile_memory_placed.verify(out) == []
    return out


def _instructions(op: str) -> tuple[str, ...]:
    return REGISTRY.get(op).pto if op in REGISTRY else ()


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_bf16_arithmetic_the_target_lacks_runs_in_fp32(backend: str) -> None:
    handler = get_backend(backend)
    program = _legalized(_kernel("BF16"), backend)
    calls = [n for n in walk(program) if isinstance(n, P.Call)]
    lacking = [c for c in calls if set(_instructions(c.op)) & handler.fp32_only_vec_instructions]
    assert lacking, "the kernel exercises instructions the target lacks on BF16"
    for call in lacking:
        tiles = [t for t in (call.type, *(getattr(a, "type", None) for a in call.args)) if isinstance(t, TileType)]
        assert all(t.dtype is DataType.FP32 for t in tiles), call
    casts = [c for c in calls if c.op == "tile.cast"]
    narrowing = [c for c in casts if isinstance(c.type, TileType) and c.type.dtype is DataType.BF16]
    assert narrowing and all(dict(c.attrs)["mode"] == "rint" for c in narrowing)
    # What the target does have on BF16 stays BF16 (Ascend950 adds BF16 tiles directly).
    if "pto.tadd" not in handler.fp32_only_vec_instructions:
        adds = [c for c in calls if c.op == "tile.adds"]
        assert adds and all(isinstance(c.type, TileType) and c.type.dtype is DataType.BF16 for c in adds)


def test_fp16_is_untouched() -> None:
    placed = _placed(_kernel("FP16"), "Ascend910B")
    assert LegalizeVecDtypes().run(placed, PassContext("Ascend910B", get_backend("Ascend910B"))) is placed


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_widened_bf16_is_bit_exact(backend: str) -> None:
    source = parse_program(_kernel("BF16"), "k.py")
    compiled = compile_program(source, backend=backend, verify_all=True)
    rng = np.random.default_rng(7)
    # Operands spanning BF16's range, subnormals and signed zeros included.
    exponents = rng.integers(-140, 120, size=(2, 16, 32)).astype(np.float64)
    values = (rng.uniform(-2, 2, size=(2, 16, 32)) * np.exp2(exponents)).astype(np.float32)
    inputs = {"a": values[0].astype(ml_dtypes.bfloat16), "b": values[1].astype(ml_dtypes.bfloat16)}
    reports = compare(reference(compiled.source, inputs), run(compiled, inputs))
    assert reports and all(r.ok for r in reports), reports


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_a_bf16_literal_of_a_widened_tile_scalar_op_is_widened_with_it(backend: str) -> None:
    # PTOAS: "'pto.tfmods' op expects scalar type to match the tile element type": the FP32 form
    # of a BF16 tile-scalar op takes an FP32 scalar (the BF16 literal, exactly).
    text = HEADER + textwrap.indent(textwrap.dedent("""\
        def k(self, a: pl.Tensor[[16, 32], pl.BF16]) -> pl.Tensor[[16, 32], pl.BF16]:
            return pl.fmods(a, -1.5)
        """), "    ")
    program = _legalized(text, backend)
    fmods = [c for c in walk(program) if isinstance(c, P.Call) and c.op == "tile.fmods"]
    assert fmods and all(isinstance(c.args[1], P.ConstFloat) and c.args[1].dtype is DataType.FP32 for c in fmods)
    source = parse_program(text, "k.py")
    inputs = {"a": (np.arange(16 * 32, dtype=np.float32).reshape(16, 32) / 7 - 30).astype(ml_dtypes.bfloat16)}
    reports = compare(reference(source, inputs), run(compile_program(source, backend=backend, verify_all=True), inputs))
    assert all(r.ok for r in reports), [r.line for r in reports]


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_a_widened_bf16_literal_is_the_bf16_value_not_the_written_one(backend: str) -> None:
    # pl.const(0.1, pl.BF16) means RNE_BF16(0.1) = 0.10009765625; widened to FP32 it must stay that
    # number, not become FP32's 0.1 (a campaign found muls(x, 0.1) one ulp off on A2/A3).
    text = HEADER + textwrap.indent(textwrap.dedent("""\
        def k(self, x: pl.Tensor[[16, 16], pl.BF16]) -> pl.Tensor[[16, 16], pl.BF16]:
            return pl.tensor.muls(x, pl.const(0.1, pl.BF16))
        """), "    ")
    program = parse_program(text, "k.py")
    x = np.random.default_rng(25).standard_normal((16, 16)).astype(ml_dtypes.bfloat16)
    outputs = run(compile_program(program, backend=backend, verify_all=True), {"x": x})
    scale = np.float32(ml_dtypes.bfloat16(0.1))
    expected = (x.astype(np.float32) * scale).astype(ml_dtypes.bfloat16)  # exact product, one rounding
    got = np.asarray(outputs["ret0"]).view(np.uint16)
    assert np.array_equal(got, expected.view(np.uint16))


# abs runs on A2/A3 through the BITS route: its BF16 result comes back as a reinterpret_view of
# the narrowed INT16 bits (a pto.treshape view). A set_validshape of that result cannot take the
# view (PTOAS rejects it; ViewLegality), so it narrows the bits' own handle and re-views it.
NARROWED_BITS = HEADER + textwrap.indent(textwrap.dedent("""\
    def k(self, x: pl.Tensor[[2, 16], pl.BF16]) -> pl.Tensor[[2, 16], pl.BF16, pl.TensorView(valid_shape=[1, 4])]:
        a = pl.abs(x)
        return pl.set_validshape(a, 1, 4)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[2, 16], pl.BF16]) -> pl.Tensor[[2, 16], pl.BF16, pl.TensorView(valid_shape=[1, 4])]:
        r: pl.Tensor[[2, 16], pl.BF16, pl.TensorView(valid_shape=[1, 4])] = self.k(x)
        return r
    """), "    ")
# The narrowed result read past its valid region by another BITS op (maximum over the whole tile).
NARROWED_BITS_READ_PAST = HEADER + textwrap.indent(textwrap.dedent("""\
    def k(self, x: pl.Tensor[[2, 16], pl.BF16]) -> pl.Tensor[[2, 16], pl.BF16]:
        a = pl.abs(x)
        n = pl.set_validshape(a, 1, 4)
        return pl.maximum(n, a)
    """), "    ")


def _bf16_with_nans() -> np.ndarray:
    bits = np.random.default_rng(3).integers(0, 1 << 16, size=(2, 16), dtype=np.uint16)
    bits[0, :3] = (0x7F81, 0xFFC1, 0x8000)  # a signalling NaN, a negative quiet NaN, -0
    return bits.view(ml_dtypes.bfloat16)


def test_a_narrowed_bits_route_result_is_narrowed_on_its_bits_handle() -> None:
    program = _legalized(NARROWED_BITS, "Ascend910B")
    narrows = [c for c in walk(program) if isinstance(c, P.Call) and c.op == "tile.set_validshape"]
    assert len(narrows) == 1
    operand = narrows[0].args[0]
    assert isinstance(operand, P.Var) and isinstance(operand.type, TileType)
    assert operand.type.dtype is DataType.INT16, operand  # the cast's own tile, not the BF16 view


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
@pytest.mark.parametrize("text", [NARROWED_BITS, NARROWED_BITS_READ_PAST], ids=["narrowed", "read-past"])
def test_a_narrowed_bits_route_result_compiles_and_keeps_the_bits(backend: str, text: str) -> None:
    source = parse_program(text, "k.py")
    compiled = compile_program(source, backend=backend, verify_all=True)
    x = _bf16_with_nans()
    outputs = run(compiled, {"x": x})
    reports = compare_valid(compiled.source, reference(compiled.source, {"x": x}), outputs)
    assert reports and all(r.ok for r in reports), reports
    expected = x.view(np.uint16) & 0x7FFF  # abs clears the sign bit, NaN payloads kept
    got = np.asarray(next(iter(outputs.values()))).view(np.uint16)
    if text is NARROWED_BITS:
        got, expected = got[:1, :4], expected[:1, :4]
    assert got.tolist() == expected.tolist()


# A row-broadcast op's per-row operand is a column-major [N, 1] column; its widening (tcvt, and
# the BITS routes' tshls) and a column result's narrowing run on the column's [1, N] row view, as
# every other vector op on a column does, so RowMajorVecTiles holds after the pass (agent-k's
# finding 3a911717c9: the column was cast and shifted column-major). A column window (a slice of
# an on-chip [32, 1] column) is widened through its row window.
ROW_BROADCASTS = {  # op -> (the DSL expression of a and the column c, its NumPy reference in float64)
    "row_expand_max": ("pl.tensor.maximum(a, c)", np.maximum),  # the BITS route on both targets
    "row_expand_min": ("pl.tensor.minimum(a, c)", np.minimum),
    "row_expand_add": ("pl.tensor.add(a, c)", np.add),  # CONVERTED on A2/A3 (tcvt both ways)
    "row_expand_mul": ("pl.tensor.mul(a, c)", np.multiply),
    "row_expand_sub": ("pl.tensor.sub(a, c)", np.subtract),
}
COLUMNS: dict[str, tuple[str, str, tuple[int, int], Callable[[np.ndarray], np.ndarray]]] = {
    "column": ("r: pl.Tensor[[16, 1], pl.BF16]", "c = pl.tensor.neg(r)", (16, 1), lambda r: -r),
    "column_window": ("r: pl.Tensor[[32, 1], pl.BF16]",
                      "n: pl.Tensor[[32, 1], pl.BF16] = pl.tensor.neg(r)\n"
                      "c: pl.Tensor[[16, 1], pl.BF16] = pl.tensor.slice(n, [16, 1], [8, 0])", (32, 1),
                      lambda r: -r[8:24]),
}


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
@pytest.mark.parametrize("column", sorted(COLUMNS))
@pytest.mark.parametrize("op", sorted(ROW_BROADCASTS))
def test_a_bf16_row_broadcast_widens_its_column_on_the_row_view(op: str, column: str, backend: str) -> None:
    from verifiers import row_major_vec_tiles

    expression, numpy_op = ROW_BROADCASTS[op]
    param, define, shape, of = COLUMNS[column]
    text = HEADER + textwrap.indent(
        f"def k(self, a: pl.Tensor[[16, 32], pl.BF16], {param}) -> pl.Tensor[[16, 32], pl.BF16]:\n"
        + textwrap.indent(f"{define}\nreturn {expression}\n", "    "), "    ")
    handler = get_backend(backend)
    legalized = compile_program(parse_program(text, "k.py"), backend=backend, verify_all=True,
                                pipeline="normalize-stmt-structure,convert-tensor-to-tile-ops,flatten-tile-nd-to-2d,"
                                         "infer-tile-memory-space,legalize-vec-layouts,legalize-vec-dtypes").final
    assert row_major_vec_tiles.verify(legalized) == []
    casts = [c for c in walk(legalized) if isinstance(c, P.Call) and c.op == "tile.cast"]
    assert any(isinstance(c.type, TileType) and tuple(c.type.shape) == (1, 16) for c in casts), \
        "the column is widened on its [1, 16] row"
    widened = [c for c in walk(legalized) if isinstance(c, P.Call) and c.op == f"tile.{op}"
               and isinstance(c.type, TileType) and c.type.dtype is DataType.FP32]
    if set(_instructions(f"tile.{op}")) & handler.fp32_only_vec_instructions:
        assert widened, f"{op} is computed in FP32 on {backend}"
    # end to end (RowMajorVecTiles verified after every pass), bit-exact against NumPy
    compiled = compile_program(parse_program(text, "k.py"), backend=backend, verify_all=True)
    rng = np.random.default_rng(11)
    a = rng.standard_normal((16, 32)).astype(ml_dtypes.bfloat16)
    r = (rng.standard_normal(shape) * 4).astype(ml_dtypes.bfloat16)
    got = np.asarray(run(compiled, {"a": a, "r": r})["ret0"]).view(np.uint16)
    c = of(r.astype(np.float64))
    expected = numpy_op(a.astype(np.float64), c).astype(ml_dtypes.bfloat16)  # exact in float64, one rounding
    assert np.array_equal(got, expected.view(np.uint16))


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_a_column_widened_column_major_is_caught_after_the_pass(backend: str) -> None:
    # The mutant widens the column as it stands: RowMajorVecTiles, which LegalizeVecDtypes no
    # longer invalidates, blames the pass at the user's line.
    from nanopass.diagnostics import CompileError
    from nanopass_pto.mutants import MUTANTS

    text = HEADER + textwrap.indent(
        "def k(self, a: pl.Tensor[[16, 32], pl.BF16], r: pl.Tensor[[16, 1], pl.BF16]) -> pl.Tensor[[16, 32], pl.BF16]:\n"
        "    return pl.tensor.maximum(a, r)\n", "    ")
    with {m.name: m for m in MUTANTS}["bf16-column-widened-column-major"].applied(), \
            pytest.raises(CompileError) as err:
        compile_program(parse_program(text, "k.py"), backend=backend, verify_all=True)
    message = str(err.value)
    assert "Verification failed after 'LegalizeVecDtypes' for properties {RowMajorVecTiles}" in message, message
    assert "k.py:7:" in message and "[RowMajorVecTiles] `tile.cast` computes on column-major Vec tiles" in message, \
        message


def test_a_column_result_is_narrowed_on_its_row_view() -> None:
    # After LegalizeVecLayouts every widened op's result is row-major (RowMajorVecTiles), so only a
    # program it has not legalized shows the narrowing of a column: BF16 maximum of two [16, 1]
    # columns, legalized for A2/A3's FP32-only tmax alone. Every cast and shift of the widening
    # and the narrowing runs on a [1, 16] row, and the BF16 result is the row re-viewed as the
    # column (a reshape), as the FP32 operands are.
    text = HEADER + textwrap.indent(
        "def k(self, r: pl.Tensor[[16, 1], pl.BF16], s: pl.Tensor[[16, 1], pl.BF16]) -> pl.Tensor[[16, 1], pl.BF16]:\n"
        "    return pl.tensor.maximum(r, s)\n", "    ")
    program = _legalized(text, "Ascend910B")
    chain = [c for c in walk(program) if isinstance(c, P.Call) and c.op in ("tile.cast", "tile.shls", "tile.shrs")]
    assert chain and all(isinstance(c.type, TileType) and tuple(c.type.shape) == (1, 16) for c in chain), chain
    maximum = next(c for c in walk(program) if isinstance(c, P.Call) and c.op == "tile.maximum")
    assert isinstance(maximum.type, TileType) and maximum.type.dtype is DataType.FP32
    assert all(isinstance(a, P.Var) and a.name.endswith("_fp32") for a in maximum.args)
    result = next(s for s in walk(program) if isinstance(s, P.AssignStmt) and isinstance(s.value, P.Call)
                  and isinstance(s.value.type, TileType) and s.value.type.dtype is DataType.BF16
                  and tuple(s.value.type.shape) == (16, 1) and s.value.op == "tile.reshape")
    assert result.target.name.startswith("maximum")
