"""AutoTileMatmulL0's output grid around a canonical frontend split-K reduction.

A user K loop that accumulates into one full [M, N] accumulator whose L0C footprint exceeds the
backend's L0C (e.g. 256x512 FP32 = 512 KiB) is retiled: per [m, n] output window a legal Acc
seed, a clone of the user's loop with both operand loads narrowed to the window, and a store,
the stores chained in SSA. The user's spelling (predicated matmul_acc or peeled if) is kept.

End to end every spelling compiles with --verify-all and simulates bit-exact against the
reference interpreter AND against an independent NumPy reference written here from
NUMERICS.md section 1, on both backends. The pass alone is checked structurally, with the
verifiers, for meaning with the interpreter, and for its PH-AT-006 refusals.
"""

from __future__ import annotations

import contextlib
import io
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import languages.gen.l0_tiled as L
from backend.targets.handlers import BackendHandler, get_backend
from nanopass_pto.run import random_inputs, reference
from languages.decls import L0Tiled, TilePlaced
from languages.pl_parser import parse_program
from languages.pl_printer import print_program
from languages.types import DataType, TileType
from tests.references import matmul_ref
from nanopass.diagnostics import CompileError
from nanopass.node import Node, walk
from nanopass.passes import PassContext
from nanopass.pipeline import main
from backend.targets.l0_chooser import choose_l0_tile
from passes.analysis.matmul_tiling import MatmulDims, PanelBoxes, chooser_config, split_k_chooser_config, split_k_windows
from passes.auto_tile_matmul_l0 import AutoTileMatmulL0
from verifiers import acc_compact_valid, grammar, l0_operands_placed, ssa_form, type_checked, use_after_def

Array = npt.NDArray[Any]
BOTH = ("Ascend910B", "Ascend950")
B910 = get_backend("Ascend910B")
ACC = {"FP16": "FP32", "FP32": "FP32", "INT8": "INT32"}


# -- the independent reference (NUMERICS.md section 1) ----------------------------------------------


def operands(dtype: str, m: int, k: int, n: int, seed: int) -> tuple[Array, Array]:
    rng = np.random.default_rng(seed)
    if dtype == "INT8":
        return (rng.integers(-128, 128, (m, k)).astype(np.int8), rng.integers(-128, 128, (k, n)).astype(np.int8))
    np_dtype = np.float16 if dtype == "FP16" else np.float32
    return rng.standard_normal((m, k)).astype(np_dtype), rng.standard_normal((k, n)).astype(np_dtype)


def bits(x: Array) -> Array:
    return x.view(np.dtype(f"u{x.dtype.itemsize}"))


# -- kernels in the pl DSL, one per spelling ---------------------------------------------------------

KERNEL = """\
import pypto.language as pl


@pl.program
class SplitK:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[{m}, {k}], pl.{dt}], b: pl.Tensor[[{k}, {n}], pl.{dt}]) -> pl.Tensor[[{m}, {n}], pl.{acc}]:
{body}

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[{m}, {k}], pl.{dt}], b: pl.Tensor[[{k}, {n}], pl.{dt}]) -> pl.Tensor[[{m}, {n}], pl.{acc}]:
        c = self.mm(a, b)
        return c
"""

SLICES = """\
    a_k = pl.slice(a, [{m}, {kb}], [0, k])
    b_k = pl.slice(b, [{kb}, {n}], [k, 0])
"""

