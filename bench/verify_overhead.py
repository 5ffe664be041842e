"""Cost of `--verify-all`: every example (and one synthetic large program) compiled through the
default pipeline with and without the verify instrument, as the CLI runs them (the input's
guaranteed properties are verified in both modes, as `python -m nanopass.pipeline` does).

Target (ARCHITECTURE.md §3): verify-all costs at most 1.5x a compile without it. The
non-incremental column shows what incremental re-checking (untouched functions skipped) saves.
Then: time per property verifier over all programs, to show which verifiers dominate.

    python bench/verify_overhead.py [--budget SECONDS_PER_PROGRAM]
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Callable

# `python bench/x.py` and `python -m bench.x` both work: _common lives next to this file.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (
    Source,
    compile_program,
    example_sources,
    interleaved_medians,
    plugin_and_pipeline,
    print_table,
    synthetic_source,
    try_compile,
)
from nanopass.diagnostics import Diagnostic
from nanopass.instruments import Instrument, VerifyInstrument
from nanopass.node import Node
from nanopass.pipeline import Pipeline
from nanopass.plugin import CompilerPlugin
from nanopass.properties import Property

TARGET_RATIO = 1.5

def measure_program(plugin: CompilerPlugin, pipeline: Pipeline, source: Source, budget: float) -> dict[str, float]:
    """Median seconds per mode; each run gets fresh instruments (they count what they check)."""
    program = plugin.parse(source.text, source.filename)
    backend = plugin.make_backend(plugin.default_backend)

    def run(make: Callable[[], list[Instrument]]) -> Callable[[], object]:
        return lambda: compile_program(plugin, pipeline, program, make())

    return interleaved_medians({
        "plain": run(lambda: []),
        "verify": run(lambda: [VerifyInstrument(plugin, target=backend)]),
        "verify-full": run(lambda: [VerifyInstrument(plugin, incremental=False, target=backend)]),
    }, budget)


# -- per-property attribution ---------------------------------------------------------------


def _timed(prop: Property, totals: dict[str, float], calls: dict[str, int]) -> Property:
    inner = prop.load_verifier()

    def verify(*args: object) -> list[Diagnostic]:
        t0 = time.perf_counter()
        try:
            return inner(*args)
        finally:
            totals[prop.name] += time.perf_counter() - t0
            calls[prop.name] += 1

    return dataclasses.replace(prop, verifier=verify)


def property_times(plugin: CompilerPlugin, pipeline: Pipeline, programs: list[Node],
                   repeats: int) -> tuple[dict[str, float], dict[str, int]]:
    """Seconds and calls per property inside the verify instrument (input verification is
    excluded: both modes pay it), summed over `programs`, per compile."""
    totals: dict[str, float] = defaultdict(float)
    calls: dict[str, int] = defaultdict(int)
    timed_plugin = dataclasses.replace(
        plugin, properties=tuple(_timed(p, totals, calls) for p in plugin.properties), _property_registry=None)
    backend = plugin.make_backend(plugin.default_backend)
    for _ in range(repeats):
        for program in programs:
            compile_program(plugin, pipeline, program, [VerifyInstrument(timed_plugin, target=backend)])
    return ({k: v / repeats for k, v in totals.items()}, {k: c // repeats for k, c in calls.items()})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--budget", type=float, default=1.5, help="seconds of measurement per program (default 1.5)")
    args = parser.parse_args(argv)
    plugin, pipeline = plugin_and_pipeline()
    sources = example_sources(plugin) + [synthetic_source()]
    rows: list[list[object]] = []
    ratios: list[float] = []
    totals = {"plain": 0.0, "verify": 0.0, "verify-full": 0.0}
    compiled: list[Node] = []
    for source in sources:
        problem = try_compile(plugin, pipeline, source)
        if problem is not None:
            rows.append([source.name, "-", "-", "-", "-", f"skipped: {problem}"])
            continue
        compiled.append(plugin.parse(source.text, source.filename))
        m = measure_program(plugin, pipeline, source, args.budget)
        ratio = m["verify"] / m["plain"]
        ratios.append(ratio)
        for key in totals:
            totals[key] += m[key]
        verdict = "ok" if ratio <= TARGET_RATIO else "OVER"
        rows.append([source.name, m["plain"] * 1e3, m["verify"] * 1e3, ratio, m["verify-full"] / m["plain"], verdict])
    if not ratios:
        print("no program compiled; nothing measured", file=sys.stderr)
        return 1
    overall = totals["verify"] / totals["plain"]
    geo = math.exp(statistics.fmean(math.log(r) for r in ratios))
    rows.append(["OVERALL (sum of medians)", totals["plain"] * 1e3, totals["verify"] * 1e3, overall,
                 totals["verify-full"] / totals["plain"], "ok" if overall <= TARGET_RATIO else "OVER"])
    rows.append(["geometric mean of ratios", "", "", geo, "", ""])
    print_table(["program", "plain ms", "verify ms", "verify/plain", "non-incr/plain", f"target <= {TARGET_RATIO}x"],
                rows, title="verify-all overhead (median of interleaved runs, default pipeline, Ascend910B)")

    seconds, calls = property_times(plugin, pipeline, compiled, repeats=3)
    spent = sum(seconds.values())
    prop_rows: list[list[object]] = [
        [name, seconds[name] * 1e3, 100.0 * seconds[name] / spent if spent else 0.0, calls[name]]
        for name in sorted(seconds, key=lambda n: -seconds[n])
    ]
    prop_rows.append(["TOTAL verifier time", spent * 1e3, 100.0, sum(calls.values())])
    print_table(["property", "ms per compile-all", "% of verify", "calls"], prop_rows,
                title=f"time per property inside --verify-all, summed over {len(compiled)} programs")
    extra = totals["verify"] - totals["plain"]
    print(f"verify-all adds {extra * 1e3:.1f} ms over all programs (table 1); the verifier calls took "
          f"{spent * 1e3:.1f} ms in the attribution run (table 2, a separate run, so only roughly comparable)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
