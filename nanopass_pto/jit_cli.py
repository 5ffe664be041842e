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
from languages.pl_jit import (
    _DTYPE_WORDS, Binding, Constant, is_jit_source, jit_functions, module_constants, parse_jit, static_binding,
)
from languages.pl_parser import _dotted, _span_of
from languages.types import DataType, TensorType
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.node import Node, Span

RULE = "jit"

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
    static = static_binding(module, filename, entry, constants)
    if static is not None:
        return static
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


def add_arguments(group: Any) -> None:
    group.add_argument("--shapes", metavar="SPEC",
                       help="@pl.jit entry shapes: a=64x128:fp32,b=64x128:fp32,n=4 (a scalar takes a value)")
    group.add_argument("--entry", metavar="NAME",
                       help="the @pl.jit entry to compile when the file has several; for a @pl.program, "
                            "the function a --simulate run starts in")


__all__ = ["add_arguments", "parse_cli", "parse_shapes"]
