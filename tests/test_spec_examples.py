"""The spec documents' own examples, end to end: each Before program written in the pl DSL, run
through the pass(es) the example documents, and compared with the spec's After text — exactly
where the spec is exact (MLIR lines, emitted names), structurally where its names or elided
types (`...`) are illustrative.

Specs: ../shared/spec/pto_codegen.md, convert_tensor_to_tile_ops.md, auto_tile_matmul_l0.md.
"""

from __future__ import annotations

import re
import pytest

import languages.gen.l0_tiled as L
from nanopass_pto import run as runner
from backend.targets.handlers import BackendHandler, get_backend
from backend.pto_text.printer import print_mlir
from languages.decls import TilePlaced
from languages.pl_parser import parse_program
from languages.pl_printer import print_program
from nanopass.diagnostics import CompileError
from nanopass.instruments import VerifyInstrument
from nanopass.node import Node
from nanopass.passes import PassContext
from nanopass.pipeline import Pipeline
from nanopass.plugin import get_plugin
from passes.auto_tile_matmul_l0 import AutoTileMatmulL0
from tests.test_convert_tensor_to_tile_ops import SPEC_AFTER, SPEC_EXAMPLE

B910 = get_backend("Ascend910B")
B950 = get_backend("Ascend950")
CONVERT = "convert-tensor-to-tile-ops,update-orchestration-call-sites,upgrade-param-directions"


def compile_text(source: str, spec: str | None = None, backend: BackendHandler = B910) -> Node:
    """`source` through `spec` (default: the whole default pipeline) with --verify-all on."""
    plugin = get_plugin()
    program = plugin.parse(source, "kernel.py")
    pipeline = spec or plugin.default_pipeline(backend.name)
    return runner.compile_program(program, pipeline=pipeline, backend=backend.name, verify_all=True).final


def mlir_of(source: str, backend: BackendHandler = B910) -> str:
    program = compile_text(source, backend=backend)
    return print_mlir(program, emit_loc=False)  # type: ignore[arg-type]


def without_addresses(text: str) -> str:
    """The MLIR with the planner's choices (alloc addresses and their i64 constants) removed:
    the spec's examples predate / omit `addr =`."""
    text = re.sub(r"addr = %c\d+_i64 ", "", text)
    return "\n".join(line for line in text.splitlines() if not re.search(r"arith\.constant \d+ : i64$", line))


def simulates_bit_exactly(source: str, backend: BackendHandler = B910) -> bool:
    program = get_plugin().parse(source, "kernel.py")
    compiled = runner.compile_program(program, backend=backend.name, verify_all=True)
    inputs = runner.random_inputs(program, 0)
    outputs = runner.run(compiled, inputs)
    assert outputs, "the example must produce an output to compare"
    return all(report.ok for report in runner.compare(runner.reference(program, inputs), outputs))


# == pto_codegen.md ================================================================================

# "Complete Example": the input exactly as the spec writes it (a bare @pl.function, no return).
MUL_KERNEL = """\
import pypto.language as pl

@pl.program
class MulKernel:
    @pl.function
    def mul_kernel_2d(self,
                     a: pl.Tensor[[32, 32], pl.FP32],
                     b: pl.Tensor[[32, 32], pl.FP32],
                     c: pl.Tensor[[32, 32], pl.FP32]):
        # Load tiles
        tile_a = pl.load(a, [0, 0], [32, 32])
        tile_b = pl.load(b, [0, 0], [32, 32])

        # Multiply
        tile_c = pl.mul(tile_a, tile_b)

        # Store result
        pl.store(tile_c, [0, 0], c)
"""

_VEC32 = ("!pto.tile_buf<loc=vec, dtype=f32, rows=32, cols=32, v_row=32, v_col=32, blayout=row_major, "
          "slayout=none_box, fractal=512, pad=0>")
_VIEW = "!pto.tensor_view<?x?xf32>"
_PART = "!pto.partition_tensor_view<32x32xf32>"
_ND = "shape = [%c32_index, %c32_index], strides = [%c32_index, %c1_index] {layout = #pto.layout<nd>}"
_WINDOW = "offsets = [%c0_index, %c0_index], sizes = [%c32_index, %c32_index]"

