"""InferTileMemorySpace: spaces from the registry, implicit views, hops, and its verifier."""

from __future__ import annotations

import textwrap
from dataclasses import replace

import pytest

import languages.gen.tile_placed as P
import languages.gen.tile_unplaced as U
from backend.targets.handlers import get_backend
from languages.decls import TilePlaced, TileUnplaced
from languages.memory_space import MemorySpace
from languages.pl_parser import parse_program
from languages.types import DataType, TileType, attr
from languages.views import implicit_view
from nanopass.diagnostics import CompileError
from nanopass.node import Node, walk
from nanopass.passes import PassContext
from passes.infer_tile_memory_space import InferTileMemorySpace
from verifiers import tile_memory_placed

HEADER = "import pypto.language as pl\n\n@pl.program\nclass K:\n    @pl.function(type=pl.FunctionType.InCore)\n"


def kernel(signature: str, body: str) -> str:
    return HEADER + f"    def k(self, {signature}:\n" + textwrap.indent(textwrap.dedent(body).strip() + "\n", " " * 8)


def place(text: str, backend: str = "Ascend910B") -> P.Program:
    program = parse_program(text, "k.py", language=TileUnplaced)
    assert isinstance(program, U.Program)
    ctx = PassContext(backend_name=backend, backend=get_backend(backend))
    out = InferTileMemorySpace().run(program, ctx)
    assert isinstance(out, P.Program)
    assert tile_memory_placed.verify(out) == []
    return out


def assigns(program: Node) -> dict[str, P.AssignStmt]:
    return {n.target.name: n for n in walk(program) if isinstance(n, P.AssignStmt)}


def space(program: Node, name: str) -> MemorySpace | None:
    ty = assigns(program)[name].target.type
    assert isinstance(ty, TileType)
    return ty.memory_space


def every_tile_has_implicit_or_declared_view(program: Node) -> None:
    for node in walk(program):
        ty = getattr(node, "type", None)
        if node.KIND in ("Var", "Call") and isinstance(ty, TileType):
            assert ty.memory_space is not None and ty.view is not None, node


ADD = kernel(
    "a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32], "
    "out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]",
    """
    ta: pl.Tile[[16, 32], pl.FP32] = pl.tile.load(a, [0, 0], [16, 32])
    tb: pl.Tile[[16, 32], pl.FP32] = pl.tile.load(b, [0, 0], [16, 32])
    tc: pl.Tile[[16, 32], pl.FP32] = pl.tile.add(ta, tb)
    r: pl.Tensor[[16, 32], pl.FP32] = pl.tile.store(tc, [0, 0], out)
    return r
    """)


def test_elementwise_kernel_lands_in_vec_with_target_memory_written_out() -> None:
    out = place(ADD)
    stmts = assigns(out)
    for name in ("ta", "tb", "tc"):
        assert space(out, name) is MemorySpace.Vec
        ty = stmts[name].target.type
        assert isinstance(ty, TileType) and ty.view == implicit_view(MemorySpace.Vec, ty.shape)
        value = stmts[name].value
        assert isinstance(value, P.Call) and value.type == ty  # the call's type is the variable's
    assert attr(stmts["ta"].value.attrs, "target_memory") is MemorySpace.Vec  # type: ignore[union-attr]
    every_tile_has_implicit_or_declared_view(out)


SOFTMAX = kernel(
    "x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]",
    """
    t: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(x, [0, 0], [16, 64])
    tmp: pl.Tile[[16, 64], pl.FP32] = pl.tile.create([16, 64], dtype=pl.FP32)
    mx: pl.Tile[[16, 1], pl.FP32] = pl.tile.row_max(t, tmp)
    sh: pl.Tile[[16, 64], pl.FP32] = pl.tile.row_expand_sub(t, mx)
    e: pl.Tile[[16, 64], pl.FP32] = pl.tile.exp(sh)
    s: pl.Tile[[16, 1], pl.FP32] = pl.tile.row_sum(e, tmp)
    y: pl.Tile[[16, 64], pl.FP32] = pl.tile.row_expand_div(e, s)
    r: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(y, [0, 0], out)
    return r
    """)


