"""Shared helpers of the benchmark scripts: repo-root import path, compiling through the
plugin's pipeline, robust timers and a small table printer.

Timings are the *median* of several repetitions after one warm-up run: the first run pays for
imports and lazily built tables, and a 2-core CI box has noisy neighbours, so a single run or
a mean would mostly measure the machine, not the compiler.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Sequence

# Single-threaded BLAS, set before NumPy is first imported: the simulator is single-threaded,
# and on a loaded 2-core box OpenBLAS's spinning worker threads turn a 30 us product into
# 10-30 ms scheduling stalls, which made the NumPy baselines meaningless.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:  # `python bench/x.py` puts bench/, not the root, on the path
    sys.path.insert(0, str(REPO_ROOT))

from nanopass.diagnostics import CompileError  # noqa: E402
from nanopass.instruments import Instrument  # noqa: E402
from nanopass.node import Node  # noqa: E402
from nanopass.pipeline import PassCrash, Pipeline  # noqa: E402
from nanopass.plugin import CompilerPlugin, get_plugin  # noqa: E402
from nanopass_pto import run as runner  # noqa: E402
from nanopass_pto.run import Compiled  # noqa: E402


@dataclass(frozen=True)
class Source:
    """A program to benchmark: a display name and its pl text."""

    name: str
    text: str
    filename: str


def example_sources(plugin: CompilerPlugin) -> list[Source]:
    return [Source(path.stem, path.read_text(), str(path)) for path in plugin.examples()]


def default_pipeline(plugin: CompilerPlugin) -> Pipeline:
    return Pipeline.from_spec(plugin.default_pipeline(), plugin)


def compile_program(
    plugin: CompilerPlugin, pipeline: Pipeline, program: Node, instruments: Sequence[Instrument] = ()
) -> Compiled:
    """One compile through the run API, as the CLI does it (input properties verified)."""
    return runner.compile_program(program, pipeline=pipeline, backend=plugin.default_backend, instruments=instruments)


def try_compile(plugin: CompilerPlugin, pipeline: Pipeline, source: Source) -> str | None:
    """None if `source` compiles through `pipeline`, else the one-line reason (benchmarks skip
    a program that does not compile instead of crashing the whole table)."""
    try:
        compile_program(plugin, pipeline, plugin.parse(source.text, source.filename))
    except (CompileError, PassCrash) as err:
        return str(err).splitlines()[0]
    return None


def interleaved_medians(runs: Mapping[str, Callable[[], object]], budget: float, lo: int = 5) -> dict[str, float]:
    """Median seconds of each run. The runs alternate within each round, so a slow phase of
    the machine (another job on the 2 cores) hits every run alike instead of skewing a ratio."""
    for run in runs.values():  # warm-up: imports, lazily built tables, caches
        run()
    start = time.perf_counter()
    for run in runs.values():
        run()
    rounds = repeats_for(budget, time.perf_counter() - start, lo=lo)
    samples: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            t0 = time.perf_counter()
            run()
            samples[name].append(time.perf_counter() - t0)
    return {name: statistics.median(values) for name, values in samples.items()}


def repeats_for(budget_seconds: float, one_run_seconds: float, lo: int = 3, hi: int = 200) -> int:
    """How many repetitions fit a time budget (at least `lo`, so the median means something)."""
    if one_run_seconds <= 0:
        return hi
    return max(lo, min(hi, int(budget_seconds / one_run_seconds)))


def print_table(headers: Sequence[str], rows: Sequence[Sequence[object]], title: str = "") -> None:
    cells = [[str(h) for h in headers]] + [[_cell(v) for v in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    if title:
        print(title)
    for n, row in enumerate(cells):
        # First column (names) left-aligned, numbers right-aligned.
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))
        if n == 0:
            print("  ".join("-" * w for w in widths))
    print()


def _cell(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) < 1000 else f"{value:.0f}"
    return str(value)


def plugin_and_pipeline() -> tuple[CompilerPlugin, Pipeline]:
    plugin = get_plugin()
    return plugin, default_pipeline(plugin)


# -- a synthetic large program ----------------------------------------------------------------

# Element-wise steps of the synthetic chains: (op, needs a second tensor operand). Binary
# steps reuse the function's inputs so every intermediate dies right away and the chain's
# working set stays a few tiles, whatever its length (Vec must hold it).
_CHAIN_STEPS: tuple[tuple[str, bool], ...] = (
    ("add", True), ("mul", True), ("exp", False), ("sub", True), ("relu", False), ("maximum", True),
    ("neg", False), ("abs", False),
)


def synthetic_source(functions: int = 16, chain: int = 24, rows: int = 32, cols: int = 64) -> Source:
    """`functions` InCore kernels, each a chain of `chain` element-wise ops over [rows, cols]
    FP32, called one after another by the orchestration function."""
    ty = f"pl.Tensor[[{rows}, {cols}], pl.FP32]"
    lines = ["import pypto.language as pl", "", "", "@pl.program", "class SyntheticChains:"]
    for f in range(functions):
        lines += [
            "    @pl.function(type=pl.FunctionType.InCore)",
            f"    def chain_{f}(self, a: {ty}, b: {ty}) -> {ty}:",
        ]
        current = "a"
        for step in range(chain):
            op, binary = _CHAIN_STEPS[(step + f) % len(_CHAIN_STEPS)]
            args = f"{current}, b" if binary else current
            lines.append(f"        t{step}: {ty} = pl.tensor.{op}({args})")
            current = f"t{step}"
        lines += [f"        return {current}", ""]
    lines += [
        "    @pl.function(type=pl.FunctionType.Orchestration)",
        f"    def main(self, a: {ty}, b: {ty}) -> {ty}:",
    ]
    current = "a"
    for f in range(functions):
        lines.append(f"        r{f}: {ty} = self.chain_{f}({current}, b)")
        current = f"r{f}"
    lines += [f"        return {current}", ""]
    name = f"synthetic_{functions}x{chain}"
    return Source(name, "\n".join(lines), f"<{name}>")
