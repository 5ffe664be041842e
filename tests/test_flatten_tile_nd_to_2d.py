"""FlattenTileNdTo2D: every InCore tile becomes 2-D; tile.transpose gets its scratch."""

from __future__ import annotations

import pytest

import languages.gen.tensor as T
import languages.gen.tile_unplaced as U
from languages.pl_parser import parse_program_as
from languages.pl_printer import print_program
from languages.memory_space import MemorySpace
from languages.types import DataType, TileType
from nanopass.diagnostics import CompileError
from nanopass.node import walk
from nanopass.passes import PassContext
from passes.convert_tensor_to_tile_ops import ConvertTensorToTileOps
from languages.ops import static_ints
from passes.flatten_tile_nd_to_2d import FlattenTileNdTo2D, flatten_type, packed_dims
from verifiers import tile_ops_2d

HEADER = "@pl.program\nclass P:\n"
Left, Right = MemorySpace.Left, MemorySpace.Right


def flatten(body: str) -> U.Program:
    ctx = PassContext()
    tiled = ConvertTensorToTileOps().run(parse_program_as(HEADER + body, T.Program), ctx)
    return FlattenTileNdTo2D().run(tiled, ctx)


def tiles(program: U.Program) -> list[TileType]:
    return [n.type for n in walk(program) if isinstance(n, U.Var) and isinstance(n.type, TileType)]


def test_rank1_tiles_become_one_row() -> None:
    out = flatten("""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y: pl.Tensor[[64], pl.FP32] = pl.add(x, x)
        return y
""")
    assert not tile_ops_2d.verify(out)
    assert {t.shape for t in tiles(out)} == {(1, 64)}
    text = print_program(out)
    # The GM window stays 1-D on the tensor; only the tile is packed.
    assert "x_tile: pl.Tile[[1, 64], pl.FP32] = pl.tile.load(x, [0], [64], packed=True)" in text
    assert "pl.tile.store(y_tile, [0], ret0_out, window=[64])" in text


def test_rank3_tiles_are_row_packed_through_reductions() -> None:
    out = flatten("""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[2, 8, 32], pl.FP32]) -> pl.Tensor[[2, 8, 1], pl.FP32]:
        r: pl.Tensor[[2, 8, 1], pl.FP32] = pl.row_sum(x)
        return r
""")
    assert not tile_ops_2d.verify(out)
    assert {t.shape for t in tiles(out)} == {(16, 32), (16, 1)}


def test_transpose_scratch_materialized() -> None:
    out = flatten("""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[32, 16], pl.FP32]:
        y: pl.Tensor[[32, 16], pl.FP32] = pl.tensor.transpose(x, 0, 1)
        return y
""")
    text = print_program(out)
    assert "transpose_tmp: pl.Tile[[16, 32], pl.FP32] = pl.tile.create([16, 32], dtype=pl.FP32)" in text
    (transpose,) = [n for n in walk(out) if isinstance(n, U.Call) and n.op == "tile.transpose"]
    assert len(transpose.args) == 2 and dict(transpose.attrs) == {"axis1": 0, "axis2": 1}


def test_row_reduction_scratch_materialized_with_the_source_valid_extent() -> None:
    """PTOAS's trowsum / trowmax / trowmin take a tmp tile of the source's valid shape."""
    out = flatten("""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 1], pl.FP32]:
        part: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.set_validshape(x, 16, 20)
        m: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.row_max(part)
        s: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.row_sum(x)
        r: pl.Tensor[[16, 1], pl.FP32] = pl.add(m, s)
        return r
""")
    text = print_program(out)
    reductions = {n.op: n for n in walk(out) if isinstance(n, U.Call) and n.op in ("tile.row_max", "tile.row_sum")}
    for call in reductions.values():
        source, tmp = (getattr(a, "type") for a in call.args)
        assert isinstance(tmp, TileType) and (tmp.shape, tmp.valid, tmp.dtype) == (source.shape, source.valid, source.dtype)
        assert call.args[1] is not call.args[0]
    assert "reduce_tmp: pl.Tile[[16, 32], pl.FP32] = pl.tile.create([16, 32], dtype=pl.FP32)" in text
    assert "pl.tile.set_validshape(reduce_tmp, 16, 20)" in text


