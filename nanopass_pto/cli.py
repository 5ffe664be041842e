"""The PTO plugin's extra CLI options and post-compile step for `python -m nanopass.pipeline`.

    --simulate              run the compiled program on the simulator and the source program on
                            the reference interpreter, same inputs; report `bit-exact` per output
                            or the first differing element (exit status 1 on a mismatch)
    --seed S                seed of the random inputs (default 0)
    --inputs in.npz         use these arrays (keys = entry-function parameter names)
    --save-outputs out.npz  save the compiled program's outputs (ret0, ..., Out/InOut params)
    --backend NAME          Ascend910B (default) or Ascend950
    --unchecked             do not report reads of never-written simulator memory
    --entry NAME            the function a run starts in (default: the Orchestration function,
                            else the one function nothing calls; a program of several such
                            kernels and no host runs each of them in turn on its own inputs)
    --memory-planner NAME   pypto (default), ptoas or dsa_rp: the default pipeline built for
                            that planner (it decides AutoTileMatmulL0's dbC = 2 design points)

Each step is a call of the run API (`nanopass_pto.run`): the inputs, the compiled program's
outputs, the reference's, the comparison and the saved file.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy.typing as npt

from backend.targets.handlers import BackendHandler, get_backend
from languages.functions import entry_function, is_kernel_function, root_functions
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.node import Node
from nanopass_pto import run as runner
from nanopass_pto.run import Compiled, describe_array, is_value_level

Array = npt.NDArray[Any]
RULE = "simulate"
BACKEND_CHOICES = ("Ascend910B", "Ascend950")

# ctx.options keys the framework fills (see `post_compile`): the parsed input program and the
# last value-level program of the pipeline (saves compiling twice).
SOURCE_PROGRAM_KEY = "source_program"
HOST_PROGRAM_KEY = "host_program"


def _hook_error(message: str, hint: str = "") -> CompileError:
    return CompileError(Diagnostic(RULE, message, hint=hint))


def _backend_name(text: str) -> str:
    try:
        return get_backend(text).name
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("simulation (PTO plugin)")
    group.add_argument("--simulate", action="store_true",
                       help="simulate the compiled program and compare it bit for bit with the reference interpreter")
    group.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the random inputs (default 0)")
    group.add_argument("--inputs", type=Path, metavar="IN.npz",
                       help="input arrays keyed by entry-function parameter name (bf16/fp8 as uint bit patterns)")
    group.add_argument("--save-outputs", type=Path, metavar="OUT.npz",
                       help="save the compiled program's outputs (ret0, ..., Out/InOut parameters)")
    group.add_argument("--backend", type=_backend_name, default=None, metavar="NAME",
                       help=f"target: {' or '.join(BACKEND_CHOICES)} (default {BACKEND_CHOICES[0]})")
    group.add_argument("--unchecked", action="store_true",
                       help="do not report simulator reads of never-written memory")
    group.add_argument("--memory-planner", choices=("pypto", "ptoas", "dsa_rp"), default=None,
                       help="compile with the default pipeline built for this memory planner "
                            "(default pypto; ptoas and dsa_rp allow a double-buffered L0C)")
    from nanopass_pto.jit_cli import add_arguments as add_jit_arguments

    add_jit_arguments(parser.add_argument_group("@pl.jit kernels (PTO plugin)"))


# -- the compiled program the framework hands over --------------------------------------------------


def _source_program(args: argparse.Namespace, ctx: Any) -> Node:
    options = getattr(ctx, "options", {})
    source = options.get(SOURCE_PROGRAM_KEY)
    if isinstance(source, Node):
        return source
    if getattr(args, "file", None):
        from nanopass.plugin import get_plugin

        path = Path(args.file)
        return get_plugin().parse(path.read_text(), str(path))
    raise _hook_error("--simulate without FILE needs the framework to pass each example's program "
                      f"(ctx.options[{SOURCE_PROGRAM_KEY!r}])")


def _host_program(ctx: Any, final: Node) -> Node | None:
    """The last value-level program of the pipeline, which the framework keeps (None for a
    PTO input, whose kernel is its own host)."""
    if is_value_level(final):
        return final
    kept = getattr(ctx, "options", {}).get(HOST_PROGRAM_KEY)
    return kept if isinstance(kept, Node) else None


def _handler(args: argparse.Namespace, ctx: Any) -> BackendHandler:
    backend = getattr(ctx, "backend", None)
    if isinstance(backend, BackendHandler):
        return backend
    return get_backend(getattr(args, "backend", None) or getattr(ctx, "backend_name", "") or BACKEND_CHOICES[0])


# -- the post-compile hook ------------------------------------------------------------------------


def report(line: str) -> None:
    """Simulation reports go to stderr: stdout carries the compiled IR (`--simulate > k.pto`)."""
    print(line, file=sys.stderr)


def simulate_and_compare(compiled: Compiled, inputs: Mapping[str, object], checked: bool = True,
                         emit: Callable[[str], None] = report) -> tuple[bool, dict[str, Array]]:
    """Run the compiled program and the reference on `inputs`, print one line per output;
    returns (all bit-exact, the compiled outputs as the user sees them)."""
    expected = runner.reference(compiled.source, inputs, compiled.entry_name)
    outputs = runner.run(compiled, inputs, checked=checked)
    # Elements outside an output's valid_shape are undefined (a store writes the valid region
    # only): compared is what the campaign compares, the valid regions.
    reports = runner.compare_valid(compiled.source, expected, outputs, compiled.entry_name)
    for report in reports:
        emit(f"  {report.line}")
    return all(r.ok for r in reports), outputs


def post_compile(args: argparse.Namespace, final: Node, ctx: Any) -> int | None:
    """`--simulate` / `--inputs` / `--save-outputs` after a successful compile.

    Returns 1 when an output differs (the CLI then exits non-zero), else None.  The framework
    sets ``ctx.options["source_program"]`` (the parsed input; required when compiling the
    bundled examples without FILE) and ``ctx.options["host_program"]`` (the last value-level
    program) before the pipeline runs; without the first the file is parsed again.
    """
    simulate = bool(getattr(args, "simulate", False))
    inputs_path: Path | None = getattr(args, "inputs", None)
    save_path: Path | None = getattr(args, "save_outputs", None)
    if not (simulate or inputs_path or save_path):
        return None
    source = _source_program(args, ctx)
    handler = _handler(args, ctx)
    compiled = Compiled(source, final, _host_program(ctx, final), handler)
    entries = run_entries(source, getattr(args, "entry", None), several_allowed=inputs_path is None)
    ok = True
    saved: dict[str, Array] = {}
    for entry in entries:
        one_ok, outputs = _run_one(args, compiled.starting_at(entry), simulate, inputs_path)
        ok &= one_ok
        saved.update({(f"{entry}.{k}" if len(entries) > 1 else k): v for k, v in outputs.items()})
    if save_path is not None:
        runner.save(save_path, saved)
        report(f"saved {', '.join(saved)} to {save_path}")
    return None if ok else 1


def run_entries(source: Node, named: str | None, several_allowed: bool) -> list[str | None]:
    """Where runs of `source` start: the function `--entry` names, else the program's entry;
    a program of several kernels nothing calls (no host function) runs each of them in turn."""
    functions = [str(getattr(f, "name")) for f in getattr(source, "functions", ())]
    if named is not None and named in functions:
        return [named]
    try:
        entry_function(source)
        return [None]
    except CompileError:
        roots = root_functions(source)
        if not several_allowed or len(roots) < 2 or not all(is_kernel_function(r) for r in roots):
            raise
        return [str(getattr(r, "name")) for r in roots]


def _run_one(args: argparse.Namespace, compiled: Compiled, simulate: bool,
             inputs_path: Path | None) -> tuple[bool, dict[str, Array]]:
    source = compiled.source
    handler = compiled.handler
    checked = not getattr(args, "unchecked", False)
    seed = int(getattr(args, "seed", 0))
    if inputs_path is not None:
        inputs = dict(runner.load_inputs(inputs_path, compiled.entry))
        origin = str(inputs_path)
    else:
        inputs = dict(runner.random_inputs(source, seed, compiled.entry_name))
        origin = f"random inputs, seed {seed}"
    ok = True
    name = getattr(source, "name", "?") + (f".{compiled.entry_name}" if compiled.entry_name else "")
    if simulate and not is_value_level(source):
        # A .pto input has no value-level source to interpret: run it, there is nothing to compare.
        report(f"simulate {name} on {handler.name} ({origin}): no reference "
              "(the input is already PTO), simulator only")
        outputs = runner.run(compiled, inputs, checked=checked)
        for output, array in outputs.items():
            report(f"  {output}: simulated ({describe_array(array)})")
    elif simulate:
        report(f"simulate {name} on {handler.name} ({origin}):")
        ok, outputs = simulate_and_compare(compiled, inputs, checked)
    else:
        outputs = runner.run(compiled, inputs, checked=checked)
    return ok, outputs


__all__ = [
    "BACKEND_CHOICES",
    "add_arguments",
    "post_compile",
    "simulate_and_compare",
]
