"""`@pl.jit` kernels called from Python (JIT_FRONTEND.md §1): specialize on the call's arrays,
compile with the default pipeline (cached), run on the simulator, write the outputs back.

    @pl.jit
    def tile_add(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.add(pl.load(a, [0, 0], [128, 128]), pl.load(b, [0, 0], [128, 128])), [0, 0], c)
        return c

    tile_add(a, b, c)          # NumPy arrays (or torch tensors): c now holds a + b

The body is never run as Python: the source file is read with `inspect` and `ast`
(`languages.pl_jit`). Arrays may be NumPy arrays (bf16 / fp8 as `ml_dtypes` arrays) or torch
tensors; Python int / float / bool arguments are specialization constants. `Out` / `InOut`
arguments are written in place; an entry without such parameters returns what it returns.

The cache key is PyPTO's (§1.8): a hash of the source, the platform, and per parameter its
name, shape and dtype (specialized scalars: name and value). This compiler specializes
`pl.dynamic` dimensions at call time too, so their extent is part of the key (PyPTO keys them
as None and keeps them symbolic).
"""

from __future__ import annotations

from typing_extensions import override

import functools
import hashlib
import inspect
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from backend import numerics
from languages.pl_jit import Binding, Constant, jit_functions, parse_jit
from languages.types import DataType, TensorType
from nanopass.diagnostics import CompileError

PLATFORMS = {"a2a3sim": "Ascend910B", "a2a3": "Ascend910B", "a5sim": "Ascend950", "a5": "Ascend950"}
_VERSION = "nanopass-pto-jit-1"


# -- arrays ------------------------------------------------------------------------------------------


def _is_torch(value: object) -> bool:
    return type(value).__module__.split(".")[0] == "torch" and hasattr(value, "detach")


def _as_numpy(value: object) -> np.ndarray[Any, Any] | None:
    """A NumPy view of an array argument (torch tensors through their CPU copy), else None."""
    if isinstance(value, np.ndarray):
        return value
    if _is_torch(value):
        tensor: Any = value
        name = str(tensor.dtype).removeprefix("torch.")
        if name == "bfloat16":
            import ml_dtypes

            bits: np.ndarray[Any, Any] = np.asarray(tensor.detach().cpu().view(__import__("torch").int16).numpy())
            as_bf16: np.ndarray[Any, Any] = bits.view(ml_dtypes.bfloat16)
            return as_bf16
        converted: np.ndarray[Any, Any] = np.asarray(tensor.detach().cpu().numpy())
        return converted
    return None


def _dtype_of(array: np.ndarray[Any, Any], name: str, function: str) -> DataType:
    try:
        return DataType.parse(numerics.dtype_name_of(array))
    except (numerics.NumericsError, KeyError):
        raise TypeError(f"@pl.jit function {function!r}: parameter {name!r} has unsupported dtype {array.dtype}") from None


def _write_back(target: object, result: np.ndarray[Any, Any]) -> None:
    if isinstance(target, np.ndarray):
        target[...] = result if result.dtype == target.dtype else result.view(target.dtype)
        return
    torch: Any = __import__("torch")
    tensor: Any = target
    source = torch.from_numpy(np.ascontiguousarray(result.view(np.int16) if result.dtype.name == "bfloat16" else result))
    if str(tensor.dtype) == "torch.bfloat16":
        source = source.view(torch.bfloat16)
    tensor.copy_(source.to(tensor.device))


# -- the decorator ----------------------------------------------------------------------------------


@dataclass
class RunConfig:
    """PyPTO's run configuration, the fields that mean something here (`platform`)."""

    platform: str = "a2a3sim"
    device_id: int = 0
    rtol: float = 1e-5
    atol: float = 1e-5
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.platform not in PLATFORMS:
            raise ValueError(f"Invalid platform {self.platform!r}. Expected 'a2a3sim', 'a2a3', 'a5sim', or 'a5'.")

    @property
    def backend(self) -> str:
        return PLATFORMS[self.platform]