SPELLINGS: dict[str, str] = {
    # Reassignment: the parser builds the loop carry and the final value itself.
    "reassigned, predicated": """\
acc = pl.create_tensor([{m}, {n}], dtype=pl.{acc})
for k in pl.{loop}(0, {k}, {kb}{stage}):
{slices}    acc = pl.matmul_acc(acc, a_k, b_k, init_cond=k == 0)
return acc""",
    "explicit SSA, predicated": """\
acc0 = pl.create_tensor([{m}, {n}], dtype=pl.{acc})
for k, (acc,) in pl.{loop}(0, {k}, {kb}, init_values=(acc0,){stage}):
{slices}    acc_next = pl.matmul_acc(acc, a_k, b_k, k == 0)
    acc_out = pl.yield_(acc_next)
return acc_out""",
    "reassigned, peeled": """\
acc = pl.create_tensor([{m}, {n}], dtype=pl.{acc})
for k in pl.{loop}(0, {k}, {kb}{stage}):
{slices}    if k == 0:
        acc = pl.matmul(a_k, b_k, out_dtype=pl.{acc})
    else:
        acc = pl.matmul_acc(acc, a_k, b_k)
return acc""",
    "explicit SSA, peeled": """\
acc0 = pl.create_tensor([{m}, {n}], dtype=pl.{acc})
for k, (acc,) in pl.{loop}(0, {k}, {kb}, init_values=(acc0,){stage}):
{slices}    if k == 0:
        first = pl.matmul(a_k, b_k, out_dtype=pl.{acc})
        step = pl.yield_(first)
    else:
        later = pl.matmul_acc(acc, a_k, b_k)
        step = pl.yield_(later)
    acc_out = pl.yield_(step)
return acc_out""",
    # SeedZeroAccumulators turns the zero fill into an Acc seed + init_cond (k == 0).
    "zero seed": """\
acc = pl.full([{m}, {n}], pl.{acc}, {zero})
for k in pl.{loop}(0, {k}, {kb}{stage}):
{slices}    acc = pl.matmul_acc(acc, a_k, b_k)
return acc""",
    # A loop over block indices, the K offset a body-local scalar (the peeled kernels' k0).
    "block index, predicated": """\
acc = pl.create_tensor([{m}, {n}], dtype=pl.{acc})
for kb in pl.{loop}(0, {blocks}{stage_only}):
    k0 = kb * {kb}
    a_k = pl.slice(a, [{m}, {kb}], [0, k0])
    b_k = pl.slice(b, [{kb}, {n}], [k0, 0])
    acc = pl.matmul_acc(acc, a_k, b_k, init_cond=k0 == 0)
return acc""",
}


def kernel_text(spelling: str, loop: str, dtype: str, m: int, k: int, n: int, kb: int = 64) -> str:
    stage = ", stage=2" if loop == "pipeline" else ""
    fields = dict(m=m, n=n, k=k, kb=kb, acc=ACC[dtype], loop=loop, stage=stage, blocks=k // kb,
                  stage_only=", stage=2" if loop == "pipeline" else "", zero="0" if dtype == "INT8" else "0.0")
    fields["slices"] = SLICES.format(**fields)
    body = SPELLINGS[spelling].format(**fields)
    return KERNEL.format(m=m, k=k, n=n, dt=dtype, acc=ACC[dtype], body=textwrap.indent(body, " " * 8))


def compile_and_simulate(text: str, inputs: dict[str, Array], backend: str,
                         tmp: Path) -> tuple[int, str, dict[str, Array]]:
    kernel = tmp / "kernel.py"
    kernel.write_text(text)
    arrays: dict[str, Any] = dict(inputs)
    np.savez(tmp / "in.npz", **arrays)
    out_npz = tmp / "out.npz"
    log = io.StringIO()
    with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log), contextlib.chdir(tmp):
        rc = main([str(kernel), "--verify-all", "--simulate", "--statistics", "--inputs", str(tmp / "in.npz"),
                   "--save-outputs", str(out_npz), "--backend", backend, "-o", str(tmp / "out.pto")])
    outputs = dict(np.load(out_npz)) if out_npz.exists() else {}
    return rc, log.getvalue(), outputs


# (spelling, loop, dtype, M, K, N): every [M, N] accumulator exceeds L0C on both backends, and
# M = 140 / 120 / 200 / 590 are not box multiples (valid-narrowed rows); the chooser's m / n leave
# boundary windows on at least one backend for each (590 x 160 splits M as well as N; FP32
# 128 x 592 makes Ascend950 tile K inside each user step).
CASES = [
    ("reassigned, predicated", "pipeline", "FP16", 140, 128, 560),
    ("explicit SSA, peeled", "range", "FP16", 590, 128, 160),
    ("block index, predicated", "range", "FP16", 144, 128, 496),
    ("reassigned, predicated", "range", "FP32", 128, 128, 592),
    ("explicit SSA, predicated", "pipeline", "FP32", 120, 128, 560),
    ("reassigned, peeled", "pipeline", "INT8", 200, 128, 608),
    ("explicit SSA, peeled", "range", "INT8", 176, 128, 736),
    ("zero seed", "pipeline", "INT8", 208, 128, 608),
]


