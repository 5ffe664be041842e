"""Every row of the performance table (issue 12), measured in one run against its anchors.

    pip install -e ".[bench]"        # xDSL 0.75, the compiler-framework anchor
    python bench/all.py [--rounds 3] [--quick] [--full] [--only ROW,ROW]

Anchors, measured in this same process: NumPy (OpenBLAS pinned to one thread) for the
simulator rows, xDSL 0.75 for the framework rows. Times are CPU time (`time.process_time`),
the two sides of a ratio alternate within each round (interleaved), and every row prints the
minimum and the median over the rounds, so a busy neighbour on the 2 cores hits both sides.
Growth rows compare the project with itself (10x larger program in the same process).

Rows (goal in brackets):
  sim-matmul-f16   simulator, 512^3 FP16 x FP16 -> FP32 blocked kernel / NumPy a32 @ b32   [<= 3x]
  sim-matmul-f32   simulator, 512^3 FP32 blocked kernel (fused chain) / NumPy a32 @ b32    [<= 5x]
  sim-add / sim-exp  [512, 512] FP32 kernel throughput as % of NumPy a + b / np.exp(a)   [>= 50 %]
  verify-small / verify-1000fn  compile with --verify-all / plain compile                 [<= 1.3x]
  growth-*         compile time (parse + passes + print) of a 10x larger program          [<= 11x]
  parse / rewrite / verify / print  per-op time / xDSL's per-op time          [<= 0.3 / 0.3 / 0.2 / 0.3]
  fuzz             programs per CPU second, end to end (bench/fuzz_throughput.py)         [>= 60]
  memory           peak RSS compiling 10^5 ops (a child process, /usr/bin/time -v)        [<= 400 MB]

The simulator programs are in bench/programs/; the framework rows use `synthetic_source`
(chains of element-wise FP32 ops, _common.py) and, for xDSL, an `arith` chain of the same
length in one `func.func`.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import statistics
import subprocess
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import REPO_ROOT, compile_program, example_sources, plugin_and_pipeline, synthetic_source  # isort: skip
import numpy as np  # noqa: E402

from nanopass.cli import tune_gc_for_compilation  # noqa: E402
from nanopass.instruments import Instrument, PassStep, VerifyInstrument  # noqa: E402
from nanopass.node import Node, walk  # noqa: E402
from nanopass.pipeline import Pipeline  # noqa: E402
from nanopass.plugin import CompilerPlugin  # noqa: E402
from nanopass_pto import run as runner  # noqa: E402

PROGRAMS = Path(__file__).resolve().parent / "programs"


# -- measuring ---------------------------------------------------------------------------------


def cpu(run: Callable[[], object]) -> float:
    t0 = time.process_time()
    run()
    return time.process_time() - t0


@dataclass
class Samples:
    values: list[float]

    @property
    def min(self) -> float:
        return min(self.values)

    @property
    def median(self) -> float:
        return statistics.median(self.values)


def interleaved(sides: dict[str, Callable[[], float]], rounds: int, warmup: bool = True) -> dict[str, Samples]:
    """Each side returns one measurement (seconds, or any figure); sides alternate per round."""
    if warmup:
        for side in sides.values():
            side()
    samples: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(rounds):
        for name, side in sides.items():
            samples[name].append(side())
    return {name: Samples(values) for name, values in samples.items()}


@dataclass
class Row:
    name: str
    what: str
    ours: str
    anchor: str
    ratio_min: float
    ratio_median: float
    unit: str  # how the ratio reads ("x", "%", "programs/s", "MB")
    goal: str
    met: bool


ROWS: list[Row] = []


def report(row: Row) -> None:
    ROWS.append(row)
    mark = "met" if row.met else "NOT met"
    print(f"  {row.name:<16} {row.what:<58} min {row.ratio_min:8.3g}{row.unit:<3} median "
          f"{row.ratio_median:8.3g}{row.unit:<3} goal {row.goal:<10} {mark}   ({row.ours}; {row.anchor})", flush=True)


def ratio_row(name: str, what: str, samples: dict[str, Samples], ours: str, anchor: str, goal: float,
              unit: str = "x", per_op: bool = False) -> None:
    """ours / anchor (min over min, median over median); met when the median is at most `goal`."""
    lo = samples[ours].min / samples[anchor].min
    mid = samples[ours].median / samples[anchor].median
    report(Row(name, what, f"{ours} {_fmt(samples[ours], per_op)}", f"{anchor} {_fmt(samples[anchor], per_op)}", lo,
               mid, unit, f"<= {goal:g}{unit}", mid <= goal))


def _fmt(s: Samples, per_op: bool = False) -> str:
    if per_op:
        return f"min {s.min * 1e6:.3g} us/op, median {s.median * 1e6:.3g} us/op"
    return f"min {s.min * 1e3:.3g} ms, median {s.median * 1e3:.3g} ms"


# -- simulator rows ----------------------------------------------------------------------------


def _compiled(plugin: CompilerPlugin, pipeline: Pipeline, name: str) -> tuple[runner.Compiled, Node]:
    path = PROGRAMS / f"{name}.py"
    program = plugin.parse(path.read_text(), str(path))
    return compile_program(plugin, pipeline, program), program


def _check_bits(compiled: runner.Compiled, program: Node, inputs: dict[str, Any]) -> None:
    from backend import numerics
    simulated = runner.run(compiled, inputs)
    expected = runner.reference(program, inputs)
    for key, value in expected.items():
        if not np.array_equal(numerics.to_bits(value), numerics.to_bits(simulated[key])):
            raise SystemExit(f"simulator result {key} differs from the reference interpreter: not bit-exact")


def _numpy_exp(inputs: dict[str, Any]) -> Any:
    with np.errstate(over="ignore"):  # random inputs reach exp's overflow
        return np.exp(inputs["a"])


def sim_rows(plugin: CompilerPlugin, pipeline: Pipeline, rounds: int) -> None:
    for row, program_name, goal in (("sim-matmul-f16", "matmul512_f16", 3.0), ("sim-matmul-f32", "matmul512_f32", 5.0)):
        compiled, program = _compiled(plugin, pipeline, program_name)
        inputs = runner.random_inputs(program, seed=0)
        _check_bits(compiled, program, inputs)
        a32, b32 = (np.asarray(inputs[k]).astype(np.float32) for k in ("a", "b"))
        samples = interleaved({"simulator": lambda: cpu(lambda: runner.run(compiled, inputs)),
                               "numpy": lambda: cpu(lambda: a32 @ b32)}, rounds)
        dtype = "FP16 x FP16 -> FP32" if "f16" in program_name else "FP32 (fused chain)"
        ratio_row(row, f"simulator 512^3 {dtype} blocked kernel / NumPy a32 @ b32", samples, "simulator", "numpy", goal)
    for row, program_name, numpy_kernel in (("sim-add", "add512_f32", lambda x: x["a"] + x["b"]),
                                            ("sim-exp", "exp512_f32", _numpy_exp)):
        compiled, program = _compiled(plugin, pipeline, program_name)
        inputs = runner.random_inputs(program, seed=0)
        _check_bits(compiled, program, inputs)
        samples = interleaved({"simulator": lambda: cpu(lambda: runner.run(compiled, inputs)),
                               "numpy": lambda: cpu(lambda: numpy_kernel(inputs))}, max(rounds, 5))
        lo = samples["numpy"].min / samples["simulator"].min * 100
        mid = samples["numpy"].median / samples["simulator"].median * 100
        op = "add" if row == "sim-add" else "exp"
        report(Row(row, f"[512, 512] FP32 {op} kernel, % of NumPy throughput", f"simulator {_fmt(samples['simulator'])}",
                   f"numpy {_fmt(samples['numpy'])}", lo, mid, "%", ">= 50%", mid >= 50))


# -- compile rows ------------------------------------------------------------------------------


def _end_to_end(plugin: CompilerPlugin, pipeline: Pipeline, text: str, instruments: Callable[[], list[Instrument]]
                ) -> float:
    def once() -> None:
        program = plugin.parse(text, "<bench>")
        compiled = compile_program(plugin, pipeline, program, instruments())
        plugin.text_of(compiled.final)
    return cpu(once)


def verify_rows(plugin: CompilerPlugin, pipeline: Pipeline, rounds: int, quick: bool) -> None:
    backend = plugin.make_backend(plugin.default_backend)
    examples = [s.text for s in example_sources(plugin)]

    def all_examples(make: Callable[[], list[Instrument]]) -> float:
        return sum(_compile_only(plugin, pipeline, text, make) for text in examples)

    samples = interleaved({"verify": lambda: all_examples(lambda: [VerifyInstrument(plugin, target=backend)]),
                           "plain": lambda: all_examples(lambda: [])}, max(rounds, 5))
    ratio_row("verify-small", f"--verify-all / plain compile, {len(examples)} example kernels (sum)", samples,
              "verify", "plain", 1.3)
    functions = 100 if quick else 1000
    text = synthetic_source(functions, 10).text
    program = plugin.parse(text, "<bench>")
    samples = interleaved({
        "verify": lambda: cpu(lambda: compile_program(plugin, pipeline, program, [VerifyInstrument(plugin, target=backend)])),
        "plain": lambda: cpu(lambda: compile_program(plugin, pipeline, program, [])),
    }, rounds)
    ratio_row("verify-1000fn" if not quick else "verify-100fn", f"--verify-all / plain compile, {functions} functions",
              samples, "verify", "plain", 1.3)


def _compile_only(plugin: CompilerPlugin, pipeline: Pipeline, text: str, make: Callable[[], list[Instrument]]) -> float:
    program = plugin.parse(text, "<bench>")
    return cpu(lambda: compile_program(plugin, pipeline, program, make()))


GROWTH: tuple[tuple[str, str, tuple[int, int], tuple[int, int]], ...] = (
    # (row, what, small (functions, chain), large)
    ("growth-fns", "functions 100 -> 1000 (10 ops each)", (100, 10), (1000, 10)),
    ("growth-chain", "one function, chain 10^3 -> 10^4 ops", (1, 1000), (1, 10000)),
    ("growth-ops", "program 10^4 -> 10^5 ops (10 -> 100 functions of 1000)", (10, 1000), (100, 1000)),
)
GROWTH_FULL = (
    ("growth-fns-10k", "functions 1000 -> 10^4 (10 ops each)", (1000, 10), (10000, 10)),
    ("growth-ops-1m", "program 10^5 -> 10^6 ops (100 -> 1000 functions of 1000)", (100, 1000), (1000, 1000)),
)


def _tenth(size: tuple[int, int]) -> tuple[int, int]:
    functions, chain = size
    return (functions // 10, chain) if functions >= 10 else (functions, max(1, chain // 10))


def growth_rows(plugin: CompilerPlugin, pipeline: Pipeline, rounds: int, quick: bool, full: bool) -> None:
    cases = list(GROWTH) + (list(GROWTH_FULL) if full else [])
    for row, what, small, large in cases:
        if quick:
            small, large = _tenth(small), _tenth(large)
            what += " (--quick: a tenth of that)"
        texts = {"large": synthetic_source(*large).text, "small": synthetic_source(*small).text}
        samples = interleaved({name: (lambda t=t: _end_to_end(plugin, pipeline, t, lambda: []))
                               for name, t in texts.items()}, rounds if small[0] * small[1] < 10**5 else 1,
                              warmup=False)
        ratio_row(row, f"compile growth, {what}", samples, "large", "small", 11.0)


# -- framework rows vs xDSL ----------------------------------------------------------------------


class _PassClock(Instrument):
    """CPU time of one named pass and the op count of its input."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.seconds = 0.0
        self.ops = 0
        self._t0 = 0.0

    def before_pass(self, step: PassStep, program: Node) -> None:
        if type(step.pass_).name == self.name:
            self.ops = count_ops(program)
            self._t0 = time.process_time()

    def after_pass(self, step: PassStep, before: Node, after: Node) -> None:
        if type(step.pass_).name == self.name:
            self.seconds = time.process_time() - self._t0


