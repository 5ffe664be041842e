"""The op registry (languages/ops) and implicit views (languages/views.py)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from languages.gen import tensor as T
from languages.memory_space import MemorySpace
from languages.ops import (
    READ,
    READ_WRITE,
    REGISTRY,
    WRITE,
    Fixed,
    FromAttr,
    InheritInput,
    ReusesInput,
    TileInput,
    matches_deduced,
    staging_space_for_load,
    static_ints,
)
from languages.ops.tensor_ops import broadcast_shapes, reshape_valid
from languages.types import Attrs, AttrValue, DataType, MemRef, ScalarType, TensorType, TileType, TileView, Type
from languages.layout import box_shape
from languages.views import (
    extract_view,
    implicit_view,
    make_tile_type,
    move_view,
    transposed_view,
)
from nanopass.diagnostics import CompileError
from nanopass.node import Node, Span

FP32, FP16, BF16, INT8, INT32 = DataType.FP32, DataType.FP16, DataType.BF16, DataType.INT8, DataType.INT32
Vec, Mat, Left, Right, Acc, Bias = (MemorySpace.Vec, MemorySpace.Mat, MemorySpace.Left, MemorySpace.Right,
                                    MemorySpace.Acc, MemorySpace.Bias)
NZ = TileView("col_major", "row_major", 512)
ND = TileView("row_major", "none_box", 512)
DN = TileView("col_major", "none_box", 512)


def tensor(shape: tuple[int, ...], dtype: DataType = FP32, valid: tuple[int, ...] | None = None,
           name: str = "t") -> T.Var:
    return T.Var(name, TensorType(shape, dtype, valid))


def tile(shape: tuple[int, ...], dtype: DataType = FP32, valid: tuple[int, ...] | None = None,
         space: MemorySpace | None = None, name: str = "x") -> T.Var:
    return T.Var(name, make_tile_type(shape, dtype, valid, space))


def ints(*values: int) -> T.TupleExpr:
    return T.TupleExpr(tuple(T.ConstInt(v, DataType.INDEX) for v in values))


def idx(value: int) -> T.ConstInt:
    return T.ConstInt(value, DataType.INDEX)


def deduce(op: str, *args: Node, placed: bool = False, **attrs: AttrValue) -> Type:
    attr_tuple: Attrs = tuple(attrs.items())
    return REGISTRY.deduce(op, args, attr_tuple, placed=placed)


def deduction_error(op: str, *args: Node, **attrs: AttrValue) -> str:
    with pytest.raises(CompileError) as info:
        REGISTRY.deduce(op, args, tuple(attrs.items()))
    (diag,) = info.value.diagnostics
    assert diag.rule == "TypeDeduction"
    return f"{diag.message}\n{diag.hint}"


# -- implicit views --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("space", "shape", "view"),
    [
        (Vec, (16, 32), ND),
        (Vec, (16, 1), DN),  # column vector: col_major
        (Vec, (1, 1), ND),  # a single element is not a column vector
        (Vec, (1, 32), ND),
        (Vec, (16, 1, 1), ND),  # only static 2-D tiles
        (Vec, (64,), ND),
        (Bias, (1, 64), ND),
        (MemorySpace.DDR, (16, 1), DN),
        (Mat, (16, 32), NZ),
        (Mat, (16, 1), NZ),
        (Left, (16, 32), NZ),
        (Right, (32, 16), TileView("row_major", "col_major", 512)),
        (Right, (32, 1), TileView("col_major", "col_major", 512)),  # blayout from shape
        (Acc, (16, 16), TileView("col_major", "row_major", 1024)),
    ],
)
def test_implicit_view_table(space: MemorySpace, shape: tuple[int, ...], view: TileView) -> None:
    assert implicit_view(space, shape) == view


def test_every_space_has_an_implicit_view() -> None:
    for space in MemorySpace:
        assert implicit_view(space, (16, 16)).fractal in (512, 1024)


@pytest.mark.parametrize(
    ("view", "dtype", "box"),
    [
        (NZ, FP32, (16, 8)),
        (NZ, FP16, (16, 16)),
        (NZ, INT8, (16, 32)),
        (TileView("row_major", "col_major", 512), FP32, (8, 16)),
        (TileView("row_major", "col_major", 512), FP16, (16, 16)),
        (TileView("col_major", "row_major", 1024), FP32, (16, 16)),
        (TileView("col_major", "row_major", 1024), INT32, (16, 16)),
        (ND, FP32, None),
    ],
)
def test_box_shape(view: TileView, dtype: DataType, box: tuple[int, int] | None) -> None:
    assert box_shape(view, dtype) == box


def test_extract_and_move_views() -> None:
    assert extract_view(Left) == TileView("row_major", "row_major", 512)
    assert extract_view(Right) == TileView("row_major", "col_major", 512)
    assert extract_view(Mat, (16, 16)) == implicit_view(Mat, (16, 16))
    column = make_tile_type((32, 1), FP16, space=Mat)
    assert move_view(column, Right).blayout == "row_major"  # L0B override for [N, 1]
    acc_column = make_tile_type((32, 1), FP32, space=Acc)
    # An accumulator drains into the flat destination's own layout (PTOAS rejects an NZ Vec tile).
    assert move_view(acc_column, Vec) == implicit_view(Vec, (32, 1)) == TileView("col_major", "none_box", 512)
    mat_column = make_tile_type((32, 1), FP16, space=Mat)
    assert move_view(mat_column, Vec) == TileView("col_major", "row_major", 512)  # flat: source layout
    assert move_view(make_tile_type((16, 16), FP32, space=Vec), Acc).fractal == 1024
    assert transposed_view(NZ) == TileView("row_major", "col_major", 512)
    assert transposed_view(ND) == DN


def test_make_tile_type_fills_view_and_normalises_valid() -> None:
    t = make_tile_type((16, 32), FP32, (16, 32), Mat)
    assert t.valid_shape is None and t.view == NZ
    assert make_tile_type((16, 32), FP32).view is None
    with pytest.raises(ValueError):
        make_tile_type((16, 32), FP32, view=NZ)


# -- element-wise ------------------------------------------------------------------------------------


def test_tensor_binary_broadcasting() -> None:
    assert deduce("tensor.add", tensor((16, 32)), tensor((16, 1))) == TensorType((16, 32), FP32)
    assert deduce("tensor.mul", tensor((4, 1, 8)), tensor((3, 1))) == TensorType((4, 3, 8), FP32)
    assert deduce("tensor.sub", tensor((32,)), tensor((16, 32))) == TensorType((16, 32), FP32)
    message = deduction_error("tensor.add", tensor((16, 32)), tensor((16, 16)))
    assert "tensor.add" in message and "'rhs'" in message
    assert "[16, 32]" in message and "[16, 16]" in message


@given(st.lists(st.integers(1, 4), max_size=4), st.lists(st.integers(1, 4), max_size=4))
def test_broadcast_shapes_matches_numpy(a: list[int], b: list[int]) -> None:
    try:
        expected: tuple[int, ...] | None = tuple(np.broadcast_shapes(tuple(a), tuple(b)))
    except ValueError:
        expected = None
    assert broadcast_shapes(tuple(a), tuple(b)) == expected


def test_binary_valid_shape_propagation() -> None:
    narrowed = deduce("tensor.add", tensor((16, 32), valid=(10, 32)), tensor((16, 32), valid=(10, 32)))
    assert narrowed == TensorType((16, 32), FP32, (10, 32))
    differing = deduce("tensor.add", tensor((16, 32), valid=(10, 32)), tensor((16, 32), valid=(12, 32)))
    assert differing == TensorType((16, 32), FP32)
    broadcast = deduce("tensor.add", tensor((16, 32), valid=(10, 32)), tensor((16, 1), valid=(10, 1)))
    assert broadcast == TensorType((16, 32), FP32)
    scalar = deduce("tensor.adds", tensor((16, 32), valid=(10, 32)), T.ConstFloat(1.0, FP32))
    assert scalar == TensorType((16, 32), FP32, (10, 32))


def test_binary_dtype_mismatch_names_both() -> None:
    message = deduction_error("tensor.add", tensor((16, 32)), tensor((16, 32), FP16))
    assert "FP32" in message and "FP16" in message and "'rhs'" in message


def test_tile_binary_same_shape_and_vec_placement() -> None:
    a, b = tile((16, 32), space=Vec), tile((16, 32), space=Vec, name="y")
    assert deduce("tile.add", a, b) == make_tile_type((16, 32), FP32)  # placement is inference's call
    assert deduce("tile.add", a, b, placed=True) == make_tile_type((16, 32), FP32, space=Vec)
    column = deduce("tile.maximum", tile((16, 1)), tile((16, 1)), placed=True)
    assert isinstance(column, TileType) and column.view == DN
    message = deduction_error("tile.add", a, tile((16, 1)))
    assert "same shape" in message and "row_expand" in message


def test_tensor_maximum_accepts_a_scalar_and_dispatches() -> None:
    assert deduce("tensor.maximum", tensor((16, 32)), T.ConstFloat(0.0, FP32)) == TensorType((16, 32), FP32)
    conversion = REGISTRY.get("tensor.maximum").to_tile
    assert conversion is not None and conversion.scalar_rhs_op == "tile.maximums"
    assert REGISTRY.get("tile.maximums").semantics == ("scalar_binary", "max")


def test_non_constant_index_scalar_is_rejected() -> None:
    loop_var = T.Var("i", ScalarType(DataType.INDEX))
    message = deduction_error("tile.adds", tile((16, 32)), loop_var)
    assert "index" in message
    assert deduce("tile.adds", tile((16, 32)), idx(2)) == make_tile_type((16, 32), FP32)


def test_unary_float_only() -> None:
    assert deduce("tensor.exp", tensor((8, 8), BF16)) == TensorType((8, 8), BF16)
    assert deduce("tensor.abs", tensor((8, 8), INT32)) == TensorType((8, 8), INT32)
    message = deduction_error("tile.sqrt", tile((8, 8), INT32))
    assert "float" in message and "INT32" in message


# -- reductions / row expansion ------------------------------------------------------------------------


def test_reductions() -> None:
    src = tensor((16, 32), valid=(10, 20))
    assert deduce("tensor.row_sum", src) == TensorType((16, 1), FP32, (10, 1))
    assert deduce("tensor.col_max", src) == TensorType((1, 32), FP32, (1, 20))
    assert deduce("tensor.row_min", tensor((2, 16, 32))) == TensorType((2, 16, 1), FP32)
    placed = deduce("tile.row_sum", tile((16, 32)), tile((16, 32), name="tmp"), placed=True)
    assert placed == make_tile_type((16, 1), FP32, space=Vec) and isinstance(placed, TileType)
    assert placed.view == DN
    assert "'tmp'" in deduction_error("tile.row_sum", tile((16, 32)), tile((8, 32), name="tmp"))
    assert REGISTRY.get("tile.row_sum").effect_of(1) == WRITE


def test_row_expand() -> None:
    assert deduce("tensor.row_expand_mul", tensor((16, 32)), tensor((16, 1))) == TensorType((16, 32), FP32)
    message = deduction_error("tile.row_expand_add", tile((16, 32)), tile((1, 32), name="r"))
    assert "[16, 1]" in message and "[1, 32]" in message


# -- matmul -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("dtype", "acc"), [(FP16, FP32), (BF16, FP32), (FP32, FP32), (INT8, INT32)])
def test_matmul_accumulator_dtype(dtype: DataType, acc: DataType) -> None:
    # tensor.matmul keeps a float operand dtype unless out_dtype widens it (PyPTO); tile.matmul
    # is the accumulator.
    kept = dtype if dtype.is_float else acc
    assert deduce("tensor.matmul", tensor((16, 64), dtype), tensor((64, 32), dtype)) == TensorType((16, 32), kept)
    assert deduce("tensor.matmul", tensor((16, 64), dtype), tensor((64, 32), dtype), out_dtype=acc) == TensorType(
        (16, 32), acc)
    result = deduce("tile.matmul", tile((16, 64), dtype, space=Left), tile((64, 32), dtype, space=Right), placed=True)
    assert result == make_tile_type((16, 32), acc, space=Acc)


def test_matmul_transposes_and_out_dtype() -> None:
    a, b = tensor((64, 16), FP16), tensor((32, 64), FP16)
    assert deduce("tensor.matmul", a, b, a_trans=True, b_trans=True) == TensorType((16, 32), FP16)
    assert deduce("tensor.matmul", tensor((16, 64), FP16), tensor((64, 32), FP16), out_dtype=BF16) == TensorType(
        (16, 32), BF16)
    assert "out_dtype" in deduction_error("tensor.matmul", tensor((16, 64), INT8), tensor((64, 32), INT8),
                                          out_dtype=FP16)
    message = deduction_error("tensor.matmul", tensor((16, 64)), tensor((32, 32)))
    assert "K = 64" in message and "K = 32" in message and "'rhs'" in message
    assert "rank >= 2" in deduction_error("tensor.matmul", tensor((64,)), tensor((64, 32)))
    assert "INT32" in deduction_error("tensor.matmul", tensor((16, 64), INT32), tensor((64, 32), INT32))


def test_batched_matmul_broadcasts_batch_dims_and_keeps_the_matrix_rules() -> None:
    """Every axis but the last two is a batch axis; they broadcast (NumPy rules; a rank-2 operand
    is one matrix for every batch) and M / N / K and the dtypes follow the 2-D matmul."""
    a, b = tensor((2, 1, 16, 64), FP16), tensor((3, 64, 32), FP16)
    assert deduce("tensor.matmul", a, b, out_dtype=FP32) == TensorType((2, 3, 16, 32), FP32)
    assert deduce("tensor.matmul", tensor((16, 64), FP16), b) == TensorType((3, 16, 32), FP16)
    assert deduce("tensor.matmul", tensor((2, 64, 16), FP16), tensor((2, 32, 64), FP16), a_trans=True,
                  b_trans=True, out_dtype=FP32) == TensorType((2, 16, 32), FP32)
    assert "do not broadcast" in deduction_error("tensor.matmul", tensor((2, 16, 64)), tensor((3, 64, 32)))
    assert "K = 64" in deduction_error("tensor.matmul", tensor((2, 16, 64)), tensor((2, 32, 32)))
    lhs, rhs = tile((2, 16, 64), FP16, space=Mat), tile((2, 64, 32), FP16, space=Mat, name="r")
    product = deduce("tile.batch_matmul", lhs, rhs)
    assert isinstance(product, TileType) and product.shape == (2, 16, 32) and product.dtype is FP32
    assert REGISTRY.get("tile.batch_matmul").output_memory == Fixed(Acc)
    acc = T.Var("acc", product)
    assert deduce("tile.batch_matmul_acc", acc, lhs, rhs) == product
    assert "shape" in deduction_error("tile.batch_matmul_acc", tile((16, 32), space=Acc, name="acc"), lhs, rhs)
    assert REGISTRY.get("tile.batch_matmul_acc").effect_of(0) == READ_WRITE
    # The a_trans / b_trans operand is a transpose_view of the last two axes.
    view = deduce("tile.transpose_view", tile((2, 64, 16), FP16, space=Mat))
    assert isinstance(view, TileType) and view.shape == (2, 16, 64)


def test_tensor_matmul_drops_valid_shape_tile_matmul_keeps_it() -> None:
    a, b = tensor((112, 64), valid=(100, 64)), tensor((64, 32))
    assert deduce("tensor.matmul", a, b) == TensorType((112, 32), FP32)
    lhs = tile((112, 64), FP16, valid=(100, 64), space=Left)
    rhs = tile((64, 32), FP16, valid=(64, 20), space=Right, name="r")
    result = deduce("tile.matmul", lhs, rhs, placed=True)
    assert isinstance(result, TileType)
    assert result.valid_shape == (100, 20) and result.view is not None and result.view.compact


def test_matmul_acc_reuses_accumulator() -> None:
    acc_type = make_tile_type((32, 32), FP32, space=Acc, view=TileView("col_major", "row_major", 1024, compact=True))
    acc = T.Var("acc", acc_type)
    lhs, rhs = tile((32, 64), FP16, space=Left), tile((64, 32), FP16, space=Right, name="r")
    assert deduce("tile.matmul_acc", acc, lhs, rhs) == acc_type
    assert deduce("tile.matmul_acc", acc, lhs, rhs, T.ConstBool(True)) == acc_type
    op = REGISTRY.get("tile.matmul_acc")
    assert op.output_memory == ReusesInput(0) and op.effect_of(0) == READ_WRITE
    assert "BOOL" in deduction_error("tile.matmul_acc", acc, lhs, rhs, idx(0))
    bad_acc = tile((32, 32), FP16, space=Acc, name="acc")
    message = deduction_error("tile.matmul_acc", bad_acc, lhs, rhs)
    assert "'acc'" in message and "FP32" in message and "FP16" in message
    assert "shape" in deduction_error("tensor.matmul_acc", tensor((16, 32)), tensor((32, 64), FP16),
                                      tensor((64, 32), FP16))


def test_cube_operand_spaces_are_declared_once() -> None:
    assert REGISTRY.operand_space("tile.matmul", 0) == Left
    assert REGISTRY.operand_space("tile.matmul", 1) == Right
    assert REGISTRY.operand_space("tile.matmul_acc", 0) == Acc
    assert REGISTRY.operand_space("tile.add", 1) == Vec
    assert REGISTRY.get("tile.matmul").output_memory == Fixed(Acc)


# -- GM bridges -------------------------------------------------------------------------------------------


def test_load_boxing_physical_vs_valid() -> None:
    a = tensor((100, 256), FP16)
    boxed = deduce("tile.load", a, ints(0, 0), ints(112, 256), ints(100, 256), target_memory=Mat)
    assert boxed == make_tile_type((112, 256), FP16, (100, 256), Mat)
    unplaced = deduce("tile.load", a, ints(0, 0), ints(64, 256))
    assert unplaced == make_tile_type((64, 256), FP16)
    message = deduction_error("tile.load", a, ints(0, 0), ints(112, 256), target_memory=Mat)
    assert "[100, 256]" in message and "[112, 256]" in message
    assert "within" in deduction_error("tile.load", a, ints(0, 0), ints(16, 16), ints(32, 16))
    assert "Acc" in deduction_error("tile.load", a, ints(0, 0), ints(16, 16), target_memory=Acc)
    assert "rank" in deduction_error("tile.load", a, ints(0), ints(16, 16))
    dynamic = deduce("tile.load", a, T.TupleExpr((T.Var("i", ScalarType(DataType.INDEX)), idx(0))), ints(16, 16))
    assert dynamic == make_tile_type((16, 16), FP16)


def test_store() -> None:
    out = tensor((16, 32), name="out")
    assert deduce("tile.store", tile((16, 32), space=Vec), ints(0, 0), out) == TensorType((16, 32), FP32)
    acc = tile((16, 32), FP32, space=Acc)
    assert deduce("tile.store", acc, ints(0, 0), tensor((16, 32), BF16)) == TensorType((16, 32), BF16)
    assert "dtype" in deduction_error("tile.store", tile((16, 32), space=Vec), ints(0, 0), tensor((16, 32), BF16))
    assert "inside" in deduction_error("tile.store", tile((16, 32), space=Vec), ints(8, 0), out)
    op = REGISTRY.get("tile.store")
    assert op.effects == (READ, READ, WRITE) and op.output_memory == ReusesInput(2)
    assert op.operands[0].legal_spaces == (Vec, Acc)


def test_move_extract_create() -> None:
    src = tile((64, 64), FP16, space=Mat)
    moved = deduce("tile.move", src, target_memory=Left)
    assert moved == make_tile_type((64, 64), FP16, space=Left)
    assert "target_memory" in deduction_error("tile.move", src)
    extracted = deduce("tile.extract", src, idx(0), idx(16), ints(32, 16), target_memory=Right)
    assert extracted == make_tile_type((32, 16), FP16, space=Right, view=TileView("row_major", "col_major", 512))
    narrowed = tile((64, 64), FP16, valid=(40, 64), space=Mat)
    rows = deduce("tile.extract", narrowed, idx(32), T.Var("ko", ScalarType(DataType.INDEX)), ints(32, 16),
                  target_memory=Left)
    assert isinstance(rows, TileType) and rows.valid_shape == (8, 16)
    assert "inside" in deduction_error("tile.extract", src, idx(48), idx(0), ints(32, 16), target_memory=Left)
    assert not REGISTRY.get("tile.move").in_place_safe and not REGISTRY.get("tile.extract").in_place_safe
    assert REGISTRY.get("tile.add").in_place_safe
    compact = deduce("tile.create", ints(112, 64), dtype=FP32, target_memory=Acc, compact=True)
    assert isinstance(compact, TileType) and compact.view == TileView("col_major", "row_major", 1024, compact=True)
    assert deduce("tile.create", ints(16, 16), dtype=FP32) == make_tile_type((16, 16), FP32)
    assert "compact" in deduction_error("tile.create", ints(16, 16), dtype=FP32, compact=True)
    assert REGISTRY.get("tile.load").output_memory == FromAttr("target_memory")


# -- views and metadata ------------------------------------------------------------------------------------


def test_transpose_view_and_set_validshape() -> None:
    src = tile((128, 112), FP16, valid=(128, 100), space=Mat)
    assert deduce("tile.transpose_view", src) == make_tile_type(
        (112, 128), FP16, (100, 128), Mat, TileView("row_major", "col_major", 512))
    acc = tile((112, 64), FP32, space=Acc)
    narrowed = deduce("tile.set_validshape", acc, idx(100), idx(64))
    assert narrowed == make_tile_type((112, 64), FP32, (100, 64), Acc)
    assert "within" in deduction_error("tile.set_validshape", acc, idx(120), idx(64))
    assert REGISTRY.get("tile.slice").output_memory == InheritInput(0)


def test_slice_and_assemble_keep_the_source_layout() -> None:
    src = tile((64, 64), FP16, space=Mat)
    sliced = deduce("tile.slice", src, ints(16, 32), ints(16, 0))
    assert sliced == make_tile_type((16, 32), FP16, space=Mat)
    assert deduce("tensor.slice", tensor((64, 64)), ints(16, 32), ints(48, 32), ints(10, 32)) == TensorType(
        (16, 32), FP32, (10, 32))
    assert "inside" in deduction_error("tensor.slice", tensor((64, 64)), ints(16, 32), ints(56, 0))
    target = tensor((64, 64), name="out")
    assert deduce("tensor.assemble", target, tensor((16, 64)), ints(16, 0)) == TensorType((64, 64), FP32)
    assert REGISTRY.get("tensor.assemble").effect_of(0) == WRITE


@pytest.mark.parametrize(
    ("shape", "valid", "new_shape", "expected"),
    [
        ((8, 16), (5, 16), (16, 8), (10, 8)),
        ((8, 16), (5, 16), (128,), (80,)),
        ((8, 16), (5, 16), (4, 32), None),
        ((2, 2, 2), (2, 1, 2), (2, 4), (2, 2)),
        ((2, 2, 2), (2, 1, 2), (8,), None),
        ((8, 16), (8, 5), (16, 8), None),
        ((8, 16), (0, 16), (16, 8), (0, 0)),
        ((8, 16), None, (16, 8), (16, 8)),
        ((4, 1, 8), (3, 1, 5), (4, 8), (3, 5)),
    ],
)
def test_reshape_valid_rule(shape: tuple[int, ...], valid: tuple[int, ...] | None, new_shape: tuple[int, ...],
                            expected: tuple[int, ...] | None) -> None:
    assert reshape_valid(shape, valid, new_shape) == expected


def _cells(shape: tuple[int, ...], box: tuple[int, ...]) -> set[int]:
    return {int(np.ravel_multi_index(c, shape)) for c in itertools.product(*[range(v) for v in box])}


@given(st.data())
def test_reshape_valid_matches_brute_force(data: st.DataObject) -> None:
    shape = tuple(data.draw(st.lists(st.sampled_from([1, 2, 3, 4]), min_size=1, max_size=3)))
    valid = tuple(data.draw(st.integers(0, s)) for s in shape)
    total = int(np.prod(shape))
    new_shape = data.draw(st.sampled_from([s for s in itertools.product(range(1, total + 1), repeat=2)
                                           if s[0] * s[1] == total] + [(total,)]))
    source = _cells(shape, valid)
    boxes = [b for b in itertools.product(*[range(n + 1) for n in new_shape]) if _cells(new_shape, b) == source]
    result = reshape_valid(shape, valid, new_shape)
    if not source:
        assert result == tuple(0 for _ in new_shape)
    elif boxes:
        assert result == boxes[0]
    else:
        assert result is None


def test_reshape_deduction() -> None:
    assert deduce("tensor.reshape", tensor((8, 16), valid=(5, 16)), ints(16, 8)) == TensorType((16, 8), FP32, (10, 8))
    assert "elements" in deduction_error("tensor.reshape", tensor((8, 16)), ints(16, 16))
    assert "box" in deduction_error("tensor.reshape", tensor((8, 16), valid=(5, 16)), ints(4, 32))
    acc = tile((16, 16), FP32, space=Acc)
    assert deduce("tile.reshape", acc, ints(16, 16)) == acc.type  # identity keeps the Acc layout
    assert deduce("tile.reshape", tile((16, 16), space=Vec), ints(256, 1)) == make_tile_type((256, 1), FP32, space=Vec)


def test_cast_transpose_read_write_dim() -> None:
    assert deduce("tensor.cast", tensor((16, 32)), target_type=BF16) == TensorType((16, 32), BF16)
    assert "mode" in deduction_error("tile.cast", tile((16, 32)), target_type=BF16, mode="nearest")
    assert REGISTRY.get("tile.cast").param_order == ("x", "target_type", "mode")
    assert deduce("tensor.transpose", tensor((16, 32), valid=(10, 32)), axis1=0, axis2=1) == TensorType(
        (32, 16), FP32, (32, 10))
    assert deduce("tensor.read", tensor((16, 32)), ints(0, 1)) == ScalarType(FP32)
    written = deduce("tensor.write", tensor((16, 32)), ints(0, 1), T.ConstFloat(1.0, FP32))
    assert written == TensorType((16, 32), FP32)
    assert REGISTRY.get("tensor.write").effects == (WRITE, READ, READ)
    assert deduce("tensor.dim", tensor((16, 32)), axis=1) == ScalarType(DataType.INDEX)
    assert deduce("tensor.full", ints(1, 16), T.ConstInt(-1, INT32), dtype=INT32) == TensorType((1, 16), INT32)
    assert REGISTRY.get("tensor.full").param_order == ("shape", "dtype", "value")


# -- registry-wide facts -------------------------------------------------------------------------------------


def test_every_op_is_complete() -> None:
    for op in REGISTRY:
        assert op.semantics, op.name
        assert op.family, op.name
        if op.prefix == "tile":
            assert op.pto and all(name.startswith("pto.") for name in op.pto), op.name
        assert REGISTRY.languages_admitting(op.name), op.name


def test_tensor_conversions_name_registered_tile_ops() -> None:
    compute = [op for op in REGISTRY if op.prefix == "tensor" and op.is_compute]
    assert compute
    for op in REGISTRY:
        if op.prefix != "tensor":
            continue
        if op.is_compute:
            assert op.to_tile is not None, op.name
        if op.to_tile is not None:
            for target in op.to_tile.target_ops:
                assert target in REGISTRY and target.startswith("tile."), (op.name, target)


def test_bridge_spaces_are_derived_from_the_consumer() -> None:
    matmul = REGISTRY.get("tensor.matmul").to_tile
    assert matmul is not None
    lhs, rhs = matmul.tile_inputs
    assert REGISTRY.demanded_space(lhs) == Mat and REGISTRY.demanded_space(rhs) == Mat  # staged, then moved
    assert lhs.transpose_attr == "a_trans" and lhs.cube_m_axis and rhs.cube_n_axis
    add = REGISTRY.get("tensor.add").to_tile
    assert add is not None and REGISTRY.demanded_space(add.tile_inputs[1]) == Vec
    reshape = REGISTRY.get("tensor.reshape").to_tile
    assert reshape is not None and REGISTRY.demanded_space(reshape.tile_inputs[0]) is None
    with pytest.raises(ValueError):
        REGISTRY.demanded_space(TileInput(0, ("tile.matmul_acc",)))  # Acc is never loaded
    with pytest.raises(ValueError):
        REGISTRY.bridge_space_of(("tile.matmul", "tile.add"), 0)  # disagreeing consumers
    with pytest.raises(ValueError):
        REGISTRY.bridge_space_of(("tile.reshape",), 0)  # no declared constraint
    assert staging_space_for_load(Right) == Mat and staging_space_for_load(Vec) == Vec


def test_language_admission_follows_declarations() -> None:
    assert REGISTRY.languages_admitting("tensor.add") == ("DSL", "Tensor")
    assert "TileUnplaced" in REGISTRY.languages_admitting("tensor.create")
    assert "PTO" not in REGISTRY.languages_admitting("tile.add")


# -- registry API and diagnostics -----------------------------------------------------------------------------


def test_get_suggests_close_names() -> None:
    with pytest.raises(KeyError, match="tile.add"):
        REGISTRY.get("tile.ad")
    assert "tile.add" in REGISTRY and "tile.nope" not in REGISTRY
    assert REGISTRY.names() == tuple(sorted(REGISTRY.names()))
    with pytest.raises(CompileError, match="unknown operator"):
        deduce("tile.nope", tile((16, 16)))


def test_arity_kind_and_attr_errors() -> None:
    assert "expected 2 operands" in deduction_error("tile.add", tile((16, 16)))
    assert "unknown attribute 'bogus'" in deduction_error("tile.exp", tile((16, 16)), bogus=1)
    assert "expected a bool" in deduction_error("tensor.matmul", tensor((16, 16)), tensor((16, 16)), a_trans=3)
    message = deduction_error("tile.add", tile((16, 16)), tensor((16, 16)))
    assert message.startswith("tile.add: operand 'rhs'") and "expected a tile" in message and "Tensor[" in message


def test_error_points_at_the_offending_argument() -> None:
    span = Span("k.py", 7, 12)
    bad = T.Var("y", TensorType((16, 8), FP32), span=span)
    call_span = Span("k.py", 7, 1)
    at = T.Var("c", TensorType((16, 16), FP32), span=call_span)
    with pytest.raises(CompileError) as info:
        REGISTRY.deduce("tensor.add", (tensor((16, 16)), bad), (), at=at)
    assert info.value.diagnostics[0].span == span
    with pytest.raises(CompileError) as info:
        REGISTRY.deduce("tensor.add", (tensor((16, 16)), tensor((16, 8))), (), at=at)
    assert info.value.diagnostics[0].span == call_span
    assert "k.py:7:1" in str(info.value)


def test_static_ints_and_matches_deduced() -> None:
    assert static_ints(ints(1, 2)) == (1, 2)
    assert static_ints(T.UnaryOp("-", idx(3), ScalarType(DataType.INDEX))) == (-3,)
    assert static_ints(T.TupleExpr((idx(1), T.Var("i", ScalarType(DataType.INDEX))))) is None
    deduced = make_tile_type((16, 16), FP32)
    declared = make_tile_type((16, 16), FP32, space=Vec)
    assert matches_deduced(declared, deduced)
    assert not matches_deduced(make_tile_type((16, 16), FP16, space=Vec), deduced)
    addressed = TileType((16, 16), FP32, None, Vec, implicit_view(Vec, (16, 16)), MemRef("b0", Vec, 0, 1024))
    assert matches_deduced(addressed, declared)
    assert not matches_deduced(make_tile_type((16, 16), FP32, space=Mat), declared)
