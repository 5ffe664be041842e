"""ConvertTensorToTileOps sequence: convert-tensor-to-tile-ops, update-orchestration-call-sites,
upgrade-param-directions (and the IncoreTileOps / CallSitesComplete verifiers)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import languages.gen.tensor as T
import languages.gen.tile_unplaced as U
from languages.memory_space import MemorySpace
from languages.pl_parser import parse_program_as
from languages.pl_printer import print_program
from languages.types import TensorType, TileType, attr
from nanopass.diagnostics import CompileError
from nanopass.node import walk
from nanopass.passes import PassContext
from passes.convert_tensor_to_tile_ops import ConvertTensorToTileOps
from tests.test_slot_reads_before_free import KERNEL as SLOT_WINDOW_KERNEL
from passes.update_orchestration_call_sites import UpdateOrchestrationCallSites
from passes.upgrade_param_directions import UpgradeParamDirections
from verifiers import call_sites_complete, grammar, incore_tile_ops, ssa_form, type_checked

HEADER = "@pl.program\nclass P:\n"


def tensor_program(body: str) -> T.Program:
    return parse_program_as(HEADER + body, T.Program)


def convert(program: T.Program) -> U.Program:
    ctx = PassContext()
    tiled = ConvertTensorToTileOps().run(program, ctx)
    tiled = UpdateOrchestrationCallSites().run(tiled, ctx)
    return UpgradeParamDirections().run(tiled, ctx)


def assert_verified(program: U.Program) -> None:
    for verifier in (grammar.verify, type_checked.verify, incore_tile_ops.verify, ssa_form.verify,
                     call_sites_complete.verify):
        problems = verifier(program)
        assert not problems, "\n".join(d.format() for d in problems)


def function(program: U.Program, name: str) -> U.Function:
    return next(f for f in program.functions if f.name == name)


def calls(fn: Any, op: str) -> list[U.Call]:
    return [n for n in walk(fn) if isinstance(n, U.Call) and n.op == op]


SPEC_EXAMPLE = """
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y: pl.Tensor[[64], pl.FP32] = pl.add(x, x)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y: pl.Tensor[[64], pl.FP32] = self.main_incore_0(x)
        return y
"""

SPEC_AFTER = """\
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(self, x: pl.Tensor[[64], pl.FP32], ret0_out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        x_tile: pl.Tile[[64], pl.FP32] = pl.tile.load(x, [0], [64])
        y_tile: pl.Tile[[64], pl.FP32] = pl.tile.add(x_tile, x_tile)
        ret0_store: pl.Tensor[[64], pl.FP32] = pl.tile.store(y_tile, [0], ret0_out)
        return ret0_store

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        ret0_out: pl.Tensor[[64], pl.FP32] = pl.tensor.create([64], dtype=pl.FP32)
        y: pl.Tensor[[64], pl.FP32] = self.main_incore_0(x, ret0_out)
        return y
"""


def test_spec_example_reproduced() -> None:
    out = convert(tensor_program(SPEC_EXAMPLE))
    assert_verified(out)
    assert SPEC_AFTER in print_program(out)


def test_convert_alone_leaves_call_sites_for_the_next_pass() -> None:
    tiled = ConvertTensorToTileOps().run(tensor_program(SPEC_EXAMPLE), PassContext())
    assert not incore_tile_ops.verify(tiled)
    problems = call_sites_complete.verify(tiled)
    assert len(problems) == 1 and "missing ret0_out" in problems[0].message


def test_incore_tile_ops_verifier_flags_tensor_compute() -> None:
    problems = incore_tile_ops.verify(tensor_program(SPEC_EXAMPLE))
    assert len(problems) == 1
    assert "tensor.add" in problems[0].message and problems[0].span.line == 6


def test_read_only_param_shares_one_entry_load() -> None:
    program = tensor_program("""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        a: pl.Tensor[[16, 32], pl.FP32] = pl.add(x, x)
        b: pl.Tensor[[16, 32], pl.FP32] = pl.mul(a, x)
        c: pl.Tensor[[16, 32], pl.FP32] = pl.exp(x)
        d: pl.Tensor[[16, 32], pl.FP32] = pl.sub(b, c)
        return d
""")
    out = convert(program)
    assert_verified(out)
    k = function(out, "k")
    loads = calls(k, "tile.load")
    assert len(loads) == 1
    assert isinstance(k.body[0], U.AssignStmt) and k.body[0].value is loads[0]
    # Element-wise demand is the default (Vec): the load stays unplaced for InferTileMemorySpace.
    assert attr(loads[0].attrs, "target_memory") is None
    assert isinstance(loads[0].type, TileType) and loads[0].type.memory_space is None
    assert [p.var.name for p in k.params] == ["x", "ret0_out"]
    assert [p.direction for p in k.params] == ["In", "Out"]


def test_mutable_param_loaded_per_use_and_gm_write_kept() -> None:
    program = tensor_program("""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 32], pl.FP32], out: pl.Tensor[[16, 1], pl.FP32]) -> pl.Tensor[[16, 1], pl.FP32]:
        r: pl.Tensor[[16, 1], pl.FP32] = pl.row_max(x)
        out2: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.assemble(out, r, [0, 0])
        x2: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.write(x, [0, 0], pl.const(1.0, pl.FP32))
        s: pl.Tensor[[16, 1], pl.FP32] = pl.row_sum(x)
        out3: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.assemble(out2, s, [0, 0])
        return out3
