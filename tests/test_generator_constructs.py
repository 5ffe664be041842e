"""The generator's scalar, view, runtime-extent and orchestration-window constructs: each is
drawn, a program carrying it compiles under verify-all and simulates bit for bit, dead scalars
reach an output, and the fuzz target draws runtime valid extents inside their tile."""

from __future__ import annotations

import warnings

import numpy as np
from hypothesis import HealthCheck, given, settings

from backend.fuzzing.generator import CONSTRUCTS, GeneratedProgram, valid_extent_bound
from languages.gen import tensor as T
from languages.types import ScalarType
from nanopass.node import walk
from nanopass_pto.fuzz_target import FuzzCase, PtoFuzzTarget, valid_extents

NEW = tuple(f"construct:{name}" for name in (
    "scalar-consumed", "scalar-read-gm", "scalar-read-tile", "scalar-round-trip", "unsigned-condition",
    "window-re-viewed", "padding-broadcast", "runtime-valid", "orchestration-windows", "strided-column",
    "narrowed-view-read-whole"))

_TARGET = PtoFuzzTarget()
_TARGET.configure(None, None, None)


def _cases(count: int) -> list[FuzzCase]:
    drawn: list[FuzzCase] = []

    @settings(max_examples=count, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(_TARGET.strategy())
    def collect(case: FuzzCase) -> None:
        drawn.append(case)

    collect()
    return drawn


_DRAWN = _cases(400)


def test_the_constructs_are_known_and_drawn() -> None:
    assert set(NEW) <= set(CONSTRUCTS)
    seen = {tag for case in _DRAWN for tag in case.generated.ops}
    assert set(NEW) <= seen, sorted(set(NEW) - seen)


def test_a_program_of_each_construct_compiles_and_matches_the_interpreter() -> None:
    for tag in NEW:
        case = next(c for c in _DRAWN if tag in c.generated.ops)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            outcome = _TARGET.check(case)
        assert not outcome.failed, f"{tag}: {outcome.headline()}\n{outcome.detail}\n{case.text}"


def _unread_scalar_params(generated: GeneratedProgram) -> list[str]:
    unread = []
    for function in generated.program.functions:
        if function.func_type != "InCore":
            continue
        used = {getattr(n, "name") for stmt in function.body for n in walk(stmt) if n.KIND == "Var"}
        unread += [f"{function.name}.{p.var.name}" for p in function.params
                   if isinstance(p.var.type, ScalarType) and p.var.name not in used]
    return unread


def test_scalar_parameters_reach_the_kernel_body() -> None:
    # A scalar drawn and never read would be dropped as dead code: consume_scalars folds it in.
    assert not [name for case in _DRAWN for name in _unread_scalar_params(case.generated)]
    folded = [c for c in _DRAWN if "construct:scalar-consumed" in c.generated.ops]
    assert any(isinstance(n, T.UnaryOp) and n.op == "cast" for c in folded for f in c.generated.program.functions
               for stmt in f.body for n in walk(stmt))


def test_runtime_valid_extents_are_drawn_inside_their_tile() -> None:
    assert valid_extent_bound("ve16n3") == 16 and valid_extent_bound("ve2n11") == 2
    assert valid_extent_bound("vec3") is None and valid_extent_bound("k3") is None
    values = set()
    for seed in range(200):
        drawn = valid_extents({"kernel0_ve3n5": np.asarray(4, np.int64), "kernel0_k2": np.asarray(4)}, seed)
        assert drawn["kernel0_k2"] == 4
        values.add(int(drawn["kernel0_ve3n5"]))
    assert values == {1, 2, 3}
    ragged = next(c for c in _DRAWN if "construct:runtime-valid" in c.generated.ops)
    assert any(valid_extent_bound(p.var.name) for f in ragged.generated.program.functions for p in f.params)
