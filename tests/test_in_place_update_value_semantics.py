"""A tile the user updates in place (`t1 = pl.tile.write(t, ...)`, `pl.tile.scatter_mask`) is a
value: `t` still names the contents from before the update. ConvertTensorToTileOps rebinds only
a *tensor* that became a tile (a tensor is a buffer, every later read sees the write), and
MaterializeSemanticAliases copies `t` when it is read after the update shares its buffer."""

from __future__ import annotations

import numpy as np
import pytest

from languages.decls import Tensor
from languages.pl_parser import parse_program
from nanopass_pto.mutants import MUTANTS
from nanopass_pto.run import compare, compile_program, random_inputs, reference, run

# `t` is read twice after the write: whole (tile.add) and through a window (tile.slice). A
# second kernel on tensors makes the program enter at the Tensor language, where
# ConvertTensorToTileOps decides what the old name reads.
KERNEL = """\
import pypto.language as pl


@pl.program
class K:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], old: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
          corner: pl.Out[pl.Tensor[[4, 8], pl.FP32]],
          new: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> tuple[pl.Tensor[[16, 16], pl.FP32],
                                                             pl.Tensor[[4, 8], pl.FP32],
                                                             pl.Tensor[[16, 16], pl.FP32]]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        t1: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.write(t, [2, 3], pl.const(5.0, pl.FP32))
        doubled: pl.Tile[[16, 16], pl.FP32] = pl.tile.add(t, t)
        window: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [4, 8], [0, 0])
        a: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(doubled, [0, 0], old)
        w: pl.Tensor[[4, 8], pl.FP32] = pl.tile.store(window, [0, 0], corner)
        b: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(t1, [0, 0], new)
        return a, w, b

    @pl.function(type=pl.FunctionType.InCore)
    def square(self, y: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        return pl.tensor.mul(y, y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[4, 8], pl.FP32],
                                                           pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        old: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.create([16, 16], dtype=pl.FP32)
        corner: pl.Tensor[[4, 8], pl.FP32] = pl.tensor.create([4, 8], dtype=pl.FP32)
        new: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.create([16, 16], dtype=pl.FP32)
        outs: tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[4, 8], pl.FP32], pl.Tensor[[16, 16], pl.FP32]] = \\
            self.k(x, old, corner, new)
        r0: pl.Tensor[[16, 16], pl.FP32] = outs[0]
        r1: pl.Tensor[[4, 8], pl.FP32] = outs[1]
        r2: pl.Tensor[[16, 16], pl.FP32] = outs[2]
        r3: pl.Tensor[[16, 16], pl.FP32] = self.square(x)
        return r0, r1, r2, r3
"""


def test_tile_annotations_beside_a_tensor_kernel_enter_at_the_tensor_language() -> None:
    assert type(parse_program(KERNEL, "k.py")).LANGUAGE == Tensor.name


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_reads_of_the_old_tile_see_the_contents_before_the_write(backend: str) -> None:
    compiled = compile_program(parse_program(KERNEL, "k.py"), backend=backend, verify_all=True)
    inputs = random_inputs(compiled.source, 7)
    got = [np.asarray(v, dtype=np.float32) for v in run(compiled, inputs).values()]
    x = np.asarray(inputs["x"], dtype=np.float32)
    updated = x.copy()
    updated[2, 3] = 5.0
    expected = [x + x, x[:4, :8], updated, x * x]
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert np.array_equal(g.view(np.uint32), np.ascontiguousarray(e).view(np.uint32))


def test_the_mutant_that_rebinds_written_tiles_miscompiles_and_the_simulation_sees_it() -> None:
    mutant = {m.name: m for m in MUTANTS}["in-place-write-rebinds-tile"]
    with mutant.applied():
        compiled = compile_program(parse_program(KERNEL, "k.py"), backend="Ascend950", verify_all=True)
    inputs = random_inputs(compiled.source, 7)
    reports = compare(reference(compiled.source, inputs), run(compiled, inputs))
    assert [r.ok for r in reports] == [False, False, True, True], reports