""")
    out = convert(program)
    assert_verified(out)
    k = function(out, "k")
    loads = calls(k, "tile.load")
    assert len(loads) == 2, "x is written: each use reloads it"
    ops = [s.value.op for s in k.body if isinstance(s, U.AssignStmt) and isinstance(s.value, U.Call)]
    assert ops == ["tile.load", "tile.row_max", "tile.store", "tensor.write", "tile.load", "tile.row_sum", "tile.store"]
    # No tile was returned: no Out param was added; the GM params were upgraded by their effects.
    assert [(p.var.name, p.direction) for p in k.params] == [("x", "InOut"), ("out", "Out")]


def test_matmul_operands_load_to_mat_with_m_and_n_boxing() -> None:
    program = tensor_program("""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[100, 256], pl.FP16], b: pl.Tensor[[256, 120], pl.FP16]) -> pl.Tensor[[100, 120], pl.FP32]:
        y: pl.Tensor[[100, 120], pl.FP32] = pl.matmul(a, b, out_dtype=pl.FP32)
        return y
""")
    out = convert(program)
    assert_verified(out)
    text = print_program(out)
    assert "pl.tile.load(a, [0, 0], [112, 256], [100, 256], target_memory=pl.Mem.Mat)" in text
    assert "pl.tile.load(b, [0, 0], [256, 128], [256, 120], target_memory=pl.Mem.Mat)" in text
    (matmul,) = calls(function(out, "k"), "tile.matmul")
    assert isinstance(matmul.type, TileType)
    assert matmul.type.shape == (112, 128) and matmul.type.valid == (100, 120)


def test_a_trans_boxes_m_on_columns_and_uses_transpose_view() -> None:
    program = tensor_program("""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[128, 100], pl.FP16], b: pl.Tensor[[128, 64], pl.FP16]) -> pl.Tensor[[100, 64], pl.FP32]:
        y: pl.Tensor[[100, 64], pl.FP32] = pl.matmul(a, b, a_trans=True, out_dtype=pl.FP32)
        return y
""")
    out = convert(program)
    assert_verified(out)
    text = print_program(out)
    assert "pl.tile.load(a, [0, 0], [128, 112], [128, 100], target_memory=pl.Mem.Mat)" in text
    (view,) = calls(function(out, "k"), "tile.transpose_view")
    assert isinstance(view.type, TileType) and view.type.shape == (112, 128) and view.type.valid == (100, 128)


def test_slice_feeding_matmul_acc_in_split_k_loop() -> None:
    program = tensor_program("""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[256, 100], pl.INT8], b: pl.Tensor[[64, 256], pl.INT8]) -> pl.Tensor[[100, 64], pl.INT32]:
        acc: pl.Tensor[[100, 64], pl.INT32] = pl.create_tensor([100, 64], dtype=pl.INT32)
        for ko, (c_iter,) in pl.range(0, 256, 64, init_values=(acc,)):
            sa: pl.Tensor[[64, 100], pl.INT8] = pl.slice(a, [64, 100], [ko, 0])
            sb: pl.Tensor[[64, 64], pl.INT8] = pl.slice(b, [64, 64], [0, ko])
            c_next: pl.Tensor[[100, 64], pl.INT32] = pl.matmul_acc(c_iter, sa, sb, a_trans=True, b_trans=True)
            c: pl.Tensor[[100, 64], pl.INT32] = pl.yield_(c_next)
        return c
