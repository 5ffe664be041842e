"""A `tile.move(..., cross_core=True)` is a FIFO hop between the cube and the vector core, which
exists only from Acc to Vec and from Vec to Mat (tile_ops.CROSS_CORE_TRANSFERS). Over a tile that
is not placed yet the move deduces (its placement decides), so the generator drew such moves over
plain loads, which InferTileMemorySpace places in Vec: a Vec -> Vec (or Vec -> Acc) crossing the
type deduction then refuses. The generator keeps cross_core only where
`is_cross_core_transfer` says the hop is one of the FIFOs, and draws a plain move between two
known spaces only where a chain of the target's data moves and FIFOs connects them (never into
Acc, which only the cube writes)."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest
from hypothesis import HealthCheck, given, seed, settings

from backend.targets.handlers import get_backend
from backend.fuzzing.generator import Features, GeneratedProgram, programs
from languages.memory_space import MemorySpace
from languages.ops.tile_ops import is_cross_core_transfer
from languages.pl_parser import load_program
from languages.types import TileType
from nanopass.diagnostics import CompileError
from nanopass_pto.run import compile_program


def test_only_the_fifo_pairs_cross_and_an_unplaced_tile_is_not_known_to() -> None:
    assert is_cross_core_transfer(MemorySpace.Acc, MemorySpace.Vec)
    assert is_cross_core_transfer(MemorySpace.Vec, MemorySpace.Mat)
    assert not is_cross_core_transfer(MemorySpace.Vec, MemorySpace.Vec)
    assert not is_cross_core_transfer(None, MemorySpace.Vec)


_LOADED_THEN_CROSSED = '''import pypto.language as pl


@pl.program
class Crossing:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        t: pl.Tile[[16, 32], pl.FP32] = pl.tile.load(x, [0, 0], [16, 32])
        u: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.move(t, target_memory=pl.Mem.Vec, cross_core=True)
        return pl.tile.store(u, [0, 0], out)
'''


def test_a_crossing_from_where_a_load_lands_is_refused_with_the_fifo_pairs(tmp_path: Path) -> None:
    path = tmp_path / "crossing.py"
    path.write_text(_LOADED_THEN_CROSSED)
    with pytest.raises(CompileError) as caught:
        compile_program(load_program(str(path)), backend="Ascend910B")
    text = str(caught.value)
    assert "no cross-core transfer Vec -> Vec" in text and "Acc -> Vec, Vec -> Mat" in text and "hint:" in text


def _moves(node: object) -> Iterator[tuple[bool, object, object]]:
    """(cross_core, source type, result type) of every tile.move in `node`, at any depth."""
    if isinstance(node, (list, tuple)):
        for item in node:
            yield from _moves(item)
        return
    if not hasattr(node, "__dataclass_fields__"):
        return
    value = getattr(node, "value", None)
    if getattr(value, "op", None) == "tile.move":
        crossing = bool(dict(getattr(value, "attrs")).get("cross_core"))
        yield crossing, getattr(getattr(value, "args")[0], "type", None), getattr(value, "type", None)
    for name in getattr(node, "__dataclass_fields__"):
        if name not in ("type", "span"):
            yield from _moves(getattr(node, name))


@pytest.mark.parametrize("arch", ["a2a3", "a5"])
def test_the_generator_crosses_cores_only_through_a_fifo(arch: str) -> None:
    drawn: list[GeneratedProgram] = []

    def draw_from(start: int) -> None:
        # Before the fact, about a fifth of these programs crossed from an unplaced load.
        @seed(start)
        @settings(max_examples=150, database=None, deadline=None, suppress_health_check=list(HealthCheck))
        @given(programs(Features(), arch, ("tile.move",)))
        def draw(program: GeneratedProgram) -> None:
            drawn.append(program)

        draw()

    # A fixed seed's stream shifts whenever the generator learns a construct: a few seeds, so the
    # test keeps seeing crossings (it checks every move it draws) without pinning one stream.
    for start in (3, 5, 7, 11):
        draw_from(start)
        if any(crossing for p in drawn for crossing, _, _ in _moves(p.program.functions)):
            break
    moves = [m for p in drawn for m in _moves(p.program.functions)]
    assert any(crossing for crossing, _, _ in moves), "no cross-core move drawn"
    backend = get_backend(arch)
    for crossing, source, result in moves:
        assert isinstance(source, TileType) and isinstance(result, TileType)
        if crossing:
            assert is_cross_core_transfer(source.memory_space, result.memory_space), (source, result)
        elif source.memory_space is not None and result.memory_space is MemorySpace.Acc:
            # No data move enters Acc on the target (only the cube writes it): the generator drew
            # Vec -> Acc moves, which ExpandMixedKernel refuses.
            assert not any(backend.can_move(space, MemorySpace.Acc) for space in MemorySpace
                           if space is not MemorySpace.Acc)
            assert source.memory_space is MemorySpace.Acc, (source, result)
