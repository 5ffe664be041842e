"""A narrowed value read over a wider region by a broadcast (issue 8: valid programs refused).

A view carries its valid region in its own type and takes no set_validshape, so a consumer that
reads one past its valid region -- the lhs of a row / column broadcast computed over the
result's region, a same-shape element-wise operand, a [1, 1] value spread over it -- is handed
the view taken again over the region read, by the registry's fact on how each view's valid region
follows from its operands (`ViewValid`): a window or reshape with its valid_shape stating it, a
reinterpretation or transpose view of its source made valid over the region first, a view of a
view recursively (finding 9f903e5108: `tensor.add` of a `reinterpret_view` of a narrowing reshape
was refused). A cube result lives boxed ([16, 16] for the user's [4, 16] or [16, 1]); an operand
the op spreads over it is spread over the box, valid over the result's region (finding
366fe57fed's class: a narrowed boxed product with a [1, 1] value met a [16, 16] and a [4, 16]
tile, a TypeDeduction error). Every kernel runs end to end under --verify-all --simulate on both
targets and is compared bit for bit with NumPy; DefinedReads still refuses a view read past the
data under it at the user's line."""

from __future__ import annotations

import contextlib
import textwrap
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import numpy.typing as npt
import pytest

from languages.ops import REGISTRY
from languages.ops.vector_ops import reinterpreted_source_region
from languages.types import DataType, TensorType
from nanopass.pipeline import main
from nanopass_pto.mutants import MUTANTS

Array = npt.NDArray[Any]
BACKENDS = ("Ascend910B", "Ascend950")


def _ty(shape: list[int], dtype: str, valid: list[int] | None = None) -> str:
    view = f", pl.TensorView(valid_shape={valid})" if valid is not None and valid != shape else ""
    return f"pl.Tensor[{shape}, pl.{dtype}{view}]"


def _program(params: list[tuple[str, list[int], str]], body: str, out: tuple[list[int], str]) -> str:
    signature = ", ".join(f"{name}: {_ty(shape, dtype)}" for name, shape, dtype in params)
    names = ", ".join(name for name, _, _ in params)
    result = _ty(*out)
    return (f"import pypto.language as pl\n\n\n@pl.program\nclass Kernel:\n"
            f"    @pl.function(type=pl.FunctionType.InCore)\n"
            f"    def kernel(self, {signature}) -> {result}:\n"
            f"{textwrap.indent(textwrap.dedent(body).strip(), ' ' * 8)}\n"
            f"        return t\n\n"
            f"    @pl.function(type=pl.FunctionType.Orchestration)\n"
            f"    def main(self, {signature}) -> {result}:\n"
            f"        o: {result} = self.kernel({names})\n"
            f"        return o\n")


def _run(tmp_path: Path, capsys: pytest.CaptureFixture[str], source: str, inputs: dict[str, Array],
         backend: str) -> tuple[Array, str]:
    path = tmp_path / "kernel.py"
    path.write_text(source)
    return run_file(tmp_path, capsys, path, inputs, backend)


def run_file(tmp_path: Path, capsys: pytest.CaptureFixture[str], path: Path, inputs: dict[str, Array],
             backend: str) -> tuple[Array, str]:
    """The kernel file `path` compiled under --verify-all and simulated on `inputs`: its ret0 and its PTO."""
    np.savez(tmp_path / "in.npz", **inputs)  # type: ignore[arg-type]
    rc = main([str(path), "--verify-all", "--backend", backend, "-o", str(tmp_path / "k.pto"), "--simulate",
               "--inputs", str(tmp_path / "in.npz"), "--save-outputs", str(tmp_path / "out.npz")])
    log = capsys.readouterr()
    assert rc == 0, log.out + log.err
    return np.asarray(np.load(tmp_path / "out.npz")["ret0"]), (tmp_path / "k.pto").read_text()


def same_bits(got: Array, want: Array) -> bool:
    return got.shape == want.shape and got.dtype.itemsize == want.dtype.itemsize \
        and bool((got.view(np.uint32) == want.view(np.uint32)).all())