""")
    out = convert(program)
    assert_verified(out)
    k = function(out, "k")
    text = print_program(out)
    # INT8 transposed operand: M on columns, box 32 / sizeof(i8) = 32 columns; the accumulator
    # adopts the same 32-row alignment (lcm with its own 16) and is compact.
    assert "pl.tile.create([128, 64], dtype=pl.INT32, target_memory=pl.Mem.Acc, compact=True)" in text
    assert "pl.tile.set_validshape(acc_storage, 100, 64)" in text
    assert "pl.tile.load(a, [ko, 0], [64, 128], [64, 100], target_memory=pl.Mem.Mat)" in text
    assert "pl.tile.load(b, [0, ko], [64, 64], target_memory=pl.Mem.Mat)" in text
    assert len(calls(k, "tile.transpose_view")) == 2
    (acc,) = calls(k, "tile.matmul_acc")
    assert isinstance(acc.type, TileType) and acc.type.memory_space is MemorySpace.Acc
    assert acc.type.view is not None and acc.type.view.compact


def test_set_validshape_chain_carries_mat_demand_to_param() -> None:
    program = tensor_program("""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 128], pl.FP16], b: pl.Tensor[[128, 64], pl.FP16]) -> pl.Tensor[[64, 64], pl.FP32]:
        av: pl.Tensor[[64, 128], pl.FP16, pl.TensorView(valid_shape=[50, 128])] = pl.tensor.set_validshape(a, 50, 128)
        y: pl.Tensor[[64, 64], pl.FP32, pl.TensorView(valid_shape=[50, 64])] = pl.matmul(av, b, out_dtype=pl.FP32)
        return y
""")
    out = convert(program)
    assert_verified(out)
    loads = calls(function(out, "k"), "tile.load")
    assert [attr(ld.attrs, "target_memory") for ld in loads] == [MemorySpace.Mat, MemorySpace.Mat]


def test_row_broadcast_and_scalar_dispatch() -> None:
    program = tensor_program("""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        m: pl.Tensor[[16, 1], pl.FP32] = pl.row_max(x)
        d: pl.Tensor[[16, 32], pl.FP32] = pl.sub(x, m)
        e: pl.Tensor[[16, 32], pl.FP32] = pl.maximum(d, pl.const(0.0, pl.FP32))
        return e
""")
    out = convert(program)
    assert_verified(out)
    ops = [c.op for c in walk(function(out, "k")) if isinstance(c, U.Call)]
    assert ops == ["tile.load", "tile.row_max", "tile.row_expand_sub", "tile.maximums", "tile.store"]


def test_local_create_becomes_unplaced_tile_and_loop_carry_is_tile() -> None:
    program = tensor_program("""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        z: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.full([16, 32], pl.FP32, pl.const(0.0, pl.FP32))
        for i, (acc,) in pl.range(4, init_values=(z,)):
            nxt: pl.Tensor[[16, 32], pl.FP32] = pl.add(acc, x)
            r: pl.Tensor[[16, 32], pl.FP32] = pl.yield_(nxt)
        return r
""")
    out = convert(program)
    assert_verified(out)
    k = function(out, "k")
    loop = next(s for s in k.body if isinstance(s, U.ForStmt))
    assert isinstance(loop.iter_args[0].var.type, TileType)
    assert isinstance(loop.results[0].type, TileType)
    assert len(calls(k, "tile.load")) == 1  # x is read-only: one entry load, outside the loop
    assert isinstance(k.body[0], U.AssignStmt) and isinstance(k.body[0].value, U.Call)
    assert k.body[0].value.op == "tile.load"


def test_orchestration_call_sites_get_fresh_out_tensors_per_call() -> None:
    program = tensor_program("""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        y: pl.Tensor[[16, 32], pl.FP32] = pl.exp(x)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        a: pl.Tensor[[16, 32], pl.FP32] = self.k(x)
        b: pl.Tensor[[16, 32], pl.FP32] = self.k(a)
        return b