def count_ops(program: Node) -> int:
    """Operations: calls of operators and of functions."""
    return sum(1 for node in walk(program) if node.KIND in ("Call", "FuncCall"))


REWRITE_PASS = "infer-tile-memory-space"  # rebuilds every tile op with its placed type


def _xdsl() -> Any:
    try:
        import xdsl  # noqa: F401
    except ImportError:
        return None
    from xdsl.context import Context
    from xdsl.dialects import arith, builtin, func
    ctx = Context()
    for dialect in (builtin.Builtin, func.Func, arith.Arith):
        ctx.load_dialect(dialect)
    return ctx


_XDSL_OPS = ("arith.addf", "arith.mulf", "arith.subf", "arith.maximumf")


def xdsl_text(ops: int) -> str:
    lines = ["func.func @f(%a: f32, %b: f32) -> f32 {"]
    current = "%a"
    for i in range(ops):
        lines.append(f"  %v{i} = {_XDSL_OPS[i % len(_XDSL_OPS)]} {current}, %b : f32")
        current = f"%v{i}"
    lines += [f"  func.return {current} : f32", "}"]
    return "\n".join(lines)


def _xdsl_rewrite_every_op(module: Any) -> None:
    from xdsl.dialects import arith, builtin
    from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
    kinds = (arith.AddfOp, arith.MulfOp, arith.SubfOp, arith.MaximumfOp)

    class RebuildEveryOp(RewritePattern):
        def match_and_rewrite(self, op: Any, rewriter: PatternRewriter) -> None:
            if isinstance(op, kinds) and "placed" not in op.attributes:
                new = type(op)(op.lhs, op.rhs)
                new.attributes["placed"] = builtin.UnitAttr()
                rewriter.replace_op(op, new)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        PatternRewriteWalker(RebuildEveryOp(), apply_recursively=False).rewrite_module(module)