# -- views of a computed value: view form x narrowing x broadcast ------------------------------------
#
# e = x * x is computed whole (its padding past every narrowed view is data); each case narrows it,
# views the narrowed value, and adds an operand the result is valid over the whole shape of.
# (name, the narrowing and the view, the view's shape and dtype, the other operand's shape, NumPy).

_X = (8, 32)


def _e(x: Array) -> Array:
    return (x * x).astype(np.float32)


def _bits(a: Array) -> Array:
    return a.view(np.int32)


# The narrowings of e: the call, its shape, its valid region, and the part of e it shows.
_ROWS = ("pl.tensor.set_validshape(e, 3, 32)", [8, 32], [3, 32], lambda e: e)
_COLUMNS = ("pl.tensor.set_validshape(e, 8, 5)", [8, 32], [8, 5], lambda e: e)
_ONE = ("pl.tensor.set_validshape(e, 1, 1)", [8, 32], [1, 1], lambda e: e)
_WINDOW_ROW = ("pl.tensor.slice(e, [4, 32], [2, 0], [1, 32])", [4, 32], [1, 32], lambda e: e[2:6])
_WINDOW_COLUMNS = ("pl.tensor.slice(e, [4, 32], [2, 0], [4, 7])", [4, 32], [4, 7], lambda e: e[2:6])
_RESHAPE = ("pl.tensor.reshape(e, [16, 16], [5, 16])", [16, 16], [5, 16], lambda e: e.reshape(16, 16))

# The views of the narrowed value n: the expression, its dtype, and NumPy's view of n's elements.
_REINTERPRET = ("pl.tensor.reinterpret_view(n, dtype=pl.INT32)", "INT32", _bits)
_TWICE = ("pl.tensor.reinterpret_view(pl.tensor.reinterpret_view(n, dtype=pl.INT32), dtype=pl.FP32)", "FP32",
          lambda v: v)
_TENSOR_VIEW = ("pl.tensor.view(n)", "FP32", lambda v: v)
_ALIAS = ("n", "FP32", lambda v: v)

# (the narrowing, the view, the other operand's shape as a function of the view's)
VIEW_CASES: list[tuple[Any, Any, Any]] = [
    (_ROWS, _REINTERPRET, lambda s: [s[0], 1]),
    (_COLUMNS, _REINTERPRET, lambda s: [1, s[1]]),
    (_ONE, _REINTERPRET, lambda s: [s[0], 1]),
    (_ONE, _TWICE, lambda s: [1, s[1]]),
    (_WINDOW_ROW, _REINTERPRET, lambda s: [s[0], 1]),
    (_WINDOW_COLUMNS, _REINTERPRET, lambda s: [1, 1]),
    (_WINDOW_ROW, _REINTERPRET, lambda s: s),
    (_WINDOW_COLUMNS, _TWICE, lambda s: [1, s[1]]),
    (_RESHAPE, _REINTERPRET, lambda s: [1, s[1]]),
    (_RESHAPE, _TWICE, lambda s: s),
    (_WINDOW_COLUMNS, _TENSOR_VIEW, lambda s: [s[0], 1]),
    (_WINDOW_ROW, _TENSOR_VIEW, lambda s: [1, s[1]]),
    (_WINDOW_ROW, _ALIAS, lambda s: [s[0], 1]),
    (_RESHAPE, _ALIAS, lambda s: [1, 1]),
]


def _case_id(case: tuple[Any, Any, Any]) -> str:
    narrowing, view, other = case
    kind = {"set_validshape": "narrowed", "slice": "window", "reshape": "reshape"}
    what = next(v for k, v in kind.items() if k in narrowing[0])
    form = {"n": "alias", "pl.tensor.view(n)": "view"}.get(view[0], "reinterpret" if view is _REINTERPRET else "twice")
    return f"{form}-of-{what}{narrowing[2]}-by-{other(narrowing[1])}".replace(" ", "")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", VIEW_CASES, ids=[_case_id(c) for c in VIEW_CASES])