class JITFunction:
    """A `@pl.jit*` function. Calling an entry (`@pl.jit`) compiles and runs it; a dependency
    (`@pl.jit.incore`, `.inline`, `.opaque`) is compiled as part of the entries that call it."""

    def __init__(self, func: Callable[..., Any], func_type: str, options: Mapping[str, Any] | None = None) -> None:
        functools.update_wrapper(self, func)
        self.func = func
        self.func_type = func_type
        self.options = dict(options or {})
        self._cache: dict[tuple[Any, ...], Any] = {}

    @override
    def __repr__(self) -> str:
        return f"<@pl.jit {self.func_type} function {self.func.__name__}>"

    # -- source ---------------------------------------------------------------------------------

    def source(self) -> tuple[str, str]:
        path = inspect.getsourcefile(self.func)
        if path is None or not Path(path).is_file():
            raise OSError(f"@pl.jit cannot retrieve source code for {self.func.__name__!r}: define it in a file "
                          "(not in a REPL or a notebook cell)")
        return Path(path).read_text(encoding="utf-8"), path

    def constants(self) -> dict[str, Constant]:
        """The module's int / float / bool globals, which the specializer inlines."""
        return {name: value for name, value in self.func.__globals__.items()
                if type(value) in (int, float, bool) and not name.startswith("__")}

    # -- binding a call ----------------------------------------------------------------------------

    def bind(self, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> tuple[Binding, dict[str, object], dict[str, Any]]:
        """(what to specialize on, the run's inputs by parameter name, the caller's arrays)."""
        name = self.func.__name__
        try:
            bound = inspect.signature(self.func).bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"@pl.jit function {name!r}: {exc}") from None
        bound.apply_defaults()
        tensors: dict[str, TensorType] = {}
        scalars: dict[str, Constant] = {}
        inputs: dict[str, object] = {}
        arrays: dict[str, Any] = {}
        for param, value in bound.arguments.items():
            array = _as_numpy(value)
            if array is not None:
                tensors[param] = TensorType(tuple(int(d) for d in array.shape), _dtype_of(array, param, name))
                inputs[param] = array
                arrays[param] = value
            elif type(value) in (int, float, bool):
                scalars[param] = value
                inputs[param] = value
            else:
                raise TypeError(f"@pl.jit function {name!r}: parameter {param!r} got {type(value).__name__}; pass a "
                                "NumPy array, a torch tensor or a Python int / float / bool")
        return Binding(tensors, scalars), inputs, arrays

    def cache_key(self, text: str, binding: Binding, config: RunConfig | None) -> tuple[Any, ...]:
        digest = hashlib.sha256((_VERSION + "\0" + text).encode()).hexdigest()[:16]
        return (digest, config.platform if config is not None else None, None,
                tuple((n, t.shape, t.dtype.name) for n, t in binding.tensors.items()),
                tuple(sorted(binding.scalars.items())))

    # -- compile and run ------------------------------------------------------------------------------

    def specialize(self, *args: Any, **kwargs: Any) -> Any:
        """The DSL program of this call (the `@pl.program` PyPTO's specializer would write)."""
        binding, _, _ = self.bind(args, kwargs)
        text, path = self.source()
        return parse_jit(text, path, self.func.__name__, binding, self.constants())

    def compile(self, *args: Any, config: RunConfig | None = None, **kwargs: Any) -> Any:
        """The compiled program for this call's shapes (`nanopass_pto.run.Compiled`), cached."""
        binding, _, _ = self.bind(args, kwargs)
        return self._compiled(binding, config)

    def _compiled(self, binding: Binding, config: RunConfig | None) -> Any:
        from nanopass_pto.run import compile_program

        self._require_entry()
        text, path = self.source()
        key = self.cache_key(text, binding, config)
        if key not in self._cache:
            program = parse_jit(text, path, self.func.__name__, binding, self.constants())
            self._cache[key] = compile_program(program, backend=config.backend if config is not None else None)
        return self._cache[key]

    def lower(self, *args: Any, config: RunConfig | None = None, **kwargs: Any) -> Any:
        """The program after the pass pipeline (PTO kernels)."""
        return self.compile(*args, config=config, **kwargs).final

    def _require_entry(self) -> None:
        if self.func_type != "Orchestration":
            raise TypeError(f"{self.func.__name__!r} is a @pl.jit.{self.func_type.lower()} dependency: call it from "
                            "a @pl.jit function, which compiles it")

    def __call__(self, *args: Any, config: RunConfig | None = None, **kwargs: Any) -> Any:
        from nanopass_pto.run import run

        self._require_entry()
        binding, inputs, arrays = self.bind(args, kwargs)
        compiled = self._compiled(binding, config)
        outputs = run(compiled, inputs)
        written = False
        for param in getattr(compiled.entry, "params"):
            name = param.var.name
            if param.direction in ("Out", "InOut") and name in arrays and name in outputs:
                _write_back(arrays[name], np.asarray(outputs[name]))
                written = True
        if written:
            return None
        results = [outputs[k] for k in sorted(outputs, key=lambda k: int(k[3:])) if k.startswith("ret")]
        if not results:
            return None
        return results[0] if len(results) == 1 else tuple(results)


class _JITDecorator:
    """`pl.jit`: `@pl.jit`, `@pl.jit(auto_scope=False)`, and `.incore`, `.inline`, `.opaque`."""

    def __call__(self, func: Callable[..., Any] | None = None, *, auto_scope: bool = True) -> Any:
        if func is None:
            return lambda f: JITFunction(f, "Orchestration", {"auto_scope": auto_scope})
        return JITFunction(func, "Orchestration")

    def incore(self, func: Callable[..., Any] | None = None, *, level: Any = None) -> Any:
        if func is None:
            return lambda f: JITFunction(f, "InCore", {"level": level})
        return JITFunction(func, "InCore")

    def inline(self, func: Callable[..., Any] | None = None, *, auto_scope: bool = True) -> Any:
        if func is None:
            return lambda f: JITFunction(f, "Inline", {"auto_scope": auto_scope})
        return JITFunction(func, "Inline")

    def opaque(self, func: Callable[..., Any]) -> JITFunction:
        return JITFunction(func, "Opaque")

    def host(self, func: Callable[..., Any] | None = None, **options: Any) -> Any:
        raise NotImplementedError("not supported yet: @pl.jit.host (host orchestrators)")

    def extern(self, *args: Any, **options: Any) -> Any:
        raise NotImplementedError("not supported yet: @pl.jit.extern (external C++ kernels)")


jit = _JITDecorator()


# -- @pl.function / @pl.program in imported modules ------------------------------------------------------


class ProgramFunction:
    """A `@pl.function`-decorated Python function: only the compiler reads it."""

    def __init__(self, func: Callable[..., Any], options: Mapping[str, Any]) -> None:
        functools.update_wrapper(self, func)
        self.func = func
        self.options = dict(options)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"{self.func.__name__!r} is a pl.function: it is compiled as part of a program, never "
                           "called as Python")


def program_of(cls: type) -> Any:
    """The IR program of a `@pl.program` class, parsed from its module's source file."""
    from languages.pl_parser import parse_program

    path = inspect.getsourcefile(cls)
    if path is None:
        raise OSError(f"@pl.program cannot retrieve source code for {cls.__name__!r}")
    text = Path(path).read_text(encoding="utf-8")
    return parse_program(text, path, program=cls.__name__)


__all__ = ["JITFunction", "ProgramFunction", "RunConfig", "jit", "jit_functions", "program_of", "CompileError"]