def test_softmax_all_vec_and_column_vectors_get_the_dn_view() -> None:
    out = place(SOFTMAX)
    for name in ("t", "tmp", "mx", "sh", "e", "s", "y"):
        assert space(out, name) is MemorySpace.Vec
    mx = assigns(out)["mx"].target.type
    assert isinstance(mx, TileType) and mx.view is not None and mx.view.blayout == "col_major"
    assert not any(isinstance(n, P.Call) and n.op == "tile.move" for n in walk(out))


MATMUL = kernel(
    "a: pl.Tensor[[64, 128], pl.FP16], b: pl.Tensor[[128, 64], pl.FP16], "
    "out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]",
    """
    ta: pl.Tile[[64, 128], pl.FP16] = pl.tile.load(a, [0, 0], [64, 128])
    tb: pl.Tile[[128, 64], pl.FP16] = pl.tile.load(b, [0, 0], [128, 64])
    c: pl.Tile[[64, 64], pl.FP32] = pl.tile.matmul(ta, tb)
    r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(c, [0, 0], out)
    return r
    """)


def test_matmul_operands_stay_in_mat_and_the_result_is_acc() -> None:
    out = place(MATMUL)
    assert space(out, "ta") is MemorySpace.Mat and space(out, "tb") is MemorySpace.Mat
    assert space(out, "c") is MemorySpace.Acc
    assert not any(isinstance(n, P.Call) and n.op == "tile.move" for n in walk(out))  # the L0 hop is AutoTile's


K_LOOP = kernel(
    "a: pl.Tensor[[64, 128], pl.FP16], b: pl.Tensor[[128, 64], pl.FP16], "
    "out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]",
    """
    c0: pl.Tile[[64, 64], pl.FP32] = pl.tile.create([64, 64], dtype=pl.FP32)
    for ko, (c_iter,) in pl.range(0, 128, 64, init_values=(c0,)):
        ta: pl.Tile[[64, 64], pl.FP16] = pl.tile.load(a, [0, ko], [64, 64])
        tb: pl.Tile[[64, 64], pl.FP16] = pl.tile.load(b, [ko, 0], [64, 64])
        c_next: pl.Tile[[64, 64], pl.FP32] = pl.tile.matmul_acc(c_iter, ta, tb, ko == 0)
        c = pl.yield_(c_next)
    r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(c, [0, 0], out)
    return r
    """)


def test_accumulator_seed_follows_the_loop_carried_demand_into_acc() -> None:
    out = place(K_LOOP)
    assert space(out, "c0") is MemorySpace.Acc and space(out, "c_next") is MemorySpace.Acc
    loop = next(n for n in walk(out) if isinstance(n, P.ForStmt))
    for var in (loop.iter_args[0].var, loop.results[0]):
        assert isinstance(var.type, TileType) and var.type.memory_space is MemorySpace.Acc


ACC_TO_VEC = kernel(
    "a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16], "
    "out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]",
    """
    ta: pl.Tile[[16, 16], pl.FP16] = pl.tile.load(a, [0, 0], [16, 16])
    tb: pl.Tile[[16, 16], pl.FP16] = pl.tile.load(b, [0, 0], [16, 16])
    c: pl.Tile[[16, 16], pl.FP32] = pl.tile.matmul(ta, tb)
    e: pl.Tile[[16, 16], pl.FP32] = pl.tile.exp(c)
    r: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(e, [0, 0], out)
    return r
    """)


def test_acc_to_vec_move_is_inserted_where_the_backend_has_the_path() -> None:
    out = place(ACC_TO_VEC, backend="Ascend950")
    moves = [n for n in walk(out) if isinstance(n, P.AssignStmt) and isinstance(n.value, P.Call)
             and n.value.op == "tile.move"]
    assert len(moves) == 1
    move = moves[0]
    assert isinstance(move.value, P.Call) and attr(move.value.attrs, "target_memory") is MemorySpace.Vec
    exp = assigns(out)["e"].value
    assert isinstance(exp, P.Call) and exp.args[0] == move.target