def test_a_narrowed_view_is_read_over_the_result(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                 case: tuple[Any, Any, Any], backend: str) -> None:
    (narrow, shape, valid, part), (view, dtype, as_viewed), other_of = case
    other = other_of(shape)
    rng = np.random.default_rng(sum(map(ord, _case_id(case))))
    x = rng.standard_normal(_X).astype(np.float32)
    r = (rng.integers(-2**20, 2**20, other).astype(np.int32) if dtype == "INT32"
         else rng.standard_normal(other).astype(np.float32))
    body = f"""
        e: {_ty(list(_X), 'FP32')} = pl.tensor.mul(x, x)
        n: {_ty(shape, 'FP32', valid)} = {narrow}
        w: {_ty(shape, dtype, valid)} = {view}
        t: {_ty(shape, dtype)} = pl.tensor.add(w, r)
    """
    source = _program([("x", list(_X), "FP32"), ("r", other, dtype)], body, (shape, dtype))
    got, _ = _run(tmp_path, capsys, source, {"x": x, "r": r}, backend)
    # Every element of the result, those past the view's valid region too: e's own data.
    want = np.asarray(as_viewed(part(_e(x))) + r)
    assert same_bits(got, want), np.argwhere(got.view(np.uint32) != want.view(np.uint32))[:4]


@pytest.mark.parametrize("backend", BACKENDS)
def test_finding_9f903e5108_reinterpret_of_a_narrowing_reshape_of_a_parameter(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], backend: str) -> None:
    """The finding's kernel, reduced: a [16] INT32 parameter reshaped to [1, 16] valid [1, 1],
    reinterpreted as FP32 and added to a [1, 1] value over the whole [1, 16] row."""
    body = """
        t2: pl.Tensor[[1, 16], pl.INT32, pl.TensorView(valid_shape=[1, 1])] = pl.tensor.reshape(x1, [1, 16], [1, 1])
        t: pl.Tensor[[1, 16], pl.FP32] = pl.tensor.add(pl.tensor.reinterpret_view(t2, dtype=pl.FP32), x5)
    """
    source = _program([("x1", [16], "INT32"), ("x5", [1, 1], "FP32")], body, ([1, 16], "FP32"))
    rng = np.random.default_rng(5)
    x1 = rng.standard_normal(16).astype(np.float32).view(np.int32)
    x5 = rng.standard_normal((1, 1)).astype(np.float32)
    got, _ = _run(tmp_path, capsys, source, {"x1": x1, "x5": x5}, backend)
    assert same_bits(got, x1.view(np.float32).reshape(1, 16) + x5)


# -- boxed cube results narrowed by set_validshape, with operands broadcast over them -----------------

def _small(rng: np.random.Generator, shape: tuple[int, ...]) -> Array:
    # Small integers: the products and their sums are exact in FP32, so NumPy's matmul is the cube's.
    return rng.integers(-3, 4, shape).astype(np.float16)


# (M, N, the valid region set_validshape gives the product, the other operand's shape, lhs first)
CUBE_CASES: list[tuple[int, int, list[int], list[int], bool]] = [
    (16, 1, [1, 1], [16, 1], True),     # finding 366fe57fed
    (16, 1, [1, 1], [1, 1], True),
    (16, 1, [7, 1], [1, 1], True),
    (4, 16, [1, 1], [1, 1], True),
    (4, 16, [1, 1], [1, 16], True),
    (4, 16, [1, 1], [4, 1], True),
    (4, 16, [4, 7], [4, 16], False),
    (4, 1, [1, 1], [1, 1], True),
    (20, 8, [9, 8], [1, 1], True),
    (20, 8, [20, 3], [20, 1], True),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", CUBE_CASES, ids=[f"{m}x{n}-valid{v[0]}x{v[1]}-by-{o[0]}x{o[1]}{'' if first else '-rhs'}"
                                                   for m, n, v, o, first in CUBE_CASES])
