"""Host arrays for a program's parameters: NumPy dtypes, input coercion, poison and random inputs,
`.npz` files.

NumPy's npz format cannot name bf16 or fp8: `np.savez` writes such arrays as 2- or 1-byte
*void* arrays, and users usually hand them over as unsigned bit patterns.  So an array whose
dtype differs from its parameter's but has the same item size and is void or unsigned is taken
as the parameter dtype's bit patterns, and outputs of those dtypes are written back as
uint16 / uint8 bit patterns.  Any other array must convert to the parameter dtype exactly
(e.g. an int64 array of int8-range values); anything lossy is rejected with a message naming
the parameter, never silently rounded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final, Mapping, Sequence, Union

import numpy as np
import numpy.typing as npt

from backend import numerics
from languages.functions import entry_function
from languages.types import DataType, ScalarType, TensorType, Type
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.node import Node

Array = npt.NDArray[Any]
Scalar = Union[int, float, bool]

RULE = "inputs"

# Dtypes NumPy cannot name in an npz file: stored as their unsigned bit patterns.
BIT_PATTERN_DTYPES = frozenset({DataType.BF16, DataType.FP8E4M3FN, DataType.FP8E5M2})


def io_error(message: str, hint: str = "") -> CompileError:
    return CompileError(Diagnostic(RULE, message, hint=hint))


def np_dtype_of(dtype: DataType) -> np.dtype[Any]:
    try:
        return numerics.np_dtype(dtype.name)
    except numerics.NumericsError:
        raise io_error(f"dtype {dtype.name} has no NumPy representation in this simulator") from None


def _describe(array: Array) -> str:
    return f"{array.dtype} array of shape {list(array.shape)}"


def _exact_conversion(array: Array, dtype: np.dtype[Any]) -> Array | None:
    """`array` converted to `dtype` if every value survives the round trip bit for bit."""
    if array.dtype.kind not in "biuf" or dtype.kind not in "biufV":
        return None
    with np.errstate(all="ignore"):
        converted = array.astype(dtype)
        back = converted.astype(array.dtype)
    same = np.array_equal(back, array, equal_nan=array.dtype.kind == "f")
    if array.dtype.kind == "f":
        # -0.0 == 0.0 numerically; the sign bit must survive too.
        same = same and bool(np.array_equal(np.signbit(back), np.signbit(array)))
    return converted if same else None


def coerce_tensor(name: str, value: object, ty: TensorType) -> Array:
    """The array for tensor parameter `name` in the parameter's own dtype (a fresh copy)."""
    array = np.asarray(value)
    expected = np_dtype_of(ty.dtype)
    if tuple(array.shape) != tuple(ty.shape):
        raise io_error(f"input {name!r}: expected shape {list(ty.shape)} ({ty.dtype.name}), got {_describe(array)}")
    if array.dtype == expected:
        return array.copy()
    if array.dtype.itemsize == expected.itemsize and array.dtype.kind in "Vu":
        return np.ascontiguousarray(array).view(expected).copy()
    converted = _exact_conversion(array, expected)
    if converted is None:
        width = expected.itemsize
        hint = (f"store {ty.dtype.name} values as uint{8 * width} bit patterns"
                if ty.dtype in BIT_PATTERN_DTYPES else f"store it as {expected} (values must convert exactly)")
        raise io_error(f"input {name!r}: expected {ty.dtype.name} values, got {_describe(array)} "
                       f"that does not convert to {ty.dtype.name} exactly", hint)
    return converted


def coerce_scalar(name: str, value: object, ty: ScalarType) -> Scalar:
    array = np.asarray(value)
    if array.size != 1:
        raise io_error(f"input {name!r}: expected one {ty.dtype.name} scalar, got {_describe(array)}")
    item = array.reshape(()).item()
    if ty.dtype is DataType.BOOL:
        return bool(item)
    if ty.dtype.is_float:
        rounded = numerics.round_float64(np.asarray(float(item), dtype=np.float64), ty.dtype.name, "rint")
        return float(numerics.widen_to_float64(rounded, ty.dtype.name))
    if isinstance(item, float) and not item.is_integer():
        raise io_error(f"input {name!r}: expected an integer ({ty.dtype.name}), got {item!r}")
    return int(item)


def coerce_input(name: str, value: object, ty: Type) -> Array | Scalar:
    if isinstance(ty, TensorType):
        return coerce_tensor(name, value, ty)
    if isinstance(ty, ScalarType):
        return coerce_scalar(name, value, ty)
    raise io_error(f"parameter {name!r} has type {type(ty).__name__}, which cannot be given as an input")


def _param_fields(param: Node) -> tuple[str, Type, str]:
    var = getattr(param, "var")
    return str(getattr(var, "name")), getattr(var, "type"), str(getattr(param, "direction"))


def check_input_names(function: Node, given: Sequence[str], source: str) -> None:
    """Every In / InOut parameter present, nothing unknown (Out parameters are optional)."""
    params = [_param_fields(p) for p in getattr(function, "params")]
    names = [name for name, _, _ in params]
    required = [name for name, _, direction in params if direction != "Out"]
    missing = [name for name in required if name not in given]
    extra = sorted(set(given) - set(names))
    problems: list[str] = []
    if missing:
        problems.append(f"missing {', '.join(repr(n) for n in missing)}")
    if extra:
        problems.append(f"unexpected {', '.join(repr(n) for n in extra)}")
    if problems:
        fn_name = getattr(function, "name")
        raise io_error(f"{source}: {'; '.join(problems)} (the keys must be the parameters of {fn_name}: "
                       f"{', '.join(names)})", hint="npz keys = entry-function parameter names")