# The spec's output with its `...` tile types spelled out (field order of "Tile Buffer
# Attributes") and the layout attribute of "Tensor View Generation", in the forms PTOAS accepts
# (PTO_DIALECT.md: operands grouped before their types). MemoryReuse gives tile_c tile_a's
# buffer (tile_a is dead after the multiply), and variables on one MemRef with one buffer
# configuration are one handle, so there are two allocations where the spec shows three.
MUL_KERNEL_MLIR = f"""\
module {{
  func.func @mul_kernel_2d(%arg0: !pto.ptr<f32>, %arg1: !pto.ptr<f32>, %arg2: !pto.ptr<f32>) {{
    %c32_index = arith.constant 32 : index
    %c1_index = arith.constant 1 : index
    %c0_index = arith.constant 0 : index
    %2 = pto.make_tensor_view %arg0, {_ND} : {_VIEW}
    %3 = pto.make_tensor_view %arg1, {_ND} : {_VIEW}
    %4 = pto.make_tensor_view %arg2, {_ND} : {_VIEW}
    %0 = pto.alloc_tile : {_VEC32}
    %1 = pto.alloc_tile : {_VEC32}
    %5 = pto.partition_view %2, {_WINDOW} : {_VIEW} -> {_PART}
    pto.tload ins(%5 : {_PART}) outs(%0 : {_VEC32})
    %6 = pto.partition_view %3, {_WINDOW} : {_VIEW} -> {_PART}
    pto.tload ins(%6 : {_PART}) outs(%1 : {_VEC32})
    pto.tmul ins(%0, %1 : {_VEC32}, {_VEC32}) outs(%0 : {_VEC32})
    %7 = pto.partition_view %4, {_WINDOW} : {_VIEW} -> {_PART}
    pto.tstore ins(%0 : {_VEC32}) outs(%7 : {_PART})
    return
  }}
}}"""


def test_codegen_complete_example_matches_the_spec_text() -> None:
    assert without_addresses(mlir_of(MUL_KERNEL)) == MUL_KERNEL_MLIR


def test_codegen_complete_example_allocates_at_memref_addresses() -> None:
    text = mlir_of(MUL_KERNEL)
    addresses = re.findall(r"pto\.alloc_tile addr = (%c\d+_i64) :", text)
    assert len(addresses) == 2
    for name in set(addresses):
        value = name[2:-4]
        assert f"{name} = arith.constant {value} : i64" in text


def test_codegen_complete_example_simulates_bit_exactly() -> None:
    # `c` is written, so it is an output (upgraded from In) on both sides.
    assert simulates_bit_exactly(MUL_KERNEL)


COLUMN_VECTOR = """\
import pypto.language as pl

@pl.program
class RowMax:
    @pl.function(type=pl.FunctionType.InCore)
    def row_max(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 1], pl.FP32]:
        mi: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.row_max(x)
        return mi
"""


def test_column_vector_tensor_view_is_dn_with_swapped_strides() -> None:
    # "Example for a [16, 1] column vector (no DN annotation in DSL)".
    text = mlir_of(COLUMN_VECTOR)
    assert ("pto.make_tensor_view %arg1, shape = [%c16_index, %c1_index], strides = [%c1_index, %c16_index] "
            "{layout = #pto.layout<dn>} : !pto.tensor_view<?x?xf32>") in text
    assert ("pto.make_tensor_view %arg0, shape = [%c16_index, %c32_index], strides = [%c32_index, %c1_index] "
            "{layout = #pto.layout<nd>} : !pto.tensor_view<?x?xf32>") in text


def test_column_vector_tile_buf_is_col_major() -> None:
    # "Allocation Generation": the %mi_tile example's type.
    text = mlir_of(COLUMN_VECTOR)
    assert re.search(
        r"= pto\.alloc_tile addr = %c\d+_i64 : !pto\.tile_buf<loc=vec, dtype=f32, rows=16, cols=1, "
        r"v_row=16, v_col=1, blayout=col_major, slayout=none_box, fractal=512, pad=0>", text)


MATMUL_K_LOOP = """\
import pypto.language as pl

@pl.program
class Mm:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[100, 256], pl.FP16], b: pl.Tensor[[256, 128], pl.FP16]) -> pl.Tensor[[100, 128], pl.FP32]:
        c: pl.Tensor[[100, 128], pl.FP32] = pl.matmul(a, b, out_dtype=pl.FP32)
        return c
"""


