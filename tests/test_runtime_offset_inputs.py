"""Random inputs keep runtime window offsets inside their windows.

A kernel that reads an offset out of a GM tensor (`r = pl.read(pos, [1])`) and uses it as the
offset of a window (`pl.tile.read(t, [r, c])`, `pl.store(t, [0, c], out)`) is defined only for
offsets that keep the window inside its source (the registry's `OpDef.window`).  Random inputs
(backend.arrays.random_inputs) used to fill such a tensor with arbitrary 16-bit integers, so
`--simulate` stopped on "read at offsets [-14823, 11002] ... leaves the source".  Each element
used as an offset is now drawn from [0, shape - extent] of every window it positions.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from backend.arrays import offset_element_bounds
from languages.functions import entry_function
from languages.pl_parser import load_program
from nanopass.node import Node
from nanopass_pto import run

KERNEL = '''
import pypto.language as pl


@pl.program
class Pick:
    @pl.function(type=pl.FunctionType.InCore)
    def pick(self, x: pl.Tensor[[6, 16], pl.FP32], pos: pl.Tensor[[3], pl.INT32],
             y: pl.Out[pl.Tensor[[2, 40], pl.FP32]]) -> pl.Tensor[[2, 40], pl.FP32]:
        t: pl.Tile[[6, 16], pl.FP32] = pl.load(x, [0, 0], [6, 16])
        r: pl.Scalar[pl.INT32] = pl.read(pos, [0])
        c: pl.Scalar[pl.INT32] = pl.read(pos, [2])
        v: pl.Scalar[pl.FP32] = pl.tile.read(t, [r, c])
        pl.tile.write(t, [1, 3], v)
        w: pl.Tile[[2, 16], pl.FP32] = pl.tile.slice(t, [2, 16], [0, 0])
        return pl.store(w, [0, c], y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[6, 16], pl.FP32], pos: pl.Tensor[[3], pl.INT32]) -> pl.Tensor[[2, 40], pl.FP32]:
        y: pl.Tensor[[2, 40], pl.FP32] = pl.create_tensor([2, 40], dtype=pl.FP32)
        z: pl.Tensor[[2, 40], pl.FP32] = self.pick(x, pos, y)
        return z
'''


def _program(tmp_path: Path) -> Node:
    path = tmp_path / "pick.py"
    path.write_text(KERNEL)
    return load_program(str(path))


def test_offset_elements_get_the_tightest_window_bound(tmp_path: Path) -> None:
    program = _program(tmp_path)
    bounds = offset_element_bounds(program, entry_function(program, None))
    # pos[0]: a row of t (6 rows, extent 1) -> 6 offsets; pos[2]: a column of t (16 columns)
    # and the column of a 16-wide store into 40 columns (25 offsets): the tighter is 16.
    # pos[1] is never read: unconstrained.
    assert bounds == {"pos": {0: 6, 2: 16}}


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_random_inputs_keep_runtime_offsets_inside(tmp_path: Path, seed: int) -> None:
    program = _program(tmp_path)
    inputs = run.random_inputs(program, seed=seed)
    pos = inputs["pos"]
    assert 0 <= pos[0] < 6 and 0 <= pos[2] < 16, pos
    compiled = run.compile_program(program, verify_all=True)
    expected, got = run.reference(program, inputs), run.run(compiled, inputs)
    reports = run.compare(expected, got)
    assert reports and all(r.ok for r in reports), [str(r) for r in reports]
    # The bits are the kernel's: row r, column c of x written at [1, 3], rows 0..1 stored at c.
    x = inputs["x"].copy()
    x[1, 3] = x[int(pos[0]), int(pos[2])]
    c = int(pos[2])
    assert np.array_equal(got["ret0"][:, c:c + 16].view(np.uint32), x[:2].view(np.uint32))
