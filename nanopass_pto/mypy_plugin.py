"""A mypy plugin for kernel files: reads the `pl` annotation forms as types.

`pl.Tensor[[64, 128], pl.FP32]` is not a Python type (its first argument is a list of
dimensions), so mypy alone rejects it. This plugin (`plugins = ["nanopass_pto.mypy_plugin"]` in
`[tool.mypy]`) checks the form -- a list of dimensions (integer literals or names: module
constants, `pl.dynamic` symbols) and then a dtype (`pl.FP32`, any `pl.<DataType member>`), further
arguments as the compiler reads them -- and gives it the stub's class (`pypto.language.Tensor`,
`Tile`, ...); `pl.Out[T]` / `pl.InOut[T]` are `T`. Shapes and dtypes are the compiler's to check
(TypeChecked): mypy sees a tensor as a tensor, so a tile passed where an op takes a tensor, a
missing operand or a misspelt op is what it flags (the stub, `nanopass_pto.pl_stubs`).
"""

from __future__ import annotations

from typing import Callable

from mypy.plugin import AnalyzeTypeContext, Plugin
from typing_extensions import override
from mypy.types import RawExpressionType, Type, TypeList, UnboundType

from languages.types import DataType

_MODULE = "pypto.language"
# Annotation heads whose first argument is a dimension list, then a dtype.
_SHAPED = ("Tensor", "Tile", "DistributedTensor")
_DTYPE_NAMES = frozenset(DataType.__members__)


def _is_dimension(item: Type) -> bool:
    if isinstance(item, RawExpressionType):
        return isinstance(item.literal_value, int) and not isinstance(item.literal_value, bool)
    return isinstance(item, UnboundType) and not item.args  # a constant or a pl.dynamic symbol


def _is_dtype(item: Type) -> bool:
    return isinstance(item, UnboundType) and not item.args and item.name.rsplit(".", 1)[-1] in _DTYPE_NAMES


def _shaped(head: str) -> Callable[[AnalyzeTypeContext], Type]:
    def analyze(ctx: AnalyzeTypeContext) -> Type:
        args = ctx.type.args
        form = f"pl.{head}[[d0, d1, ...], pl.DTYPE, ...]"
        if args:
            dims = args[0]
            if not (isinstance(dims, TypeList) and all(_is_dimension(d) for d in dims.items)):
                ctx.api.fail(f"pl.{head}: the first argument is a list of dimensions (integers or "
                             f"pl.dynamic names), as in {form}", ctx.context)
            elif len(args) < 2 or not _is_dtype(args[1]):
                ctx.api.fail(f"pl.{head}: the second argument is a dtype such as pl.FP32, as in {form}", ctx.context)
        return ctx.api.named_type(f"{_MODULE}.{head}", [])
    return analyze


def _scalar(ctx: AnalyzeTypeContext) -> Type:
    args = ctx.type.args
    if len(args) > 1 or (args and not _is_dtype(args[0])):
        ctx.api.fail("pl.Scalar takes one dtype, as in pl.Scalar[pl.INDEX]", ctx.context)
    return ctx.api.named_type(f"{_MODULE}.Scalar", [])


def _direction(head: str) -> Callable[[AnalyzeTypeContext], Type]:
    def analyze(ctx: AnalyzeTypeContext) -> Type:
        if len(ctx.type.args) != 1:
            ctx.api.fail(f"pl.{head} takes one parameter type, as in pl.{head}[pl.Tensor[[64, 128], pl.FP32]]",
                         ctx.context)
            return ctx.api.named_type(f"{_MODULE}.Tensor", [])
        return ctx.api.analyze_type(ctx.type.args[0])
    return analyze


def _opaque(head: str) -> Callable[[AnalyzeTypeContext], Type]:
    """`pl.Tuple[...]`, `pl.Array[...]`, `pl.Ptr[...]`: their arguments are the compiler's to read."""
    def analyze(ctx: AnalyzeTypeContext) -> Type:
        return ctx.api.named_type(f"{_MODULE}.{head}", [])
    return analyze


def _dtype_scalar(ctx: AnalyzeTypeContext) -> Type:
    """A dtype as a parameter annotation (`scale: pl.FP32` in a @pl.jit kernel) is a scalar of it."""
    return ctx.api.named_type(f"{_MODULE}.Scalar", [])


_HOOKS: dict[str, Callable[[AnalyzeTypeContext], Type]] = {
    # the stub re-exports the dtypes from the runtime `pl` module, so their names resolve there
    **{f"nanopass_pto.language.{name}": _dtype_scalar for name in _DTYPE_NAMES},
    **{f"{_MODULE}.{head}": _shaped(head) for head in _SHAPED},
    f"{_MODULE}.Scalar": _scalar,
    f"{_MODULE}.TaskId": _scalar,
    f"{_MODULE}.Out": _direction("Out"),
    f"{_MODULE}.InOut": _direction("InOut"),
    **{f"{_MODULE}.{head}": _opaque(head) for head in ("Tuple", "Array", "Ptr")},
}


class PlPlugin(Plugin):
    @override
    def get_type_analyze_hook(self, fullname: str) -> Callable[[AnalyzeTypeContext], Type] | None:
        return _HOOKS.get(fullname)


def plugin(version: str) -> type[Plugin]:
    return PlPlugin
