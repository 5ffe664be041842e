"""tile.reinterpret_view re-reads its source's bytes in row-major order (the interpreter's
meaning); a result tile that holds those bytes in another order is refused.

A [16, 1] INT32 column is column-major on chip (its 16 elements contiguous); re-viewed with an
explicit shape [8, 2] FP32 it kept that layout, so the compiled kernel read element (r, c) from
the column's element c * 8 + r while the interpreter read 2 * r + c: 14 of 16 elements differed
(fuzz 74d42787e7). The deduction now refuses it (a located 'not supported yet'), and ViewLegality
flags such a re-view wherever a pass might build one.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from languages.layout import reinterpret_keeps_order
from languages.memory_space import MemorySpace
from languages.ops import REGISTRY
from languages.pl_parser import parse_program_as
from languages.types import DataType, TileType, TileView
import languages.gen.tensor as T
from nanopass.diagnostics import CompileError
from nanopass.node import Node, walk
from nanopass.pipeline import main
from verifiers import view_legality

VEC = MemorySpace.Vec
COL = TileView(blayout="col_major")


def column(dtype: DataType, rows: int) -> TileType:
    return TileType((rows, 1), dtype, None, VEC, COL)


def test_the_layout_fact() -> None:
    assert not reinterpret_keeps_order(column(DataType.INT32, 16), TileType((8, 2), DataType.FP32, None, VEC, COL))
    # The automatic shape scales the contiguous axis: the same bytes in the same order.
    assert reinterpret_keeps_order(column(DataType.INT32, 16), column(DataType.INT8, 64))
    # Rows of 8 bytes, each padded to 32, in both tiles.
    assert reinterpret_keeps_order(TileType((4, 8), DataType.INT8, None, VEC, TileView()),
                                   TileType((4, 2), DataType.FP32, None, VEC, TileView()))
    # 32-byte rows become 16-byte rows padded to 32: other bytes.
    assert not reinterpret_keeps_order(TileType((16, 16), DataType.INT16, None, VEC, TileView()),
                                       TileType((32, 8), DataType.FP16, None, VEC, TileView()))


def test_the_deduction_refuses_a_column_major_re_view() -> None:
    load = T.Var("x", column(DataType.INT32, 16))
    with pytest.raises(CompileError, match="not supported yet: reinterpreting the \\[16, 1\\] INT32"):
        REGISTRY.deduce("tile.reinterpret_view", (load,), (("dtype", DataType.FP32), ("shape", (8, 2))))
    # One row over the same contiguous bytes is fine.
    got = REGISTRY.deduce("tile.reinterpret_view", (load,), (("dtype", DataType.FP32), ("shape", (1, 16))))
    assert isinstance(got, TileType) and tuple(got.shape) == (1, 16)


AUTO = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x1: pl.Tensor[[16, 1], pl.INT32], out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        l: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.load(x1, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        t: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.reinterpret_view(l, dtype=pl.FP32)
        st: pl.Tensor[[16, 1], pl.FP32] = pl.tile.store(t, [0, 0], out)
        return st
"""


def test_view_legality_flags_a_re_view_a_pass_might_build() -> None:
    program = parse_program_as(AUTO, T.Program)
    assert not view_legality.verify(program)
    wrong = TileType((8, 2), DataType.FP32, None, VEC, COL)
    # A rewrite that gave the reinterpret an explicit [8, 2] shape (types as a pass would write
    # them, not re-deduced).
    changed = _retype(program, "t", wrong)
    found = view_legality.verify(changed)
    assert found and "row-major order" in found[0].message


def _retype(program: Node, name: str, ty: TileType) -> Node:
    from nanopass_pto.mutants import transform

    def edit(node: Node) -> Node | None:
        if node.KIND == "Var" and str(getattr(node, "name")) == name:
            return dataclasses.replace(node, type=ty)  # type: ignore[type-var]
        return None

    out: Node = transform(program, edit)
    assert any(n.KIND == "Var" and getattr(n, "type", None) == ty for n in walk(out))
    return out


FOUND = """
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[16, 1], pl.INT32], out4: pl.Out[pl.Tensor[[8, 2], pl.FP32]]) -> pl.Tensor[[8, 2], pl.FP32]:
        t3: pl.Tile[[8, 2], pl.FP32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major)] = pl.tile.reinterpret_view(pl.tile.load(x1, [0, 0], [16, 1], target_memory=pl.Mem.Vec), dtype=pl.FP32, shape=[8, 2])
        st5: pl.Tensor[[8, 2], pl.FP32] = pl.tile.store(t3, [0, 0], out4)
        return st5

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[16, 1], pl.INT32]) -> pl.Tensor[[8, 2], pl.FP32]:
        kernel0_out4: pl.Tensor[[8, 2], pl.FP32] = pl.tensor.create([8, 2], dtype=pl.FP32)
        kernel0_out: pl.Tensor[[8, 2], pl.FP32] = self.kernel0(kernel0_x1, kernel0_out4)
        return kernel0_out
"""


def test_the_found_program_is_a_located_refusal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # fuzz 74d42787e7: it compiled, and the simulator's result disagreed with the interpreter's.
    (tmp_path / "k.py").write_text(FOUND)
    rc = main([str(tmp_path / "k.py"), "--verify-all", "--simulate", "--seed", "0", "-o", str(tmp_path / "k.pto")])
    log = capsys.readouterr().err
    assert rc != 0 and "k.py:9:" in log and "not supported yet: reinterpreting the [16, 1] INT32" in log, log