def framework_rows(plugin: CompilerPlugin, pipeline: Pipeline, rounds: int, quick: bool) -> None:
    ctx = _xdsl()
    if ctx is None:
        print("  (xDSL is not installed: pip install -e \".[bench]\"; the parse / rewrite / verify / print rows "
              "need it)")
        return
    from xdsl.parser import Parser
    from xdsl.printer import Printer
    sizes = (1000,) if quick else (1000, 10000)
    for chain in sizes:
        ours_text = synthetic_source(1, chain).text
        ours_program = plugin.parse(ours_text, "<bench>")
        source_ops = count_ops(ours_program)
        compiled = compile_program(plugin, pipeline, ours_program)
        final_ops = count_ops(compiled.final)
        text = xdsl_text(chain)
        module = Parser(ctx, text).parse_module()
        xdsl_ops = chain + 2

        def ours_parse() -> float:
            return cpu(lambda: plugin.parse(ours_text, "<bench>")) / source_ops

        def xdsl_parse() -> float:
            return cpu(lambda: Parser(ctx, text).parse_module()) / xdsl_ops

        def ours_verify() -> float:
            return cpu(lambda: plugin.verify_loaded(ours_program)) / source_ops

        def xdsl_verify() -> float:
            return cpu(module.verify) / xdsl_ops

        def ours_print() -> float:
            # As a first print of a fresh program: the printer's spelling memo starts empty.
            from backend.pto_text import printer
            printer._SPELLINGS.clear()
            return cpu(lambda: plugin.text_of(compiled.final)) / final_ops

        def xdsl_print() -> float:
            return cpu(lambda: Printer(stream=io.StringIO()).print_op(module)) / xdsl_ops

        def ours_rewrite() -> float:
            clock = _PassClock(REWRITE_PASS)
            compile_program(plugin, pipeline, ours_program, [clock])
            return clock.seconds / max(clock.ops, 1)

        def xdsl_rewrite() -> float:
            fresh = Parser(ctx, text).parse_module()
            return cpu(lambda: _xdsl_rewrite_every_op(fresh)) / xdsl_ops

        for row, goal, ours, anchor in (("parse", 0.3, ours_parse, xdsl_parse), ("rewrite", 0.3, ours_rewrite, xdsl_rewrite),
                                        ("verify", 0.2, ours_verify, xdsl_verify), ("print", 0.3, ours_print, xdsl_print)):
            samples = interleaved({"ours": ours, "xdsl": anchor}, rounds)
            what = {"parse": "parse per op (pl text) / xDSL parse per op (MLIR)",
                    "rewrite": f"pass rebuilding every op ({REWRITE_PASS}) / xDSL rewrite of every op",
                    "verify": "input verification per op / xDSL verify per op",
                    "print": "PTO MLIR printing per op / xDSL print per op"}[row]
            ratio_row(f"{row}@{chain}", what + f", {chain}-op chain", samples, "ours", "xdsl", goal, per_op=True)


