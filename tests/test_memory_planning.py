"""Memory planning: InitMemRef, MaterializeSemanticAliases, MemoryReuse, AllocateMemoryAddr, and
the HasMemRefs / MemoryCapacity / NoCoLiveOverlap verifiers (each fed a hand-broken program)."""

from __future__ import annotations

import textwrap
from dataclasses import replace
from pathlib import Path

import pytest
from typing_extensions import override

import languages.gen.addressed as A
import languages.gen.l0_tiled as L
from backend.targets.handlers import BackendHandler, get_backend
from languages.decls import Addressed, L0Tiled
from languages.memory_space import MemorySpace
from languages.pl_parser import parse_program
from languages.types import MemRef, TileType
from nanopass.diagnostics import CompileError
from nanopass.node import Node, walk
from nanopass.passes import PassContext
from passes.allocate_memory_addr import AllocateMemoryAddr
from passes.init_mem_ref import InitMemRef
from passes.materialize_semantic_aliases import MaterializeSemanticAliases
from passes.memory_reuse import MemoryReuse
from verifiers import has_mem_refs, in_place_safety, memory_capacity, no_co_live_overlap

HEADER = "import pypto.language as pl\n\n@pl.program\nclass K:\n    @pl.function(type=pl.FunctionType.InCore)\n"
GOLDEN = Path(__file__).parent / "golden"


def kernel(signature: str, body: str) -> str:
    return HEADER + f"    def k(self, {signature}:\n" + textwrap.indent(textwrap.dedent(body).strip() + "\n", " " * 8)


def l0_tiled(text: str) -> L.Program:
    program = parse_program(text, "k.py", language=L0Tiled)
    assert isinstance(program, L.Program)
    return program


def context(backend: str = "Ascend910B") -> PassContext:
    return PassContext(backend_name=backend, backend=get_backend(backend))


def plan(text: str, *, reuse: bool = True, backend: str = "Ascend910B") -> A.Program:
    ctx = context(backend)
    program = InitMemRef().run(l0_tiled(text), ctx)
    program = MaterializeSemanticAliases().run(program, ctx)
    if reuse:
        program = MemoryReuse().run(program, ctx)
    program = AllocateMemoryAddr().run(program, ctx)
    check_all_verifiers(program, get_backend(backend))
    return program


def check_all_verifiers(program: Node, backend: BackendHandler) -> None:
    assert has_mem_refs.verify(program) == []
    assert no_co_live_overlap.verify(program) == []
    assert memory_capacity.verify_with(program, backend) == []
    assert memory_capacity.verify(program, backend) == []


def memref(program: Node, name: str) -> MemRef:
    for node in walk(program):
        if isinstance(node, A.Var) and node.name == name:
            assert isinstance(node.type, TileType) and node.type.memref is not None
            return node.type.memref
    raise AssertionError(f"no variable {name}")


VEC_CHAIN = kernel(
    "x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]",
    """
    a: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
    b: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
    c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(a, b)
    d: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(c)
    v: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.slice(d, [16, 32], [0, 0])
    r: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(d, [0, 0], out)
    return r
    """)


def test_init_mem_ref_binds_every_tile_with_unassigned_offsets_and_views_share() -> None:
    program = InitMemRef().run(l0_tiled(VEC_CHAIN), context())
    assert has_mem_refs.verify(program) == []
    names = {memref(program, v).name for v in "abcd"}
    assert len(names) == 4 and all(n.startswith("mem_vec_") for n in names)
    assert all(memref(program, v).offset == -1 and memref(program, v).size == 16 * 64 * 4 for v in "abcd")
    assert memref(program, "v") == memref(program, "d")  # a slice is a view of d's bytes


INT32_ACC = kernel(
    "a: pl.Tensor[[16, 32], pl.INT8], b: pl.Tensor[[32, 16], pl.INT8], "
    "out: pl.Out[pl.Tensor[[16, 16], pl.INT32]]) -> pl.Tensor[[16, 16], pl.INT32]",
    """
    ma: pl.Tile[[16, 32], pl.INT8, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
    mb: pl.Tile[[32, 16], pl.INT8, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [32, 16], target_memory=pl.Mem.Mat)
    la: pl.Tile[[16, 32], pl.INT8, pl.Mem.Left] = pl.tile.move(ma, target_memory=pl.Mem.Left)
    rb: pl.Tile[[32, 16], pl.INT8, pl.Mem.Right] = pl.tile.move(mb, target_memory=pl.Mem.Right)
    c: pl.Tile[[16, 16], pl.INT32, pl.Mem.Acc] = pl.tile.matmul(la, rb)
    r: pl.Tensor[[16, 16], pl.INT32] = pl.tile.store(c, [0, 0], out)
    return r
    """)


@pytest.mark.parametrize(("backend", "rows"), [("Ascend910B", 32), ("Ascend950", 16)])
def test_acc_buffer_is_sized_at_the_l0c_row_footprint(backend: str, rows: int) -> None:
    program = InitMemRef().run(l0_tiled(INT32_ACC), context(backend))
    assert memref(program, "c").size == rows * 16 * 4
    assert memref(program, "c").space is MemorySpace.Acc