@pytest.mark.parametrize("backend", BOTH)
@pytest.mark.parametrize(("spelling", "loop", "dtype", "m", "k", "n"), CASES)
def test_split_k_grid_compiles_and_simulates_bit_exact(spelling: str, loop: str, dtype: str, m: int, k: int,
                                                       n: int, backend: str, tmp_path: Path) -> None:
    a, b = operands(dtype, m, k, n, seed=m + k + n)
    rc, log, outputs = compile_and_simulate(kernel_text(spelling, loop, dtype, m, k, n), {"a": a, "b": b},
                                            backend, tmp_path)
    assert rc == 0, log
    assert "split-k-grid" in log, "the output grid did not fire:\n" + log
    assert "bit-exact" in log and "differ" not in log and "error" not in log, log
    expected = matmul_ref(a, b)
    got = outputs["ret0"]
    assert got.shape == expected.shape
    mismatched = np.argwhere(bits(expected) != got.view(bits(expected).dtype))
    assert len(mismatched) == 0, f"{len(mismatched)} elements differ, first at {tuple(mismatched[0])}"


# -- the pass on its own (TilePlaced kernels as InferTileMemorySpace leaves them) ---------------------

TILE_KERNEL = """\
import pypto.language as pl


@pl.program
class SplitK:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[{vm}, {k}], pl.{dt}], b: pl.Tensor[[{k}, {n}], pl.{dt}], out: pl.Out[pl.Tensor[[{vm}, {n}], pl.{acc}]]) -> pl.Tensor[[{vm}, {n}], pl.{acc}]:
{seed}
        for k, (acc_iter,) in pl.{loop}(0, {k}, {kb}, init_values=(acc,){stage}):
            a_k: pl.Tile[[{m}, {kb}], pl.{dt}, pl.Mem.Mat{a_view}] = pl.tile.load(a, [0, k], [{m}, {kb}]{a_valid}, target_memory=pl.Mem.Mat)
            b_k: pl.Tile[[{kb}, {n}], pl.{dt}, pl.Mem.Mat] = pl.tile.load(b, [k, 0], [{kb}, {n}], target_memory=pl.Mem.Mat)
{reduction}
        out_1: pl.Tensor[[{vm}, {n}], pl.{acc}] = pl.tile.store(acc_out, [0, 0], out)
        return out_1
"""

PREDICATED = """\
            acc_next: {acc_type} = pl.tile.matmul_acc(acc_iter, a_k, b_k, {cond})
            acc_out = pl.yield_(acc_next)"""

PEELED = """\
            if {cond}:
                first: {acc_type} = pl.tile.matmul(a_k, b_k)
                step = pl.yield_(first)
            else:
                later: {acc_type} = pl.tile.matmul_acc(acc_iter, a_k, b_k)
                step = pl.yield_(later)
            acc_out = pl.yield_(step)"""


def tile_kernel(m: int, k: int, n: int, dtype: str = "FP16", valid_m: int | None = None, kb: int = 64,
                loop: str = "pipeline", reduction: str = PREDICATED, cond: str = "k == 0") -> str:
    acc = ACC[dtype]
    vm = m if valid_m is None else valid_m
    narrowed = vm != m
    view = f", pl.TileView(valid_shape=[{vm}, {n}], compact=True)" if narrowed else ""
    acc_type = f"pl.Tile[[{m}, {n}], pl.{acc}, pl.Mem.Acc{view}]"
    if narrowed:
        seed = (f"        acc_storage: pl.Tile[[{m}, {n}], pl.{acc}, pl.Mem.Acc, pl.TileView(compact=True)] = "
                f"pl.tile.create([{m}, {n}], dtype=pl.{acc}, target_memory=pl.Mem.Acc, compact=True)\n"
                f"        acc: {acc_type} = pl.tile.set_validshape(acc_storage, {vm}, {n})")
    else:
        seed = f"        acc: {acc_type} = pl.tile.create([{m}, {n}], dtype=pl.{acc}, target_memory=pl.Mem.Acc)"
    return TILE_KERNEL.format(
        m=m, k=k, n=n, vm=vm, kb=kb, dt=dtype, acc=acc, loop=loop, seed=seed,
        stage=", stage=2" if loop == "pipeline" else "",
        a_view=f", pl.TileView(valid_shape=[{vm}, {kb}])" if narrowed else "",
        a_valid=f", [{vm}, {kb}]" if narrowed else "",
        reduction=reduction.format(acc_type=acc_type, cond=cond))


