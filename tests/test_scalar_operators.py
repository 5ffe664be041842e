"""Python operators are scalar arithmetic (JIT_FRONTEND.md §4.5, Appendix B.1): on a Tensor or a
tile the parser rejects them at the operator with the pl.* call to write instead, and the
ScalarOperators verifier states the same fact for programs built by passes."""

from __future__ import annotations

from dataclasses import replace

import pytest

import languages.gen.tensor as T
from languages.pl_parser import parse_program
from tests.frontend import parse_tensor
from languages.types import DataType, ScalarType
from nanopass.diagnostics import CompileError
from nanopass.node import preorder
from verifiers.scalar_operators import verify

T16 = "pl.Tensor[[16, 16], pl.FP32]"


def kernel(line: str) -> str:
    return ("import pypto.language as pl\n\n@pl.program\nclass P:\n"
            "    @pl.function(type=pl.FunctionType.InCore)\n"
            f"    def k(self, a: {T16}, b: {T16}, n: pl.Scalar[pl.INDEX], c: pl.Out[{T16}]) -> {T16}:\n"
            "        ta = pl.load(a, [0, 0], [16, 16])\n"
            "        tb = pl.load(b, [0, 0], [16, 16])\n"
            f"        {line}\n"
            "        c = pl.store(ta, [0, 0], c)\n"
            "        return c\n")


@pytest.mark.parametrize("expr, hint", [
    ("ta + tb", "pl.add(ta, tb)"), ("ta - tb", "pl.sub(ta, tb)"), ("ta * 2.0", "pl.mul(ta, 2.0)"),
    ("ta / tb", "pl.div(ta, tb)"), ("ta @ tb", "pl.matmul(ta, tb)"), ("-ta", "pl.neg(ta)"),
    ("ta < tb", "pl.cmp(ta, tb, cmp_type=2)"), ("ta == tb", "pl.cmp(ta, tb, cmp_type=0)"),
    ("a + b", "pl.add(a, b)"), ("2.0 * a", "pl.mul(a, 2.0)"),
])
def test_operators_on_tensors_and_tiles_are_rejected_at_the_operator(expr: str, hint: str) -> None:
    with pytest.raises(CompileError) as caught:
        parse_program(kernel(f"t = {expr}"), "k.py")
    diagnostic = caught.value.diagnostics[0]
    assert diagnostic.span.line == 9 and diagnostic.span.col == 13
    assert "not a scalar" in diagnostic.message
    assert hint in diagnostic.hint


def test_scalars_keep_their_operators() -> None:
    program = parse_program(kernel("m = (n + 15) // 16 * 2 - n % 4"), "k.py")
    ops = [getattr(node, "op") for node in preorder(program) if node.KIND == "BinOp"]
    assert ops == ["-", "*", "//", "+", "%"]
    assert verify(program) == []


def test_the_verifier_rejects_an_operator_a_pass_put_on_a_tile() -> None:
    program = parse_tensor(kernel("m = n + 1"), "k.py")  # `c = pl.store(..., c)` reassigns: DSL, lowered
    tile = next(n for n in preorder(program) if isinstance(n, T.Var) and n.name == "ta")
    binop = next(n for n in preorder(program) if isinstance(n, T.BinOp))
    broken = binop.__class__(op="+", lhs=tile, rhs=binop.rhs, type=tile.type, span=binop.span)
    function = program.functions[0]
    body = tuple(replace(s, value=broken) if isinstance(s, T.AssignStmt) and s.value is binop else s
                 for s in function.body)
    found = verify(replace(program, functions=(replace(function, body=body),)))
    assert len(found) == 1 and "not a scalar" in found[0].message and found[0].rule == "ScalarOperators"
    assert binop.type == ScalarType(DataType.INDEX)
