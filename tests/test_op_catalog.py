"""Type deduction of the operator catalog's ops (spec tensor_and_tile_operators.md): shapes,
dtypes, valid shapes, placement, and the located error of each rule a call can break."""

from __future__ import annotations

from languages.memory_space import MemorySpace
from languages.types import TileType
from tests.test_op_registry import FP16, FP32, INT8, INT32, deduce, deduction_error, tile

Acc, Bias, Left, Right = MemorySpace.Acc, MemorySpace.Bias, MemorySpace.Left, MemorySpace.Right


def test_matmul_bias_result_is_the_product_in_acc() -> None:
    result = deduce("tile.matmul_bias", tile((16, 64), FP16, space=Left), tile((64, 32), FP16, space=Right),
                    tile((1, 32), FP32, space=Bias), placed=True)
    assert isinstance(result, TileType)
    assert (result.shape, result.dtype, result.memory_space) == ((16, 32), FP32, Acc)
    result = deduce("tile.matmul_bias", tile((16, 64), INT8), tile((64, 32), INT8), tile((1, 32), INT32))
    assert isinstance(result, TileType) and result.dtype is INT32


def test_matmul_bias_rejects_a_bias_that_is_not_one_accumulator_row() -> None:
    assert "expected dtype FP32 (the accumulator's), got FP16" in deduction_error(
        "tile.matmul_bias", tile((16, 64), FP16), tile((64, 32), FP16), tile((1, 32), FP16))
    assert "expected shape [1, 32]" in deduction_error(
        "tile.matmul_bias", tile((16, 64), FP16), tile((64, 32), FP16), tile((2, 32), FP32))
