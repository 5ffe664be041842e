"""The PTO plugin's extra CLI options and post-compile step for `python -m nanopass.pipeline`.

    --simulate              run the compiled program on the simulator and the source program on
                            the reference interpreter, same inputs; report `bit-exact` per output
                            or the first differing element (exit status 1 on a mismatch)
    --seed S                seed of the random inputs (default 0)
    --inputs in.npz         use these arrays (keys = entry-function parameter names)
    --save-outputs out.npz  save the compiled program's outputs (ret0, ..., Out/InOut params)
    --backend NAME          Ascend910B (default) or Ascend950
    --unchecked             do not report reads of never-written simulator memory

A compiled PTO program holds only the kernels (the orchestration function is host code), so
the compiled side runs as: the orchestration function of the last value-level program of the
pipeline, interpreted, with every kernel call executed by the simulator on the PTO kernel of
the same name (one fresh machine per launch).  A pipeline that stops before PTO is compared by
interpreting its final program instead.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import numpy.typing as npt

from backend import numerics
from backend.handlers import BackendHandler, get_backend
from backend.interpreter import (
    ArrayValue,
    KernelRunner,
    Value,
    entry_function,
    interpret,
    poison_array,
    random_inputs,
    returned_param_indices,
)
from backend.io import load_inputs, save_outputs
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.node import Node

Array = npt.NDArray[Any]
RULE = "simulate"
BACKEND_CHOICES = ("Ascend910B", "Ascend950")
VALUE_LEVEL_LANGUAGES = frozenset({"Tensor", "TileUnplaced", "TilePlaced", "L0Tiled", "Addressed"})

# ctx.options keys the framework may fill (see `post_compile`): the parsed input program and,
# optionally, the last value-level program of the pipeline (saves compiling twice).
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


# -- running the compiled program ------------------------------------------------------------------


def _language(program: Node) -> str:
    return type(program).LANGUAGE


def _is_fresh(value: ArrayValue) -> bool:
    """A buffer no one has written (a fresh tensor.create): still all poison bytes."""
    return bool(np.all(numerics.to_bits(value.data) == numerics.to_bits(poison_array(value.data.shape, value.dtype))))


def simulator_kernel_runner(pto_program: Node, handler: BackendHandler, checked: bool = True) -> KernelRunner:
    """Runs a kernel call of the host program on the PTO kernel of the same name.

    Tensor arguments are the caller's buffers: their current contents go in (a fresh, never
    written buffer stays unwritten, so checked mode still catches a kernel reading it), and
    Out / InOut results are written back in place.  The call's values are the parameters whose
    buffers the host-level kernel returns.
    """
    from backend.sim.executor import run_kernel

    kernels = {str(getattr(f, "name")): f for f in getattr(pto_program, "functions")}

    def run(function: Node, args: Sequence[Value]) -> tuple[Value, ...]:
        name = str(getattr(function, "name"))
        if name not in kernels:
            raise _hook_error(f"the compiled program has no kernel {name!r} (kernels: {', '.join(kernels)})")
        directions = [str(p.direction) for p in getattr(function, "params")]
        # PTO names its kernel arguments %arg0, %arg1, ...: parameters correspond by position.
        pto_names = [str(getattr(p.var, "name")) for p in getattr(kernels[name], "params")]
        if len(pto_names) != len(directions):
            raise _hook_error(f"kernel {name} takes {len(directions)} parameters in the value-level program "
                              f"but {len(pto_names)} in the compiled one")
        inputs: dict[str, object] = {}
        for param, direction, arg in zip(pto_names, directions, args):
            if isinstance(arg, ArrayValue):
                if not (direction == "Out" and _is_fresh(arg)):
                    inputs[param] = arg.data
            elif arg is not None and not isinstance(arg, tuple):
                inputs[param] = arg
        outputs = run_kernel(kernels[name], inputs, handler, checked)
        for param, direction, arg in zip(pto_names, directions, args):
            if direction in ("Out", "InOut") and isinstance(arg, ArrayValue) and param in outputs:
                result = np.asarray(outputs[param])
                arg.data[...] = result if result.dtype == arg.data.dtype else result.view(arg.data.dtype)
        return tuple(args[i] for i in returned_param_indices(function))

    return run


def run_compiled(final: Node, host: Node | None, inputs: Mapping[str, object], handler: BackendHandler,
                 checked: bool = True, entry: str | None = None) -> dict[str, Array]:
    """Outputs of the compiled program: simulated if `final` is PTO (its orchestration taken from
    `host`, the last value-level program), else `final` interpreted."""
    if _language(final) in VALUE_LEVEL_LANGUAGES:
        return interpret(final, inputs, entry)
    if host is None:
        raise _hook_error("simulating a PTO program needs the value-level program it came from")
    return interpret(host, inputs, entry, kernel_runner=simulator_kernel_runner(final, handler, checked))


# -- comparing outputs -----------------------------------------------------------------------------


@dataclass(frozen=True)
class OutputReport:
    name: str
    ok: bool
    line: str


def _dtype_name(array: Array) -> str:
    try:
        return numerics.dtype_name_of(array)
    except numerics.NumericsError:
        return str(array.dtype)


def _hex(array: Array, index: tuple[int, ...]) -> str:
    element = array[index]
    bits = int(numerics.to_bits(np.asarray(element)).reshape(()))
    return f"0x{bits:0{2 * array.dtype.itemsize}x}"


def compare_output(name: str, reference: Array, compiled: Array) -> OutputReport:
    """Bit comparison of one output; on a mismatch, the first differing element in hex."""
    ref, got = np.asarray(reference), np.asarray(compiled)
    shape = f"{list(ref.shape)} {_dtype_name(ref)}"
    if ref.shape != got.shape or ref.dtype.itemsize != got.dtype.itemsize:
        return OutputReport(name, False, f"{name}: MISMATCH: interpreter gives {shape}, "
                                         f"compiled program gives {list(got.shape)} {_dtype_name(got)}")
    differ = numerics.to_bits(ref) != numerics.to_bits(got)
    if not np.any(differ):
        return OutputReport(name, True, f"{name}: bit-exact ({shape})")
    first = tuple(int(i) for i in np.argwhere(differ)[0])
    return OutputReport(name, False,
                        f"{name}: MISMATCH at {list(first)}: compiled {_hex(got, first)}, interpreter "
                        f"{_hex(ref, first)} ({int(np.count_nonzero(differ))} of {differ.size} elements differ)")


def compare_outputs(reference: Mapping[str, Array], compiled: Mapping[str, Array]) -> list[OutputReport]:
    reports: list[OutputReport] = []
    for name in reference:
        if name not in compiled:
            reports.append(OutputReport(name, False, f"{name}: MISMATCH: the compiled program has no output {name!r}"))
        else:
            reports.append(compare_output(name, reference[name], compiled[name]))
    return reports


def user_outputs(outputs: Mapping[str, Array], source_entry: Node) -> dict[str, Array]:
    """Outputs named as the user sees them: returned values and the source entry's parameters
    (an `ret0_out` parameter the compiler added to a kernel entry is not one of them)."""
    params = {str(getattr(p.var, "name")) for p in getattr(source_entry, "params")}
    return {k: v for k, v in outputs.items() if (k.startswith("ret") and k[3:].isdigit()) or k in params}


# -- the post-compile hook ------------------------------------------------------------------------


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


def _host_program(args: argparse.Namespace, ctx: Any, source: Node, final: Node) -> Node | None:
    """The last value-level program of the pipeline: from the framework if it kept it, else by
    running the pipeline again without its PTO-producing passes (compilation is deterministic)."""
    if _language(final) in VALUE_LEVEL_LANGUAGES:
        return final
    kept = getattr(ctx, "options", {}).get(HOST_PROGRAM_KEY)
    if isinstance(kept, Node):
        return kept
    from nanopass.passes import PassContext
    from nanopass.pipeline import Pipeline
    from nanopass.plugin import get_plugin

    plugin = get_plugin()
    backend = getattr(args, "backend", None) or plugin.default_backend
    spec = args.pipeline if getattr(args, "pipeline", None) is not None else plugin.default_pipeline(backend)
    pipeline = Pipeline.from_spec(spec, plugin)
    if getattr(args, "until", None):
        pipeline = pipeline.until(args.until)
    value_level = [p for p in pipeline.passes if type(p).target.name in VALUE_LEVEL_LANGUAGES]
    host = Pipeline(value_level, plugin).run(source, PassContext(backend, plugin.make_backend(backend)))
    return host


def _handler(args: argparse.Namespace, ctx: Any) -> BackendHandler:
    backend = getattr(ctx, "backend", None)
    if isinstance(backend, BackendHandler):
        return backend
    return get_backend(getattr(args, "backend", None) or getattr(ctx, "backend_name", "") or BACKEND_CHOICES[0])


def simulate_and_compare(source: Node, final: Node, host: Node | None, inputs: Mapping[str, object],
                         handler: BackendHandler, checked: bool = True,
                         emit: Callable[[str], None] = print) -> tuple[bool, dict[str, Array]]:
    """Interpret `source`, run the compiled program, print one line per output; returns
    (all bit-exact, the compiled outputs as the user sees them)."""
    reference = interpret(source, inputs)
    compiled = user_outputs(run_compiled(final, host, inputs, handler, checked), entry_function(source))
    reports = compare_outputs(reference, compiled)
    for report in reports:
        emit(f"  {report.line}")
    return all(r.ok for r in reports), compiled


def post_compile(args: argparse.Namespace, final: Node, ctx: Any) -> int | None:
    """`--simulate` / `--inputs` / `--save-outputs` after a successful compile.

    Returns 1 when an output differs (the CLI then exits non-zero), else None.  The framework
    may set ``ctx.options["source_program"]`` (the parsed input; required when compiling the
    bundled examples without FILE) and ``ctx.options["host_program"]`` (the last value-level
    program) before the pipeline runs; without them the file is re-parsed / re-compiled.
    """
    simulate = bool(getattr(args, "simulate", False))
    inputs_path: Path | None = getattr(args, "inputs", None)
    save_path: Path | None = getattr(args, "save_outputs", None)
    if not (simulate or inputs_path or save_path):
        return None
    source = _source_program(args, ctx)
    host = _host_program(args, ctx, source, final)
    handler = _handler(args, ctx)
    checked = not getattr(args, "unchecked", False)
    entry = entry_function(source)
    seed = int(getattr(args, "seed", 0))
    inputs = dict(load_inputs(inputs_path, entry)) if inputs_path is not None else dict(random_inputs(source, seed))
    origin = str(inputs_path) if inputs_path is not None else f"random inputs, seed {seed}"
    ok = True
    if simulate and _language(source) not in VALUE_LEVEL_LANGUAGES:
        # A .pto input has no value-level source to interpret: run it, there is nothing to compare.
        print(f"simulate {getattr(source, 'name', '?')} on {handler.name} ({origin}): no reference "
              "(the input is already PTO), simulator only")
        outputs = user_outputs(run_compiled(final, host, inputs, handler, checked), entry)
        for name, array in outputs.items():
            print(f"  {name}: simulated ({list(array.shape)} {_dtype_name(array)})")
    elif simulate:
        print(f"simulate {getattr(source, 'name', '?')} on {handler.name} ({origin}):")
        ok, outputs = simulate_and_compare(source, final, host, inputs, handler, checked)
    else:
        outputs = user_outputs(run_compiled(final, host, inputs, handler, checked), entry)
    if save_path is not None:
        save_outputs(save_path, outputs)
        print(f"saved {', '.join(outputs)} to {save_path}")
    return None if ok else 1


__all__ = [
    "BACKEND_CHOICES",
    "OutputReport",
    "add_arguments",
    "compare_output",
    "compare_outputs",
    "post_compile",
    "run_compiled",
    "simulate_and_compare",
    "simulator_kernel_runner",
    "user_outputs",
]
