"""PTOCodegen (Addressed -> PTO), the PTO-ISA MLIR printer and the BoxedExtents verifier."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from backend.pto_text.printer import print_mlir, tile_buf_type
from languages.gen import addressed as A
from languages.gen import pto as P
from languages.memory_space import MemorySpace
from languages.ops import REGISTRY
from languages.ops import pto_ops
from languages.ops.pto_ops import alloc_attrs, float_literal, tile_from_alloc_attrs
from languages.pl_parser import load_program, parse_program
from languages.types import DataType, MemRef, TileType, TileView
from nanopass.diagnostics import CompileError
from nanopass.passes import PassContext
from passes.pto_codegen import PTOCodegen
from passes.analysis.boxed_extents import boxed_extent_message
from verifiers import boxed_extents

GOLDEN = Path(__file__).parent / "golden" / "pto"


def _ensure_pto_ops_registered() -> None:
    # Until languages/ops/__init__.py imports pto_ops itself.
    for op in pto_ops.OPS:
        if op.name not in REGISTRY:
            REGISTRY.register(op)


_ensure_pto_ops_registered()


def compile_file(name: str, **options: bool) -> P.Program:
    program = load_program(str(GOLDEN / f"{name}.py"))
    assert isinstance(program, A.Program)
    return PTOCodegen(**options).run(program, PassContext())


def mlir(name: str, emit_loc: bool = False, **options: bool) -> str:
    return print_mlir(compile_file(name, **options), emit_loc=emit_loc)


# -- the spec's complete example ---------------------------------------------------------------


def test_spec_mul_kernel_matches_golden_text() -> None:
    assert mlir("mul_kernel_2d") == (GOLDEN / "mul_kernel_2d.mlir").read_text()


@pytest.mark.parametrize("name", ["mul_kernel_2d", "matmul_k_loop", "vec_ops"])
def test_filecheck_patterns(name: str, tmp_path: Path) -> None:
    if shutil.which("filecheck") is None:
        pytest.skip("filecheck not installed")
    out = tmp_path / f"{name}.mlir"
    out.write_text(mlir(name, emit_loc=True))
    result = subprocess.run(["filecheck", str(GOLDEN / f"{name}.check"), "--input-file", str(out)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


# -- structure ----------------------------------------------------------------------------------


def _section(stmt: P.Stmt) -> int:
    """0 constants, 1 tensor views, 2 allocations, 3 body."""
    if isinstance(stmt, P.AssignStmt) and isinstance(stmt.value, P.Call):
        return {"arith.constant": 0, "pto.make_tensor_view": 1, "pto.alloc_tile": 2}.get(stmt.value.op, 3)
    return 3


@pytest.mark.parametrize("name", ["mul_kernel_2d", "matmul_k_loop", "vec_ops"])
def test_generation_order_constants_views_allocations_body(name: str) -> None:
    for function in compile_file(name).functions:
        sections = [_section(s) for s in function.body]
        assert sections == sorted(sections)
        assert sections[0] == 0 and sections[-1] == 3


@pytest.mark.parametrize("name", ["mul_kernel_2d", "matmul_k_loop", "vec_ops"])
def test_output_is_in_the_pto_language(name: str) -> None:
    from verifiers.grammar import verify_language
    from verifiers.ssa_form import verify as ssa_verify

    program = compile_file(name)
    assert verify_language(program, "PTO") == []
    assert ssa_verify(program) == []
    assert boxed_extents.verify(program) == []


def test_every_alloc_has_its_memref_address_and_aliases_share_it() -> None:
    program = compile_file("matmul_k_loop")
    allocs = [s for s in program.functions[0].body
              if isinstance(s, P.AssignStmt) and isinstance(s.value, P.Call) and s.value.op == "pto.alloc_tile"]
    addr_names: dict[str, set[str]] = {}
    for stmt in allocs:
        tile = stmt.target.type
        assert isinstance(tile, TileType) and tile.memref is not None
        (addr,) = stmt.value.args  # type: ignore[union-attr]
        assert isinstance(addr, P.Var) and addr.name == f"c{tile.memref.offset}_i64"
        addr_names.setdefault(tile.memref.name, set()).add(addr.name)
    assert all(len(names) == 1 for names in addr_names.values())
    # One handle per MemRef and buffer configuration: the seed, and its narrowed alias that the
    # loop accumulates into in place (the per-iteration result is that same handle).
    assert sum(1 for s in allocs if isinstance(s.target.type, TileType) and s.target.type.memory_space
               is MemorySpace.Acc) == 2


def test_only_kernels_are_emitted() -> None:
    program = compile_file("vec_ops")
    assert [f.name for f in program.functions] == ["vec_ops"]


def test_no_tile_addr_mode_omits_addr() -> None:
    text = mlir("mul_kernel_2d", emit_tile_addr=False)
    assert "pto.alloc_tile : !pto.tile_buf" in text and "addr =" not in text and "_i64" not in text


# -- tensor views ---------------------------------------------------------------------------------


def test_column_vector_tensor_is_dn_with_swapped_strides() -> None:
    text = mlir("vec_ops")
    assert ("pto.make_tensor_view %arg1, shape = [%c16_index, %c1_index], strides = [%c1_index, %c16_index] "
            "{layout = #pto.layout<dn>} : !pto.tensor_view<?x?xf32>") in text
    assert "pto.make_tensor_view %arg0, shape = [%c16_index, %c32_index], strides = [%c32_index, %c1_index] " \
           "{layout = #pto.layout<nd>}" in text


def test_load_window_is_the_valid_extent() -> None:
    text = mlir("matmul_k_loop")
    assert "sizes = [%c100_index, %c256_index] : !pto.tensor_view<?x?xf16> -> !pto.partition_tensor_view<100x256xf16>" in text
    assert "-> !pto.partition_tensor_view<100x128xf32>" in text


# -- per-op emission -------------------------------------------------------------------------------


def _instructions(program: P.Program) -> list[P.Call]:
    from nanopass.node import walk

    return [n for n in walk(program) if isinstance(n, P.Call) and n.op.startswith("pto.")]


def test_vector_ops_map_through_the_registry() -> None:
    ops = [c.op for c in _instructions(compile_file("vec_ops"))]
    body = [o for o in ops if o not in ("pto.make_tensor_view", "pto.alloc_tile", "pto.partition_view")]
    assert body == ["pto.tload", "pto.trowmax", "pto.tload", "pto.trowexpandsub", "pto.texp", "pto.trowsum",
                    "pto.trowexpanddiv", "pto.tadds", "pto.tcvt", "pto.tstore"]
    text = mlir("vec_ops")
    assert re.search(r"pto\.tcvt ins\(%5 \{rmode = #pto<round_mode RINT>\} : [^)]*\) outs\(%7 : [^)]*dtype=f16", text)
    assert "%cst = arith.constant 1.5 : f32" in text and re.search(r"pto\.tadds ins\(%4, %cst : [^)]*, f32\) outs\(", text)


def test_matmul_acc_with_runtime_init_cond_is_scf_if() -> None:
    program = compile_file("matmul_k_loop")
    loop = next(s for s in program.functions[0].body if isinstance(s, P.ForStmt))
    branch = next(s for s in loop.body if isinstance(s, P.IfStmt))
    then_call, else_call = branch.then_body[0].value, branch.else_body[0].value  # type: ignore[union-attr]
    assert isinstance(then_call, P.Call) and isinstance(else_call, P.Call)
    assert then_call.op == "pto.tmatmul" and len(then_call.args) == 3
    # The accumulator is updated in place: one handle read and written, nothing carried.
    assert else_call.op == "pto.tmatmul.acc" and else_call.args[0] == else_call.args[-1] == then_call.args[-1]
    assert loop.iter_args == () and loop.results == ()
    text = mlir("matmul_k_loop")
    assert re.search(r"%(\d+) = arith.cmpi eq, %11, %c0_index : index\n\s+scf.if %\1 \{", text)


def _with_init_cond(literal: str) -> str:
    text = (GOLDEN / "matmul_k_loop.py").read_text()
    return text.replace("pl.tile.matmul_acc(c_iter, sa, sb, ko == 0)", f"pl.tile.matmul_acc(c_iter, sa, sb, {literal})")


@pytest.mark.parametrize("literal,instruction", [("True", "pto.tmatmul"), ("False", "pto.tmatmul.acc")])
def test_constant_init_cond_selects_one_instruction(literal: str, instruction: str) -> None:
    program = parse_program(_with_init_cond(literal), "k.py")
    assert isinstance(program, A.Program)
    out = PTOCodegen().run(program, PassContext())
    ops = [c.op for c in _instructions(out) if c.op.startswith("pto.tmatmul")]
    assert ops == [instruction]
    assert not any(isinstance(s, P.IfStmt) for s in next(s for s in out.functions[0].body
                                                          if isinstance(s, P.ForStmt)).body)


def test_scf_for_carries_the_accumulator_in_place() -> None:
    """PTOAS takes no tile_buf through iter_args: the loop-carried accumulator, its init and the
    value yielded back are one handle (one MemRef), written in place."""
    text = mlir("matmul_k_loop")
    assert re.search(r"\n    scf.for %11 = %c0_index to %c256_index step %c64_index \{", text)
    assert "iter_args" not in text and "scf.yield" not in text
    assert re.search(r"pto\.tmatmul\.acc ins\(%3, %4, %5 : [^)]*\) outs\(%3 : ", text)
    assert re.search(r"pto\.textract ins\(%0, %c0_index, %11 : !pto.tile_buf<loc=mat[^)]*, index, index\) outs\(%4", text)


def test_carried_tile_in_two_buffers_is_reported() -> None:
    text = (GOLDEN / "matmul_k_loop.py").read_text()
    # Give the value yielded back its own buffer: codegen cannot carry one tile in two places.
    yielded = 'pl.MemRef("mem_acc_0", 0, 57344), pl.Mem.Acc, pl.TileView(valid_shape=[100, 128], compact=True)] = pl.tile.matmul_acc('
    assert text.count(yielded) == 1
    broken = text.replace(yielded, yielded.replace("mem_acc_0", "mem_acc_9"))
    program = parse_program(broken, "k.py")
    assert isinstance(program, A.Program)
    with pytest.raises(CompileError, match="carried tile lives in 2 buffers"):
        PTOCodegen().run(program, PassContext())


def test_compact_attribute_only_when_set() -> None:
    tile = TileType((16, 16), DataType.FP32, None, MemorySpace.Acc, TileView("col_major", "row_major", 1024, "null", True))
    assert tile_buf_type(tile).endswith("fractal=1024, pad=0, compact=1>")
    plain = TileType((16, 32), DataType.FP32, (8, 32), MemorySpace.Vec, TileView())
    assert tile_buf_type(plain) == ("!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=32, v_row=8, v_col=32, "
                                    "blayout=row_major, slayout=none_box, fractal=512, pad=0>")


# -- source locations -----------------------------------------------------------------------------


def test_every_operation_carries_the_source_loc_except_constants() -> None:
    text = mlir("vec_ops", emit_loc=True)
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("%") and "arith.constant" in stripped:
            assert "loc(" not in stripped
        elif stripped.startswith(("%", "pto.")):
            assert re.search(r' loc\("[^"]*vec_ops.py":\d+:\d+\)$', stripped), stripped
    # The call's own column refines the statement's position.
    assert re.search(r'pto\.texp .* loc\("[^"]*vec_ops.py":15:\d{2,}\)', text)


def test_emit_loc_off_is_location_free() -> None:
    assert "loc(" not in mlir("vec_ops", emit_loc=False)


# -- errors ---------------------------------------------------------------------------------------


def test_boxed_extent_error_message_and_span() -> None:
    text = (GOLDEN / "matmul_k_loop.py").read_text().replace(
        'a_mat: pl.Tile[[112, 256], pl.FP16, pl.MemRef("mem_mat_0", 0, 57344), pl.Mem.Mat, pl.TileView(valid_shape=[100, 256])]'
        ' = pl.tile.load(a, [0, 0], [112, 256], [100, 256], target_memory=pl.Mem.Mat)',
        'a_mat: pl.Tile[[100, 256], pl.FP16, pl.MemRef("mem_mat_0", 0, 57344), pl.Mem.Mat]'
        ' = pl.tile.load(a, [0, 0], [100, 256], target_memory=pl.Mem.Mat)')
    program = parse_program(text, "kernel.py")
    assert isinstance(program, A.Program)
    with pytest.raises(CompileError) as info:
        PTOCodegen().run(program, PassContext())
    message = str(info.value)
    assert "kernel.py:10:9:" in message
    assert ("a Mat tile of physical shape [100, 256] and dtype fp16 must be a whole number of 16x16 fractal "
            "boxes, but its row extent 100 is not a multiple of 16. PTO addresses a boxed tile one box at a "
            "time, so a partial box has no address. The *logical* extent is free -- allocate 112 on that axis "
            "and declare 100 as the tile's valid_shape") in message
    assert "A tensor-level pl.matmul / pl.matmul_acc does this for its M axis automatically." in message


def test_func_call_inside_a_kernel_is_rejected() -> None:
    text = (GOLDEN / "vec_ops.py").read_text().replace("@pl.function(type=pl.FunctionType.Orchestration)",
                                                       "@pl.function(type=pl.FunctionType.InCore)")
    program = parse_program(text, "k.py")
    assert isinstance(program, A.Program)
    with pytest.raises(CompileError, match=r"k.py:\d+:\d+: error: \[PTOCodegen\] a kernel cannot call"):
        PTOCodegen().run(program, PassContext())


# -- boxed extents verifier -----------------------------------------------------------------------


def _tile(shape: tuple[int, int], dtype: DataType, space: MemorySpace, view: TileView) -> TileType:
    return TileType(shape, dtype, None, space, view)


@pytest.mark.parametrize("shape,dtype,space,view,ok", [
    ((112, 128), DataType.FP16, MemorySpace.Mat, TileView("col_major", "row_major"), True),
    ((16, 8), DataType.FP16, MemorySpace.Mat, TileView("col_major", "row_major"), False),   # cols box 16
    ((16, 8), DataType.FP32, MemorySpace.Mat, TileView("col_major", "row_major"), True),    # fp32 box 16x8
    ((1, 16), DataType.FP16, MemorySpace.Mat, TileView("col_major", "row_major"), True),    # single row
    ((8, 16), DataType.FP16, MemorySpace.Right, TileView("row_major", "col_major"), False),  # rows box 16
    ((32, 16), DataType.INT8, MemorySpace.Right, TileView("row_major", "col_major"), True),  # int8 32x16
    ((16, 16), DataType.INT8, MemorySpace.Right, TileView("row_major", "col_major"), False),
    ((24, 16), DataType.FP32, MemorySpace.Acc, TileView("col_major", "row_major", 1024), False),
    ((7, 16), DataType.FP16, MemorySpace.Vec, TileView("row_major", "row_major"), True),    # Vec: no row rule
    ((7, 3), DataType.FP32, MemorySpace.Vec, TileView(), True),                             # none_box
])
def test_box_rule(shape: tuple[int, int], dtype: DataType, space: MemorySpace, view: TileView, ok: bool) -> None:
    # The rule PTOCodegen reports and the verifier's own statement of it agree on every case.
    tile = _tile(shape, dtype, space, view)
    assert (boxed_extent_message(tile) is None) == ok
    assert (boxed_extents.partial_box(tile) is None) == ok


# -- PTO op declarations ----------------------------------------------------------------------------


def test_every_tile_op_instruction_is_a_pto_op() -> None:
    helpers = {"pto.tmatmul_acc", "pto.load_scalar", "pto.store_scalar"}
    missing = {p for op in REGISTRY if op.name.startswith("tile.") for p in op.pto
               if p not in REGISTRY and p not in helpers}
    assert missing == set()


def test_alloc_attrs_round_trip_the_tile_type() -> None:
    tile = TileType((112, 128), DataType.FP32, (100, 128), MemorySpace.Acc,
                    TileView("col_major", "row_major", 1024, "null", True), MemRef("mem_acc_0", MemorySpace.Acc, 0, 57344))
    assert tile_from_alloc_attrs(alloc_attrs(tile)) == tile


@pytest.mark.parametrize("value,dtype,text", [
    (1.5, DataType.FP32, "1.5"), (1e-05, DataType.FP32, "1.0e-05"), (-0.0, DataType.FP32, "-0.0"),
    (float("inf"), DataType.FP32, "0x7F800000"), (float("-inf"), DataType.FP16, "0xFC00"),
    (float("inf"), DataType.BF16, "0x7F80"),
])
def test_float_literals_are_exact(value: float, dtype: DataType, text: str) -> None:
    assert float_literal(value, dtype) == text


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_vec_window_write_is_tinsert(backend: str) -> None:
    # A subview of a row-major Vec tile keeps the parent's row pitch, and A2/A3 tmov requires
    # equal shapes, so PTOAS rejects subview + tmov into a column window: assembling one Vec
    # tile into another is pto.tinsert with the window's origin (here the decode-attention
    # scores, gathered block by block).
    from nanopass_pto import run as runner
    from nanopass_pto.plugin import parse

    path = Path(__file__).resolve().parent / "kernels" / "trust" / "decode_attention.py"
    compiled = runner.compile_program(parse(path.read_text(), str(path)), backend=backend, verify_all=True)
    assert isinstance(compiled.final, P.Program)
    text = print_mlir(compiled.final)
    inserts = [line for line in text.splitlines() if "pto.tinsert" in line]
    assert len(inserts) >= 2 and all("loc=vec" in line for line in inserts)
    assert not re.search(r"pto\.subview %\d+\[[^\]]*\] sizes \[\d+, \d+\] : !pto\.tile_buf<loc=vec", text)