def test_matmul_k_loop_codegen_shape() -> None:
    """`scf.for` over the Acc buffer, carried in place (PTOAS takes no tile through iter_args);
    the runtime `ko == 0` init_cond is an `scf.if` choosing `pto.tmatmul` / `pto.tmatmul.acc`;
    the boxed, compact accumulator."""
    text = mlir_of(MATMUL_K_LOOP)
    acc_type = (r"!pto\.tile_buf<loc=acc, dtype=f32, rows=112, cols=128, v_row=100, v_col=128, "
                r"blayout=col_major, slayout=row_major, fractal=1024, pad=0, compact=1>")
    acc = re.search(r"(%\d+) = pto\.alloc_tile addr = %c\d+_i64 : " + acc_type, text)
    assert acc is not None
    assert re.search(r"pto\.alloc_tile addr = %c\d+_i64 : !pto\.tile_buf<loc=mat, dtype=f16, rows=112, "
                     r"cols=256, v_row=100, v_col=256, blayout=col_major, slayout=row_major, fractal=512, pad=0>",
                     text)
    loop = re.search(r"\n    scf\.for (%\d+) = %c0_index to %c256_index step (%c\d+_index) \{", text)
    assert loop is not None and "iter_args" not in text
    ko = loop.group(1)
    assert re.search(rf"(%\d+) = arith\.cmpi eq, {ko}, %c0_index : index\n\s+scf\.if \1 {{\n\s+pto\.tmatmul ins\(",
                     text)
    handle = acc.group(1)
    assert "} else {\n" in text and f"pto.tmatmul.acc ins({handle}, " in text
    assert re.search(r"pto\.tstore ins\(" + handle + r" : !pto\.tile_buf<loc=acc", text)
    assert "sizes = [%c100_index, %c128_index] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<100x128xf32>" in text
    assert text.rstrip().endswith("return\n  }\n}")


BOXED = """\
import pypto.language as pl

@pl.program
class Boxed:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[100, 128], pl.FP16], b: pl.Tensor[[128, 64], pl.FP16], out: pl.Out[pl.Tensor[[100, 64], pl.FP32]]) -> pl.Tensor[[100, 64], pl.FP32]:
        a_mat: pl.Tile[[100, 128], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [100, 128], target_memory=pl.Mem.Mat)
        b_mat: pl.Tile[[128, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [128, 64], target_memory=pl.Mem.Mat)
        c: pl.Tile[[100, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a_mat, b_mat)
        o: pl.Tensor[[100, 64], pl.FP32] = pl.tile.store(c, [0, 0], out)
        return o
"""

BOXED_MESSAGE = (
    "a Mat tile of physical shape [100, 128] and dtype fp16 must be a whole number of 16x16 fractal "
    "boxes, but its row extent 100 is not a multiple of 16. PTO addresses a boxed tile one box at a "
    "time, so a partial box has no address. The *logical* extent is free -- allocate 112 on that axis "
    "and declare 100 as the tile's valid_shape (`valid_shape=` on pl.load / pl.tile.create + "
    "pl.set_validshape), which moves and computes only the real data. A tensor-level pl.matmul / "
    "pl.matmul_acc does this for its M axis automatically.")

FROM_TILE_PLACED = ("auto-tile-matmul-l0,init-mem-ref,materialize-semantic-aliases,memory-reuse,"
                    "allocate-memory-addr,pto-codegen")


def test_boxed_extent_error_is_the_spec_message_at_the_users_line() -> None:
    # With every verifier on, the partial box is reported as itself (not as a pass bug).
    with pytest.raises(CompileError) as info:
        compile_text(BOXED, FROM_TILE_PLACED)
    [diag] = [d for d in info.value.diagnostics if d.severity == "error"]
    assert diag.message == BOXED_MESSAGE
    assert (diag.span.file, diag.span.line) == ("kernel.py", 7)


# == convert_tensor_to_tile_ops.md =================================================================

# The spec's Before / After (the After in this printer's spelling: `pl.tile.load` for `pl.load`,
# lists for tuples), shared with the pass's own tests.
CONVERT_BEFORE = "import pypto.language as pl\n\n@pl.program\nclass Before:\n" + SPEC_EXAMPLE
CONVERT_AFTER = SPEC_AFTER


def test_convert_example_after_text() -> None:
    text = print_program(compile_text(CONVERT_BEFORE, CONVERT))
    assert text.endswith(CONVERT_AFTER)


def test_convert_example_simulates_bit_exactly() -> None:
    assert simulates_bit_exactly(CONVERT_BEFORE)


