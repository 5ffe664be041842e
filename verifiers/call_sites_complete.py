"""CallSitesComplete: every call to another function passes one argument per parameter, each
of the parameter's shape, dtype and element strides.

ConvertTensorToTileOps appends `Out` parameters to InCore kernels; until
update-orchestration-call-sites allocates them at the callers, a call would hand the kernel
fewer buffers than it writes. A window of a wider tensor is addressed by the kernel at its
parameter's strides: a tensor of other strides would be read at the wrong elements.
"""

from __future__ import annotations

from nanopass.diagnostics import Diagnostic
from nanopass.node import Node, preorder, summary
from languages.types import TensorType, TileType

RULE = "CallSitesComplete"


def _shape_dtype(typ: object) -> tuple[object, object] | None:
    if isinstance(typ, (TensorType, TileType)):
        return (typ.shape, typ.dtype)
    return None


def _strides(typ: object) -> tuple[int, ...] | None:
    """A tensor's element strides: declared, else packed row-major (no helper of the passes)."""
    if not isinstance(typ, TensorType):
        return None
    if typ.strides is not None:
        return tuple(typ.strides)
    steps, step = [], 1
    for dim in reversed(typ.shape):
        steps.append(step)
        step *= dim
    return tuple(reversed(steps))


def _describe(shape_dtype: tuple[object, object]) -> str:
    shape, dtype = shape_dtype
    name = getattr(dtype, "pl_name", None) or getattr(dtype, "name", str(dtype))
    return f"{name} tensor of shape {list(shape) if isinstance(shape, tuple) else shape}"


def verify(program: Node) -> list[Diagnostic]:
    functions = {getattr(f, "name"): f for f in getattr(program, "functions", ())}
    diagnostics: list[Diagnostic] = []
    for function in functions.values():
        if not summary(function).field_values("FuncCall", "callee"):
            continue  # calls no function
        for node in preorder(function):
            if node.KIND != "FuncCall":
                continue
            callee = functions.get(getattr(node, "callee"))
            if callee is None:
                continue
            args = getattr(node, "args")
            params = getattr(callee, "params")
            if len(args) != len(params):
                missing = ", ".join(getattr(p.var, "name") for p in params[len(args):])
                diagnostics.append(Diagnostic.at(
                    node, RULE, f"call to `{callee.name}` in `{function.name}` passes {len(args)} arguments; "
                                f"the callee takes {len(params)}" + (f" (missing {missing})" if missing else ""),
                    f"pass one argument per parameter of `{callee.name}`"))
                continue
            for index, (arg, param) in enumerate(zip(args, params)):
                want = _shape_dtype(getattr(param.var, "type"))
                got = _shape_dtype(getattr(arg, "type", None))
                if want is not None and got is not None and want != got:
                    given = getattr(arg, "name", None)
                    diagnostics.append(Diagnostic.at(
                        node, RULE, f"argument {index}{f' `{given}`' if given else ''} of the call to `{callee.name}` "
                                    f"is {_describe(got)}, but parameter `{param.var.name}` is {_describe(want)}",
                        f"pass a {_describe(want)}, or change `{callee.name}`'s parameter annotation"))
                elif _strides(param.var.type) != _strides(getattr(arg, "type", None)) and got is not None:
                    given = getattr(arg, "name", None)
                    diagnostics.append(Diagnostic.at(
                        node, RULE, f"argument {index}{f' `{given}`' if given else ''} of the call to `{callee.name}` "
                                    f"is laid out at strides {list(_strides(arg.type) or ())}, but parameter "
                                    f"`{param.var.name}` is addressed at {list(_strides(param.var.type) or ())}",
                        f"type `{callee.name}`'s parameter with the strides of the window passed to it"))
    return diagnostics
