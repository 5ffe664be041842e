"""Running a kernel, as one straight line: compile, run on inputs, run the reference on the same
inputs, compare bit for bit, save.

    compiled = compile_program(source, backend="Ascend910B", verify_all=True)
    inputs = random_inputs(compiled.source, seed)        # or load_inputs(path, compiled.entry)
    outputs = run(compiled, inputs)                       # simulator (PTO) / interpreter (value level)
    expected = reference(compiled.source, inputs)         # the reference interpreter on the source
    reports = compare(expected, outputs)                  # one OutputReport per output
    save(path, outputs)

The CLI's `--simulate` / `--inputs` / `--save-outputs`, the fuzzer's oracle, the benchmarks and
the tests all go through these functions.

A compiled PTO program holds only the kernels (the orchestration function is host code), so a
compiled program runs as: the orchestration function of the last value-level program of the
pipeline (`Compiled.host`), interpreted, with every kernel call executed by the simulator on the
PTO kernel of the same name (one fresh machine per launch). A PTO program with no host (a `.pto`
file) runs its kernel directly; a pipeline that stops before PTO runs its final program on the
interpreter.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import numpy.typing as npt

from backend import numerics
from backend.arrays import load_inputs, random_inputs, save_outputs
from backend.cross_core import fresh_at_launch
from backend.interpreter import ArrayValue, KernelRunner, Value, all_poison, interpret
from backend.sim.executor import run_kernel, run_pto
from backend.targets.handlers import BackendHandler, get_backend
from languages.decls import VALUE_LEVEL
from languages.gen import pto as P
from languages.functions import entry_function, returned_param_indices
from languages.ops.system_ops import Launch
from languages.types import TensorType, Type
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.instruments import Instrument, KeepLastBeforeFinal, VerifyInstrument
from nanopass.node import Node
from nanopass.passes import PassContext
from nanopass.pipeline import Pipeline
from nanopass.plugin import get_plugin

Array = npt.NDArray[Any]
RULE = "simulate"

__all__ = [
    "Compiled",
    "OutputReport",
    "compare",
    "compare_output",
    "compare_valid",
    "compile_program",
    "load_inputs",
    "random_inputs",
    "reference",
    "run",
    "save",
    "user_outputs",
]


def _error(message: str, hint: str = "") -> CompileError:
    return CompileError(Diagnostic(RULE, message, hint=hint))


def is_value_level(program: Node) -> bool:
    return type(program).LANGUAGE in VALUE_LEVEL


# -- compile -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Compiled:
    """A compiled program and what running it needs.

    `final` is the pipeline's last program (PTO, or a value-level program when the pipeline stops
    early); `host` is the last value-level program, whose orchestration function launches the
    kernels; `source` is the program as parsed, which the reference interpreter runs."""

    source: Node
    final: Node
    host: Node | None
    handler: BackendHandler
    context: PassContext | None = field(default=None, compare=False)
    # The function a run starts in, by name (None: the program's own entry, see entry_function).
    entry_name: str | None = None

    @property
    def entry(self) -> Node:
        """The source's entry function: its parameters name the inputs and outputs."""
        return entry_function(self.source, self.entry_name)

    def starting_at(self, entry: str | None) -> Compiled:
        """The same compile, run from the function named `entry`."""
        return replace(self, entry_name=entry)

    def shipping(self, final: Node) -> Compiled:
        """The same compile with `final` replaced (e.g. by its PTO text parsed back)."""
        return replace(self, final=final)


def default_pipeline(source: Node, backend: str, memory_planner: str = "pypto") -> Pipeline:
    """The plugin's default pipeline for `backend` built for `memory_planner`, from where
    `source`'s language begins."""
    plugin = get_plugin()
    variant = "" if memory_planner == "pypto" else memory_planner
    if variant and variant not in plugin.pipeline_variants:
        known = ", ".join(["pypto", *plugin.pipeline_variants])
        raise ValueError(f"unknown memory planner {memory_planner!r}; known: {known}")
    spec = plugin.default_pipeline(backend, variant)
    return Pipeline.from_spec(spec, plugin).starting_at(type(source).LANGUAGE)


