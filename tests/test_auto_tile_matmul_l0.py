"""AutoTileMatmulL0 (TilePlaced → L0Tiled) and its verifiers L0TiledFit and AccCompactValid."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from typing_extensions import override

import languages.gen.l0_tiled as L
from backend.targets.handlers import BackendHandler, get_backend
from backend.targets.l0_chooser import L0Choice
from languages.decls import L0Tiled, TilePlaced
from languages.memory_space import MemorySpace
from languages.pl_parser import parse_program
from languages.pl_printer import print_program
from languages.types import DataType, TileType
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.node import Node, walk
from nanopass.plugin import get_plugin
from nanopass.passes import PassContext
from passes.analysis.matmul_tiling import MatmulDims, choose
from passes.auto_tile_matmul_l0 import AutoTileMatmulL0
from verifiers import acc_compact_valid, grammar, l0_operands_placed, ssa_form, type_checked, use_after_def

B910 = get_backend("Ascend910B")
B950 = get_backend("Ascend950")

_ACC = {"FP16": "FP32", "BF16": "FP32", "FP32": "FP32", "INT8": "INT32"}


def matmul_source(M: int, N: int, K: int, dtype: str = "FP16", valid_m: int | None = None,
                  body: str | None = None) -> str:
    """A TilePlaced InCore kernel: both operands loaded to Mat, one tile.matmul, one store."""
    acc = _ACC[dtype]
    vm = M if valid_m is None else valid_m
    a_valid = f", [{vm}, {K}]" if vm != M else ""
    a_view = f", pl.TileView(valid_shape=[{vm}, {K}])" if vm != M else ""
    a_type = f"pl.Tile[[{M}, {K}], pl.{dtype}, pl.Mem.Mat{a_view}]"
    c_type = f"pl.Tile[[{M}, {N}], pl.{acc}, pl.Mem.Acc]"
    default_body = f"""        c: {c_type} = pl.tile.matmul(a_mat, b_mat)
        out_1: pl.Tensor[[{vm}, {N}], pl.{acc}] = pl.tile.store(c, [0, 0], out)
        return out_1"""
    return f'''
import pypto.language as pl

@pl.program
class MM:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[{vm}, {K}], pl.{dtype}], b: pl.Tensor[[{K}, {N}], pl.{dtype}], out: pl.Out[pl.Tensor[[{vm}, {N}], pl.{acc}]]) -> pl.Tensor[[{vm}, {N}], pl.{acc}]:
        a_mat: {a_type} = pl.tile.load(a, [0, 0], [{M}, {K}]{a_valid}, target_memory=pl.Mem.Mat)
        b_mat: pl.Tile[[{K}, {N}], pl.{dtype}, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [{K}, {N}], target_memory=pl.Mem.Mat)
{body if body is not None else default_body}
'''


def run(source: str, backend: BackendHandler = B910) -> tuple[L.Program, PassContext]:
    program = parse_program(source, "kernel.py", TilePlaced)
    ctx = PassContext(backend_name=backend.name, backend=backend)
    out = AutoTileMatmulL0().run(program, ctx)  # type: ignore[arg-type]
    assert isinstance(out, L.Program)
    return out, ctx


def errors(program: Node, backend: BackendHandler = B910) -> list[Diagnostic]:
    diags: list[Diagnostic] = []
    for verify in (grammar.verify_l0_tiled, ssa_form.verify, use_after_def.verify, type_checked.verify,
                   acc_compact_valid.verify):
        diags.extend(verify(program))
    diags.extend(l0_operands_placed.verify(program, backend))
    return [d for d in diags if d.severity == "error"]


def check(program: L.Program, backend: BackendHandler = B910) -> None:
    assert errors(program, backend) == []
    text = print_program(program)
    assert print_program(parse_program(text, "round.py", L0Tiled)) == text


def calls(program: Node, op: str) -> list[L.Call]:
    return [n for n in walk(program) if isinstance(n, L.Call) and n.op == op]


def loops(program: Node) -> list[L.ForStmt]:
    return [n for n in walk(program) if isinstance(n, L.ForStmt)]


def body(program: L.Program) -> tuple[L.Stmt, ...]:
    return program.functions[0].body


def ints(expr: L.Expr) -> tuple[int, ...]:
    assert isinstance(expr, L.TupleExpr)
    return tuple(e.value for e in expr.elements if isinstance(e, L.ConstInt))


def const(expr: L.Expr) -> int:
    assert isinstance(expr, L.ConstInt)
    return expr.value


def chosen(M: int, N: int, K: int, dtype: str, backend: BackendHandler = B910) -> L0Choice:
    tile = TileType((M, K), DataType[dtype])
    rhs = TileType((K, N), DataType[dtype])
    choice = choose(MatmulDims.of(tile, rhs, DataType[_ACC[dtype]]), backend, is_matmul_acc=False)
    assert choice is not None
    return choice


# --------------------------------------------------------------------------- K tiling


def test_plain_matmul_becomes_a_pipelined_k_loop_with_the_choosers_k() -> None:
    out, ctx = run(matmul_source(128, 128, 256))
    k = chosen(128, 128, 256, "FP16").k
    assert k < 256 and 256 % k == 0
    [loop] = loops(out)
    assert (const(loop.start), const(loop.stop), const(loop.step)) == (0, 256, k)
    assert loop.kind == "pipeline" and loop.attrs == (("stage", 2),)
    [seed] = calls(out, "tile.create")
    assert ints(seed.args[0]) == (128, 128)
    assert dict(seed.attrs)["target_memory"] is MemorySpace.Acc and "compact" not in dict(seed.attrs)
    assert loop.iter_args[0].init.name == "c_l0_init"  # type: ignore[union-attr]
    sa, sb = calls(loop, "tile.extract")
    assert dict(sa.attrs)["target_memory"] is MemorySpace.Left and ints(sa.args[3]) == (128, k)
    assert dict(sb.attrs)["target_memory"] is MemorySpace.Right and ints(sb.args[3]) == (k, 128)
    assert sa.args[2] == loop.loop_var and sb.args[1] == loop.loop_var
    [step] = calls(loop, "tile.matmul_acc")
    pred = step.args[3]
    assert isinstance(pred, L.BinOp) and pred.op == "==" and pred.lhs == loop.loop_var and const(pred.rhs) == 0
    assert calls(out, "tile.matmul") == []
    # The store now reads the loop's result.
    [store] = calls(out, "tile.store")
    assert store.args[0] == loop.results[0]
    assert ctx.diagnostics == []
    check(out)


def test_row_narrowed_left_operand_gets_a_compact_seed() -> None:
    out, _ = run(matmul_source(112, 128, 256, valid_m=100))
    [seed] = calls(out, "tile.create")
    assert dict(seed.attrs)["compact"] is True
    [narrow] = calls(out, "tile.set_validshape")
    assert narrow.args[0].name == "c_l0_init_storage"  # type: ignore[union-attr]
    assert (const(narrow.args[1]), const(narrow.args[2])) == (100, 128)
    [step] = calls(out, "tile.matmul_acc")
    assert isinstance(step.type, TileType) and step.type.view is not None and step.type.view.compact
    assert step.type.valid == (100, 128)
    check(out)


def test_k_boundary_is_peeled_after_the_loop() -> None:
    # 128x128x272 FP16: the chooser picks k = 128, so two full blocks loop and 16 columns peel.
    choice = chosen(128, 128, 272, "FP16")
    assert 272 // choice.k >= 2 and 272 % choice.k
    out, _ = run(matmul_source(128, 128, 272))
    [loop] = loops(out)
    main = 272 // choice.k * choice.k
    assert const(loop.stop) == main and const(loop.step) == choice.k
    tail = [s for s in body(out) if isinstance(s, L.AssignStmt) and isinstance(s.value, L.Call)
            and s.value.op == "tile.matmul_acc"]
    [tail_step] = tail
    assert len(tail_step.value.args) == 3  # type: ignore[union-attr]
    assert tail_step.value.args[0] == loop.results[0]  # type: ignore[union-attr]
    sat = [c for c in calls(out, "tile.extract") if c not in calls(loop, "tile.extract")]
    assert [ints(c.args[3]) for c in sat] == [(128, 272 - main), (272 - main, 128)]
    assert const(sat[0].args[2]) == main and const(sat[1].args[1]) == main
    check(out)


def test_single_full_block_plus_tail_is_straight_line() -> None:
    choice = chosen(128, 128, 176, "FP16")
    assert 176 // choice.k == 1 and 176 % choice.k
    out, _ = run(matmul_source(128, 128, 176))
    assert loops(out) == []
    first, tail = calls(out, "tile.matmul_acc")
    assert isinstance(first.args[3], L.ConstBool) and first.args[3].value is True
    assert len(tail.args) == 3 and tail.args[0].name == "c_kmain"  # type: ignore[union-attr]
    check(out)


# --------------------------------------------------------------------------- M/N tiling


def grid_stores(out: L.Program) -> list[L.AssignStmt]:
    return [s for s in body(out) if isinstance(s, L.AssignStmt) and isinstance(s.value, L.Call)
            and s.value.op == "tile.store"]


@pytest.mark.parametrize("backend", [B910, B950], ids=["910B", "950"])
def test_output_exceeding_l0c_becomes_a_grid_of_chained_stores(backend: BackendHandler) -> None:
    choice = chosen(512, 512, 512, "FP32", backend)
    rows, cols = -(-512 // choice.m), -(-512 // choice.n)
    assert rows * cols > 1
    if backend is B950:
        assert (rows, cols) == (2, 2)  # the spec's example: m = n = 256
    out, _ = run(matmul_source(512, 512, 512, "FP32"), backend)
    stores = grid_stores(out)
    assert len(stores) == rows * cols == len(loops(out)) == len(calls(out, "tile.create"))
    origins = [ints(s.value.args[1]) for s in stores]  # type: ignore[union-attr]
    # M fastest: the spec's example numbers (mi=256, ni=0) of a 2x2 grid t1.
    assert origins == [(r * choice.m, c * choice.n) for c in range(cols) for r in range(rows)]
    # Spec: out -> out_t0 -> out_t1 -> ... -> out_tN; the last replaces the original store's result.
    chain = [s.value.args[2].name for s in stores]  # type: ignore[union-attr]
    assert chain[0] == "out" and chain[1:] == [s.target.name for s in stores[:-1]]
    assert [s.target.name for s in stores] == [f"out_t{i}" for i in range(rows * cols)]
    for loop in loops(out):
        assert const(loop.step) == choice.k and loop.kind == "pipeline"
    ret = body(out)[-1]
    assert isinstance(ret, L.ReturnStmt) and ret.values[0] == stores[-1].target
    check(out, backend)


def test_int8_accumulator_rows_align_to_32_on_910b_forcing_n_tiling() -> None:
    # INT32 [16, 1152] occupies 32 x 1152 x 4 = 144 KiB of L0C on 910B (M rows align to 32).
    assert B910.l0c_m_alignment("INT32") == 32
    choice = chosen(16, 1152, 64, "INT8")
    assert choice.m == 16 and choice.n < 1152 and 32 * choice.n * 4 <= B910.l0c_capacity_bytes
    out, _ = run(matmul_source(16, 1152, 64, "INT8"))
    stores = grid_stores(out)
    assert len(stores) == -(-1152 // choice.n)
    widths = [ints(c.args[0])[1] for c in calls(out, "tile.create")]
    assert widths == [min(choice.n, 1152 - c) for c in range(0, 1152, choice.n)]
    assert all(c.type.dtype is DataType.INT32 for c in calls(out, "tile.matmul_acc"))  # type: ignore[union-attr]
    check(out)
    # On Ascend950 the same accumulator occupies 16 x 1152 x 4 = 72 KiB: it fits, so any grid is
    # the chooser's speed choice (with K blocks of whole 32-wide INT8 boxes), not a capacity need.
    assert 16 * 1152 * 4 <= B950.l0c_capacity_bytes
    choice950 = chosen(16, 1152, 64, "INT8", B950)
    assert choice950.k % 32 == 0
    out950, _ = run(matmul_source(16, 1152, 64, "INT8"), B950)
    assert len(grid_stores(out950)) == -(-1152 // choice950.n)


# A product stored inside a loop: no output grid serves a use inside a loop (several stores and
# set_validshape views are served, tests/test_several_consumers_of_an_output_grid.py).
STORED_IN_A_LOOP = """        c: pl.Tile[{shape}, pl.{dtype}, pl.Mem.Acc] = pl.tile.matmul(a_mat, b_mat)
        for i, (o_iter,) in pl.range(0, 2, 1, init_values=(out,)):
            o_next: pl.Tensor[{shape}, pl.{dtype}] = pl.tile.store(c, [0, 0], o_iter)
            o_last = pl.yield_(o_next)
        return o_last"""


def test_output_too_big_without_a_direct_store_is_rejected_with_ph_at_006() -> None:
    src = matmul_source(512, 512, 512, "FP32", body=STORED_IN_A_LOOP.format(shape="[512, 512]", dtype="FP32"))
    # Left whole, the [512, 512] FP32 accumulator can never be allocated in L0C: the pass says
    # so at the matmul's line, with the numbers and two ways out, instead of claiming L0TiledFit.
    with pytest.raises(CompileError) as info:
        run(src)
    [diag] = info.value.diagnostics
    assert diag.message.startswith("PH-AT-006") and diag.span.line > 0
    assert "1048576 bytes" in diag.message and "131072" in diag.message
    assert "not supported yet" in diag.message and "a loop" in diag.message
    assert "blocks" in diag.hint


# --------------------------------------------------------------------------- hops and skips


def test_matmul_that_fits_gets_a_single_hop() -> None:
    out, ctx = run(matmul_source(64, 64, 64))
    assert loops(out) == [] and calls(out, "tile.extract") == []
    left, right = calls(out, "tile.move")
    assert dict(left.attrs)["target_memory"] is MemorySpace.Left
    assert dict(right.attrs)["target_memory"] is MemorySpace.Right
    [mm] = calls(out, "tile.matmul")
    assert [a.name for a in mm.args] == ["a_mat_left", "b_mat_right"]  # type: ignore[union-attr]
    assert ctx.diagnostics == []
    check(out)


def test_non_fractal_k_is_skipped_with_ph_at_007() -> None:
    out, ctx = run(matmul_source(64, 64, 40))
    [hint] = ctx.diagnostics
    assert hint.message.startswith("PH-AT-007") and hint.severity == "perf-hint"
    assert len(calls(out, "tile.matmul")) == 1 and loops(out) == []


_MANUAL = """        a_l0: pl.Tile[[{M}, {K}], pl.FP16, pl.Mem.Left] = pl.tile.move(a_mat, target_memory=pl.Mem.Left)
        c: pl.Tile[[{M}, {N}], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a_l0, b_mat)
        out_1: pl.Tensor[[{M}, {N}], pl.FP32] = pl.tile.store(c, [0, 0], out)
        return out_1"""


def test_legal_user_placed_left_operand_is_left_alone() -> None:
    out, ctx = run(matmul_source(64, 64, 128, body=_MANUAL.format(M=64, N=64, K=128)))
    [mm] = calls(out, "tile.matmul")
    assert mm.args[0].name == "a_l0" and mm.args[1].name == "b_mat_right"  # type: ignore[union-attr]
    assert loops(out) == [] and calls(out, "tile.extract") == [] and ctx.diagnostics == []
    check(out)


def test_user_placed_left_operand_too_big_is_rejected_with_the_two_fixes() -> None:
    src = matmul_source(256, 64, 256, body=_MANUAL.format(M=256, N=64, K=256))
    with pytest.raises(CompileError) as info:
        run(src)
    [diag] = info.value.diagnostics
    assert "a_l0" in diag.message and "[256, 256]" in diag.message and "FP16" in diag.message
    assert "131072" in diag.message and "65536" in diag.message and "L0A" in diag.message
    assert "keep `a_l0` in Mat" in diag.hint and "extract a smaller" in diag.hint
    assert diag.span.file == "kernel.py" and diag.span.line > 0


# --------------------------------------------------------------------------- tile.matmul_acc


def _acc_body(cond: str) -> str:
    return f"""        c0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.create([128, 128], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        c: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c0, a_mat, b_mat{cond})
        out_1: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(c, [0, 0], out)
        return out_1"""


def test_matmul_acc_threads_the_callers_accumulator_unpredicated() -> None:
    out, _ = run(matmul_source(128, 128, 256, body=_acc_body("")))
    [loop] = loops(out)
    assert loop.iter_args[0].init.name == "c0"  # type: ignore[union-attr]
    [step] = calls(loop, "tile.matmul_acc")
    assert len(step.args) == 3
    assert len(calls(out, "tile.create")) == 1  # no seed besides the caller's
    check(out)


def test_matmul_acc_init_cond_is_anded_with_the_first_block() -> None:
    out, _ = run(matmul_source(128, 128, 272, body=_acc_body(", True")))
    [loop] = loops(out)
    [step] = calls(loop, "tile.matmul_acc")
    pred = step.args[3]
    assert isinstance(pred, L.BinOp) and pred.op == "and" and isinstance(pred.lhs, L.ConstBool)
    assert isinstance(pred.rhs, L.BinOp) and pred.rhs.op == "=="
    tail = [c for c in calls(out, "tile.matmul_acc") if c is not step]
    assert len(tail) == 1 and len(tail[0].args) == 3
    check(out)


def test_lone_full_block_forwards_init_cond_verbatim() -> None:
    out, _ = run(matmul_source(128, 128, 176, body=_acc_body(", True")))
    first, tail = calls(out, "tile.matmul_acc")
    assert isinstance(first.args[3], L.ConstBool) and len(tail.args) == 3
    check(out)


def test_orchestration_functions_are_untouched() -> None:
    src = matmul_source(128, 128, 256).replace("@pl.function(type=pl.FunctionType.InCore)",
                                               "@pl.function(type=pl.FunctionType.Orchestration)")
    out, _ = run(src)
    assert loops(out) == [] and calls(out, "tile.extract") == [] and len(calls(out, "tile.matmul")) == 1


def test_a_leaf_opaque_function_on_tiles_is_tiled_like_a_kernel() -> None:
    # A bare @pl.function that calls no function and works on tiles is emitted by PTOCodegen as a
    # kernel, so its matmul needs its L0 operands like an InCore one's.
    src = matmul_source(128, 128, 256).replace("@pl.function(type=pl.FunctionType.InCore)", "@pl.function")
    out, _ = run(src)
    incore, _ = run(matmul_source(128, 128, 256))
    assert len(loops(out)) == len(loops(incore)) == 1
    assert len(calls(out, "tile.extract")) == len(calls(incore, "tile.extract")) > 0
    check(out)


# --------------------------------------------------------------------------- verifiers on broken programs


def _rewrite_types(program: L.Program, fix: Any) -> L.Program:
    """Apply `fix(type) -> type` to every Var and Call type (a hand-broken program)."""

    class Breaker(L.Rewriter):
        @override
        def visit_Var(self, node: L.Var) -> L.Var:
            new = fix(node.type)
            return node if new == node.type else L.Var(name=node.name, type=new, span=node.span)

        @override
        def visit_Call(self, node: L.Call) -> L.Expr:
            inner = super().visit_Call(node)
            assert isinstance(inner, L.Call)
            new = fix(inner.type)
            return inner if new == inner.type else replace(inner, type=new)

    return Breaker().visit_Program(program)


def _drop_compact(ty: Any) -> Any:
    if isinstance(ty, TileType) and ty.view is not None and ty.view.compact:
        return replace(ty, view=replace(ty.view, compact=False))
    return ty


def test_acc_compact_valid_catches_a_non_compact_narrowed_seed() -> None:
    # 64 physical rows with 16 valid: MAD pitch 16 differs from 64.
    out, _ = run(matmul_source(64, 128, 256, valid_m=16))
    assert acc_compact_valid.verify(out) == []
    broken = _rewrite_types(out, _drop_compact)
    diags = acc_compact_valid.verify(broken)
    assert diags and all(d.rule == "AccCompactValid" for d in diags)
    assert "pitch 16" in diags[0].message and "64 physical rows" in diags[0].message


def test_acc_compact_valid_catches_a_compact_vec_tile() -> None:
    src = matmul_source(64, 64, 64, body="""        v: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(compact=True)] = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Vec, compact=True)
        c: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a_mat, b_mat)
        out_1: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(c, [0, 0], out)
        return out_1""")
    out, _ = run(src)
    [diag] = acc_compact_valid.verify(out)
    assert "tile v in Vec is compact" in diag.message and diag.span.line > 0


def test_l0_fit_catches_a_left_operand_too_large() -> None:
    out, _ = run(matmul_source(128, 128, 256))

    def grow_left(ty: Any) -> Any:
        if isinstance(ty, TileType) and ty.memory_space is MemorySpace.Left:
            return replace(ty, shape=(256, 256))
        return ty

    broken = _rewrite_types(out, grow_left)
    assert l0_operands_placed.verify(broken) == []  # no capacities known: placement only
    [diag] = l0_operands_placed.verify(broken, B910)
    assert "Left tile sa [256, 256] FP16 needs 131072 bytes but L0A holds 65536" in diag.message


def test_l0_tiled_grammar_rejects_a_matmul_reading_mat() -> None:
    # Operands still in Mat are a TilePlaced program, but not an L0Tiled one: the operand form
    # cube-operands-in-l0 is a grammar fact of L0Tiled (and the languages after it).
    text = matmul_source(64, 64, 64)
    assert grammar.verify_tile_placed(parse_program(text, "kernel.py", TilePlaced)) == []
    diags = grammar.verify_l0_tiled(parse_program(text, "kernel.py", L0Tiled))
    assert len(diags) == 2 and "operand 0 (a_mat) is in Mat, but the cube reads it from Left" in diags[0].message
    assert "operand 1 (b_mat) is in Mat, but the cube reads it from Right" in diags[1].message
    assert all(d.rule == "L0TiledGrammar" for d in diags)



# --------------------------------------------------------------------------- the memory planner


def _tiled_design(source: str, planner: str, opt_in: bool = False) -> set[str]:
    program = parse_program(source, "kernel.py", TilePlaced)
    ctx = PassContext(backend_name=B910.name, backend=B910)
    out = AutoTileMatmulL0(planner=planner, enable_pypto_l0c_double_buffer=opt_in).run(
        program, ctx)  # type: ignore[arg-type]
    check(out)
    return {key.removeprefix("design-") for key in ctx.statistics if key.startswith("design-")}


def test_the_planner_reaches_the_chooser() -> None:
    # 256x512x32 FP16 overflows L0C: under PYPTO only dbC = 1 is realizable; PTOAS and DSA_RP
    # open the double-buffered accumulator, which the chooser then takes (TARGET_FACTS 6-7).
    source = matmul_source(256, 512, 32)
    assert _tiled_design(source, "pypto") == {"output-stationary-dbc1"}
    assert _tiled_design(source, "ptoas") == {"output-stationary-dbc2"}
    assert _tiled_design(source, "dsa_rp") == {"output-stationary-dbc2"}
    assert _tiled_design(source, "pypto", opt_in=True) == {"output-stationary-dbc2"}


def test_an_unknown_planner_is_a_pipeline_error() -> None:
    with pytest.raises(CompileError, match="unknown memory planner `pyptoo`"):
        AutoTileMatmulL0(planner="pyptoo")


def test_each_planner_has_its_pipeline_and_the_cli_selects_it() -> None:
    from nanopass_pto.plugin import PLUGIN, planner_pipeline

    assert PLUGIN.default_pipeline("Ascend910B") == planner_pipeline("pypto")
    for planner in ("ptoas", "dsa_rp"):
        spec = PLUGIN.default_pipeline("Ascend950", planner)
        assert f"auto-tile-matmul-l0{{planner={planner}}}" in spec
    from nanopass.pipeline import build_arg_parser

    args = build_arg_parser(PLUGIN).parse_args(["--memory-planner", "ptoas", "k.py"])
    assert PLUGIN.selected_variant(args) == "ptoas"
    assert PLUGIN.selected_variant(build_arg_parser(PLUGIN).parse_args(["k.py"])) == ""


def test_a_dbc2_compile_is_bit_exact_end_to_end() -> None:
    from pathlib import Path

    from nanopass_pto import run as runner

    example = Path(__file__).resolve().parent.parent / "examples" / "matmul_exceeds_l0c_f16.py"
    source = get_plugin().parse(example.read_text(), str(example))
    compiled = runner.compile_program(source, verify_all=True, memory_planner="ptoas")
    assert compiled.context is not None
    stats = compiled.context.statistics
    assert stats["auto-tile-matmul-l0.design-output-stationary-dbc2"] == 1
    inputs = runner.random_inputs(compiled.source, seed=3)
    reports = runner.compare(runner.reference(compiled.source, inputs), runner.run(compiled, inputs))
    assert reports and all(r.ok for r in reports) and "bit-exact" in reports[0].line
    with pytest.raises(ValueError, match="unknown memory planner"):
        runner.compile_program(source, memory_planner="nope")


# --------------------------------------------------------------------------- tile.matmul_bias


def bias_kernel(M: int, N: int, K: int, dtype: str = "BF16", bias_dtype: str | None = None) -> str:
    """A tile-level kernel: operands and a [1, N] bias loaded to Mat, one tile.matmul_bias."""
    acc = _ACC[dtype]
    bias_dtype = bias_dtype or acc
    return f'''
import pypto.language as pl

@pl.program
class Biased:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, lhs: pl.Tensor[[{M}, {K}], pl.{dtype}], rhs: pl.Tensor[[{K}, {N}], pl.{dtype}],
               bias: pl.Tensor[[1, {N}], pl.{bias_dtype}],
               out: pl.Out[pl.Tensor[[{M}, {N}], pl.{acc}]]) -> pl.Tensor[[{M}, {N}], pl.{acc}]:
        lhs_mat = pl.tile.load(lhs, [0, 0], [{M}, {K}], target_memory=pl.Mem.Mat)
        rhs_mat = pl.tile.load(rhs, [0, 0], [{K}, {N}], target_memory=pl.Mem.Mat)
        bias_mat = pl.tile.load(bias, [0, 0], [1, {N}], target_memory=pl.Mem.Mat)
        c = pl.tile.matmul_bias(lhs_mat, rhs_mat, bias_mat)
        out = pl.store(c, [0, 0], out)
        return out
'''


def _l0_tiled(source: str, backend: BackendHandler = B910) -> tuple[L.Program, PassContext]:
    from nanopass_pto import run as runner

    plugin = get_plugin()
    program = plugin.parse(source, "biased.py")
    spec = plugin.default_pipeline(backend.name)
    until = spec[:spec.index("auto-tile-matmul-l0") + len("auto-tile-matmul-l0")]
    compiled = runner.compile_program(program, backend=backend.name, pipeline=until, verify_all=True)
    assert isinstance(compiled.final, L.Program) and compiled.context is not None
    return compiled.final, compiled.context


def test_matmul_bias_k_tiling_head_peels_the_bias_block() -> None:
    # 16x64x2048 BF16: the chooser cuts K into 256-blocks; the bias is applied by the first
    # block only, a straight-line matmul_bias, and the loop over the other seven accumulates.
    out, _ = _l0_tiled(bias_kernel(16, 64, 2048))
    (bias_call,) = calls(out, "tile.matmul_bias")
    (loop,) = loops(out)
    assert (const(loop.start), const(loop.stop), const(loop.step)) == (256, 2048, 256)
    assert loop.kind == "pipeline" and dict(loop.attrs)["stage"] == 2
    init = loop.iter_args[0].init
    assert isinstance(init, L.Var) and init.type == bias_call.type
    (step,) = calls(loop, "tile.matmul_acc")
    assert len(step.args) == 3  # uniform accumulation, no predicate
    bias_operand = bias_call.args[2]
    assert isinstance(bias_operand, L.Var) and isinstance(bias_operand.type, TileType) and bias_operand.type.memory_space is MemorySpace.Bias
    assert calls(out, "tile.move") and not [s for s in walk(out) if isinstance(s, L.IfStmt)]
    check(out)


def test_matmul_bias_with_two_blocks_and_a_tail_is_straight_line() -> None:
    # K = 176 = one 96-block + an 80 tail at 128x128 (as for the plain matmul): head + tail.
    out, _ = _l0_tiled(bias_kernel(128, 128, 176, "FP16"))
    assert loops(out) == [] and len(calls(out, "tile.matmul_bias")) == 1
    (tail,) = calls(out, "tile.matmul_acc")
    assert len(tail.args) == 3
    check(out)


@pytest.mark.parametrize("shape,dtype,backend", [
    ((16, 64, 2048), "BF16", "Ascend910B"), ((128, 128, 176), "FP16", "Ascend910B"),
    ((64, 64, 512), "FP32", "Ascend950"), ((32, 64, 2048), "INT8", "Ascend910B"),
])
def test_matmul_bias_k_tiling_is_bit_exact(shape: tuple[int, int, int], dtype: str, backend: str) -> None:
    from nanopass_pto import run as runner

    program = get_plugin().parse(bias_kernel(*shape, dtype), "biased.py")
    compiled = runner.compile_program(program, backend=backend, verify_all=True)
    assert compiled.context is not None
    assert compiled.context.statistics["auto-tile-matmul-l0.k-tiled"] == 1
    inputs = runner.random_inputs(program, seed=11)
    reports = runner.compare(runner.reference(program, inputs), runner.run(compiled, inputs))
    assert reports and all(r.ok for r in reports), [r.line for r in reports]


def _bias_windows(program: L.Program) -> list[tuple[int, int]]:
    """(column offset, width) of every [1, n] bias window load, in program order."""
    found = []
    for call in calls(program, "tile.load"):
        tile = call.type
        assert isinstance(tile, TileType)
        if tile.shape[0] == 1:
            offsets = call.args[1]
            assert isinstance(offsets, L.TupleExpr)
            found.append((const(offsets.elements[1]), tile.shape[1]))
    return found


def test_matmul_bias_needing_output_tiling_loads_one_bias_window_per_n_tile() -> None:
    # [128, 512] FP32 x K=64 with a Mat bias: the 2 KiB bias row overflows the 1 KiB 910B Bias
    # table, so the chooser caps N at 256. The full [1, 512] load (and its move to Bias) is
    # replaced by a [1, 256] window per output tile, moved to Bias and applied once, by the
    # tile's head-peeled matmul_bias; each tile is stored straight to its output window.
    out, ctx = _l0_tiled(bias_kernel(128, 512, 64, "FP32"))
    assert ctx.statistics["auto-tile-matmul-l0.mn-tiled-biased"] == 1
    biased = calls(out, "tile.matmul_bias")
    assert len(biased) == len(calls(out, "tile.store")) >= 2
    windows = _bias_windows(out)
    assert [w for _, w in windows] == [256] * len(windows) and sorted({c for c, _ in windows}) == [0, 256]
    bias_tiles = [c.type for c in calls(out, "tile.move") if isinstance(c.type, TileType)
                  and c.type.memory_space is MemorySpace.Bias]
    assert len(bias_tiles) == len(biased) and all(t.shape == (1, 256) for t in bias_tiles)
    check(out)


def test_matmul_bias_tiled_in_m_only_reads_the_whole_bias_in_every_tile() -> None:
    # [528, 128] FP32 x K=64: the 128-column bias fits the table, only M is tiled; every output
    # tile applies the same Bias-resident row (no reload).
    out, ctx = _l0_tiled(bias_kernel(528, 128, 64, "FP32"))
    assert ctx.statistics["auto-tile-matmul-l0.mn-tiled-biased"] == 1
    assert len(calls(out, "tile.matmul_bias")) >= 2 and len(_bias_windows(out)) == 1
    check(out)


@pytest.mark.parametrize("shape,dtype,backend", [
    ((128, 512, 64), "FP32", "Ascend910B"), ((32, 512, 256), "INT8", "Ascend910B"),
    ((64, 1040, 128), "FP16", "Ascend950"), ((528, 128, 64), "FP32", "Ascend910B"),
])
def test_matmul_bias_output_tiling_is_bit_exact(shape: tuple[int, int, int], dtype: str, backend: str) -> None:
    from nanopass_pto import run as runner

    program = get_plugin().parse(bias_kernel(*shape, dtype), "biased.py")
    compiled = runner.compile_program(program, backend=backend, verify_all=True)
    assert compiled.context is not None
    assert compiled.context.statistics["auto-tile-matmul-l0.mn-tiled-biased"] == 1
    inputs = runner.random_inputs(program, seed=13)
    reports = runner.compare(runner.reference(program, inputs), runner.run(compiled, inputs))
    assert reports and all(r.ok for r in reports), [r.line for r in reports]


def test_matmul_bias_output_tiling_refused_says_why_at_the_users_line() -> None:
    # The bias row is loaded partially valid: it cannot be re-cut into full [1, n] windows, and a
    # [1, 512] FP32 row never fits the 1 KiB 910B table, so the matmul is a located PH-AT-011 error.
    source = bias_kernel(128, 512, 64, "FP32").replace(
        "pl.tile.load(bias, [0, 0], [1, 512], target_memory=pl.Mem.Mat)",
        "pl.tile.load(bias, [0, 0], [1, 512], [1, 500], target_memory=pl.Mem.Mat)")
    with pytest.raises(CompileError, match="PH-AT-011.*per-N windows: its bias load is not a full") as err:
        _l0_tiled(source)
    assert err.value.diagnostics[0].span.known


# --------------------------------------------------------------------------- results consumed in Vec

def vec_consumer_source(M: int, N: int, K: int, moves: int = 1, cross_core: bool = True) -> str:
    flag = ", cross_core=True" if cross_core else ""
    lines = [f"        c: pl.Tile[[{M}, {N}], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a_mat, b_mat)"]
    previous = "out"
    for i in range(moves):
        lines.append(f"        c_vec{i}: pl.Tile[[{M}, {N}], pl.FP32, pl.Mem.Vec] = "
                     f"pl.tile.move(c, target_memory=pl.Mem.Vec{flag})")
        lines.append(f"        e{i}: pl.Tile[[{M}, {N}], pl.FP32, pl.Mem.Vec] = pl.tile.exp(c_vec{i})")
        lines.append(f"        out_{i}: pl.Tensor[[{M}, {N}], pl.FP32] = pl.tile.store(e{i}, [0, 0], {previous})")
        previous = f"out_{i}"
    lines.append(f"        return {previous}")
    return matmul_source(M, N, K, body="\n".join(lines))


@pytest.mark.parametrize("backend", [B910, B950], ids=lambda b: b.name)
def test_l0b_forced_n_split_feeding_vector_ops_is_gathered_into_one_vec_tile(backend: BackendHandler) -> None:
    # The [128, 1152] FP16 key panel (288 KiB) cannot sit in L0B, while the [16, 1152] FP32
    # accumulator fits L0C: the output must still be tiled, and since vector ops consume it, every
    # [m, n] sub-tile is moved to Vec and assembled at its origin into one Vec tile.
    out, _ = run(vec_consumer_source(16, 1152, 128, cross_core=backend is B910), backend)
    assert not any(isinstance(c.type, TileType) and c.type.memory_space is MemorySpace.Acc
                   and c.type.shape == (16, 1152) for c in calls(out, "tile.create")), "no whole Acc"
    assembles = calls(out, "tile.assemble")
    moves = [m for m in calls(out, "tile.move") if dict(m.attrs)["target_memory"] is MemorySpace.Vec]
    assert len(assembles) == len(moves) >= 2
    origins = sorted(ints(a.args[2]) for a in assembles)
    widths = [cast_tile(m).shape[1] for m in moves]
    assert origins[0] == (0, 0) and sum(widths) == 1152
    assert [o[1] for o in origins] == [sum(widths[:i]) for i in range(len(widths))]
    panels = [cast_tile(e) for e in calls(out, "tile.extract")
              if cast_tile(e).memory_space is MemorySpace.Right]
    assert panels and all(p.shape[0] * p.shape[1] * 2 <= backend.l0b_capacity_bytes for p in panels)
    check(out, backend)


def cast_tile(call: L.Call) -> TileType:
    assert isinstance(call.type, TileType)
    return call.type


def test_one_gathered_tile_serves_every_vec_move_of_the_result() -> None:
    out, _ = run(vec_consumer_source(16, 1152, 128, moves=2, cross_core=False), B950)
    scratches = [c for c in calls(out, "tile.create") if cast_tile(c).memory_space is MemorySpace.Vec]
    assert len(scratches) == 1
    check(out, B950)


def test_cross_core_sub_tiles_leave_room_for_the_fifo() -> None:
    # On the split target every sub-tile crosses through a two-slot FIFO in Vec beside the
    # gathered tile: no sub-tile is larger than a quarter of the whole result.
    out, _ = run(vec_consumer_source(16, 1152, 128), B910)
    for move in calls(out, "tile.move"):
        if dict(move.attrs)["target_memory"] is MemorySpace.Vec:
            tile = cast_tile(move)
            assert tile.shape[0] * tile.shape[1] * 4 <= 16 * 1152 * 4 // 4


def test_operand_overflow_without_a_placement_is_rejected_at_the_matmul() -> None:
    # The accumulator fits L0C but the right panel does not fit L0B, and the result is stored
    # twice (no placement applies): a located PH-AT-006, never a matmul claimed to fit L0.
    src = matmul_source(16, 1152, 128, body=STORED_IN_A_LOOP.format(shape="[16, 1152]", dtype="FP32"))
    with pytest.raises(CompileError) as info:
        run(src)
    [diag] = info.value.diagnostics
    assert diag.message.startswith("PH-AT-006") and diag.span.line > 0
    assert "right operand" in diag.message and "294912 bytes" in diag.message and "L0B" in diag.message
    assert "not supported yet" in diag.message and "a loop" in diag.message
