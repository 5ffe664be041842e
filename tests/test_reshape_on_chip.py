"""Zero-copy views on chip under 32-byte padded Vec rows: a reshape re-views the same bytes only
where both shapes keep their elements in row-major order, and a tensor reinterpret of an [N, 1]
column (column-major on chip) has no tile of the tensor's [N, k] shape. Such programs are
refused at their own line, never as an internal error, and the generator draws none of them,
asking the same predicates the passes refuse them by."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings

from backend.fuzzing.generator import Features, GeneratedProgram, programs, reaching_kernel
from backend.fuzzing.registry_calls import on_chip_view_gap
from languages.gen import tensor as T
from languages.ops import REGISTRY
from languages.ops.vector_ops import reinterpret_on_chip_gap
from languages.types import DataType, TensorType, TileType
from languages.views import flat_reshape_gap
from nanopass.node import walk
from nanopass.pipeline import main

F16, F32, I8 = DataType.FP16, DataType.FP32, DataType.INT8


def test_which_reshapes_and_reinterprets_have_a_zero_copy_tile() -> None:
    assert flat_reshape_gap((8, 32), (16, 16), F32) == ""   # rows of whole 32-byte blocks
    assert flat_reshape_gap((8, 1), (1, 8), F32) == ""      # a column and a row are contiguous
    assert "[32, 16]" not in flat_reshape_gap((64, 8), (32, 16), F16)
    assert "[64, 8]" in flat_reshape_gap((64, 8), (32, 16), F16)  # 16-byte rows padded to 32
    assert "[4, 2]" in flat_reshape_gap((8, 1), (4, 2), F16)
    assert reinterpret_on_chip_gap(TensorType((8, 1), F32), I8).startswith("not supported yet")
    assert reinterpret_on_chip_gap(TensorType((1, 8), F32), I8) == ""
    assert reinterpret_on_chip_gap(TensorType((8, 4), I8), F32) == ""  # into a column: the rows' bytes


def _program(body: str, params: str, result: str, args: str) -> str:
    return f"""import pypto.language as pl


@pl.program
class Views:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, {params}) -> {result}:
{body}
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, {params}) -> {result}:
        r: {result} = self.k({args})
        return r