def compile_program(source: Node, *, pipeline: str | Pipeline | None = None, backend: str | None = None,
                    verify_all: bool = False, instruments: Sequence[Instrument] = (),
                    memory_planner: str = "pypto") -> Compiled:
    """Compile `source` through `pipeline` (default: the default pipeline built for
    `memory_planner`, from the source's language on) for `backend`, keeping the host program
    for `run`."""
    plugin = get_plugin()
    backend_name = backend or plugin.default_backend
    handler = get_backend(backend_name)
    if pipeline is None:
        chosen = default_pipeline(source, backend_name, memory_planner)
    elif isinstance(pipeline, str):
        chosen = Pipeline.from_spec(pipeline, plugin)
    else:
        chosen = pipeline
    ctx = PassContext(backend_name, plugin.make_backend(backend_name))
    kept: dict[str, Any] = {}
    keep_host = KeepLastBeforeFinal(plugin.family.languages[-1].name, kept, "host")
    verify: list[Instrument] = [VerifyInstrument(plugin, target=handler)] if verify_all else []
    final = chosen.run(source, ctx, [*verify, *instruments, keep_host])
    host = final if is_value_level(final) else kept.get("host")
    return Compiled(source, final, host if isinstance(host, Node) else None, handler, ctx)


# -- run -----------------------------------------------------------------------------------------------