def run(source: str, backend: BackendHandler = B910) -> tuple[Node, L.Program, PassContext]:
    program = parse_program(source, "kernel.py", TilePlaced)
    ctx = PassContext(backend_name=backend.name, backend=backend)
    out = AutoTileMatmulL0().run(program, ctx)  # type: ignore[arg-type]
    assert isinstance(out, L.Program)
    return program, out, ctx


def assert_verified(program: L.Program, backend: BackendHandler = B910) -> None:
    problems = [d for verify in (grammar.verify_l0_tiled, ssa_form.verify, use_after_def.verify,
                                 type_checked.verify, acc_compact_valid.verify) for d in verify(program)]
    problems += l0_operands_placed.verify(program, backend)
    errors = [d for d in problems if d.severity == "error"]
    assert not errors, "\n".join(d.format() for d in errors)
    text = print_program(program)
    assert print_program(parse_program(text, "round.py", L0Tiled)) == text


def assert_same_meaning(before: Node, after: Node) -> None:
    inputs = random_inputs(before, seed=5)
    expected, got = reference(before, inputs), reference(after, inputs)
    for name, value in expected.items():
        assert np.array_equal(bits(value), bits(got[name])), name


def calls(program: Node, op: str) -> list[L.Call]:
    return [n for n in walk(program) if isinstance(n, L.Call) and n.op == op]


def ints(node: L.Expr) -> list[int]:
    assert isinstance(node, L.TupleExpr)
    return [e.value for e in node.elements if isinstance(e, L.ConstInt)]


def user_loops(program: Node) -> list[L.ForStmt]:
    """The clones of the user's K loop (their variable is the user's `k` renamed per window)."""
    return [n for n in walk(program) if isinstance(n, L.ForStmt) and n.loop_var.name.startswith("k_t")]


def chosen_windows(M: int, K_panel: int, N: int, valid_m: int | None = None,
                   boxes: PanelBoxes = PanelBoxes(16, 16)) -> list[Any]:
    """The split-K grid's windows as the pass must derive them: the TARGET_FACTS chooser on one
    K panel with the panels' boxes (output-stationary), then the windows over the valid extent."""
    dims = MatmulDims(M=M, N=N, K=K_panel, valid_m=valid_m or M, valid_n=N, bytes_a=2, bytes_b=2,
                      acc_dtype=DataType.FP32)
    choice = choose_l0_tile(split_k_chooser_config(dims, B910, boxes))
    assert choice is not None
    return split_k_windows(dims, choice.m, choice.n, boxes)


def test_predicated_chain_becomes_a_grid_of_cloned_reductions() -> None:
    before, out, ctx = run(tile_kernel(256, 128, 512))
    windows = chosen_windows(256, 64, 512)
    assert len(windows) > 1
    assert ctx.statistics["split-k-grid"] == 1 and ctx.statistics["split-k-windows"] == len(windows)
    # No full-output Acc survives: every seed is one legal [m, n] window.
    assert [ints(c.args[0]) for c in calls(out, "tile.create")] == [[w.rows, w.cols] for w in windows]
    loops = user_loops(out)
    assert len(loops) == len(windows)
    assert all(loop.kind == "pipeline" and loop.attrs == (("stage", 2),) for loop in loops)
    # Each clone runs the full K reduction on its window: both loads narrowed, the user's
    # predicate kept on the clone's own loop variable.
    for window, loop in zip(windows, loops):
        loads = [n for n in walk(loop) if isinstance(n, L.Call) and n.op == "tile.load"]
        assert [ints(load.args[2]) for load in loads] == [[window.rows, 64], [64, window.cols]]
        lhs_offsets, rhs_offsets = loads[0].args[1], loads[1].args[1]
        assert isinstance(lhs_offsets, L.TupleExpr) and lhs_offsets.elements[0] == L.ConstInt(window.row, DataType.INDEX)
        assert isinstance(rhs_offsets, L.TupleExpr) and rhs_offsets.elements[1] == L.ConstInt(window.col, DataType.INDEX)
        [step] = [n for n in walk(loop) if isinstance(n, L.Call) and n.op == "tile.matmul_acc"]
        predicate = step.args[3]
        assert isinstance(predicate, L.BinOp) and predicate.op == "=="
        assert predicate.lhs == loop.loop_var and predicate.rhs == L.ConstInt(0, DataType.INDEX)
    # The stores chain out -> out_t0 -> ... and the last one is returned.
    stores = calls(out, "tile.store")
    assert [ints(s.args[1]) for s in stores] == [[w.row, w.col] for w in windows]
    chain = ["out"] + [f"out_t{i}" for i in range(len(windows))]
    assert [s.args[2].name for s in stores] == chain[:-1]  # type: ignore[union-attr]
    assert f"return {chain[-1]}" in print_program(out)
    assert ctx.diagnostics == []
    assert_verified(out)
    assert_same_meaning(before, out)