def test_2d_program_is_returned_unchanged() -> None:
    ctx = PassContext()
    tiled = ConvertTensorToTileOps().run(parse_program_as(HEADER + """
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        y: pl.Tensor[[16, 32], pl.FP32] = pl.exp(x)
        return y
""", T.Program), ctx)
    assert FlattenTileNdTo2D().run(tiled, ctx) is tiled


def test_packing_rules_and_unpackable_valid_region() -> None:
    assert packed_dims((64,)) == (1, 64)
    assert packed_dims((2, 3, 4)) == (6, 4)
    anchor = U.Var("t", TileType((2, 3, 4), DataType.FP32))
    flat = flatten_type(TileType((2, 3, 4), DataType.FP32, (1, 3, 2)), anchor)
    assert isinstance(flat, TileType) and flat.shape == (6, 4) and flat.valid == (3, 2)
    with pytest.raises(CompileError, match="cannot be packed"):
        flatten_type(TileType((2, 3, 4), DataType.FP32, (2, 2, 4)), anchor)


def calls(program: U.Program, op: str) -> list[U.Call]:
    return [n for n in walk(program) if isinstance(n, U.Call) and n.op == op]


def const(expr: U.Expr) -> int:
    assert isinstance(expr, U.ConstInt), expr
    return expr.value


def name(expr: U.Expr) -> str:
    assert isinstance(expr, U.Var), expr
    return expr.name


def extracts(program: U.Program) -> set[tuple[object, int, int]]:
    """(target memory, row, col) of every tile.extract."""
    return {(dict(c.attrs)["target_memory"], const(c.args[1]), const(c.args[2])) for c in calls(program, "tile.extract")}


def test_batch_matmul_unrolls_into_one_2d_matmul_per_broadcast_batch() -> None:
    out = flatten("""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[2, 1, 16, 64], pl.FP16], b: pl.Tensor[[3, 64, 32], pl.FP16]) -> pl.Tensor[[2, 3, 16, 32], pl.FP32]:
        c: pl.Tensor[[2, 3, 16, 32], pl.FP32] = pl.matmul(a, b, out_dtype=pl.FP32)
        return c
""")
    assert not tile_ops_2d.verify(out)
    assert not calls(out, "tile.batch_matmul")
    assert len(calls(out, "tile.matmul")) == 6
    # Batch (i, j) reads lhs matrix i (its batch axis of 1 broadcasts) and rhs matrix j, each a
    # row window of the packed Mat tile extracted into the cube buffer.
    assert extracts(out) == {(Left, 0, 0), (Left, 16, 0), (Right, 0, 0), (Right, 64, 0), (Right, 128, 0)}
    stores = calls(out, "tile.store")
    assert len(stores) == 6 and all(dict(s.attrs)["window"] == (1, 1, 16, 32) for s in stores)


def test_batch_matmul_of_a_transposed_operand_reads_column_windows() -> None:
    out = flatten("""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[2, 64, 16], pl.FP16], b: pl.Tensor[[2, 64, 32], pl.FP16]) -> pl.Tensor[[2, 16, 32], pl.FP32]:
        c: pl.Tensor[[2, 16, 32], pl.FP32] = pl.matmul(a, b, a_trans=True, out_dtype=pl.FP32)
        return c
""")
    lhs = {(row, col) for space, row, col in extracts(out) if space is Left}
    assert lhs == {(0, 0), (0, 64)}  # the view of packed [128, 16] is [16, 128]: batch b is columns 64b..


