"""FlattenTileNdTo2D: every InCore tile becomes 2-D; tile.transpose gets its scratch."""

from __future__ import annotations

import pytest

import languages.gen.tensor as T
import languages.gen.tile_unplaced as U
from languages.pl_parser import parse_program_as
from languages.pl_printer import print_program
from languages.types import DataType, TileType
from nanopass.diagnostics import CompileError
from nanopass.node import walk
from nanopass.passes import PassContext
from passes.convert_tensor_to_tile_ops import ConvertTensorToTileOps
from passes.flatten_tile_nd_to_2d import FlattenTileNdTo2D, flatten_type, packed_dims
from verifiers import tile_ops_2d

HEADER = "@pl.program\nclass P:\n"


def flatten(body: str) -> U.Program:
    ctx = PassContext()
    tiled = ConvertTensorToTileOps().run(parse_program_as(HEADER + body, T.Program), ctx)
    return FlattenTileNdTo2D().run(tiled, ctx)


def tiles(program: U.Program) -> list[TileType]:
    return [n.type for n in walk(program) if isinstance(n, U.Var) and isinstance(n.type, TileType)]


def test_rank1_tiles_become_one_row() -> None:
    out = flatten("""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y: pl.Tensor[[64], pl.FP32] = pl.add(x, x)
        return y
""")
    assert not tile_ops_2d.verify(out)
    assert {t.shape for t in tiles(out)} == {(1, 64)}
    text = print_program(out)
    # The GM window stays 1-D on the tensor; only the tile is packed.
    assert "x_tile: pl.Tile[[1, 64], pl.FP32] = pl.tile.load(x, [0], [64], packed=True)" in text
    assert "pl.tile.store(y_tile, [0], ret0_out, window=[64])" in text


def test_rank3_tiles_are_row_packed_through_reductions() -> None:
    out = flatten("""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[2, 8, 32], pl.FP32]) -> pl.Tensor[[2, 8, 1], pl.FP32]:
        r: pl.Tensor[[2, 8, 1], pl.FP32] = pl.row_sum(x)
        return r
""")
    assert not tile_ops_2d.verify(out)
    assert {t.shape for t in tiles(out)} == {(16, 32), (16, 1)}


def test_transpose_scratch_materialized() -> None:
    out = flatten("""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[32, 16], pl.FP32]:
        y: pl.Tensor[[32, 16], pl.FP32] = pl.tensor.transpose(x, 0, 1)
        return y
""")
    text = print_program(out)
    assert "transpose_tmp: pl.Tile[[16, 32], pl.FP32] = pl.tile.create([16, 32], dtype=pl.FP32)" in text
    (transpose,) = [n for n in walk(out) if isinstance(n, U.Call) and n.op == "tile.transpose"]
    assert len(transpose.args) == 2 and dict(transpose.attrs) == {"axis1": 0, "axis2": 1}


def test_row_reduction_scratch_materialized_with_the_source_valid_extent() -> None:
    """PTOAS's trowsum / trowmax / trowmin take a tmp tile of the source's valid shape."""
    out = flatten("""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 1], pl.FP32]:
        part: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.set_validshape(x, 16, 20)
        m: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.row_max(part)
        s: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.row_sum(x)
        r: pl.Tensor[[16, 1], pl.FP32] = pl.add(m, s)
        return r
""")
    text = print_program(out)
    reductions = {n.op: n for n in walk(out) if isinstance(n, U.Call) and n.op in ("tile.row_max", "tile.row_sum")}
    for call in reductions.values():
        source, tmp = (getattr(a, "type") for a in call.args)
        assert isinstance(tmp, TileType) and (tmp.shape, tmp.valid, tmp.dtype) == (source.shape, source.valid, source.dtype)
        assert call.args[1] is not call.args[0]
    assert "reduce_tmp: pl.Tile[[16, 32], pl.FP32] = pl.tile.create([16, 32], dtype=pl.FP32)" in text
    assert "pl.tile.set_validshape(reduce_tmp, 16, 20)" in text


def test_2d_program_is_returned_unchanged() -> None:
    ctx = PassContext()
    tiled = ConvertTensorToTileOps().run(parse_program_as(HEADER + """
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        y: pl.Tensor[[16, 32], pl.FP32] = pl.exp(x)
        return y
""", T.Program), ctx)
    assert FlattenTileNdTo2D().run(tiled, ctx) is tiled


def test_packing_rules_and_unpackable_valid_region() -> None:
    assert packed_dims((64,)) == (1, 64)
    assert packed_dims((2, 3, 4)) == (6, 4)
    anchor = U.Var("t", TileType((2, 3, 4), DataType.FP32))
    flat = flatten_type(TileType((2, 3, 4), DataType.FP32, (1, 3, 2)), anchor)
    assert isinstance(flat, TileType) and flat.shape == (6, 4) and flat.valid == (3, 2)
    with pytest.raises(CompileError, match="cannot be packed"):
        flatten_type(TileType((2, 3, 4), DataType.FP32, (2, 2, 4)), anchor)
