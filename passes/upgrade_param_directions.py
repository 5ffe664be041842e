"""UpgradeParamDirections (TileUnplaced → TileUnplaced, and TilePlaced → TilePlaced): `In`
parameters that are written become `Out` (write-only) or `InOut` (read and written).

Reads and writes are attributed to parameters through GM aliases by AnalyzeCallAccess
(`passes.analysis.param_access`), which takes each operator's argument effects from the op
registry. Parameters the user declared `Out` / `InOut` are left as they are.

The spec runs it inside ConvertTensorToTileOps, on every program; a kernel written at TilePlaced
enters the pipeline after that point and gets the same rewrite from
`passes.upgrade_param_directions_placed`. The WrittenParamsDeclared property
(verifiers.written_params_declared) checks the result.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from typing_extensions import override

import languages.gen.tile_unplaced as U
from languages.decls import TileUnplaced
from languages.functions import is_kernel_function
from nanopass.langdef import Language
from nanopass.node import Node
from nanopass.passes import Pass, PassContext
from passes.analysis.param_access import analyze_param_access


def upgraded_function(function: Node, bump: object) -> Node:
    """`function` with its written In params upgraded (the same object when none is)."""
    if not is_kernel_function(function):
        return function
    report = analyze_param_access(function)
    params = []
    for param in getattr(function, "params"):
        access = report.params.get(param.var.name)
        if param.direction == "In" and access is not None and access.written:
            direction = "InOut" if access.read else "Out"
            getattr(bump, "bump")(f"in_to_{direction.lower()}")
            param = replace(param, direction=direction)
        params.append(param)
    if all(a is b for a, b in zip(params, getattr(function, "params"))):
        return function
    return replace(function, params=tuple(params))  # type: ignore[type-var]


class ParamDirectionMutator(U.Rewriter):
    @override
    def visit_Function(self, node: U.Function) -> U.Function:
        result = upgraded_function(node, self)
        assert isinstance(result, U.Function)
        return result


@dataclass(frozen=True)
class UpgradeParamDirections(Pass[U.Program, U.Program]):
    """Upgrade written In params of kernels to Out / InOut from argument effects."""

    name: ClassVar[str] = "upgrade-param-directions"
    spec_name: ClassVar[str] = "UpgradeParamDirections"
    source: ClassVar[Language] = TileUnplaced
    target: ClassVar[Language] = TileUnplaced
    produces: ClassVar[frozenset[str]] = frozenset({"WrittenParamsDeclared"})

    @override
    def run(self, program: U.Program, ctx: PassContext) -> U.Program:
        return ctx.rewrite(ParamDirectionMutator(), program)
