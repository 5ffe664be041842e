"""Property-based fuzzing campaigns: `python -m nanopass.fuzz`.

A campaign pushes random, well-typed programs through the whole pipeline with every verifier
on, runs the result, compares it with a reference, and turns every failure into a minimal,
named, re-runnable regression file. The framework part (this module) is generic: worker
processes, the Hypothesis loop and example database, progress, the summary, regression
files and mutation testing. What a program is, how it is checked and which mutants exist is
the compiler's business: the plugin provides a `FuzzTarget` (plugin attribute `fuzz_target`, a
zero-argument factory; `--target module:attr` or `$NANOPASS_FUZZ_TARGET` override it).

    python -m nanopass.fuzz [--time SECONDS | --examples N] [--workers N] [--seed S]
                            [--db PATH] [--pipeline SPEC] [--backend NAME] [--features F]
                            [--regressions DIR] [--no-shrink] [--mutants [NAME ...]]

Exit status: 0 when every program passed (or, with --mutants, when the mutation score reached
--min-score), 1 otherwise, 2 for a usage or setup error.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import importlib
import multiprocessing
import os
import queue
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, ContextManager, Iterator, Protocol, Sequence

from nanopass.cli import run_main, tune_gc_for_compilation
from nanopass.fuzz_cluster import SetupError, is_shared_database
from nanopass.progress import Progress

# Statuses of one checked program; everything but "ok" is a failure.
OK = "ok"
FAILURE_STATUSES = ("mismatch", "verifier", "crash", "poison", "rejected", "generator", "simulator-error",
                    "interpreter-error")


@dataclass(frozen=True)
class Outcome:
    """The verdict on one program.

    `check` names the check that caught a failure (verifier, simulator mismatch, poison read,
    crash, ...); `blamed` the pass (or stage) responsible; `coverage` the op kinds the program
    used; `changed` the passes that changed it; `timings` seconds per phase.
    """

    status: str
    check: str = ""
    blamed: str = ""
    detail: str = ""
    coverage: frozenset[str] = frozenset()
    changed: frozenset[str] = frozenset()
    timings: tuple[tuple[str, float], ...] = ()

    @property
    def failed(self) -> bool:
        return self.status != OK

    @property
    def key(self) -> str:
        """What makes two failures 'the same bug' (Hypothesis shrinks within one key)."""
        return f"{self.status}:{self.blamed}"

    def headline(self) -> str:
        return f"{self.status} ({self.check}) blamed on {self.blamed or '?'}"


class Mutant(Protocol):
    """A deliberately broken variant of one pass, applied as a reversible patch."""

    name: str
    description: str

    def applied(self) -> ContextManager[None]: ...


class FuzzTarget(Protocol):
    """What a compiler plugs into the campaign driver."""

    name: str

    def configure(self, pipeline: str | None, backend: str | None, features: str | None) -> None: ...

    def strategy(self) -> Any: ...  # a Hypothesis SearchStrategy of cases

    def check(self, case: Any, blame: bool = True) -> Outcome: ...

    def regression_file(self, case: Any, outcome: Outcome) -> tuple[str, str]: ...  # (file stem, text)

    def describe(self, case: Any) -> str: ...  # the program text

    def mutants(self) -> Sequence[Mutant]: ...

    # Optional: `steered_strategy(exercised, worker, workers, chunk, size, seed)` -> a strategy of
    # cases drawn toward what the campaign has not covered yet (`exercised`: the coverage tags
    # seen so far by this worker; the worker's index and the number of workers split the work;
    # `chunk` counts the steered chunks, `size` is a chunk's number of programs, `seed` the
    # worker's campaign seed), or None when nothing is left to steer toward. Every other chunk
    # of a worker is drawn from it.
    # Optional: `coverage_universe()` -> an object with `ops`, `constructs`, `passes` (everything a
    # campaign could cover), `gaps` (op -> why no program can reach it yet), `triggers` (pass ->
    # what it rewrites) and `dead_passes` (pass -> why it never fires in this pipeline): the
    # summary then prints the coverage table against those totals.


def load_target(spec: str | None = None) -> FuzzTarget:
    """The fuzz target: `spec` ("module:attr"), `$NANOPASS_FUZZ_TARGET`, or the plugin's."""
    spec = spec or os.environ.get("NANOPASS_FUZZ_TARGET")
    if spec:
        module, _, attr = spec.partition(":")
        factory = getattr(importlib.import_module(module), attr or "fuzz_target")
    else:
        from nanopass.plugin import get_plugin

        plugin = get_plugin()
        factory = getattr(plugin, "fuzz_target", None)
        if factory is None:
            raise LookupError(f"the compiler plugin {plugin.name!r} provides no fuzz target "
                              "(set its `fuzz_target` factory, or pass --target module:attr)")
    target = factory() if callable(factory) and not hasattr(factory, "check") else factory
    return target  # type: ignore[no-any-return]


