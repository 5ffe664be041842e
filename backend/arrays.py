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

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final, Mapping, Sequence, Union

import numpy as np
import numpy.typing as npt

from backend import numerics
from backend.buffers import POOL
from languages.functions import entry_function
from languages.layout import flat_index_pitch
from languages.ops import REGISTRY, IndexDomain, static_ints, window_extent, window_offsets
from languages.types import DataType, ScalarType, TensorType, TileType, Type
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.node import Node, walk

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


def coerce_tensor(name: str, value: object, ty: TensorType | TileType) -> Array:
    """The array for tensor (or tile) parameter `name` in the parameter's own dtype (a fresh
    copy, in a pooled buffer: see backend/buffers.py). A tile parameter's array is the tile's
    whole physical contents, row-major."""
    array = np.asarray(value)
    expected = np_dtype_of(ty.dtype)
    if tuple(array.shape) != tuple(ty.shape):
        raise io_error(f"input {name!r}: expected shape {list(ty.shape)} ({ty.dtype.name}), got {_describe(array)}")
    if array.dtype == expected:
        return POOL.copy_of(array)
    if array.dtype.itemsize == expected.itemsize and array.dtype.kind in "Vu":
        return POOL.copy_of(np.ascontiguousarray(array).view(expected))
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
    if isinstance(ty, (TensorType, TileType)):
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


# BF16 inputs, which a target may compute in FP32 (LegalizeVecDtypes), also hold a few
# non-finite bit patterns: signalling and quiet NaNs with random payloads and signs, and +-inf.
# Whether a NaN comes out quiet or keeps its bits is where computing through FP32 can go wrong
# (tcvt quiets a NaN, a value-selecting op keeps it: a campaign found tensor.abs of a
# reinterpreted FP32's sNaN, the only way a NaN reached a BF16 op before). The other formats
# stay finite: FP32 feeds scalar reads and casts to integers, where a NaN or inf leaves the
# rules' defined range, and FP16 is computed as it is on every target.
_NON_FINITE_SHARE: Final = 0.03
_NON_FINITE_DTYPES: Final = frozenset({DataType.BF16})


def _non_finite_bits(rng: np.random.Generator, count: int, fmt: numerics.FloatFormat) -> Array:
    """`count` bit patterns of `fmt`: a third each signalling NaNs, quiet NaNs (both with random
    payloads) and infinities, of either sign."""
    quiet = 1 << (fmt.mantissa_bits - 1)
    exponent = ((1 << fmt.exponent_bits) - 1) << fmt.mantissa_bits
    sign = rng.integers(0, 2, count, dtype=np.uint64) << np.uint64(fmt.width_bits - 1)
    payload = rng.integers(1, quiet, count, dtype=np.uint64)
    kind = rng.integers(0, 3, count)
    bits = np.choose(kind, [payload, payload | np.uint64(quiet), np.zeros(count, dtype=np.uint64)])
    return np.asarray(sign | np.uint64(exponent) | bits)


def _random_floats(rng: np.random.Generator, shape: tuple[int, ...], dtype: DataType) -> Array:
    count = int(np.prod(shape, dtype=np.int64))
    fmt = numerics.float_format(dtype.name)
    smallest_subnormal = 2.0 ** (fmt.min_normal_exponent - fmt.mantissa_bits)
    short = rng.integers(-64, 65, count) * np.exp2(rng.integers(-6, 1, count).astype(np.float64))
    full = rng.standard_normal(count) * np.exp2(rng.integers(-3, 3, count).astype(np.float64))
    specials = rng.choice(np.array([0.0, -0.0, 1.0, -1.0, smallest_subnormal, -3 * smallest_subnormal]), count)
    large = rng.uniform(-1.0, 1.0, count) * np.exp2(rng.integers(6, 11, count).astype(np.float64))
    which = rng.choice(len(_FLOAT_POPULATIONS), count, p=_FLOAT_POPULATIONS)
    values = numerics.round_float64(np.choose(which, [short, full, specials, large]), dtype.name, "rint")
    if dtype in _NON_FINITE_DTYPES and fmt.has_inf:
        chosen = rng.random(count) < _NON_FINITE_SHARE
        bits = numerics.to_bits(values).astype(np.uint64)
        bits[chosen] = _non_finite_bits(rng, int(np.count_nonzero(chosen)), fmt)
        values = numerics.from_bits(bits, dtype.name)
    return values.reshape(shape)