def load_inputs(path: Path | str, function: Node) -> dict[str, Array | Scalar]:
    """Read `path` (.npz) as the inputs of entry function `function`, keyed by parameter name."""
    try:
        with np.load(path, allow_pickle=False) as archive:
            raw = {key: archive[key] for key in archive.files}
    except (OSError, ValueError) as exc:
        raise io_error(f"cannot read inputs from {path}: {exc}") from None
    check_input_names(function, list(raw), str(path))
    out: dict[str, Array | Scalar] = {}
    for param in getattr(function, "params"):
        name, ty, _ = _param_fields(param)
        if name in raw:
            out[name] = coerce_input(name, raw[name], ty)
    return out


def storable(array: Array) -> Array:
    """`array` as npz can hold it: bf16 / fp8 become unsigned bit patterns."""
    arr = np.asarray(array)
    if arr.dtype.kind == "V" or arr.dtype in {np_dtype_of(d) for d in BIT_PATTERN_DTYPES}:
        return numerics.to_bits(arr).copy()
    return arr


def save_outputs(path: Path | str, outputs: Mapping[str, Array]) -> None:
    """Write outputs (``ret0``, ..., Out / InOut parameter names) to an npz file."""
    # Typed Any: NumPy's stub would otherwise match the keyword names against `allow_pickle`.
    arrays: dict[str, Any] = {name: storable(value) for name, value in outputs.items()}
    try:
        np.savez(path, **arrays)
    except OSError as exc:
        raise io_error(f"cannot write outputs to {path}: {exc.strerror}") from None


# -- poison and random inputs ----------------------------------------------------------------------


def poison_array(shape: Sequence[int], dtype: DataType) -> Array:
    """A buffer of the 0xFF poison pattern (a NaN in every float format)."""
    dt = np_dtype_of(dtype)
    count = int(np.prod(tuple(shape), dtype=np.int64))
    return np.full(count * dt.itemsize, numerics.POISON_BYTE, dtype=np.uint8).view(dt).reshape(tuple(shape))



# Float inputs mix four populations, so that a run exercises the rounding rules without
# driving any op into a result the rules leave implementation-defined:
#   short significands (k * 2**e, |k| <= 64): sums and products land exactly on ties;
#   full-precision values of moderate magnitude: every rounding is inexact;
#   specials: +0.0, -0.0, +-1 and the format's smallest subnormals;
#   a few larger magnitudes (2**6 .. 2**10) that still keep FP16 products finite in FP32.
_FLOAT_POPULATIONS: Final = (0.35, 0.45, 0.1, 0.1)


def _random_floats(rng: np.random.Generator, shape: tuple[int, ...], dtype: DataType) -> Array:
    count = int(np.prod(shape, dtype=np.int64))
    fmt = numerics.float_format(dtype.name)
    smallest_subnormal = 2.0 ** (fmt.min_normal_exponent - fmt.mantissa_bits)
    short = rng.integers(-64, 65, count) * np.exp2(rng.integers(-6, 1, count).astype(np.float64))
    full = rng.standard_normal(count) * np.exp2(rng.integers(-3, 3, count).astype(np.float64))
    specials = rng.choice(np.array([0.0, -0.0, 1.0, -1.0, smallest_subnormal, -3 * smallest_subnormal]), count)
    large = rng.uniform(-1.0, 1.0, count) * np.exp2(rng.integers(6, 11, count).astype(np.float64))
    which = rng.choice(len(_FLOAT_POPULATIONS), count, p=_FLOAT_POPULATIONS)
    values = np.choose(which, [short, full, specials, large])
    return numerics.round_float64(values, dtype.name, "rint").reshape(shape)


def _random_ints(rng: np.random.Generator, shape: tuple[int, ...], dtype: DataType) -> Array:
    np_dtype = np_dtype_of(dtype)
    if dtype is DataType.BOOL:
        return rng.integers(0, 2, shape).astype(np.bool_)
    info = np.iinfo(np_dtype)
    # Integer arithmetic wraps (defined), so narrow types take their whole range; wide ones a
    # modest range keeps index-like values meaningful.
    low, high = (int(info.min), int(info.max)) if info.bits <= 8 else (max(int(info.min), -(1 << 15)), (1 << 15) - 1)
    return rng.integers(low, high + 1, shape, dtype=np.int64).astype(np_dtype)


def random_array(rng: np.random.Generator, ty: TensorType) -> Array:
    shape = tuple(ty.shape)
    return _random_floats(rng, shape, ty.dtype) if ty.dtype.is_float else _random_ints(rng, shape, ty.dtype)


def random_inputs(program: Node, seed: int, entry: str | None = None) -> dict[str, np.ndarray[Any, Any]]:
    """Deterministic random inputs for the entry function's In / InOut parameters."""
    rng = np.random.default_rng(seed)
    inputs: dict[str, np.ndarray[Any, Any]] = {}
    for param in getattr(entry_function(program, entry), "params"):
        name, ty, direction = _param_fields(param)
        if direction == "Out":
            continue
        if isinstance(ty, TensorType):
            inputs[name] = random_array(rng, ty)
        elif isinstance(ty, ScalarType):
            # Scalars are usually extents or loop bounds: small positive values.
            value = int(rng.integers(1, 5))
            inputs[name] = np.asarray(coerce_scalar(name, value, ty))
        else:
            raise io_error(f"cannot generate an input for parameter {name} of type {type(ty).__name__}")
    return inputs


__all__ = [
    "BIT_PATTERN_DTYPES",
    "poison_array",
    "random_array",
    "random_inputs",
    "check_input_names",
    "coerce_input",
    "coerce_scalar",
    "coerce_tensor",
    "load_inputs",
    "save_outputs",
    "storable",
]
