"""tensor.reshape(x, shape, valid_shape=v) is a zero-copy view that narrows the valid region: the
elements past it are still the source's (the operator catalogue: the third operand "may only
narrow the derived region"; the interpreter's reshape keeps all the source's data). A consumer
that computes over a wider region -- an element-wise op whose other operand is whole -- reads
them as data. ConvertTensorToTileOps loads the parameter whole and re-views the tile, which is
right; DefinedReads counted a reshape's data as its own narrowed valid region, so it refused the
pass's output (finding 081a3461c9). The data of a reshape is now its source's data box carried
into the new shape by the reshape rule; a reshape of a value whose padding holds nothing is
still refused where it is read. The op itself reads the reshape's source re-viewed over the
region it reads, so its operands have one valid shape, as PTOAS requires."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from languages.gen import tile_unplaced as U
from languages.ops import REGISTRY
from languages.ops.data_extents import result_data
from languages.pl_parser import parse_program
from languages.types import DataType, TileType
from nanopass.node import NO_SPAN
from tests.kernel_cli import compile_kernel, program_text
from verifiers import defined_reads


def _narrowed_reshape_kernel(x_shape: str) -> str:
    ty = "pl.Tensor[[1, 16], pl.FP32]"
    return program_text(f"""\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[{x_shape}, pl.FP32], out: pl.Out[{ty}]) -> {ty}:
        first: {ty} = pl.tensor.reshape(x, [1, 16], valid_shape=[1, 1])
        s: {ty} = pl.tensor.add(first, x)
        r: {ty} = pl.tensor.assemble(out, s, [0, 0])
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[{x_shape}, pl.FP32], out: pl.Out[{ty}]) -> {ty}:
        r = self.kernel(x, out)
        return r
    """)


@pytest.mark.parametrize("x_shape", ["[1, 16]", "[16]"])
def test_the_elements_past_a_narrowing_reshape_are_the_sources(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                               x_shape: str) -> None:
    rng = np.random.default_rng(2)
    x = rng.uniform(-4, 4, (1, 16) if x_shape == "[1, 16]" else (16,)).astype(np.float32)
    rc, log = compile_kernel(tmp_path, capsys, _narrowed_reshape_kernel(x_shape), {"x": x})
    assert rc == 0 and "bit-exact" in log, log
    got = np.load(tmp_path / "out.npz")["ret0"]
    # All 16 sums: `first` is valid in one element, but its other 15 are x's, and the add's
    # result is valid where the wider operand is.
    assert (got.view(np.uint32) == (x + x).reshape(1, 16).view(np.uint32)).all()


# The same kernel after a conversion that loads only the reshape's valid element: then the
# add reads 15 elements no one wrote, which DefinedReads must still find.
NARROW_LOAD = """\
import pypto.language as pl


@pl.program
class Kernel:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[1, 16], pl.FP32], out: pl.Out[pl.Tensor[[1, 16], pl.FP32]]) -> pl.Tensor[[1, 16], pl.FP32]:
        whole: pl.Tile[[1, 16], pl.FP32] = pl.tile.load(x, [0, 0], [1, 16])
        part: pl.Tile[[1, 16], pl.FP32, pl.TileView(valid_shape=[1, 1])] = pl.tile.load(x, [0, 0], [1, 16], [1, 1])
        first: pl.Tile[[1, 16], pl.FP32, pl.TileView(valid_shape=[1, 1])] = pl.tile.reshape({source}, [1, 16], [1, 1])
        s: pl.Tile[[1, 16], pl.FP32] = pl.tile.add(first, whole)
        r: pl.Tensor[[1, 16], pl.FP32] = pl.tile.store(s, [0, 0], out)
        return r
