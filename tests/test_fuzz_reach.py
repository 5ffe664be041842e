"""The generator reaches the whole op registry: every registered op is either called by a
kernel step (checked by drawing kernels restricted to it) or has a stated reason why a step
never writes it (the PTO language, the tile-kernel frame, a pass-inserted op, no emission yet)."""

from __future__ import annotations

import pytest

from backend.fuzzing.generator import reaches_op
from backend.fuzzing.registry_calls import generatable, not_generated_reason
from languages.ops import REGISTRY

GENERATABLE = sorted(op.name for op in REGISTRY if generatable(op))


@pytest.mark.parametrize("prefix", sorted({op.prefix for op in REGISTRY}))
def test_every_registered_op_is_generated_or_has_a_stated_reason(prefix: str) -> None:
    silent = [op.name for op in REGISTRY if op.prefix == prefix and not generatable(op) and not not_generated_reason(op)]
    assert not silent, f"registered ops no generator step calls, with no stated reason: {silent}"


def test_every_generatable_op_is_reached_by_a_kernel_step() -> None:
    unreached = [name for name in GENERATABLE if not reaches_op(REGISTRY.get(name))]
    assert not unreached, f"the generator declares these ops generatable but never calls them: {unreached}"


def test_an_op_the_generator_cannot_call_is_reported() -> None:
    # A cross-core push is inserted by ExpandMixedKernel, never drawn by a step: the check sees it.
    assert not reaches_op(REGISTRY.get("tile.tpush_to_aiv"), kernels=3)
    assert not_generated_reason(REGISTRY.get("tile.tpush_to_aiv"))


ARCH_ONLY = sorted(op.name for op in REGISTRY if not generatable(op) and any(generatable(op, arch) for arch in ("a2a3", "a5")))


def test_an_op_only_one_target_has_is_drawn_for_that_target() -> None:
    # tile.random / tile.mgather exist on Ascend950 only: a campaign for a5 draws them, one for
    # A2/A3 says why it cannot.
    assert {"tile.random", "tile.mgather", "tensor.random"} <= set(ARCH_ONLY), ARCH_ONLY
    for name in ARCH_ONLY:
        op = REGISTRY.get(name)
        archs = [arch for arch in ("a2a3", "a5") if generatable(op, arch)]
        assert archs and all(reaches_op(op, arch=arch) for arch in archs), name
        assert all(not_generated_reason(op, arch) for arch in ("a2a3", "a5") if arch not in archs), name
