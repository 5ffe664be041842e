"""The simulator's scalar arithmetic, checked against definitions of its own.

A campaign compares the simulator with the reference interpreter, but scalar `arith.*` ops are
the simulator's alone: PTOCodegen emits some of them in forms whose result does not depend on
one op's corner (FloorMod is `remsi(remsi(a, b) + b, b)`, equal for a truncated and a floored
remainder), and some are reached only by PTO text a user writes (`arith.maxf`). So a wrong
entry in the simulator's tables would never make a generated program differ; this check runs
every table entry it knows on random and corner operands against an independent definition
(integer division and remainder truncate toward zero as in C; max / min of distinct values;
the comparison predicates by their meaning) and names the first disagreement. It reads the
tables when it runs, so a mutant that replaces an entry is seen.
"""

from __future__ import annotations

import operator
import random
from typing import Any, Callable

from backend.sim import executor

Reference = Callable[[Any, Any], Any]


def _sign(value: int) -> int:
    return -1 if value < 0 else 1


def _c_quotient(a: int, b: int) -> int:
    return _sign(a) * _sign(b) * (abs(a) // abs(b))


def _c_remainder(a: int, b: int) -> int:
    return _sign(a) * (abs(a) % abs(b))


INT_REFERENCES: dict[str, Reference] = {
    "addi": operator.add, "subi": operator.sub, "muli": operator.mul,
    "divsi": _c_quotient, "remsi": _c_remainder, "floordivsi": operator.floordiv,
    "maxsi": lambda a, b: a if a >= b else b, "minsi": lambda a, b: a if a <= b else b,
    "andi": operator.and_, "ori": operator.or_, "xori": operator.xor,
}  # fmt: skip
FLOAT_REFERENCES: dict[str, Reference] = {
    "addf": operator.add, "subf": operator.sub, "mulf": operator.mul,
    "maxf": lambda a, b: a if a >= b else b, "minf": lambda a, b: a if a <= b else b,
}  # fmt: skip
PREDICATE_REFERENCES: dict[str, Reference] = {
    "eq": operator.eq, "ne": operator.ne, "slt": operator.lt, "sle": operator.le, "sgt": operator.gt,
    "sge": operator.ge, "ult": operator.lt, "ule": operator.le, "ugt": operator.gt, "uge": operator.ge,
    "oeq": operator.eq, "une": operator.ne, "olt": operator.lt, "ole": operator.le, "ogt": operator.gt,
    "oge": operator.ge,
}  # fmt: skip

# Operand pairs every check includes: both signs of dividend and divisor, equal operands.
INT_CORNERS = ((7, 3), (-7, 3), (7, -3), (-7, -3), (3, 3), (-1, 5), (0, -4), (2**31 - 1, -2), (-(2**31), 7))
FLOAT_CORNERS = ((1.5, -2.0), (-2.0, 1.5), (0.25, 0.5), (-3.0, -3.0), (65504.0, -65504.0))


def _operands(rng: random.Random, corners: tuple[tuple[Any, Any], ...], draw: Callable[[], Any],
              count: int) -> list[tuple[Any, Any]]:
    return list(corners) + [(draw(), draw()) for _ in range(count)]


def _first_disagreement(table: dict[str, Callable[..., Any]], references: dict[str, Reference],
                        pairs: list[tuple[Any, Any]], kind: str, nonzero_divisor: frozenset[str]) -> str | None:
    for name, reference in references.items():
        implementation = table.get(name)
        if implementation is None:
            continue
        for a, b in pairs:
            if name in nonzero_divisor and b == 0:
                continue
            got, expected = implementation(a, b), reference(a, b)
            same = bool(got) == expected if isinstance(expected, bool) else bool(got == expected)
            if same:
                continue
            return (f"the simulator's {kind} `{name}` gives {got!r} for ({a!r}, {b!r}); its definition "
                    f"gives {expected!r}")
    return None


def self_check(seed: int, count: int = 24) -> str | None:
    """None when every known simulator scalar op agrees with its definition, else the first
    disagreement (which op, on what, what it should be)."""
    rng = random.Random(seed)
    ints = _operands(rng, INT_CORNERS, lambda: rng.randint(-1000, 1000), count)
    floats = _operands(rng, FLOAT_CORNERS, lambda: float(rng.randint(-64, 64)) / 4, count)
    int_table: dict[str, Callable[..., Any]] = getattr(executor, "_INT_ARITH")
    float_table: dict[str, Callable[..., Any]] = getattr(executor, "_FLOAT_ARITH")
    predicates: dict[str, Callable[..., Any]] = getattr(executor, "_PREDICATES")
    division = frozenset({"divsi", "remsi", "floordivsi"})
    return (_first_disagreement(int_table, INT_REFERENCES, ints, "integer op", division)
            or _first_disagreement(float_table, FLOAT_REFERENCES, floats, "float op", frozenset())
            or _first_disagreement(predicates, PREDICATE_REFERENCES, ints + floats, "predicate", frozenset()))


__all__ = ["self_check"]