def _converted(body: str) -> str:
    source = f"import pypto.language as pl\n\n@pl.program\nclass P:\n{body}"
    return print_program(compile_text(source, CONVERT))


def test_m_axis_boxing_example() -> None:
    # "Before (M = 100): y = tensor.matmul(a, b)  # a: Tensor[[100, 256]]".
    text = _converted("""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[100, 256], pl.FP16], b: pl.Tensor[[256, 512], pl.FP16]) -> pl.Tensor[[100, 512], pl.FP32]:
        y: pl.Tensor[[100, 512], pl.FP32] = pl.matmul(a, b, out_dtype=pl.FP32)
        return y
""")
    assert ("= pl.tile.load(a, [0, 0], [112, 256], [100, 256], target_memory=pl.Mem.Mat)") in text
    # "y_tile = pl.tile.matmul(a_mat, b_mat)   # Tile[[112, 512]] valid [100, 512]" (space unset
    # until InferTileMemorySpace).
    assert "y_tile: pl.Tile[[112, 512], pl.FP32, pl.TileView(valid_shape=[100, 512])] = pl.tile.matmul(" in text


def test_a_trans_boxes_m_on_columns_example() -> None:
    text = _converted("""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[128, 100], pl.FP16], b: pl.Tensor[[128, 64], pl.FP16]) -> pl.Tensor[[100, 64], pl.FP32]:
        y: pl.Tensor[[100, 64], pl.FP32] = pl.matmul(a, b, a_trans=True, out_dtype=pl.FP32)
        return y
""")
    assert "= pl.tile.load(a, [0, 0], [128, 112], [128, 100], target_memory=pl.Mem.Mat)" in text
    assert re.search(r"pl\.Tile\[\[112, 128\], pl\.FP16, pl\.Mem\.Mat, pl\.TileView\([^]]*valid_shape=\[100, 128\]"
                     r"[^]]*\)\] = pl\.tile\.transpose_view\(", text)


def test_matmul_acc_boxes_its_accumulator_example() -> None:
    # "tensor.matmul_acc boxes its accumulator with its operand" (M = 100). The created
    # accumulator holds no data, so the first matmul_acc starts afresh (init_cond=True): without
    # it the sum would read undefined memory, which DefinedReads refuses.
    text = _converted("""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[100, 128], pl.FP16], b: pl.Tensor[[128, 64], pl.FP16]) -> pl.Tensor[[100, 64], pl.FP32]:
        acc: pl.Tensor[[100, 64], pl.FP32] = pl.create_tensor([100, 64], dtype=pl.FP32)
        c: pl.Tensor[[100, 64], pl.FP32] = pl.matmul_acc(acc, a, b, init_cond=True)
        return c
""")
    assert ("acc_storage: pl.Tile[[112, 64], pl.FP32, pl.Mem.Acc, pl.TileView(compact=True)] = "
            "pl.tile.create([112, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc, compact=True)") in text
    assert "acc_tile: pl.Tile[[112, 64], pl.FP32, pl.Mem.Acc, pl.TileView(valid_shape=[100, 64], compact=True)] = pl.tile.set_validshape(acc_storage, 100, 64)" in text
    assert "= pl.tile.load(a, [0, 0], [112, 128], [100, 128], target_memory=pl.Mem.Mat)" in text
    assert "c_tile: pl.Tile[[112, 64], pl.FP32, pl.Mem.Acc, pl.TileView(valid_shape=[100, 64], compact=True)] = pl.tile.matmul_acc(acc_tile, " in text


# == auto_tile_matmul_l0.md ========================================================================


def _placed(M: int, N: int, K: int, dtype: str, acc: str, body: str, valid_m: int | None = None) -> str:
    vm = M if valid_m is None else valid_m
    a_view = f", pl.TileView(valid_shape=[{vm}, {K}])" if vm != M else ""
    a_valid = f", [{vm}, {K}]" if vm != M else ""
    return f"""\
import pypto.language as pl

@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[{vm}, {K}], pl.{dtype}], b: pl.Tensor[[{K}, {N}], pl.{dtype}], out: pl.Out[pl.Tensor[[{vm}, {N}], pl.{acc}]]) -> pl.Tensor[[{vm}, {N}], pl.{acc}]:
        a_mat: pl.Tile[[{M}, {K}], pl.{dtype}, pl.Mem.Mat{a_view}] = pl.tile.load(a, [0, 0], [{M}, {K}]{a_valid}, target_memory=pl.Mem.Mat)
        b_mat: pl.Tile[[{K}, {N}], pl.{dtype}, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [{K}, {N}], target_memory=pl.Mem.Mat)
{body}
"""