# -- fuzz and memory ---------------------------------------------------------------------------


def fuzz_row(rounds: int, quick: bool) -> None:
    from fuzz_throughput import measure_cpu
    seconds = 3.0 if quick else 10.0
    rates = [measure_cpu(seconds, "+small_shapes", seed) for seed in range(max(1, min(rounds, 3)))]
    samples = Samples(rates)
    report(Row("fuzz", "fuzz programs per CPU second, end to end (small programs)", f"{len(rates)} runs of {seconds:g} s",
               "", max(rates), samples.median, "", ">= 60", samples.median >= 60))


MEMORY_SNIPPET = """
import sys
sys.path.insert(0, {bench!r})
import _common
from nanopass.cli import tune_gc_for_compilation
tune_gc_for_compilation()
plugin, pipeline = _common.plugin_and_pipeline()
source = _common.synthetic_source({functions}, {chain})
compiled = _common.compile_program(plugin, pipeline, plugin.parse(source.text, source.filename))
plugin.text_of(compiled.final)
"""


def memory_row(quick: bool) -> None:
    functions, chain = (10, 1000) if quick else (100, 1000)
    code = MEMORY_SNIPPET.format(bench=str(Path(__file__).resolve().parent), functions=functions, chain=chain)
    if os.path.exists("/usr/bin/time"):
        done = subprocess.run(["/usr/bin/time", "-v", sys.executable, "-c", code], capture_output=True, text=True,
                              cwd=REPO_ROOT)
        match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
        peak_mb = int(match.group(1)) / 1024 if match else float("nan")
        how = "/usr/bin/time -v"
    else:
        import resource
        subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO_ROOT)
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        how = "getrusage (no /usr/bin/time)"
    report(Row("memory", f"peak memory compiling {functions * chain:.0e} ops (parse, passes, print)", how, "",
               peak_mb, peak_mb, "MB", "<= 400MB", peak_mb <= 400))