def test_a_narrowed_boxed_product_meets_a_broadcast(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    case: tuple[int, int, list[int], list[int], bool],
                                                    backend: str) -> None:
    m, n, valid, other, first = case
    k = 16
    rng = np.random.default_rng(m * 100 + n + valid[0])
    a, b = _small(rng, (m, k)), _small(rng, (k, n))
    r = rng.standard_normal(other).astype(np.float32)
    add = "pl.tensor.add(c, r)" if first else "pl.tensor.add(r, c)"
    body = f"""
        c: {_ty([m, n], 'FP32', valid)} = pl.tensor.set_validshape(pl.tensor.matmul(a, b, out_dtype=pl.FP32), {valid[0]}, {valid[1]})
        t: {_ty([m, n], 'FP32')} = {add}
    """
    source = _program([("a", [m, k], "FP16"), ("b", [k, n], "FP16"), ("r", other, "FP32")], body, ([m, n], "FP32"))
    got, _ = _run(tmp_path, capsys, source, {"a": a, "b": b, "r": r}, backend)
    product = a.astype(np.float32) @ b.astype(np.float32)
    want = (product + r) if first else (r + product)
    assert same_bits(got, want.astype(np.float32))


def test_a_row_that_does_not_spread_over_a_box_is_declined_at_the_users_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A [1, 8] row over a [20, 8] product boxed as [32, 16] (N = 8 rounded up): no broadcast
    spreads it over the box, so it is a located 'not supported yet', not a TypeDeduction error."""
    body = """
        c: pl.Tensor[[20, 8], pl.FP32, pl.TensorView(valid_shape=[1, 1])] = pl.tensor.set_validshape(pl.tensor.matmul(a, b, out_dtype=pl.FP32), 1, 1)
        t: pl.Tensor[[20, 8], pl.FP32] = pl.tensor.add(c, r)
    """
    path = tmp_path / "kernel.py"
    path.write_text(_program([("a", [20, 16], "FP16"), ("b", [16, 8], "FP16"), ("r", [1, 8], "FP32")], body,
                             ([20, 8], "FP32")))
    rc = main([str(path), "--backend", "Ascend950", "-o", str(tmp_path / "k.pto")])
    err = capsys.readouterr().err
    assert rc != 0
    assert f"{path}:9:" in err and "[ConvertTensorToTileOps] not supported yet" in err, err
    assert "lives boxed as [32, 16]" in err and "TypeDeduction" not in err, err


# -- DefinedReads still refuses a view read past the data under it ----------------------------------

def test_a_view_read_past_its_data_is_still_refused_at_the_users_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A window of a GM parameter with its own valid_shape loads its valid region only: nothing
    holds data past it, so a reinterpretation of it read over the result's region by a row
    broadcast is refused by DefinedReads at the add (not re-taken into a read of poison)."""
    body = """
        n: pl.Tensor[[4, 32], pl.FP32, pl.TensorView(valid_shape=[1, 32])] = pl.tensor.slice(x, [4, 32], [2, 0], [1, 32])
        w: pl.Tensor[[4, 32], pl.INT32, pl.TensorView(valid_shape=[1, 32])] = pl.tensor.reinterpret_view(n, dtype=pl.INT32)
        t: pl.Tensor[[4, 32], pl.INT32] = pl.tensor.add(w, r)
    """
    path = tmp_path / "kernel.py"
    path.write_text(_program([("x", [8, 32], "FP32"), ("r", [4, 1], "INT32")], body, ([4, 32], "INT32")))
    rc = main([str(path), "--verify-all", "--backend", "Ascend910B", "-o", str(tmp_path / "k.pto")])
    err = capsys.readouterr().err
    assert rc != 0
    assert f"{path}:10:" in err and "[DefinedReads]" in err and "internal compiler error" not in err, err


# -- the registry fact ------------------------------------------------------------------------------

def test_every_tile_view_states_how_its_valid_region_is_made() -> None:
    """Every tile-level view declares `ViewValid`: ConvertTensorToTileOps takes any of them again
    over a wider region by it, with no list of view ops of its own."""
    views = [op for op in REGISTRY if op.prefix == "tile" and op.family == "view"]
    assert {op.name for op in views} >= {"tile.slice", "tile.reshape", "tile.reinterpret_view",
                                         "tile.transpose_view", "tile.set_validshape"}
    missing = [op.name for op in views if op.view_valid is None]
    assert not missing, missing


