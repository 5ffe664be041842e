"""`python -m nanopass.pipeline kernel.py` on a file of `@pl.jit` kernels: where the shapes come from.

A `@pl.jit` entry with bare `pl.Tensor` parameters has no shapes until it is called. The CLI
takes them, in this order, from:

- `--shapes a=64x128:fp32,b=64x128:fp32,n=4` (a scalar parameter takes a value);
- `--inputs in.npz` (the arrays' shapes and dtypes; they are also the run's inputs);
- the file's own sample call (PyPTO's sample mode): a call of the entry in the module, e.g. in
  its `if __name__ == "__main__":` block, whose arguments are built there by NumPy / torch
  constructors with constant shapes (`np.zeros((128, 128), dtype=np.float32)`,
  `torch.randn(64, 64)`, `np.full(...)`, `x.astype(np.float16)`) or are number literals;
- full annotations (`pl.Tensor[[128, 128], pl.FP32]`: PyPTO's signature mode).

With none of these, a located error says so. `--entry NAME` picks the entry when the file has
several.
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from backend import numerics
from languages.pl_jit import Binding, Constant, fold_constant, is_jit_source, jit_functions, module_constants, parse_jit
from languages.pl_parser import _dotted, _span_of
from languages.types import DataType, TensorType
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.node import Node, Span

RULE = "jit"

# numpy / torch dtype spellings -> DataType
_DTYPE_WORDS = {
    "float32": DataType.FP32, "float16": DataType.FP16, "half": DataType.FP16, "float": DataType.FP32,
    "bfloat16": DataType.BF16, "int8": DataType.INT8, "int16": DataType.INT16, "int32": DataType.INT32,
    "int64": DataType.INT64, "uint8": DataType.UINT8, "uint16": DataType.UINT16, "uint32": DataType.UINT32,
    "bool": DataType.BOOL, "bool_": DataType.BOOL, "float8_e4m3fn": DataType.FP8E4M3FN,
    "float8_e5m2": DataType.FP8E5M2, "fp32": DataType.FP32, "fp16": DataType.FP16, "bf16": DataType.BF16,
    "float64": DataType.INT64,  # not a kernel dtype: rejected below
}
_CONSTRUCTORS = {"zeros", "ones", "empty", "full", "rand", "randn", "random", "randint", "zeros_like", "ones_like",
                 "empty_like", "arange", "tensor", "array", "normal", "uniform", "standard_normal", "integers"}


def _error(message: str, span: Span, hint: str = "") -> CompileError:
    return CompileError(Diagnostic(RULE, message, span, hint))


def parse_cli(text: str, filename: str, args: argparse.Namespace) -> Node:
    """The program of a CLI input: a `@pl.jit` file specialized on the shapes the options (or the
    file) give, or the `@pl.program` / IR text otherwise."""
    if filename.endswith(".pto") or not is_jit_source(text) or "@pl.program" in text:
        from nanopass_pto.plugin import parse

        return parse(text, filename)
    module = ast.parse(text, filename)
    defs = jit_functions(module, filename)
    entries = [name for name, d in defs.items() if d.func_type == "Orchestration"]
    entry = getattr(args, "entry", None)
    if entry is None and len(entries) > 1:
        raise _error(f"{filename} has {len(entries)} @pl.jit entries ({', '.join(entries)}); pick one with --entry NAME",
                     Span(filename, 1, 1))
    entry = entry or (entries[0] if entries else None)
    if entry is None or entry not in entries:
        raise _error(f"{filename} has no @pl.jit entry {entry!r} (entries: {', '.join(entries) or 'none'})",
                     Span(filename, 1, 1))
    constants = module_constants(module)
    binding = _binding(module, filename, entry, args, constants)
    return parse_jit(text, filename, entry, binding, constants)


def _binding(module: ast.Module, filename: str, entry: str, args: argparse.Namespace,
             constants: Mapping[str, Constant]) -> Binding:
    shapes = getattr(args, "shapes", None)
    if shapes:
        return parse_shapes(shapes)
    inputs: Path | None = getattr(args, "inputs", None)
    if inputs is not None:
        return _npz_binding(inputs)
    sample = sample_binding(module, filename, entry, constants)
    if sample is not None:
        return sample
    signature = _signature_binding(module, filename, entry, constants)
    if signature is not None:
        return signature
    function = jit_functions(module, filename)[entry].node
    raise _error(f"@pl.jit entry `{entry}` has no shapes: its tensor parameters are bare pl.Tensor and the file "
                 "calls it nowhere with arrays of constant shape", _span_of(filename, function),
                 "give them: --shapes a=128x128:fp32,... or --inputs in.npz (or annotate pl.Tensor[[128, 128], pl.FP32])")


def parse_shapes(text: str) -> Binding:
    """`a=64x128:fp32,b=64x128:fp32,n=4` (a dimension list, a dtype; or a scalar's value)."""
    tensors: dict[str, TensorType] = {}
    scalars: dict[str, Constant] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, sep, spec = item.partition("=")
        if not sep or not name.isidentifier():
            raise _error(f"--shapes: expected NAME=DIMSxDIMS:dtype, got {item!r}", Span("<--shapes>", 1, 1),
                         "e.g. --shapes a=64x128:fp32,b=64x128:fp32")
        dims, colon, dtype_text = spec.partition(":")
        if not colon:
            try:
                scalars[name] = int(spec) if spec.lstrip("-").isdigit() else float(spec)
            except ValueError:
                raise _error(f"--shapes: {name}={spec!r} is neither a shape with a dtype nor a number",
                             Span("<--shapes>", 1, 1), "e.g. a=64x128:fp32 or n=4") from None
            continue
        try:
            shape = tuple(int(d) for d in dims.lower().split("x"))
            dtype = _DTYPE_WORDS.get(dtype_text.lower()) or DataType.parse(dtype_text)
        except (ValueError, KeyError):
            raise _error(f"--shapes: cannot read {item!r}", Span("<--shapes>", 1, 1),
                         "write NAME=ROWSxCOLS:dtype with a dtype like fp32, fp16, bf16, int8, int32") from None
        tensors[name] = TensorType(shape, dtype)
    return Binding(tensors, scalars)


def _npz_binding(path: Path) -> Binding:
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {key: archive[key] for key in archive.files}
    except (OSError, ValueError) as exc:
        raise _error(f"cannot read inputs from {path}: {exc}", Span(str(path), 1, 1)) from None
    tensors: dict[str, TensorType] = {}
    scalars: dict[str, Constant] = {}
    for name, array in arrays.items():
        if array.ndim == 0:
            scalars[name] = array.item()
            continue
        try:
            dtype = DataType.parse(numerics.dtype_name_of(array))
        except (numerics.NumericsError, KeyError):
            raise _error(f"{path}: array {name!r} has unsupported dtype {array.dtype}", Span(str(path), 1, 1)) from None
        tensors[name] = TensorType(tuple(int(d) for d in array.shape), dtype)
    return Binding(tensors, scalars)


# -- sample mode: the file's own call of the entry ------------------------------------------------------


def sample_binding(module: ast.Module, filename: str, entry: str, constants: Mapping[str, Constant]) -> Binding | None:
    params = [a.arg for a in jit_functions(module, filename)[entry].node.args.args]
    for block in _blocks(module):
        assigned: dict[str, ast.expr] = {}
        names: dict[str, Constant] = dict(constants)
        for stmt in block:
            call = _entry_call(stmt, entry)
            if call is not None:
                binding = _bind_call(call, params, assigned, names)
                if binding is not None:
                    return binding
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                assigned[stmt.targets[0].id] = stmt.value
                value = fold_constant(stmt.value, names)
                if value is not None:
                    names[stmt.targets[0].id] = value
    return None


def _blocks(module: ast.Module) -> list[list[ast.stmt]]:
    """Every statement block outside the jit functions (module body, if-bodies, function bodies)."""
    out: list[list[ast.stmt]] = [module.body]
    for node in ast.walk(module):
        if isinstance(node, ast.FunctionDef) and any(_dotted(d.func if isinstance(d, ast.Call) else d) is not None
                                                     and (_dotted(d.func if isinstance(d, ast.Call) else d) or [])[:2]
                                                     == ["pl", "jit"] for d in node.decorator_list):
            continue
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt) and node is not module:
                out.append(block)
    return out