def test_peeled_spelling_stays_peeled_in_every_window() -> None:
    before, out, ctx = run(tile_kernel(256, 128, 512, loop="range", reduction=PEELED))
    loops = user_loops(out)
    assert len(loops) == ctx.statistics["split-k-windows"] == 4
    for loop in loops:
        [branch] = [s for s in loop.body if isinstance(s, L.IfStmt)]
        then_ops = [n.op for s in branch.then_body for n in walk(s) if isinstance(n, L.Call)]
        else_ops = [n.op for s in branch.else_body for n in walk(s) if isinstance(n, L.Call)]
        assert "tile.matmul" in then_ops and "tile.matmul_acc" not in then_ops
        assert "tile.matmul_acc" in else_ops
    assert_verified(out)
    assert_same_meaning(before, out)


def test_boundary_windows_are_boxed_with_their_valid_extent() -> None:
    """M = 200 (boxed to 208) and N = 400: the chooser's windows leave an N tail, every window's
    rows are valid-narrowed, so every seed is compact and the tail keeps its valid extent."""
    before, out, ctx = run(tile_kernel(208, 128, 400, valid_m=200))
    windows = chosen_windows(208, 64, 400, valid_m=200)
    assert windows[-1].valid_cols < windows[0].valid_cols, "the chosen n leaves an N tail"
    assert ctx.statistics["split-k-windows"] == len(windows)
    storages = [c for c in calls(out, "tile.create")]
    assert [ints(c.args[0]) for c in storages] == [[w.rows, w.cols] for w in windows]
    assert all(dict(c.attrs)["compact"] is True for c in storages)
    narrowed = calls(out, "tile.set_validshape")
    assert [(a.args[1], a.args[2]) for a in narrowed][-1] == (L.ConstInt(windows[-1].valid_rows, DataType.INDEX),
                                                                L.ConstInt(windows[-1].valid_cols, DataType.INDEX))
    last_lhs = [c for c in calls(out, "tile.load") if c.args[0].name == "a"][-1]  # type: ignore[union-attr]
    assert ints(last_lhs.args[2]) == [windows[-1].rows, 64] and ints(last_lhs.args[3]) == [200, 64]
    last_store = calls(out, "tile.store")[-1]
    assert ints(last_store.args[1]) == [windows[-1].row, windows[-1].col]
    assert_verified(out)
    assert_same_meaning(before, out)


def test_m_and_n_grid_offsets_the_left_rows_and_the_store() -> None:
    before, out, ctx = run(tile_kernel(592, 128, 160, valid_m=590))
    lhs_rows = sorted({ints(c.args[1])[0] for c in calls(out, "tile.load")
                       if c.args[0].name == "a" and isinstance(c.args[1], L.TupleExpr)  # type: ignore[union-attr]
                       and isinstance(c.args[1].elements[0], L.ConstInt)})
    assert len(lhs_rows) >= 2 and lhs_rows[0] == 0
    assert ctx.statistics["split-k-windows"] > 2
    assert_verified(out)
    assert_same_meaning(before, out)


def test_inner_k_tiling_applies_to_the_narrowed_calls() -> None:
    """K panel 256 on Ascend910B: the chooser's k for a narrowed call is smaller than the panel,
    so each user step of every window becomes an inner pipeline whose predicate is the user's
    init_cond and-ed with the inner ko == 0."""
    before, out, ctx = run(tile_kernel(256, 512, 512, kb=256, loop="range"))
    windows = chosen_windows(256, 256, 512)
    assert ctx.statistics["split-k-windows"] == len(windows)
    narrowed = MatmulDims(M=windows[0].rows, N=windows[0].cols, K=256, valid_m=windows[0].rows,
                          valid_n=windows[0].cols, bytes_a=2, bytes_b=2, acc_dtype=DataType.FP32)
    inner_choice = choose_l0_tile(chooser_config(narrowed, B910, is_matmul_acc=True))
    assert inner_choice is not None and inner_choice.k < 256
    inner = [n for n in walk(out) if isinstance(n, L.ForStmt) and n.loop_var.name.startswith("ko")]
    assert len(inner) == len(windows)
    [step] = [n for n in walk(inner[0]) if isinstance(n, L.Call) and n.op == "tile.matmul_acc"]
    predicate = step.args[3]
    assert isinstance(predicate, L.BinOp) and predicate.op == "and"
    assert_verified(out)
    assert_same_meaning(before, out)