""")
    out = convert(program)
    assert_verified(out)
    main = function(out, "main")
    creates = [s.target.name for s in main.body if isinstance(s, U.AssignStmt) and isinstance(s.value, U.Call)]
    assert creates == ["ret0_out", "ret0_out_1"]


def test_unsupported_tensor_op_is_a_compile_error_with_span() -> None:
    program = tensor_program("""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Scalar[pl.INDEX]:
        n: pl.Scalar[pl.INDEX] = pl.tensor.dim(x, 0)
        return n
""")
    out = convert(program)  # tensor.dim is GM metadata: kept
    assert calls(function(out, "k"), "tensor.dim")

    bad = tensor_program("""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 32], pl.FP32], m: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        acc: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.matmul_acc(m, x, x)
        return acc
""")
    with pytest.raises(CompileError) as info:
        convert(bad)
    message = str(info.value)
    assert "tensor.matmul_acc" in message and ":6:" in message


def test_unregistered_op_error_names_op_and_line() -> None:
    program = tensor_program(SPEC_EXAMPLE)
    incore = program.functions[0]
    stmt = incore.body[0]
    assert isinstance(stmt, T.AssignStmt) and isinstance(stmt.value, T.Call)
    weird = T.Call(op="tensor.paged_gather", args=stmt.value.args, attrs=(), type=stmt.value.type, span=stmt.value.span)
    broken_fn = T.Function(name=incore.name, func_type=incore.func_type, params=incore.params,
                           return_types=incore.return_types,
                           body=(T.AssignStmt(target=stmt.target, value=weird, span=stmt.span), *incore.body[1:]),
                           attrs=incore.attrs, span=incore.span)
    broken = T.Program(name=program.name, functions=(broken_fn, *program.functions[1:]))
    with pytest.raises(CompileError) as info:
        ConvertTensorToTileOps().run(broken, PassContext())
    assert "tensor.paged_gather" in str(info.value) and ":6:" in str(info.value)


def test_user_declared_directions_are_kept_and_in_upgraded() -> None:
    program = tensor_program("""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.InOut[pl.Tensor[[16, 32], pl.FP32]], o: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        y: pl.Tensor[[16, 32], pl.FP32] = pl.exp(x)
        o2: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.assemble(o, y, [0, 0])
        return o2
""")
    out = convert(program)
    assert_verified(out)
    k = function(out, "k")
    assert [(p.var.name, p.direction) for p in k.params] == [("x", "InOut"), ("o", "Out")]
    assert isinstance(k.return_types[0], TensorType)


def test_tensor_compute_outside_incore_is_the_users_error_at_the_op() -> None:
    # f launches a kernel, so it is host code (a bare function that calls nothing is a kernel).
    program = parse_program_as("""
import pypto.language as pl


@pl.program
class K:
    @pl.function
    def f(self, a: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        b: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.add(a, a)
        c: pl.Tensor[[16, 64], pl.FP32] = self.g(b)
        return c

    @pl.function(type=pl.FunctionType.InCore)
    def g(self, a: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        b: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.exp(a)
        return b
""", T.Program, "k.py")
    with pytest.raises(CompileError) as info:
        convert(program)
    [diag] = info.value.diagnostics
    assert str(diag.span) == "k.py:9:43"
    assert "`tensor.add` in Opaque (bare @pl.function) function `f`" in diag.message
    assert "pl.FunctionType.InCore" in diag.hint


def test_scatter_mask_becomes_an_indexed_scatter_over_the_marked_columns() -> None:
    # PTO-ISA has no mask form of tscatter: the conversion builds the flat index
    # r * dst_cols + c * stride + phase in INT32 and scatters through it; P0100 (stride 4,
    # phase 2) on a [4, 16] FP32 destination marks columns 2, 6, 10, 14.
    from languages.pl_parser import parse_program as _parse
    from nanopass.node import walk as _walk
    from nanopass_pto import run as runner

    text = """\
import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, d: pl.Tensor[[4, 16], pl.FP32], s: pl.Tensor[[4, 4], pl.FP32]) -> pl.Tensor[[4, 16], pl.FP32]:
        r = pl.tensor.scatter_mask(d, s, mask_pattern=pl.tile.MaskPattern.P0100)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, d: pl.Tensor[[4, 16], pl.FP32], s: pl.Tensor[[4, 4], pl.FP32]) -> pl.Tensor[[4, 16], pl.FP32]:
        r = self.k(d, s)
        return r