# -- one worker's campaign ----------------------------------------------------------------------


@dataclass
class WorkerStats:
    programs: int = 0
    failures: int = 0
    coverage: Counter[str] = field(default_factory=Counter)
    changed: Counter[str] = field(default_factory=Counter)
    timings: dict[str, float] = field(default_factory=dict)
    statuses: Counter[str] = field(default_factory=Counter)

    def add(self, outcome: Outcome, generation: float) -> None:
        self.programs += 1
        self.coverage.update(outcome.coverage)
        self.changed.update(outcome.changed)
        self.statuses[outcome.status] += 1
        self.timings["generation"] = self.timings.get("generation", 0.0) + generation
        for phase, seconds in outcome.timings:
            self.timings[phase] = self.timings.get(phase, 0.0) + seconds

    def merge(self, other: WorkerStats) -> None:
        self.programs += other.programs
        self.failures += other.failures
        for mine, theirs in ((self.coverage, other.coverage), (self.changed, other.changed),
                             (self.statuses, other.statuses)):
            mine.update(theirs)
        for phase, seconds in other.timings.items():
            self.timings[phase] = self.timings.get(phase, 0.0) + seconds


@dataclass(frozen=True)
class Failure:
    outcome: Outcome
    program: str
    stem: str
    regression: str
    case: Any = None  # kept in-process only (not sent between processes)
    # Where and when it was found: the worker, and how many programs that worker had checked
    # by then (1 = the first program: a failure replayed from the shared example database).
    worker: int = -1
    found_at: int = 0
    # Every (worker, found_at) that found it, after deduplication across workers.
    found_by: tuple[tuple[int, int], ...] = ()


class _Found(Exception):
    """Raised inside the Hypothesis test; one subclass per failure key keeps shrinking on one bug."""

    outcome: Outcome
    case: Any


class _BudgetSpent(BaseException):
    """Raised inside the Hypothesis test once the time / example budget is spent, to end the
    chunk. Not an Exception: Hypothesis records an Exception as a failure to shrink, and lets
    anything else through to the driver."""


_FOUND_CLASSES: dict[str, type[_Found]] = {}


def _found_class(key: str) -> type[_Found]:
    if key not in _FOUND_CLASSES:
        _FOUND_CLASSES[key] = type(f"Found_{len(_FOUND_CLASSES)}", (_Found,), {"__qualname__": key})
    return _FOUND_CLASSES[key]


@dataclass
class CampaignConfig:
    deadline: float  # time.monotonic() value after which no new program is checked
    max_examples: int | None  # total over the campaign (per worker), None = until the deadline
    seed: int
    database: str | None
    shrink: bool
    stop_on_failure: bool = False
    chunk: int = 25
    blame: bool = True
    # A database other machines write to as well: replay it before every chunk, so a failure
    # one worker found (and saved) replays first on every other worker too.
    shared_database: bool = False
    worker: int = -1
    workers: int = 1  # how many workers share the campaign (steered chunks split the work by it)
    # Seconds of campaign from the moment a (remote) worker starts, when the deadline of the
    # submitting machine cannot be used (monotonic clocks differ between machines).
    seconds: float | None = None


