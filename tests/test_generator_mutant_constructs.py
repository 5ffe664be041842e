"""The generator's hand-placed programs, gathered on-chip windows, re-read written tiles and
rounding casts and tile-level padding reads (through a handle, a reshape view or a re-viewed
window), each with the
mutant a program of it catches.

A hand-placed program is spelled at TilePlaced (every tile's memory space written in its type),
so the pipeline takes it up after ConvertTensorToTileOps; its stores sometimes go into
parameters declared `In`, which `upgrade-param-directions-placed` must make Out / InOut (the
host copies the written bytes back only then). A gathered window is a column window of an
on-chip tensor read by tensor.gather / scatter, whose tile form counts the window's own columns:
ConvertTensorToTileOps must copy it out first (the `gather-window-not-packed` mutant), and index
the copy at the pitch its placement keeps: a one-column window's copy is row-major, its rows 32
bytes apart (the `gather-index-unplaced-pitch` mutant)."""

from __future__ import annotations

import warnings

import pytest

from hypothesis import HealthCheck, given, settings

from backend.fuzzing.generator import CONSTRUCTS
from languages.pl_parser import parse_program
from nanopass.fuzz import Outcome
from nanopass_pto.fuzz_target import FuzzCase, PtoFuzzTarget
from nanopass_pto.mutants import MUTANTS

_TARGET = PtoFuzzTarget()
_TARGET.configure(None, None, None)
TAGS = ("construct:hand-placed", "construct:undeclared-out", "construct:undeclared-inout",
        "construct:window-gathered", "construct:window-gathered-column", "construct:written-tile-reread", "construct:rounding-cast",
        "construct:tile-padding-read", "construct:view-padding-read", "construct:re-viewed-window-padding-read")


def _cases(count: int) -> list[FuzzCase]:
    drawn: list[FuzzCase] = []

    @settings(max_examples=count, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(_TARGET.strategy())
    def collect(case: FuzzCase) -> None:
        drawn.append(case)

    collect()
    return drawn


_DRAWN = _cases(400)


def _check(case: FuzzCase) -> Outcome:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return _TARGET.check(case, blame=False)


def test_the_constructs_are_known_and_drawn() -> None:
    assert set(TAGS) <= set(CONSTRUCTS)
    seen = {tag for case in _DRAWN for tag in case.generated.ops}
    assert set(TAGS) <= seen, sorted(set(TAGS) - seen)


def test_a_hand_placed_program_enters_at_tile_placed_and_its_in_stores_are_upgraded() -> None:
    undeclared = [c for c in _DRAWN if "construct:hand-placed" in c.generated.ops
                  and "construct:undeclared-out" in c.generated.ops]
    assert undeclared
    case = undeclared[0]
    assert type(parse_program(case.text)).LANGUAGE == "TilePlaced"
    outcome = _check(case)
    assert not outcome.failed, f"{outcome.headline()}\n{outcome.detail}\n{case.text}"
    assert "upgrade-param-directions-placed" in outcome.changed


# (construct tag, an op the program must call (or a tag it must carry) too, the mutant a program of it catches)
CAUGHT_BY = [
    ("construct:window-gathered", "tensor.gather", "gather-window-not-packed"),
    ("construct:window-gathered-column", "tensor.gather", "gather-index-unplaced-pitch"),
    ("construct:written-tile-reread", "tile.write", "in-place-write-rebinds-tile"),
    ("construct:rounding-cast", "tensor.cast", "cast-mode-rne"),
    ("construct:undeclared-out", "construct:hand-placed", "placed-out-kept-in"),
    ("construct:tile-padding-read", "tile.set_validshape", "bf16-widening-drops-padding"),
    ("construct:view-padding-read", "tile.reshape", "re-view-revalidated-keeps-narrowing"),
    ("construct:re-viewed-window-padding-read", "tile.reinterpret_view", "re-viewed-window-copied-over-its-valid-region"),
]


@pytest.mark.parametrize("tag, op, mutant_name", CAUGHT_BY)
def test_a_construct_compiles_and_its_mutant_is_caught(tag: str, op: str, mutant_name: str) -> None:
    # Distinct by the statements calling `op` (by the text where `op` is a tag): Hypothesis'
    # variants of one program (another kernel beside it) count once, so the eight are eight constructs.
    distinct = {(c.text,) if op.startswith("construct:") else
                tuple(line.split("=", 1)[-1] for line in c.text.splitlines() if op in line): c
                for c in _DRAWN if tag in c.generated.ops and op in c.generated.ops}
    drawn = list(distinct.values())
    assert drawn, tag
    mutant = next(m for m in MUTANTS if m.name == mutant_name)
    verdicts = []
    for case in drawn[:8]:
        outcome = _check(case)
        assert not outcome.failed, f"{outcome.headline()}\n{outcome.detail}\n{case.text}"
        with mutant.applied():
            verdicts.append(_check(case).failed)
    assert any(verdicts), f"{mutant_name} survives {len(verdicts)} programs of {tag}"