def test_a_reinterpretation_counts_its_source_region_in_source_elements() -> None:
    """FP32 [4, 8] seen as FP16 [4, 16]: FP16 columns [0, 6) are FP32 columns [0, 3); five FP16
    columns split an FP32 element (no source region gives them); one width keeps the region."""
    source, view = TensorType((4, 8), DataType.FP32), TensorType((4, 16), DataType.FP16)
    assert reinterpreted_source_region(source, view, (), (), (2, 6)) == (2, 3)
    assert reinterpreted_source_region(source, view, (), (), (2, 5)) is None
    same = TensorType((4, 8), DataType.INT32)
    assert reinterpreted_source_region(source, same, (), (), (3, 5)) == (3, 5)
    transpose = REGISTRY.get("tile.transpose_view").view_valid
    assert transpose is not None and transpose.source_region(source, source, (), (), (2, 7)) == (7, 2)


# -- the mutants undoing each fix are seen ----------------------------------------------------------

def _compiles(tmp_path: Path, capsys: pytest.CaptureFixture[str], source: str) -> tuple[int, str]:
    path = tmp_path / "kernel.py"
    path.write_text(source)
    rc = main([str(path), "--verify-all", "--backend", "Ascend910B", "-o", str(tmp_path / "k.pto")])
    return rc, capsys.readouterr().err


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_view_handed_over_as_it_is_is_taken_again_at_tile_level(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], backend: str) -> None:
    """With the view not taken again by ConvertTensorToTileOps (once mutant narrowed-view-read-as-it-is),
    the reinterpretation of a window read over its whole shape reaches the tile passes as a
    hand-written tile program would: LegalizeVecLayouts copies the window over the region the
    re-view's consumers read (agent-aa; before, the copy held the window's valid row only and
    DefinedReads refused it after LegalizeVecLayouts: the mutant was seen through that bug), and
    RevalidateReadOperands takes the re-view of the copy again over the add's region. So the
    mutant is equivalent in the default pipeline: the program compiles and matches NumPy bit for
    bit either way."""
    body = f"""
        e: {_ty(list(_X), 'FP32')} = pl.tensor.mul(x, x)
        n: {_ty([4, 32], 'FP32', [1, 32])} = pl.tensor.slice(e, [4, 32], [2, 0], [1, 32])
        w: {_ty([4, 32], 'INT32', [1, 32])} = pl.tensor.reinterpret_view(n, dtype=pl.INT32)
        t: {_ty([4, 32], 'INT32')} = pl.tensor.add(w, r)
    """
    source = _program([("x", list(_X), "FP32"), ("r", [4, 32], "INT32")], body, ([4, 32], "INT32"))
    rng = np.random.default_rng(11)
    x = rng.standard_normal(_X).astype(np.float32)
    r = rng.integers(-2**20, 2**20, (4, 32)).astype(np.int32)
    want = _bits(_e(x)[2:6]) + r
    got, _ = _run(tmp_path, capsys, source, {"x": x, "r": r}, backend)
    assert same_bits(got, want)
    # ConvertTensorToTileOps handing the view over as it is (what finding 9f903e5108's class
    # did) is no miscompile since the tile-level passes take such a view again themselves
    # (RevalidateReadOperands, LegalizeVecLayouts' window copy): an equivalent change, so it is
    # no mutant of the catalogue; the program still matches NumPy with it.
    import passes.convert_tensor_to_tile_ops as convert

    with _patched(convert, "_views_read_past_their_valid_region"):
        got, pto = _run(tmp_path, capsys, source, {"x": x, "r": r}, backend)
    assert same_bits(got, want)
    assert "pto.tadd" in pto