def run_campaign(target: FuzzTarget, config: CampaignConfig,
                 report: Callable[[WorkerStats, list[Failure]], None] | None = None) -> tuple[WorkerStats, list[Failure]]:
    """Check programs until the deadline / example budget; failures are shrunk one by one."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed

    from nanopass.fuzz_cluster import open_database

    if config.seconds is not None:
        config = dataclasses.replace(config, deadline=time.monotonic() + config.seconds)
    stats = WorkerStats()
    failures: list[Failure] = []
    seen_keys: set[str] = set()
    found_programs: dict[str, int] = {}  # failure key -> programs checked when first seen
    last_end = [time.perf_counter()]
    last_report = [0.0]
    database = open_database(config.database)
    strategy = target.strategy()

    def budget_left() -> bool:
        if time.monotonic() >= config.deadline:
            return False
        return config.max_examples is None or stats.programs < config.max_examples

    # The last failure raised inside the current chunk: when the budget runs out while
    # Hypothesis replays or shrinks it, the replay is skipped, Hypothesis calls the test flaky,
    # and this is the failure that flakiness hides.
    raised: list[_Found] = []

    def test(case: Any) -> None:
        start = time.perf_counter()
        generation = start - last_end[0]
        if not budget_left():
            # Past the deadline nothing more is checked: a shrink in progress stops at the
            # smallest failure seen so far, which is what gets reported (see `raised`). The
            # chunk ends here: Hypothesis would otherwise go on generating the rest of it (and
            # replaying, shrinking), a whole program per call checked by nobody: up to a chunk
            # of programs per campaign (in a 25 s profiled run, 16 programs, ~5 % of its CPU).
            last_end[0] = time.perf_counter()
            raise _BudgetSpent()
        outcome = target.check(case, blame=config.blame)
        stats.add(outcome, generation)
        last_end[0] = time.perf_counter()
        if report is not None and last_end[0] - last_report[0] > 0.5:
            last_report[0] = last_end[0]
            report(stats, failures)
        if outcome.failed and outcome.key not in seen_keys:
            found_programs.setdefault(outcome.key, stats.programs)
            if raised and outcome.key != raised[0].outcome.key:
                return  # shrinking on one bug: another one is left for a later chunk
            error = _found_class(outcome.key)(outcome.headline())
            error.outcome = outcome
            error.case = case
            raised.append(error)
            raise error

    chunk_index = 0
    while budget_left():
        phases = [Phase.explicit, Phase.generate] + ([Phase.shrink] if config.shrink else [])
        if database is not None and (chunk_index == 0 or config.shared_database):
            phases.insert(1, Phase.reuse)  # earlier failures replay first
        size = config.chunk
        if config.max_examples is not None:
            size = max(1, min(size, config.max_examples - stats.programs))
        given_test: Any = given(_chunk_strategy(target, strategy, stats, config, chunk_index, size))
        # The seed first, the settings over it: `@seed` alone replaces the settings by a copy
        # without the database (Hypothesis's rule for reproducing one failure), so applied last
        # it would silently switch the example database off.
        seeded: Any = hypothesis_seed(config.seed * 100003 + chunk_index)(given_test(test))
        runner: Callable[[], None] = settings(
            max_examples=size, deadline=None, database=database, phases=phases, derandomize=False,
            suppress_health_check=list(HealthCheck), report_multiple_bugs=False, print_blob=False,
        )(seeded)
        chunk_index += 1
        raised.clear()
        error: Exception | None = None
        try:
            runner()
        except _BudgetSpent:
            pass  # the chunk stopped at the deadline: a failure it found is in `raised`
        except Exception as exc:
            error = exc
        # A failure the time budget cut short (its replay skipped: Hypothesis then calls the test
        # flaky, or passes it silently) is still the failure it was: report it as itself.
        found = error if isinstance(error, _Found) else (raised[-1] if raised else None)
        if found is not None:
            seen_keys.add(found.outcome.key)
            stats.failures += 1
            stem, text = target.regression_file(found.case, found.outcome)
            failures.append(Failure(found.outcome, target.describe(found.case), stem, text, found.case,
                                    worker=config.worker, found_at=found_programs.get(found.outcome.key, 0)))
            if report is not None:
                report(stats, failures)
        elif error is not None:
            # Hypothesis itself failed (a health check, an internal error): a finding too.
            outcome = Outcome("crash", "campaign", "hypothesis", f"{type(error).__name__}: {error}")
            if outcome.key not in seen_keys:
                seen_keys.add(outcome.key)
                stats.failures += 1
                failures.append(Failure(outcome, "", "", ""))
        if (found is not None or error is not None) and config.stop_on_failure:
            break
    return stats, failures


def _chunk_strategy(target: FuzzTarget, strategy: Any, stats: WorkerStats, config: CampaignConfig,
                    chunk_index: int, size: int) -> Any:
    """The strategy of one chunk: the target's own for a worker's even chunks (and always for a
    target that cannot steer), its steered strategy toward what is not covered yet for the odd
    ones."""
    steer = getattr(target, "steered_strategy", None)
    if chunk_index % 2 == 0 or steer is None:
        return strategy  # every other chunk draws freely: steering must not narrow the campaign
    steered = steer(frozenset(stats.coverage), max(config.worker, 0), max(config.workers, 1), chunk_index // 2, size,
                    config.seed)
    return strategy if steered is None else steered


# -- worker processes ------------------------------------------------------------------------------


def configure_target(target: FuzzTarget, options: dict[str, Any]) -> None:
    """`target` configured from the campaign options (`--ptoas`: the target's assembler oracle)."""
    target.configure(options.get("pipeline"), options.get("backend"), options.get("features"))
    if options.get("ptoas"):
        enable = getattr(target, "check_with_assembler", None)
        if enable is None:
            raise ValueError(f"the fuzz target {getattr(target, 'name', '?')!r} has no assembler oracle (--ptoas)")
        enable()


def _worker(target_spec: str | None, options: dict[str, Any], config: CampaignConfig, index: int,
            out: Any) -> None:
    tune_gc_for_compilation()  # a spawned worker starts with the default thresholds
    try:
        target = load_target(target_spec)
        configure_target(target, options)

        def report(stats: WorkerStats, failures: list[Failure]) -> None:
            out.put(("progress", index, stats, [_portable(f) for f in failures]))

        planted = options.get("plant")
        patch: ContextManager[None] = contextlib.nullcontext()
        if planted:
            patch = {m.name: m for m in target.mutants()}[planted].applied()
        with patch:
            stats, failures = run_campaign(target, config, report)
        out.put(("done", index, stats, [_portable(f) for f in failures]))
    except BaseException as exc:  # the parent reports it; a worker never dies silently
        out.put(("error", index, f"{type(exc).__name__}: {exc}", None))


def _portable(failure: Failure) -> Failure:
    return dataclasses.replace(failure, case=None)


def _context() -> Any:
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def _progress_line(stats: WorkerStats, failures: int, elapsed: float, passes_total: int, ops: int) -> str:
    rate = stats.programs / elapsed if elapsed > 0 else 0.0
    return (f"[fuzz] {stats.programs} programs  {rate:6.1f}/s  failures {failures}  "
            f"ops {ops}  passes changing {len(stats.changed)}/{passes_total}  {elapsed:5.1f}s ")


def campaign(target_spec: str | None, options: dict[str, Any], workers: int, seconds: float | None,
             examples: int | None, seed: int, database: str | None, shrink: bool,
             stream: Any = sys.stderr) -> tuple[WorkerStats, list[Failure], float]:
    """Run `workers` processes; returns the merged stats, the failures and the wall time."""
    start = time.monotonic()
    deadline = start + (seconds if seconds is not None else 10 ** 9)
    per_worker = None if examples is None else max(1, -(-examples // workers))
    ctx = _context()
    out = ctx.Queue()
    procs = []
    for index in range(workers):
        config = CampaignConfig(deadline, per_worker, seed + index, database, shrink, worker=index,
                                workers=workers, shared_database=is_shared_database(database))
        proc = ctx.Process(target=_worker, args=(target_spec, options, config, index, out), daemon=True)
        proc.start()
        procs.append(proc)
    latest: dict[int, WorkerStats] = {}
    found: dict[int, list[Failure]] = {}
    done: set[int] = set()
    errors: list[str] = []
    passes_total = int(options.get("passes_total", 0))
    progress = Progress(stream)
    while len(done) < workers:
        try:
            kind, index, payload, extra = out.get(timeout=0.5)
        except queue.Empty:
            if all(not p.is_alive() for p in procs) and out.empty():
                errors.extend(f"worker {i} exited without a result" for i in range(workers) if i not in done)
                break
            continue
        if kind == "error":
            errors.append(f"worker {index}: {payload}")
            done.add(index)
            continue
        latest[index] = payload
        found[index] = extra
        if kind == "done":
            done.add(index)
        merged = _merge(latest.values())
        progress.update(_progress_line(merged, sum(len(f) for f in found.values()), time.monotonic() - start,
                                       passes_total, len(merged.coverage)))
    for proc in procs:
        proc.join(timeout=5)
    progress.close()
    merged = _merge(latest.values())
    failures = _dedupe([f for fs in found.values() for f in fs])
    for message in errors:
        failures.append(Failure(Outcome("crash", "campaign", "worker", message), "", "", ""))
    return merged, failures, time.monotonic() - start


def _merge(parts: Any) -> WorkerStats:
    total = WorkerStats()
    for part in parts:
        total.merge(part)
    return total


def _dedupe(failures: list[Failure]) -> list[Failure]:
    """One failure per key (the smallest program), remembering every worker that found it."""
    seen: dict[str, Failure] = {}
    finders: dict[str, list[tuple[int, int]]] = {}
    for failure in failures:
        key = failure.outcome.key
        finders.setdefault(key, []).extend(
            failure.found_by or (((failure.worker, failure.found_at),) if failure.worker >= 0 else ()))
        if key not in seen or len(failure.program) < len(seen[key].program):
            seen[key] = failure
    return [dataclasses.replace(f, found_by=tuple(sorted(set(finders[k])))) for k, f in seen.items()]


# -- reports -----------------------------------------------------------------------------------------


def coverage_table(stats: WorkerStats, universe: Any) -> list[str]:
    """The coverage table: registered ops, constructs and passes exercised out of the totals the
    target declares (`universe`: ops, constructs, passes, gaps, triggers; see FuzzTarget)."""
    seen = set(stats.coverage)
    ops: Sequence[str] = tuple(getattr(universe, "ops", ()))
    constructs: Sequence[str] = tuple(getattr(universe, "constructs", ()))
    passes: Sequence[str] = tuple(getattr(universe, "passes", ()))
    gaps: dict[str, str] = dict(getattr(universe, "gaps", {}))
    triggers: dict[str, str] = dict(getattr(universe, "triggers", {}))
    dead: dict[str, str] = dict(getattr(universe, "dead_passes", {}))
    lines = ["", f"{'coverage':<34} {'exercised':>9} / {'total':<6}"]

    def row(label: str, hit: int, total: int, missing: Sequence[str] = ()) -> None:
        lines.append(f"{label:<34} {hit:>9} / {total:<6}")
        for name in missing:
            lines.append(f"    not exercised: {name}")

    hit_ops = [op for op in ops if op in seen]
    row("registered ops", len(hit_ops), len(ops))
    for prefix in sorted({op.split(".", 1)[0] for op in ops}):
        group = [op for op in ops if op.split(".", 1)[0] == prefix]
        missing = [f"{op}" + (f" ({gaps[op]})" if op in gaps else "") for op in group if op not in seen]
        row(f"  {prefix}.*", len(group) - len(missing), len(group), missing)
    missing_constructs = [c for c in constructs if c not in seen]
    row("constructs", len(constructs) - len(missing_constructs), len(constructs), missing_constructs)
    # No total for these two: the pairs each op's deduction admits are not enumerated (yet), so
    # the count of distinct pairs seen is all the table can honestly say.
    lines.append(f"{'op x dtype pairs seen (op/DTYPE)':<34} {len([t for t in seen if '/' in t]):>9}")
    lines.append(f"{'op x operand spaces seen (op:x@S)':<34} {len([t for t in seen if '@' in t]):>9}")
    never = [p for p in passes if p not in stats.changed]
    notes = [f"{p} -- " + (f"dead in the default pipeline: {dead[p]}" if p in dead
                           else f"generator gap: no program needed it ({triggers.get(p, '')})") for p in never]
    row("passes that changed a program", len(passes) - len(never), len(passes), notes)
    return lines


def summary(stats: WorkerStats, failures: list[Failure], wall: float, workers: int, universe: Any = None) -> str:
    rate = stats.programs / wall if wall > 0 else 0.0
    lines = ["", "=== fuzz campaign summary ===",
             f"programs            {stats.programs}",
             f"wall time           {wall:.1f} s on {workers} worker(s)",
             f"throughput          {rate:.1f} programs/s ({rate / max(workers, 1):.1f} per worker)",
             f"failures            {len(failures)}"]
    busy = sum(stats.timings.values())
    if busy > 0:
        lines.append("time shares         " + "  ".join(
            f"{phase} {100 * seconds / busy:.0f}%"
            for phase, seconds in sorted(stats.timings.items(), key=lambda kv: -kv[1])))
    if universe is not None:
        lines.extend(coverage_table(stats, universe))
    elif stats.coverage:
        lines.append(f"op kinds covered    {len(stats.coverage)}: " + ", ".join(sorted(stats.coverage)))
    if stats.changed:
        lines.append(f"passes that changed {len(stats.changed)}: " + ", ".join(
            f"{name} ({count})" for name, count in stats.changed.most_common()))
    blame = Counter(f.outcome.blamed or "?" for f in failures)
    lines.append("")
    lines.append(f"{'blamed pass / stage':<48} {'failures':>8}")
    if not blame:
        lines.append(f"{'(none)':<48} {0:>8}")
    for name, count in blame.most_common():
        lines.append(f"{name:<48} {count:>8}")
    for failure in failures:
        lines.append("")
        lines.append(f"FAILURE {failure.outcome.headline()}")
        lines.append("  " + failure.outcome.detail.replace("\n", "\n  "))
        if failure.stem:
            lines.append(f"  regression: {failure.stem}")
        if failure.found_by:
            lines.append("  found by " + ", ".join(f"worker {worker} at program {at}" for worker, at in failure.found_by))
    return "\n".join(lines)


def write_regressions(failures: list[Failure], directory: Path) -> list[Path]:
    written: list[Path] = []
    for failure in failures:
        if not failure.stem:
            continue
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{failure.stem}.py"
        path.write_text(failure.regression)
        written.append(path)
    return written


# -- mutation testing -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class MutantResult:
    name: str
    description: str
    caught: bool
    check: str
    blamed: str
    programs: int
    seconds: float
    detail: str = ""


def run_mutant(target: FuzzTarget, mutant: Mutant, seconds: float, seed: int) -> MutantResult:
    """Fuzz with `mutant` applied until a failure the unmutated compiler does not have."""
    start = time.monotonic()
    deadline = start + seconds
    programs = 0
    attempt = 0
    while time.monotonic() < deadline:
        config = CampaignConfig(deadline, None, seed + attempt, None, shrink=False, stop_on_failure=True,
                                blame=True, chunk=10)
        with mutant.applied():
            stats, failures = run_campaign(target, config)
        programs += stats.programs
        attempt += 1
        for failure in failures:
            if failure.outcome.blamed == "hypothesis" or failure.case is None:
                continue
            if target.check(failure.case, blame=False).failed:
                continue  # the unmutated compiler fails too: not this mutant's doing
            return MutantResult(mutant.name, mutant.description, True, failure.outcome.check, failure.outcome.blamed,
                                programs, time.monotonic() - start, failure.outcome.detail.splitlines()[0]
                                if failure.outcome.detail else "")
    return MutantResult(mutant.name, mutant.description, False, "", "", programs, time.monotonic() - start)


def _mutant_worker(target_spec: str | None, options: dict[str, Any], names: list[str], seconds: float, seed: int,
                   out: Any) -> None:
    tune_gc_for_compilation()  # a spawned worker starts with the default thresholds
    try:
        target = load_target(target_spec)
        configure_target(target, options)
        by_name = {m.name: m for m in target.mutants()}
        for name in names:
            out.put(("result", run_mutant(target, by_name[name], seconds, seed)))
    except BaseException as exc:
        out.put(("error", f"{type(exc).__name__}: {exc}"))
    out.put(("done", None))


def mutation_campaign(target_spec: str | None, options: dict[str, Any], names: Sequence[str], workers: int,
                      seconds: float, seed: int, stream: Any = sys.stderr) -> tuple[list[MutantResult], list[str]]:
    ctx = _context()
    out = ctx.Queue()
    shares: list[list[str]] = [list(names[i::workers]) for i in range(workers)]
    procs = [ctx.Process(target=_mutant_worker, args=(target_spec, options, share, seconds, seed, out), daemon=True)
             for share in shares if share]
    for proc in procs:
        proc.start()
    results: list[MutantResult] = []
    errors: list[str] = []
    finished = 0
    while finished < len(procs):
        try:
            kind, payload = out.get(timeout=1.0)
        except queue.Empty:
            if all(not p.is_alive() for p in procs) and out.empty():
                break
            continue
        if kind == "result":
            results.append(payload)
            mark = "caught" if payload.caught else "MISSED"
            stream.write(f"[mutants] {len(results)}/{len(names)} {payload.name}: {mark}\n")
            stream.flush()
        elif kind == "error":
            errors.append(payload)
        else:
            finished += 1
    for proc in procs:
        proc.join(timeout=5)
    order = {name: i for i, name in enumerate(names)}
    return sorted(results, key=lambda r: order[r.name]), errors


def mutant_table(results: Sequence[MutantResult], total: int) -> str:
    caught = sum(r.caught for r in results)
    lines = [f"{'mutant':<30} {'result':<7} {'check':<20} {'blamed':<34} {'programs':>8} {'seconds':>8}"]
    for r in results:
        lines.append(f"{r.name:<30} {'caught' if r.caught else 'MISSED':<7} {r.check or '-':<20} "
                     f"{(r.blamed or '-')[:34]:<34} {r.programs:>8} {r.seconds:>8.1f}")
    score = 100.0 * caught / total if total else 0.0
    lines.append(f"mutation score: {caught}/{total} = {score:.0f}%")
    return "\n".join(lines)


# -- CLI ------------------------------------------------------------------------------------------------


def build_arg_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m nanopass.fuzz", description=__doc__.split("\n\n")[0])
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--time", type=float, metavar="SECONDS", help="campaign length (default 60; per mutant with --mutants)")
    budget.add_argument("--examples", type=int, metavar="N", help="check N programs in total instead")
    parser.add_argument("--workers", type=int, default=max(1, os.cpu_count() or 1), help="worker processes (default: all cores)")
    parser.add_argument("--seed", type=int, default=0, help="campaign seed (worker i uses seed + i)")
    parser.add_argument("--db", metavar="PATH|URL", default=".hypothesis/fuzz",
                        help="Hypothesis example database: a directory, or redis://HOST:PORT/N shared by every "
                             "worker on every machine; failures replay first ('' disables)")
    parser.add_argument("--cluster", nargs="?", const="", default=None, metavar="ADDRESS",
                        help="run on a Dask distributed cluster: the scheduler ADDRESS (tcp://HOST:8786), or a "
                             "local cluster of --workers processes when no ADDRESS is given")
    parser.add_argument("--plant", metavar="MUTANT",
                        help="apply this mutant during the campaign (checks that a campaign finds a known bug)")
    parser.add_argument("--pipeline", metavar="SPEC", help="pass pipeline (default: the plugin's default pipeline)")
    parser.add_argument("--backend", metavar="NAME", help="backend handler (default: the plugin's)")
    parser.add_argument("--features", metavar="F", help="generator features, e.g. --features=-loops,+mixed_kernels or --features=all")
    parser.add_argument("--regressions", metavar="DIR", type=Path, default=Path("tests/regressions"),
                        help="where shrunk failures are written as regression tests")
    parser.add_argument("--no-shrink", action="store_true", help="report failures unshrunk (faster)")
    parser.add_argument("--ptoas", action="store_true",
                        help="also hand every kernel that ran bit-exact to the real assembler (the target's "
                             "assembler oracle); a rejection outside its known-open classes is a failure")
    parser.add_argument("--target", metavar="MODULE:ATTR", help="fuzz target factory (default: the plugin's)")
    parser.add_argument("--mutants", nargs="*", metavar="NAME",
                        help="mutation testing: apply each mutant (all when no NAME) one at a time")
    parser.add_argument("--list-mutants", action="store_true", help="list the mutant catalogue")
    parser.add_argument("--min-score", type=float, default=90.0, help="mutation score (%%) needed for exit 0")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_arg_parser().parse_args(argv)
    options: dict[str, Any] = {"pipeline": args.pipeline, "backend": args.backend, "features": args.features,
                               "ptoas": args.ptoas}
    try:
        target = load_target(args.target)
        configure_target(target, options)
    except Exception as exc:
        print(f"error: cannot set up the fuzz target: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    options["passes_total"] = getattr(target, "passes_total", 0)
    workers = max(1, args.workers)
    if args.list_mutants:
        for mutant in target.mutants():
            print(f"{mutant.name:<30} {mutant.description}")
        return 0
    if args.mutants is not None:
        catalogue = [m.name for m in target.mutants()]
        names = args.mutants or catalogue
        unknown = sorted(set(names) - set(catalogue))
        if unknown:
            print(f"error: unknown mutant(s) {', '.join(unknown)}; --list-mutants lists them", file=sys.stderr)
            return 2
        seconds = args.time if args.time is not None else 60.0
        results, errors = mutation_campaign(args.target, options, names, workers, seconds, args.seed)
        print(mutant_table(results, len(names)))
        for message in errors:
            print(f"error: {message}", file=sys.stderr)
        caught = sum(r.caught for r in results)
        return 0 if not errors and 100.0 * caught / max(len(names), 1) >= args.min_score else 1
    if args.plant is not None and args.plant not in {m.name for m in target.mutants()}:
        print(f"error: unknown mutant {args.plant}; --list-mutants lists them", file=sys.stderr)
        return 2
    options["plant"] = args.plant
    seconds = args.time if args.time is not None or args.examples is not None else 60.0
    try:
        if args.cluster is not None:
            from nanopass.fuzz_cluster import cluster_campaign

            stats, failures, wall, workers = cluster_campaign(
                args.cluster or None, args.target, options, workers, seconds, args.examples, args.seed,
                args.db or None, not args.no_shrink, sys.stderr)
        else:
            if is_shared_database(args.db):
                from nanopass.fuzz_cluster import open_database

                open_database(args.db)  # a server that cannot be reached is a setup error, now
            stats, failures, wall = campaign(args.target, options, workers, seconds, args.examples, args.seed,
                                             args.db or None, not args.no_shrink)
    except SetupError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    written = write_regressions(failures, args.regressions)
    universe_of = getattr(target, "coverage_universe", None)
    print(summary(stats, failures, wall, workers, universe_of() if callable(universe_of) else None))
    for path in written:
        print(f"wrote {path}")
    return 1 if failures else 0


@contextlib.contextmanager
def no_patch() -> Iterator[None]:
    """The identity patch (a mutant that changes nothing; used by tests of the driver)."""
    yield


if __name__ == "__main__":
    run_main(main)