"""
    program = _parse(text, "k.py")
    compiled = runner.compile_program(program, pipeline="convert-tensor-to-tile-ops,update-orchestration-call-sites",
                                       verify_all=True)
    ops = [str(getattr(n, "op")) for n in _walk(compiled.final) if n.KIND == "Call"]
    assert "tile.scatter" in ops and "tile.scatter_mask" not in ops and "tile.ci" in ops
    rng = np.random.default_rng(5)
    d = rng.standard_normal((4, 16)).astype(np.float32)
    s = rng.standard_normal((4, 4)).astype(np.float32)
    expected = d.copy()
    expected[:, 2::4] = s
    got = runner.reference(compiled.final, {"d": d, "s": s})
    assert np.array_equal(next(iter(got.values())).view(np.uint32), expected.view(np.uint32))


@pytest.mark.parametrize(("keywords", "message"), [
    ("", "not supported yet: `tensor.view` of a GM tensor"),
    (', layout="DN"', "not supported yet: a DN layout for tensor.view"),
])
def test_tensor_views_the_compiler_cannot_build_are_declined_at_the_call(keywords: str, message: str) -> None:
    # A GM view used to reach the code generator as an undefined value (an internal error), and
    # a DN layout was silently ignored (the view read as row-major).
    from nanopass_pto import run as runner
    from nanopass_pto.plugin import parse

    text = f"""\
import pypto.language as pl


@pl.program
class V:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[32, 16], pl.FP32]:
        v = pl.tensor.view(x, shape=[32, 16]{keywords})
        r = pl.tensor.adds(v, pl.const(1.0, pl.FP32))
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[32, 16], pl.FP32]:
        r = self.k(x)
        return r
"""
    with pytest.raises(CompileError) as info:
        runner.compile_program(parse(text, "view.py"), verify_all=True)
    [diag] = info.value.diagnostics
    assert message in diag.message and diag.span.line == 8


# The kernel of tests/test_slot_reads_before_free.py: on Ascend910B the matmul result also
# crosses to the vector core, where the window is read from the pipe slot.
ONE_VALUE_OF_A_BOXED_COLUMN = SLOT_WINDOW_KERNEL


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_a_boxed_cube_result_as_a_one_column_broadcast_operand_is_read_through_its_first_row(backend: str) -> None:
    # The [16, 1] matmul result is boxed to a [16, 16] tile; its first row, the per-column
    # operand, is as wide as the [16, 1] lhs's one column (it was cut 16 wide, which the column
    # broadcast's deduction refused at the user's line).
    from languages.pl_parser import parse_program
    from nanopass_pto.run import compare, compile_program, reference, run

    compiled = compile_program(parse_program(ONE_VALUE_OF_A_BOXED_COLUMN, "k.py"), backend=backend, verify_all=True)
    rng = np.random.default_rng(7)
    # Small integers: every product and partial sum is exact, so NumPy's sum is the device's.
    x = rng.integers(-8, 8, (16, 1)).astype(np.float32)
    a = rng.integers(-4, 4, (16, 16)).astype(np.float16)
    b = rng.integers(-4, 4, (16, 1)).astype(np.float16)
    inputs = {"x": x, "a": a, "b": b}
    outputs = run(compiled, inputs)
    reports = compare(reference(compiled.source, inputs), outputs)
    assert reports and all(r.ok for r in reports), reports
    product = a.astype(np.float32) @ b.astype(np.float32)
    expected = x + product[0, 0]
    got = np.asarray(next(iter(outputs.values())), dtype=np.float32)
    assert np.array_equal(got.view(np.uint32), expected.view(np.uint32))
