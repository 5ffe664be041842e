"""Every call the generator makes conditions the operands an op reads in a domain on integer data
(a shift count in [0, width), a nonzero divisor), not only the registry step's operand draw: a
recipe that calls an op itself (padding_read's element-wise op over a narrowed parameter) handed
raw random data to tensor.shl's count, and the reference faulted instead of comparing. On A2/A3 a
32-bit count cannot be masked (tands takes no 32-bit elements): it is shifted into range."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from backend import numerics as nm
from backend.fuzzing.generator import Features, _KernelBuilder
from languages.gen import tensor as T
from languages.ops import REGISTRY
from languages.types import DataType, TensorType


def _never_drawn(strategy: Any) -> Any:
    raise AssertionError("a direct call draws nothing")


def _chain(builder: _KernelBuilder, var: T.Expr) -> list[T.Call]:
    """The scalar steps that made `var` from a parameter, first step first."""
    calls = {stmt.target.name: stmt.value for stmt in builder.body
             if isinstance(stmt, T.AssignStmt) and isinstance(stmt.value, T.Call)}
    steps: list[T.Call] = []
    while isinstance(var, T.Var) and var.name in calls:
        steps.insert(0, calls[var.name])
        var = calls[var.name].args[0]
    return steps


def _run(steps: list[T.Call], data: np.ndarray, dtype: str) -> np.ndarray:
    """The steps on `data` under the reference numerics (the registry's semantics key per op)."""
    for step in steps:
        scalar = step.args[1]
        assert isinstance(scalar, T.ConstInt)
        data = nm.scalar_binary(str(REGISTRY.get(step.op).semantics[1]), data, scalar.value, dtype)
    return data


CASES = [("tensor.shl", "a2a3", DataType.INT32), ("tensor.shr", "a2a3", DataType.UINT32),
         ("tensor.shl", "a2a3", DataType.INT16), ("tensor.shl", "a5", DataType.INT32),
         ("tensor.div", "a5", DataType.INT32), ("tensor.shl", "a2a3", DataType.UINT8)]


@pytest.mark.parametrize(("op", "arch", "dtype"), CASES)
def test_a_recipes_own_call_conditions_the_domain_operand(op: str, arch: str, dtype: DataType) -> None:
    builder = _KernelBuilder(_never_drawn, Features(), "kernel0", arch=arch)
    ty = TensorType((16, 16), dtype)
    value, count = builder.param(ty), builder.param(ty)
    builder.call(op, (value, count))
    call = builder.body[-1]
    assert isinstance(call, T.AssignStmt) and isinstance(call.value, T.Call) and call.value.op == op
    assert _chain(builder, call.value.args[0]) == []  # the first operand has no domain
    steps = _chain(builder, call.value.args[1])
    assert steps, "the count / divisor was not conditioned"
    np_dtype = np.dtype(dtype.name.lower())
    info = np.iinfo(np_dtype)
    corners = np.array([info.min, info.max, 0, 1, -1 if info.min < 0 else 2, info.min + 1], dtype=np_dtype)
    random = np.random.default_rng(5).integers(info.min, info.max, size=500, dtype=np_dtype, endpoint=True)
    out = _run(steps, np.concatenate([corners, random]), dtype.name).astype(np.int64)
    if op == "tensor.div":
        assert (out != 0).all()
    else:
        assert ((0 <= out) & (out < dtype.bits)).all()
        assert len(set(out.tolist())) > dtype.bits // 2  # still random data, not a constant


def test_a_conditioned_value_is_not_conditioned_again_and_floats_are_left_alone() -> None:
    builder = _KernelBuilder(_never_drawn, Features(), "kernel0", arch="a5")
    ints = TensorType((16, 16), DataType.INT32)
    value, count = builder.param(ints), builder.param(ints)
    builder.call("tensor.shl", (value, count))
    first = builder.body[-1]
    assert isinstance(first, T.AssignStmt) and isinstance(first.value, T.Call)
    size = len(builder.body)
    builder.call("tensor.shl", (value, first.value.args[1]))
    assert len(builder.body) == size + 1
    floats = TensorType((16, 16), DataType.FP32)
    a, b = builder.param(floats), builder.param(floats)
    builder.call("tensor.div", (a, b))
    assert len(builder.body) == size + 2


@pytest.mark.parametrize(("arch", "shape", "dtype", "fits"), [
    ("a5", (256, 256), DataType.FP32, True),    # stays in Acc: A5's 256 KiB L0C holds it
    ("a5", (256, 256), DataType.FP16, False),   # converted in Vec: 256 KiB + 128 KiB > 240 KiB
    ("a5", (200, 256), DataType.FP16, False),
    ("a5", (128, 256), DataType.FP16, True),
    ("a2a3", (256, 256), DataType.FP32, True),   # past 910B's 128 KiB L0C: its view stored per output tile
    ("a2a3", (256, 256), DataType.FP16, False),  # converted in Vec, from an accumulator past L0C
    ("a2a3", (128, 128), DataType.FP16, True),
])
def test_a_revalidated_product_is_drawn_only_where_its_route_fits(arch: str, shape: tuple[int, int],
                                                                  dtype: DataType, fits: bool) -> None:
    # Two Ascend950 findings: a [256, 256] FP16 product re-validated by set_validshape is moved
    # to Vec to be converted, and the accumulator alone is over A5's Vec.
    builder = _KernelBuilder(_never_drawn, Features(), "kernel0", arch=arch)
    assert builder.revalidation_fits(TensorType(shape, dtype)) is fits


def test_an_in_place_update_through_a_re_view_retires_the_viewed_value() -> None:
    # matmul_acc(set_validshape(c3, 1, 1), a, b) updates c3's accumulator in place; a kernel that
    # then returned c3 too needed an Acc -> Acc copy Ascend910B has no path for (finding
    # dcf4bca3c3, a located refusal the generator should not draw).
    builder = _KernelBuilder(_never_drawn, Features(), "kernel0", arch="a2a3")
    operand = TensorType((16, 16), DataType.FP16)
    a, b, a2, b2 = (builder.param(operand) for _ in range(4))
    product = builder.call("tensor.matmul", (a, b), (("out_dtype", DataType.FP32),))
    narrowed = builder.call("tensor.set_validshape", (product, T.ConstInt(1, DataType.INDEX),
                                                      T.ConstInt(1, DataType.INDEX)))
    builder.call("tensor.matmul_acc", (narrowed, a2, b2))
    assert {product.name, narrowed.name} <= builder.updated
    assert not builder.usable(product) and not builder.usable(narrowed)


def test_a_move_of_an_unplaced_tile_is_drawn_only_to_a_space_it_can_reach() -> None:
    # An unplaced load lands in Vec (or Mat, for a cube operand); neither reaches Acc on
    # Ascend910B, where a drawn tile.move of it to Acc was a located refusal (finding ffcfbacb8f).
    from backend.fuzzing.registry_calls import Pool, _Drawer
    from languages.memory_space import MemorySpace
    from languages.ops import REGISTRY
    from languages.types import TileType

    move = REGISTRY.get("tile.move")
    unplaced = T.Var("l2", TileType((1, 16), DataType.INT32))
    for arch, target, refused in (("a2a3", MemorySpace.Acc, True), ("a2a3", MemorySpace.Left, False),
                                  ("a2a3", MemorySpace.Vec, False)):
        drawer = _Drawer(lambda low, high: low, move, Pool([unplaced], lambda ty: None, arch=arch))
        result = TileType((1, 16), DataType.INT32, memory_space=target)
        assert drawer.unconnected_move(move, (unplaced,), {"target_memory": target}, result) is refused, target


def test_a_tile_window_is_never_reshaped() -> None:
    # A placed reshape is a handle at its source buffer's base, so ViewLegality refuses one over a
    # tile.slice window; the generator drew it and its own program was refused (finding fa693a3b29).
    from backend.fuzzing.generator import TargetRuleMiss
    from languages.memory_space import MemorySpace

    builder = _KernelBuilder(_never_drawn, Features(), "kernel0", arch="a2a3")
    x = builder.param(TensorType((1, 16), DataType.INT32))
    loaded = builder.load(x, MemorySpace.Vec)
    index = DataType.INDEX
    window = builder.call("tile.slice", (loaded, T.TupleExpr((T.ConstInt(1, index), T.ConstInt(1, index))),
                                         T.TupleExpr((T.ConstInt(0, index), T.ConstInt(0, index)))))
    assert builder.reshapes_a_window("tile.reshape", (window,))
    assert not builder.reshapes_a_window("tile.reshape", (loaded,))
    with pytest.raises(TargetRuleMiss):
        builder.call("tile.reshape", (window, T.TupleExpr((T.ConstInt(1, index), T.ConstInt(1, index)))))
