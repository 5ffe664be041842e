"""Fuzzing throughput: end-to-end programs per second per core, and where the time goes.

    python bench/fuzz_throughput.py [--seconds 20] [--features=+small_shapes] [--profile]

One process (= one core) generates programs with the fuzzer's Hypothesis strategy and checks
each exactly as a campaign does (compile with verify-all, simulate, interpret, compare bits).
Prints programs/s and the share of generation, compilation, verification, simulation and
interpretation; `--profile` adds the functions that dominate (cProfile, cumulative time).
The target is >= 20 programs/s/core for small programs (the default feature set here).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nanopass_pto.fuzz_target import PtoFuzzTarget  # noqa: E402
from nanopass.cli import tune_gc_for_compilation  # noqa: E402
from nanopass.fuzz import CampaignConfig, WorkerStats, run_campaign  # noqa: E402

PHASES = ("generation", "compilation", "verification", "simulation", "interpretation")
TARGET_RATE = 20.0


def measure(seconds: float, features: str, seed: int) -> tuple[WorkerStats, float]:
    tune_gc_for_compilation()  # as every campaign worker does (nanopass/fuzz.py `_worker`)
    target = PtoFuzzTarget()
    target.configure(None, None, features)
    config = CampaignConfig(time.monotonic() + seconds, None, seed, None, shrink=False)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        stats, failures = run_campaign(target, config)
    wall = time.perf_counter() - start
    for failure in failures:
        print(f"note: failure during the benchmark: {failure.outcome.headline()}", file=sys.stderr)
    return stats, wall


def measure_cpu(seconds: float, features: str, seed: int) -> float:
    """Programs per CPU second of this process over a campaign of `seconds` (wall clock)."""
    t0 = time.process_time()
    stats, _ = measure(seconds, features, seed)
    return stats.programs / max(time.process_time() - t0, 1e-9)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--features", default="+small_shapes", help="generator features (default: small programs)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--profile", action="store_true", help="also print the top functions by cumulative time")
    args = parser.parse_args(argv)
    profiler = cProfile.Profile() if args.profile else None
    if profiler is not None:
        profiler.enable()
    stats, wall = measure(args.seconds, args.features, args.seed)
    if profiler is not None:
        profiler.disable()
    rate = stats.programs / wall if wall > 0 else 0.0
    busy = sum(stats.timings.values()) or 1.0
    print(f"programs: {stats.programs} in {wall:.1f} s (features {args.features!r})")
    print(f"throughput: {rate:.1f} programs/s/core (target >= {TARGET_RATE:.0f}: "
          f"{'met' if rate >= TARGET_RATE else 'NOT met'})")
    print(f"per program: {1e3 * wall / max(stats.programs, 1):.1f} ms")
    for phase in PHASES + tuple(p for p in stats.timings if p not in PHASES):
        seconds = stats.timings.get(phase, 0.0)
        print(f"  {phase:<15} {100 * seconds / busy:5.1f}%  {1e3 * seconds / max(stats.programs, 1):7.2f} ms/program")
    print(f"statuses: {dict(stats.statuses)}")
    if profiler is not None:
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(15)
        print(out.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
