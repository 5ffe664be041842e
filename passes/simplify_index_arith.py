"""SimplifyIndexArith: fold constant scalar index arithmetic.

`4 * 16` becomes `64`, `i + 0` becomes `i`, `3 < 4` becomes `True`. Integer results wrap to the
operand dtype's width, as the hardware's scalar unit does. Float scalars are left alone (their
rounding belongs to the numerics, not to index math). A call whose folded arguments would change
its deduced type (e.g. a slice extent becoming static) keeps its original arguments, so the
pass preserves TypeChecked.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Callable

from typing_extensions import override

import languages.gen.tensor as T
from languages.decls import Tensor
from languages.ops import REGISTRY
from languages.types import DataType, ScalarType
from nanopass.diagnostics import CompileError
from nanopass.passes import Pass, PassContext

_INT_OPS: dict[str, Callable[[int, int], int]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "//": operator.floordiv,
    "%": operator.mod,
}
_COMPARISONS: dict[str, Callable[[int, int], bool]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
_BOOL_OPS: dict[str, Callable[[bool, bool], bool]] = {"and": operator.and_, "or": operator.or_}


def wrap(value: int, dtype: DataType) -> int:
    """Two's-complement (or unsigned) wrap-around to the dtype's width."""
    bits = dtype.bits
    value &= (1 << bits) - 1
    if dtype.is_signed and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def _is_int(e: T.Expr, v: int | None = None) -> bool:
    return isinstance(e, T.ConstInt) and (v is None or e.value == v)


class _Folder(T.Rewriter):
    @override
    def visit_BinOp(self, node: T.BinOp) -> T.Expr:
        rebuilt = super().visit_BinOp(node)
        assert isinstance(rebuilt, T.BinOp)
        folded = self.fold(rebuilt)
        if folded is not rebuilt:
            self.bump("folded")
        return folded

    def fold(self, node: T.BinOp) -> T.Expr:
        lhs, rhs, op = node.lhs, node.rhs, node.op
        if isinstance(lhs, T.ConstInt) and isinstance(rhs, T.ConstInt):
            if op in _INT_OPS and not (op in ("//", "%") and rhs.value == 0):
                dtype = node.type.dtype if isinstance(node.type, ScalarType) else lhs.dtype
                return T.ConstInt(wrap(_INT_OPS[op](lhs.value, rhs.value), dtype), dtype, span=node.span)
            if op in _COMPARISONS:
                return T.ConstBool(_COMPARISONS[op](lhs.value, rhs.value), span=node.span)
        if isinstance(lhs, T.ConstBool) and isinstance(rhs, T.ConstBool) and op in _BOOL_OPS:
            return T.ConstBool(_BOOL_OPS[op](lhs.value, rhs.value), span=node.span)
        return self.identity(node)

    @staticmethod
    def identity(node: T.BinOp) -> T.Expr:
        """x + 0, 0 + x, x - 0, x * 1, 1 * x, x // 1 → x, when x already has the result type."""
        lhs, rhs, op = node.lhs, node.rhs, node.op
        keep: T.Expr | None = None
        if (op in ("+", "-") and _is_int(rhs, 0)) or (op in ("*", "//") and _is_int(rhs, 1)):
            keep = lhs
        elif (op == "+" and _is_int(lhs, 0)) or (op == "*" and _is_int(lhs, 1)):
            keep = rhs
        if keep is not None and _expr_type(keep) == node.type:
            return keep
        return node

    @override
    def visit_UnaryOp(self, node: T.UnaryOp) -> T.Expr:
        rebuilt = super().visit_UnaryOp(node)
        assert isinstance(rebuilt, T.UnaryOp)
        operand = rebuilt.operand
        if rebuilt.op == "-" and isinstance(operand, T.ConstInt):
            self.bump("folded")
            return T.ConstInt(wrap(-operand.value, operand.dtype), operand.dtype, span=node.span)
        if rebuilt.op == "not" and isinstance(operand, T.ConstBool):
            self.bump("folded")
            return T.ConstBool(not operand.value, span=node.span)
        return rebuilt

    @override
    def visit_Call(self, node: T.Call) -> T.Expr:
        rebuilt = super().visit_Call(node)
        if rebuilt is node or not isinstance(rebuilt, T.Call):
            return rebuilt
        try:
            deduced = REGISTRY.deduce(rebuilt.op, rebuilt.args, rebuilt.attrs)
        except CompileError:
            deduced = None
        if deduced != node.type:
            self.bump("calls-kept-to-preserve-type")
            return node
        return rebuilt


def _expr_type(e: T.Expr) -> object:
    if isinstance(e, T.ConstInt):
        return ScalarType(e.dtype)
    return getattr(e, "type", None)


@dataclass(frozen=True)
class SimplifyIndexArith(Pass[T.Program, T.Program]):
    """Fold constant scalar index arithmetic (copy-on-write; types preserved)."""

    name = "simplify-index-arith"
    spec_name = "SimplifyIndexArith"
    source = Tensor
    target = Tensor

    @override
    def run(self, program: T.Program, ctx: PassContext) -> T.Program:
        return ctx.rewrite(_Folder(), program)
