"""Calls only ConvertTensorToTileOps completes, in programs that skip it.

tile.scatter_mask has no instruction (PTOAS has no tscatter mask form): ConvertTensorToTileOps
expands it into the flat index and tile.scatter, and it adds a soft syncall's on-chip workspaces,
which the Tensor-level call leaves implicit. A kernel written at TileUnplaced or TilePlaced enters
the pipeline after that pass, and both reached PTOCodegen as written: an internal IndexError in
the scatter emitter, an internal PTOOperandKinds error after it (agent-p's hand-placed programs,
docs/open_findings/scatter_mask_at_tile_placed.py). The registry states the fact
(`OpDef.completed_by`), and TileUnplaced and the languages after it refuse such a call at the
user's line (the grammar's `completed-calls` operand form); the spelling the hint names runs
bit-exact against NumPy on both targets.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from languages.ops import REGISTRY
from nanopass.pipeline import main
from passes.convert_tensor_to_tile_ops import TILE_EXPANSIONS

Array = npt.NDArray[Any]
BACKENDS = ("Ascend910B", "Ascend950")

SCATTER_MASK = """\
# nanopass.language: {LANGUAGE}
import pypto.language as pl


@pl.program
class ScatterMask:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[4, 32], pl.INT32], y: pl.Tensor[[4, 16], pl.INT32],
               out: pl.Out[pl.Tensor[[4, 32], pl.INT32]]) -> pl.Tensor[[4, 32], pl.INT32]:
        t: pl.Tile[[4, 32], pl.INT32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [4, 32], target_memory=pl.Mem.Vec)
        u: pl.Tile[[4, 16], pl.INT32, pl.Mem.Vec] = pl.tile.load(y, [0, 0], [4, 16], target_memory=pl.Mem.Vec)
        s: pl.Tile[[4, 32], pl.INT32, pl.Mem.Vec] = pl.tile.scatter_mask(t, u, mask_pattern=pl.tile.MaskPattern.P1010)
        st: pl.Tensor[[4, 32], pl.INT32] = pl.tile.store(s, [0, 0], out)
        return st

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 32], pl.INT32], y: pl.Tensor[[4, 16], pl.INT32]) -> pl.Tensor[[4, 32], pl.INT32]:
        out: pl.Tensor[[4, 32], pl.INT32] = pl.tensor.create([4, 32], dtype=pl.INT32)
        r: pl.Tensor[[4, 32], pl.INT32] = self.kernel(x, y, out)
        return r
"""

SOFT_SYNCALL = """\
# nanopass.language: TilePlaced
import pypto.language as pl


@pl.program
class SoftSyncall:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[1, 16], pl.INT32], ws: pl.Tensor[[16], pl.INT32],
               out: pl.Out[pl.Tensor[[1, 16], pl.INT32]]) -> pl.Tensor[[1, 16], pl.INT32]:
        t: pl.Tile[[1, 16], pl.INT32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [1, 16], target_memory=pl.Mem.Vec)
        {WORKSPACES}
        d: pl.Tile[[1, 16], pl.INT32, pl.Mem.Vec] = pl.tile.adds(t, 3)
        st: pl.Tensor[[1, 16], pl.INT32] = pl.tile.store(d, [0, 0], out)
        return st

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[1, 16], pl.INT32], ws: pl.Tensor[[16], pl.INT32]) -> pl.Tensor[[1, 16], pl.INT32]:
        out: pl.Tensor[[1, 16], pl.INT32] = pl.tensor.create([1, 16], dtype=pl.INT32)
        r: pl.Tensor[[1, 16], pl.INT32] = self.kernel(x, ws, out)
        return r
"""
IMPLICIT = 'pl.system.syncall(ws, 0, mode="soft")'
EXPLICIT = ('v: pl.Tile[[1, 8], pl.INT32, pl.Mem.Vec] = pl.tile.create([1, 8], dtype=pl.INT32, '
            'target_memory=pl.Mem.Vec)\n        pl.system.syncall(ws, 0, v, mode="soft")')


def _compile(tmp_path: Path, source: str, backend: str, inputs: dict[str, Array] | None = None) -> int:
    (tmp_path / "k.py").write_text(source)
    argv = [str(tmp_path / "k.py"), "--backend", backend, "--verify-all", "--simulate", "-o", str(tmp_path / "k.pto")]
    if inputs is not None:
        np.savez(tmp_path / "in.npz", **inputs)  # type: ignore[arg-type]
        argv += ["--inputs", str(tmp_path / "in.npz"), "--save-outputs", str(tmp_path / "out.npz")]
    return main(argv)


def _ret0(tmp_path: Path) -> Array:
    with np.load(tmp_path / "out.npz") as saved:
        return np.asarray(saved["ret0"])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("language", ["TilePlaced", "TileUnplaced"])
def test_a_scatter_mask_written_after_its_expansion_is_refused_at_its_line(
        tmp_path: Path, backend: str, language: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert _compile(tmp_path, SCATTER_MASK.format(LANGUAGE=language), backend) == 1
    err = capsys.readouterr().err
    assert (f"k.py:12:53: error: [{language}Grammar] not supported yet: `tile.scatter_mask` in a program written "
            "at TileUnplaced or later: it has no instruction of its own, and ConvertTensorToTileOps") in err, err
    assert "hint: write the kernel for the pipeline to take up at Tensor" in err
    assert "internal compiler error" not in err


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_same_scatter_mask_taken_up_at_tensor_matches_numpy(tmp_path: Path, backend: str) -> None:
    rng = np.random.default_rng(3)
    x = rng.integers(-1000, 1000, (4, 32)).astype(np.int32)
    y = rng.integers(-1000, 1000, (4, 16)).astype(np.int32)
    assert _compile(tmp_path, SCATTER_MASK.format(LANGUAGE="Tensor"), backend, {"x": x, "y": y}) == 0
    expected = x.copy()
    expected[:, 1::2] = y  # P1010 marks columns 1, 3, 5, ...
    np.testing.assert_array_equal(_ret0(tmp_path), expected)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_soft_syncall_written_at_tile_placed_names_its_workspaces(
        tmp_path: Path, backend: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert _compile(tmp_path, SOFT_SYNCALL.format(WORKSPACES=IMPLICIT), backend) == 1
    err = capsys.readouterr().err
    assert ("k.py:11:9: error: [TilePlacedGrammar] not supported yet: `system.syncall` in a program written at "
            "TileUnplaced or later: it does not name its on-chip workspaces (an INT32 [1, 8] Vec tile") in err, err
    assert "internal compiler error" not in err
    # The spelling the hint names compiles and runs.
    rng = np.random.default_rng(4)
    x = rng.integers(-1000, 1000, (1, 16)).astype(np.int32)
    ws = np.zeros(16, dtype=np.int32)
    assert _compile(tmp_path, SOFT_SYNCALL.format(WORKSPACES=EXPLICIT), backend, {"x": x, "ws": ws}) == 0
    np.testing.assert_array_equal(_ret0(tmp_path), x + 3)


def test_the_expansions_are_the_registrys_completed_ops() -> None:
    """Every op ConvertTensorToTileOps expands is one the registry says a pass completes (so the
    languages after it refuse it), and the registry names that pass."""
    completed = {name: op.completed_by for name, op in ((n, REGISTRY.get(n)) for n in REGISTRY.names())
                 if op.completed_by is not None}
    assert set(TILE_EXPANSIONS) <= set(completed)
    assert {completion.pass_name for completion in completed.values()} == {"ConvertTensorToTileOps"}
    assert set(completed) == {"tile.scatter_mask", "system.syncall"}
