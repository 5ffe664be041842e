"""The campaign driver reports what it finds: a failure whose shrink or replay the time budget
cuts short is reported as the failure it is (with its program and regression file), not as a
Hypothesis `Flaky` blamed on "hypothesis", and a mutant caught that way counts as caught."""

from __future__ import annotations

import contextlib
import time
from typing import Any, Iterator, Sequence

from hypothesis import strategies as st
from typing_extensions import override

from nanopass.fuzz import CampaignConfig, Mutant, Outcome, run_campaign, run_mutant


class _SlowFailingTarget:
    """Programs are lists of integers; a list summing past 100 fails, and checking takes `delay`
    seconds, so the deadline falls while Hypothesis is still shrinking the first failure."""

    name = "slow"

    def __init__(self, delay: float, broken: list[bool] | None = None, threshold: int = 100) -> None:
        self.delay = delay
        self.broken = broken if broken is not None else [True]
        self.threshold = threshold

    def configure(self, pipeline: str | None, backend: str | None, features: str | None) -> None:
        pass

    def strategy(self) -> Any:
        return st.lists(st.integers(0, 1000), min_size=8, max_size=12)

    def check(self, case: Any, blame: bool = True) -> Outcome:
        time.sleep(self.delay)
        if self.broken[0] and sum(case) > self.threshold:
            return Outcome("mismatch", "simulator mismatch", "SomePass", f"{case} is wrong")
        return Outcome("ok")

    def regression_file(self, case: Any, outcome: Outcome) -> tuple[str, str]:
        return f"fuzz_{sum(case)}", f"# {outcome.headline()}\n{case}\n"

    def describe(self, case: Any) -> str:
        return str(case)

    def mutants(self) -> Sequence[Mutant]:
        return ()


def test_a_failure_cut_short_by_the_deadline_is_reported_as_itself() -> None:
    target = _SlowFailingTarget(delay=0.2)
    # Generation finds a failure at once (the first or second program); shrinking it needs many
    # 200 ms checks, far more than fit in the 1.5 s left (a loaded machine still reaches the
    # failure in time), so the replay after the deadline does not fail again.
    config = CampaignConfig(time.monotonic() + 1.5, None, seed=1, database=None, shrink=True)
    stats, failures = run_campaign(target, config)
    assert failures, "the failure was lost"
    found = failures[0]
    assert found.outcome.blamed == "SomePass" and found.outcome.status == "mismatch", found.outcome.headline()
    assert found.stem.startswith("fuzz_") and found.regression, "no regression file for it"
    assert found.case is not None and sum(found.case) > 100
    assert not any(f.outcome.blamed == "hypothesis" for f in failures)


class _Switch:
    """A mutant that breaks the fake target while applied."""

    name = "break-it"
    description = "every program fails"

    def __init__(self, flag: list[bool]) -> None:
        self.flag = flag

    @contextlib.contextmanager
    def applied(self) -> Iterator[None]:
        self.flag[0] = True
        try:
            yield
        finally:
            self.flag[0] = False


def test_a_mutant_caught_near_the_budget_counts_as_caught() -> None:
    flag = [False]
    # The first check outlasts the budget: Hypothesis's final replay of the failure comes after
    # the deadline, when the driver checks nothing more.
    target = _SlowFailingTarget(delay=0.3, broken=flag, threshold=-1)
    result = run_mutant(target, _Switch(flag), seconds=0.2, seed=3)
    assert result.caught, result
    assert result.blamed == "SomePass"


class _SteeredTarget(_SlowFailingTarget):
    """Cases are lists of labels; a steered chunk draws only the labels no case has covered yet,
    and `steered` records what each call was asked to steer toward."""

    labels = tuple(f"op{i}" for i in range(12))

    def __init__(self) -> None:
        super().__init__(delay=0.0, broken=[False])
        self.steered: list[tuple[frozenset[str], int, int, int, int]] = []
        self.seeds: list[int] = []

    @override
    def strategy(self) -> Any:
        return st.lists(st.sampled_from(self.labels[:2]), min_size=1, max_size=2)

    def steered_strategy(self, exercised: frozenset[str], worker: int, workers: int, chunk: int,
                         size: int, seed: int) -> Any:
        self.steered.append((exercised, worker, workers, chunk, size))
        self.seeds.append(seed)
        left = [label for label in self.labels if label not in exercised]
        return st.lists(st.sampled_from(left), min_size=1, max_size=2) if left else None

    @override
    def check(self, case: Any, blame: bool = True) -> Outcome:
        return Outcome("ok", coverage=frozenset(case))


def test_every_other_chunk_is_steered_toward_what_the_campaign_has_not_covered() -> None:
    target = _SteeredTarget()
    config = CampaignConfig(time.monotonic() + 60, 60, seed=3, database=None, shrink=False, chunk=10,
                            worker=1, workers=2)
    stats, failures = run_campaign(target, config)
    assert not failures and stats.programs == 60
    # The odd chunks are steered (a free chunk may end early once its few cases are exhausted),
    # each told what was covered before it.
    chunks = [chunk for _, _, _, chunk, _ in target.steered]
    assert len(chunks) >= 2 and chunks == list(range(len(chunks)))
    assert all((worker, workers, size) == (1, 2, 10) for _, worker, workers, _, size in target.steered)
    assert set(target.seeds) == {3}
    first_seen = target.steered[0][0]
    assert first_seen and first_seen <= {"op0", "op1"}  # the free first chunk draws from two labels only
    # The steered chunks reach the labels the free strategy never draws.
    assert set(stats.coverage) == set(target.labels)


class _CountingTarget(_SlowFailingTarget):
    """Never fails; counts the cases its strategy generates (a draw of the list strategy)."""

    def __init__(self, delay: float) -> None:
        super().__init__(delay, broken=[False])
        self.generated = 0

    @override
    def strategy(self) -> Any:
        def counted(case: list[int]) -> list[int]:
            self.generated += 1
            return case

        return super().strategy().map(counted)


def test_no_case_is_generated_once_the_budget_is_spent() -> None:
    # Hypothesis goes on drawing the rest of a chunk after the deadline; those draws are a
    # constant, not programs generated for nothing. (A chunk of 25 with a 0.3 s deadline and
    # 50 ms checks leaves most of the chunk past the deadline.)
    target = _CountingTarget(delay=0.05)
    config = CampaignConfig(time.monotonic() + 0.3, None, seed=3, database=None, shrink=False)
    stats, failures = run_campaign(target, config)
    assert not failures and stats.programs >= 1
    assert target.generated <= stats.programs + 1, (target.generated, stats.programs)
