"""Compile throughput: per-program end-to-end compile time (parse, input verification, passes,
MLIR printing) and programs/s, then time per pass of the default pipeline, for every example
and one synthetic large program.

    python bench/compile_throughput.py [--budget SECONDS_PER_PROGRAM]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Sequence

from typing_extensions import override

# `python bench/x.py` and `python -m bench.x` both work: _common lives next to this file.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (
    Source,
    compile_program,
    example_sources,
    plugin_and_pipeline,
    print_table,
    repeats_for,
    synthetic_source,
    try_compile,
)
from nanopass.instruments import Instrument, PassStep
from nanopass.node import Node
from nanopass.pipeline import Pipeline
from nanopass.plugin import CompilerPlugin


class PassTimer(Instrument):
    """Wall time per pass and the time before the first pass (input verification), kept over
    many runs (TimingInstrument prints one run; a benchmark needs medians)."""

    def __init__(self) -> None:
        self.samples: dict[str, list[float]] = defaultdict(list)
        self._mark = 0.0

    def start(self) -> None:
        self._mark = time.perf_counter()

    def _lap(self, label: str) -> None:
        now = time.perf_counter()
        self.samples[label].append(now - self._mark)
        self._mark = now

    @override
    def before_pipeline(self, steps: Sequence[PassStep], program: Node) -> None:
        self._lap(INPUT_CHECK)

    @override
    def before_pass(self, step: PassStep, program: Node) -> None:
        self._mark = time.perf_counter()

    @override
    def after_pass(self, step: PassStep, before: Node, after: Node) -> None:
        self._lap(type(step.pass_).name)

    def medians(self) -> dict[str, float]:
        return {label: statistics.median(values) for label, values in self.samples.items()}


INPUT_CHECK = "(pipeline check + input verification)"


def measure(plugin: CompilerPlugin, pipeline: Pipeline, source: Source, budget: float) -> tuple[dict[str, float], PassTimer]:
    """Median seconds of each compile phase, and the per-pass timer."""
    phases: dict[str, list[float]] = defaultdict(list)
    timer = PassTimer()

    def once(record: bool) -> None:
        t0 = time.perf_counter()
        program = plugin.parse(source.text, source.filename)
        t1 = time.perf_counter()
        timer.start()
        compiled = compile_program(plugin, pipeline, program, [timer] if record else [])
        t2 = time.perf_counter()
        plugin.text_of(compiled.final)
        t3 = time.perf_counter()
        if record:
            for name, seconds in (("parse", t1 - t0), ("compile", t2 - t1), ("print", t3 - t2), ("total", t3 - t0)):
                phases[name].append(seconds)

    once(record=False)  # warm-up
    start = time.perf_counter()
    once(record=False)
    for _ in range(repeats_for(budget, time.perf_counter() - start, lo=5)):
        once(record=True)
    return {name: statistics.median(values) for name, values in phases.items()}, timer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--budget", type=float, default=1.0, help="seconds of measurement per program (default 1)")
    args = parser.parse_args(argv)
    plugin, pipeline = plugin_and_pipeline()
    examples = example_sources(plugin)
    synthetic = synthetic_source()
    program_rows: list[list[object]] = []
    per_pass: dict[str, dict[str, float]] = {}
    example_totals: list[float] = []
    for source in [*examples, synthetic]:
        problem = try_compile(plugin, pipeline, source)
        if problem is not None:
            program_rows.append([source.name, "-", "-", "-", "-", "-", f"skipped: {problem}"])
            continue
        phases, timer = measure(plugin, pipeline, source, args.budget)
        per_pass[source.name] = timer.medians()
        if source is not synthetic:
            example_totals.append(phases["total"])
        program_rows.append([source.name, phases["parse"] * 1e3, phases["compile"] * 1e3, phases["print"] * 1e3,
                             phases["total"] * 1e3, 1.0 / phases["total"], ""])
    if example_totals:
        mean_total = statistics.fmean(example_totals)
        program_rows.append(["examples (mean)", "", "", "", mean_total * 1e3, 1.0 / mean_total, ""])
    print_table(["program", "parse ms", "compile ms", "print ms", "total ms", "programs/s", ""], program_rows,
                title="end-to-end compile, default pipeline to PTO MLIR text (median; 1 process, Ascend910B)")

    labels = [INPUT_CHECK] + [type(p).name for p in pipeline.passes]
    example_names = [s.name for s in examples if s.name in per_pass]
    summed = {label: sum(per_pass[n].get(label, 0.0) for n in example_names) for label in labels}
    example_sum = sum(summed.values())
    synthetic_times = per_pass.get(synthetic.name, {})
    synthetic_sum = sum(synthetic_times.values())
    pass_rows: list[list[object]] = []
    for label in labels:
        big = synthetic_times.get(label, 0.0)
        pass_rows.append([label, summed[label] * 1e3, _share(summed[label], example_sum),
                          big * 1e3, _share(big, synthetic_sum)])
    pass_rows.append(["TOTAL", example_sum * 1e3, 100.0, synthetic_sum * 1e3, 100.0])
    print_table(["pass", "all examples ms", "%", f"{synthetic.name} ms", "%"], pass_rows,
                title=f"time per pass (median per program; examples summed over {len(example_names)} programs)")
    return 0


def _share(part: float, whole: float) -> float:
    return 100.0 * part / whole if whole > 0 else 0.0


if __name__ == "__main__":
    sys.exit(main())
