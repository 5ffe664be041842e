"""Reads of padding: an element-wise op over operands of different valid regions computes a
full-shape result (the spec's exact-region rule covers equal regions only), so it reads the
narrower operand's padding. Where that padding holds data (a tile loaded whole, then narrowed)
the kernel is valid and runs bit-exact against NumPy, on FP32 and through LegalizeVecDtypes'
FP32 widening of BF16 arithmetic on Ascend910B; where it holds none (an op wrote only its valid
region, set_validshape widened a tile past what was written) the kernel is refused at the op,
naming the operand and what wrote it. The DefinedReads verifier is fed the broken widening a
pass could emit and fires; the mutant catalogue holds that widening and the verifier catches it."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import numpy.typing as npt
import pytest

from languages.pl_parser import parse_program
from nanopass_pto.mutants import MUTANTS
from tests.kernel_cli import compile_kernel, program_text
from verifiers import defined_reads

Array = npt.NDArray[Any]


def _kernel(body: str, dtype: str = "FP32", params: str = "a, b, out") -> str:
    """A tile kernel over two [16, 64] inputs, `body` computing `s` (stored to `out`)."""
    ty = f"pl.Tensor[[16, 64], pl.{dtype}]"
    return program_text(f"""\
@pl.function(type=pl.FunctionType.InCore)
def kernel(self, a: {ty}, b: {ty}, out: pl.Out[{ty}]) -> {ty}:
    ta: pl.Tile[[16, 64], pl.{dtype}] = pl.tile.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
    tb: pl.Tile[[16, 64], pl.{dtype}] = pl.tile.load(b, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
{textwrap.indent(textwrap.dedent(body), "    ").rstrip()}
    r: {ty} = pl.tile.store(s, [0, 0], out)
    return r

@pl.function(type=pl.FunctionType.Orchestration)
def main(self, a: {ty}, b: {ty}, out: pl.Out[{ty}]) -> {ty}:
    r = self.kernel({params})
    return r
""")


NARROWED_LOAD = """\
narrow: pl.Tile[[16, 64], pl.{dtype}, pl.TileView(valid_shape=[4, 64])] = pl.tile.set_validshape(ta, 4, 64)
s: pl.Tile[[16, 64], pl.{dtype}] = pl.tile.{op}(narrow, tb)
"""


def _run(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, a: Array, b: Array,
         *backend: str) -> Array:
    from nanopass.pipeline import main
    path = tmp_path / "kernel.py"
    path.write_text(text)
    np.savez(tmp_path / "in.npz", a=a, b=b)
    rc = main([str(path), "--verify-all", "-o", str(tmp_path / "k.pto"), "--simulate", "--inputs",
               str(tmp_path / "in.npz"), "--save-outputs", str(tmp_path / "out.npz"), *backend])
    captured = capsys.readouterr()
    log = captured.out + captured.err
    assert rc == 0 and "bit-exact" in log and "Traceback" not in log, log
    return np.load(tmp_path / "out.npz")["ret0"]  # type: ignore[no-any-return]


def test_padding_loaded_with_the_tile_is_read_as_data_fp32(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(3)
    a, b = (rng.uniform(-4, 4, (16, 64)).astype(np.float32) for _ in range(2))
    got = _run(tmp_path, capsys, _kernel(NARROWED_LOAD.format(dtype="FP32", op="sub")), a, b)
    assert (got.view(np.uint32) == (a - b).view(np.uint32)).all()  # rows 4..15 come from a's loaded padding


@pytest.mark.parametrize("op", ["mul", "fmod"])
def test_bf16_widening_converts_the_padding_an_fp32_op_reads(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             op: str) -> None:
    """Ascend910B has no BF16 tmul / tfmod: LegalizeVecDtypes widens both operands to FP32. The
    narrowed operand is read past its valid rows, so its whole tile is converted (a cast of its
    valid rows alone left rows 4..15 of the FP32 copy without data)."""
    bf16 = ml_dtypes.bfloat16
    rng = np.random.default_rng(5)
    a = rng.uniform(-8, 8, (16, 64)).astype(bf16)
    b = rng.uniform(0.5, 3, (16, 64)).astype(bf16)
    got = _run(tmp_path, capsys, _kernel(NARROWED_LOAD.format(dtype="BF16", op=op), "BF16"), a, b,
               "--backend", "Ascend910B")
    wide_a, wide_b = a.astype(np.float32), b.astype(np.float32)
    # A BF16 product has at most 16 significant bits and fmod is exact: FP32 holds both exactly,
    # so one rounding to BF16 (nearest-even) gives the reference.
    exact = wide_a * wide_b if op == "mul" else np.fmod(wide_a, wide_b)
    assert (got.view(np.uint16) == exact.astype(bf16).view(np.uint16)).all()


def test_padding_an_op_never_wrote_is_refused_at_the_reading_op(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    body = """\
    narrow: pl.Tile[[16, 64], pl.FP32, pl.TileView(valid_shape=[4, 64])] = pl.tile.set_validshape(ta, 4, 64)
    partial: pl.Tile[[16, 64], pl.FP32, pl.TileView(valid_shape=[4, 64])] = pl.tile.exp(narrow)
    s: pl.Tile[[16, 64], pl.FP32] = pl.tile.add(partial, tb)
    """
    rc, log = compile_kernel(tmp_path, capsys, _kernel(body))
    assert rc == 1 and "[DefinedReads]" in log, log
    assert "kernel.py:12:" in log  # the add, not a pass
    assert "reads `partial`" in log and "tile.exp wrote only [4, 64]" in log and "[16, 64]" in log, log
    assert "pl.set_validshape" in log  # says how to fix it


def test_set_validshape_widening_past_the_written_rows_is_refused(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    body = """\
    narrow: pl.Tile[[16, 64], pl.FP32, pl.TileView(valid_shape=[4, 64])] = pl.tile.set_validshape(ta, 4, 64)
    partial: pl.Tile[[16, 64], pl.FP32, pl.TileView(valid_shape=[4, 64])] = pl.tile.exp(narrow)
    wide: pl.Tile[[16, 64], pl.FP32] = pl.tile.set_validshape(partial, 16, 64)
    s: pl.Tile[[16, 64], pl.FP32] = pl.tile.muls(wide, 2.0)
    """
    rc, log = compile_kernel(tmp_path, capsys, _kernel(body))
    assert rc == 1 and "[DefinedReads]" in log and "kernel.py:13:" in log, log
    assert "tile.muls reads `wide` over its valid region [16, 64]" in log and "write the elements first" in log, log


def test_tensor_level_kernels_are_checked_before_conversion(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = program_text("""\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        e = pl.exp(pl.slice(a, [16, 64], [0, 0], [8, 64]))
        s = pl.add(b, e)
        return s

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        r = self.kernel(a, b)
        return r
    """)
    rc, log = compile_kernel(tmp_path, capsys, text)
    assert rc == 1 and "[DefinedReads]" in log and "kernel.py:9:" in log and "tensor.exp wrote only [8, 64]" in log, log


# The widening a pass could emit for a BF16 op on Ascend910B: each operand cast over its valid
# region only, although the op then reads the narrowed one past it.
WIDENED = """\
import pypto.language as pl


@pl.program
class Kernel:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 64], pl.BF16], out: pl.Out[pl.Tensor[[16, 64], pl.BF16]]) -> pl.Tensor[[16, 64], pl.BF16]:
        ta: pl.Tile[[16, 64], pl.BF16, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        narrow: pl.Tile[[16, 64], pl.BF16, pl.Mem.Vec, pl.TileView(valid_shape=[4, 64])] = pl.tile.set_validshape(ta, 4, 64)
        {widen}
        wa: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.cast(ta, target_type=pl.FP32, mode="round")
        w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.mul(wn, wa)
        s: pl.Tile[[16, 64], pl.BF16, pl.Mem.Vec] = pl.tile.cast(w, target_type=pl.BF16, mode="rint")
        r: pl.Tensor[[16, 64], pl.BF16] = pl.tile.store(s, [0, 0], out)
        return r
"""
VALID_ONLY = ('wn: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[4, 64])] = '
              'pl.tile.cast(narrow, target_type=pl.FP32, mode="round")')
WHOLE_TILE = ('whole: pl.Tile[[16, 64], pl.BF16, pl.Mem.Vec] = pl.tile.set_validshape(narrow, 16, 64)\n'
              '        wn: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.cast(whole, target_type=pl.FP32, mode="round")')


def test_the_verifier_fires_on_a_widening_that_drops_the_padding() -> None:
    broken = defined_reads.verify(parse_program(WIDENED.format(widen=VALID_ONLY), "widened.py"))
    assert [d.rule for d in broken] == ["DefinedReads"]
    assert broken[0].span.line == 12 and "reads `wn`" in broken[0].message and "tile.cast wrote only [4, 64]" in \
        broken[0].message
    assert defined_reads.verify(parse_program(WIDENED.format(widen=WHOLE_TILE), "whole.py")) == []


def test_the_mutant_widening_the_valid_region_only_is_caught_after_the_pass(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from nanopass.pipeline import main
    mutant = {m.name: m for m in MUTANTS}["bf16-widening-drops-padding"]
    path = tmp_path / "kernel.py"
    path.write_text(_kernel(NARROWED_LOAD.format(dtype="BF16", op="mul"), "BF16"))
    with mutant.applied():
        rc = main([str(path), "--verify-all", "-o", str(tmp_path / "k.pto"), "--backend", "Ascend910B",
                   "--reproducer-dir", str(tmp_path / "repro")])
    log = capsys.readouterr().err
    assert rc == 2 and "[LegalizeVecDtypes]" in log and "broke DefinedReads" in log, log


def test_a_gm_slice_narrowed_by_valid_shape_loads_its_valid_rows_only(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """A kernel's slice of its GM parameter is a load of the slice's valid region: past it the
    loaded tile holds nothing, so an element-wise op reading there is refused at the user's line
    (it used to pass the check at Tensor level and be blamed on ConvertTensorToTileOps)."""
    text = program_text("""\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        s = pl.slice(a, [16, 64], [0, 0], [8, 64])
        u = pl.add(b, s)
        return u

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        r = self.kernel(a, b)
        return r
    """)
    rc, log = compile_kernel(tmp_path, capsys, text)
    assert rc == 1 and "[DefinedReads]" in log and "kernel.py:9:" in log and "tensor.slice wrote only [8, 64]" in log, log


GATHERB = program_text("""\
@pl.function(type=pl.FunctionType.InCore)
def kernel(self, x: pl.Tensor[[{rows}, {cols}], pl.INT32], idx: pl.Tensor[[1, 8], pl.UINT32], out: pl.Out[pl.Tensor[[1, 64], pl.INT32]]) -> pl.Tensor[[1, 64], pl.INT32]:
    s: pl.Tile[[{rows}, {cols}], pl.INT32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [{rows}, {cols}], target_memory=pl.Mem.Vec)
    o: pl.Tile[[1, 8], pl.UINT32, pl.Mem.Vec] = pl.tile.load(idx, [0, 0], [1, 8], target_memory=pl.Mem.Vec)
    g: pl.Tile[[1, 64], pl.INT32] = pl.tile.gatherb(s, o)
    r: pl.Tensor[[1, 64], pl.INT32] = pl.tile.store(g, [0, 0], out)
    return r

@pl.function(type=pl.FunctionType.Orchestration)
def main(self, x: pl.Tensor[[{rows}, {cols}], pl.INT32], idx: pl.Tensor[[1, 8], pl.UINT32], out: pl.Out[pl.Tensor[[1, 64], pl.INT32]]) -> pl.Tensor[[1, 64], pl.INT32]:
    r = self.kernel(x, idx, out)
    return r
""")


@pytest.mark.parametrize(("rows", "cols", "expected"), [
    (1, 1, "tile.gatherb reads `s` in whole 32-byte blocks"),  # one INT32: a block is 8 of them
    (2, 12, "rows are not whole 32-byte blocks"),  # 48-byte rows padded to 64: a block straddles the padding
])
def test_gatherb_blocks_past_the_data_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  rows: int, cols: int, expected: str) -> None:
    rc, log = compile_kernel(tmp_path, capsys, GATHERB.format(rows=rows, cols=cols))
    assert rc == 1 and "kernel.py:10:" in log and expected in log, log


def test_gatherb_of_whole_blocks_runs_bit_exact(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(11)
    x = rng.integers(-1000, 1000, (4, 16)).astype(np.int32)
    idx = (rng.integers(0, 8, (1, 8)) * 32).astype(np.uint32)  # 8 blocks of 8 INT32 in the 256-byte source
    rc, log = compile_kernel(tmp_path, capsys, GATHERB.format(rows=4, cols=16), {"x": x, "idx": idx})
    assert rc == 0 and "bit-exact" in log, log
    got = np.load(tmp_path / "out.npz")["ret0"]
    blocks = x.reshape(-1, 8)
    assert (got.reshape(8, 8) == blocks[idx.reshape(-1) // 32]).all()


def test_a_same_width_reinterpretation_keeps_its_sources_padding_data() -> None:
    # LegalizeVecDtypes' BITS route narrows a BF16 value as INT16 bits and views them as BF16
    # again; the view's padding is the bits' padding, which holds data when the bits were
    # written whole. Counting only the view's valid region refused a correct program after the
    # pass (an Ascend950 campaign's finding, e0f4e06871).
    from languages.gen import tile_unplaced as U
    from languages.ops import REGISTRY
    from languages.ops.data_extents import result_data
    from languages.types import DataType
    from languages.views import make_tile_type

    bits = U.Var("bits", make_tile_type((1, 16), DataType.INT16, (1, 1)))
    opdef = REGISTRY.get("tile.reinterpret_view")
    same = make_tile_type((1, 16), DataType.BF16, (1, 1))
    assert result_data(opdef, (bits,), same, [(1, 16)]) == (1, 16)
    wider = make_tile_type((1, 8), DataType.FP32, (1, 1))  # other elements: only its own region is known
    assert result_data(opdef, (bits,), wider, [(1, 16)]) == (1, 1)