def _auto_tile(source: str, backend: BackendHandler = B910) -> str:
    program = parse_program(source, "kernel.py", TilePlaced)
    out = AutoTileMatmulL0().run(program, PassContext(backend.name, backend))  # type: ignore[arg-type]
    assert isinstance(out, L.Program)
    return print_program(out)


def _strip_types(text: str) -> str:
    """Statement lines without their type annotations (the spec's examples omit them)."""
    return "\n".join(re.sub(r"^(\s*\w+): pl\.(Tile|Tensor)\[.*\] = ", r"\1 = ", line) for line in text.splitlines())


def test_plain_matmul_example() -> None:
    # Before: M = N = 128, K = 256 (FP32 operands); the chooser picks m = n = 128, k = 64.
    source = _placed(128, 128, 256, "FP32", "FP32", """\
        c: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a_mat, b_mat)
        o: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(c, [0, 0], out)
        return o""")
    text = _strip_types(_auto_tile(source))
    expected = """\
        c_l0_init = pl.tile.create([128, 128], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for ko, (c_iter,) in pl.pipeline(0, 256, 64, init_values=(c_l0_init,), stage=2):
            sa = pl.tile.extract(a_mat, 0, ko, [128, 64], target_memory=pl.Mem.Left)
            sb = pl.tile.extract(b_mat, ko, 0, [64, 128], target_memory=pl.Mem.Right)
            c_acc = pl.tile.matmul_acc(c_iter, sa, sb, ko == 0)
            c = pl.yield_(c_acc)
        o = pl.tile.store(c, [0, 0], out)"""
    assert expected in text


def test_row_narrowed_left_operand_seed_is_compact_example() -> None:
    # "c_l0_init_storage = pl.tile.create([64, 128], pl.INT32, target_memory=Acc, compact=True)
    #  c_l0_init = pl.tile.set_validshape(c_l0_init_storage, 16, 128)"
    source = _placed(64, 128, 2048, "INT8", "INT32", """\
        c: pl.Tile[[64, 128], pl.INT32, pl.Mem.Acc, pl.TileView(valid_shape=[16, 128], compact=True)] = pl.tile.matmul(a_mat, b_mat)
        o: pl.Tensor[[16, 128], pl.INT32] = pl.tile.store(c, [0, 0], out)
        return o""", valid_m=16)
    text = _strip_types(_auto_tile(source))
    assert ("c_l0_init_storage = pl.tile.create([64, 128], dtype=pl.INT32, target_memory=pl.Mem.Acc, "
            "compact=True)\n        c_l0_init = pl.tile.set_validshape(c_l0_init_storage, 16, 128)") in text
    assert "init_values=(c_l0_init,), stage=2):" in text
    assert "c_acc = pl.tile.matmul_acc(c_iter, sa, sb, ko == 0)" in text


def test_matmul_acc_example_threads_the_callers_accumulator_unpredicated() -> None:
    source = _placed(128, 128, 512, "FP32", "FP32", """\
        acc_init: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.create([128, 128], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        c: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc_init, a_mat, b_mat)
        o: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(c, [0, 0], out)
        return o""")
    text = _strip_types(_auto_tile(source))
    loop = re.search(r"for ko, \(c_iter,\) in pl\.pipeline\(0, 512, (\d+), init_values=\(acc_init,\), stage=2\):\n"
                     r"\s+sa = pl\.tile\.extract\(a_mat, 0, ko, \[128, \1\], target_memory=pl\.Mem\.Left\)\n"
                     r"\s+sb = pl\.tile\.extract\(b_mat, ko, 0, \[\1, 128\], target_memory=pl\.Mem\.Right\)\n"
                     r"\s+c_acc = pl\.tile\.matmul_acc\(c_iter, sa, sb\)\n"
                     r"\s+c = pl\.yield_\(c_acc\)", text)
    assert loop is not None