def test_batch_matmul_acc_chain_feeds_each_batch_its_own_accumulator() -> None:
    out = flatten("""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[2, 16, 128], pl.FP16], b: pl.Tensor[[2, 128, 32], pl.FP16]) -> pl.Tensor[[2, 16, 32], pl.FP32]:
        a0: pl.Tensor[[2, 16, 64], pl.FP16] = pl.slice(a, [2, 16, 64], [0, 0, 0])
        b0: pl.Tensor[[2, 64, 32], pl.FP16] = pl.slice(b, [2, 64, 32], [0, 0, 0])
        a1: pl.Tensor[[2, 16, 64], pl.FP16] = pl.slice(a, [2, 16, 64], [0, 0, 64])
        b1: pl.Tensor[[2, 64, 32], pl.FP16] = pl.slice(b, [2, 64, 32], [0, 64, 0])
        c: pl.Tensor[[2, 16, 32], pl.FP32] = pl.matmul(a0, b0, out_dtype=pl.FP32)
        c2: pl.Tensor[[2, 16, 32], pl.FP32] = pl.matmul_acc(c, a1, b1)
        return c2
""")
    products = {n.target.name: n.value for n in walk(out) if isinstance(n, U.AssignStmt)
                and isinstance(n.value, U.Call) and n.value.op in ("tile.matmul", "tile.matmul_acc")}
    accs = [name(call.args[0]) for call in products.values() if call.op == "tile.matmul_acc"]
    firsts = [name for name, call in products.items() if call.op == "tile.matmul"]
    assert sorted(accs) == sorted(firsts) and len(firsts) == 2


def test_single_batch_matmul_acc_carried_through_a_loop_is_a_2d_matmul_acc() -> None:
    out = flatten("""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[1, 16, 128], pl.FP16], b: pl.Tensor[[1, 128, 32], pl.FP16]) -> pl.Tensor[[1, 16, 32], pl.FP32]:
        a0: pl.Tensor[[1, 16, 64], pl.FP16] = pl.slice(a, [1, 16, 64], [0, 0, 0])
        b0: pl.Tensor[[1, 64, 32], pl.FP16] = pl.slice(b, [1, 64, 32], [0, 0, 0])
        acc0: pl.Tensor[[1, 16, 32], pl.FP32] = pl.matmul(a0, b0, out_dtype=pl.FP32)
        for k0, (acc_iter,) in pl.range(64, 128, 64, init_values=(acc0,)):
            ak: pl.Tensor[[1, 16, 64], pl.FP16] = pl.slice(a, [1, 16, 64], [0, 0, k0])
            bk: pl.Tensor[[1, 64, 32], pl.FP16] = pl.slice(b, [1, 64, 32], [0, k0, 0])
            acc_next: pl.Tensor[[1, 16, 32], pl.FP32] = pl.matmul_acc(acc_iter, ak, bk)
            acc: pl.Tensor[[1, 16, 32], pl.FP32] = pl.yield_(acc_next)
        return acc
""")
    assert not tile_ops_2d.verify(out)
    assert len(calls(out, "tile.matmul")) == 1 and len(calls(out, "tile.matmul_acc")) == 1


def test_multi_batch_accumulator_carried_through_a_loop_is_one_carry_per_batch() -> None:
    out = flatten(CARRIED_BATCH_LOOP)
    assert not tile_ops_2d.verify(out)
    (loop,) = [n for n in walk(out) if isinstance(n, U.ForStmt)]
    assert len(loop.iter_args) == len(loop.results) == 2
    inits = {name(a.init) for a in loop.iter_args}
    assert inits == {name(c.target) for c in walk(out) if isinstance(c, U.AssignStmt)
                     and isinstance(c.value, U.Call) and c.value.op == "tile.matmul"}
    assert len(calls(out, "tile.store")) == 2


def test_a_carried_batched_accumulator_read_whole_in_the_loop_is_not_supported_yet() -> None:
    body = CARRIED_BATCH_LOOP.replace("acc: pl.Tensor[[2, 16, 32], pl.FP32] = pl.yield_(acc_next)",
                                      "both: pl.Tensor[[2, 16, 32], pl.FP32] = pl.add(acc_iter, acc_iter)\n"
                                      "            acc: pl.Tensor[[2, 16, 32], pl.FP32] = pl.yield_(acc_next)")
    with pytest.raises(CompileError, match="not supported yet"):
        flatten(body)