def test_pipeline_loop_carried_accumulator_shares_one_memref() -> None:
    program = plan((GOLDEN / "pipeline_k_loop.py").read_text())
    carried = {memref(program, v) for v in ("c_l0_init", "c_iter", "c_acc", "c")}
    assert len(carried) == 1
    assert memref(program, "sa").space is MemorySpace.Left and memref(program, "sb").space is MemorySpace.Right


def test_reuse_happens_when_lifetimes_are_disjoint_and_not_when_they_overlap() -> None:
    program = plan(VEC_CHAIN)
    assert memref(program, "a").name != memref(program, "b").name  # co-live operands of the add
    assert memref(program, "a").offset != memref(program, "b").offset
    # c is born where a and b die (an in-place-safe add) and d where c dies: one slot carries them.
    assert memref(program, "c").name in (memref(program, "a").name, memref(program, "b").name)
    assert memref(program, "d").name == memref(program, "c").name
    unplanned = plan(VEC_CHAIN, reuse=False)
    assert len({memref(unplanned, v).name for v in "abcd"}) == 4


MOVE = kernel(
    "x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]",
    """
    a: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
    m: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.move(a, target_memory=pl.Mem.Vec)
    r: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(m, [0, 0], out)
    return r
    """)


def test_no_reuse_across_the_input_and_output_of_an_op_that_is_not_in_place_safe() -> None:
    program = plan(MOVE)
    assert memref(program, "m").name != memref(program, "a").name


LOOP = kernel(
    "x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]",
    """
    a: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
    for i in pl.range(4):
        e: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(a)
        f: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(e)
        g: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(f)
        s: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(g, [0, 0], out)
    return out
    """)


def test_a_value_read_inside_a_loop_stays_live_for_the_whole_loop() -> None:
    program = plan(LOOP)
    assert memref(program, "a").name not in {memref(program, v).name for v in "efg"}
    assert memref(program, "g").name in {memref(program, v).name for v in "ef"}  # body-local values do reuse


ODD = kernel(
    "x: pl.Tensor[[1, 3], pl.FP32], out: pl.Out[pl.Tensor[[1, 3], pl.FP32]]) -> pl.Tensor[[1, 3], pl.FP32]",
    """
    a: pl.Tile[[1, 3], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [1, 3], target_memory=pl.Mem.Vec)
    b: pl.Tile[[1, 3], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [1, 3], target_memory=pl.Mem.Vec)
    c: pl.Tile[[1, 3], pl.FP32, pl.Mem.Vec] = pl.tile.add(a, b)
    m: pl.Tile[[1, 3], pl.FP32, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [1, 3], target_memory=pl.Mem.Mat)
    n: pl.Tile[[1, 3], pl.FP32, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [1, 3], target_memory=pl.Mem.Mat)
    r: pl.Tensor[[1, 3], pl.FP32] = pl.tile.store(c, [0, 0], out)
    return r
    """)


@pytest.mark.parametrize("text", [ODD, VEC_CHAIN, LOOP, MOVE, INT32_ACC], ids=["odd", "chain", "loop", "move", "acc"])
@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_every_offset_is_aligned_to_its_space(text: str, backend: str) -> None:
    program = plan(text, backend=backend)
    handler = get_backend(backend)
    offsets = [n.type.memref for n in walk(program) if isinstance(n, A.Var) and isinstance(n.type, TileType)]
    assert offsets
    for ref in offsets:
        assert ref is not None and ref.offset >= 0 and ref.offset % handler.alignment(ref.space) == 0


def test_odd_sizes_are_padded_to_the_alignment_between_buffers() -> None:
    program = plan(ODD, reuse=False)
    assert sorted(memref(program, v).offset for v in "ab") == [0, 128]
    assert sorted(memref(program, v).offset for v in "mn") == [0, 128]


BIG = kernel(
    "x: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]",
    """
    a: pl.Tile[[256, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [256, 128], target_memory=pl.Mem.Vec)
    b: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [128, 128], target_memory=pl.Mem.Vec)
    c: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.exp(b)
    r: pl.Tensor[[256, 128], pl.FP32] = pl.tile.store(a, [0, 0], out)
    return r
    """)


def test_over_capacity_names_space_bytes_limit_source_line_and_two_fixes() -> None:
    with pytest.raises(CompileError) as err:
        plan(BIG)
    text = str(err.value)
    assert "k.py:7:" in text  # the line of `a`, the largest buffer
    assert "Vec" in text and str(256 * 128 * 4 + 128 * 128 * 4) in text and "188416" in text
    assert "smaller tiles" in text and "split the kernel" in text
    assert "Traceback" not in text
    plan(BIG, backend="Ascend950")  # 245760 bytes of UB hold it


# -- verifiers on hand-broken programs --------------------------------------------------------------


def addressed_golden() -> A.Program:
    program = parse_program((GOLDEN / "addressed_memrefs.py").read_text(), "g.py", language=Addressed)
    assert isinstance(program, A.Program)
    return program