def _random_ints(rng: np.random.Generator, shape: tuple[int, ...], dtype: DataType) -> Array:
    np_dtype = np_dtype_of(dtype)
    if dtype is DataType.BOOL:
        return rng.integers(0, 2, shape).astype(np.bool_)
    info = np.iinfo(np_dtype)
    # Integer arithmetic wraps (defined), so narrow types take their whole range; wide ones a
    # modest range keeps index-like values meaningful.
    low, high = (int(info.min), int(info.max)) if info.bits <= 8 else (max(int(info.min), -(1 << 15)), (1 << 15) - 1)
    return rng.integers(low, high + 1, shape, dtype=np.int64).astype(np_dtype)


def random_array(rng: np.random.Generator, ty: TensorType | TileType) -> Array:
    shape = tuple(ty.shape)
    return _random_floats(rng, shape, ty.dtype) if ty.dtype.is_float else _random_ints(rng, shape, ty.dtype)


def random_inputs(program: Node, seed: int, entry: str | None = None) -> dict[str, np.ndarray[Any, Any]]:
    """Deterministic random inputs for the entry function's In / InOut parameters.  A tensor
    whose values some op reads as indices (the registry's `IndexDomain`) holds indices that op
    defines, so a gather / scatter kernel simulated on random inputs computes something."""
    rng = np.random.default_rng(seed)
    function = entry_function(program, entry)
    domains, offsets = _trace_entry(program, function)  # one walk finds both
    inputs: dict[str, np.ndarray[Any, Any]] = {}
    for param in getattr(function, "params"):
        name, ty, direction = _param_fields(param)
        if direction == "Out":
            continue
        if isinstance(ty, TensorType) and name in domains and not ty.dtype.is_float:
            inputs[name] = _random_indices(rng, ty, domains[name])
        elif isinstance(ty, (TensorType, TileType)):
            # A tile parameter (a kernel fed an on-chip value, e.g. an accumulator seed) gets
            # its whole physical contents.
            inputs[name] = random_array(rng, ty)
            if isinstance(ty, TensorType) and name in offsets and not ty.dtype.is_float:
                flat = inputs[name].reshape(-1)
                for element, count in sorted(offsets[name].items()):
                    flat[element] = rng.integers(0, count)
        elif isinstance(ty, ScalarType):
            # Scalars are usually extents or loop bounds: small positive values, as an array of
            # the parameter's own integer dtype (uint32 for a pl.UINT32 scalar), so a caller
            # redrawing them (fuzz_target.signed_scalars) sees which are unsigned.
            value = int(rng.integers(1, 5))
            coerced = coerce_scalar(name, value, ty)
            inputs[name] = np.asarray(coerced, dtype=numerics.np_dtype(ty.dtype.name)) \
                if ty.dtype.is_int else np.asarray(coerced)
        else:
            raise io_error(f"cannot generate an input for parameter {name} of type {type(ty).__name__}")
    return inputs


# -- index inputs ---------------------------------------------------------------------------------

# Semantics keys whose result holds operand 0's values unchanged (indices stay indices).
_VALUE_PRESERVING: Final = frozenset({"load", "slice", "move", "reshape", "view", "set_validshape",
                                      "transpose_view", "extract"})


@dataclass(frozen=True)
class IndexBound:
    """Values in [0, count) (times `step`, the block size of a byte-offset domain); `distinct`
    per row (`per_row`) or over the whole tensor. `pitch` (cols, pitch): value k names element
    k of a [count / cols, cols] tile whose buffer rows are `pitch` apart, so it is drawn as
    (k // cols) * pitch + k % cols (IndexDomain.pitched)."""

    count: int
    step: int = 1
    distinct: bool = False
    per_row: bool = False
    pitch: tuple[int, int] | None = None

    def tighter(self, other: "IndexBound") -> "IndexBound":
        if (other.count * other.step, other.step) < (self.count * self.step, self.step):
            return replace(other, distinct=self.distinct or other.distinct, per_row=self.per_row or other.per_row)
        return replace(self, distinct=self.distinct or other.distinct, per_row=self.per_row or other.per_row)