CARRIED_BATCH_LOOP = """
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[2, 16, 128], pl.FP16], b: pl.Tensor[[2, 128, 32], pl.FP16]) -> pl.Tensor[[2, 16, 32], pl.FP32]:
        a0: pl.Tensor[[2, 16, 64], pl.FP16] = pl.slice(a, [2, 16, 64], [0, 0, 0])
        b0: pl.Tensor[[2, 64, 32], pl.FP16] = pl.slice(b, [2, 64, 32], [0, 0, 0])
        acc0: pl.Tensor[[2, 16, 32], pl.FP32] = pl.matmul(a0, b0, out_dtype=pl.FP32)
        for k0, (acc_iter,) in pl.range(64, 128, 64, init_values=(acc0,)):
            ak: pl.Tensor[[2, 16, 64], pl.FP16] = pl.slice(a, [2, 16, 64], [0, 0, k0])
            bk: pl.Tensor[[2, 64, 32], pl.FP16] = pl.slice(b, [2, 64, 32], [0, k0, 0])
            acc_next: pl.Tensor[[2, 16, 32], pl.FP32] = pl.matmul_acc(acc_iter, ak, bk)
            acc: pl.Tensor[[2, 16, 32], pl.FP32] = pl.yield_(acc_next)
        return acc
"""


def test_rank3_transpose_of_the_last_two_axes_goes_page_by_page() -> None:
    out = flatten("""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[3, 16, 32], pl.FP32]) -> pl.Tensor[[3, 32, 16], pl.FP32]:
        y: pl.Tensor[[3, 32, 16], pl.FP32] = pl.transpose(x, 1, 2)
        return y
""")
    assert not tile_ops_2d.verify(out)
    transposes = calls(out, "tile.transpose")
    assert len(transposes) == 3 and all(len(t.args) == 2 for t in transposes)  # each with its scratch
    assert [static_ints(s.args[2]) for s in calls(out, "tile.slice")] == [(0, 0), (16, 0), (32, 0)]
    assert [static_ints(a.args[2]) for a in calls(out, "tile.assemble")] == [(0, 0), (32, 0), (64, 0)]


def test_transpose_moving_a_batch_axis_is_not_supported_yet() -> None:
    # The packed [32, 32] tile of a [2, 16, 32] one would otherwise be transposed as one matrix.
    with pytest.raises(CompileError, match="moves a batch axis, which is not supported yet"):
        flatten("""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[2, 16, 32], pl.FP32]) -> pl.Tensor[[16, 2, 32], pl.FP32]:
        y: pl.Tensor[[16, 2, 32], pl.FP32] = pl.transpose(x, 0, 1)
        return y
""")


def test_nd_broadcast_assembles_one_page_per_batch_index() -> None:
    out = flatten("""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[2, 3, 8, 32], pl.FP32], b: pl.Tensor[[32], pl.FP32]) -> pl.Tensor[[2, 3, 8, 32], pl.FP32]:
        y: pl.Tensor[[2, 3, 8, 32], pl.FP32] = pl.add(x, b)
        return y
""")
    assert not tile_ops_2d.verify(out)
    # [32] -> [1, 32] -> expanded down 8 rows -> assembled at rows 8 * (3 i + j) of the packed [48, 32].
    assert [static_ints(a.args[2]) for a in calls(out, "tile.assemble")] == [(8 * p, 0) for p in range(6)]


def test_an_operand_with_batch_axes_of_its_own_broadcasts_page_by_page() -> None:
    out = flatten("""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[2, 16, 32], pl.FP32], b: pl.Tensor[[2, 1, 32], pl.FP32]) -> pl.Tensor[[2, 16, 32], pl.FP32]:
        y: pl.Tensor[[2, 16, 32], pl.FP32] = pl.add(x, b)
        return y
""")
    assert not tile_ops_2d.verify(out)
    # Page i of b is row i of its packed [2, 32] tile, expanded down 16 rows into rows 16 i ..
    assert [static_ints(s.args[2]) for s in calls(out, "tile.slice")] == [(0, 0), (1, 0)]
    assert [static_ints(a.args[2]) for a in calls(out, "tile.assemble")] == [(0, 0), (16, 0)]
    assert not calls(out, "tile.reshape")  # the [1, 1, 32] -> [1, 32] views pack to the identity