def test_an_operand_spread_over_the_whole_box_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """With a [1, 1] value spread valid over the whole box of a [4, 16] product (mutant
    broadcast-onto-box-over-whole-box), the add reads the product's box rows, which hold no
    data: DefinedReads refuses it."""
    body = """
        c: pl.Tensor[[4, 16], pl.FP32] = pl.tensor.matmul(a, b, out_dtype=pl.FP32)
        t: pl.Tensor[[4, 16], pl.FP32] = pl.tensor.add(c, r)
    """
    source = _program([("a", [4, 16], "FP16"), ("b", [16, 16], "FP16"), ("r", [1, 1], "FP32")], body,
                      ([4, 16], "FP32"))
    rc, err = _compiles(tmp_path, capsys, source)
    assert rc == 0, err
    with {m.name: m for m in MUTANTS}["broadcast-onto-box-over-whole-box"].applied():
        rc, err = _compiles(tmp_path, capsys, source)
    assert rc != 0 and "[DefinedReads]" in err, err


# -- hand-written tile programs: RevalidateReadOperands takes views again by the same fact -----------

_TILE_VIEWS: dict[str, tuple[str, list[int], str, Any]] = {
    # A reshape narrowed by its own valid_shape, read whole by tile.add.
    "reshape": ("v: pl.Tile[[16, 16], pl.FP32, pl.TileView(valid_shape=[5, 16])] = pl.tile.reshape(tp, [16, 16], [5, 16])",
                [16, 16], "FP32", lambda p: p.reshape(16, 16)),
    # Its reinterpretation: the reshape is taken again over the region first.
    "reinterpret-of-reshape": (
        "s: pl.Tile[[16, 16], pl.FP32, pl.TileView(valid_shape=[5, 16])] = pl.tile.reshape(tp, [16, 16], [5, 16])\n"
        "        v: pl.Tile[[16, 16], pl.INT32, pl.TileView(valid_shape=[5, 16])] = pl.tile.reinterpret_view(s, dtype=pl.INT32)",
        [16, 16], "INT32", lambda p: p.reshape(16, 16).view(np.int32)),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(_TILE_VIEWS))
def test_a_tile_view_read_past_its_valid_region_is_taken_again(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                               name: str, backend: str) -> None:
    """A tile-level view read past its valid region by an element-wise op (where the loaded data
    is) was a located refusal of RevalidateReadOperands for any view but a window and a
    same-shape re-view; it is taken again over the region read by the registry's ViewValid."""
    lines, shape, dtype, as_viewed = _TILE_VIEWS[name]
    q_ty = f"pl.Tensor[{shape}, pl.{dtype}]"
    source = f'''import pypto.language as pl


@pl.program
class Kernel:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, p: pl.Tensor[[8, 32], pl.FP32], q: {q_ty}, out0: pl.Out[{q_ty}]) -> {q_ty}:
        tp: pl.Tile[[8, 32], pl.FP32] = pl.tile.load(p, [0, 0], [8, 32], target_memory=pl.Mem.Vec)
        tq: pl.Tile[{shape}, pl.{dtype}] = pl.tile.load(q, [0, 0], {shape}, target_memory=pl.Mem.Vec)
        {lines}
        t: pl.Tile[{shape}, pl.{dtype}] = pl.tile.add(v, tq)
        r0: {q_ty} = pl.tile.store(t, [0, 0], out0)
        return r0

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, p: pl.Tensor[[8, 32], pl.FP32], q: {q_ty}, out0: pl.Out[{q_ty}]) -> {q_ty}:
        o: {q_ty} = self.kernel(p, q, out0)
        return o
'''
    rng = np.random.default_rng(len(name))
    p = rng.standard_normal((8, 32)).astype(np.float32)
    q = (rng.integers(-2**20, 2**20, shape).astype(np.int32) if dtype == "INT32"
         else rng.standard_normal(shape).astype(np.float32))
    got, pto = _run(tmp_path, capsys, source, {"p": p, "q": q, "out0": np.zeros(shape, q.dtype)}, backend)
    assert same_bits(got, np.asarray(as_viewed(p) + q))
    assert "pto.tadd" in pto


@contextlib.contextmanager
def _patched(module: Any, name: str) -> Iterator[None]:
    """The class of `module` defining method `name`, that method made to return the call's
    arguments as they are, while active."""
    owner = next(c for c in vars(module).values() if isinstance(c, type) and name in vars(c))
    original = vars(owner)[name]
    setattr(owner, name, lambda self, call, tile_op, args, pre: args)
    try:
        yield
    finally:
        setattr(owner, name, original)