def _entry_call(stmt: ast.stmt, entry: str) -> ast.Call | None:
    value = stmt.value if isinstance(stmt, (ast.Expr, ast.Assign)) else None
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == entry:
        return value
    return None


def _bind_call(call: ast.Call, params: list[str], assigned: Mapping[str, ast.expr],
               names: Mapping[str, Constant]) -> Binding | None:
    tensors: dict[str, TensorType] = {}
    scalars: dict[str, Constant] = {}
    given = list(zip(params, call.args)) + [(kw.arg, kw.value) for kw in call.keywords if kw.arg in params]
    for param, arg in given:
        assert param is not None
        literal = fold_constant(arg, names)
        if literal is not None:
            scalars[param] = literal
            continue
        source = assigned.get(arg.id) if isinstance(arg, ast.Name) else arg
        built = _constructed(source, names, assigned) if source is not None else None
        if built is None or built[1] is None:
            return None  # not an array of constant shape, or NumPy's default float64 (no kernel dtype)
        tensors[param] = TensorType(built[0], built[1])
    return Binding(tensors, scalars)


Built = tuple[tuple[int, ...], DataType | None]


def _constructed(node: ast.expr, names: Mapping[str, Constant], assigned: Mapping[str, ast.expr],
                 depth: int = 0) -> Built | None:
    """The shape and dtype (None: NumPy's float64 default) an array constructor expression
    builds, when its shape is constant."""
    if depth > 8:
        return None
    if isinstance(node, ast.BinOp):  # `np.arange(n).reshape(r, c) / 64`: arithmetic keeps shape and dtype
        for side in (node.left, node.right):
            base = assigned.get(side.id) if isinstance(side, ast.Name) else side
            built = _constructed(base, names, assigned, depth + 1) if base is not None else None
            if built is not None:
                return built
        return None
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return None
    attr = node.func.attr
    if attr in ("astype", "to", "type") and node.args:  # x.astype(np.float16), t.to(torch.bfloat16)
        inner = node.func.value
        base = assigned.get(inner.id) if isinstance(inner, ast.Name) else inner
        built = _constructed(base, names, assigned, depth + 1) if base is not None else None
        dtype = _dtype(node.args[0])
        return (built[0], dtype) if built is not None and dtype is not None else None
    if attr == "reshape":
        inner = node.func.value
        base = assigned.get(inner.id) if isinstance(inner, ast.Name) else inner
        built = _constructed(base, names, assigned, depth + 1) if base is not None else None
        shape = _shape(node.args, names)
        return (shape, built[1]) if built is not None and shape is not None else None
    if attr in ("contiguous", "clone", "copy", "cpu", "detach"):
        inner = node.func.value
        base = assigned.get(inner.id) if isinstance(inner, ast.Name) else inner
        return _constructed(base, names, assigned, depth + 1) if base is not None else None
    if attr not in _CONSTRUCTORS:
        return None
    root = (_dotted(node.func) or [""])[0]
    torch = root == "torch"
    keywords = {kw.arg: kw.value for kw in node.keywords if kw.arg}
    if attr in ("zeros_like", "ones_like", "empty_like"):
        like = node.args[0] if node.args else None
        source = assigned.get(like.id) if isinstance(like, ast.Name) else like
        return _constructed(source, names, assigned, depth + 1) if source is not None else None
    if attr in ("randint", "integers"):
        shape = _shape([keywords["size"]], names) if "size" in keywords else (
            _shape(node.args[2:3], names) if len(node.args) >= 3 else None)
    elif attr in ("normal", "uniform"):
        shape = _shape([keywords["size"]], names) if "size" in keywords else None
    elif "size" in keywords or "shape" in keywords:
        shape = _shape([keywords.get("size") or keywords["shape"]], names)
    else:
        if node.args and isinstance(node.args[0], (ast.Tuple, ast.List)) or attr == "full":
            args = node.args[:1]  # np.zeros((r, c)), torch.full((r, c), v), rng.standard_normal((r, c))
        elif attr == "arange":
            args = node.args[-1:] if len(node.args) == 1 else []
        else:
            args = list(node.args)  # torch.randn(r, c), np.random.rand(r, c)
        shape = _shape(args, names)
    if shape is None:
        return None
    dtype = _dtype(keywords["dtype"]) if "dtype" in keywords else (DataType.FP32 if torch else None)
    if dtype is None and attr == "randint" and torch:
        dtype = DataType.INT64
    return shape, dtype