RANK1_REINTERPRET = """\
import pypto.language as pl


@pl.program
class Rank1Reinterpret:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16], pl.FP16]) -> pl.Tensor[[1], pl.INT16]:
        bits: pl.Tensor[[16], pl.INT16] = pl.tensor.reinterpret_view(x, dtype=pl.INT16, shape=[16])
        return pl.tensor.row_sum(pl.tensor.shls(bits, pl.const(7, pl.INT16)))
"""


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_a_rank1_reinterpret_view_with_an_explicit_shape_is_packed(backend: str) -> None:
    # Its `shape` attribute named the rank-1 result, so the view stayed [16] while its source
    # became [1, 16], and the row reduction after it crashed (found by the generator).
    import numpy as np

    from languages.pl_parser import parse_program
    from nanopass_pto.run import compare, compile_program, random_inputs, reference, run
    compiled = compile_program(parse_program(RANK1_REINTERPRET, "r.py"), backend=backend, verify_all=True)
    inputs = random_inputs(compiled.source, 2)
    expected = reference(compiled.source, inputs)
    reports = compare(expected, run(compiled, inputs))
    assert reports and all(r.ok for r in reports), reports
    bits = np.asarray(inputs["x"]).view(np.int16).astype(np.int64)
    shifted = (bits.astype(np.int16) << np.int16(7)).astype(np.int16)
    want = np.sum(shifted.astype(np.int64))
    want = ((want + 2**15) % 2**16) - 2**15  # INT16 wrap-around of the sum
    assert int(np.asarray(expected["ret0"]).reshape(-1)[0]) == want


NARROWED_RESHAPES = """
import pypto.language as pl


@pl.program
class NarrowedReshapes:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[96], pl.FP32], y: pl.Tensor[[2, 3, 16], pl.FP32]
          ) -> tuple[pl.Tensor[[96], pl.FP32, pl.TensorView(valid_shape=[37])],
                     pl.Tensor[[3, 2, 16], pl.FP32, pl.TensorView(valid_shape=[2, 2, 9])]]:
        head: pl.Tensor[[96], pl.FP32, pl.TensorView(valid_shape=[37])] = pl.tensor.reshape(x, [96], [37])
        twice: pl.Tensor[[96], pl.FP32, pl.TensorView(valid_shape=[37])] = pl.tensor.muls(head, 2.0)
        box: pl.Tensor[[3, 2, 16], pl.FP32, pl.TensorView(valid_shape=[2, 2, 9])] = pl.tensor.reshape(
            y, [3, 2, 16], [2, 2, 9])
        plus: pl.Tensor[[3, 2, 16], pl.FP32, pl.TensorView(valid_shape=[2, 2, 9])] = pl.tensor.adds(box, 1.0)
        return twice, plus
"""


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_a_reshape_narrowed_by_its_valid_shape_operand_is_packed_with_it(backend: str) -> None:
    # The valid_shape operand of a rank-1 / rank-3 reshape named the N-D region while the shape
    # operand was packed to 2-D, so the re-deduction compared [37] with [1, 96] and refused a
    # valid program (found by the generator). Both regions now pack like the tile.
    import numpy as np

    from languages.pl_parser import parse_program
    from nanopass_pto.run import compare, compile_program, random_inputs, reference, run
    compiled = compile_program(parse_program(NARROWED_RESHAPES, "r.py"), backend=backend, verify_all=True)
    inputs = random_inputs(compiled.source, 3)
    expected = reference(compiled.source, inputs)
    reports = compare(expected, run(compiled, inputs))
    assert reports and all(r.ok for r in reports), reports
    x, y = np.asarray(inputs["x"]), np.asarray(inputs["y"])
    assert (np.asarray(expected["ret0"])[:37] == x[:37] * np.float32(2.0)).all()
    want = y.reshape(3, 2, 16)[:2, :2, :9] + np.float32(1.0)
    assert (np.asarray(expected["ret1"])[:2, :2, :9] == want).all()