def rebind(program: A.Program, var: str, new: MemRef) -> A.Program:
    """Hand-break a program: give every occurrence of `var` (and its defining call) `new`."""

    class Break(A.Rewriter):
        @override
        def visit_Var(self, node: A.Var) -> A.Var:
            if node.name == var and isinstance(node.type, TileType):
                return A.Var(node.name, replace(node.type, memref=new), span=node.span)
            return node

        @override
        def visit_AssignStmt(self, node: A.AssignStmt) -> A.Stmt | tuple[A.Stmt, ...]:
            out = super().visit_AssignStmt(node)
            if isinstance(out, A.AssignStmt) and out.target.name == var and isinstance(out.value, A.Call):
                call = out.value
                out = A.AssignStmt(out.target, A.Call(call.op, call.args, call.attrs, out.target.type, call.span),
                                   span=out.span)
            return out

    return Break().visit_Program(program)


def test_verifiers_accept_the_golden_addressed_program_with_an_in_place_add() -> None:
    check_all_verifiers(addressed_golden(), get_backend("Ascend910B"))


def test_no_co_live_overlap_catches_two_live_buffers_at_one_address() -> None:
    broken = rebind(addressed_golden(), "tb", MemRef("mem_vec_1", MemorySpace.Vec, 1024, 2048))
    diags = no_co_live_overlap.verify(broken)
    assert len(diags) == 1 and "`ta`" in diags[0].message and "`tb`" in diags[0].message
    assert diags[0].span.known


def test_no_co_live_overlap_catches_a_same_address_move() -> None:
    broken = rebind(addressed_golden(), "m", MemRef("mem_mat_0", MemorySpace.Vec, 0, 2048))
    broken = rebind(broken, "m", MemRef("mem_vec_9", MemorySpace.Vec, 0, 2048))
    assert no_co_live_overlap.verify(broken)


def test_has_mem_refs_catches_a_missing_and_a_too_small_memref() -> None:
    program = addressed_golden()
    ta = next(n for n in walk(program) if isinstance(n, A.Var) and n.name == "ta")
    assert isinstance(ta.type, TileType)
    missing = A.Var("ta", replace(ta.type, memref=None))
    assert "no MemRef" in has_mem_refs.verify(missing)[0].message
    small = rebind(program, "tb", MemRef("mem_vec_1", MemorySpace.Vec, 2048, 1024))
    assert any("needs 2048 bytes" in d.message for d in has_mem_refs.verify(small))
    wrong_space = rebind(program, "tb", MemRef("mem_vec_1", MemorySpace.Mat, 2048, 2048))
    assert any("Mat" in d.message for d in has_mem_refs.verify(wrong_space))


def test_memory_capacity_catches_misalignment_and_overflow() -> None:
    backend = get_backend("Ascend910B")
    misaligned = rebind(addressed_golden(), "tb", MemRef("mem_vec_1", MemorySpace.Vec, 2050, 2048))
    assert any("alignment" in d.message for d in memory_capacity.verify_with(misaligned, backend))
    beyond = rebind(addressed_golden(), "tb", MemRef("mem_vec_1", MemorySpace.Vec, 188416, 2048))
    diags = memory_capacity.verify_with(beyond, backend)
    assert any("188416" in d.message and "Vec" in d.message for d in diags)
    assert memory_capacity.verify(beyond, backend)
    assert memory_capacity.verify(beyond) == []  # no target known: capacity cannot be judged


class _AsL0Tiled(L.FromTilePlaced):
    """Stands in for AutoTileMatmulL0 on kernels without a matmul (a pure language step)."""


def placed_then_planned(path: Path) -> A.Program:
    """The unplaced golden kernel through InferTileMemorySpace and the whole memory planner."""
    from languages.decls import TileUnplaced
    from languages.pl_printer import print_program
    from passes.infer_tile_memory_space import InferTileMemorySpace

    unplaced = parse_program(path.read_text(), path.name, language=TileUnplaced)
    placed = InferTileMemorySpace().run(unplaced, context())  # type: ignore[arg-type]
    return plan(print_program(_AsL0Tiled().visit_Program(placed)))


def test_a_result_never_takes_over_a_scratch_operand_the_op_writes() -> None:
    program = placed_then_planned(GOLDEN / "softmax_rows.py")
    assert memref(program, "row_sum").name != memref(program, "scratch").name  # row_sum writes its tmp
    assert memref(program, "probs").name == memref(program, "exps").name  # a read-only operand may hand over


def test_in_place_safety_rejects_a_result_over_the_scratch_it_writes() -> None:
    program = placed_then_planned(GOLDEN / "softmax_rows.py")
    assert in_place_safety.verify(program) == []
    scratch = memref(program, "scratch")
    broken = rebind(program, "row_sum", replace(scratch, size=max(scratch.size, memref(program, "row_sum").size)))
    broken = rebind(broken, "row_sum", MemRef("mem_vec_99", scratch.space, scratch.offset, scratch.size))
    found = in_place_safety.verify(broken)
    assert any("`scratch`" in d.message and "`row_sum`" in d.message for d in found), found