def gm_window(data: Array) -> npt.NDArray[np.uint8] | None:
    """The caller's bytes of a window of a wider GM tensor (a tensor.window: a NumPy view into
    the wider tensor's row-major buffer), from the window's first element through its last, at
    the view's offset and strides; None when `data` is a buffer of its own (or not a view of a
    row-major one, which is then handed over as a copy)."""
    root = data
    while isinstance(root.base, np.ndarray):
        root = root.base
    if root is data or not root.flags.c_contiguous or data.size == 0:
        return None
    item = data.itemsize
    offset = data.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    if offset == 0 and data.flags.c_contiguous and data.nbytes == root.nbytes:
        return None  # the whole buffer (a reshaped view of it)
    reach = sum((d - 1) * (st // item) for d, st in zip(data.shape, data.strides))
    flat = root.reshape(-1).view(np.uint8)
    return flat[offset:offset + (reach + 1) * item]


def _in_place(data: Array, ty: object) -> npt.NDArray[np.uint8] | None:
    """The caller's bytes of an InOut tensor argument, which the kernel reads and writes in place
    (GM is one memory: the cube and the vector kernel of a Group launch run concurrently on the
    same tensors, and a store one makes is seen by the other's later load, not when the storing
    kernel ends); None when the array is not a packed buffer of the parameter's bytes (it is
    then copied in and written back)."""
    if not isinstance(ty, TensorType) or not data.flags.c_contiguous or not data.flags.writeable:
        return None
    count = int(np.prod(ty.shape, dtype=np.int64)) if ty.shape else 1
    if data.nbytes != count * ty.dtype.byte_width:
        return None
    return data.reshape(-1).view(np.uint8)
# Which parameters a kernel returns: a fact of the (immutable) function, asked per call and
# kept across runs (each run makes its kernel runner); the entry keeps the function alive.
_RETURNED: dict[int, tuple[Node, tuple[int, ...]]] = {}
_RETURNED_CAPACITY = 256


def simulator_kernel_runner(pto_program: Node, handler: BackendHandler, checked: bool = True) -> KernelRunner:
    """Runs a kernel call of the host program on the PTO kernel of the same name.

    Tensor arguments are the caller's buffers: their current contents go in (a fresh, never
    written buffer stays unwritten, so checked mode still catches a kernel reading it), and
    Out / InOut results are written back in place.  The call's values are the parameters whose
    buffers the host-level kernel returns.
    """
    kernels = {str(getattr(f, "name")): f for f in getattr(pto_program, "functions")}
    returned = _RETURNED

    def returned_indices(function: Node) -> tuple[int, ...]:
        hit = returned.get(id(function))
        if hit is None or hit[0] is not function:
            if len(returned) >= _RETURNED_CAPACITY:
                returned.clear()
            hit = returned[id(function)] = (function, tuple(returned_param_indices(function)))
        return hit[1]

    def run_one(function: Node, args: Sequence[Value], launch: Launch) -> tuple[Value, ...]:
        name = str(getattr(function, "name"))
        if name not in kernels:
            raise _error(f"the compiled program has no kernel {name!r} (kernels: {', '.join(kernels)})")
        directions = [str(p.direction) for p in getattr(function, "params")]
        # PTO names its kernel arguments %arg0, %arg1, ...: parameters correspond by position.
        pto_names = [str(getattr(p.var, "name")) for p in getattr(kernels[name], "params")]
        if len(pto_names) != len(directions):
            raise _error(f"kernel {name} takes {len(directions)} parameters in the value-level program "
                         f"but {len(pto_names)} in the compiled one")
        inputs: dict[str, object] = {}
        fresh: dict[str, Array] = {}  # never-written Out buffers: the kernel writes into them
        # Out buffers holding an earlier value: a kernel reading it reads undefined memory (an
        # Out parameter is the kernel's to write), so its bytes count as unwritten (only an
        # atomic store accumulates into them), and only the elements the kernel writes replace
        # the caller's (a partial write keeps the rest of the earlier value).
        priors: dict[str, Array] = {}
        # Windows of wider tensors: the kernel gets the caller's memory at the window's offset and
        # addresses it at its own tensor view's strides (those of the wider tensor).
        windows: dict[str, tuple[npt.NDArray[np.uint8], bool]] = {}
        pto_params = list(getattr(kernels[name], "params"))
        for param, direction, arg, pto_param in zip(pto_names, directions, args, pto_params):
            window = gm_window(arg.data) if isinstance(arg, ArrayValue) else None
            # An Out tensor of the launch this kernel does not write (the other kernel of its
            # Group does; this one returns it, or reads what the other stored) holds the values
            # the other kernel leaves there, like an InOut one.
            passed = direction == "Out" and str(getattr(pto_param, "direction")) != "Out" \
                and isinstance(arg, ArrayValue) and fresh_at_launch(arg.data)
            if window is None and isinstance(arg, ArrayValue) and (direction == "InOut" or passed):
                window = _in_place(arg.data, getattr(pto_param.var, "type"))
                if window is not None:
                    windows[param] = (window, True)
                    continue
            if window is not None:
                windows[param] = (window, direction != "Out")
            elif isinstance(arg, ArrayValue):
                if direction != "Out":
                    inputs[param] = arg.data
                elif all_poison(arg.data):
                    fresh[param] = arg.data
                else:
                    priors[param] = arg.data
            elif arg is not None and not isinstance(arg, tuple):
                inputs[param] = arg
        written: dict[str, npt.NDArray[np.bool_]] = {}  # asked for only where a prior value is merged
        outputs = run_kernel(kernels[name], inputs, handler, checked, out_buffers=fresh, launch=launch,
                             written=written if priors else None, priors=priors, windows=windows)
        for param, direction, arg in zip(pto_names, directions, args):
            if direction in ("Out", "InOut") and isinstance(arg, ArrayValue) and param in outputs:
                result = np.asarray(outputs[param])
                if result is arg.data or np.shares_memory(result, arg.data):
                    continue  # the kernel wrote the caller's buffer itself
                result = result if result.dtype == arg.data.dtype else result.view(arg.data.dtype)
                if param in priors:
                    mask = written[param]
                    arg.data[mask] = result[mask]
                else:
                    arg.data[...] = result
        return tuple(args[i] for i in returned_indices(function))

    return run_one


def run_final(final: Node, host: Node | None, inputs: Mapping[str, object], handler: BackendHandler,
              checked: bool = True, entry: str | None = None) -> dict[str, Array]:
    """Every output of a compiled program: simulated if `final` is PTO (its orchestration taken
    from `host`, the last value-level program), else `final` interpreted."""
    if is_value_level(final):
        return interpret(final, inputs, entry)
    if host is None:
        # A PTO program given as such (a .pto file) is its own host: it runs its one kernel, or
        # the one named `entry`, on inputs keyed by the kernel's parameter names.
        assert isinstance(final, P.Program)
        return run_pto(final, inputs, handler, checked, kernel=entry)
    return interpret(host, inputs, entry, kernel_runner=simulator_kernel_runner(final, handler, checked))


def user_outputs(outputs: Mapping[str, Array], source_entry: Node) -> dict[str, Array]:
    """Outputs named as the user sees them: returned values and the source entry's parameters
    (an `ret0_out` parameter the compiler added to a kernel entry is not one of them)."""
    params = {str(getattr(p.var, "name")) for p in getattr(source_entry, "params")}
    return {k: v for k, v in outputs.items() if (k.startswith("ret") and k[3:].isdigit()) or k in params}


def run(compiled: Compiled, inputs: Mapping[str, object], *, checked: bool = True) -> dict[str, Array]:
    """The compiled program's outputs on `inputs`, named as the user sees them. `checked` reports
    simulator reads of never-written memory."""
    return user_outputs(run_final(compiled.final, compiled.host, inputs, compiled.handler, checked,
                                  compiled.entry_name), compiled.entry)


def reference(program: Node, inputs: Mapping[str, object], entry: str | None = None) -> dict[str, Array]:
    """The reference interpreter's outputs of `program` (the source as written) on `inputs`, run
    from `entry` (default: the program's entry function)."""
    return interpret(program, inputs, entry)


# -- compare -----------------------------------------------------------------------------------------


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


def describe_array(array: Array) -> str:
    return f"{list(array.shape)} {_dtype_name(array)}"


def compare_output(name: str, expected: Array, got: Array) -> OutputReport:
    """Bit comparison of one output; on a mismatch, the first differing element in hex."""
    ref, out = np.asarray(expected), np.asarray(got)
    shape = describe_array(ref)
    if ref.shape != out.shape or ref.dtype.itemsize != out.dtype.itemsize:
        return OutputReport(name, False, f"{name}: MISMATCH: interpreter gives {shape}, "
                                         f"compiled program gives {describe_array(out)}")
    differ = numerics.to_bits(ref) != numerics.to_bits(out)
    if not np.any(differ):
        return OutputReport(name, True, f"{name}: bit-exact ({shape})")
    first = tuple(int(i) for i in np.argwhere(differ)[0])
    return OutputReport(name, False,
                        f"{name}: MISMATCH at {list(first)}: compiled {_hex(out, first)}, interpreter "
                        f"{_hex(ref, first)} ({int(np.count_nonzero(differ))} of {differ.size} elements differ)")


def compare(expected: Mapping[str, Array], got: Mapping[str, Array]) -> list[OutputReport]:
    """One report per expected output, bit for bit over whole arrays."""
    reports: list[OutputReport] = []
    for name in expected:
        if name not in got:
            reports.append(OutputReport(name, False, f"{name}: MISMATCH: the compiled program has no output {name!r}"))
        else:
            reports.append(compare_output(name, expected[name], got[name]))
    return reports


def _output_types(source: Node, entry_name: str | None = None) -> dict[str, Type]:
    """Declared type of every user-visible output: `ret<i>` and the entry's parameters."""
    entry: Any = entry_function(source, entry_name)
    types: dict[str, Type] = {f"ret{i}": ty for i, ty in enumerate(entry.return_types)}
    types.update({p.var.name: p.var.type for p in entry.params})
    return types


def _valid_region(array: Array, ty: Type | None) -> Array:
    if isinstance(ty, TensorType) and ty.valid_shape is not None and array.ndim == len(ty.valid_shape):
        return array[tuple(slice(0, v) for v in ty.valid_shape)]
    return array


def compare_valid(source: Node, expected: Mapping[str, Array], got: Mapping[str, Array],
                  entry_name: str | None = None) -> list[OutputReport]:
    """Bit comparison of each output's valid region: elements outside a tensor's valid_shape
    are undefined (a store writes only the valid region)."""
    types = _output_types(source, entry_name)
    return compare({k: _valid_region(v, types.get(k)) for k, v in expected.items()},
                   {k: _valid_region(v, types.get(k)) for k, v in got.items()})


# -- save --------------------------------------------------------------------------------------------


def save(path: Path | str, outputs: Mapping[str, Array]) -> None:
    """Write outputs (`ret0`, ..., Out / InOut parameter names) to an npz file (bf16 / fp8 as
    their bit patterns)."""
    save_outputs(path, outputs)
