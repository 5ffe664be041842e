"""End-to-end runs of hand-written PTO programs on the simulator."""

from __future__ import annotations

import dataclasses
from typing import Iterator

import numpy as np
import pytest
from contextlib import contextmanager

from backend import numerics
from backend.numerics import hex_list
from backend.sim.executor import run_kernel, run_pto
from backend.targets.handlers import get_backend
from backend.sim.machine import Machine, PoisonRead, SimulationError
from languages.gen import pto as P
from languages.memory_space import MemorySpace
from languages.ops.pto_ops import alloc_attrs, constant_name
from languages.types import (
    AttrValue,
    DataType,
    MemRef,
    NoneType,
    ScalarType,
    TensorType,
    TileType,
    TileView,
    Type,
    ViewType,
)
from languages.views import extract_view, implicit_view

F16, F32, I32, INDEX = DataType.FP16, DataType.FP32, DataType.INT32, DataType.INDEX
NONE = NoneType()


class KernelBuilder:
    """Writes PTO-language statements the way PTOCodegen lays them out."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.params: list[P.Param] = []
        self.blocks: list[list[P.Stmt]] = [[]]
        self.constants: dict[str, P.Var] = {}

    @property
    def body(self) -> list[P.Stmt]:
        return self.blocks[-1]

    def emit(self, stmt: P.Stmt) -> None:
        self.body.append(stmt)

    @contextmanager
    def block(self) -> Iterator[list[P.Stmt]]:
        self.blocks.append([])
        try:
            yield self.blocks[-1]
        finally:
            self.blocks.pop()

    def param(self, name: str, ty: Type, direction: str = "In") -> P.Var:
        var = P.Var(name, ty)
        self.params.append(P.Param(var, direction))
        return var

    def const(self, value: int, dtype: DataType = INDEX) -> P.Var:
        name = constant_name(value, dtype)
        if name not in self.constants:
            var = P.Var(name, ScalarType(dtype))
            self.blocks[0].append(P.AssignStmt(var, P.Call("arith.constant", (P.ConstInt(value, dtype),), (),
                                                           ScalarType(dtype))))
            self.constants[name] = var
        return self.constants[name]

    def fconst(self, name: str, value: float, dtype: DataType = F32) -> P.Var:
        var = P.Var(name, ScalarType(dtype))
        self.emit(P.AssignStmt(var, P.Call("arith.constant", (P.ConstFloat(value, dtype),), (), ScalarType(dtype))))
        return var

    def value(self, name: str, op: str, args: tuple[P.Expr, ...], ty: Type,
              attrs: tuple[tuple[str, AttrValue], ...] = ()) -> P.Var:
        var = P.Var(name, ty)
        self.emit(P.AssignStmt(var, P.Call(op, args, attrs, ty)))
        return var

    def tensor_view(self, tensor: P.Var, layout: str = "nd") -> P.Var:
        ty = tensor.type
        assert isinstance(ty, TensorType)
        shape = P.TupleExpr(tuple(self.const(d) for d in ty.shape))
        # A "dn" view declares column-major strides [1, rows]: the strides decide addressing.
        order = (1, ty.shape[0]) if layout == "dn" else (ty.shape[1], 1)
        strides = P.TupleExpr(tuple(self.const(x) for x in order))
        return self.value(f"{tensor.name}_view", "pto.make_tensor_view", (tensor, shape, strides),
                          ViewType("tensor_view", ty.shape, ty.dtype), (("layout", layout),))

    def partition(self, name: str, view: P.Var, offsets: tuple[P.Var, ...], sizes: tuple[int, ...]) -> P.Var:
        vty = view.type
        assert isinstance(vty, ViewType)
        return self.value(name, "pto.partition_view", (view, P.TupleExpr(offsets)),
                          ViewType("partition_tensor_view", sizes, vty.dtype), (("sizes", sizes),))

    def alloc(self, name: str, space: MemorySpace, shape: tuple[int, int], dtype: DataType, addr: int,
              valid: tuple[int, int] | None = None, view: TileView | None = None) -> P.Var:
        view = view if view is not None else implicit_view(space, shape)
        nbytes = shape[0] * shape[1] * dtype.byte_width
        tile = TileType(shape, dtype, valid, space, view, MemRef(f"mem_{name}", space, addr, nbytes))
        return self.value(name, "pto.alloc_tile", (self.const(addr, DataType.INT64),), tile, alloc_attrs(tile))

    def instr(self, op: str, *args: P.Expr, **attrs: AttrValue) -> None:
        self.emit(P.EvalStmt(P.Call(op, tuple(args), tuple(attrs.items()), NONE)))

    def function(self) -> P.Function:
        assert len(self.blocks) == 1
        return P.Function(self.name, "InCore", tuple(self.params), (), tuple(self.body) + (P.ReturnStmt(()),), ())

    def program(self) -> P.Program:
        return P.Program(self.name, (self.function(),), "")


# -- vector kernels ------------------------------------------------------------------------------


def softmax_kernel(rows: int, cols: int) -> P.Program:
    """out = exp(x - rowmax(x)) / rowsum(...)  (the softmax-over-rows example)."""
    k = KernelBuilder("softmax")
    x = k.param("x", TensorType((rows, cols), F32))
    out = k.param("out", TensorType((rows, cols), F32), "Out")
    xv, ov = k.tensor_view(x), k.tensor_view(out)
    nbytes = rows * cols * 4
    t = k.alloc("t", MemorySpace.Vec, (rows, cols), F32, 0)
    m = k.alloc("m", MemorySpace.Vec, (rows, 1), F32, nbytes)
    s = k.alloc("s", MemorySpace.Vec, (rows, 1), F32, nbytes + 128)
    e = k.alloc("e", MemorySpace.Vec, (rows, cols), F32, nbytes + 256)
    zero = k.const(0)
    src = k.partition("px", xv, (zero, zero), (rows, cols))
    k.instr("pto.tload", src, t)
    k.instr("pto.trowmax", t, e, m)  # e doubles as the reduction scratch tile
    k.instr("pto.trowexpandsub", t, m, e)
    k.instr("pto.texp", e, e)
    k.instr("pto.trowsum", e, t, s)
    k.instr("pto.trowexpanddiv", e, s, t)
    dst = k.partition("po", ov, (zero, zero), (rows, cols))
    k.instr("pto.tstore", t, dst)
    return k.program()


def softmax_reference(x: np.ndarray) -> np.ndarray:
    m = numerics.row_max(x, "FP32").reshape(-1, 1)
    e = numerics.unary("exp", numerics.binary("sub", x, np.broadcast_to(m, x.shape), "FP32"), "FP32")
    s = numerics.row_sum(e, "FP32").reshape(-1, 1)
    return numerics.binary("div", e, np.broadcast_to(s, x.shape), "FP32")


def test_softmax_is_bit_exact() -> None:
    rng = np.random.default_rng(7)
    x = (rng.standard_normal((16, 64)) * 4).astype(np.float32)
    result = run_pto(softmax_kernel(16, 64), {"x": x}, "Ascend910B")
    assert set(result) == {"out"}
    assert hex_list(result["out"], "FP32") == hex_list(softmax_reference(x), "FP32")


def add_kernel(dtype: DataType, op: str = "pto.tadd", valid: tuple[int, int] | None = None, pad: str = "null",
               addr_b: int = 4096, layout_a: str = "nd") -> P.Program:
    k = KernelBuilder("add")
    a = k.param("a", TensorType((16, 16), dtype))
    b = k.param("b", TensorType((16, 16), dtype))
    out = k.param("out", TensorType((16, 16), dtype), "Out")
    av, bv, ov = k.tensor_view(a, layout_a), k.tensor_view(b), k.tensor_view(out)
    ta = k.alloc("ta", MemorySpace.Vec, (16, 16), dtype, 0, valid, TileView(pad=pad))
    tb = k.alloc("tb", MemorySpace.Vec, (16, 16), dtype, addr_b)
    tc = k.alloc("tc", MemorySpace.Vec, (16, 16), dtype, 8192)
    zero = k.const(0)
    sizes = valid if valid is not None else (16, 16)
    k.instr("pto.tload", k.partition("pa", av, (zero, zero), sizes), ta)
    k.instr("pto.tload", k.partition("pb", bv, (zero, zero), (16, 16)), tb)
    k.instr(op, ta, tb, tc)
    k.instr("pto.tstore", tc, k.partition("po", ov, (zero, zero), (16, 16)))
    return k.program()


def test_elementwise_add_and_inout_results() -> None:
    a = np.arange(256, dtype=np.float32).reshape(16, 16) / 7
    b = np.full((16, 16), 0.1, dtype=np.float32)
    out = run_pto(add_kernel(F32), {"a": a, "b": b}, "Ascend910B")["out"]
    assert hex_list(out, "FP32") == hex_list(numerics.binary("add", a, b, "FP32"), "FP32")


def test_poison_read_of_unloaded_region() -> None:
    # ta's valid region is [16, 8]: the load fills only that and pad null leaves the rest
    # poisoned; the add reads the destination's full [16, 16] valid region from ta.
    a = np.ones((16, 16), dtype=np.float32)
    with pytest.raises(PoisonRead) as info:
        run_pto(add_kernel(F32, valid=(16, 8)), {"a": a, "b": a}, "Ascend910B")
    assert (info.value.instruction, info.value.tile, info.value.element) == ("pto.tadd", "ta", (0, 8))
    # A zero pad fills the rest of the tile: the add then sees 0 + 1 there.
    out = run_pto(add_kernel(F32, valid=(16, 8), pad="zero"), {"a": a, "b": a}, "Ascend910B")["out"]
    assert out[:, :8].tolist() == [[2.0] * 8] * 16 and out[:, 8:].tolist() == [[1.0] * 8] * 16


def test_tensor_view_strides_decide_where_elements_live_in_gm() -> None:
    # The host hands over a row-major buffer; a view with column-major strides [1, 16] reads
    # element (r, c) at c * 16 + r of it, so the kernel sees the transpose: a wrong stride in
    # an emitted view changes the result.
    a = np.arange(256, dtype=np.float32).reshape(16, 16)
    b = np.zeros((16, 16), dtype=np.float32)
    machine = Machine(get_backend("Ascend910B"))
    out = run_kernel(add_kernel(F32, layout_a="dn").functions[0], {"a": a, "b": b}, "Ascend910B",
                     machine=machine)["out"]
    assert np.array_equal(out, a.T)
    assert np.array_equal(machine.gm["a"].data.view(np.float32), a.reshape(-1))  # the host's buffer, untouched
    plain = run_kernel(add_kernel(F32).functions[0], {"a": a, "b": b}, "Ascend910B")["out"]
    assert np.array_equal(plain, a)


def test_misaligned_address_is_reported() -> None:
    k = KernelBuilder("misaligned")
    k.alloc("t", MemorySpace.Vec, (1, 16), F32, 64)
    with pytest.raises(SimulationError, match="tile t in Vec at addr 64 is not aligned to the space's 128-byte"):
        run_pto(k.program(), {}, "Ascend910B")


def test_overlapping_buffers_corrupt_data() -> None:
    a = np.ones((16, 16), dtype=np.float32)
    b = np.full((16, 16), 2.0, dtype=np.float32)
    # tb placed on top of ta: the second load overwrites the first.
    out = run_pto(add_kernel(F32, addr_b=0), {"a": a, "b": b}, "Ascend910B")["out"]
    assert (out == 4.0).all()


def test_integer_division_by_zero_is_reported() -> None:
    a = np.ones((16, 16), dtype=np.int32)
    b = np.ones((16, 16), dtype=np.int32)
    b[3, 5] = 0
    with pytest.raises(SimulationError, match=r"pto\.tdiv.*division by zero at element 53"):
        run_pto(add_kernel(I32, op="pto.tdiv"), {"a": a, "b": b}, "Ascend910B")


def test_address_beyond_capacity_is_reported() -> None:
    k = KernelBuilder("oob")
    x = k.param("x", TensorType((64, 64), F32))
    view = k.tensor_view(x)
    tile = k.alloc("t", MemorySpace.Vec, (64, 64), F32, 188416 - 4096)
    zero = k.const(0)
    k.instr("pto.tload", k.partition("p", view, (zero, zero), (64, 64)), tile)
    with pytest.raises(SimulationError, match=r"tile t in Vec at addr 184320 with size 16384 bytes.*188416"):
        run_pto(k.program(), {"x": np.zeros((64, 64), dtype=np.float32)}, "Ascend910B")


# -- cube kernels ----------------------------------------------------------------------------------


def matmul_kernel(m: int, m_box: int, k_total: int, n: int, k_step: int, acc_rows: int,
                  compact: bool) -> P.Program:
    """c[m, n] = a[m, K] @ b[K, n], K-tiled into a pipelined loop of predicated matmul_acc."""
    kb = KernelBuilder("matmul")
    a = kb.param("a", TensorType((m, k_total), F16))
    b = kb.param("b", TensorType((k_total, n), F16))
    c = kb.param("c", TensorType((m, n), F32), "Out")
    av, bv, cv = kb.tensor_view(a), kb.tensor_view(b), kb.tensor_view(c)
    a_mat = kb.alloc("a_mat", MemorySpace.Mat, (m_box, k_total), F16, 0, (m, k_total))
    b_mat = kb.alloc("b_mat", MemorySpace.Mat, (k_total, n), F16, m_box * k_total * 2)
    left = kb.alloc("left", MemorySpace.Left, (m_box, k_step), F16, 0, (m, k_step), extract_view(MemorySpace.Left))
    right = kb.alloc("right", MemorySpace.Right, (k_step, n), F16, 0, None, extract_view(MemorySpace.Right))
    acc_view = TileView("col_major", "row_major", 1024, compact=compact)
    acc = kb.alloc("acc", MemorySpace.Acc, (acc_rows, n), F32, 0, (m, n), acc_view)
    zero, step = kb.const(0), kb.const(k_step)
    kb.instr("pto.tload", kb.partition("pa", av, (zero, zero), (m, k_total)), a_mat)
    kb.instr("pto.tload", kb.partition("pb", bv, (zero, zero), (k_total, n)), b_mat)
    ko = P.Var("ko", ScalarType(INDEX))
    acc_iter = P.Var("acc_iter", acc.type)
    with kb.block() as body:
        kb.instr("pto.textract", a_mat, zero, ko, left)
        kb.instr("pto.textract", b_mat, ko, zero, right)
        first = kb.value("first", "arith.cmpi", (ko, zero), ScalarType(DataType.BOOL), (("predicate", "eq"),))
        with kb.block() as then_body:
            kb.instr("pto.tmatmul", left, right, acc_iter)
            kb.emit(P.YieldStmt((acc_iter,)))
        with kb.block() as else_body:
            kb.instr("pto.tmatmul.acc", acc_iter, left, right, acc_iter)
            kb.emit(P.YieldStmt((acc_iter,)))
        acc_next = P.Var("acc_next", acc.type)
        kb.emit(P.IfStmt(first, tuple(then_body), tuple(else_body), (acc_next,)))
        kb.emit(P.YieldStmt((acc_next,)))
    acc_out = P.Var("acc_out", acc.type)
    kb.emit(P.ForStmt(ko, zero, kb.const(k_total), step, (P.IterArg(acc_iter, acc),), tuple(body), (acc_out,),
                      "pipeline", (("stage", 2),)))
    kb.instr("pto.tstore", acc_out, kb.partition("pc", cv, (zero, zero), (m, n)))
    return kb.program()


def matmul_inputs(m: int, k: int, n: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(11)
    return {"a": rng.standard_normal((m, k)).astype(np.float16), "b": rng.standard_normal((k, n)).astype(np.float16)}


@pytest.mark.parametrize(("m", "m_box"), [(32, 32), (20, 32)])
def test_k_tiled_matmul_is_bit_exact(m: int, m_box: int) -> None:
    inputs = matmul_inputs(m, 64, 32)
    program = matmul_kernel(m, m_box, 64, 32, 32, m_box, compact=m != m_box)
    c = run_pto(program, inputs, "Ascend910B")["c"]
    expected = numerics.matmul(inputs["a"], inputs["b"], np.zeros((m, 32), dtype=np.float32), "FP16")
    assert hex_list(c, "FP32") == hex_list(expected, "FP32")


def test_row_narrowed_accumulator_needs_compact() -> None:
    """A 16-row product in a 64-row L0C box: MAD writes at pitch 16, so a non-compact reader
    (pitch 64) reads every N-fractal above the first from bytes MAD never wrote."""
    inputs = matmul_inputs(16, 32, 32)
    expected = numerics.matmul(inputs["a"], inputs["b"], np.zeros((16, 32), dtype=np.float32), "FP16")
    good = run_pto(matmul_kernel(16, 16, 32, 32, 32, 64, compact=True), inputs, "Ascend910B")["c"]
    assert hex_list(good, "FP32") == hex_list(expected, "FP32")
    with pytest.raises(PoisonRead, match=r"pto\.tstore reads acc_out\[0, 16\]"):
        run_pto(matmul_kernel(16, 16, 32, 32, 32, 64, compact=False), inputs, "Ascend910B")
    wrong = run_pto(matmul_kernel(16, 16, 32, 32, 32, 64, compact=False), inputs, "Ascend910B", checked=False)["c"]
    assert hex_list(wrong[:, :16], "FP32") == hex_list(expected[:, :16], "FP32")
    assert hex_list(wrong[:, 16:], "FP32") != hex_list(expected[:, 16:], "FP32")


# -- entry-point errors ------------------------------------------------------------------------------


def test_entry_point_errors() -> None:
    program = add_kernel(F32)
    two = P.Program("two", (program.functions[0], dataclasses.replace(program.functions[0], name="add2")), "")
    with pytest.raises(SimulationError, match="run_kernel"):
        run_pto(two, {}, "Ascend910B")
    with pytest.raises(SimulationError, match=r"inputs \['zz'\] are not parameters"):
        run_pto(program, {"zz": np.zeros(1)}, "Ascend910B")
    with pytest.raises(SimulationError, match="needs an input for tensor parameter 'b'"):
        run_pto(program, {"a": np.zeros((16, 16), dtype=np.float32)}, "Ascend910B")
    with pytest.raises(SimulationError, match="dtype float64"):
        run_pto(program, {"a": np.zeros((16, 16)), "b": np.zeros((16, 16))}, "Ascend910B")


def test_run_kernel_accepts_raw_bit_patterns() -> None:
    program = add_kernel(DataType.BF16)
    one = np.full((16, 16), 0x3F80, dtype=np.uint16)  # bf16 1.0 as bits, as npz delivers them
    out = run_kernel(program.functions[0], {"a": one, "b": one}, "Ascend910B")["out"]
    assert set(hex_list(out, "BF16")) == {"0x4000"}