# -- main --------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds per row (default 3)")
    parser.add_argument("--quick", action="store_true", help="10x smaller framework / growth sizes (a smoke run)")
    parser.add_argument("--full", action="store_true", help="also 10^5 -> 10^6 ops and 10^3 -> 10^4 functions")
    parser.add_argument("--only", default="", help="comma-separated row groups: sim,verify,growth,framework,fuzz,memory")
    args = parser.parse_args(argv)
    tune_gc_for_compilation()  # as the CLI and every fuzz worker run
    groups = ("sim", "verify", "growth", "framework", "fuzz", "memory")
    wanted = {w for w in args.only.split(",") if w} or set(groups)
    unknown = wanted - set(groups)
    if unknown:
        parser.error(f"unknown row groups {sorted(unknown)}; choose from {', '.join(groups)}")
    plugin, pipeline = plugin_and_pipeline()
    print(f"bench/all.py: CPU time, {args.rounds} interleaved rounds, min and median; NumPy {np.__version__}, "
          f"xDSL {_xdsl_version()}")
    if "sim" in wanted:
        sim_rows(plugin, pipeline, args.rounds)
    if "verify" in wanted:
        verify_rows(plugin, pipeline, args.rounds, args.quick)
    if "growth" in wanted:
        growth_rows(plugin, pipeline, args.rounds, args.quick, args.full)
    if "framework" in wanted:
        framework_rows(plugin, pipeline, args.rounds, args.quick)
    if "fuzz" in wanted:
        fuzz_row(args.rounds, args.quick)
    if "memory" in wanted:
        memory_row(args.quick)
    met = sum(r.met for r in ROWS)
    print(f"{met} of {len(ROWS)} rows meet their goal")
    return 0


def _xdsl_version() -> str:
    try:
        import xdsl
        return str(getattr(xdsl, "__version__", "?"))
    except ImportError:
        return "not installed"


if __name__ == "__main__":
    sys.exit(main())