def _bound_of(domain: IndexDomain, indexed: object) -> IndexBound | None:
    shape = getattr(indexed, "shape", None)
    dtype = getattr(indexed, "dtype", None)
    if shape is None or dtype is None or not all(isinstance(d, int) for d in shape) or not shape:
        return None
    if domain.block_bytes:
        total = int(np.prod(shape, dtype=np.int64)) * dtype.byte_width
        return IndexBound(max(total // domain.block_bytes, 1), domain.block_bytes, domain.distinct)
    if domain.axis is None:
        count = int(np.prod(shape, dtype=np.int64))
        pitch = flat_index_pitch(shape, dtype) if domain.pitched and len(shape) == 2 else shape[-1]
        return IndexBound(count, 1, domain.distinct, pitch=(int(shape[-1]), pitch) if pitch != shape[-1] else None)
    if -len(shape) <= domain.axis < len(shape):
        return IndexBound(int(shape[domain.axis]), 1, domain.distinct, per_row=domain.axis == -1)
    if domain.axis < -len(shape):
        # A leading axis the shape does not have (the rows of a rank-1 tensor: scatter_update's
        # dim -2) has extent 1: the only position is 0.
        return IndexBound(1, 1, domain.distinct)
    return None


def index_parameter_domains(program: Node, function: Node) -> dict[str, IndexBound]:
    """The entry function's parameters whose values reach an index operand (through value
    preserving ops and calls of the program's functions), with the tightest bound any reader
    puts on them."""
    return _trace_entry(program, function)[0]


def offset_element_bounds(program: Node, function: Node) -> dict[str, dict[int, int]]:
    """Elements of the entry function's integer tensors that a kernel reads as a scalar
    (`pl.read(config, [1])`) and uses as a window offset (`OpDef.window`: tile.read / write,
    load / store, slice ...): per parameter, flat element -> the count of offsets that keep the
    window inside its source (offset in [0, shape - extent]), the tightest over every use."""
    return _trace_entry(program, function)[1]


def _trace_entry(program: Node, function: Node) -> tuple[dict[str, IndexBound], dict[str, dict[int, int]]]:
    functions = {str(getattr(f, "name")): f for f in getattr(program, "functions")}
    found: dict[str, IndexBound] = {}
    elements: dict[str, dict[int, int]] = {}
    origin = {getattr(getattr(p, "var"), "name"): getattr(getattr(p, "var"), "name")
              for p in getattr(function, "params")}
    _trace_indices(function, origin, functions, found, depth=0, elements=elements, scalars={})
    return found, elements


def _element_of(call: Node, source: str | None) -> tuple[str, int] | None:
    """(parameter, flat element) when `call` reads one element of a traced tensor at constant
    indices (tensor.read / tile.read, the registry's `read` semantics)."""
    if source is None or len(getattr(call, "args")) < 2:
        return None
    ty = getattr(getattr(call, "args")[0], "type", None)
    indices = static_ints(getattr(call, "args")[1])
    shape = getattr(ty, "shape", None)
    if indices is None or shape is None or len(indices) != len(shape) or not all(isinstance(d, int) for d in shape):
        return None
    if not all(0 <= i < d for i, d in zip(indices, shape)):
        return None
    return source, int(np.ravel_multi_index(indices, tuple(int(d) for d in shape)))


def _trace_indices(function: Node, origin: dict[str, str], functions: dict[str, Node],
                   found: dict[str, IndexBound], depth: int, elements: dict[str, dict[int, int]],
                   scalars: dict[str, tuple[str, int]]) -> None:
    if depth > len(functions):
        return

    def source_of(expr: Node) -> str | None:
        if expr.KIND == "Var":
            return origin.get(str(getattr(expr, "name")))
        if expr.KIND == "Call":
            try:
                opdef = REGISTRY.get(str(getattr(expr, "op")))
            except KeyError:
                return None
            args = getattr(expr, "args")
            if opdef.semantics[:1] and opdef.semantics[0] in _VALUE_PRESERVING and args:
                return source_of(args[0])
        return None

    def visit_call(call: Node) -> None:
        try:
            opdef = REGISTRY.get(str(getattr(call, "op")))
        except KeyError:
            return
        args, attrs = getattr(call, "args"), dict(opdef.with_defaults(getattr(call, "attrs")))
        for index, arg in enumerate(args):
            if index >= len(opdef.operands):
                break
            for domain in opdef.operands[index].index_domain:
                if any(attrs.get(k) != v for k, v in domain.when) or domain.into >= len(args):
                    continue
                name = source_of(arg)
                bound = _bound_of(domain, getattr(args[domain.into], "type", None))
                if name is not None and bound is not None:
                    found[name] = found[name].tighter(bound) if name in found else bound
        window = opdef.window
        if window is None or window.source >= len(args):
            return
        shape = getattr(getattr(args[window.source], "type", None), "shape", None)
        offsets = window_offsets(window, call)
        if shape is None or offsets is None or len(offsets) != len(shape):
            return
        extent = window_extent(window, call, len(shape))
        if extent is None or len(extent) != len(shape):
            return
        for offset, size, limit in zip(offsets, extent, shape):
            element = scalars.get(str(getattr(offset, "name"))) if offset.KIND == "Var" else None
            if element is None or not isinstance(limit, int) or limit - size < 0:
                continue
            per = elements.setdefault(element[0], {})
            per[element[1]] = min(per.get(element[1], limit - size + 1), limit - size + 1)

    def visit(body: Sequence[Node]) -> None:
        for stmt in body:
            kind = stmt.KIND
            if kind in ("ForStmt", "WhileStmt"):
                for it in getattr(stmt, "iter_args"):
                    name = source_of(getattr(it, "init"))
                    if name is not None:
                        origin[str(getattr(getattr(it, "var"), "name"))] = name
                visit(getattr(stmt, "body"))
                continue
            if kind == "IfStmt":
                visit(getattr(stmt, "then_body"))
                visit(getattr(stmt, "else_body"))
                continue
            for node in walk(stmt):
                if node.KIND == "Call":
                    visit_call(node)
                elif node.KIND == "FuncCall":
                    callee = functions.get(str(getattr(node, "callee")))
                    if callee is None:
                        continue
                    inner: dict[str, str] = {}
                    inner_scalars: dict[str, tuple[str, int]] = {}
                    for param, arg in zip(getattr(callee, "params"), getattr(node, "args")):
                        param_name = str(getattr(getattr(param, "var"), "name"))
                        name = source_of(arg)
                        if name is not None:
                            inner[param_name] = name
                        if arg.KIND == "Var" and str(getattr(arg, "name")) in scalars:
                            inner_scalars[param_name] = scalars[str(getattr(arg, "name"))]
                    if inner or inner_scalars:
                        _trace_indices(callee, inner, functions, found, depth + 1, elements, inner_scalars)
            if kind == "AssignStmt":
                value = getattr(stmt, "value")
                target = str(getattr(getattr(stmt, "target"), "name"))
                name = source_of(value)
                if name is not None:
                    origin[target] = name
                elif value.KIND == "Call" and _is_read(value):
                    element = _element_of(value, source_of(getattr(value, "args")[0]))
                    if element is not None:
                        scalars[target] = element

    visit(getattr(function, "body"))


def _is_read(call: Node) -> bool:
    try:
        opdef = REGISTRY.get(str(getattr(call, "op")))
    except KeyError:
        return False
    return opdef.semantics[:1] == ("read",)


def _random_indices(rng: np.random.Generator, ty: TensorType, bound: IndexBound) -> Array:
    """Indices of `bound` (distinct where it asks and the tensor is small enough), in `ty`."""
    shape = tuple(ty.shape)
    info = np.iinfo(np_dtype_of(ty.dtype))
    count = min(bound.count, (int(info.max) // bound.step) + 1)
    if bound.distinct and bound.per_row and len(shape) >= 1 and shape[-1] <= count:
        rows = int(np.prod(shape[:-1], dtype=np.int64))
        values = np.stack([rng.choice(count, shape[-1], replace=False) for _ in range(rows)]).reshape(shape)
    elif bound.distinct and not bound.per_row and int(np.prod(shape, dtype=np.int64)) <= count:
        values = rng.choice(count, int(np.prod(shape, dtype=np.int64)), replace=False).reshape(shape)
    else:
        values = rng.integers(0, count, shape)
    values = values.astype(np.int64)
    if bound.pitch is not None:
        cols, pitch = bound.pitch
        values = values // cols * pitch + values % cols
    return (values * bound.step).astype(np_dtype_of(ty.dtype))


__all__ = [
    "BIT_PATTERN_DTYPES",
    "IndexBound",
    "index_parameter_domains",
    "offset_element_bounds",
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