def test_a_reshape_narrowed_inside_a_middle_axis_is_refused_where_it_is_written() -> None:
    with pytest.raises(CompileError, match="middle axis is only partly valid") as info:
        flatten("""
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, y: pl.Tensor[[2, 3, 16], pl.FP32]) -> pl.Tensor[[2, 3, 16], pl.FP32]:
        box: pl.Tensor[[2, 3, 16], pl.FP32, pl.TensorView(valid_shape=[2, 2, 16])] = pl.tensor.reshape(
            y, [2, 3, 16], [2, 2, 16])
        plus: pl.Tensor[[2, 3, 16], pl.FP32, pl.TensorView(valid_shape=[2, 2, 16])] = pl.tensor.adds(box, 1.0)
        return plus
""")
    assert "valid shape [2, 2, 16]" in str(info.value) and "reshape to 2-D yourself" in str(info.value)


RANK1_WINDOWS = """
import pypto.language as pl


@pl.program
class Rank1Windows:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16], pl.FP32], y: pl.Tensor[[24], pl.FP32]
          ) -> tuple[pl.Tensor[[13], pl.FP32], pl.Tensor[[11], pl.FP32, pl.TensorView(valid_shape=[6])],
                     pl.Tensor[[24], pl.FP32]]:
        bumped: pl.Tensor[[16], pl.FP32] = pl.tensor.adds(x, 1.0)
        tail: pl.Tensor[[13], pl.FP32] = pl.tensor.slice(bumped, [13], [3])
        part: pl.Tensor[[11], pl.FP32, pl.TensorView(valid_shape=[6])] = pl.tensor.slice(bumped, [11], [4], [6])
        halved: pl.Tensor[[11], pl.FP32, pl.TensorView(valid_shape=[6])] = pl.tensor.muls(part, 0.5)
        y2: pl.Tensor[[24], pl.FP32] = pl.tensor.muls(y, 3.0)
        placed: pl.Tensor[[24], pl.FP32] = pl.tensor.assemble(y2, bumped, [8])
        return tail, halved, placed
"""


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_rank1_windows_are_one_row_of_the_packed_tile(backend: str) -> None:
    # A rank-1 slice's shape [13] was widened like its offsets, to [0, 13]: a window of no rows
    # that no store accepts (found by the generator). Extents now gain a row, offsets row 0.
    import numpy as np

    from languages.pl_parser import parse_program
    from nanopass_pto.run import compare, compile_program, random_inputs, reference, run
    compiled = compile_program(parse_program(RANK1_WINDOWS, "w.py"), backend=backend, verify_all=True)
    packed = FlattenTileNdTo2D().run(ConvertTensorToTileOps().run(parse_program_as(RANK1_WINDOWS, T.Program),
                                                                  PassContext()), PassContext())
    windows = calls(packed, "tile.slice")
    assert [static_ints(c.args[1]) for c in windows] == [(1, 13), (1, 11)]
    assert [static_ints(c.args[2]) for c in windows] == [(0, 3), (0, 4)]
    assert static_ints(windows[1].args[3]) == (1, 6)
    assert [static_ints(c.args[2]) for c in calls(packed, "tile.assemble")] == [(0, 8)]
    inputs = random_inputs(compiled.source, 4)
    expected = reference(compiled.source, inputs)
    reports = compare(expected, run(compiled, inputs))
    assert reports and all(r.ok for r in reports), reports
    x, y = np.asarray(inputs["x"]), np.asarray(inputs["y"])
    bumped = x + np.float32(1.0)
    assert (np.asarray(expected["ret0"]) == bumped[3:]).all()
    assert (np.asarray(expected["ret1"])[:6] == bumped[4:10] * np.float32(0.5)).all()
    placed = y * np.float32(3.0)
    placed[8:] = bumped
    assert (np.asarray(expected["ret2"]) == placed).all()