"""


def test_a_reshape_of_a_tile_loaded_whole_holds_all_its_data() -> None:
    assert defined_reads.verify(parse_program(NARROW_LOAD.format(source="whole"), "whole.py")) == []


def test_a_reshape_of_a_tile_loaded_narrow_is_refused_where_it_is_read() -> None:
    found = defined_reads.verify(parse_program(NARROW_LOAD.format(source="part"), "part.py"))
    assert [d.rule for d in found] == ["DefinedReads"]
    assert found[0].span.line == 11 and "reads `first`" in found[0].message
    assert "tile.load wrote only [1, 1]" in found[0].message, found[0].message


def test_a_reshape_of_computed_padding_is_still_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ty = "pl.Tensor[[1, 16], pl.FP32]"
    text = program_text(f"""\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: {ty}, out: pl.Out[{ty}]) -> {ty}:
        first: {ty} = pl.tensor.reshape(x, [1, 16], valid_shape=[1, 1])
        e: {ty} = pl.tensor.exp(first)
        again: pl.Tensor[[16], pl.FP32] = pl.tensor.reshape(e, [16])
        s: {ty} = pl.tensor.add(x, again)
        r: {ty} = pl.tensor.assemble(out, s, [0, 0])
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: {ty}, out: pl.Out[{ty}]) -> {ty}:
        r = self.kernel(x, out)
        return r
    """)
    rc, log = compile_kernel(tmp_path, capsys, text)
    # exp wrote one element; the reshape to [16] keeps that one, and the add reads all 16.
    assert rc == 1 and "[DefinedReads]" in log and "kernel.py:11:" in log and "tensor.exp wrote only [1] of it" in log, log
    assert "reads `again` over [16] (broadcast to the result)" in log, log


def _data_of_reshape(shape: tuple[int, ...], data: tuple[int, ...], new_shape: tuple[int, ...],
                     valid: tuple[int, ...]) -> object:
    source = U.Var("t", TileType(shape, DataType.FP32), span=NO_SPAN)
    result = TileType(new_shape, DataType.FP32, valid)
    opdef = REGISTRY.get("tile.reshape")
    return result_data(opdef, (source,), result, [data])


@pytest.mark.parametrize(("shape", "data", "new_shape", "valid", "expected"), [
    ((1, 16), (1, 16), (1, 16), (1, 1), (1, 16)),   # all of it holds data, whatever the valid shape says
    ((8, 16), (5, 16), (16, 8), (10, 8), (10, 8)),  # a flat prefix of 80 cells: 10 rows of 8
    ((8, 16), (5, 16), (16, 8), (2, 8), (10, 8)),   # narrowed further: the bytes stay
    ((8, 16), (8, 5), (16, 8), (0, 0), (0, 0)),     # no box of [16, 8] holds those cells: its own region
])
def test_a_reshapes_data_is_its_sources_box_in_the_new_shape(shape: tuple[int, ...], data: tuple[int, ...],
                                                             new_shape: tuple[int, ...], valid: tuple[int, ...],
                                                             expected: tuple[int, ...]) -> None:
    assert _data_of_reshape(shape, data, new_shape, valid) == expected


def test_the_add_reads_the_source_re_viewed_over_its_region() -> None:
    # PTOAS wants the operands of an element-wise op of one valid shape ("'pto.tadd' op expects
    # src0 and src1 to have the same valid_shape"), and a treshape takes no set_validshape: the
    # add reads the reshape's source re-viewed whole. The kernel is tests/kernels/ops's, which
    # tests/test_ptoas.py assembles for both targets.
    from languages.ops import type_of
    from nanopass.node import walk
    from nanopass_pto.run import compile_program

    text = (Path(__file__).parent / "kernels" / "ops" / "narrowing_reshape_read_whole.py").read_text()
    converted = compile_program(parse_program(text, "k.py"), pipeline="convert-tensor-to-tile-ops",
                                verify_all=True).final
    add = next(n for n in walk(converted) if n.KIND == "Call" and getattr(n, "op") == "tile.add")
    valid = {tuple(getattr(type_of(a), "valid")) for a in getattr(add, "args")}
    assert valid == {(1, 16)}, add