"""


def _run(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    (tmp_path / "k.py").write_text(text)
    rc = main([str(tmp_path / "k.py"), "--backend", "Ascend950", "-o", str(tmp_path / "k.pto"), *extra])
    captured = capsys.readouterr()
    return rc, captured.out + captured.err


def test_a_reshape_into_padded_rows_is_refused_at_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # It used to pass InferTileMemorySpace and trip ViewLegality as an internal error.
    body = ("        y: pl.Tensor[[4, 2], pl.FP16] = pl.tensor.reshape(x, [4, 2])\n"
            "        z: pl.Tensor[[4, 2], pl.FP16] = pl.tensor.neg(y)\n        return z\n")
    rc, log = _run(tmp_path, _program(body, "x: pl.Tensor[[8, 1], pl.FP16]", "pl.Tensor[[4, 2], pl.FP16]", "x"),
                   capsys, "--verify-all")
    assert rc == 1 and "internal compiler error" not in log and "Traceback" not in log, log
    assert "k.py:8:" in log and "[InferTileMemorySpace] not supported yet" in log and "32-byte" in log, log


def test_a_tile_reshape_of_a_call_written_in_place_is_reported_not_crashed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = ("        t: pl.Tile[[4, 2], pl.BF16, pl.Mem.Vec] = pl.tile.reshape(pl.tile.load(x, [0, 0], [8, 1], "
            "target_memory=pl.Mem.Vec), [4, 2])\n"
            "        st: pl.Tensor[[4, 2], pl.BF16] = pl.tile.store(t, [0, 0], out)\n        return st\n")
    text = "# nanopass.language: Tensor\n" + _program(
        body, "x: pl.Tensor[[8, 1], pl.BF16], out: pl.Out[pl.Tensor[[4, 2], pl.BF16]]",
        "pl.Tensor[[4, 2], pl.BF16]", "x, out")
    rc, log = _run(tmp_path, text, capsys)
    assert rc == 1 and "Traceback" not in log and "repro" not in log, log
    assert "[ViewLegality] tile.reshape re-views the tile.load result" in log, log


def test_a_tensor_reinterpret_of_a_column_is_refused_and_its_row_form_runs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    column = ("        s: pl.Tensor[[8, 1], pl.FP32] = pl.tensor.sqrt(x)\n"
              "        b: pl.Tensor[[8, 4], pl.INT8] = pl.tensor.reinterpret_view(s, dtype=pl.INT8)\n        return b\n")
    rc, log = _run(tmp_path, _program(column, "x: pl.Tensor[[8, 1], pl.FP32]", "pl.Tensor[[8, 4], pl.INT8]", "x"),
                   capsys)
    assert rc == 1 and "internal compiler error" not in log, log
    assert "k.py:9:" in log and "[ConvertTensorToTileOps] not supported yet" in log and "[32, 1]" in log, log
    assert "reshape the column to a row" in log
    row = ("        s: pl.Tensor[[8, 1], pl.FP32] = pl.tensor.sqrt(x)\n"
           "        r: pl.Tensor[[1, 8], pl.FP32] = pl.tensor.reshape(s, [1, 8])\n"
           "        b: pl.Tensor[[1, 32], pl.INT8] = pl.tensor.reinterpret_view(r, dtype=pl.INT8)\n        return b\n")
    x = np.random.default_rng(1).uniform(0.5, 4.0, (8, 1)).astype(np.float32)
    np.savez(tmp_path / "in.npz", x=x)
    rc, log = _run(tmp_path, _program(row, "x: pl.Tensor[[8, 1], pl.FP32]", "pl.Tensor[[1, 32], pl.INT8]", "x"),
                   capsys, "--verify-all", "--simulate", "--inputs", str(tmp_path / "in.npz"),
                   "--save-outputs", str(tmp_path / "out.npz"))
    assert rc == 0 and "bit-exact" in log, log
    got = np.load(tmp_path / "out.npz")["ret0"]
    assert (got.reshape(-1).view(np.float32) == np.sqrt(x).reshape(-1)).all()


def _view_calls(node: object) -> list[T.Call]:
    return [n for n in walk(node) if isinstance(n, T.Call) and n.op in REGISTRY  # type: ignore[arg-type]
            and (REGISTRY.get(n.op).semantics[:1] in (("reshape",), ("reinterpret",)))]


def _gaps(calls: list[T.Call]) -> list[str]:
    return [f"{c.op}: {gap}" for c in calls
            if (gap := on_chip_view_gap(REGISTRY.get(c.op), c.args, c.attrs, c.type, False))]


def test_the_generator_asks_the_same_predicates() -> None:
    column = T.Var("c", TensorType((8, 1), F32))
    call = T.Call("tensor.reinterpret_view", (column,), (("dtype", I8),), TensorType((8, 4), I8))
    assert _gaps([call]) and "column-major" in _gaps([call])[0]
    wide = T.Var("w", TensorType((64, 8), F16))
    shape = T.TupleExpr((T.ConstInt(32, DataType.INDEX), T.ConstInt(16, DataType.INDEX)))
    assert _gaps([T.Call("tensor.reshape", (wide, shape), (), TensorType((32, 16), F16))])
    for op in ("tensor.reshape", "tile.reshape", "tensor.reinterpret_view", "tile.reinterpret_view"):
        for seed in range(4):
            kernel = reaching_kernel(REGISTRY.get(op), seed=seed)
            assert kernel is not None, op
            assert _gaps(_view_calls(kernel)) == [], (op, seed)


@pytest.mark.parametrize("arch", ["a2a3", "a5"])
def test_generated_programs_have_no_view_without_an_on_chip_form(arch: str) -> None:
    @settings(max_examples=60, deadline=None, database=None)
    @given(programs(arch=arch))
    def check(generated: GeneratedProgram) -> None:
        assert _gaps(_view_calls(generated.program)) == [], generated.text

    check()


def test_tile_types_of_the_predicates_are_placed_where_the_pool_places_them() -> None:
    # A placed tile.reshape asks reshape_is_reinterpretation (the ViewLegality verifier's fact).
    from languages.memory_space import MemorySpace
    from languages.views import make_tile_type

    column = T.Var("l", make_tile_type((8, 1), DataType.BF16, None, MemorySpace.Vec))
    result = make_tile_type((4, 2), DataType.BF16, None, MemorySpace.Vec)
    shape = T.TupleExpr((T.ConstInt(4, DataType.INDEX), T.ConstInt(2, DataType.INDEX)))
    assert isinstance(result, TileType)
    assert _gaps([T.Call("tile.reshape", (column, shape), (), result)])


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_a_scatter_update_of_a_boxed_cube_result_reads_its_valid_window(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], backend: str) -> None:
    # A matmul's M = 20 lives boxed as [32, 48]: the lowering "reshaped" it to its logical
    # [20, 48] rows and the deduction refused a reshape of 1536 elements into 960 (generator
    # class). The logical rows are the valid window at the origin.
    body = ("        c: pl.Tensor[[20, 48], pl.FP32] = pl.tensor.matmul(a, b, out_dtype=pl.FP32)\n"
            "        d: pl.Tensor[[20, 48], pl.FP32] = pl.tensor.muls(c, 0.5)\n"
            "        u: pl.Tensor[[20, 48], pl.FP32] = pl.tensor.scatter_update(d, index=idx, src=c)\n"
            "        return u\n")
    params = "a: pl.Tensor[[20, 64], pl.FP32], b: pl.Tensor[[64, 48], pl.FP32], idx: pl.Tensor[[20, 1], pl.INT32]"
    rng = np.random.default_rng(5)
    a = rng.uniform(-1, 1, (20, 64)).astype(np.float32)
    b = rng.uniform(-1, 1, (64, 48)).astype(np.float32)
    idx = rng.permutation(20)[:, None].astype(np.int32)  # distinct rows: a well-defined update
    np.savez(tmp_path / "in.npz", a=a, b=b, idx=idx)
    (tmp_path / "k.py").write_text(_program(body, params, "pl.Tensor[[20, 48], pl.FP32]", "a, b, idx"))
    rc = main([str(tmp_path / "k.py"), "--backend", backend, "--verify-all", "--simulate", "-o",
               str(tmp_path / "k.pto"), "--inputs", str(tmp_path / "in.npz")])
    log = capsys.readouterr().err
    assert rc == 0 and "bit-exact" in log, log


def test_a_compare_of_a_boxed_cube_result_is_boxed_for_the_generator() -> None:
    # A [1, 1] matmul result lives boxed as [16, 16]; its compare's packed [1, 32] mask keeps the
    # box-rounded rows, and ConvertTensorToTileOps declines a view over it ("not supported yet"):
    # the generator must know the mask is boxed, though its columns are the mask's own.
    import random

    from backend.fuzzing.generator import _SeededBuilder

    builder = _SeededBuilder(lambda strategy: None, Features(), "k", rng=random.Random(0))
    a = builder.param(TensorType((1, 32), F16), "a")
    b = builder.param(TensorType((32, 1), F16), "b")
    product = builder.call("tensor.matmul", (a, b))
    mask = builder.call("tensor.cmp", (product, T.ConstFloat(-1.5, F16)), (("cmp_type", 3),))
    assert isinstance(mask.type, TensorType) and mask.type.shape == (1, 32)
    assert {product.name, mask.name} <= builder.boxed


def test_an_nd_region_partial_in_a_middle_axis_is_not_drawn() -> None:
    # FlattenTileNdTo2D packs [d0, .., dk] into rows; a reshape narrowed to [2, 3, 15] of
    # [2, 8, 32] leaves holes no 2-D valid shape describes, so the pass refuses it and the
    # generator asks the same fact (tile_ops.packed_valid_2d) before drawing such a call.
    from backend.fuzzing.registry_calls import packs_into_rows

    assert not packs_into_rows(TensorType((2, 8, 32), F16, (2, 3, 15)))
    assert packs_into_rows(TensorType((2, 8, 32), F16, (1, 8, 15)))
    assert packs_into_rows(TensorType((8, 32), F16, (3, 15)))

    @settings(max_examples=60, deadline=None, database=None)
    @given(programs(arch="a5"))
    def check(generated: GeneratedProgram) -> None:
        unpackable = [n for n in walk(generated.program) if isinstance(n, T.Var) and not packs_into_rows(n.type)]
        assert unpackable == [], generated.text

    check()