def test_matmul_acc_init_cond_example_is_anded_and_the_tail_is_unpredicated() -> None:
    # The loop body carries `user_cond and ko == 0`; a peeled tail (K = 320 is not a multiple of
    # every legal k) is the unpredicated 3-operand form.
    source = _placed(128, 128, 320, "FP32", "FP32", """\
        acc_init: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.create([128, 128], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        user_cond: pl.Scalar[pl.BOOL] = pl.tensor.dim(a, 0) == 128
        c: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc_init, a_mat, b_mat, user_cond)
        o: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(c, [0, 0], out)
        return o""")
    text = _strip_types(_auto_tile(source))
    assert "= pl.tile.matmul_acc(c_iter, sa, sb, user_cond and ko == 0)" in text
    if "sat = " in text:
        assert re.search(r"c = pl\.tile\.matmul_acc\(c_kmain, sat, sbt\)", text)


def test_mn_tiling_example_on_950() -> None:
    # M = N = K = 512 FP32: the [512, 512] FP32 output is 1 MB > L0C; m = n = 256, k = 32 on
    # Ascend950 (256 KiB L0C): a 2x2 grid whose sub-tile (mi=256, ni=0) is t1.
    source = _placed(512, 512, 512, "FP32", "FP32", """\
        c: pl.Tile[[512, 512], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a_mat, b_mat)
        out_1: pl.Tensor[[512, 512], pl.FP32] = pl.tile.store(c, [0, 0], out)
        return out_1""")
    text = _strip_types(_auto_tile(source, B950))
    sub_tile_1 = """\
        c_t1_l0_init = pl.tile.create([256, 256], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for ko_1, (c_iter_1,) in pl.pipeline(0, 512, 32, init_values=(c_t1_l0_init,), stage=2):
            sa_1 = pl.tile.extract(a_mat, 256, ko_1, [256, 32], target_memory=pl.Mem.Left)
            sb_1 = pl.tile.extract(b_mat, ko_1, 0, [32, 256], target_memory=pl.Mem.Right)
            c_acc_1 = pl.tile.matmul_acc(c_iter_1, sa_1, sb_1, ko_1 == 0)
            c_t1 = pl.yield_(c_acc_1)
        out_t1 = pl.tile.store(c_t1, [256, 0], out_t0)"""
    assert sub_tile_1 in text
    stores = re.findall(r"(out_t\d) = pl\.tile\.store\((c_t\d), \[(\d+), (\d+)\], (\w+)\)", text)
    assert stores == [("out_t0", "c_t0", "0", "0", "out"), ("out_t1", "c_t1", "256", "0", "out_t0"),
                      ("out_t2", "c_t2", "0", "256", "out_t1"), ("out_t3", "c_t3", "256", "256", "out_t2")]
    assert text.rstrip().endswith("return out_t3")


def test_boundary_sub_tiles_are_partial() -> None:
    # "a 256x256 FP32 matmul ... tiles into logical sub-tiles of 192x160, 192x96, 64x160, 64x96"
    # (the chooser's m, n differ under TARGET_FACTS' formulas; the boundary rule is the same).
    source = _placed(256, 256, 256, "FP32", "FP32", """\
        c: pl.Tile[[256, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a_mat, b_mat)
        out_1: pl.Tensor[[256, 256], pl.FP32] = pl.tile.store(c, [0, 0], out)
        return out_1""")
    text = _auto_tile(source)
    shapes = [tuple(map(int, s)) for s in re.findall(r"pl\.tile\.create\(\[(\d+), (\d+)\]", text)]
    m, n = shapes[0]
    expected = [(min(m, 256 - r), min(n, 256 - c)) for c in range(0, 256, n) for r in range(0, 256, m)]
    assert shapes == expected


def test_oversized_manual_l0_operand_message() -> None:
    # "an FP16 Right[256, 256] requiring 131072 bytes in a 65536-byte L0B".
    source = _placed(64, 256, 256, "FP16", "FP32", """\
        b_r: pl.Tile[[256, 256], pl.FP16, pl.Mem.Right] = pl.tile.move(b_mat, target_memory=pl.Mem.Right)
        c: pl.Tile[[64, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a_mat, b_r)
        o: pl.Tensor[[64, 256], pl.FP32] = pl.tile.store(c, [0, 0], out)
        return o""")
    with pytest.raises(CompileError) as info:
        _auto_tile(source)
    [diag] = info.value.diagnostics
    assert "`b_r`" in diag.message and "[256, 256]" in diag.message and "FP16" in diag.message
    assert "131072 bytes" in diag.message and "65536 bytes" in diag.message
    assert "keep `b_r` in Mat and pass it directly to the matmul" in diag.hint
    assert "tile.extract a smaller Right tile" in diag.hint
    assert diag.span.line > 0