def _shape(args: list[ast.expr] | Any, names: Mapping[str, Constant]) -> tuple[int, ...] | None:
    if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
        args = args[0].elts
    dims: list[int] = []
    for arg in args:
        value = fold_constant(arg, names)
        if not isinstance(value, int) or isinstance(value, bool):
            return None
        dims.append(value)
    return tuple(dims) if dims else None


def _dtype(node: ast.expr) -> DataType | None:
    parts = _dotted(node)
    word = parts[-1] if parts else (node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else "")
    dtype = _DTYPE_WORDS.get(str(word))
    if parts and parts[0] == "pl" and len(parts) == 2 and parts[1] in DataType.__members__:
        return DataType[parts[1]]
    return None if word == "float64" else dtype


# -- signature mode ----------------------------------------------------------------------------------


def _signature_binding(module: ast.Module, filename: str, entry: str,
                       constants: Mapping[str, Constant]) -> Binding | None:
    """Full `pl.Tensor[[dims], dtype]` annotations on every tensor parameter, scalar values from
    defaults."""
    function = jit_functions(module, filename)[entry].node
    tensors: dict[str, TensorType] = {}
    scalars: dict[str, Constant] = {}
    defaults = dict(zip([a.arg for a in function.args.args][-len(function.args.defaults):] if function.args.defaults
                        else [], function.args.defaults))
    for arg in function.args.args:
        node: ast.expr | None = arg.annotation
        if isinstance(node, ast.Subscript) and _dotted(node.value) in (["pl", "Out"], ["pl", "InOut"]):
            node = node.slice
        if isinstance(node, ast.Subscript) and _dotted(node.value) == ["pl", "Tensor"]:
            items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            shape = _shape([items[0]], constants) if items else None
            dtype = _dtype(items[1]) if len(items) > 1 else None
            if shape is None or dtype is None:
                return None
            tensors[arg.arg] = TensorType(shape, dtype)
        elif arg.arg in defaults:
            value = fold_constant(defaults[arg.arg], constants)
            if value is None:
                return None
            scalars[arg.arg] = value
        elif node is not None and (_dotted(node) or [""])[0] == "pl" and not isinstance(node, ast.Subscript) \
                or isinstance(node, ast.Subscript) and _dotted(node.value) == ["pl", "Scalar"]:
            return None  # a scalar without a value: only a call can give it
        else:
            return None
    return Binding(tensors, scalars)


def add_arguments(group: Any) -> None:
    group.add_argument("--shapes", metavar="SPEC",
                       help="@pl.jit entry shapes: a=64x128:fp32,b=64x128:fp32,n=4 (a scalar takes a value)")
    group.add_argument("--entry", metavar="NAME", help="the @pl.jit entry to compile when the file has several")


__all__ = ["add_arguments", "parse_cli", "parse_shapes", "sample_binding"]