def test_a_chain_that_fits_l0c_is_left_to_the_ordinary_tiling() -> None:
    _, out, ctx = run(tile_kernel(128, 128, 128))
    assert "split-k-grid" not in ctx.statistics
    assert len(calls(out, "tile.create")) == 1
    assert_verified(out)


@pytest.mark.parametrize(("cond", "why"), [
    ("k == 64", "`k == 64` is not a split-K seed test"),
    ("k != 0", "`k != 0` is not a split-K seed test"),
])
def test_non_seed_init_cond_keeps_the_ph_at_006_error(cond: str, why: str) -> None:
    with pytest.raises(CompileError) as info:
        run(tile_kernel(256, 128, 512, cond=cond))
    [diag] = info.value.diagnostics
    assert diag.message.startswith("PH-AT-006") and why in diag.message
    assert "524288 bytes" in diag.message and "131072" in diag.message
    assert diag.span.line > 0 and "init_cond=k == 0" in diag.hint


def test_a_flag_init_cond_is_not_evidence() -> None:
    source = tile_kernel(256, 128, 512, cond="flag").replace(
        "out: pl.Out[", "flag: pl.Scalar[pl.BOOL], out: pl.Out[")
    with pytest.raises(CompileError, match="`flag` is not a split-K seed test"):
        run(source)


def test_peeled_spelling_needs_the_seed_test_too() -> None:
    with pytest.raises(CompileError, match="`k == 64` is not a split-K seed test"):
        run(tile_kernel(256, 128, 512, reduction=PEELED, cond="k == 64"))


def test_unpredicated_accumulation_keeps_the_ph_at_006_error() -> None:
    source = tile_kernel(256, 128, 512).replace("a_k, b_k, k == 0)", "a_k, b_k)")
    with pytest.raises(CompileError, match="has no init_cond"):
        run(source)


def test_a_second_use_of_the_result_keeps_the_ph_at_006_error() -> None:
    source = tile_kernel(256, 128, 512).replace(
        "        return out_1",
        "        out_2: pl.Tensor[[256, 512], pl.FP32] = pl.tile.store(acc_out, [0, 0], out_1)\n        return out_2")
    with pytest.raises(CompileError, match="not consumed by exactly one 2-D tile.store"):
        run(source)


def test_parallel_loop_keeps_the_ph_at_006_error() -> None:
    source = tile_kernel(256, 128, 512, loop="range").replace("pl.range(", "pl.parallel(")
    with pytest.raises(CompileError, match="pl.parallel loop"):
        run(source)


# -- the window arithmetic ---------------------------------------------------------------------------


def test_windows_box_an_int8_n_tail_to_whole_boxes() -> None:
    """An INT8 Right tile with a 16-column N tail is physically [K, 32], valid [K, 16]."""
    dims = MatmulDims(M=64, N=96, K=64, valid_m=60, valid_n=80, bytes_a=1, bytes_b=1, acc_dtype=DataType.INT32)
    windows = split_k_windows(dims, 64, 64, PanelBoxes(16, 32))
    assert [(w.row, w.col, w.rows, w.cols, w.valid_rows, w.valid_cols) for w in windows] == [
        (0, 0, 64, 64, 60, 64), (0, 64, 64, 32, 60, 16)]


def test_chooser_charges_the_panel_boxes() -> None:
    dims = MatmulDims(M=256, N=512, K=64, valid_m=256, valid_n=512, bytes_a=1, bytes_b=1, acc_dtype=DataType.INT32)
    config = split_k_chooser_config(dims, B910, PanelBoxes(16, 32))
    assert (config.box_align_m, config.box_align_n, config.is_matmul_acc) == (16, 32, True)
    assert config.l0c_align_m == B910.l0c_m_alignment("INT32")


def test_tile_type_of_a_window_seed_matches_its_accumulation() -> None:
    _, out, _ = run(tile_kernel(208, 128, 400, valid_m=200))
    for loop in user_loops(out):
        [carried] = loop.iter_args
        assert isinstance(carried.var.type, TileType) and carried.var.type == loop.results[0].type
