"""The generator's hand-placed programs and gathered on-chip windows.

A hand-placed program is spelled at TilePlaced (every tile's memory space written in its type),
so the pipeline takes it up after ConvertTensorToTileOps; its stores sometimes go into
parameters declared `In`, which `upgrade-param-directions-placed` must make Out / InOut (the
host copies the written bytes back only then). A gathered window is a column window of an
on-chip tensor read by tensor.gather / scatter, whose tile form counts the window's own columns:
ConvertTensorToTileOps must copy it out first (the `gather-window-not-packed` mutant)."""

from __future__ import annotations

import warnings

from hypothesis import HealthCheck, given, settings

from backend.fuzzing.generator import CONSTRUCTS
from languages.pl_parser import parse_program
from nanopass.fuzz import Outcome
from nanopass_pto.fuzz_target import FuzzCase, PtoFuzzTarget
from nanopass_pto.mutants import MUTANTS

_TARGET = PtoFuzzTarget()
_TARGET.configure(None, None, None)
TAGS = ("construct:hand-placed", "construct:undeclared-out", "construct:undeclared-inout",
        "construct:window-gathered")


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


def test_a_gathered_window_compiles_and_the_unpacked_mutant_is_refused() -> None:
    gathered = [c for c in _DRAWN if "construct:window-gathered" in c.generated.ops
                and "tensor.gather" in c.generated.ops]
    assert gathered
    mutant = next(m for m in MUTANTS if m.name == "gather-window-not-packed")
    verdicts = []
    for case in gathered[:6]:
        outcome = _check(case)
        assert not outcome.failed, f"{outcome.headline()}\n{outcome.detail}\n{case.text}"
        with mutant.applied():
            verdicts.append(_check(case).failed)
    assert any(verdicts)
