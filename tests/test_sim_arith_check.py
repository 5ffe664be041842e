"""The fuzzer's check of the simulator's scalar arith tables against their definitions: silent on
the real tables, and it names the op when one entry is wrong (a floored remainder, a max that is
a min, a strict comparison that is not strict), which no generated program would show."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

from backend.fuzzing.sim_arith_check import self_check
from backend.sim import executor


def test_the_simulator_tables_agree_with_their_definitions() -> None:
    assert all(self_check(seed) is None for seed in range(5))


@pytest.mark.parametrize(("table", "name", "wrong", "named"), [
    ("_INT_ARITH", "remsi", lambda a, b: a % b, "`remsi` gives 2 for (-7, 3)"),
    ("_FLOAT_ARITH", "maxf", np.minimum, "`maxf`"),
    ("_PREDICATES", "slt", lambda a, b: a <= b, "`slt`"),
    ("_INT_ARITH", "divsi", lambda a, b: a // b, "`divsi`"),
])
def test_a_wrong_entry_is_named(monkeypatch: pytest.MonkeyPatch, table: str, name: str,
                                wrong: Callable[[Any, Any], Any], named: str) -> None:
    monkeypatch.setitem(getattr(executor, table), name, wrong)
    problem = self_check(0)
    assert problem is not None and named in problem, problem