def test_acc_to_vec_on_910b_is_a_cross_core_move() -> None:
    # 910B has no Acc -> Vec path: the hop is marked for ExpandMixedKernel (a tpush / tpop pair
    # between the AIC and AIV kernels), and its result has the Vec buffer's own layout.
    out = place(ACC_TO_VEC)
    moves = [n for n in walk(out) if isinstance(n, P.AssignStmt) and isinstance(n.value, P.Call)
             and n.value.op == "tile.move"]
    assert len(moves) == 1 and isinstance(moves[0].value, P.Call)
    assert attr(moves[0].value.attrs, "cross_core") is True
    assert isinstance(moves[0].target.type, TileType) and moves[0].target.type.view is not None
    assert moves[0].target.type.view.slayout == "none_box"


EXPLICIT = kernel(
    "a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16], "
    "out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]",
    """
    ta: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
    tb: pl.Tile[[16, 16], pl.FP16] = pl.tile.load(b, [0, 0], [16, 16])
    c: pl.Tile[[16, 16], pl.FP32] = pl.tile.matmul(ta, tb)
    r: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(c, [0, 0], out)
    return r
    """)


def test_explicit_target_memory_is_kept_and_hopped_with_a_move() -> None:
    out = place(EXPLICIT, backend="Ascend950")
    assert space(out, "ta") is MemorySpace.Vec
    matmul = assigns(out)["c"].value
    assert isinstance(matmul, P.Call)
    lhs = matmul.args[0]
    assert isinstance(lhs, P.Var) and lhs.name != "ta"
    assert isinstance(lhs.type, TileType) and lhs.type.memory_space is MemorySpace.Mat
    hop = assigns(out)[lhs.name].value
    assert isinstance(hop, P.Call) and hop.op == "tile.move"


def test_explicit_target_memory_without_a_data_path_reloads_from_gm() -> None:
    out = place(EXPLICIT)  # 910B: no Vec -> Mat move
    assert space(out, "ta") is MemorySpace.Vec
    matmul = assigns(out)["c"].value
    assert isinstance(matmul, P.Call) and isinstance(matmul.args[0], P.Var)
    reload = assigns(out)[matmul.args[0].name].value
    assert isinstance(reload, P.Call) and reload.op == "tile.load"
    assert attr(reload.attrs, "target_memory") is MemorySpace.Mat


def test_verifier_catches_an_operand_in_the_wrong_space() -> None:
    out = place(ADD)
    stmts = assigns(out)
    ta = stmts["ta"].target
    assert isinstance(ta.type, TileType)
    in_mat = P.Var(ta.name, replace(ta.type, memory_space=MemorySpace.Mat,
                                    view=implicit_view(MemorySpace.Mat, ta.type.shape)))
    add = stmts["tc"].value
    assert isinstance(add, P.Call)
    broken = P.Call(add.op, (in_mat, add.args[1]), add.attrs, add.type)
    diags = tile_memory_placed.verify(broken)
    assert len(diags) == 1 and "Vec" in diags[0].message and "Mat" in diags[0].message


def test_verifier_catches_a_tile_without_space() -> None:
    unplaced = P.Var("t", TileType((16, 16), DataType.FP32))
    diags = tile_memory_placed.verify(unplaced)
    assert diags and "memory space" in diags[0].message


def test_verifier_accepts_mat_matmul_operands_only_for_the_matmul_family() -> None:
    out = place(MATMUL)
    assert tile_memory_placed.verify(out) == []


def test_placed_program_parses_back_as_tile_placed() -> None:
    from languages.pl_printer import print_program

    out = place(SOFTMAX)
    again = parse_program(print_program(out), "k.py", language=TilePlaced)
    assert print_program(again) == print_program(out)
